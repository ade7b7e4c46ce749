import logging
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import hfrender as hf
from hfrender import backends

ROOT = Path(__file__).resolve().parents[1]


class HostDLPack:
    """A foreign host array that only speaks DLPack (as torch CPU tensors do)."""

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, **kwargs):
        return self._arr.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


class FakeCudaArray:
    __cuda_array_interface__ = {"shape": (2, 2, 2, 3), "typestr": "|u1", "version": 3,
                                "data": (0, False)}


def test_dlpack_object_in_numpy_out_without_a_copy(rng):
    frames = rng.integers(0, 256, (6, 3, 4, 3), dtype=np.uint8)
    out = hf.motion_blur(HostDLPack(frames), 3, linear_light=False)
    assert isinstance(out, np.ndarray)  # the wrapper's module has no from_dlpack
    np.testing.assert_array_equal(out, hf.motion_blur(frames, 3, linear_light=False))
    assert np.shares_memory(np.from_dlpack(HostDLPack(frames)), frames)


def test_list_of_frames_is_accepted(rng):
    frames = rng.random((4, 2, 3, 1), dtype=np.float32)
    out = hf.motion_blur(list(frames), 2)
    np.testing.assert_allclose(out, hf.motion_blur(frames, 2))


def test_torch_tensor_in_torch_tensor_out(rng):
    torch = pytest.importorskip("torch", reason="torch is installed by the test command")
    frames = rng.integers(0, 256, (6, 3, 4, 3), dtype=np.uint8)
    out = hf.motion_blur(torch.from_numpy(frames), 2, stride=1)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.uint8
    np.testing.assert_array_equal(out.numpy(), hf.motion_blur(frames, 2, stride=1))


def test_gpu_arrays_without_cupy_name_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # as if not installed
    with pytest.raises(hf.BackendUnavailable, match=r"frames is a GPU array .*FakeCudaArray\) "
                                                    r"but CuPy is not installed: pip install "
                                                    r"'hfrender\[cuda\]'"):
        hf.motion_blur(FakeCudaArray(), 1)


def test_gpu_arrays_without_a_device_say_why():
    pytest.importorskip("cupy", reason="cupy-cuda12x is installed by the test command")
    try:
        hf.get_backend("cuda")
    except hf.BackendUnavailable:
        pass
    else:
        pytest.skip("a CUDA device is usable here: tests/gpu covers it")
    with pytest.raises(hf.BackendUnavailable, match=r"frames is a GPU array .*FakeCudaArray\) "
                                                    r"but CUDA cannot be used here: "):
        hf.motion_blur(FakeCudaArray(), 1)


def test_cpu_backend_refuses_gpu_frames_clearly():
    from hfrender.effects import _backend

    with pytest.raises(ValueError, match=r"backend='cpu' takes host \(NumPy\) arrays; these "
                                         r"frames are on the GPU"):
        _backend("cpu", on_device=True)


def test_explicit_cuda_backend_is_unavailable_with_a_reason(monkeypatch):
    from hfrender.backends import cuda

    monkeypatch.setattr(backends, "_cache", {})
    monkeypatch.setattr(cuda.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(hf.BackendUnavailable, match=r"CuPy is not installed; install the CUDA "
                                                    r"extra: pip install 'hfrender\[cuda\]'"):
        hf.get_backend("cuda")


def test_cuda_needs_a_driver_before_cupy_is_loaded(monkeypatch):
    import ctypes

    from hfrender.backends import cuda

    def no_library(name, *args, **kwargs):
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(backends, "_cache", {})
    monkeypatch.setattr(cuda.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(ctypes, "CDLL", no_library)
    monkeypatch.setitem(sys.modules, "cupy", None)  # were CuPy imported, the message would differ
    library = "nvcuda.dll" if os.name == "nt" else "libcuda.so.1"
    with pytest.raises(hf.BackendUnavailable, match=rf"^no CUDA driver: {library} cannot be "
                                                    rf"loaded \({library}: cannot open"):
        hf.get_backend("cuda")
    assert hf.get_backend("auto").name == "cpu"


@pytest.mark.parametrize("where", ["motion_blur", "depth_of_field", "render", "fx", "fuse"])
def test_every_entry_point_takes_the_environments_backend(monkeypatch, tmp_path, where):
    """HFRENDER_BACKEND is read wherever no backend is given (the library's calls, the
    commands' settings): a wrong one is refused by name, a right one is the one used."""
    from hfrender.config import RenderConfig
    from hfrender.engine.fx_settings import FxSettings
    from hfrender.hyperframe.frame import HyperFrame

    rng = np.random.default_rng()
    frames = rng.integers(0, 256, (4, 6, 8, 3), np.uint8)
    calls = {
        "motion_blur": lambda **kw: hf.motion_blur(frames, 2, **kw),
        "depth_of_field": lambda **kw: hf.depth_of_field(
            frames, np.full((4, 6, 8), 2.0, np.float32), focus_distance=1.0, f_stop=2.0, **kw),
        "render": lambda **kw: RenderConfig(**kw).backend_name,
        "fx": lambda **kw: hf.get_backend(FxSettings(window=2, **kw).backend).name,
        "fuse": lambda **kw: hf.fuse(  # what reexpose calls, its backend None by default
            HyperFrame(frames), hf.WindowWeights.from_dense(np.array([[0.5, 0.5, 0, 0]])),
            **kw),
    }
    monkeypatch.setenv("HFRENDER_BACKEND", "gpu")
    with pytest.raises(hf.InputError, match=r"^HFRENDER_BACKEND='gpu' is not a backend; "
                                            r"choose one of auto, cpu, cuda$"):
        calls[where]()
    monkeypatch.setenv("HFRENDER_BACKEND", "cpu")
    got = calls[where]()
    if where in ("render", "fx"):
        assert got == "cpu"
    assert calls[where](backend="cpu") is not None  # a backend given: the environment unread
    monkeypatch.setenv("HFRENDER_BACKEND", "gpu")
    assert calls[where](backend="cpu") is not None


def test_a_bad_environment_backend_stops_only_what_fuses_and_a_flag_wins(monkeypatch,
                                                                          tmp_path, capsys):
    """``hfrender info`` still reports, a valid hfrender.toml is not blamed, and
    ``--backend cpu`` is used whatever the variable says."""
    from hfrender.cli import main

    monkeypatch.setenv("HFRENDER_BACKEND", "bogus")
    monkeypatch.chdir(tmp_path)
    assert main(["info"]) == 0
    assert "backend cpu:" in capsys.readouterr().out
    (tmp_path / "hfrender.toml").write_text("[render]\nfps = 24\n")
    bar = str(Path(__file__).parent / "data" / "bar.frag")
    args = ["render", bar, "-o", "a.mp4", "--size", "32x8", "--duration", "0.1", "--quiet"]
    assert main(args + ["--backend", "cpu"]) == 0
    assert main(args) == 2
    assert capsys.readouterr().err == ("hfrender: error: HFRENDER_BACKEND='bogus' is not a "
                                       "backend; choose one of auto, cpu, cuda\n")


def test_backend_chosen_by_flag_then_environment(monkeypatch, caplog):
    monkeypatch.setenv("HFRENDER_BACKEND", "cpu")
    assert backends.resolve_name(None) == "cpu"
    assert backends.resolve_name("auto") == "auto"
    monkeypatch.setenv("HFRENDER_BACKEND", "tpu")
    with pytest.raises(ValueError, match=r"HFRENDER_BACKEND='tpu' is not a backend"):
        hf.get_backend()
    monkeypatch.delenv("HFRENDER_BACKEND")
    monkeypatch.setattr(backends, "_cache", {})
    with caplog.at_level(logging.INFO, logger="hfrender.backends"):
        assert hf.get_backend().name == "cpu"
    assert "backend auto: using cpu (cuda unavailable:" in caplog.text


def test_import_needs_no_optional_part():
    code = ("import sys, hfrender; heavy = {'moderngl', 'glfw', 'cupy', 'ray', 'torch', "
            "'imageio_ffmpeg', 'rich'} & set(sys.modules); print(sorted(heavy))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "[]"


def test_a_probe_for_a_name_hfrender_has_not_loads_no_hint_tables():
    """hasattr(hf, "x") (a tool probing for a feature) makes no hint: the tables load the
    scene package and NumPy (0.2 s); a message read makes it, as Python's own reads."""
    code = ("import sys, hfrender as hf; a = hasattr(hf, 'Box'); b = 'numpy' in sys.modules\n"
            "try:\n    hf.Box\nexcept AttributeError as e:\n    print(a, b, repr(str(e)))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == ("False False \"module 'hfrender' has no attribute 'Box'; "
                                  "did you mean hf.Cube?\"")
    res = subprocess.run([sys.executable, "-c", "import hfrender as hf; hf.VGroup"],
                         capture_output=True, text=True)
    assert res.stderr.strip().splitlines()[-1] == ("AttributeError: module 'hfrender' has no "
                                                   "attribute 'VGroup'; did you mean hf.Group?")


def test_public_names_load_on_first_use_and_the_cli_keeps_blas_single_threaded():
    import hfrender as hf

    assert set(hf._HOME) == set(hf.__all__) - {"__version__"}
    assert {"motion_blur", "HyperFrame", "Scene"} <= set(dir(hf))
    assert hf.motion_blur.__module__ == "hfrender.effects"
    with pytest.raises(AttributeError, match="module 'hfrender' has no attribute 'blur'"):
        hf.blur  # noqa: B018
    assert hf.effects.motion_blur is hf.motion_blur and hf.scene.Scene is hf.Scene
    code = ("import os, sys; os.environ.pop('OPENBLAS_NUM_THREADS', None); import hfrender; "
            "a = 'numpy' in sys.modules; import hfrender.cli; "
            "print(a, os.environ.get('OPENBLAS_NUM_THREADS'))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.split() == ["False", "1"]  # NumPy loads after the command set it


def test_shaders_found_in_checkout_and_shipped_in_the_wheel(tmp_path):
    from hfrender.resources import shader_dir, shader_path

    assert shader_dir() == ROOT / "shaders"
    assert shader_path("README.md").read_text().startswith("# shaders")
    with pytest.raises(FileNotFoundError, match="shader 'cuda/none.cu' not found"):
        shader_path("cuda/none.cu")
    subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d",
                    str(tmp_path)], cwd=ROOT, check=True, capture_output=True)
    wheel = next(tmp_path.glob("hfrender-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "hfrender/_shaders/README.md" in names and "hfrender/py.typed" in names


def test_list_of_frames_with_different_shapes_names_the_frame(rng):
    frames = [np.zeros((2, 2, 3), np.uint8)] * 2 + [np.zeros((2, 3, 3), np.uint8)]
    with pytest.raises(ValueError, match=r"frames: all frames of a list must share shape and "
                                         r"dtype; frame 0 is uint8 \(2, 2, 3\), frame 2 is "
                                         r"uint8 \(2, 3, 3\)"):
        hf.motion_blur(frames, 1)


def test_tensor_that_requires_grad_gets_a_clear_error():
    torch = pytest.importorskip("torch", reason="torch is installed by the test command")
    t = torch.zeros((2, 2, 2, 3), requires_grad=True)
    with pytest.raises(TypeError, match=r"frames \(torch.Tensor\) cannot be read through "
                                        r"DLPack: .*detach\(\)\)?$"):
        hf.motion_blur(t, 1)
    with pytest.raises(TypeError, match=r"frames \(torch.Tensor\) cannot be read through "
                                        r"DLPack: .* \(a dtype NumPy has not, such as bfloat16: "
                                        r"convert it first, e.g. .float\(\)\)$") as info:
        hf.motion_blur(torch.zeros((2, 2, 2, 3)).bfloat16(), 1)
    assert "detach" not in str(info.value)  # not the grad hint for a dtype
    with pytest.raises(TypeError, match=r"pass frames.astype\(numpy.float32\), or a torch "
                                        r"tensor's frames.float\(\)\)$"):
        hf.motion_blur(torch.zeros((2, 2, 2, 3), dtype=torch.float64), 1)


def test_jax_arrays_go_back_through_jax_numpy(monkeypatch):
    import types

    from hfrender import interop

    fake_jnp = types.SimpleNamespace(from_dlpack=lambda a: ("jax", a.shape))
    monkeypatch.setitem(sys.modules, "jax.numpy", fake_jnp)
    monkeypatch.setitem(sys.modules, "jax", types.SimpleNamespace(numpy=fake_jnp))
    jax_like = type("ArrayImpl", (HostDLPack,), {"__module__": "jaxlib._jax"})
    out = hf.motion_blur(jax_like(np.zeros((4, 2, 2, 3), np.uint8)), 2)
    assert out == ("jax", (2, 2, 2, 3))
    assert interop._DLPACK_HOME["jaxlib"] == "jax.numpy"


def test_the_colour_helpers_give_back_the_inputs_array_family():
    torch = pytest.importorskip("torch", reason="torch is installed by the test command")
    codes = torch.tensor(np.random.default_rng().integers(0, 256, (3, 4, 3), dtype=np.uint8))
    lin = hf.to_linear(codes)
    assert isinstance(lin, torch.Tensor) and lin.dtype == torch.float32
    back = hf.from_linear(lin)
    assert isinstance(back, torch.Tensor) and torch.equal(back, codes)
    assert isinstance(hf.to_linear(codes.numpy()), np.ndarray)
    with pytest.raises(ValueError, match=r"^frames has shape \(256,\); expected pixels with 1, "
                                         r"3 or 4 channels last \(a 1-D ramp of values: "
                                         r"\[\.\.\., None\]\)$"):
        hf.to_linear(np.arange(256, dtype=np.uint8))
    ramp = hf.to_linear(np.arange(256, dtype=np.uint8)[..., None])
    assert ramp.shape == (256, 1) and ramp[0, 0] == 0 and ramp[-1, 0] == 1


def test_a_missing_names_error_pickles_as_the_attribute_error_it_shows_as():
    """A worker's error goes back pickled (Ray, multiprocessing); the hint's class is named
    as Python's AttributeError, so pickle could not find it: was PicklingError "it's not
    the same object as builtins.AttributeError"."""
    import pickle

    with pytest.raises(AttributeError) as info:
        hf.Box  # noqa: B018
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is AttributeError and back.name == "Box"
    assert str(back) == "module 'hfrender' has no attribute 'Box'; did you mean hf.Cube?"


def test_a_torch_dtype_names_the_numpy_dtype_it_is():
    """A torch user gives torch's dtypes: ``from_linear(x, torch.uint16)`` was refused as
    "dtype=torch.uint16 must be uint8 or uint16" (NumPy cannot read torch's dtype objects),
    a pool's ``torch.float32`` as "... must be uint8, uint16 or float32". Each is now the
    NumPy dtype of its name; one of no such name is still one line naming it."""
    torch = pytest.importorskip("torch", reason="torch is installed by the test command")
    lin = torch.tensor([[[0.0, 0.2140, 1.0]]])  # linear light; sRGB 0, 0.49996, 1
    out = hf.from_linear(lin, torch.uint16)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.uint16
    assert out.numpy().tolist() == [[[0, 32765, 65535]]]  # 1.055 * 0.214 ** (1 / 2.4) - 0.055
    assert hf.from_linear(lin, torch.uint8).numpy().tolist() == [[[0, 127, 255]]]
    assert hf.HyperFramePool((4, 4, 3), torch.float32, capacity=2).dtype == np.float32
    with pytest.raises(TypeError, match=r"^dtype=torch\.float16 must be uint8 or uint16$"):
        hf.from_linear(lin, torch.float16)
    with pytest.raises(TypeError, match=r"^dtype=torch\.bfloat16 must be uint8, uint16 or "
                                        r"float32 \(what the fusion takes\)$"):
        hf.HyperFramePool((4, 4, 3), torch.bfloat16)
    with pytest.raises(TypeError) as info:  # a tensor for the dtype: its short line (was
        hf.from_linear(lin, torch.zeros(200, 3))  # the tensor printed, 200 lines)
    assert "\n" not in str(info.value) and str(info.value).endswith(" must be uint8 or uint16")
