"""A script beside its scene (``make.py`` calling ``hf.render('scene.py')``) keeps its own
modules: a scene's load forgot every module of the scene's folder, the caller's
``__main__`` and the ``settings.py`` it had imported among them (afterwards ``import
__main__`` failed, and Ray's start-up in that process ended in "internal error:
ModuleNotFoundError: No module named '__main__'"). A module only the scene imports is
still read afresh at every load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCENE = """
import hfrender as hf
import settings
from look import RADIUS


class S(hf.Scene):
    duration = 0.25

    def setup(self):
        settings.SEEN.append(RADIUS)
        self.ball = self.add(hf.Sphere(radius=RADIUS))
"""

MAKE = """
import json
import sys
from pathlib import Path

import hfrender as hf
import settings

here = Path(__file__).resolve().parent
runs = []
for radius in {radii}:
    (here / "look.py").write_text(f"RADIUS = {{radius}}\\n")  # edited between two renders
    stats = hf.render(str(here / "scene.py"), str(here / "out.mp4"), size=(32, 32), fps=8,
                      samples=2)
    runs.append(stats.frames_written)
import __main__

print(json.dumps({{
    "frames": runs,
    "seen": sorted(set(settings.SEEN)),
    "settings_kept": sys.modules["settings"] is settings,
    "main_kept": sys.modules["__main__"] is __main__ and __main__.here == here,
}}))
"""


def _make(folder: Path, radii: tuple[float, ...]) -> Path:
    folder.mkdir()
    (folder / "scene.py").write_text(SCENE)
    (folder / "settings.py").write_text("SEEN = []\n")
    (folder / "make.py").write_text(MAKE.format(radii=radii))
    return folder / "make.py"


def _run(make: Path, cwd: Path) -> dict:
    res = subprocess.run([sys.executable, "-B", str(make)], cwd=cwd, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("where", ["its folder", "elsewhere"])
def test_a_script_beside_its_scene_keeps_its_main_and_its_modules(tmp_path, where):
    make = _make(tmp_path / "shot", (0.5,))
    (tmp_path / "elsewhere").mkdir()
    cwd = make.parent if where == "its folder" else tmp_path / "elsewhere"
    assert _run(make, cwd) == {"frames": [2], "seen": [0.5], "settings_kept": True,
                               "main_kept": True}


def test_a_helper_edited_between_two_renders_is_read_again(tmp_path):
    """The scene's own ``look.py``, changed between two hf.render calls of one script, is
    the changed one at the second render; the script's ``settings`` (the scene's too) stays
    the one the script holds, seeing both."""
    make = _make(tmp_path / "shot", (0.5, 0.75))
    assert _run(make, make.parent) == {"frames": [2, 2], "seen": [0.5, 0.75],
                                       "settings_kept": True, "main_kept": True}


TWO = """
import builtins
import json
import sys
from pathlib import Path

from hfrender.scene.loader import load_scene

from common import WHERE  # the script's own, beside it in a/ (no name holds the module)

here = Path(__file__).resolve().parent
seen = []
for folder in {order}:
    scene = load_scene(str(here.parent / folder / "scene.py"))
    scene.setup()
    seen.append(scene.seen)
print(json.dumps({{"seen": seen, "runs": builtins.COMMON_RUNS, "where": WHERE,
                  "kept": sys.modules["common"].__file__ == str(here / "common.py")}}))
"""

TWO_SCENE = """
import hfrender as hf
import common


class S(hf.Scene):
    def setup(self):
        import common as later  # (setup's own import: the same module)
        self.seen = [common.WHERE, later.WHERE]
"""

COMMON = """
import builtins
WHERE = {where!r}
if WHERE == "a":  # how many times the script's own was run
    builtins.COMMON_RUNS = getattr(builtins, "COMMON_RUNS", 0) + 1
"""


@pytest.mark.parametrize("order", [("a", "b", "a"), ("b", "a", "b", "a")])
def test_a_callers_module_does_not_hide_another_scenes_own_of_its_name(tmp_path, order):
    """The caller's ``common`` (a/, imported by a/make.py) kept across loads hid the
    ``common.py`` beside a scene of another folder: b's scene read a's (a review of the
    change above; then another: where b's scene came first, and a's module read again
    where the script held none of it). Now each scene its own folder's; a's, the caller's,
    set back for a's scenes, and run once."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "scene.py").write_text(TWO_SCENE)
        (tmp_path / folder / "common.py").write_text(COMMON.format(where=folder))
    (tmp_path / "a" / "make.py").write_text(TWO.format(order=order))
    got = _run(tmp_path / "a" / "make.py", tmp_path)
    assert got == {"seen": [[f, f] for f in order], "runs": 1, "where": "a",
                   "kept": order[-1] == "a"}
