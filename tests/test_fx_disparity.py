"""Depth of field from a disparity map (a monocular depth estimator's relative inverse
depth: near is large, no metric scale): ``hfrender fx --depth-kind disparity`` and
``hf.depth_of_field(..., depth_kind="disparity")``. A thin lens's circle of confusion is
linear in inverse depth, so a disparity d = a / z blurs as the true metres z do, up to one
scale: given as --max-blur, the first frame's largest circle of confusion in pixels."""

import logging

import imageio.v3 as iio
import numpy as np
import pytest
from disparity_helpers import (
    H,
    N,
    W,
    scene,
)
from fx_helpers import png_sequence

import hfrender as hf
from hfrender.cli import main
from hfrender.optics import Lens

LENS = Lens(4.0, 1.4, sensor_width_mm=9.0)  # the metric call's: focused on the wall at 4 m


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


def test_a_focus_disparity_beyond_all_of_the_map_is_warned_of_at_the_call(rng):
    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    with pytest.warns(UserWarning) as said:
        hf.depth_of_field(frames, scene()[1][0], depth_kind="disparity", focus_disparity=3.0,
                          max_blur=9)
    assert [(str(w.message), w.filename) for w in said] == [
        ("the focus disparity 3 is beyond all of depth's first frame (0 to 2): no pixel is in "
         "focus", __file__)]


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
