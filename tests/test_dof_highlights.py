"""The fast depth of field keeps a frame's dim light beside highlights a million times
brighter (:mod:`hfrender.dof_highlights`): a 0.05 background beside one point of 1e6 came
out black, where the exact gather keeps it (a new user's trial with EXR fireflies)."""

import numpy as np
import pytest
from cuda_emu import session_emulator

import hfrender as hf
from hfrender import dof_highlights
from hfrender.backends.cpu import CPUBackend
from hfrender.backends.cuda import launches

CPU = CPUBackend()
FOCUS = 2.0


def fireflies(rng, h=64, w=96, points=True):
    """A textured frame of three depths (a near strip, a strip in focus, a far wall) and
    points from 2 to 1e6 on the wall and the strip; its depth."""
    img = rng.uniform(0.0, 0.8, (h, w, 3)).astype(np.float32)
    depth = np.full((h, w), 6.0, np.float32)
    depth[:, 8:24] = FOCUS
    depth[40:52, 60:90] = 0.9
    if points:
        for (y, x), value in zip([(20, 70), (50, 40), (10, 50), (30, 85), (45, 75)],
                                 [1e6, 1e4, 150.0, 2.0, 3e3], strict=True):
            img[y, x] = value
    return img, depth


def blur(img, depth, method="fast", backend="cpu"):
    return hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=1.4,
                             sensor_width_mm=12.0, backend=backend, method=method)


def test_dim_light_beside_a_bright_point_is_kept():
    img = np.full((90, 160, 3), 0.05, np.float32)
    img[45, 40] = 1e6
    depth = np.full((90, 160), 6.0, np.float32)
    fast, exact = (hf.depth_of_field(img, depth, focus_distance=1.5, f_stop=1.4,
                                     backend="cpu", method=m) for m in ("fast", "exact"))
    assert (exact > 0.049).all() and (fast[..., 0] == 0).sum() == 0  # was 14,387 of 14,400
    np.testing.assert_allclose(fast, exact, rtol=1e-4)
    np.testing.assert_allclose(fast.sum(dtype=np.float64), exact.sum(dtype=np.float64),
                               rtol=1e-6)


def test_points_from_2_to_1e6_over_texture_keep_their_light_and_the_texture(rng):
    img, depth = fireflies(rng)
    fast, exact = blur(img, depth), blur(img, depth, "exact")
    seen = exact > 0.01
    assert np.abs(fast - exact)[seen].max() <= 1e-3 * np.abs(exact)[seen].max()
    rel = np.abs(fast - exact)[seen] / exact[seen]
    assert np.median(rel) < 1e-4 and rel.max() < 0.05, (np.median(rel), rel.max())
    np.testing.assert_allclose(fast.sum(dtype=np.float64), exact.sum(dtype=np.float64),
                               rtol=1e-4)  # energy
    untouched = (exact == img).all(axis=-1)  # in focus, nothing defocused over them
    assert untouched.sum() > 300 and (fast[untouched] == img[untouched]).all()


def test_a_frame_within_the_range_is_not_cut(rng, monkeypatch):
    """Points up to 20 over a usual light of 0.8 (benchmarks/dof.py's frame): no parts, the
    pictures bit for bit; forced to cut, close but not the same (what the test can tell)."""
    img, depth = fireflies(rng, points=False)
    img[20, 70] = img[50, 40] = 20.0
    as_is = blur(img, depth)
    monkeypatch.setattr(dof_highlights, "SPLIT_RANGE", float("inf"))
    np.testing.assert_array_equal(blur(img, depth), as_is)
    monkeypatch.setattr(dof_highlights, "SPLIT_RANGE", 1.0)
    cut = blur(img, depth)
    assert not np.array_equal(cut, as_is)
    np.testing.assert_allclose(cut, as_is, rtol=1e-4, atol=1e-6)


def test_edges_start_at_the_usual_light_and_step_by_the_ratio():
    def never():
        raise AssertionError("the usual light is not needed below the range")

    assert dof_highlights.edges(100.0, never) == []
    assert dof_highlights.edges(99.0, lambda: 1.0) == []
    assert dof_highlights.edges(1e6, lambda: 2e4) == []  # within 100x its usual light
    assert dof_highlights.edges(1e6, lambda: 1.0) == [1.0, 1e3]
    assert dof_highlights.edges(1.5e6, lambda: 1.0) == [1.0, 1e3, 1e6]


def test_split_parts_sum_to_the_colour_and_fold_adds_them_back(rng):
    c = 3
    colour = rng.uniform(0, 1, (c, 9, 11)).astype(np.float32) * 10.0 ** rng.integers(
        0, 7, (c, 9, 11))
    weight = np.full((1, 9, 11), 0.25, np.float32)  # a layer's: its share over its disk
    weight[0, 0] = 0.0
    fields = np.concatenate([colour * weight, weight])
    cuts = [1.0, 1e3, 1e6]
    out = dof_highlights.split(np, fields, cuts, c)
    assert out.shape == (c + 1 + 3 * c, 9, 11) and (out[c] == weight[0]).all()
    parts = [out[:c]] + [out[c + 1 + k * c:c + 1 + (k + 1) * c] for k in range(3)]
    assert all((p >= 0).all() for p in parts[1:])
    for k, (lo, hi) in enumerate(zip(cuts, cuts[1:], strict=False)):  # each at most its span
        assert (parts[k + 1] <= (hi - lo) * weight * (1 + 1e-6)).all()
    np.testing.assert_allclose(sum(p.astype(np.float64) for p in parts), fields[:c],
                               rtol=1e-6, atol=1e-30)
    folded = dof_highlights.fold(np, out.copy(), c)  # at most NOISE * LEVEL_RATIO lost
    np.testing.assert_allclose(folded[:c], fields[:c], rtol=4e-3)
    assert folded.shape == (c + 1, 9, 11)


def test_fold_takes_each_parts_rounding_out_by_its_own_largest():
    """A part's value at 1e-7 of its largest is its rounding: gone; the base's small
    values stay (they are the base's to clean, by its own bounds)."""
    c = 1
    light = np.zeros((c + 1 + c, 3, 3), np.float32)
    light[0] = 0.05  # the colour up to the first cut
    light[1] = 1.0
    light[2, 1, 1] = 1e6
    light[2, 0, 0] = 0.1  # rounding of the part (1e-7 of its largest)
    folded = dof_highlights.fold(np, light, c)
    assert folded[0, 0, 0] == np.float32(0.05) and folded[0, 1, 1] == np.float32(1e6 + 0.05)


def test_run_cuts_pad_a_frame_without_highlights():
    cuts = dof_highlights.run_cuts(np, [[1.0, 1e3], [], [4.0]])
    assert [c.shape for c in cuts] == [(3, 1, 1, 1)] * 2
    assert cuts[0].ravel().tolist() == [1.0, dof_highlights.NONE, 4.0]
    assert cuts[1].ravel().tolist() == [1e3, dof_highlights.NONE, dof_highlights.NONE]
    assert dof_highlights.run_cuts(np, [[], []]) is None


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    return launches.Device(np, session_emulator(tmp_path_factory).run)


def test_the_cuda_kernels_cut_highlights_as_numpy_on_the_emulator(dev, rng):
    """Two frames of one plan, one with points and one without (its cuts padded)."""
    img, depth = fireflies(rng)
    plain = img.copy()
    plain[plain > 1] = 0.5
    frames = np.ascontiguousarray(np.stack([img, plain]))
    depths = np.ascontiguousarray(np.stack([depth, depth]))
    lens = hf.Lens(focus_distance=FOCUS, f_stop=1.4, sensor_width_mm=12.0)
    ww = hf.WindowWeights.from_dense(np.eye(2))
    gpu = np.empty_like(frames)
    launches.fuse(dev, frames, depths, ww, [lens, lens], True, gpu, dof_method="fast")
    cpu = CPU.fuse(frames, depths, ww, [lens, lens], True, dof_method="fast")
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-5)
    assert (gpu[..., 0] > 0).all()
    np.testing.assert_array_equal(cpu[1], blur(plain, depth))  # the plain frame: not cut


def test_light_whose_sums_overflow_float32_is_one_line(tmp_path, dev, capsys):
    """A value near float32's largest (3e38) gave NaN over the frame, without a word; the
    exact gather, which sums a disk's pixels only, takes it."""
    from hfrender.cli import main
    from hfrender.errors import InputError
    from hfrender.io.exr_files import encode_exr

    img = np.full((90, 160, 3), 0.05, np.float32)
    img[45, 40] = 3e38
    depth = np.full((90, 160), 6.0, np.float32)
    lens = hf.Lens(focus_distance=1.5, f_stop=1.4)
    said = (r"^frames hold light up to 3e\+38: the fast depth of field's sums of 14,400 pixels "
            r"of it pass float32's range; scale the light down, or use method='exact' "
            r"\(--dof-method exact\)$")
    with pytest.raises(InputError, match=said):
        hf.depth_of_field(img, depth, focus_distance=1.5, f_stop=1.4, backend="cpu")
    with pytest.raises(InputError, match=said):
        launches.fuse(dev, img[None], depth[None], hf.WindowWeights.from_dense(np.eye(1)),
                      [lens], True, np.empty((1, 90, 160, 3), np.float32), dof_method="fast")
    assert np.isfinite(hf.depth_of_field(img, depth, focus_distance=1.5, f_stop=1.4,
                                         backend="cpu", method="exact")).all()
    (tmp_path / "in").mkdir()
    for i in range(3):
        encode_exr(tmp_path / "in" / f"{i:04d}.exr", img)
    np.save(tmp_path / "d.npy", depth)
    out = tmp_path / "o" / "%04d.exr"
    assert main(["fx", str(tmp_path / "in"), "-o", str(out), "--depth", str(tmp_path / "d.npy"),
                 "--focus-distance", "1.5", "--f-stop", "1.4", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hfrender: error: frames hold light up to 3e+38: ") and \
        err.count("\n") == 1, err
    assert not list(tmp_path.glob("o/0*.exr"))


@pytest.mark.parametrize("shape", ["sun", "fireflies"])
def test_highlights_on_many_pixels_are_cut_too(rng, shape):
    """A sun's disc of 0.3% of the pixels, or fireflies on 0.2% of them, on the rows the
    usual light samples: a 99.9th percentile took their level for the usual light, and
    nothing was cut (a review: 57,303 of 57,600 pixels black)."""
    h, w = 90, 160
    img = np.full((h, w, 3), 0.05, np.float32)
    if shape == "sun":
        y, x = np.ogrid[:h, :w]
        img[(y - 42) ** 2 + (x - 70) ** 2 <= 16] = 1e5  # rows 38-46: 42 is a sampled one
    else:
        img[rng.integers(0, h // 7, 30) * 7, rng.integers(0, w, 30)] = 10.0 ** rng.uniform(
            4, 6, (30, 1))
    assert (img[..., 0] > 1).mean() > 0.001
    depth = np.full((h, w), 6.0, np.float32)
    fast, exact = (hf.depth_of_field(img, depth, focus_distance=1.5, f_stop=1.4,
                                     backend="cpu", method=m) for m in ("fast", "exact"))
    assert (fast[..., 0] > 0.049).all()
    np.testing.assert_allclose(fast, exact, rtol=1e-3)


def test_the_exact_gather_takes_light_up_to_float32s_top(rng, dev):
    """The fast method refuses light whose sums pass float32's range and names
    method='exact' as what takes it; but the gather summed in float32 too, and where the
    weights reaching a pixel sum past 1.13 (a slanted floor's neighbouring disks), a frame
    of 3e38 came out with inf at pixel (1, 36), on the CPU and the CUDA kernel alike (a
    new user's trial). Such light is now summed where it cannot pass the range (the CPU's
    sums in float64, the kernel's over the light scaled by a power of two): a uniform
    frame stays uniform, and light of any level is blurred as the same light scaled down."""
    h, w = 36, 48
    depth = np.linspace(0.4, 20, h * w, dtype=np.float32).reshape(h, w)
    lens = hf.Lens(focus_distance=1.0, f_stop=1.4, focal_length_mm=85)
    weights = hf.WindowWeights.from_dense(np.eye(1))

    def cpu(img):
        return hf.depth_of_field(img, depth, focus_distance=1.0, f_stop=1.4,
                                 focal_length_mm=85, backend="cpu", method="exact")

    def cuda(img):  # the kernel on the emulator
        out = np.empty((1, *img.shape), np.float32)
        launches.fuse(dev, img[None], depth[None], weights, [lens], True, out,
                      dof_method="exact")
        return out[0]

    light = rng.uniform(0.0, 1.0, (h, w, 4)).astype(np.float32)
    scale = np.float32(2.0 ** 127)  # 1.7e38: exact in float32, as is its inverse
    for gather in (cpu, cuda):
        for level in (3e38, 3.4e38):
            out = gather(np.full((h, w, 3), level, np.float32))
            assert np.isfinite(out).all()
            assert np.abs(out / np.float64(level) - 1).max() < 1e-6
        small, big = gather(light), gather(light * scale)
        assert np.isfinite(big).all() and big.max() > 1e38
        assert np.abs(big / scale - small).max() < 1e-6 * small.max()
