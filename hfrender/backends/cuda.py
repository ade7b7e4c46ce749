"""The CUDA fusion backend (CuPy).

Not part of this release yet: loading it raises :class:`BackendUnavailable`, which
``backend="auto"`` turns into the CPU backend. It says what is missing so that a user
with CuPy arrays knows what to do today.
"""

from __future__ import annotations

import importlib.util

from hfrender.errors import BackendUnavailable


def create() -> object:
    if importlib.util.find_spec("cupy") is None:
        raise BackendUnavailable(
            "CuPy is not installed; install the CUDA extra: pip install 'hfrender[cuda]'"
        )
    raise BackendUnavailable(
        "the CUDA fusion kernels are not in this version of hfrender yet; "
        "use backend='cpu' with NumPy arrays (cupy.asnumpy(frames))"
    )
