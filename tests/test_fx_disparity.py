"""Depth of field from a disparity map (a monocular depth estimator's relative inverse
depth: near is large, no metric scale): ``hfrender fx --depth-kind disparity`` and
``hf.depth_of_field(..., depth_kind="disparity")``. A thin lens's circle of confusion is
linear in inverse depth, so a disparity d = a / z blurs as the true metres z do, up to one
scale: given as --max-blur, the first frame's largest circle of confusion in pixels."""

import logging

import imageio.v3 as iio
import numpy as np
import pytest
from fx_helpers import png_sequence

import hfrender as hf
from hfrender.cli import main
from hfrender.optics import Lens

H, W, N = 24, 64, 2
LENS = Lens(4.0, 1.4, sensor_width_mm=9.0)  # the metric call's: focused on the wall at 4 m


def scene():
    """True metres (N, H, W): a wall at 4 m, a card at 1.5 m (at 0.8 m in frame 1), a ramp
    from 1 to 8 m, a strip of sky; and the disparity 2 / z an estimator would give (sky 0)."""
    z = np.full((N, H, W), 4.0, np.float32)
    z[:, 4:20, 4:20] = 1.5
    z[1, 4:20, 4:20] = 0.8  # nearer than all of frame 0: more than --max-blur, on one scale
    z[:, :, 44:] = np.linspace(1.0, 8.0, H, dtype=np.float32)[:, None]
    z[:, :2, 20:44] = np.inf
    with np.errstate(divide="ignore"):
        return z, (np.float32(2.0) / z).astype(np.float32)


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return np.inf if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def largest_coc(z):
    return float(LENS.coc_px(z[0], W).max())


@pytest.mark.parametrize("method", ["fast", "exact"])
@pytest.mark.parametrize("focus", [["--focus-pixel", "30,12"], ["--focus-disparity", "0.5"]])
def test_disparity_blurs_as_its_true_metres_do(tmp_path, rng, method, focus):
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    z, d = scene()
    np.save(tmp_path / "z.npy", z)
    np.save(tmp_path / "d.npy", d)
    common = ["fx", str(seq), "--dof-method", method, "--quiet"]
    metric = ["--depth", str(tmp_path / "z.npy"), "--f-stop", "1.4", "--sensor-width-mm", "9",
              *(["--focus-pixel", "30,12"] if "--focus-pixel" in focus else
                ["--focus-distance", "4"])]
    blur = largest_coc(z)
    assert 9 < blur < 10  # the ramp's near end, 1 m, focused at 4 m
    assert main(common + ["-o", str(tmp_path / "m" / "%03d.png"), *metric]) == 0
    assert main(common + ["-o", str(tmp_path / "d" / "%03d.png"), "--depth",
                          str(tmp_path / "d.npy"), "--depth-kind", "disparity", *focus,
                          "--max-blur", repr(blur)]) == 0
    for i in range(N):
        want = iio.imread(tmp_path / "m" / f"{i:03d}.png")
        got = iio.imread(tmp_path / "d" / f"{i:03d}.png")
        assert psnr(got, want) > 60, (i, psnr(got, want))


def test_the_largest_circle_of_confusion_is_max_blur_on_one_scale_for_every_frame(tmp_path):
    """The stand-in metres the engine takes: the first frame's largest circle of confusion
    is --max-blur; frame 1, with a nearer card, keeps that scale (blurred more), each
    circle the true metres' under the metric lens."""
    from hfrender.engine.fx_depth import depth_pass_of, focused
    from hfrender.engine.fx_settings import FxSettings

    z, d = scene()
    np.save(tmp_path / "d.npy", d)
    blur = largest_coc(z)
    s = FxSettings(depth=str(tmp_path / "d.npy"), depth_kind="disparity",
                   focus_disparity=0.5, max_blur=17.0, workers=1)
    depth = depth_pass_of(str(tmp_path / "clip.mp4"), s, (W, H), N)
    s = focused(s, depth)
    frames = list(depth.frames)
    cocs = [s.lens.coc_px(f, W) for f in frames]
    assert abs(cocs[0].max() / 17.0 - 1) < 0.01
    np.testing.assert_allclose(cocs[0] * (blur / 17.0), LENS.coc_px(z[0], W), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(cocs[1] * (blur / 17.0), LENS.coc_px(z[1], W), rtol=1e-5,
                               atol=1e-5)
    assert cocs[1].max() > 17.5  # (not scaled again to 17 px)
    assert np.isinf(frames[0][:2, 20:44]).all()  # a disparity of 0: sky


def test_library_depth_of_field_of_a_disparity_map(rng):
    z, d = scene()
    frames = rng.integers(0, 256, (N, H, W, 3), dtype=np.uint8)
    want = hf.depth_of_field(frames, z, focus_distance=4.0, f_stop=1.4, sensor_width_mm=9.0)
    got = hf.depth_of_field(frames, d, depth_kind="disparity", focus_disparity=0.5,
                            max_blur=largest_coc(z))
    assert psnr(got, want) > 60
    got = hf.depth_of_field(frames, d, depth_kind="disparity", focus_pixel=(30, 12),
                            max_blur=largest_coc(z))
    assert psnr(got, want) > 60
    u16 = np.round(d / d.max() * 65535).astype(np.uint16)  # an integer map: read as 0..1
    got = hf.depth_of_field(frames, u16, depth_kind="disparity",
                            focus_disparity=0.5 / float(d.max()), max_blur=largest_coc(z))
    assert psnr(got, want) > 40


def test_verbose_says_the_disparity_and_the_blur_it_is_given(tmp_path, rng, caplog):
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "d.npy", scene()[1])
    with caplog.at_level(logging.INFO, logger="hfrender"):
        assert main(["fx", str(seq), "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
                     str(tmp_path / "d.npy"), "--depth-kind", "disparity", "--focus-pixel",
                     "30,12", "--max-blur", "12.5", "--quiet"]) == 0
    said = [r.getMessage() for r in caplog.records if "circles of confusion" in r.getMessage()]
    assert said == [f"depth {tmp_path / 'd.npy'}'s first frame: disparity 0.25 to 2 and sky "
                    "(0 or below), 0.5 in focus; circles of confusion up to 12.5 px across, "
                    "each disparity blurred alike on every frame (the scale fixed from this "
                    "one)"]


REFUSED = [
    (["--f-stop", "2.8"], "--f-stop does not apply with --depth-kind disparity: the blur's "
     "size is --max-blur's"),
    (["--focal-length-mm", "35"], "--focal-length-mm does not apply with --depth-kind "
     "disparity: the blur's size is --max-blur's"),
    (["--focus-distance", "2"], "--focus-distance does not apply with --depth-kind disparity: "
     "a disparity map holds no metres: focus by --focus-pixel or --focus-disparity"),
    (["--depth-scale", "2"], "--depth-scale does not apply with --depth-kind disparity: a "
     "disparity map is read as it is (an integer one scaled to 0..1), and --max-blur sets its "
     "scale"),
    (["--depth-range", "0.5,20"], "--depth-range does not apply with --depth-kind disparity: "
     "a disparity map is read as it is (an integer one scaled to 0..1), and --max-blur sets "
     "its scale"),
    (["--depth-zero-is-sky"], "--depth-zero-is-sky does not apply with --depth-kind "
     "disparity: a disparity of 0 or below is sky already"),
    (["--max-blur", "0"], "--max-blur 0 blurs nothing: under 2 px across a circle of "
     "confusion leaves every pixel as it is (a pixel's disk is whole pixels); give at least "
     "2, or no depth of field"),
    (["--max-blur", "-3"], "--max-blur -3 blurs nothing: under 2 px across a circle of "
     "confusion leaves every pixel as it is (a pixel's disk is whole pixels); give at least "
     "2, or no depth of field"),
    (["--focus-disparity", "0.5"], "--focus-pixel and --focus-disparity: give one (the pixel "
     "in focus, or the disparity in focus)"),
    (["--focus-disparity", "-1", "--no-pixel"], "--focus-disparity -1 must be a finite "
     "disparity >= 0 (in the map's units; 0 and below is sky)"),
    (["--no-blur"], "--depth-kind disparity needs --max-blur (the largest circle of "
     "confusion's diameter, in pixels)"),
    (["--no-pixel"], "--depth-kind disparity needs --focus-pixel or --focus-disparity (the "
     "pixel in focus, or the disparity in focus)"),
]


@pytest.mark.parametrize("extra,said", REFUSED, ids=[" ".join(e) for e, _ in REFUSED])
def test_what_a_disparity_map_refuses_is_one_line_and_nothing_is_written(
        tmp_path, rng, capsys, extra, said):
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "d.npy", scene()[1])
    args = ["fx", str(seq), "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
            str(tmp_path / "d.npy"), "--depth-kind", "disparity", "--quiet"]
    args += [] if "--no-pixel" in extra else ["--focus-pixel", "30,12"]
    args += [] if "--no-blur" in extra or "--max-blur" in extra else ["--max-blur", "9"]
    assert main(args + [e for e in extra if e not in ("--no-pixel", "--no-blur")]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {said}\n"
    assert not (tmp_path / "o").exists()


def test_a_constant_map_and_disparity_options_with_a_distance_are_refused(tmp_path, rng,
                                                                          capsys):
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "flat.npy", np.full((H, W), 0.5, np.float32))
    np.save(tmp_path / "z.npy", scene()[0])
    out = ["-o", str(tmp_path / "o" / "%03d.png"), "--quiet"]
    for depth, extra, said in (
            ("flat.npy", ["--depth-kind", "disparity", "--focus-disparity", "0.3",
                          "--max-blur", "9"],
             f"depth {tmp_path / 'flat.npy'}'s first frame is one disparity (0.5) all over: a "
             "constant map holds no depth to blur by; give the map of this footage"),
            ("z.npy", ["--focus-distance", "4", "--f-stop", "2", "--max-blur", "9"],
             "--max-blur applies only with --depth-kind disparity (a distance is blurred by "
             "the lens: --f-stop)")):
        assert main(["fx", str(seq), *out, "--depth", str(tmp_path / depth), *extra]) == 2
        assert capsys.readouterr().err.splitlines()[-1] == f"hfrender: error: {said}"
        assert not (tmp_path / "o").exists()
    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    for kw, said in (
            ({"focus_distance": 4.0, "f_stop": 2.0, "max_blur": 9}, "max_blur applies only "
             "with depth_kind='disparity' (a distance is blurred by the lens: f_stop)"),
            ({"depth_kind": "disparity", "f_stop": 2.0, "max_blur": 9, "focus_disparity": 1},
             "f_stop does not apply with depth_kind='disparity': the blur's size is "
             "max_blur's"),
            ({"depth_kind": "disparity", "focus_pixel": (3, 2), "max_blur": 0}, "max_blur=0 "
             "blurs nothing: under 2 px across a circle of confusion leaves every pixel as it "
             "is (a pixel's disk is whole pixels); give at least 2, or no depth of field"),
            ({"f_stop": 2.0}, "depth_of_field needs focus_distance (or focus_pixel), or "
             "depth_kind='disparity' with max_blur")):
        with pytest.raises((ValueError, TypeError)) as e:
            hf.depth_of_field(frames, scene()[1][0], **kw)
        assert str(e.value) == said
    with pytest.raises(ValueError, match=r"^depth's first frame is one disparity \(0.5\) all "
                       r"over: a constant map holds no depth to blur by; give the map of "
                       r"this footage$"):
        hf.depth_of_field(frames, np.full((H, W), 0.5), depth_kind="disparity",
                          focus_pixel=(3, 2), max_blur=9)


def test_a_focus_disparity_beyond_all_of_the_map_is_warned_of_at_the_call(rng):
    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    with pytest.warns(UserWarning) as said:
        hf.depth_of_field(frames, scene()[1][0], depth_kind="disparity", focus_disparity=3.0,
                          max_blur=9)
    assert [(str(w.message), w.filename) for w in said] == [
        ("the focus disparity 3 is beyond all of depth's first frame (0 to 2): no pixel is in "
         "focus", __file__)]


JOB = """[[job]]
name = "shot"
input = "frames"
output = "b/%03d.png"
fps = 24
depth = "d.npy"
depth-kind = "disparity"
focus-disparity = 0.5
max-blur = 9
"""


def test_a_jobs_file_takes_depth_kind_focus_disparity_and_max_blur(tmp_path, rng, capsys):
    """A jobs file's fx job takes fx's disparity options (was: "unknown field 'depth-kind'"):
    its frames the command line's; a wrong one is one line naming the job, before any
    work, naming the file's keys (was: '--depth-kind disparity needs --max-blur', flags the
    file has none of); depth-kind disparity with no depth (a job's motion blur alone) is
    refused, not left out without a word."""
    from hfrender.engine.batch import load_jobs

    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "d.npy", scene()[1])
    (tmp_path / "jobs.toml").write_text(JOB)
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 0
    assert main(["fx", str(seq), "-o", str(tmp_path / "c" / "%03d.png"), "--depth",
                 str(tmp_path / "d.npy"), "--depth-kind", "disparity", "--focus-disparity",
                 "0.5", "--max-blur", "9", "--fps", "24", "--quiet"]) == 0
    for i in range(N):
        assert np.array_equal(iio.imread(tmp_path / "b" / f"{i:03d}.png"),
                              iio.imread(tmp_path / "c" / f"{i:03d}.png"))
    for edit, said, message in (
            ('"disparity"', '"metres"', "depth-kind metres must be one of distance, disparity"),
            ("max-blur = 9", "max-blur = 1", "max-blur = 1 blurs nothing: under 2 px across a "
             "circle of confusion leaves every pixel as it is (a pixel's disk is whole "
             "pixels); give at least 2, or no depth of field"),
            ("max-blur = 9", 'max-blur = "9"', 'max-blur = "9" must be a number'),
            ("focus-disparity = 0.5", "focus-disparity = -1", "focus-disparity = -1 must be a "
             "finite disparity >= 0 (in the map's units; 0 and below is sky)"),
            ("max-blur = 9", "max-blur = 9\nf-stop = 2", "f-stop does not apply with depth-kind "
             "disparity: the blur's size is max-blur's"),
            ('depth = "d.npy"', "motion-blur = 2", "depth-kind disparity needs depth"),
            ("max-blur = 9\n", "", "depth-kind disparity needs max-blur (the largest circle of "
             "confusion's diameter, in pixels)"),
            ("focus-disparity = 0.5\n", "", "depth-kind disparity needs focus-pixel or "
             "focus-disparity (the pixel in focus, or the disparity in focus)"),
            ("max-blur = 9", 'max-blur = 9\nfocus-pixel = "30,12"', "focus-pixel and "
             "focus-disparity: give one (the pixel in focus, or the disparity in focus)")):
        (tmp_path / "jobs.toml").write_text(JOB.replace(edit, said))
        with pytest.raises(hf.InputError) as e:
            load_jobs(tmp_path / "jobs.toml", {})
        assert str(e.value) == f"{tmp_path / 'jobs.toml'}: job 'shot': {message}"
    (tmp_path / "jobs.toml").write_text(JOB.replace("max-blur = 9\n", ""))
    assert main(["batch", str(tmp_path / "jobs.toml"), "--max-blur", "1", "--quiet"]) == 2
    assert capsys.readouterr().err.endswith("for job 'shot': --max-blur 1 blurs nothing: under "
                                            "2 px across a circle of confusion leaves every "
                                            "pixel as it is (a pixel's disk is whole pixels); "
                                            "give at least 2, or no depth of field\n")


@pytest.mark.parametrize("focus", [["--focus-disparity", "0.5"], ["--focus-pixel", "30,12"]])
def test_disparity_fx_on_ray_is_the_local_fx_bit_for_bit(local_ray, tmp_path, monkeypatch,
                                                         capsys, focus):
    """Two segments on Ray, each a worker's: the second's blur keeps the scale of the clip's
    first frame (a card nearer there than all of it), not its own first frame's."""
    import subprocess

    import imageio_ffmpeg

    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 1.0)  # 30-frame segments
    clip = tmp_path / "in.mp4"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", f"testsrc=size={W}x{H}:rate=30", "-frames:v", "40",
                    "-pix_fmt", "yuv420p", str(clip)], check=True)
    d = np.repeat(scene()[1][:1], 40, axis=0)
    d[30:, 4:20, 4:20] = 2.0 / 0.8  # nearer from the second segment on: more than --max-blur
    np.save(tmp_path / "d.npy", d)
    flags = ["--depth", str(tmp_path / "d.npy"), "--depth-kind", "disparity", *focus,
             "--max-blur", "9"]
    assert main(["fx", str(clip), "-o", str(tmp_path / "ray.mp4"), *flags, "--ray"]) == 0
    said = capsys.readouterr().out
    assert "40 frames on Ray" in said and "2 segments made, 0 reused" in said, said
    assert main(["fx", str(clip), "-o", str(tmp_path / "local.mp4"), *flags, "--quiet"]) == 0
    assert (tmp_path / "ray.mp4").read_bytes() == (tmp_path / "local.mp4").read_bytes()


def test_a_focus_pixel_with_a_distance_focuses_each_frame_at_its_depth_there(tmp_path, rng):
    """The library's focus_pixel with metres focuses each frame at its depth under that
    pixel, as fx --focus-pixel does (was refused: 'focus_pixel applies only with
    depth_kind='disparity'', while the command took it): the card's 1.5 m, then 0.8 m."""
    seq, frames = png_sequence(tmp_path, rng, N, H, W)
    z, _ = scene()
    got = hf.depth_of_field(frames, z, focus_pixel=(10, 10), f_stop=1.4, sensor_width_mm=9.0)
    want = hf.depth_of_field(frames, z, focus_distance=[1.5, 0.8], f_stop=1.4,
                             sensor_width_mm=9.0)
    np.testing.assert_array_equal(got, want)
    assert psnr(got, hf.depth_of_field(frames, z, focus_distance=1.5, f_stop=1.4,
                                       sensor_width_mm=9.0)) < 40  # (frame 1 refocused)
    np.save(tmp_path / "z.npy", z)
    assert main(["fx", str(seq), "-o", str(tmp_path / "m" / "%03d.png"), "--depth",
                 str(tmp_path / "z.npy"), "--f-stop", "1.4", "--sensor-width-mm", "9",
                 "--focus-pixel", "10,10", "--quiet"]) == 0
    for i in range(N):
        assert psnr(got[i], iio.imread(tmp_path / "m" / f"{i:03d}.png")) > 60


def test_a_focus_pixel_with_a_distance_is_checked_as_fx_checks_it(tmp_path, rng, capsys):
    z, _ = scene()
    z[0, 10, 10] = 0.03  # within the 50 mm focal length in frame 0 (fx checks a frame's
    #                      focus as it reaches it: frame 1's came after frame 0 was kept or not)
    frames = rng.integers(0, 256, (N, H, W, 3), dtype=np.uint8)
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, z, focus_distance=4.0, f_stop=1.4, focus_pixel=(10, 10))
    assert str(e.value) == ("focus_distance and focus_pixel: give one (the distance in "
                            "focus, or the pixel whose depth is in focus)")
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, z, focus_pixel=(10, 10))
    assert str(e.value) == "depth_of_field needs f_stop, or depth_kind='disparity' with max_blur"
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, z)
    assert str(e.value) == ("depth_of_field needs focus_distance (or focus_pixel) and f_stop, "
                            "or depth_kind='disparity' with max_blur")
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, z, focus_pixel=(W, 3), f_stop=1.4)
    assert str(e.value) == (f"focus_pixel=({W}, 3) is outside the {W}x{H} frames (x from 0 "
                            f"to {W - 1}, y from 0 to {H - 1})")
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, z, focus_pixel=(10, 10), f_stop=1.4)
    tail = (": in frame 0 the depth there is 0.03 m, nearer than the lens's focal length: "
            "nothing can be focused there")
    assert str(e.value) == "focus_pixel=(10, 10)" + tail
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "z.npy", z)
    assert main(["fx", str(seq), "-o", str(tmp_path / "m" / "%03d.png"), "--depth",
                 str(tmp_path / "z.npy"), "--f-stop", "1.4", "--focus-pixel", "10,10",
                 "--quiet"]) == 2
    assert capsys.readouterr().err == f"hfrender: error: --focus-pixel 10,10{tail}\n"


def test_resume_with_another_max_blur_names_it_alone_and_the_same_run_goes_on(
        tmp_path, rng, monkeypatch, capsys):
    """An interrupted disparity run: a --resume with another --max-blur is refused, naming
    it (was: 'focus-distance 49.4327 -> 37.087; max-blur 9 -> 12', a stand-in's metres no
    flag gives); with the same flags it goes on to the uninterrupted run's frames."""
    import signal

    from fx_helpers import decode, make_clip
    from test_fx_engine import segments_done, start_fx, wait_for

    clip, _ = make_clip(tmp_path, rng, n=120)  # 15-frame segments: 8 of them
    d = np.full((120, 36, 64), 0.5, np.float32)
    d[:, 5:20, 5:25] = np.linspace(1, 3, 120, dtype=np.float32)[:, None, None]
    d[:, :3] = 0
    np.save(tmp_path / "d.npy", d)
    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 0.5)
    flags = ["--depth", str(tmp_path / "d.npy"), "--depth-kind", "disparity",
             "--focus-disparity", "0.5", "--max-blur", "9", "--quiet"]
    whole, out = tmp_path / "whole.mp4", tmp_path / "crash.mp4"
    assert main(["fx", str(clip), "-o", str(whole), *flags]) == 0
    proc = start_fx(tmp_path, [str(clip), "-o", str(out), *flags])
    wait_for(out, 2, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()  # its pipes closed with it
    assert 2 <= len(segments_done(out)) < 8
    assert main(["fx", str(clip), "-o", str(out), *flags[:-2], "12", "--quiet",
                 "--resume"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --resume: the settings changed since the interrupted run (max-blur "
        "9 -> 12); run without --resume to start over\n")
    assert main(["fx", str(clip), "-o", str(out), *flags, "--resume"]) == 0
    np.testing.assert_array_equal(decode(whole)[0], decode(out)[0])



def test_a_focus_disparity_past_the_maps_nearest_by_less_than_a_blur_is_in_focus(rng):
    """A 16-bit map's nearest (the card) a part of a code under the focus typed, its true
    disparity: blurred 0.0001 px, in focus, but warned of as 'beyond all of depth's first
    frame: no pixel is in focus'; so was a focus that blurs the card 1.4 px (under 2 px
    nothing is blurred). A focus that blurs it 2 px or more is warned of still."""
    import warnings

    z, d = scene()
    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    card = float(d[0, 10, 10]) / 2.1
    u16 = np.floor(d[0] / 2.1 * 65535).astype(np.uint16)  # (written truncated)
    u16[:, 44:] = 0  # the ramp as sky: the card is the nearest
    assert 0 < card - u16.max() / 65535 < 1 / 65535
    for focus in (card, 0.75):  # the card 0 and 9 * (0.75 - 0.635) / 0.75 = 1.38 px across
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            hf.depth_of_field(frames, u16, depth_kind="disparity", focus_disparity=focus,
                              max_blur=9)
    with pytest.warns(UserWarning) as said:  # 9 * (0.9 - 0.635) / 0.9 = 2.65 px
        hf.depth_of_field(frames, u16, depth_kind="disparity", focus_disparity=0.9,
                          max_blur=9)
    assert [str(w.message) for w in said] == [
        "the focus disparity 0.9 is beyond all of depth's first frame (0 to 0.634913): no "
        "pixel is in focus"]


def test_a_fraction_focus_disparity_is_taken_as_its_number(rng):
    """Any real number, as Lens takes one: a Fraction was refused by the library ("must be a
    finite disparity >= 0"), and FxSettings kept it, its manifest not JSON."""
    import json
    from fractions import Fraction

    from hfrender.engine.fx_settings import FxSettings

    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    d = scene()[1][0]
    want = hf.depth_of_field(frames, d, depth_kind="disparity", focus_disparity=0.5,
                             max_blur=9)
    got = hf.depth_of_field(frames, d, depth_kind="disparity", focus_disparity=Fraction(1, 2),
                            max_blur=9)
    np.testing.assert_array_equal(got, want)
    s = FxSettings(depth="d.npy", depth_kind="disparity", focus_disparity=Fraction(1, 2),
                   max_blur=9.0, workers=1)
    assert type(s.focus_disparity) is float and s.focus_disparity == 0.5
    assert json.loads(json.dumps(s.output_settings()))["focus_disparity"] == 0.5


@pytest.mark.parametrize("values", [(-0.5, -0.5), (0.0, 0.0), (-1.0, 0.0)])
def test_a_map_of_no_disparity_above_0_is_refused_as_all_sky(rng, values):
    """Every disparity 0 or below (sky): was "one disparity (0) all over: a constant map",
    a 0 the map does not hold, and a ramp from -1 to 0 called constant."""
    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    d = np.linspace(*values, H * W).reshape(H, W)
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, d, depth_kind="disparity", focus_disparity=0.5, max_blur=9)
    assert str(e.value) == ("depth's first frame has no disparity above 0: all of it is sky (0 "
                            "or below), no depth to blur by; give the map of this footage "
                            "(near large)")


@pytest.mark.parametrize("kw,said", [
    ({"focus_disparity": 0.5}, "{kind} needs {max_blur} (the largest circle of confusion's "
     "diameter, in pixels)"),
    ({"max_blur": 9.0}, "{kind} needs {focus_pixel} or {focus_disparity} (the pixel in focus, "
     "or the disparity in focus)"),
    ({"max_blur": 9.0, "focus_disparity": 0.5, "focus_pixel": (3, 2)}, "{focus_pixel} and "
     "{focus_disparity}: give one (the pixel in focus, or the disparity in focus)"),
    ({"max_blur": 9.0, "focus_disparity": -1.5}, "{focus_disparity}{is}-1.5 must be a finite "
     "disparity >= 0 (in the map's units; 0 and below is sky)")])
def test_the_library_and_fx_settings_say_a_disparity_check_alike(rng, kw, said):
    """One check, each caller's names (was two wordings: 'needs --max-blur PX', 'needs
    --focus-pixel X,Y or --focus-disparity D: give one' against the library's 'needs
    focus_pixel=(x, y) or focus_disparity: give one')."""
    from hfrender.engine.fx_settings import FxSettings

    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    keywords = {k: k for k in ("max_blur", "focus_pixel", "focus_disparity")}
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, scene()[1][0], depth_kind="disparity", **kw)
    assert str(e.value) == said.format(kind="depth_kind='disparity'", **keywords, **{"is": "="})
    flags = {k: "--" + k.replace("_", "-") for k in keywords}
    with pytest.raises(hf.InputError) as e:
        FxSettings(depth="d.npy", depth_kind="disparity", workers=1, **kw)
    assert str(e.value) == said.format(kind="--depth-kind disparity", **flags, **{"is": " "})


def test_the_values_that_mean_not_given_are_taken_with_a_disparity_map(tmp_path, rng):
    """depth-scale = 1.0 and depth-zero-is-sky = false in a jobs file (and --depth-scale 1)
    change nothing, as FxSettings holds them when none is given: were refused ("does not
    apply with depth-kind disparity"); the job's settings and frames are those without."""
    from hfrender.engine.batch import load_jobs

    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "d.npy", scene()[1])
    (tmp_path / "jobs.toml").write_text(JOB)
    plain = load_jobs(tmp_path / "jobs.toml", {})[0].fx_settings()
    (tmp_path / "jobs.toml").write_text(JOB + "depth-scale = 1.0\ndepth-zero-is-sky = false\n")
    assert load_jobs(tmp_path / "jobs.toml", {})[0].fx_settings() == plain
    args = ["fx", str(seq), "--depth", str(tmp_path / "d.npy"), "--depth-kind", "disparity",
            "--focus-disparity", "0.5", "--max-blur", "9", "--quiet"]
    assert main(args + ["-o", str(tmp_path / "a" / "%03d.png")]) == 0
    assert main(args + ["-o", str(tmp_path / "b" / "%03d.png"), "--depth-scale", "1"]) == 0
    for i in range(N):
        assert np.array_equal(iio.imread(tmp_path / "a" / f"{i:03d}.png"),
                              iio.imread(tmp_path / "b" / f"{i:03d}.png"))


def test_defaults_give_each_depth_kind_its_own_keys(tmp_path, rng, capsys):
    """[defaults] holding the file's metre jobs' f-stop and focus-distance and its disparity
    jobs' max-blur and focus-disparity: a disparity job was refused ('[defaults], for job
    'd': focus-distance does not apply with depth-kind disparity'), a metre job too
    ('max-blur applies only with depth-kind disparity'); now each takes its kind's keys, as
    though its own; a job's own f-stop with depth-kind disparity is still refused."""
    from hfrender.engine.batch import load_jobs

    png_sequence(tmp_path, rng, N, H, W)
    z, d = scene()
    np.save(tmp_path / "z.npy", z)
    np.save(tmp_path / "d.npy", d)
    metre = ('[[job]]\nname = "m"\ninput = "frames"\noutput = "m/%03d.png"\nfps = 24\n'
             'depth = "z.npy"\n')
    both = ("[defaults]\nf-stop = 1.4\nfocus_distance = 4.0\nmax-blur = 9\n"
            "focus-disparity = 0.5\n\n" + metre + JOB.replace("focus-disparity = 0.5\n", "")
            .replace("max-blur = 9\n", ""))
    (tmp_path / "jobs.toml").write_text(both)
    jobs = load_jobs(tmp_path / "jobs.toml", {})
    (tmp_path / "own.toml").write_text(metre + "f-stop = 1.4\nfocus-distance = 4.0\n" + JOB)
    own = load_jobs(tmp_path / "own.toml", {})
    assert [j.options for j in jobs] == [j.options for j in own]
    assert [j.fx_settings() for j in jobs] == [j.fx_settings() for j in own]
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 0
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["000.png", "001.png"]
    (tmp_path / "jobs.toml").write_text(both + "f-stop = 2\n")
    with pytest.raises(hf.InputError) as e:
        load_jobs(tmp_path / "jobs.toml", {})
    assert str(e.value) == (f"{tmp_path / 'jobs.toml'}: job 'shot': f-stop does not apply with "
                            "depth-kind disparity: the blur's size is max-blur's")


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_nan_or_infinite_disparity_is_said_as_a_disparity_not_a_distance(
        tmp_path, rng, capsys, bad):
    """A NaN or +inf in a disparity map was refused as "depth contains 1 NaN value(s) ...;
    depth must be a distance > 0 (use inf for sky)": an inf called a NaN, and metres asked
    of a map that holds none (a new user's trial)."""
    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    d = scene()[1].copy()
    d[1, 5, 7] = bad
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, d[1], depth_kind="disparity", focus_disparity=0.5, max_blur=9)
    assert str(e.value) == ("depth has a NaN or infinite disparity at row 5, column 7; "
                            "a disparity must be a finite number (near is large; 0 or below "
                            "is sky)")
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "d.npy", d)
    assert main(["fx", str(seq), "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
                 str(tmp_path / "d.npy"), "--depth-kind", "disparity", "--focus-pixel", "30,12",
                 "--max-blur", "9", "--quiet"]) == 2
    err = capsys.readouterr().err  # (the .npy checked whole: before any frame is written)
    assert err == (f"hfrender: error: depth frame 1 ({tmp_path / 'd.npy'}) has a NaN or "
                   "infinite disparity at row 5, column 7; a disparity must be a finite "
                   "number (near is large; 0 or below is sky)\n")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("depth", [np.array(0.5), np.float32(0.5), np.ones(W, np.float32)])
def test_a_disparity_of_the_wrong_shape_is_refused_as_a_distances_is(rng, depth):
    """A 0-d disparity raised "'numpy.float32' object does not support item assignment"
    from the map's inverse; the distance's line now, before any of it is read."""
    frames = rng.random((H, W, 3), np.float32)
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, depth, depth_kind="disparity", focus_disparity=0.5,
                          max_blur=6)
    with pytest.raises(hf.InputError) as metres:
        hf.depth_of_field(frames, depth, focus_distance=2.0, f_stop=2.0)
    assert str(e.value) == str(metres.value) == (
        f"depth has shape {np.shape(depth)}; it must match frames ({H}, {W}, 3) without the "
        f"channel axis: ({H}, {W})")  # (a NumPy scalar: a 0-d array, as np.asarray reads it)


@pytest.mark.parametrize("kw", [{"focus_disparity": 0.5}, {"focus_pixel": (30, 12)}])
def test_a_max_blur_past_what_the_stand_in_lens_can_focus_is_blamed_on_max_blur(
        tmp_path, rng, capsys, kw):
    """max_blur=10**30 was said "focus_distance=0.05 must be a distance in metres greater
    than the focal length", a keyword not given: the stand-in lens's focus, derived from it."""
    frames = rng.random((H, W, 3), np.float32)
    d = scene()[1][0]
    for blur in (10**30, 1e12):
        with pytest.raises(hf.InputError) as e:
            hf.depth_of_field(frames, d, depth_kind="disparity", max_blur=blur, **kw)
        said = str(e.value)
        assert said.startswith(f"max_blur={float(blur):g} is more than depth's first frame can "
                               "be blurred by"), said
        most = float(said.split("give at most ")[1].split(" ")[0])
        assert 1e6 < most < 1e12
    lo = hf.depth_of_field(frames, d, depth_kind="disparity", max_blur=most, **kw)
    assert np.isfinite(lo).all() and lo.std() > 0  # the largest max_blur said is taken
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "d.npy", scene()[1])
    focus = [f"--{k.replace('_', '-')}" for k in kw] + [
        "30,12" if "focus_pixel" in kw else "0.5"]
    assert main(["fx", str(seq), "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
                 str(tmp_path / "d.npy"), "--depth-kind", "disparity", *focus, "--max-blur",
                 "1e30", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith(  # (the command: its flag)
        f"hfrender: error: --max-blur 1e+30 is more than depth {tmp_path / 'd.npy'}'s first "
        "frame can be blurred by (its stand-in lens would be focused on itself); give at most ")
    assert not (tmp_path / "o").exists()


def test_a_focus_pixel_given_as_an_array_or_tensor_is_that_pixel(rng):
    """``focus_pixel=np.array([10, 10])`` (from np.argwhere, np.unravel_index, a tensor's
    argmax) was refused saying it must be "(x, y), two whole numbers >= 0", which it is (an
    array-user's sweep): an array or tensor of two whole numbers is taken as the tuple is."""
    torch = pytest.importorskip("torch", reason="torch is installed by the test command")
    z, _ = scene()
    frames = rng.integers(0, 256, (N, H, W, 3), dtype=np.uint8)
    want = hf.depth_of_field(frames, z, focus_distance=[1.5, 0.8], f_stop=1.4,
                             sensor_width_mm=9.0)  # the card's depth under (10, 10)
    for pixel in (np.array([10, 10]), np.array([10, 10], np.uint16), torch.tensor([10, 10]),
                  np.array([10, 99])[[0, 0]]):
        got = hf.depth_of_field(frames, z, focus_pixel=pixel, f_stop=1.4, sensor_width_mm=9.0)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got[:, 10, 10], frames[:, 10, 10])  # in focus: as given
    for bad, said in ((np.array([10.0, 10.0]), "array([10., 10.])"),
                      (np.array([[10, 10]]), "array([[10, 10]])"),
                      (np.array([10, -1]), "array([10, -1])"),  # (below: was a RuntimeError)
                      (torch.tensor([10.0, 10.0], requires_grad=True),
                       "tensor([10., 10.], requires_grad=True)")):
        with pytest.raises(hf.InputError) as e:
            hf.depth_of_field(frames, z, focus_pixel=bad, f_stop=1.4)
        assert str(e.value) == (f"focus_pixel={said} must be (x, y), two whole numbers >= 0: "
                                "the pixel's column and row from the top left corner (e.g. "
                                "(320, 180))")
