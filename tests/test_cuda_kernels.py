"""The CUDA kernels without a GPU: NVRTC compiles them, and the same source runs on the CPU
(compiled as C++ under AddressSanitizer, tests/cuda_emu) through the CUDA backend's own
launch code, compared with the NumPy backend on fresh random inputs."""

import re

import numpy as np
import pytest
from cuda_emu import EmulationError, session_emulator

import hfrender as hf
from hfrender.backends.cpu import CPUBackend
from hfrender.backends.cuda import launches
from hfrender.resources import shader_path

CPU = CPUBackend()


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    return session_emulator(tmp_path_factory)  # one build per session, shared by modules


@pytest.fixture(scope="module")
def dev(emu):
    return launches.Device(np, emu.run)


# CuPy appends -ftz=true to every NVRTC compile (cupy/cuda/compiler.py): compile as it does
CUPY_ADDS = ("-ftz=true",)
FMA = re.compile(r"\bfma\.rn(?:\.ftz)?\.f(?:32|64)\b")
# the kernels whose sRGB encode calls powf: libdevice's powf is written with explicit FMAs,
# which --fmad=false keeps (it only stops the compiler contracting a*b + c)
POWF_USERS = {"hf_fuse_windows_u8", "hf_fuse_windows_u16", "hf_box_running_u16"}


def _nvrtc_ptx(nvrtc, src, arch, options):
    prog = nvrtc.createProgram(src, "fusion.cu", [], [])
    try:
        nvrtc.compileProgram(prog, [f"-arch={arch}", *options])
    except Exception as exc:  # the log says where
        pytest.fail(f"NVRTC: {exc}\n{nvrtc.getProgramLog(prog)}")
    return nvrtc.getPTX(prog).decode()


def _entries(ptx):
    """kernel name -> its PTX."""
    parts = re.split(r"(?=\.visible \.entry )", ptx)[1:]
    return {re.match(r"\.visible \.entry (\w+)", p).group(1): p for p in parts}


@pytest.mark.parametrize("arch", ["compute_75", "compute_90"])
def test_kernels_compile_with_nvrtc(arch):
    nvrtc = pytest.importorskip("cupy_backends.cuda.libs.nvrtc",
                                reason="cupy-cuda12x and nvidia-cuda-nvrtc-cu12 (bash dev.sh)")
    from hfrender.backends.cuda import NVRTC_OPTIONS
    from hfrender.backends.cuda.source import defines, kernel_source

    ptx = _nvrtc_ptx(nvrtc, kernel_source(), arch, [*NVRTC_OPTIONS, *CUPY_ADDS])
    entries = _entries(ptx)
    for name in ("hf_fuse_windows_u8", "hf_box_running_u8", "hf_defocus",
                 "hf_circle_of_confusion", "hf_decode_frames_f32", "hf_dof_start", "hf_dof_spans",
                 "hf_dof_fields", "hf_dof_accumulate", "hf_dof_composite", "hf_rc_border",
                 "hf_rc_ties", "hf_rc_accumulate"):
        assert f".entry {name}(" in ptx
    assert f".target sm_{arch.split('_')[1]}" in ptx
    # no contracted multiply-adds: the GPU rounds as the emulator and NumPy do. What is
    # left is powf's own (counted in a kernel that calls powf alone), once per caller.
    assert "fmaf(" not in kernel_source() and "__fmaf" not in kernel_source()
    probe = defines() + ('extern "C" __global__ void probe(float* x) '
                         '{ x[0] = powf(x[0], HF_INV_GAMMA); }\n')
    per_powf = len(FMA.findall(_nvrtc_ptx(nvrtc, probe, arch, [*NVRTC_OPTIONS, *CUPY_ADDS])))
    found = {name: len(FMA.findall(body)) for name, body in entries.items()}
    assert found == {name: per_powf if name in POWF_USERS else 0 for name in entries}


def test_nvrtc_does_not_contract_multiply_adds():
    from hfrender.backends.cuda import NVRTC_OPTIONS

    assert "--fmad=false" in NVRTC_OPTIONS  # NVRTC's default is --fmad=true


def assert_parity(gpu, cpu, dtype, linear):
    """Equal, except where 16-bit sRGB encoding calls pow (NumPy's and the C library's
    float32 pow may differ in the last bit): there within 1 code value."""
    assert gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
    if dtype == np.uint16 and linear:
        assert np.abs(gpu.astype(np.int64) - cpu).max() <= 1
        assert (gpu == cpu).mean() > 0.99
    else:
        np.testing.assert_array_equal(gpu, cpu)


def random_frames(rng, dtype, shape):
    if dtype == np.float32:
        return rng.random(shape, dtype=np.float32) * 2
    return rng.integers(0, np.iinfo(dtype).max + 1, shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("linear", [True, False])
def test_box_running_sums_equal_the_cpu(dev, rng, dtype, channels, linear):
    # 37 x 23 pixels: frame sizes that are not multiples of the 256-thread block
    frames = random_frames(rng, dtype, (13, 37, 23, channels))
    for window, stride in ((4, 1), (3, 3), (2, 5)):
        w = hf.curve_weights("box", window)
        gpu = launches.motion_blur(dev, frames, w, stride, linear)
        cpu = CPU.motion_blur(frames, w, stride, linear)
        assert_parity(gpu, cpu, dtype, linear)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("linear", [True, False])
def test_weighted_windows_equal_the_cpu(dev, rng, dtype, channels, linear):
    frames = random_frames(rng, dtype, (11, 19, 29, channels))
    for curve, window, stride in (("triangle", 4, 1), ("gaussian", 5, 3)):
        w = hf.curve_weights(curve, window)
        gpu = launches.motion_blur(dev, frames, w, stride, linear)
        cpu = CPU.motion_blur(frames, w, stride, linear)
        assert_parity(gpu, cpu, dtype, linear)  # same order of float32 operations


@pytest.mark.parametrize("dtype, last_focus", [(np.uint8, 1.5), (np.float32, 1.5),
                                               (np.float32, np.inf)])
def test_fusion_with_depth_of_field_matches_the_cpu(dev, rng, dtype, last_focus):
    n, h, w = 6, 21, 34
    frames = random_frames(rng, dtype, (n, h, w, 4))
    depth = rng.choice([0.6, 1.0, 2.5, np.inf], size=(n, h, w)).astype(np.float32)
    depth[:, 5:12, 8:20] = 0.7  # a near block in every sub-frame
    lenses = [hf.Lens(1.0 + 0.1 * j, 1.4, sensor_width_mm=9.0) for j in range(n - 1)]
    lenses.append(hf.Lens(last_focus, 1.4, sensor_width_mm=9.0))  # inf: focused at infinity
    ww = hf.WindowWeights.from_dense(np.array([
        [0.2, 0.3, 0.5, 0, 0, 0],
        [0, 0, 0.25, 0.25, 0.25, 0.25],
    ]))
    gpu_out = np.empty((2, h, w, 4), dtype)
    launches.fuse(dev, frames, depth, ww, lenses, True, gpu_out)
    cpu_out = CPU.fuse(frames, depth, ww, lenses, True)
    if dtype == np.float32:
        np.testing.assert_allclose(gpu_out, cpu_out, rtol=1e-5, atol=1e-6)
    else:
        assert np.abs(gpu_out.astype(int) - cpu_out).max() <= 1
        assert (gpu_out == cpu_out).mean() > 0.99
    assert np.abs(gpu_out.astype(np.float64) - frames[0]).max() > 0  # something happened


def test_out_of_bounds_access_is_caught(dev, rng):
    frames = random_frames(rng, np.uint8, (4, 5, 7, 3))
    out = np.empty((1, 5, 7, 3), np.uint8)
    starts = np.array([0], np.int64)
    rows = np.full((1, 2), 0.5, np.float32)
    lut = np.zeros(1, np.float32)
    enc8 = np.zeros(1, np.uint8)
    good = (frames, lut, np.int32(0), np.int64(105), np.int32(3), starts, rows, np.int32(2),
            np.int32(2), lut, enc8, out)
    dev.run("hf_fuse_windows_u8", (1, 1, 1), (256, 1, 1), good)
    np.testing.assert_array_equal(out[0], ((frames[0].astype(int) + frames[1] + 1) // 2))
    bad = list(good)
    bad[3] = np.int64(106)  # one element past each frame: the last thread reads beyond
    with pytest.raises(EmulationError, match="AddressSanitizer: heap-buffer-overflow"):
        dev.run("hf_fuse_windows_u8", (1, 1, 1), (256, 1, 1), tuple(bad))


def test_wrong_scalar_types_are_refused(dev, rng):
    frames = random_frames(rng, np.uint8, (2, 2, 2, 3))
    with pytest.raises(EmulationError, match=r"hf_decode_frames_u8 argument 1: long long takes "
                                             r"numpy.int64, got int"):
        dev.run("hf_decode_frames_u8", (1, 1, 2), (256, 1, 1),
                (frames, 12, np.int32(3), np.int32(1), np.zeros(1, np.float32),
                 np.empty((2, 2, 2, 3), np.float32)))


def test_kernel_constants_are_written_once_in_python():
    from hfrender.backends.cuda.source import constants, kernel_source
    from hfrender.optics import FRONT_TOLERANCE

    src = kernel_source()
    assert f"#define HF_FRONT_TOLERANCE ((float){FRONT_TOLERANCE!r})" in src
    assert "#define HF_MODE_CODE 2" in src and "#define HF_TIE_BIAS ((float)0.000244140625)" in src
    from hfrender.backends.cuda.source import KERNEL_FILES

    kernel_file = "".join(shader_path(name).read_text() for name in KERNEL_FILES)
    for name in constants():
        assert f"#define {name}" not in kernel_file  # not by hand beside the Python value
        assert name in kernel_file  # and the kernels use every one


def _near_surfaces(rng, n, h, w):
    """Depths 0-5% apart: whether two of them are one surface is the tolerance's call."""
    layers = np.array([1.0, 1.004, 1.009, 1.013, 1.02, 1.03, 1.05], np.float32)
    return layers[rng.integers(0, len(layers), (n, h, w))]


def _dof_parity(dev, rng):
    n, h, w = 3, 17, 26
    frames = random_frames(rng, np.float32, (n, h, w, 3))
    depth = _near_surfaces(rng, n, h, w)
    lenses = [hf.Lens(0.5, 1.4, sensor_width_mm=6.0) for _ in range(n)]
    ww = hf.WindowWeights.sliding(np.full(n, 1 / n), 1, 1)
    gpu = np.empty((1, h, w, 3), np.float32)  # the exact gather: the tolerance is its rule
    launches.fuse(dev, frames, depth, ww, lenses, True, gpu, dof_method="exact")
    return gpu, CPU.fuse(frames, depth, ww, lenses, True, dof_method="exact")


def test_depths_a_few_percent_apart_match_the_cpu(dev, rng):
    gpu, cpu = _dof_parity(dev, rng)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)


def test_a_drifted_kernel_constant_fails_the_parity(tmp_path_factory, rng):
    """Were the tolerance written by hand in the kernel and changed there alone, the parity
    cases above would see it."""
    from hfrender.backends.cuda.source import kernel_source
    from hfrender.optics import FRONT_TOLERANCE

    line = f"#define HF_FRONT_TOLERANCE ((float){FRONT_TOLERANCE!r})"
    drifted = kernel_source().replace(line, "#define HF_FRONT_TOLERANCE ((float)0.03)")
    assert drifted != kernel_source()
    dev = launches.Device(np, session_emulator(tmp_path_factory, drifted).run)
    gpu, cpu = _dof_parity(dev, rng)
    assert np.abs(gpu - cpu).max() > 1e-3


def _decode_codes(dev, frames):
    """hf_decode_frames_u8 in code units (the value as float) straight through ``dev.run``,
    with no check in between: what a kernel reads from ``frames``."""
    n = frames.shape[0]
    elems = int(np.prod(frames.shape[1:]))
    out = np.full((n, elems), -1.0, np.float32)
    dev.run("hf_decode_frames_u8", (-(-elems // 256), 1, n), (256, 1, 1),
            (frames, np.int64(elems), np.int32(frames.shape[-1]), np.int32(2),
             np.zeros(1, np.float32), out))
    return out


def test_the_emulator_passes_a_strided_view_as_cupy_does(dev, rng):
    """The raw pointer of the first element, whatever the strides: a view's kernel reads
    the wrong bytes, or past the allocation."""
    frames = random_frames(rng, np.uint8, (5, 6, 7, 4))
    rgb = frames[..., :3]
    got = _decode_codes(dev, rgb)
    assert not np.array_equal(got.reshape(rgb.shape), rgb)  # the wrong bytes ...
    np.testing.assert_array_equal(got.ravel(), frames.ravel()[:rgb.size])  # ... these
    every_other = frames[::2]
    got = _decode_codes(dev, every_other)
    np.testing.assert_array_equal(got.ravel(), frames.ravel()[:every_other.size])
    with pytest.raises(EmulationError, match="AddressSanitizer: heap-buffer-overflow"):
        _decode_codes(dev, frames[::-1])  # from the last frame on: past the end
    np.testing.assert_array_equal(_decode_codes(dev, np.ascontiguousarray(frames[::-1]))
                                  .reshape(frames.shape), frames[::-1])


def test_a_kernel_writes_through_a_strided_view_into_its_base(dev, rng):
    base = np.zeros((2, 3, 4, 4), np.float32)
    frames = random_frames(rng, np.uint8, (2, 3, 4, 3))
    elems = 3 * 4 * 3
    view = base.reshape(2, -1)[:, :elems]  # rows of 48 floats, 36 of them in the view
    dev.run("hf_decode_frames_u8", (1, 1, 2), (256, 1, 1),
            (frames, np.int64(elems), np.int32(3), np.int32(2), np.zeros(1, np.float32),
             view))
    # the kernel wrote 2 x 36 floats flat from the view's start, as on a GPU: frame 1 in
    # the view's first row's tail and its second row's head, the view's second row stale
    np.testing.assert_array_equal(base.ravel()[:72], frames.ravel())
    assert not base.ravel()[72:].any()
    assert not np.array_equal(view[1], frames[1].ravel())


@pytest.mark.parametrize("view", [lambda a: a[..., :3], lambda a: a[::2],
                                  lambda a: a[::-1]], ids=["channels", "step", "reversed"])
def test_the_launch_code_refuses_arrays_not_in_c_order(dev, rng, view):
    frames = view(random_frames(rng, np.uint8, (6, 5, 7, 4)))
    with pytest.raises(ValueError, match=r"hf_box_running_u8 argument 0 is not C-contiguous"):
        launches.motion_blur(dev, frames, hf.curve_weights("box", 2), 1, True)
    gpu = launches.motion_blur(dev, np.ascontiguousarray(frames),
                               hf.curve_weights("box", 2), 1, True)
    np.testing.assert_array_equal(gpu, CPU.motion_blur(frames, hf.curve_weights("box", 2), 1,
                                                       True))


@pytest.mark.parametrize("grid, block, said", [
    ((1, 1, 65536), (256, 1, 1), "grid z = 65536 is outside CUDA's limit 1..65535"),
    ((1, 65536, 1), (256, 1, 1), "grid y = 65536 is outside"),
    ((2**31, 1, 1), (256, 1, 1), "grid x = 2147483648 is outside"),
    ((1, 1, 0), (256, 1, 1), "grid z = 0 is outside"),
    ((1, 1, 1), (1025, 1, 1), "block x = 1025 is outside"),
    ((1, 1, 1), (64, 32, 1), "2048 threads per block is more than CUDA's 1024"),
])
def test_the_emulator_refuses_launches_beyond_cudas_limits(dev, grid, block, said):
    frames = np.zeros((1, 1, 1, 1), np.uint8)
    args = (frames, np.int64(1), np.int32(1), np.int32(2), np.zeros(1, np.float32),
            np.zeros(1, np.float32))
    with pytest.raises(EmulationError, match=re.escape(said)):
        dev.run("hf_decode_frames_u8", grid, block, args)


def test_depth_of_field_launches_in_grid_z_chunks(emu, rng, monkeypatch):
    """Every grid-z-per-frame kernel, chunked by MAX_GRID_Z (65535 frames are too many for a
    test: 2 here), gives the same result as one launch each."""
    n, h, w = 5, 9, 13
    frames = random_frames(rng, np.uint8, (n, h, w, 3))
    depth = rng.choice([0.6, 1.0, 2.5], size=(n, h, w)).astype(np.float32)
    lenses = [hf.Lens(1.0 + 0.1 * j, 1.4, sensor_width_mm=9.0) for j in range(n)]
    ww = hf.WindowWeights.sliding(hf.curve_weights("triangle", 3), 3, 1)

    def fused():
        grids = []

        def run(name, grid, block, args):
            grids.append((name, grid))
            emu.run(name, grid, block, args)

        out = np.empty((ww.count, h, w, 3), np.uint8)
        launches.fuse(launches.Device(np, run), frames, depth, ww, lenses, True, out,
                      dof_method="exact")
        return out, grids

    whole, grids = fused()
    assert sorted(g[2] for _, g in grids) == [3, 5, 5, 5]  # windows, decode, CoC, defocus
    monkeypatch.setattr(launches, "MAX_GRID_Z", 2)
    chunked, grids = fused()
    np.testing.assert_array_equal(chunked, whole)
    assert max(g[2] for _, g in grids) == 2
    assert [name for name, _ in grids].count("hf_defocus") == 3  # frames 0-1, 2-3, 4
    assert len(grids) == 3 * 3 + 2


def test_emulator_tests_skip_without_gxx(tmp_path_factory, monkeypatch):
    import cuda_emu

    monkeypatch.setattr(cuda_emu.shutil, "which", lambda name: None)
    with pytest.raises(pytest.skip.Exception, match=r"g\+\+ is needed"):
        session_emulator(tmp_path_factory)


@pytest.mark.parametrize("window, stride", [(4, 1), (5, 2)])
def test_box_running_sums_of_very_bright_light_equal_the_cpu_and_a_fresh_mean(dev, rng,
                                                                              window, stride):
    """Light of +-1e8-1e16 in some pixels of some frames leaves each pixel's running sum by
    a fresh sum, on both backends alike (was: the CPU's dim light beside a 1e16 came out a
    quarter of itself to the clip's end)."""
    frames = random_frames(rng, np.float32, (17, 9, 13, 3))
    for j in rng.choice(17, 4, replace=False):
        pixels = rng.random((9, 13, 3)) < 0.2
        signs = rng.choice([-1.0, 1.0], int(pixels.sum()))  # negative light too
        frames[j][pixels] = signs * 10.0 ** rng.integers(8, 17, int(pixels.sum()))
    frames[2] = rng.random((9, 13, 3), dtype=np.float32)  # a NaN beside a 1e16 (a float
    frames[2][0, 0, 0], frames[2][4, 4, 2] = np.nan, 1e16  # sub-frame's): it hid the 1e16
    w = hf.curve_weights("box", window)
    gpu = launches.motion_blur(dev, frames, w, stride, True)
    cpu = CPU.motion_blur(frames, w, stride, True)
    np.testing.assert_array_equal(gpu, cpu)
    starts = range(0, 17 - window + 1, stride)
    mean = np.stack([frames[s:s + window].astype(np.float64).mean(0) for s in starts])
    # (a window holding light of both signs cancels in any order of sums: left out)
    both = np.stack([(frames[s:s + window] >= 1e8).any(0) & (frames[s:s + window] <= -1e8)
                     .any(0) for s in starts])
    assert (~both).mean() > 0.9
    np.testing.assert_allclose(cpu[~both], mean.astype(np.float32)[~both], rtol=1e-6)
