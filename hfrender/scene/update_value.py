"""What a scene's ``update(t)`` returns: hfrender uses none of it (update sets the objects'
properties from ``t``), so a value other than None (manim's habit, ``return
self.play(...)``, or an object update made) is warned of once a render, by
:func:`~hfrender.scene.ready.first_look` from its first call (was: passed over without a
word); the frames' own calls look at nothing."""

from __future__ import annotations

import inspect
import logging
from pathlib import Path
from typing import Any

from hfrender.scene import Scene

log = logging.getLogger(__name__)


def say_returned(scene: Scene, value: Any = None) -> None:
    """A warning where ``update(t)`` returned ``value`` (not None; none given: no call
    returned), naming update's ``file:line`` (its ``def``; else the scene's class) and
    the value's type."""
    if value is None:
        return
    fn = getattr(scene, "update", None)
    code = getattr(inspect.unwrap(getattr(fn, "__func__", fn)), "__code__", None)
    where = f"{Path(code.co_filename).name}:{code.co_firstlineno}" if code is not None \
        else type(scene).__name__
    kind = type(value).__name__
    log.warning("%s: update(t) returned %s %s; its return value is not used: set the "
                "objects' properties from t", where, "an" if kind[:1].lower() in "aeiou"
                else "a", kind)
