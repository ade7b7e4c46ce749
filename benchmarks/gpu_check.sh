#!/usr/bin/env bash
# One device run (see ../shared/device/README.md): the CUDA runtime, driver and NVRTC
# versions and a trivial kernel first (it stops there if that fails), then the GPU tests,
# the GPU figures the open issues wait for (15: the fast depth of field on CUDA, `fx
# --depth` on 720p against the decoder; 14: reconstruction's wall time and time to
# quality with the CUDA kernel), fusion throughput next to a device-to-device copy, and a
# 1080p render with and without GL-CUDA interop, and with float sub-frames (--hdr on).
# Every section has a time limit inside one deadline (GPU_CHECK_SECONDS, 540 by default:
# the device tool allows 600 a command), so a slow part costs its own figures, not the
# run's; a short table closes it.
#   here, once per machine: bash benchmarks/gpu_prepare.sh   (wheels and GL loaders)
#   device tool: carry [".whl", ".gl", ".ffmpeg"], timeout_s 600,
#                command: source .gl/preamble.sh && bash benchmarks/gpu_check.sh
# GPU_CHECK_SKIP="quality fusion" leaves those sections out (the logs' names, no .log): a
# rerun spends its minutes on what the last one did not measure. At most 8 files come back
# from a run: the 8 logs (cuda, tests, interop, dof, dof_profile, quality, fusion, render).
# A dry run here, on the CPU, checks the script itself before a device run spends its
# minutes: GPU_CHECK_DRY=1 PY=.venv/bin/python GPU_CHECK_SECONDS=1800 bash benchmarks/gpu_check.sh
# (no CUDA probe; every benchmark on --backend cpu; the GPU-only parts fail or skip).
set -uo pipefail
OUT=${OUT:-/tmp/gpu_check}
# the videos beside, not under $OUT: the device tool brings back at most 8 files (the 8 logs)
VIDEOS=${VIDEOS:-$(mktemp -d)}
trap 'rm -rf "$VIDEOS"' EXIT
mkdir -p "$OUT" "$VIDEOS"
rm -f "$OUT"/*.log  # sections add to their logs: a run's own, not the last run's too
export PYTHONUNBUFFERED=1
py=${PY:-python3}
backend=cuda
[[ -n ${GPU_CHECK_DRY:-} ]] && backend=cpu
deadline=$((SECONDS + ${GPU_CHECK_SECONDS:-540}))

# section SECONDS LOG COMMAND...: COMMAND under the least of SECONDS and what the deadline
# leaves (10 s kept for the summary), its output to the terminal and added to $OUT/LOG
section() {
    local budget=$1 log=$2
    shift 2
    if [[ " ${GPU_CHECK_SKIP:-} " == *" ${log%.log} "* ]]; then
        echo "(skipped: GPU_CHECK_SKIP)" | tee -a "$OUT/$log"
        return 0
    fi
    local left=$((deadline - SECONDS - 10))
    ((left < budget)) && budget=$left
    if ((left < 5)); then
        echo "(skipped: the deadline is reached)" | tee -a "$OUT/$log"
        return 0
    fi
    timeout --kill-after=5 "$budget" "$@" 2>&1 | tee -a "$OUT/$log"
    local rc=${PIPESTATUS[0]}
    if ((rc == 124 || rc == 137)); then
        echo "(stopped after ${budget} s: the section's limit)" | tee -a "$OUT/$log"
    fi
    return 0
}
# imageio-ffmpeg 0.8 as gpu_prepare.sh packs it (.ffmpeg/: the package, its ffmpeg in xz):
# the shared preparation's 0.6.0 brings an ffmpeg 7.0.2 that crashes at every render's join
if [[ -f .ffmpeg/ffmpeg.xz && -z ${IMAGEIO_FFMPEG_EXE:-} ]]; then
    export IMAGEIO_FFMPEG_EXE=/tmp/hf-ffmpeg/ffmpeg PYTHONPATH="$PWD/.ffmpeg:${PYTHONPATH:-}"
    mkdir -p /tmp/hf-ffmpeg
    $py -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
        .ffmpeg/ffmpeg.xz "$IMAGEIO_FFMPEG_EXE" && chmod +x "$IMAGEIO_FFMPEG_EXE"
    "$IMAGEIO_FFMPEG_EXE" -version | head -1
fi
echo "== CUDA: versions and a trivial kernel (nothing else is worth running if this fails)"
if [[ -n ${GPU_CHECK_DRY:-} ]]; then
    echo "(dry run: no CUDA probe, the benchmarks on --backend $backend)"
elif ! $py - <<'EOF' 2>&1 | tee "$OUT/cuda.log"; then
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
section 120 tests.log $py -m pytest -q -p no:cacheprovider tests/gpu tests/test_cuda_kernels.py \
    tests/test_cuda_backend.py
echo "== GL buffers CUDA maps: the sizes it gives back (an --hdr slot of over 2 GiB overflowed)"
section 30 interop.log $py benchmarks/gpu_interop_probe.py
echo "== issue 15: the fast depth of field on CUDA, fx --depth on 720p against the decoder"
section 150 dof.log $py benchmarks/dof.py --backend "$backend" --runs 5 --exact-1080 64
echo "== issue 15: where the fast depth of field's time goes on CUDA (host against device)"
for size in 640x360 1920x1080; do
    section 40 dof_profile.log $py benchmarks/dof_cuda_profile.py --backend "$backend" \
        --size $size --calls 10
done
echo "== issue 15: frames that share a plan of the layers (a 720p pan of 8 frames)"
section 60 dof_profile.log $py benchmarks/dof_cuda_profile.py --backend "$backend" \
    --size 1280x720 --calls 5 --frames 8
echo "== issue 14: reconstruction with the CUDA kernel (msaa auto: 4 on a GPU)"
section 180 quality.log $py benchmarks/quality.py --runs 3 --skip-adaptive --backend "$backend"
echo "== fusion kernels vs device-to-device copy"
section 45 fusion.log $py benchmarks/gpu_fusion.py
echo "== render 1920x1080, 16 samples: interop on vs off"
for mode in on off; do
    section 30 render.log $py -m hfrender render scenes/showcase.py \
        -o "$VIDEOS/render_$mode.mp4" --size 1920x1080 --samples 16 --duration 2 \
        --backend "$backend" --interop "$mode" --stats
done
echo "== the same with float sub-frames (--hdr on: RGBA32F slots in the GL buffers)"
section 30 render.log $py -m hfrender render scenes/showcase.py \
    -o "$VIDEOS/render_hdr.mp4" --size 1920x1080 --samples 16 --duration 2 \
    --backend "$backend" --interop on --hdr on --stats
echo "== summary ($SECONDS s)"
grep -h "passed\|failed\|error" "$OUT/tests.log" | tail -3
grep -h "px / 4 px\|1920x1080 / 640x360\|depth / lens\|fx --depth --backend\|fx --depth / decode" "$OUT/dof.log"
grep -h "^plain 8 \|^plain 32 \|^recon 8 \|time to quality\|moving frames" "$OUT/quality.log"
grep -h "GB/s\|of copy" "$OUT/fusion.log" | tail -6
grep -h "frames/s\|device-to-host\|error" "$OUT/render.log"
grep -h "GL buffer of" "$OUT/interop.log"
grep -h "host .* ms, device\|a plan a frame / shared" "$OUT/dof_profile.log"
grep -h "stopped after\|skipped: the deadline" "$OUT"/*.log
exit 0
