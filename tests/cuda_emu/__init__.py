"""Run the CUDA kernels of shaders/cuda on the CPU, under AddressSanitizer.

The kernel source is compiled as C++17 with ``cuda_emu.h`` (qualifiers defined away,
thread indices as globals) and ``runner.cpp`` (a loop over every block and thread). Each
buffer is malloc'ed at its exact size, so an out-of-bounds read or write aborts the run
with ASan's report, which the caller turns into a test failure.

What a kernel gets for an array is what CuPy passes: a pointer. A C-contiguous array is
passed as its own bytes (malloc'ed at exactly its size: stricter than a GPU, which would not
notice a read past a slice into the rest of its allocation). A strided view is passed as
CuPy passes it, the raw pointer of its first element, whatever its strides: the bytes of
its base allocation from that element to the end of the base (malloc'ed at exactly that
size), written back to the base after the run. So ``a[..., :3]`` or ``a[::2]`` reads the
wrong bytes, and ``a[::-1]`` reads past the end (an ASan error), as on a GPU. Launches
beyond CUDA's grid and block limits are refused, as the driver refuses them. Threads run one
after another in index order; ``Emulator.shuffle = SEED`` runs them in a seeded random order
(a GPU promises none), to show a kernel's result does not hang on it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
# CUDA's launch limits (every compute capability hfrender targets)
MAX_GRID = (2**31 - 1, 65535, 65535)
MAX_BLOCK = (1024, 1024, 64)
MAX_THREADS_PER_BLOCK = 1024


class EmulationError(RuntimeError):
    pass


def session_emulator(tmp_path_factory, text: str | None = None) -> Emulator:
    """An emulator built in the session's base folder, so every test module reuses one
    build of the same source; skips the test (with the reason) where g++ cannot build it
    with AddressSanitizer (no g++, or no libasan/libubsan)."""
    if shutil.which("g++") is None:
        import pytest

        pytest.skip("g++ is needed to emulate the CUDA kernels on the CPU (apt install g++)")
    workdir = tmp_path_factory.getbasetemp() / "cuda-emu"
    workdir.mkdir(exist_ok=True)
    try:
        return Emulator(workdir, text)
    except EmulationError:
        if not _can_sanitize(workdir):
            import pytest

            pytest.skip("g++ here cannot build with -fsanitize=address,undefined "
                        "(install libasan and libubsan, e.g. apt install g++)")
        raise


def _can_sanitize(workdir: Path) -> bool:
    probe = workdir / "probe.cpp"
    probe.write_text("int main() { return 0; }\n")
    res = subprocess.run(["g++", *SANITIZE, str(probe), "-o", str(workdir / "probe")],
                         capture_output=True, text=True)
    return res.returncode == 0


def check_launch(kernel: str, grid: tuple, block: tuple) -> None:
    """Refuse what CUDA refuses: grid x < 2^31, y and z <= 65535; block x, y <= 1024,
    z <= 64, x*y*z <= 1024; no dimension 0."""
    for what, dims, limits in (("grid", grid, MAX_GRID), ("block", block, MAX_BLOCK)):
        for axis, v, top in zip("xyz", dims, limits, strict=True):
            if not 1 <= v <= top:
                raise EmulationError(f"{kernel}: {what} {axis} = {v} is outside CUDA's limit "
                                     f"1..{top} (the launch would fail on a GPU: "
                                     "cudaErrorInvalidConfiguration)")
    threads = block[0] * block[1] * block[2]
    if threads > MAX_THREADS_PER_BLOCK:
        raise EmulationError(f"{kernel}: {threads} threads per block is more than CUDA's "
                             f"{MAX_THREADS_PER_BLOCK}")


def raw_bytes(a: np.ndarray) -> tuple[np.ndarray, int]:
    """What a kernel reads through the raw pointer of a strided view's first element: the
    base allocation's bytes from there to its end, as (the base as flat bytes, offset)."""
    base = a
    while isinstance(base.base, np.ndarray):
        base = base.base
    if not base.flags.c_contiguous:
        raise EmulationError(f"a view of shape {a.shape} whose allocation cannot be found "
                             "(its base is not a contiguous NumPy array)")
    flat = base.reshape(-1).view(np.uint8)
    offset = a.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if not 0 <= offset < max(flat.nbytes, 1):
        raise EmulationError(f"a view of shape {a.shape} starts outside its base")
    return flat, offset


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
        self.shuffle: int | None = None  # a seed: threads run in a random order, not in turn
        if not self.binary.exists():
            source = self.workdir / f"kernels-{digest}.cu"
            source.write_text(text)
            listing = self.workdir / f"kernels-{digest}.inc"
            listing.write_text("".join(f"HF_KERNEL({n})\n" for n in names))
            cmd = ["g++", "-std=c++17", "-O1", "-g", *SANITIZE,
                   "-fno-omit-frame-pointer", "-ffp-contract=off",
                   f'-DKERNEL_SOURCE="{source}"', f'-DKERNEL_LIST="{listing}"', f"-I{HERE}",
                   str(HERE / "runner.cpp"), "-o", str(self.binary)]
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0:
                raise EmulationError(f"compiling the kernels as C++ failed:\n{res.stderr}")

    def run(self, kernel: str, grid: tuple, block: tuple, args: tuple | list) -> None:
        if kernel not in self.kernels:
            raise EmulationError(f"no kernel {kernel} in the source")
        grid, block = _dim3(grid), _dim3(block)
        check_launch(kernel, grid, block)
        self.calls += 1
        check_types(kernel, self.signatures[kernel], args)
        lines = [f"kernel {kernel}", "grid " + " ".join(map(str, grid)),
                 "block " + " ".join(map(str, block))]
        arrays = []
        for i, a in enumerate(args):
            if a is None:
                lines.append("null")
            elif isinstance(a, np.ndarray):
                path = self.workdir / f"buf{self.calls}-{i}.bin"
                if a.flags.c_contiguous:
                    dest = a.reshape(-1).view(np.uint8)
                else:  # the raw pointer, as CuPy passes it
                    flat, offset = raw_bytes(a)
                    dest = flat[offset:]
                path.write_bytes(dest.tobytes())
                lines.append(f"buf {path} {dest.nbytes}")
                arrays.append((dest, path))
            elif isinstance(a, (bool, np.bool_)):
                lines.append(f"i64 {int(a)}")
            elif isinstance(a, (int, np.integer)):
                lines.append(f"i64 {int(a)}")
            elif isinstance(a, (float, np.floating)):
                lines.append(f"f64 {float(a)!r}")
            else:
                raise EmulationError(f"argument {i} of type {type(a).__name__} is not supported")
        env = None if self.shuffle is None else {**os.environ,
                                                 "HF_EMU_SHUFFLE": str(int(self.shuffle))}
        res = subprocess.run([str(self.binary)], input="\n".join(lines) + "\n",
                             capture_output=True, text=True, env=env)
        if res.returncode != 0:
            raise EmulationError(f"{kernel} failed (exit {res.returncode}):\n{res.stderr[-3000:]}")
        for dest, path in arrays:
            dest[:] = np.frombuffer(path.read_bytes(), np.uint8)
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
