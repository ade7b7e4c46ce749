#!/usr/bin/env bash
# One device run (see ../shared/device/README.md): the CUDA runtime, driver and NVRTC
# versions and a trivial kernel first (it stops there if that fails), then the GPU tests,
# fusion throughput next to a device-to-device copy, and a 1080p render with and without
# GL-CUDA interop.
#   device tool: carry [".whl", ".gl"], command: source .gl/preamble.sh && bash benchmarks/gpu_check.sh
set -uo pipefail
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
py=python3
echo "== CUDA: versions and a trivial kernel (nothing else is worth running if this fails)"
if ! $py - <<'EOF' 2>&1 | tee "$OUT/cuda.log"; then
import cupy
from cupy_backends.cuda.libs import nvrtc


def version(v):
    return f"{v // 1000}.{v % 1000 // 10}" if v else "none"


rt = cupy.cuda.runtime
print(f"CuPy {cupy.__version__}; CUDA runtime {version(rt.runtimeGetVersion())}, "
      f"driver supports CUDA {version(rt.driverGetVersion())}, "
      "NVRTC {}.{}".format(*nvrtc.getVersion()))
for i in range(rt.getDeviceCount()):
    p = rt.getDeviceProperties(i)
    name = p["name"].decode(errors="replace") if isinstance(p["name"], bytes) else p["name"]
    print(f"device {i}: {name}, compute {p['major']}.{p['minor']}, "
          f"{p['totalGlobalMem'] / 2**30:.0f} GiB")
probe = cupy.RawKernel(r"""extern "C" __global__ void hf_probe(int* x) {
    x[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x * blockDim.x + threadIdx.x; }""",
                       "hf_probe", options=("--fmad=false",))
x = cupy.zeros(512, cupy.int32)
probe((2,), (256,), (x,))
assert (x.get() == list(range(512))).all(), "the trivial kernel wrote the wrong values"
print("trivial kernel: compiled with NVRTC, ran, wrote the right values")
EOF
    echo "CUDA cannot compile or run a trivial kernel here: see $OUT/cuda.log"
    exit 1
fi
echo "== GPU tests (tests/gpu, tests/test_cuda_kernels.py, tests/test_cuda_backend.py)"
$py -m pytest -q -p no:cacheprovider tests/gpu tests/test_cuda_kernels.py tests/test_cuda_backend.py \
    2>&1 | tee "$OUT/tests.log" | tail -15
echo "== fusion kernels vs device-to-device copy"
$py benchmarks/gpu_fusion.py 2>&1 | tee "$OUT/fusion.log"
echo "== render 1920x1080, 16 samples: interop on vs off"
for mode in on off; do
    $py -m hfrender render scenes/showcase.py -o "$OUT/render_$mode.mp4" --size 1920x1080 \
        --samples 16 --duration 2 --backend cuda --interop "$mode" --stats 2>&1 \
        | tee "$OUT/render_$mode.log"
done
echo "== summary"
grep -h "GB/s\|of copy" "$OUT/fusion.log" | tail -6
grep -h "frames/s\|device-to-host" "$OUT"/render_*.log
