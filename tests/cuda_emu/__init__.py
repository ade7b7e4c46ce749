"""Run the CUDA kernels of shaders/cuda on the CPU, under AddressSanitizer.

The kernel source is compiled as C++17 with ``cuda_emu.h`` (qualifiers defined away,
thread indices as globals) and ``runner.cpp`` (a loop over every block and thread). Each
buffer is malloc'ed at its exact size, so an out-of-bounds read or write aborts the run
with ASan's report, which the caller turns into a test failure.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


class EmulationError(RuntimeError):
    pass


class Emulator:
    """``run(kernel, grid, block, args)`` like ``RawKernel(grid, block, args)``, on the CPU."""

    def __init__(self, workdir: Path, text: str | None = None) -> None:
        """``text``: the kernel source (default: what the CUDA backend compiles)."""
        if shutil.which("g++") is None:
            raise EmulationError("g++ is needed to emulate the CUDA kernels")
        from hfrender.backends.cuda.source import kernel_source

        self.workdir = Path(workdir)
        text = kernel_source() if text is None else text
        self.signatures = parse_signatures(text)
        names = list(self.signatures)
        digest = hashlib.sha1((text + (HERE / "runner.cpp").read_text()
                               + (HERE / "cuda_emu.h").read_text()).encode()).hexdigest()[:12]
        self.binary = self.workdir / f"runner-{digest}"
        self.kernels = set(names)
        self.calls = 0
        if not self.binary.exists():
            source = self.workdir / f"kernels-{digest}.cu"
            source.write_text(text)
            listing = self.workdir / f"kernels-{digest}.inc"
            listing.write_text("".join(f"HF_KERNEL({n})\n" for n in names))
            cmd = ["g++", "-std=c++17", "-O1", "-g", "-fsanitize=address,undefined",
                   "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-ffp-contract=off",
                   f'-DKERNEL_SOURCE="{source}"', f'-DKERNEL_LIST="{listing}"', f"-I{HERE}",
                   str(HERE / "runner.cpp"), "-o", str(self.binary)]
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0:
                raise EmulationError(f"compiling the kernels as C++ failed:\n{res.stderr}")

    def run(self, kernel: str, grid: tuple, block: tuple, args: tuple | list) -> None:
        if kernel not in self.kernels:
            raise EmulationError(f"no kernel {kernel} in the source")
        self.calls += 1
        check_types(kernel, self.signatures[kernel], args)
        lines = [f"kernel {kernel}", "grid " + " ".join(map(str, _dim3(grid))),
                 "block " + " ".join(map(str, _dim3(block)))]
        arrays = []
        for i, a in enumerate(args):
            if a is None:
                lines.append("null")
            elif isinstance(a, np.ndarray):
                if not a.flags.c_contiguous:
                    raise EmulationError(f"argument {i} is not C-contiguous")
                path = self.workdir / f"buf{self.calls}-{i}.bin"
                path.write_bytes(a.tobytes())
                lines.append(f"buf {path} {a.nbytes}")
                arrays.append((a, path))
            elif isinstance(a, (bool, np.bool_)):
                lines.append(f"i64 {int(a)}")
            elif isinstance(a, (int, np.integer)):
                lines.append(f"i64 {int(a)}")
            elif isinstance(a, (float, np.floating)):
                lines.append(f"f64 {float(a)!r}")
            else:
                raise EmulationError(f"argument {i} of type {type(a).__name__} is not supported")
        res = subprocess.run([str(self.binary)], input="\n".join(lines) + "\n",
                             capture_output=True, text=True)
        if res.returncode != 0:
            raise EmulationError(f"{kernel} failed (exit {res.returncode}):\n{res.stderr[-3000:]}")
        for a, path in arrays:
            a.reshape(-1).view(np.uint8)[:] = np.frombuffer(path.read_bytes(), np.uint8)
            path.unlink()


def _dim3(d: tuple | int) -> tuple[int, int, int]:
    d = (d,) if isinstance(d, int) else tuple(d)
    return tuple(int(v) for v in d) + (1,) * (3 - len(d))


C_SCALARS = {"int": np.int32, "long long": np.int64, "float": np.float32, "double": np.float64}
C_POINTEES = {"unsigned char": np.uint8, "unsigned short": np.uint16, "float": np.float32,
              "double": np.float64, "int": np.int32, "long long": np.int64}


def parse_signatures(text: str) -> dict[str, list[tuple[str, bool]]]:
    """kernel name -> [(C base type, is_pointer), ...] from the extern "C" kernels."""
    out = {}
    for name, params in re.findall(r'extern "C" __global__ void (\w+)\s*\(([^)]*)\)', text):
        sig = []
        for p in params.split(","):
            p = re.sub(r"\b(const|__restrict__)\b", " ", p).strip()
            pointer = "*" in p
            base = " ".join(p.replace("*", " ").split()[:-1])
            sig.append((base, pointer))
        out[name] = sig
    return out


def check_types(kernel: str, sig: list, args) -> None:
    """What CuPy would pass must be what the kernel declares: a mismatch is a GPU bug."""
    if len(sig) != len(args):
        raise EmulationError(f"{kernel}: {len(args)} arguments for {len(sig)} parameters")
    for i, ((base, pointer), a) in enumerate(zip(sig, args, strict=True)):
        if pointer:
            want = C_POINTEES[base]
            if a is not None and (not isinstance(a, np.ndarray) or a.dtype != want):
                got = a.dtype if isinstance(a, np.ndarray) else type(a).__name__
                raise EmulationError(f"{kernel} argument {i}: {base}* takes a "
                                     f"{np.dtype(want)} array, got {got}")
        elif type(a) is not C_SCALARS[base]:
            raise EmulationError(f"{kernel} argument {i}: {base} takes numpy."
                                 f"{C_SCALARS[base].__name__}, got {type(a).__name__}")
