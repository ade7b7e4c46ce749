#!/usr/bin/env bash
# Once per machine, here (not on the GPU machine), before a device run of
# benchmarks/gpu_check.sh: the shared preparation (../shared/device/prepare.sh: the
# Python 3.12 wheels the GPU machine lacks into .whl/, the EGL loaders and preamble.sh
# into .gl/), then what this project's GPU run needs beyond them: flip-evaluator, for
# benchmarks/quality.py's FLIP figures, and imageio-ffmpeg 0.8 in .ffmpeg/ (below). Prints what
# a run carries (at most 64 MiB): carry [".whl", ".gl", ".ffmpeg"].
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
shared=${HF_SHARED:-$root/../shared}
if [[ ! -x $shared/device/prepare.sh && ! -f $shared/device/prepare.sh ]]; then
    echo "gpu_prepare.sh: no $shared/device/prepare.sh (set HF_SHARED to the shared folder)" >&2
    exit 1
fi
bash "$shared/device/prepare.sh"
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d .whl "flip-evaluator>=1.2" 2>&1 \
    | grep -v "is ignored" || true
ls .whl/flip_evaluator-*.whl >/dev/null
# imageio-ffmpeg: the shared preparation's 0.6.0 (29 MB) brings ffmpeg 7.0.2, which crashes
# copying MPEG-TS (every render's join) on the H200 machine's processor; 0.8's wheel (68
# MB) is over what a run carries, so its package goes in .ffmpeg/ with its ffmpeg 9
# compressed (about 50 MB), and gpu_check.sh unpacks it there
rm -f .whl/imageio_ffmpeg-*.whl
exclude=$(git rev-parse --git-path info/exclude)  # (a worktree's .git is a file)
grep -qxF /.ffmpeg/ "$exclude" || echo /.ffmpeg/ >>"$exclude"
if [[ ! -f .ffmpeg/ffmpeg.xz ]]; then
    tmp=$(mktemp -d)
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_28_x86_64 -d "$tmp" "imageio-ffmpeg>=0.8" \
        2>&1 | grep -v "is ignored" || true
    ls "$tmp"/imageio_ffmpeg-*.whl >/dev/null  # (stops here, .ffmpeg/ as it was, if none)
    rm -rf .ffmpeg && mkdir -p .ffmpeg
    (cd "$tmp" && python3 -m zipfile -e imageio_ffmpeg-*.whl unpacked)
    mv "$tmp"/unpacked/imageio_ffmpeg .ffmpeg/
    xz -T0 -6 -c .ffmpeg/imageio_ffmpeg/binaries/ffmpeg-* >.ffmpeg/ffmpeg.xz.part
    rm -f .ffmpeg/imageio_ffmpeg/binaries/ffmpeg-*
    mv .ffmpeg/ffmpeg.xz.part .ffmpeg/ffmpeg.xz
    rm -rf "$tmp"
fi
du -shc .whl .gl .ffmpeg
