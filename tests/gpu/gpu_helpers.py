"""What the GPU parity tests share: CuPy and the CUDA backend (the importing test module
skipped cleanly without them), the NumPy backend, frames of a dtype, and the comparison
within 1 code value (1e-5 relative for float32)."""

import numpy as np
import pytest

from hfrender.backends import load
from hfrender.backends.cpu import CPUBackend
from hfrender.errors import BackendUnavailable

cupy = pytest.importorskip("cupy", reason="CuPy is not installed (pip install 'hfrender[cuda]')")
try:
    CUDA = load("cuda")
except BackendUnavailable as exc:
    pytest.skip(f"no usable CUDA device: {exc}", allow_module_level=True)
CPU = CPUBackend()


@pytest.fixture(name="layers_on_gpu")
def layers_on_gpu_fixture():
    """The fast method's layers on the GPU whatever the frame's taps (small frames gather
    exactly there: Device.exact_taps), to compare them with the CPU's."""
    dev = CUDA.device()
    kept, dev.exact_taps = dev.exact_taps, 0
    yield
    dev.exact_taps = kept


def frames_for(rng, dtype, shape):
    if dtype == np.float32:
        return rng.random(shape, dtype=np.float32) * 2
    return rng.integers(0, np.iinfo(dtype).max + 1, shape).astype(dtype)


def close(gpu, cpu):
    gpu = cupy.asnumpy(gpu)
    assert gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
    if cpu.dtype == np.float32:
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)
    else:
        assert np.abs(gpu.astype(np.int64) - cpu).max() <= 1
