"""`hfrender fx` refusing bad input and failing midway: one line each, nothing that looks
complete left behind, the frames made kept apart; patterns and sequences read as meant."""

import re

import numpy as np
import pytest
from fx_helpers import (
    make_clip,
)

from hfrender.cli import main


@pytest.mark.parametrize("args, message", [
    (["{missing}", "--motion-blur", "4"], r"input not found: .*nope.mkv"),
    (["{clip}", "--motion-blur", "0"], r"--motion-blur 0 must be a whole "
                                       r"number of frames >= 1"),
    (["{clip}", "--motion-blur", "99"], r"--motion-blur 99 is longer than the input \(40 "
                                        r"frames\)"),
    (["{clip}", "--motion-blur", "4", "--stride", "0"], r"--stride 0 must be a whole "
                                                        r"number of frames >= 1"),
    (["{clip}"], r"nothing to do: give --motion-blur N \(or --vectors VECTORS\) and/or "
                 r"--depth DEPTH"),
    (["{clip}", "--depth", "{short}"], r"--depth needs --focus-distance \(or --focus-pixel "
     r"X,Y\) and --f-stop"),
    (["{clip}", "--depth", "{short}", "--focus-distance", "2", "--f-stop", "2"],
     r"depth .*short.npy has 10 frames, the footage 40: one depth frame per frame is needed"),
    (["{clip}", "--depth", "{small}", "--focus-distance", "2", "--f-stop", "2"],
     r"depth .*small.npy is 32x18, the footage 64x36: they must match"),
    (["{clip}", "--depth", "{empty}", "--focus-distance", "2", "--f-stop", "2"],
     r"depth .*empty.npy has 0 frames, the footage 40: one depth frame per frame is needed"),
    (["{clip}", "--depth", "{short}", "--focus-distance", "0.01", "--f-stop", "2"],
     r"--focus-distance 0.01 must be a distance in metres greater than the focal "
     r"length \(0.05 m, a 50 mm lens\), or inf"),
    (["{clip}", "--depth", "{short}", "--focus-distance", "2", "--f-stop", "0"],
     r"--f-stop 0 must be a finite number > 0"),
    (["{clip}", "--depth", "{short}", "--focus-distance", "2", "--f-stop", "2",
      "--depth-scale", "inf"], r"--depth-scale inf must be a finite number > 0"),
    (["{notvideo}", "--motion-blur", "2"], r"cannot read .*notvideo.mkv as video: "),
    (["{scene}", "--motion-blur", "2"], r"cannot read .*bar.frag as video \(a scene: "
     r"hfrender render\): "),
    (["{clip}", "--depth", "{short}", "--focus-distance", "2", "--f-stop", "2",
      "--aperture-blades", "2"], r"--aperture-blades 2 must be 0 \(round\) or between 3 and 64"),
    (["{clip}", "--motion-blur", "2", "--aperture-blades", "6"],
     r"--aperture-blades applies only with --depth DEPTH"),
])
def test_bad_input_is_one_line_and_leaves_nothing(tmp_path, rng, capsys, args, message):
    clip, _ = make_clip(tmp_path, rng)
    np.save(tmp_path / "short.npy", np.ones((10, 36, 64), np.float32))
    np.save(tmp_path / "small.npy", np.ones((40, 18, 32), np.float32))
    np.save(tmp_path / "empty.npy", np.ones((0, 36, 64), np.float32))
    (tmp_path / "notvideo.mkv").write_text("hello")
    (tmp_path / "bar.frag").write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1); }")
    names = dict(clip=clip, missing=tmp_path / "nope.mkv", short=tmp_path / "short.npy",
                 small=tmp_path / "small.npy", notvideo=tmp_path / "notvideo.mkv",
                 empty=tmp_path / "empty.npy", scene=tmp_path / "bar.frag")
    before = set(tmp_path.iterdir())
    out = tmp_path / "out.mp4"
    code = main(["fx", *[a.format(**names) for a in args], "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and re.fullmatch(rf"hfrender: error: {message}.*\n", err), err
    assert set(tmp_path.iterdir()) == before  # no output, no partial file


def test_a_failure_midway_leaves_no_output_that_looks_complete(tmp_path, rng, monkeypatch):
    clip, _ = make_clip(tmp_path, rng)
    from hfrender.engine import fx, fx_fusion

    calls = {"n": 0}
    real = fx_fusion.motion_blur

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 1:
            raise RuntimeError("disk gone")
        return real(*args, **kwargs)

    monkeypatch.setattr(fx_fusion, "motion_blur", flaky)
    out = tmp_path / "out.mp4"
    with pytest.raises(RuntimeError, match="disk gone"):
        fx.run_fx(str(clip), str(out), fx.FxSettings(window=4))
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if "out" in p.name] == []


@pytest.mark.parametrize("window", [3, 8])
def test_a_fusion_error_ends_the_run_instead_of_hanging(tmp_path, rng, monkeypatch, window):
    import threading
    import time

    clip, _ = make_clip(tmp_path, rng)
    from hfrender.engine import fx, fx_fusion

    real = fx_fusion.motion_blur

    def failing(frames, *args, **kwargs):
        if len(frames) > window:  # a hyperframe, not a lead-in window
            time.sleep(0.5)  # meanwhile the decoder fills the other slot and asks for more
            raise RuntimeError("fusion failed")
        return real(frames, *args, **kwargs)

    monkeypatch.setattr(fx_fusion, "motion_blur", failing)
    out = tmp_path / "out.mp4"
    raised = []

    def run():
        try:
            fx.run_fx(str(clip), str(out), fx.FxSettings(window=window))
        except RuntimeError as exc:
            raised.append(str(exc))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(30)  # the decoder waits for a slot that the failed fusion held: released
    assert not t.is_alive() and raised == ["fusion failed"]
    assert not out.exists()


def test_sequences_in_numeric_order_gaps_refused_outputs_replaced(tmp_path, rng, capsys,
                                                                  monkeypatch):
    import imageio.v3 as iio

    seq = tmp_path / "in"
    seq.mkdir()
    frames = rng.integers(0, 256, (12, 8, 8, 3), dtype=np.uint8)
    for i, f in enumerate(frames):
        iio.imwrite(seq / f"frame_{i}.png", f)  # frame_2 sorts after frame_10 by name
    monkeypatch.chdir(tmp_path)
    from hfrender.io.images import write_png8

    for i in range(40):  # an older run's 40 frames
        write_png8(tmp_path / f"o_{i:04d}.png", frames[0])
    assert main(["fx", str(seq), "-o", "o_%04d.png", "--motion-blur", "1", "--quiet"]) == 0
    outs = sorted(tmp_path.glob("o_*.png"))
    assert len(outs) == 12  # no folder in the name works, and the older 40 are gone
    np.testing.assert_array_equal(np.stack([iio.imread(f) for f in outs]), frames)
    (seq / "frame_5.png").unlink()
    assert main(["fx", str(seq / "frame_%d.png"), "-o", "x.mp4", "--motion-blur", "2"]) == 2
    assert "frame_%d.png: frame 5 is missing (the sequence jumps from 4 to 6)" in \
        capsys.readouterr().err


@pytest.mark.parametrize("existed", [False, True])
def test_a_failed_run_keeps_the_frames_it_made_apart_and_says_where(tmp_path, rng, capsys,
                                                                    existed):
    """-o out/a/%05d.png with a bad depth frame half-way: no frame of the output appears;
    those made are kept in out/a/#####.png.partial/ (as render keeps them; a run goes on
    from them with --resume once its cause is fixed), and the error line says so."""
    import imageio.v3 as iio

    clip, _ = make_clip(tmp_path, rng, n=8)
    (tmp_path / "d").mkdir()  # a PNG sequence: checked frame by frame (an .npy: whole, first)
    for i in range(8):
        mm = np.full((36, 64), 2000, np.uint16)
        mm[3, 4] = 0 if i == 5 else 2000
        iio.imwrite(tmp_path / "d" / f"{i:04d}.png", mm)
    if existed:
        (tmp_path / "out" / "a").mkdir(parents=True)
    code = main(["fx", str(clip), "-o", str(tmp_path / "out" / "a" / "%05d.png"), "--depth",
                 str(tmp_path / "d"), "--depth-scale", "0.001", "--focus-distance", "2",
                 "--f-stop", "2", "--quiet"])
    assert code == 2
    kept = tmp_path / "out" / "a" / "#####.png.partial"
    frames = sorted(f.name for f in kept.glob("*.png"))
    assert capsys.readouterr().err == (
        f"hfrender: error: depth frame 5 ({tmp_path / 'd' / '0005.png'}) has a value <= 0 (0) "
        "at row 3, column 4; depth must be a distance > 0 (use inf for sky; hfrender fx "
        "--depth-zero-is-sky reads 0 as sky, --depth-range NEAR,FAR a pass normalised to "
        f"0..1); the {len(frames)} frames finished so far are "
        f"in '{kept / '%05d.png'}' "
        f"({tmp_path / 'out' / 'a' / '%05d.png'} is untouched)\n")
    assert frames == [f"{i:05d}.png" for i in range(len(frames))] and 0 < len(frames) <= 5
    assert [f.name for f in (tmp_path / "out" / "a").iterdir()] == ["#####.png.partial"]


def test_a_depth_frame_of_another_size_is_named_in_width_x_height(tmp_path, rng, capsys):
    import imageio.v3 as iio

    clip, _ = make_clip(tmp_path, rng, n=3)
    folder = tmp_path / "depth"
    folder.mkdir()
    for i, (h, w) in enumerate([(36, 64), (36, 64), (18, 32)]):
        iio.imwrite(folder / f"{i:02d}.png", np.full((h, w), 2000, np.uint16))
    code = main(["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--depth", str(folder),
                 "--depth-scale", "0.001", "--focus-distance", "2", "--f-stop", "2"])
    assert code == 2
    assert capsys.readouterr().err.endswith(
        f"hfrender: error: depth frame 2 ({folder / '02.png'}) is 32x18, the first 64x36: a "
        "depth pass is one size\n")  # named by its file (was: by its number alone)
    assert main(["fx", str(clip), "-o", str(tmp_path / "s.mp4"), "--motion-blur", "3",
                 "--stride", "3"]) == 0  # one output frame: counted as one
    assert capsys.readouterr().out.strip() == (f"wrote {tmp_path / 's.mp4'}: 1 frame at 10 fps "
                                               "from 3 at 30 fps")


def test_a_pattern_of_another_width_than_the_files_names_the_one_that_reads_them(
        tmp_path, rng, capsys):
    """Blender writes 0001.png; in/%05d.png prints 00001.png, which is not there: the line
    names the pattern that reads what is, and following it works."""
    import imageio.v3 as iio

    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(1, 4):
        iio.imwrite(folder / f"{i:04d}.png", rng.integers(0, 256, (8, 8, 3), dtype=np.uint8))
    out = str(tmp_path / "o" / "%02d.png")
    assert main(["fx", str(folder / "%05d.png"), "-o", out, "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {folder / '%05d.png'}: no file has the names this pattern prints; "
        f"{folder} holds 0001.png ... (3 files): give {folder / '%04d.png'}, or the folder\n")
    assert main(["fx", str(folder / "%04d.png"), "-o", out, "--motion-blur", "2",
                 "--quiet"]) == 0
    assert len(list((tmp_path / "o").iterdir())) == 3


def test_a_single_picture_output_is_told_the_pattern_fx_writes(tmp_path, rng, capsys):
    """``fx clip -o x.png`` was told "(one picture: hfrender still)", and still renders
    scenes, not footage: fx names the frames it makes and the sequence it would write
    instead (one frame is written as x.png: tests/test_fx_one_picture.py)."""
    clip, _ = make_clip(tmp_path, rng, n=4)
    assert main(["fx", str(clip), "--motion-blur", "2", "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err == (f"hfrender: error: -o {tmp_path / 'x.png'} is one picture; --motion-blur 2 "
                   f"of {clip} makes 4 frames: give a pattern such as "
                   f"{tmp_path / 'x_%05d.png'} (each frame a picture)\n")  # (in its folder)


def test_a_pattern_of_videos_is_one_line_and_a_file_of_that_name_is_itself(tmp_path, rng,
                                                                        capsys):
    """A trial's: ``fx 'vids/%d.mp4'`` read each video as one frame and crashed ("could not
    broadcast ..."); a video literally named ``a%d.mp4`` was read as the pattern whenever
    ``a3.mp4`` sat beside it."""
    import shutil

    import imageio.v3 as iio

    clip, _ = make_clip(tmp_path, rng, n=6)
    (tmp_path / "vids").mkdir()
    for name in ("1.mp4", "2.mp4", "a%d.mp4", "a3.mp4"):
        shutil.copy(clip, tmp_path / "vids" / name)
    out = tmp_path / "o.mp4"
    assert main(["fx", str(tmp_path / "vids" / "%d.mp4"), "-o", str(out), "--motion-blur",
                 "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {tmp_path / 'vids' / '%d.mp4'}: a sequence's frames are images (PNG "
        "or EXR: frames/%05d.png), not .mp4 videos\n")
    assert main(["fx", str(tmp_path / "vids" / "a%d.mp4"), "-o", str(out), "--motion-blur",
                 "2", "--quiet"]) == 0
    assert len(iio.imread(out)) == 6  # the file's 6 frames, not a3.mp4 as one


def test_a_pattern_of_other_images_is_still_a_sequence(tmp_path, rng):
    """A review's: the video suffixes' refusal must leave the images imageio reads (a
    .webp, .tga or .gif pattern) as sequences."""
    from hfrender.io.sequence_files import sequence_files

    for i in range(3):
        (tmp_path / f"f{i:03d}.webp").write_bytes(b"x")
    assert [f.name for f in sequence_files(str(tmp_path / "f%03d.webp"))] == [
        "f000.webp", "f001.webp", "f002.webp"]
