#!/usr/bin/env bash
# hfrender's developer entry point, the two commands of the README and a few more:
#   bash dev.sh demo    render the demo (demo.mp4, and demo.png: without | with effects)
#   bash dev.sh test    run the whole test suite          (extra args go to pytest)
#   bash dev.sh bench   run the benchmarks in benchmarks/
#   bash dev.sh lint    ruff
# Each creates or reuses the virtualenv in .venv and installs what it needs, system
# packages included (apt, as root or through sudo) on a fresh Debian/Ubuntu machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
VENV=.venv
PY="$VENV/bin/python"

say() { printf '[dev.sh] %s\n' "$*" >&2; }

apt_install() {  # apt_install PKG...: install the Debian packages that are missing
    local missing=()
    for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    if ! command -v apt-get >/dev/null; then
        say "missing system packages ${missing[*]} and no apt-get: install them by hand"; return 1
    fi
    say "installing system packages: ${missing[*]}"
    $sudo apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

system_python() {
    local py
    py=$(command -v python3 || true)
    if [ -z "$py" ]; then apt_install python3 && py=$(command -v python3); fi
    if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
        say "hfrender needs Python >= 3.10; $py is $("$py" -V 2>&1)"; exit 1
    fi
    echo "$py"
}

ensure_venv() {  # ensure_venv EXTRAS
    local extras=$1 sys_py stamp sum
    if [ ! -x "$PY" ]; then
        sys_py=$(system_python)
        if ! "$sys_py" -c 'import ensurepip, venv' 2>/dev/null; then
            local v
            v=$("$sys_py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
            apt_install "python$v-venv" || apt_install python3-venv
        fi
        say "creating $VENV"
        "$sys_py" -m venv "$VENV"
    fi
    stamp="$VENV/.hfrender-installed"
    sum=$(cksum <pyproject.toml)
    if ! installed "$stamp" "$extras" "$sum"; then
        say "installing hfrender[$extras] into $VENV"
        "$PY" -m pip install -q --upgrade pip 2>&1 | grep -v "is ignored" >&2 || true
        "$PY" -m pip install -q -e ".[$extras]" 2>&1 | grep -v "is ignored" >&2 || true
        "$PY" -c "import hfrender" || { say "installing hfrender failed"; exit 1; }
        echo "$extras $sum" >"$stamp"
    fi
}

installed() {  # installed STAMP EXTRAS SUM: this pyproject.toml, with these extras or more
    local have_extras have_sum e
    [ -f "$1" ] || return 1
    read -r have_extras have_sum <"$1"
    [ "$have_sum" = "$3" ] || return 1
    for e in ${2//,/ }; do
        case ",$have_extras," in *",$e,"*) ;; *) return 1 ;; esac
    done
}

ensure_torch_cpu() {  # best effort: the DLPack example's test uses torch when present
    "$PY" -c "import torch" 2>/dev/null && return 0
    local d whl tag
    tag=$("$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
    for d in ${PIP_FIND_LINKS:-} /opt/wheels; do
        whl=$(ls "$d"/torch-*+cpu-"$tag"-*.whl 2>/dev/null | head -n 1 || true)
        if [ -n "$whl" ]; then
            say "installing torch (CPU) from $whl"
            "$PY" -m pip install -q "$whl" 2>&1 | grep -v "is ignored" >&2 || true
            return 0
        fi
    done
    say "installing torch (CPU build) from download.pytorch.org"
    "$PY" -m pip install -q --timeout 30 --index-url https://download.pytorch.org/whl/cpu torch \
        >/dev/null 2>&1 || say "torch unavailable: the torch example's test will be skipped"
}

GL_PACKAGES=(libegl1 libgl1 libegl-mesa0 libgl1-mesa-dri)  # headless OpenGL (EGL, llvmpipe)

cmd=${1:-help}
[ $# -gt 0 ] && shift
case "$cmd" in
    demo)
        apt_install "${GL_PACKAGES[@]}"
        ensure_venv dev
        "$VENV/bin/hfrender" render scenes/showcase.py -o demo.mp4 "$@"
        "$VENV/bin/hfrender" still scenes/showcase.py -t 0 --compare -o demo.png
        ;;
    test)
        # fonts-dejavu-core: the text tests' font file (hf.Text with font=, glyph coverage)
        apt_install "${GL_PACKAGES[@]}" xvfb xauth fonts-dejavu-core
        ensure_venv dev,cuda-compile,ray
        ensure_torch_cpu
        "$PY" -m pytest -q "$@"
        ;;
    bench)
        apt_install "${GL_PACKAGES[@]}"
        ensure_venv dev
        for b in benchmarks/*.py; do say "$b"; "$PY" "$b" "$@"; done
        ;;
    lint)
        ensure_venv dev
        "$PY" -m ruff check hfrender tests examples benchmarks scenes
        ;;
    *)
        sed -n '2,8p' "$0"; [ "$cmd" = help ] || exit 2
        ;;
esac
