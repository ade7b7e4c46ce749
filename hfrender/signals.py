"""The signals that stop a run as Ctrl-C does: SIGINT, SIGTERM and, where there is one,
SIGHUP (the terminal closed: was the default action, as ``kill -9`` ends a run, with no
partial output said or kept in place)."""

from __future__ import annotations

import signal

STOPS: tuple[int, ...] = tuple(s for s in (signal.SIGINT, signal.SIGTERM,
                                           getattr(signal, "SIGHUP", None)) if s is not None)
