"""--resume checks every file the interrupted run's scene read by the end of what it kept:
a font (or surface shader) that update(t) gives from t = 1 s on too, not only those of the
render's first two frames (was: a changed late font was not seen, and the resumed video
mixed two fonts)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from font_helpers import DEJAVU, MONO, REFUSED, late_font_scene
from render_helpers import decode_video as decoded
from render_helpers import interrupt_after_segments
from test_opacity import FLAT

from hfrender.cli import main
from hfrender.io.segments import work_dir

pytestmark = pytest.mark.usefixtures("gl_context")

ARGS = ["--size", "64x36", "--samples", "2", "--fps", "8", "--granularity", "8", "--quiet"]


@pytest.fixture
def fonts(tmp_path):
    """The scene (its Text in one.ttf, in two.ttf from t = 1 s on), both fonts alike."""
    return late_font_scene(tmp_path)


def test_a_late_font_changed_since_a_ctrl_c_refuses_the_resume(fonts, capsys, monkeypatch):
    """Ctrl-C after two segments (frames 0-15, t = 1 s from frame 8): the manifest names
    two.ttf; changed, --resume is refused in one line and nothing is lost; as it was, the
    resumed video is the uninterrupted one."""
    whole, out = fonts.parent / "whole.mp4", fonts.parent / "o.mp4"
    assert main(["render", str(fonts), "-o", str(whole), *ARGS]) == 0
    undo = interrupt_after_segments(monkeypatch, 2)
    assert main(["render", str(fonts), "-o", str(out), *ARGS]) == 130
    undo()
    kept = json.loads((work_dir(out) / "manifest.json").read_text())
    assert [s["count"] for s in kept["segments"]] == [8, 8]
    assert sorted(kept["settings"]["scene_files"]) == ["one.ttf", "two.ttf"]
    shutil.copy(MONO, fonts.parent / "two.ttf")
    capsys.readouterr()
    assert main(["render", str(fonts), "-o", str(out), *ARGS, "--resume"]) == 2
    assert capsys.readouterr().err == REFUSED
    assert not out.exists() and (work_dir(out) / "manifest.json").is_file()
    shutil.copy(DEJAVU, fonts.parent / "two.ttf")
    assert main(["render", str(fonts), "-o", str(out), *ARGS[:-1], "--resume"]) == 0
    assert "resumed at frame 16" in capsys.readouterr().out
    a, b = decoded(whole), decoded(out)
    assert a.shape == b.shape == (24, 36, 64, 3)
    np.testing.assert_array_equal(a, b)


def test_a_late_font_is_kept_with_the_frames_of_a_range_killed_9(fonts, capsys):
    """A PNG sequence of --frames 2:22, killed (-9) past t = 1 s (frame 8): its hidden
    folder's manifest names two.ttf already, so a changed two.ttf is refused; as it was,
    the sequence is the uninterrupted range's, file for file."""
    late_font_scene(fonts.parent, sleep=0.02)
    whole, out = fonts.parent / "whole" / "f_%04d.png", fonts.parent / "seq" / "f_%04d.png"
    span = ["--frames", "2:22"]
    assert main(["render", str(fonts), "-o", str(whole), *ARGS, *span]) == 0
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    proc = subprocess.Popen([sys.executable, "-m", "hfrender", "render", str(fonts), "-o",
                             str(out), *ARGS, *span], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    hidden = out.parent / ".f_####.png.partial"
    end = time.time() + 60
    while proc.poll() is None and time.time() < end and \
            not (hidden / "f_0010.png").is_file():
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    n = len(list(hidden.glob("f_*.png")))
    assert 9 <= n < 20  # frames 2..10 at least: t = 1.25 s, in two.ttf
    files = json.loads((hidden / "manifest.json").read_text())["settings"]["scene_files"]
    assert sorted(files) == ["one.ttf", "two.ttf"]
    shutil.copy(MONO, fonts.parent / "two.ttf")
    capsys.readouterr()
    assert main(["render", str(fonts), "-o", str(out), *ARGS, *span, "--resume"]) == 2
    assert capsys.readouterr().err == REFUSED
    assert len(list(hidden.glob("f_*.png"))) == n  # nothing lost
    shutil.copy(DEJAVU, fonts.parent / "two.ttf")
    assert main(["render", str(fonts), "-o", str(out), *ARGS, *span, "--resume"]) == 0
    names = sorted(f.name for f in out.parent.iterdir())
    assert names == sorted(f.name for f in whole.parent.iterdir()) and len(names) == 20
    for name in names:
        assert (out.parent / name).read_bytes() == (whole.parent / name).read_bytes()


def set_up(path, source):
    """The scene file ``source`` written to ``path``, loaded and set up."""
    from hfrender.scene.loader import load_scene

    path.write_text(source)
    scene = load_scene(str(path))
    scene.setup()
    return scene


def test_a_surface_shader_update_gives_later_is_one_of_the_scenes_files(tmp_path):
    """A shader update(t) gives a cube for t >= 1 alone was not one of the scene's files
    once the cube was back on the built-in one (a batch stamped its end, --resume its
    start): every shader an object was given is."""
    from hfrender.scene.sources import asset_files, scene_assets

    glow = tmp_path / "glow.glsl"
    glow.write_text(FLAT)
    scene = set_up(tmp_path / "late.py",
                   "import hfrender as hf\n\nclass Late(hf.Scene):\n    def setup(self):\n"
                   "        self.box = self.add(hf.Cube())\n    def update(self, t):\n"
                   "        self.box.shader = 'glow' if 1 <= t < 2 else None\n")
    for t in (0.0, 1.5, 2.5):
        scene.update(t)
    assert scene.objects[0].shader is None and asset_files(scene) == [glow.resolve()]
    assert list(scene_assets(scene)) == ["glow.glsl"]


def test_shaders_given_as_a_name_and_as_a_path_are_both_the_scenes_files(tmp_path):
    """One object's shader a name ('glow.glsl'), another's a Path (both taken): each is
    one of the scene's files (was: TypeError comparing a str with a PosixPath, every
    render to a video or with --resume of such a scene failed)."""
    from hfrender.scene.sources import asset_files, scene_assets

    for name in ("glow.glsl", "toon.glsl"):
        (tmp_path / name).write_text(FLAT)
    scene = set_up(tmp_path / "both.py",
                   "from pathlib import Path\nimport hfrender as hf\n\nclass Both(hf.Scene):\n"
                   "    def setup(self):\n        self.add(hf.Sphere(shader='glow.glsl'))\n"
                   "        self.add(hf.Cube(shader=Path(__file__).parent / 'toon.glsl'))\n")
    assert asset_files(scene) == [(tmp_path / n).resolve() for n in ("glow.glsl", "toon.glsl")]
    assert list(scene_assets(scene)) == ["glow.glsl", "toon.glsl"]


def test_each_file_of_the_scene_is_read_once_a_run(fonts, monkeypatch):
    """The files read later are looked for as each hyperframe is handed over, but each is
    read (hashed) once a run: one.ttf as the render begins, two.ttf once it is given."""
    import hfrender.scene.sources as sources

    read, real = [], sources.sha256_file
    monkeypatch.setattr(sources, "sha256_file", lambda p: read.append(Path(p).name) or real(p))
    assert main(["render", str(fonts), "-o", str(fonts.parent / "o.mp4"), *ARGS]) == 0
    assert read == ["one.ttf", "two.ttf"]
