"""What CUDA maps of GL buffers of growing size (GL-CUDA interop, as the render's slots use
it): the first GPU run (2026-12-04) saw a 1080p ``--hdr on`` slot, over 2 GiB, map to a
size that overflowed CuPy. Prints, for each size, what GL made and what CUDA gave back.

    python benchmarks/gpu_interop_probe.py   (an NVIDIA GPU with EGL; benchmarks/gpu_check.sh)
"""

from __future__ import annotations

import argparse

SIZES = (2**30, 2**31 - 2**20, 2**31 + 2**20, 3 * 2**30, 4 * 2**30 + 2**20)


def probe(ctx, rt, size: int) -> str:
    """What GL made of a buffer of ``size`` bytes and what CUDA (``rt``) maps of it."""
    buf = ctx.buffer(reserve=size)
    made = f"GL buffer of {size} bytes ({buf.size}, GL {ctx.error})"
    flags = rt.cudaGraphicsRegisterFlags.cudaGraphicsRegisterFlagsReadOnly
    err, res = rt.cudaGraphicsGLRegisterBuffer(buf.glo, flags)
    said = f"register {err}"
    if int(err) == 0:
        said = f"map {rt.cudaGraphicsMapResources(1, res, 0)[0]}"
        said += f", mapped pointer {rt.cudaGraphicsResourceGetMappedPointer(res)}"
        rt.cudaGraphicsUnmapResources(1, res, 0)
        rt.cudaGraphicsUnregisterResource(res)
    buf.release()
    return f"{made}: {said}"


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    import moderngl
    from cuda.bindings import runtime as rt

    ctx = moderngl.create_standalone_context(backend="egl")
    for size in SIZES:
        print(probe(ctx, rt, size), flush=True)


if __name__ == "__main__":
    main()
