"""hf.render and hf.still: the commands' work called from Python, their settings made as the
commands make them (the same pictures, the same one-line refusals, named as given). Ctrl-C,
GL contexts and a notebook's tracebacks are in test_api_contexts.py."""

import importlib
import subprocess
import sys

import imageio.v3 as iio
import numpy as np
import pytest
from api_helpers import BAR
from render_helpers import decode_video

import hfrender as hf
from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test


BALLS = """import hfrender as hf


class Left(hf.Scene):
    duration = 1.0

    def setup(self):
        self.ball = self.add(hf.Sphere(radius=0.4, color="orange"))

    def update(self, t):
        self.ball.position = (-1.5 + 3 * t, 0, 0)


class Right(Left):
    def update(self, t):
        self.ball.position = (1.5 - 3 * t, 0.5, 0)
"""
SMALL = {"size": (48, 32), "samples": 3}


def cli_still(tmp_path, *words):
    out = tmp_path / "cli.png"
    assert main(["still", *words, "-o", str(out), "--quiet"]) == 0
    return iio.imread(out)


def test_a_still_is_the_picture_the_command_writes(tmp_path):
    picture = hf.still(BAR, t=0.03, size="64x16", samples=4, shutter=270)
    assert picture.dtype == np.uint8 and picture.shape == (16, 64, 3) and picture.max() > 100
    np.testing.assert_array_equal(picture, cli_still(
        tmp_path, BAR, "-t", "0.03", "--size", "64x16", "--samples", "4", "--shutter", "270"))
    by_frame = hf.still(BAR, frame=1, size=(64, 16), samples=4, shutter=270.0)
    np.testing.assert_array_equal(by_frame, picture)  # 0.03 s at 30 fps is frame 1


def test_a_render_writes_the_video_the_command_would(tmp_path):
    out = tmp_path / "bar.mp4"
    stats = hf.render(BAR, out, size=(64, 16), duration=0.2, samples=2, fps="30000/1001")
    assert (stats.frames_written, stats.output) == (6, str(out))
    frames = decode_video(out)
    assert frames.shape == (6, 16, 64, 3)
    # the function still once the renderer's package is loaded (it is hfrender.renderer: were
    # it hfrender.render, the import system would have set hf.render to it)
    assert "hfrender.renderer.contexts" in sys.modules and hf.render.__module__ == "hfrender.api"
    stats = hf.render(BAR, tmp_path / "f" / "####.png", size=(64, 16), duration=0.1, samples=1)
    assert stats.output == str(tmp_path / "f" / "%04d.png")  # as -o names a sequence
    assert sorted(p.name for p in (tmp_path / "f").iterdir()) == [
        "0000.png", "0001.png", "0002.png"]


def test_a_scene_class_from_its_file_is_that_files_class(tmp_path, monkeypatch):
    (tmp_path / "balls.py").write_text(BALLS)
    monkeypatch.syspath_prepend(str(tmp_path))
    balls = importlib.import_module("balls")
    right = hf.still(balls.Right, t=0.5, **SMALL)
    np.testing.assert_array_equal(right, hf.still(tmp_path / "balls.py", t=0.5,
                                                  scene_class="Right", **SMALL))
    np.testing.assert_array_equal(right, cli_still(tmp_path, str(tmp_path / "balls.py"), "-s",
                                                   "Right", "-t", "0.5", "--size", "48x32",
                                                   "--samples", "3"))
    assert not np.array_equal(right, hf.still(balls.Left, t=0.5, **SMALL))


def test_a_class_of_no_file_or_not_at_its_top_is_refused_in_one_line():
    class Inner(hf.Scene):
        pass

    with pytest.raises(hf.InputError) as info:
        hf.still(Inner)
    assert str(info.value) == (
        "hf.still(): the class test_a_class_of_no_file_or_not_at_its_top_is_refused_in_one_line"
        ".<locals>.Inner is defined inside test_a_class_of_no_file_or_not_at_its_top_is_refused"
        "_in_one_line.<locals>; hfrender loads a scene class from the top of its file: define "
        "it there")
    typed = type("Typed", (hf.Scene,), {"__module__": "__main__"})  # as a REPL's, or a cell's
    sys.modules.pop("no_such_module", None)
    loose = type("Loose", (hf.Scene,), {"__module__": "no_such_module"})
    for cls in (typed, loose) if not hasattr(sys.modules["__main__"], "__file__") else (loose,):
        with pytest.raises(hf.InputError) as info:
            hf.render(cls, "x.mp4")
        assert str(info.value) == (
            f"hf.render(): the class {cls.__name__} has no .py file (made in a notebook or a "
            "REPL, it is read from no file); hfrender loads a scene from its file: save the "
            "class in one (scene.py) and give that, or the class imported from it")
    with pytest.raises(TypeError, match=r"^hf.still\(\): give the class Inner, not an instance"):
        hf.still(Inner())
    with pytest.raises(TypeError, match=r"^hf.still\(\): scene=3 is neither a scene file"):
        hf.still(3)


@pytest.mark.parametrize("flags, options, said", [
    (["--samples", "0"], {"samples": 0}, " must be an integer from 1 to 4096 or 'auto'"),
    (["--size", "64x0"], {"size": (64, 0)}, " must be WIDTHxHEIGHT with 1..16384 pixels each"),
    (["--workers", "x"], {"workers": "x"}, " must be 'auto' or an integer"),
    (["--shutter", "9999"], {"shutter": 9999}, " must be a finite number > 0 and <= 5760"),
])
def test_a_bad_value_is_the_commands_line_naming_the_keyword(tmp_path, capsys, flags, options,
                                                             said):
    out = tmp_path / "x.mp4"
    assert main(["render", BAR, "-o", str(out), *flags]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {' '.join(flags)}{said}\n"
    (key, value), = options.items()
    with pytest.raises(hf.InputError) as info:
        hf.render(BAR, out, **options)
    assert str(info.value) == f"{key}={value!r}{said}"
    assert not out.exists()


def test_settings_at_odds_are_said_in_keywords(tmp_path):
    with pytest.raises(hf.InputError) as info:
        hf.render(BAR, tmp_path / "x.mp4", dof_method="exact", max_coc_px=8)
    assert str(info.value) == (
        "dof_method and max_coc_px apply only with dof='depth' (the depth of field from each "
        "sub-frame's depth); dof is auto: give dof='depth', or leave them out")
    with pytest.raises(hf.InputError) as info:
        hf.still(BAR, t=5, duration=1, size=(16, 16))
    assert str(info.value) == ("t=5: frame 150, past the end; duration=1 at 30 fps has frames "
                               "0..29 (t=0 to 0.967)")


@pytest.mark.parametrize("call, options, said", [
    ("render", {"sample": 4}, "'sample'; did you mean samples?"),
    ("render", {"width": 640}, "'width'; did you mean size?"),
    # Unreal's (was: "did you mean keep_samples?") and a shutter speed (was: shutter alone)
    ("render", {"temporal_samples": 8}, "'temporal_samples'; did you mean samples?"),
    ("still", {"spatial_samples": 4}, "'spatial_samples'; did you mean msaa?"),
    ("render", {"shutter_speed": 48}, "'shutter_speed'; did you mean shutter? (shutter is an "
                                      "angle in degrees: a shutter speed of 1/S s at F fps "
                                      "is 360 F / S (1/48 s at 24 fps: 180))"),
    ("render", {"quiet": True}, "'quiet'; hf.render() prints nothing unless asked "
                                "(progress=True, render's)"),
    ("still", {"codec": "libx264"}, "'codec'; codec is a video render's (hf.render)"),
    ("still", {"frames": 3}, "'frames'; did you mean frame? (frames is a video render's, "
                             "hf.render)"),  # (was: hf.render alone; the command: --frame)
    ("still", {"keep_samples": "s"}, "'keep_samples'; keep_samples is a video render's "
                                     "(hf.render)"),
    ("still", {"time": 1.0}, "'time'"),
    # (were taken without a word: a still has no sound)
    ("still", {"audio": "missing.wav"}, "'audio'; audio is a video render's (hf.render): a "
                                        "still has no sound"),
    ("still", {"audio_offset": 1.5}, "'audio_offset'; audio_offset is a video render's "
                                     "(hf.render): a still has no sound"),
    ("render", {"ray": "auto"}, "'ray'; Ray runs the command's segments: hfrender render FILE "
                                "--ray [ADDRESS]"),
    ("still", {"compare": True}, "'compare'; the frame without effects beside it is the "
                                 "command's: hfrender still FILE --compare (or call hf.still "
                                 "twice, the second with dof='off', samples=1)"),
])
def test_an_unknown_keyword_is_a_type_error_with_the_one_meant(call, options, said):
    with pytest.raises(TypeError) as info:
        getattr(hf, call)(BAR, **options)
    assert str(info.value) == f"hf.{call}() got an unexpected keyword argument {said}"


def test_an_output_there_is_replaced_if_hfrenders_own_else_kept(tmp_path):
    out = tmp_path / "o.mp4"
    out.write_bytes(b"the user's own video")
    with pytest.raises(hf.InputError) as info:
        hf.render(BAR, out, size=(64, 16), duration=0.1, samples=1)
    assert str(info.value) == (
        f"output={str(out)!r}: a file is there that hfrender did not write (or an older "
        "hfrender did, "  # (was -o, the command's flag)
        "before it marked its outputs); hfrender replaces only its own: remove it, or write to "
        "another name")
    assert out.read_bytes() == b"the user's own video"
    out.unlink()
    hf.render(BAR, out, size=(64, 16), duration=0.2, samples=1)
    assert hf.render(BAR, out, size=(64, 16), duration=0.1, samples=1).frames_written == 3
    assert len(decode_video(out)) == 3  # the earlier render's, replaced


def test_a_scene_file_that_renders_at_its_top_is_told_to_guard_it(tmp_path):
    scene = tmp_path / "loops.py"
    scene.write_text(BALLS + "\nhf.still(__file__, size=(16, 16))\n")
    with pytest.raises(hf.InputError, match=r'hf.still\(\) inside hf.still\(\): the scene\'s '
                                            r'file calls it as it is loaded; put the call under '
                                            r'if __name__ == "__main__":'):
        hf.still(scene, scene_class="Left")


@pytest.mark.parametrize("call", [hf.render, hf.still])
def test_a_scene_class_that_is_no_name_is_one_line(tmp_path, call):
    """scene_class=1 raised TypeError 'expected string or bytes-like object, got int' from
    Python's re, as the file was searched for the class (np.int64(2): 'cannot use a string
    pattern on a bytes-like object'): one line now, before the scene is read."""
    scene = tmp_path / "balls.py"
    scene.write_text(BALLS)
    for bad in (1, np.int64(2), ["Left"]):
        with pytest.raises(hf.InputTypeError) as err:
            call(scene, scene_class=bad)
        assert str(err.value) == (f"hf.{call.__name__}(): scene_class={bad!r} must be the "
                                  "name of a Scene class in the file (a str: 'Orbit')")


def test_the_calls_load_nothing_heavy_until_called():
    code = ("import sys, hfrender as hf; hf.render, hf.still; "
            "print(sorted({'numpy', 'moderngl', 'rich'} & set(sys.modules)))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "[]"


def test_a_sample_store_under_the_home_folder_is_the_home_folders(tmp_path, monkeypatch):
    """``keep_samples="~/shot.samples"`` is where ``--keep-samples=~/shot.samples`` puts it
    (was: a folder named ``~`` made in the current one)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    hf.render(BAR, tmp_path / "o.mp4", size=(64, 16), duration=0.1, samples=1,
              keep_samples="~/shot.samples")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "o.mp4"]
    assert (home / "shot.samples").is_dir()


def test_a_sample_store_that_is_no_path_is_refused_in_one_line(tmp_path):
    out = tmp_path / "o.mp4"
    with pytest.raises(hf.InputError) as info:  # (was: TypeError "expected str, bytes or
        hf.render(BAR, out, keep_samples=5)     # os.PathLike object, not int")
    assert str(info.value) == ("keep_samples=5 must be a folder's name: the sample store to "
                               "write (shot.samples)")
    assert not out.exists()


def test_a_render_that_fails_midway_says_what_is_kept_as_the_command(tmp_path, monkeypatch):
    """Its folder made read-only under the run: hf.render's line says where the frames made
    are kept, as the command's does (was: "cannot put .../f_0000.png in place: Permission
    denied" alone, the finished frames in a hidden folder said nothing of)."""
    import errno

    from hfrender.io import outputs

    def read_only(tmp, output, keep_others=False):
        raise PermissionError(errno.EACCES, "Permission denied", output % 0)

    out = str(tmp_path / "f_%04d.png")
    monkeypatch.setattr(outputs, "commit_sequence", read_only)
    monkeypatch.setattr(outputs, "keep_partial",  # (read-only too)
                        lambda tmp, output, frames: None)
    with pytest.raises(hf.HFRenderError) as info:
        hf.render(BAR, out, size=(32, 8), samples=2, duration=0.2)
    assert str(info.value) == (
        f"cannot put {out % 0} in place: Permission denied; the 6 finished frames are kept in "
        f"'{tmp_path / '.f_####.png.partial'}': once that is mended, the same call with "
        "resume=True goes on from them")  # (the command's: the same command with --resume)
    assert len(list((tmp_path / ".f_####.png.partial").glob("*.png"))) == 6


def test_a_join_that_fails_says_how_to_go_on_once_in_the_calls_words(tmp_path, monkeypatch):
    """hf.render's failed join says 'the same call with resume=True joins them' once (was
    the command's 'the same command with --resume joins them', then a second way on: '; the
    9 frames in whole segments are kept: ... the same call with resume=True goes on')."""
    import hfrender.io.join as joining

    monkeypatch.setattr(joining, "join_command",
                        lambda *a, **k: ["sh", "-c", "echo boom >&2; exit 1"])
    out = tmp_path / "o.mp4"
    with pytest.raises(hf.HFRenderError) as info:
        hf.render(BAR, out, size=(32, 18), samples=1, duration=0.3)
    assert str(info.value) == (
        f"joining 1 segment into {out} failed: boom (the segments stay in "
        f"{tmp_path / '.o.mp4.hfrender'}: once that is mended, the same call with resume=True "
        "joins them)")
