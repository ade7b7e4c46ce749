"""Exceptions that callers may want to tell apart from real bugs."""

from __future__ import annotations


class HFRenderError(Exception):
    """Base class of hfrender's own errors."""


class BackendUnavailable(HFRenderError, RuntimeError):
    """A backend cannot run here (missing package, no device, not built for this input).

    ``backend="auto"`` catches this and falls back; a bug inside a backend is never
    turned into this exception.
    """
