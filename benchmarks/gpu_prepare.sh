#!/usr/bin/env bash
# Once per machine, here (not on the GPU machine), before a device run of
# benchmarks/gpu_check.sh: the shared preparation (../shared/device/prepare.sh: the
# Python 3.12 wheels the GPU machine lacks into .whl/, the EGL loaders and preamble.sh
# into .gl/), then what this project's GPU run needs beyond them: flip-evaluator, for
# benchmarks/quality.py's FLIP figures. Prints what a run carries (at most 64 MiB).
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
du -shc .whl .gl
