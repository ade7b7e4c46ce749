"""What render and fx say of their outputs: a --codec an image sequence never uses, an
encoder this ffmpeg lacks for a video."""

from pathlib import Path

import numpy as np
import pytest
from fx_helpers import png_sequence

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test
BAR = str(Path(__file__).parent / "data" / "bar.frag")  # a shader scene
VIDEOS = ".mp4 .mov .mkv .webm .gif .ts"


def unused(codec, pattern, kind):
    return (f"--codec {codec} is not used: -o {pattern} is {kind} sequence, and a codec "
            f"applies to video outputs only ({VIDEOS})")


def warned(caplog):
    """The warnings said (``hfrender: warning: ...`` on the command line's stderr)."""
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


@pytest.mark.parametrize("codec, name, kind", [("nope", "%04d.png", "a PNG"),
                                               ("libx264", "%04d.exr", "an EXR")])
def test_render_codec_for_an_image_sequence_is_warned_of_once(tmp_path, capsys, caplog, codec,
                                                              name, kind):
    pattern = str(tmp_path / "f" / name)
    assert main(["render", BAR, "-o", pattern, "--codec", codec, "--size", "16x8",
                 "--duration", "0.1", "--samples", "2", "-q"]) == 0
    assert capsys.readouterr().out == ""
    assert warned(caplog) == [unused(codec, pattern, kind)]
    assert sorted(p.name for p in (tmp_path / "f").iterdir()) == [name % i for i in range(3)]


def test_fx_codec_for_an_image_sequence_is_warned_of_once(tmp_path, capsys, caplog, rng,
                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, frames = png_sequence(tmp_path, rng, 3, 8, 16)
    assert main(["fx", "frames/%04d.png", "-o", "out/%04d.png", "--motion-blur", "1",
                 "--codec", "libvpx-vp9", "-q"]) == 0
    assert capsys.readouterr().out == ""
    assert warned(caplog) == [unused("libvpx-vp9", "out/%04d.png", "a PNG")]
    import imageio.v3 as iio

    assert np.array_equal(iio.imread("out/0002.png"), frames[2])  # a window of 1: the frame


@pytest.mark.parametrize("command", [["render", BAR, "--size", "16x8"],
                                     ["fx", "frames/%04d.png", "--motion-blur", "2"]])
@pytest.mark.parametrize("name", ["o.mp4", "o.webm", "o.gif"])
def test_an_unknown_codec_for_a_video_is_refused_up_front(tmp_path, capsys, rng, monkeypatch,
                                                          command, name):
    monkeypatch.chdir(tmp_path)
    png_sequence(tmp_path, rng, 3, 8, 16)
    assert main([*command, "-o", name, "--codec", "libx246"]) == 2
    assert capsys.readouterr() == ("", "hfrender: error: --codec libx246: this ffmpeg has no "
                                   "such encoder (did you mean libx265? hfrender info -v lists "
                                   "its video encoders)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frames"]


@pytest.mark.parametrize("name, frames, said", [
    ("%04d.png", [], "0000.png .. 0002.png: 3 frames"),
    ("%04d.exr", [], "0000.exr .. 0002.exr: 3 frames"),
    ("f_%03d.png", ["--frames", "1:3"], "f_001.png .. f_002.png: 2 frames"),
    ("%04d.png", ["--frames", "2:3"], "0002.png: 1 frame"),
])
def test_render_of_a_sequence_names_its_first_and_last_files(tmp_path, capsys, name, frames,
                                                             said):
    """(was "wrote .../%04d.png: 3 frames", the pattern, which names no file)"""
    pattern = str(tmp_path / "f" / name)
    assert main(["render", BAR, "-o", pattern, "--size", "16x8", "--duration", "0.1",
                 "--samples", "2", *frames]) == 0
    line = capsys.readouterr().out
    assert line.startswith(f"wrote {tmp_path / 'f'}/{said} 16x8 at 30 fps, 2 samples"), line
    first, _, last = said.partition(":")[0].partition(" .. ")
    assert (tmp_path / "f" / first).is_file() and (tmp_path / "f" / (last or first)).is_file()


def test_fx_of_a_sequence_names_its_first_and_last_files(tmp_path, capsys, rng, monkeypatch):
    """Numbered as the footage is (1001 ..): its first and last files named."""
    import imageio.v3 as iio

    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    for i in range(1001, 1005):
        iio.imwrite(f"in/{i}.png", rng.integers(0, 256, (8, 16, 3), dtype=np.uint8))
    assert main(["fx", "in/%04d.png", "-o", "out/%04d.png", "--motion-blur", "2"]) == 0
    assert capsys.readouterr().out == ("wrote out/1001.png .. 1004.png: 4 frames at 30 fps "
                                       "from 4 at 30 fps\n")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        f"{i}.png" for i in range(1001, 1005)]


@pytest.mark.parametrize("when, k", [([], 0), (["-f", "7"], 7), (["-t", "0.25"], 8)])
def test_still_refuses_passes_saying_how_to_render_the_frame_with_them(tmp_path, capsys, when,
                                                                       k):
    """A still is one picture, which holds no passes (was: "unrecognized arguments: --passes
    depth", what to do unsaid): the render of that frame alone, which writes them, said."""
    scene = str(Path(__file__).parents[1] / "scenes" / "shapes.py")
    out = tmp_path / "s.exr"
    assert main(["still", scene, "-o", str(out), "--size", "16x8", "--passes", "depth", *when]
                ) == 2
    assert capsys.readouterr() == ("", (
        "hfrender: error: --passes depth: a still is one picture, which holds no passes (they "
        "are channels of an EXR sequence's frames); render the frame alone instead: hfrender "
        f"render {scene} --frames {k}:{k + 1} -o frames/%04d.exr --passes depth --size 16x8\n"))
    assert not out.exists()


def test_still_passes_advice_repeats_the_flags_that_name_and_draw_the_frame(tmp_path, capsys):
    """--fps 60 -t 0.25 is frame 15; the advised render names it at 60 fps, of the same
    class, size and samples (was: its fps dropped, so it rendered frame 15 at 30 fps, 0.5 s)."""
    scene = str(Path(__file__).parents[1] / "scenes" / "shapes.py")
    assert main(["still", scene, "-o", str(tmp_path / "s.exr"), "-s", "Shapes", "-ql",
                 "--size", "16x8", "--fps", "30000/1001", "--samples", "4", "--shutter", "90",
                 "--dof", "depth", "--jitter", "--seed", "7", "--passes", "depth"]) == 2
    assert capsys.readouterr().err.endswith(
        "hfrender: error: --passes depth: a still is one picture, which holds no passes (they "
        "are channels of an EXR sequence's frames); render the frame alone instead: hfrender "
        f"render {scene} --frames 0:1 -o frames/%04d.exr --passes depth -s Shapes -ql "
        "--size 16x8 --fps 30000/1001 --samples 4 --shutter 90 --jitter --dof depth "
        "--seed 7\n")
    assert main(["still", scene, "-o", str(tmp_path / "s.exr"), "--fps", "60", "-t", "0.25",
                 "--passes", "depth"]) == 2
    assert capsys.readouterr().err.endswith("--frames 15:16 -o frames/%04d.exr --passes depth "
                                            "--fps 60\n")


def test_fx_codec_for_one_picture_is_warned_of(tmp_path, capsys, caplog, rng, monkeypatch):
    """(was: dropped unsaid, while a sequence's was warned of)"""
    monkeypatch.chdir(tmp_path)
    _, frames = png_sequence(tmp_path, rng, 1, 8, 16)
    assert main(["fx", "frames/0000.png", "-o", "o5.png", "--codec", "libx264",
                 "--motion-blur", "1", "-q"]) == 0
    assert warned(caplog) == ["--codec libx264 is not used: -o o5.png is a PNG picture, and a "
                              f"codec applies to video outputs only ({VIDEOS})"]
    import imageio.v3 as iio

    assert np.array_equal(iio.imread("o5.png"), frames[0])


def test_batch_codec_for_a_sequence_or_a_picture_is_warned_of(tmp_path, caplog, rng,
                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    png_sequence(tmp_path, rng, 1, 8, 16)
    Path("bar.frag").write_text(Path(BAR).read_text())
    Path("jobs.toml").write_text(
        '[[job]]\nname = "sq"\nscene = "bar.frag"\noutput = "sq/%04d.exr"\ncodec = "libx264"\n'
        'size = "16x8"\nduration = 0.1\nsamples = 2\n\n[[job]]\nname = "pic"\n'
        'input = "frames/0000.png"\noutput = "bp.png"\nmotion-blur = 1\ncodec = "libx265"\n')
    assert main(["batch", "jobs.toml"]) == 0
    assert warned(caplog) == [
        "job 'sq': codec libx264 is not used: output sq/%04d.exr is an EXR sequence, and a "
        f"codec applies to video outputs only ({VIDEOS})",
        "job 'pic': codec libx265 is not used: output bp.png is a PNG picture, and a codec "
        f"applies to video outputs only ({VIDEOS})"]
    assert sorted(p.name for p in Path("sq").iterdir()) == ["0000.exr", "0001.exr", "0002.exr"]
    assert Path("bp.png").is_file()
