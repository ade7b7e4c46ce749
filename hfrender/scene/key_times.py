"""Keyframes whose keys run well past the scene's end, told once at a render's start.

``hf.Keyframes`` takes its keys in seconds. A Blender or After Effects user types frame
numbers: ``hf.Keyframes({1: 2.0, 24: 8.0})``, a rack focus over the first second at 24 fps,
in a 2 s scene, rendered its first 2 seconds of 24 without a word (a trial). What the scene
reads is looked at, not guessed: a copy's ``update(t)`` (a scene holding a Keyframes, or
calling ``hf.keyframes``: no other) is called at :data:`SPREAD` times over the scene's own
duration (not a shorter range rendered: a 10 s scene rendered with ``--duration 1`` has
keys to 10 s rightly) while :func:`hfrender.scene.easing.reading` notes the latest ``t``
each Keyframes is read at (so ``self.path(t + 30)`` or ``self.path(10 * t)`` is taken as it
is read, and a Keyframes never read is not told). One is told where its last key is past
the duration and the latest ``t`` read reaches less than :data:`REACHED` of the way from
its first key to its last: a key a little past the end, for an ease-out, leaves most of the
way shown; frame numbers at 24 fps, 1/24.
"""

from __future__ import annotations

import contextlib
import logging

from hfrender.logs import silenced
from hfrender.scene import Scene, checks
from hfrender.scene.drawable import in_floats
from hfrender.scene.easing import Keyframes, reading
from hfrender.scene.loader import SceneError, SceneUpdateError, call_scene

log = logging.getLogger(__name__)

SPREAD = 8  # times over the scene's duration at which update(t) is read
REACHED = 0.5  # below this share of the way from the first key to the last, it is told


def own_duration(scene: Scene) -> float:
    """The scene's own duration (its class's, or the one its setup() set), or a longer one
    ``--duration`` gave (a render that long reaches the keys): not a shorter one given,
    nor a still's."""
    return max(getattr(scene, "_own_duration", scene.duration), scene.duration)


def times_to_read(scene: Scene) -> list[float]:
    """:data:`SPREAD` times from 0 to the scene's own duration (none where it has none)."""
    end = own_duration(scene)
    if not (checks.real(end) and in_floats(end) and end > 0):  # (10**400: as endless)
        return []
    return [end * i / (SPREAD - 1) for i in range(SPREAD)]


def say_keys_past_end(scene: Scene | None, fps: float) -> None:
    """One warning naming the Keyframes that ``update(t)`` of ``scene`` (a copy of the one
    drawn: a state set late stays out of the frames) reads at :func:`times_to_read` whose
    keys run well past the scene's own duration, as the scene holds them."""
    if scene is None:  # (no copy: a scene holding a file)
        return
    with reading() as read:
        updated_quietly(scene, [(t, round(t * fps)) for t in times_to_read(scene)])
    names, end, latest = _names(scene), own_duration(scene), {}
    for k, t in read.values():  # (hf.keyframes(keys, t): a Keyframes each call, one name)
        name = names.get(id(k)) or _unnamed(k)
        latest[name] = (k, max(t, latest.get(name, (k, t))[1]))
    past = [(n, k, (t - k.times[0]) / (k.times[-1] - k.times[0])) for n, (k, t) in
            latest.items() if len(k.times) > 1 and k.times[-1] > end
            and t - k.times[0] < REACHED * (k.times[-1] - k.times[0])]
    if not past:
        return
    (name, first, share), more = past[0], ""
    if len(past) > 1:
        more = f" ({checks.listed([f'{n} at {k.times[-1]:g} s' for n, k, _ in past[1:]])} too)"
    log.warning("%s: %s has its last key at %g s%s, but the scene is %g s long (%.0f%% of "
                "the way from its first key to its last is shown): Keyframes keys are "
                "seconds; frame F at %g fps is F / %g s (hf.Keyframes(keys, fps=%g) takes "
                "frame numbers)", type(scene).__name__, name, first.times[-1], more, end,
                100 * max(share, 0.0), fps, fps, fps)


def updated_quietly(scene: Scene, times: list[tuple[float, int]]) -> None:
    """``update(t)`` of ``scene`` (a copy: a look at other times) at each (t, frame) of
    ``times``, saying nothing (its prints said at the frames drawn already); a time it
    refuses passed over (the render says it where it draws it)."""
    with silenced():
        for t, frame in times:
            with contextlib.suppress(SceneError, SceneUpdateError):
                call_scene(scene, "update(t)", scene.update, t, t=t, frame=frame)


def reads_keys(scene: Scene) -> bool:
    """Whether the scene holds a Keyframes (:func:`_names`) or its ``update`` calls
    ``hf.keyframes``: else no look (its ``update(t)`` may be slow)."""
    code = getattr(type(scene).update, "__code__", None)
    return bool(_names(scene)) or "keyframes" in getattr(code, "co_names", ())


def _names(scene: Scene) -> dict[int, str]:
    """Each Keyframes by the scene's name for it: ``self.focus``, ``self.keys[2]``
    (:func:`checks.held`), else ``FOCUS`` at the top of the file of
    the scene's ``update``."""
    names: dict[int, str] = {}
    top = getattr(type(scene).update, "__globals__", {})  # (update's own file: a second
    for where, value in [*checks.held(scene), *top.items()]:  # setup() ran it afresh)
        if isinstance(value, Keyframes):
            names.setdefault(id(value), where)
    return names


def _unnamed(keys: Keyframes) -> str:
    return f"Keyframes({{{keys.times[0]:g}: ..., {keys.times[-1]:g}: ...}})"
