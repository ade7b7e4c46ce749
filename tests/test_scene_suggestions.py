"""A misspelt name of the scene's own (``self.bal`` for ``self.ball``, ``hf.Sper``, a local
variable) keeps the name Python itself would suggest in its traceback: the line hfrender
prints in its place said only "has no attribute 'bal'"."""

import pytest
from test_render import write_scene

from hfrender.cli import main


@pytest.mark.parametrize("line,said", [
    ("self.bal.position = (t, 0, 0)",
     "AttributeError: 'Typo' object has no attribute 'bal' (scene.py:13); "
     "did you mean 'ball'?"),
    ("self.ball.position = (speeed * t, 0, 0)",
     "NameError: name 'speeed' is not defined (scene.py:13); did you mean 'speed'?"),
    ("self.ball.position = (mth.cos(t), 0, 0)",
     "NameError: name 'mth' is not defined (scene.py:13); did you mean 'math'?"),
    ("self.ball.position = (nothing_near_it, 0, 0)",  # no name near: nothing added
     "NameError: name 'nothing_near_it' is not defined (scene.py:13)"),
    ("self.ball.position = (random.random(), 0, 0)",  # was "did you mean 'range'?"
     "NameError: name 'random' is not defined (scene.py:13); did you forget to import "
     "random?"),
    ("self.ball.position = (np.sin(t), 0, 0)",
     "NameError: name 'np' is not defined (scene.py:13); did you forget to import numpy "
     "as np?"),
    ("self.ball.position = (speedometer, 0, 0)",  # another name: difflib's 0.6 offered
     "NameError: name 'speedometer' is not defined (scene.py:13)"),  # 'speed'
])
def test_a_misspelt_name_in_update_says_the_name_meant(tmp_path, capsys, monkeypatch, line,
                                                        said):
    write_scene(tmp_path, f"""
    class Typo(hf.Scene):
        duration = 0.2

        def setup(self):
            self.ball = self.add(hf.Sphere())

        def update(self, t):
            speed = 2.0
            {line}
    """)
    monkeypatch.chdir(tmp_path)
    assert main(["still", "scene.py", "-o", "t.png", "--size", "32x18"]) == 1
    assert capsys.readouterr().err == (
        f"hfrender: error: scene error in update(t) at t=0 s (output frame 0): {said}\n")
