"""A Ctrl-C that stops a scene's own code (an update(t) that hangs at some t) names where
the scene was, as a scene's error does: ``interrupted in loop.py:9, update(t=1.967) ...``
(was: "interrupted before the first frame: nothing was written", the hang unplaced, a
user's trial); not where hfrender's own code was running."""

import contextlib
import re
import textwrap

import pytest

import hfrender as hf
from hfrender.cli import main

SCENE = """\
import os, signal
import hfrender as hf
calls = []
class Loop(hf.Scene):
    duration = 2.0
    def setup(self):
        self.ball = self.add(hf.Sphere(radius=0.5))
    def update(self, t):
        calls.append(t)
        self.ball.position = (t, 0, 0)
        {stop}
"""


def _scene(tmp_path, monkeypatch, stop):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.py").write_text(SCENE.format(stop=stop))
    return "loop.py"


ARGS = ["-o", "l.mp4", "--size", "32x18", "--samples", "2"]


def test_a_hang_before_the_first_frame_is_placed(tmp_path, monkeypatch, capsys):
    # a real SIGINT, taken by the command's handler while update loops at the last t
    scene = _scene(tmp_path, monkeypatch, "if t > 1.9:\n"
                   "            os.kill(os.getpid(), signal.SIGINT)\n"
                   "            while True: pass")
    assert main(["render", scene, *ARGS]) == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert re.fullmatch(r"interrupted in loop\.py:1[23], update\(t=1\.967\) before the first "
                        r"frame: nothing was written", last), last  # (59/30 s: the last frame)
    assert not list(tmp_path.glob("*.mp4"))


def test_a_stop_mid_render_is_placed_with_what_is_kept(tmp_path, monkeypatch, capsys):
    scene = _scene(tmp_path, monkeypatch, "if len(calls) == 90: raise KeyboardInterrupt")
    assert main(["render", scene, *ARGS]) == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    said = re.fullmatch(r"interrupted in loop\.py:11, update\(t=([\d.]+)\): the (\d+) frames "
                        r"finished so far are in l\.partial\.mp4 \(l\.mp4 is not written\); .*",
                        last)
    assert said and 0 < float(said[1]) < 2.0 and int(said[2]) > 0, last


def test_hf_render_says_it_too_and_setup_is_named(tmp_path, monkeypatch):
    scene = _scene(tmp_path, monkeypatch, "if t > 1.9: raise KeyboardInterrupt")
    with pytest.raises(KeyboardInterrupt) as info:
        hf.render(scene, "l.mp4", size=(32, 18), samples=2)
    notes = getattr(info.value, "__notes__", None) or list(info.value.args)
    assert notes == ["interrupted in loop.py:11, update(t=1.967) before the first frame: "
                     "nothing was written"]
    (tmp_path / "loop.py").write_text(SCENE.format(stop="").replace(
        "self.ball = self", "raise KeyboardInterrupt; self.ball = self"))
    with pytest.raises(KeyboardInterrupt) as info:
        hf.render(scene, "l.mp4", size=(32, 18), samples=2)
    notes = getattr(info.value, "__notes__", None) or list(info.value.args)
    assert notes == ["interrupted in loop.py:7, setup() before the first frame: nothing was "
                     "written"]


def test_a_helper_module_is_named_with_the_scene_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "helpers.py").write_text(textwrap.dedent("""\
        def slow(t):
            if t > 1.9:
                raise KeyboardInterrupt
        """))
    scene = _scene(tmp_path, monkeypatch, "import helpers; helpers.slow(t)")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["render", scene, *ARGS]) == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == ("interrupted in helpers.py:3, called from loop.py:11, update(t=1.967) "
                    "before the first frame: nothing was written"), last


def test_a_stop_in_hfrenders_own_code_names_no_scene_line(tmp_path, monkeypatch, capsys):
    from render_helpers import stop_at

    from hfrender.renderer.renderer import SceneRenderer

    scene = _scene(tmp_path, monkeypatch, "")
    stop_at(monkeypatch, SceneRenderer, "read_into", 1)
    assert main(["render", scene, *ARGS]) == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == "interrupted before the first frame: nothing was written", last


def test_a_still_names_it_too(tmp_path, monkeypatch, capsys):
    scene = _scene(tmp_path, monkeypatch, "if t > 1.0: raise KeyboardInterrupt")
    assert main(["still", scene, "-t", "1.5", "-o", "s.png", "--size", "32x18"]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "hfrender: interrupted in loop.py:11, update(t=1.5)")
    assert not (tmp_path / "s.png").exists()


@pytest.mark.parametrize("quiet", [False, True])
def test_a_slow_check_before_the_first_frame_is_said_once(tmp_path, monkeypatch, capsys,
                                                         quiet):
    # was: no bar and no line while update(t) hung at the last frame's t
    from hfrender.scene import slow_check

    monkeypatch.setattr(slow_check, "SLOW_CHECK_S", 0.3)
    scene = _scene(tmp_path, monkeypatch, "if t > 1.9 and len(calls) < 30:\n"
                   "            import time; time.sleep(1.0); calls.extend([0] * 30)")
    assert main(["render", scene, *ARGS, *(["--quiet"] if quiet else [])]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "checking" in line]
    assert said == ([] if quiet else ["checking the scene at t=1.967 s ... (0.3 s so far; "
                                      "a Ctrl-C says where it is)"])


SLOW = ("if t > 1.9 and len(calls) < 30:\n"
        "            import time; time.sleep(1.0); calls.extend([0] * 30)")
SLOW_LINE = "checking the scene at t={t} s ... (0.3 s so far; a Ctrl-C says where it is)"


@pytest.mark.parametrize("quiet", [False, True])
def test_a_slow_check_is_said_by_still_and_batch_too(tmp_path, monkeypatch, capsys, quiet):
    """``hfrender still`` and a batch's render job render with quiet=True of their own (no
    bar): the slow look at the scene went unsaid there without -q, as the docs said it."""
    from hfrender.scene import slow_check

    monkeypatch.setattr(slow_check, "SLOW_CHECK_S", 0.3)
    scene = _scene(tmp_path, monkeypatch, SLOW.replace("t > 1.9", "t > 1.4"))
    q = ["--quiet"] if quiet else []
    assert main(["still", scene, "-t", "1.5", "-o", "s.png", "--size", "32x18", *q]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "checking" in line]
    assert said == ([] if quiet else [SLOW_LINE.format(t="1.5")])
    (tmp_path / "jobs.toml").write_text(
        '[[job]]\nname = "loop"\nscene = "loop.py"\noutput = "l.mp4"\nsize = "32x18"\n'
        'samples = 2\n')
    assert main(["batch", "jobs.toml", *q]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "checking" in line]
    assert said == ([] if quiet else [SLOW_LINE.format(t="1.967")])


@contextlib.contextmanager
def _ctrl_c_once(path):
    """A real Ctrl-C (SIGINT to this process, as a user's terminal sends it) once ``path``
    exists: the scene is asleep in its update(t) by then. None is sent where ``path`` never
    comes (the command under test ended first: a SIGINT then would stop another test, or
    the whole run); the sender has ended when the block does."""
    import os
    import signal
    import threading

    done = threading.Event()

    def send():
        while not done.wait(0.01):
            if path.exists():
                os.kill(os.getpid(), signal.SIGINT)
                return

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(5)
        assert not thread.is_alive()


ASLEEP = ("if t > 1.9:  # the mark and the sleep on one line: a Ctrl-C sent once the mark\n"
          "            import time; open('asleep', 'w').close(); time.sleep(30)  # is there")


def test_a_batch_names_the_place_of_the_job_that_was_drawing(tmp_path, monkeypatch, capsys):
    """``hfrender render`` named where a Ctrl-C stopped a hanging update(t); a batch's job
    said only "interrupted: 0 of 2 jobs finished" (was unplaced). Now the job and its
    place; the job after it not run, its scene never loaded."""
    _scene(tmp_path, monkeypatch, ASLEEP)
    (tmp_path / "jobs.toml").write_text(
        '[[job]]\nname = "loop"\nscene = "loop.py"\noutput = "l.mp4"\nsize = "32x18"\n'
        'samples = 2\n\n[[job]]\nname = "after"\nscene = "loop.py"\noutput = "a.mp4"\n'
        'size = "32x18"\nsamples = 2\n')
    with _ctrl_c_once(tmp_path / "asleep"):
        assert main(["batch", "jobs.toml", "--quiet"]) == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == ("interrupted in job 'loop' at loop.py:12, update(t=1.967): 0 of 2 jobs "
                    "finished; run the same command again to go on (finished jobs are "
                    "skipped, a half-done one resumes)"), last
    assert not list(tmp_path.glob("*.mp4"))


def test_render_on_ray_names_the_place_where_its_own_look_hung(tmp_path, monkeypatch,
                                                                capsys):
    """``render --ray`` looks at the scene here before any task (its first and last
    frames' times): a hang there stopped by Ctrl-C said only "interrupted: no segment of
    l.mp4 was finished; nothing is kept". Now where the scene was (no Ray is started)."""
    pytest.importorskip("ray")
    _scene(tmp_path, monkeypatch, ASLEEP)
    with _ctrl_c_once(tmp_path / "asleep"):
        assert main(["render", "loop.py", *ARGS, "--ray", "local"]) == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == ("interrupted in loop.py:12, update(t=1.967): no segment of l.mp4 was "
                    "finished; nothing is kept"), last
    assert not list(tmp_path.glob("*.mp4"))
