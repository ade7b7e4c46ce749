"""The ``out=`` argument of the effects (:func:`hfrender.effects.motion_blur`, ``fuse``,
``vector_blur``): checked to be an array the call can write into, set aside where it shares
memory with an input, and filled with the result."""

from __future__ import annotations

from typing import Any

import numpy as np

from hfrender.errors import InputError, InputTypeError


def apart(out: Any, *inputs: Any) -> Any:
    """``out``, or ``None`` (a fresh result, copied into ``out`` after) where it shares
    memory with an input: the running sums read frames after the first outputs are
    written, so ``out=frames[:m]`` would blend frames already overwritten. NumPy's ``out=``
    gives the result as if computed first; so does this."""
    for a in inputs:
        if a is None:
            continue
        if isinstance(out, np.ndarray) and isinstance(a, np.ndarray):
            if np.may_share_memory(out, a):
                return None
        elif device_span(out) is not None and device_span(a) is not None:
            (o0, o1), (a0, a1) = device_span(out), device_span(a)
            if o0 < a1 and a0 < o1:
                return None
    return out


def device_span(a: Any) -> tuple[int, int] | None:
    """The device addresses ``a`` spans (a CUDA array's data pointer and size), if any."""
    face = getattr(a, "__cuda_array_interface__", None)
    start = None if face is None else int(face["data"][0])
    return None if start is None else (start, start + int(a.nbytes))


def into(out: Any, res: Any) -> Any:
    """``res`` in ``out`` where one is given (``out`` itself, the backend's result copied
    in unless it wrote there), else ``res``."""
    if out is not None and res is not out:
        out[...] = res
        return out
    return res


def check_out(out: Any, shape: tuple, dtype: Any, on_device: bool) -> None:
    """``out`` must be a writable C-contiguous array of ``shape`` and ``dtype``, on the host
    (or, for frames on the GPU, on the host or the GPU)."""
    host = isinstance(out, np.ndarray)
    if not host and not (on_device and hasattr(out, "__cuda_array_interface__")
                         and hasattr(out, "flags")):  # (a CuPy array; a tensor has none)
        kind = InputTypeError  # (a list, a tensor: no array this call writes into)
        why = f"out is {type(out).__name__}"
    else:
        kind, flags = InputError, out.flags
        why = next((f"out is {text}" for bad, text in (
            (tuple(out.shape) != tuple(shape) or out.dtype != dtype,
             f"{out.dtype} {tuple(out.shape)}"),
            (not flags.c_contiguous, "a strided view, not C-contiguous"),
            (host and not flags.writeable, "read-only")) if bad), None)
        if why is None:
            return
    raise kind(f"{why}; expected a writable C-contiguous {np.dtype(dtype)} "
               f"{'NumPy ' if not on_device else ''}array of shape {tuple(shape)}")
