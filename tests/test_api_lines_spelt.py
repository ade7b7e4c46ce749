"""Each refusal and warning a render or a still gives names its settings as its caller gave
them: ``output='x.xyz'``, ``passes='depth'``, ``fps=50`` to hf.render's and hf.still's
caller, the command's ``-o x.xyz``, ``--passes depth``, ``--fps 50`` to its user (were the
flags to both: a Python caller typed none). Each line below is written out by hand, the
command's as it was."""

import errno
import logging
import re
from pathlib import Path

import pytest

import hfrender as hf
from hfrender.cli import main
from hfrender.errors import FLAG, KEYWORD, HFRenderError, spelt

SMALL = {"size": (8, 4), "samples": 1, "duration": 0.2}
FLAGS = ["--size", "8x4", "--samples", "1", "--duration", "0.2", "--quiet"]
BAR = "void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 8.0); }\n"
CUBE = ("import hfrender as hf\nclass S(hf.Scene):\n    duration = 0.2\n"
        "    def setup(self):\n        self.c = self.add(hf.Cube(color='red'{}))\n"
        "        self.camera.position = (0, 0, 4)\n")
SCENES = {
    "bar.frag": BAR,
    "two.py": CUBE.format("") + "class T(hf.Scene):\n    duration = 0.2\n",
    "bright.py": CUBE.format(", emissive=5.0"),
    "late_f.py": CUBE.format("") + "    def update(self, t):\n"
                 "        if t > 0.05:\n            self.camera.f_stop = 2.8\n",
    "late_white.py": CUBE.format("") + "    def update(self, t):\n"
                     "        self.c.emissive = 5.0 if t > 0.05 else 0.0\n",
    "see_through.py": CUBE.format("") + "    background = (0, 0, 0, 0.5)\n"}
USE = ".mp4, .mov, .mkv, .webm, .gif, .ts or a PNG or EXR pattern like frames/%05d.png"
GIF = "a GIF at 60 fps: browsers show its frames shorter than 20 ms for 100 ms: the clip " \
      "plays slower; {} or less keeps its speed"
SEE = ("see_through.py: importing the scene failed: InputError: S.background=(0, 0, 0, 0.5) "
       "has alpha 0.5; colours here are opaque: give (r, g, b); no background at all is "
       "background = None (or {}) (see_through.py:7)")

# (id, scene, output, keywords, the command's flags, hf.render's line, the command's line)
LINES = [
    ("unknown type", "bar.frag", "x.xyz", {}, [],
     f"output='x.xyz': unknown output type '.xyz'; use {USE}",
     f"-o x.xyz: unknown output type '.xyz'; use {USE}"),
    ("one picture", "bar.frag", "a.png", {}, [],
     f"output='a.png': unknown output type '.png'; use {USE} (one picture: hf.still)",
     f"-o a.png: unknown output type '.png'; use {USE} (one picture: hfrender still)"),
    ("sequence of JPEGs", "bar.frag", "seq/%d.jpg", {}, [],
     "output='seq/%d.jpg': an image sequence is written as PNG (or EXR, frames/%05d.exr): "
     "use a name like frames/%05d.png",
     "-o seq/%d.jpg: an image sequence is written as PNG (or EXR, frames/%05d.exr): use a "
     "name like frames/%05d.png"),
    ("no frame field", "bar.frag", "seq/%05x.png", {}, [],
     "output='seq/%05x.png': %05x is no frame-number field; an image sequence is named "
     "with one such as %05d (frames/%05d.png)",
     "-o seq/%05x.png: %05x is no frame-number field; an image sequence is named with one "
     "such as %05d (frames/%05d.png)"),
    ("two fields", "bar.frag", "seq/%d_%d.png", {}, [],
     "output='seq/%d_%d.png': the pattern needs one integer field such as %05d",
     "-o seq/%d_%d.png: the pattern needs one integer field such as %05d"),
    ("folder's name", "bar.frag", "out.mp4/", {}, [],
     "output='out.mp4/': a folder's name (it ends in /); name the file (output='out.mp4')",
     "-o out.mp4/: a folder's name (it ends in /); name the file (-o out.mp4)"),
    ("passes of a video", "bar.frag", "x.mp4", {"passes": "depth"}, ["--passes", "depth"],
     "passes='depth': x.mp4 is a video, which takes no passes: they are channels of an EXR "
     "sequence's frames (output='frames/%04d.exr')",
     "--passes depth: x.mp4 is a video, which takes no passes: they are channels of an EXR "
     "sequence's frames (-o frames/%04d.exr)"),
    ("passes of a shader", "bar.frag", "f/%04d.exr", {"passes": "depth"},
     ["--passes", "depth"],
     "passes='depth': bar.frag is a fragment shader, which draws no depth or velocity; "
     "render without passes='depth'",
     "--passes depth: bar.frag is a fragment shader, which draws no depth or velocity; "
     "render without --passes"),
    ("crf and bitrate", "bar.frag", "x.mp4", {"crf": 20, "bitrate": "1M"},
     ["--crf", "20", "--bitrate", "1M"],
     "crf=20 with bitrate='1M': libx264 takes a constant quality (crf) or an average "
     "bitrate (bitrate), not both",
     "--crf 20 with --bitrate 1M: libx264 takes a constant quality (--crf) or an average "
     "bitrate (--bitrate), not both"),
    ("quality of a GIF", "bar.frag", "x.gif", {"crf": 20, "preset": "slow"},
     ["--crf", "20", "--preset", "slow"],
     "crf=20, preset='slow': a GIF (its palette is made from the clip) has no quality "
     "settings; leave them out, or write a video (.mp4, .webm)",
     "--crf 20 --preset slow: a GIF (its palette is made from the clip) has no quality "
     "settings; leave them out, or write a video (.mp4, .webm)"),
    ("frames past the end", "bar.frag", "x.mp4", {"frames": "50:60"}, ["--frames", "50:60"],
     "frames='50:60': the render has frames 0 to 5 (0.2 s at 30 fps); START can be 0 to 5 "
     "and END at most 6 (lower them, or raise duration)",
     "--frames 50:60: the render has frames 0 to 5 (0.2 s at 30 fps); START can be 0 to 5 "
     "and END at most 6 (lower them, or raise --duration)"),
    ("several scenes", "two.py", "x.mp4", {}, [],
     "two.py has several scenes (S, T); choose one with scene_class='NAME'",
     "two.py has several scenes (S, T); choose one with -s NAME"),
    ("a size for a scene", "two.py", "x.mp4", {"scene_class": "320:180"}, ["-s", "320:180"],
     "scene_class='320:180': scene_class names the scene class; the size is "
     "size='320x180'",
     "-s 320:180: -s names the scene class; the size is --size 320x180"),
    ("a class asked of a shader", "bar.frag", "x.mp4", {"scene_class": "Bar"}, ["-s", "Bar"],
     "scene_class='Bar': bar.frag is a shader file, it has no scene classes",
     "-s Bar: bar.frag is a shader file, it has no scene classes"),
    ("a see-through background", "see_through.py", "x.mp4", {}, [],
     SEE.format("transparent=True"), SEE.format("--transparent")),
    # warnings
    ("GIF faster than browsers", "bar.frag", "x.gif", {"fps": 60}, ["--fps", "60"],
     GIF.format("fps=50"), GIF.format("--fps 50")),
    ("msaa of a shader", "bar.frag", "x.mp4", {"msaa": 4}, ["--msaa", "4"],
     "msaa=4: bar.frag is a fragment shader, which colours each pixel once (multisampling "
     "smooths the edges of geometry); ignored",
     "--msaa 4: bar.frag is a fragment shader, which colours each pixel once (multisampling "
     "smooths the edges of geometry); ignored"),
    ("EXR with hdr off", "bright.py", "f/%04d.exr", {"hdr": "off"}, ["--hdr", "off"],
     "hdr='off': output='f/%04d.exr' holds no light past white (8-bit sub-frames clip it "
     "before the blur); hdr='auto' draws EXR in float",
     "--hdr off: -o f/%04d.exr holds no light past white (8-bit sub-frames clip it before "
     "the blur); --hdr auto draws EXR in float"),
    ("an f-stop after t = 0", "late_f.py", "x.mp4", {}, [],
     "at t=0.067 s the camera has an f-stop: dof='auto' saw none at t = 0, the animation's "
     "start, and renders without depth of field; set f_stop from t = 0 (in setup()), or "
     "give dof='lens'",
     "at t=0.067 s the camera has an f-stop: --dof auto saw none at t = 0, the animation's "
     "start, and renders without depth of field; set f_stop from t = 0 (in setup()), or "
     "give --dof lens"),
    ("light past white after t = 0", "late_white.py", "x.mp4", {}, [],
     "at t=0.067 s self.c (a Cube) with emissive 5 reaches 6x white: the sub-frames are "
     "8-bit (hdr='auto' saw nothing past white at t = 0, the animation's start), so its "
     "light is clipped before the blur; render with hdr='on' to keep it",
     "at t=0.067 s self.c (a Cube) with emissive 5 reaches 6x white: the sub-frames are "
     "8-bit (--hdr auto saw nothing past white at t = 0, the animation's start), so its "
     "light is clipped before the blur; render with --hdr on to keep it"),
]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in SCENES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _api_said(caplog, call):
    """hf.render's error line, else its warnings."""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="hfrender"):
        try:
            call()
        except HFRenderError as exc:
            return [str(exc).splitlines()[0]]
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def _cli_said(capsys, caplog, args):
    """The command's error line, and its warnings (in this process, its log's records)."""
    capsys.readouterr()
    caplog.clear()
    main(args)
    err = capsys.readouterr().err.splitlines()
    return [re.sub(r"^hfrender: error: ", "", line) for line in err] + [
        r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("scene, output, keywords, flags, api_line, cli_line",
                         [case[1:] for case in LINES], ids=[case[0] for case in LINES])
def test_a_line_names_settings_as_the_caller_gave_them(here, caplog, capsys, scene, output,
                                                       keywords, flags, api_line, cli_line):
    keywords = dict(keywords)  # (LINES' own, the same for a rerun)
    scene_class = keywords.pop("scene_class", None)
    api = _api_said(caplog, lambda: hf.render(scene, output, scene_class=scene_class,
                                              **{**SMALL, **keywords}))
    assert api_line in api
    assert not any(re.search(r"(^|[ (])(--[a-z]|-o |-s )", line) for line in api), api
    assert cli_line in _cli_said(capsys, caplog, ["render", scene, "-o", output, *FLAGS, *flags])


def test_hf_still_names_the_scene_class_as_its_keyword(here):
    with pytest.raises(HFRenderError) as info:
        hf.still("two.py", size=(8, 4))
    assert str(info.value) == "two.py has several scenes (S, T); choose one with " \
                              "scene_class='NAME'"


def test_a_slow_draw_says_lower_size_or_samples_as_the_caller_names_them(here, caplog,
                                                                        capsys, monkeypatch):
    from hfrender.engine import draw

    monkeypatch.setattr(draw, "SLOW_DRAW_S", -1.0)  # every sub-frame is slow
    pace = r"one sub-frame took \d+\.\d s to draw \(the GL drawing bar\.frag: not a hang\); " \
           r"this run draws 1 sub-frame for 1 frame, about \S+ at that pace \(a smaller {} " \
           r"or fewer {} draws faster\)"
    api = _api_said(caplog, lambda: hf.still("bar.frag", size=(8, 4), samples=1))
    assert [line for line in api if re.fullmatch(pace.format("size", "samples"), line)]
    cli = _cli_said(capsys, caplog, ["still", "bar.frag", "-o", "s.png", "--size", "8x4",
                             "--samples", "1"])
    assert [line for line in cli if re.fullmatch(pace.format("--size", "--samples"), line)]


def test_a_window_missing_for_the_preview_names_preview_as_given(here, monkeypatch, capsys):
    from hfrender.engine import render_prepare
    from hfrender.renderer.contexts import ContextUnavailable

    def no_window(*args, **kwargs):
        raise ContextUnavailable("GLFW could not start (no display); use --gl egl")

    monkeypatch.setattr(render_prepare, "create_context", no_window)
    with pytest.raises(ContextUnavailable) as info:
        hf.render("bar.frag", "x.mp4", preview=True, **SMALL)
    assert str(info.value) == ("preview=True needs a window: GLFW could not start (no "
                               "display); render without preview=True (and hfrender.toml's "
                               "preview = true)")
    assert main(["render", "bar.frag", "-o", "x.mp4", "--preview", *FLAGS]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --preview needs a window: GLFW could not start (no display); "
        "render without --preview (and hfrender.toml's preview = true)\n")


@pytest.mark.parametrize("spell, said", [
    (KEYWORD, "output='f/x.mp4': cannot make folder f: Permission denied"),
    (FLAG, "-o f/x.mp4: cannot make folder f: Permission denied")])
def test_an_outputs_folder_that_cannot_be_made_is_named_as_given(here, monkeypatch, spell,
                                                                said):
    from hfrender.io import outputs
    from hfrender.io.writers import WriterError

    def refused(self, *args, **kwargs):
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(Path, "mkdir", refused)
    with spelt(spell), pytest.raises(WriterError) as info:
        outputs.make_folder("f/x.mp4")
    assert str(info.value) == said


def test_a_window_that_cannot_open_names_the_headless_context_as_the_caller_would(
        here, monkeypatch, capsys):
    glfw = pytest.importorskip("glfw")
    monkeypatch.setattr(glfw, "init", lambda: False)  # (no display)
    with pytest.raises(HFRenderError) as info:
        hf.render("bar.frag", "x.mp4", gl="glfw", **SMALL)
    said = str(info.value)
    assert said.startswith("GLFW could not start (") and said.endswith(
        "): no display? Set DISPLAY; or use the headless context (gl='egl')")
    assert main(["render", "bar.frag", "-o", "x.mp4", "--gl", "glfw", *FLAGS]) == 2
    assert capsys.readouterr().err.endswith(
        "): no display? Set DISPLAY; or use the headless context (--gl egl)\n")


SQRT = ("import math\nimport hfrender as hf\nclass S(hf.Scene):\n    duration = 0.2\n"
        "    def setup(self):\n        self.ball = self.add(hf.Sphere())\n"
        "    def update(self, t):\n        self.ball.position = (math.sqrt(t), 0, 0)\n")


def test_a_t_before_0_says_shutter_position_as_the_caller_would(here, capsys):
    Path("sqrt.py").write_text(SQRT)
    tail = "(clamp t in update, t = max(0, min(t, duration)), or give {})"
    with pytest.raises(HFRenderError) as info:
        hf.render("sqrt.py", "x.mp4", **{**SMALL, "samples": 8, "shutter": 1080})
    assert str(info.value).splitlines()[0].endswith(
        "ValueError: math domain error (sqrt.py:8); t is before 0: the first frame's shutter "
        "opens before t = 0 " + tail.format("shutter_position='start'"))
    assert main(["render", "sqrt.py", "-o", "x.mp4", *FLAGS, "--samples", "8",
                 "--shutter", "1080"]) == 1
    assert capsys.readouterr().err.splitlines()[0].endswith(
        "opens before t = 0 " + tail.format("--shutter-position start"))


CAMERA = ("import hfrender as hf\nclass {}(hf.Scene):\n    duration = 0.2\n    fps = 24\n"
          "    def setup(self):\n        self.add(hf.Cube())\n"
          "        self.camera.shutter = 90\n")


def test_a_render_setting_in_the_scene_is_named_as_the_caller_gives_it(here, caplog, capsys):
    """A class body's ``fps = 24`` (a warning, once a class) and ``camera.shutter = 90``
    (refused)."""
    Path("a.py").write_text(CAMERA.format("A"))  # (each its own class: said once a class)
    Path("b.py").write_text(CAMERA.format("B"))
    api = _api_said(caplog, lambda: hf.render("a.py", "x.mp4", **SMALL))
    said = "a render setting is not read from the scene; give {} (or set it in hfrender.toml)"
    assert [r.getMessage() for r in caplog.records] == ["A.fps: " + said.format("fps")]
    shutter = ("Camera has no attribute 'shutter'; shutter is a render setting, not the "
               "scene's: give {} (180 by default) (or set it in hfrender.toml) ({}.py:7)")
    assert api[0].endswith(shutter.format("shutter=DEGREES", "a"))
    cli = _cli_said(capsys, caplog, ["render", "b.py", "-o", "x.mp4", *FLAGS])
    assert cli[0].endswith(shutter.format("--shutter DEGREES", "b"))
    assert cli[1:] == ["B.fps: " + said.format("--fps")]


@pytest.mark.parametrize("spell, how", [
    (KEYWORD, "the same call with resume=True"),
    (FLAG, "render's and fx's --resume, a batch's same job")])
def test_starting_over_says_how_to_go_on_as_the_caller_would(here, caplog, monkeypatch,
                                                             spell, how):
    from hfrender.io import segments

    Path(".c.mp4.hfrender").mkdir()
    monkeypatch.setattr(segments, "_segments_kept", lambda folder: [12, 12])
    with spelt(spell), caplog.at_level(logging.WARNING, logger="hfrender"):
        segments.fresh_work_dir("c.mp4")
    assert [r.getMessage() for r in caplog.records] == [
        "starting c.mp4 over: an interrupted run's 24 finished frames there (.c.mp4.hfrender) "
        f"are discarded (a run goes on from them only with the same settings: {how})"]


@pytest.mark.parametrize("spell, head", [(KEYWORD, "fusion_process='on'"),
                                         (FLAG, "--fusion-process on")])
def test_fusion_processes_that_cannot_start_are_named_as_given(monkeypatch, spell, head):
    from hfrender.engine import render_setup
    from hfrender.engine.offload import FusionProcessError

    def refused(*args, **kwargs):
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(render_setup, "FusionProcesses", refused)
    with spelt(spell), pytest.raises(FusionProcessError) as info:
        render_setup.start_processes("on", None, 2)
    assert str(info.value) == (f"{head}: no fusion process could start ([Errno 11] Resource "
                               "temporarily unavailable)")


@pytest.mark.parametrize("spell, said", [
    (KEYWORD, "fusion_process='auto' takes processes for dof='depth' or reconstruction"),
    (FLAG, "--fusion-process auto takes processes for --dof depth or reconstruction")])
def test_the_fusion_note_names_the_settings_as_given(caplog, spell, said):
    """The -v note of a light fusion, which keeps to this process."""
    from hfrender.engine import render_setup
    from hfrender.hyperframe import shared

    if not shared.available():
        pytest.skip("no memfd here: the note is another")
    with spelt(spell), caplog.at_level(logging.INFO, logger="hfrender"):
        assert render_setup.shared_arena("auto", "cpu", heavy=False) is None
    assert [r.getMessage() for r in caplog.records] == [f"fusion in this process: {said}"]
