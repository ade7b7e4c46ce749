"""Fusion backends, chosen by name: ``auto`` | ``cpu`` | ``cuda``.

The name comes from the caller's flag, else the ``HFRENDER_BACKEND`` environment
variable, else ``auto``. ``auto`` takes CUDA when it can run here and the CPU otherwise,
and logs which one it took and why. A backend that cannot run raises
:class:`~hfrender.errors.BackendUnavailable`; only ``auto`` catches it.
"""

from __future__ import annotations

import importlib
import logging
import os
from typing import Any

from hfrender.errors import BackendUnavailable, InputError, InputTypeError, about

log = logging.getLogger(__name__)

BACKENDS = ("cpu", "cuda")  # sibling modules: hfrender.backends.<name>
CHOICES = ("auto",) + BACKENDS
ENV_VAR = "HFRENDER_BACKEND"

_cache: dict[str, Any] = {}


def resolve_name(name: str | None = None) -> str:
    """Flag, then environment variable, then ``auto``; validated against :data:`CHOICES`."""
    source = "backend"
    if name is None:
        name, source = os.environ.get(ENV_VAR) or "auto", ENV_VAR
    if name not in CHOICES:
        kind = InputError if isinstance(name, str) else InputTypeError
        raise about(kind, source, name, f" is not a backend; choose one of {', '.join(CHOICES)}")
    return name


def get_backend(name: str | None = None) -> Any:
    """The backend object for ``name`` (see module docs)."""
    given, name = name, resolve_name(name)
    if name != "auto":
        try:
            return load(name)
        except BackendUnavailable as exc:  # (was: no word of the variable that chose it)
            if given is not None:
                raise
            raise BackendUnavailable(f"{exc} ({ENV_VAR}={name} chose it: unset it, or set "
                                     "it to auto, to run on the CPU here)") from None
    if "auto" not in _cache:
        try:
            backend = load("cuda")
        except BackendUnavailable as exc:
            log.info("backend auto: using cpu (cuda unavailable: %s)", exc)
            backend = load("cpu")
        else:
            log.info("backend auto: using %s", backend.describe())
        _cache["auto"] = backend
    return _cache["auto"]


def load(name: str) -> Any:
    """One named backend, no fallback; raises BackendUnavailable if it cannot run here."""
    if name not in _cache:
        module = importlib.import_module(f"hfrender.backends.{name}")
        _cache[name] = module.create()
    return _cache[name]
