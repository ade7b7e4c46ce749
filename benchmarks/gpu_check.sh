#!/usr/bin/env bash
# One device run (see ../shared/device/README.md): the GPU tests, fusion throughput next to
# a device-to-device copy, and a 1080p render with and without GL-CUDA interop.
#   device tool: carry [".whl", ".gl"], command: source .gl/preamble.sh && bash benchmarks/gpu_check.sh
set -uo pipefail
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
py=python3
echo "== GPU tests (tests/gpu, tests/test_cuda_kernels.py)"
$py -m pytest -q -p no:cacheprovider tests/gpu tests/test_cuda_kernels.py 2>&1 | tee "$OUT/tests.log" | tail -15
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
