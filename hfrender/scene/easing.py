"""Easing and keyframes for scenes: rate functions, ``lerp`` and :class:`Keyframes`.

A scene's state is a pure function of time, so easing is too: ``update(t)`` turns ``t``
into a share ``s`` of a move with a *rate function* and places things with :func:`lerp`,
or reads them from :class:`Keyframes` made once in ``setup()``::

    def setup(self):
        self.ball = self.add(hf.Sphere())
        self.path = hf.Keyframes({0.0: (0, 0, 0), 1.5: (2, 0, 0), 3.0: (2, 1, 0)},
                                 ease=hf.smooth)
    def update(self, t):
        self.ball.position = self.path(t)
        self.ball.color = hf.lerp((1, 0.4, 0.1), (0.1, 0.4, 1), hf.there_and_back(t / 4))

Each rate function takes ``s`` (a float or a NumPy array) and clamps it to [0, 1] first:
before the start it is the start's value, past the end the end's. All but
:func:`there_and_back` go from exactly 0 at ``s = 0`` to exactly 1 at ``s = 1``.
The curves are drawn in docs/images/easing_curves.png (benchmarks/easing_curves.py).
NumPy only: nothing here draws.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

import numpy as np

from hfrender.color import shown
from hfrender.errors import InputError, InputTypeError
from hfrender.scene import checks
from hfrender.scene.drawable import in_floats, past_floats
from hfrender.validate import real_array, scalar

RATE_FUNCTIONS = ("linear", "smooth", "ease_in", "ease_out", "ease_in_out", "there_and_back",
                  "rush_into", "rush_from")
_VALUES = "a number, or a tuple or array of numbers (a position, a colour as 3 numbers 0..1)"
_READ: ContextVar[dict[int, tuple[Keyframes, float]] | None] = ContextVar("read", default=None)


def _unit(s: Any, name: str) -> np.ndarray:
    """``s`` as float64 numbers clamped to [0, 1], else one line naming it."""
    arr = _read(s, f"{name}: s")
    if arr is None:
        raise InputTypeError(f"{name}: s={shown(s)} must be a number 0..1, or an array of "
                             "them (clamped to 0..1)")
    if np.isnan(arr).any():
        raise InputError(f"{name}: s={shown(s)} is NaN; a rate function takes numbers 0..1 "
                         "(clamped to 0..1)")
    return np.clip(arr, 0.0, 1.0)


def _rate(formula: Callable[..., Any]) -> Callable[..., Any]:
    """A rate function from its ``formula`` of ``s`` in [0, 1] (a float64 array): ``s``
    checked and clamped first; a float back for a number, an array for an array."""
    @functools.wraps(formula)
    def rate(s: Any, *args: Any, **kwargs: Any) -> Any:
        y = formula(_unit(s, formula.__name__), *args, **kwargs)
        return float(y) if np.ndim(y) == 0 else y
    return rate


def _smooth(x: np.ndarray, inflection: float, name: str = "smooth") -> np.ndarray:
    """manim's ``smooth``: ``(sigmoid(k (s - 1/2)) - e) / (1 - 2 e)`` with ``e =
    sigmoid(-k/2)``, written as the same curve in tanh (``sigmoid(x) = (1 + tanh(x/2)) /
    2``) so that 0 and 1 come out exactly."""
    k = checks.finite(f"{name}: inflection", inflection, above=0)
    return 0.5 + 0.5 * np.tanh(k * (x - 0.5) / 2) / np.tanh(k / 4)


@_rate
def linear(s: Any) -> Any:
    """``s`` itself (clamped to [0, 1]): constant speed."""
    return s


@_rate
def smooth(s: Any, inflection: float = 10.0) -> Any:
    """manim's ``smooth`` (its default rate function), the same formula: a logistic
    sigmoid ``sigmoid(inflection * (s - 1/2))`` stretched to pass through (0, 0) and
    (1, 1). Slower near both ends than :func:`ease_in_out` (the smoothstep) but not quite
    at rest there (slope 0.07), steeper in the middle (2.53 at s = 1/2, the smoothstep's
    1.5); a larger ``inflection`` is steeper."""
    return _smooth(s, inflection)


@_rate
def ease_in(s: Any) -> Any:
    """``s * s``: starts at rest, ends at full speed (easings.net's easeInQuad, manim's
    ``ease_in_quad``)."""
    return s * s


@_rate
def ease_out(s: Any) -> Any:
    """``1 - (1 - s)**2``: starts at full speed, comes to rest (easeOutQuad,
    ``ease_out_quad``)."""
    return 1 - (1 - s) * (1 - s)


@_rate
def ease_in_out(s: Any) -> Any:
    """The smoothstep ``3 s**2 - 2 s**3``: at rest at both ends, like Blender's default
    (Bezier) keys between two keys (a cubic Bezier whose handles are flat and a third of
    the way along is exactly this curve)."""
    return s * s * (3 - 2 * s)


@_rate
def there_and_back(s: Any, inflection: float = 10.0) -> Any:
    """manim's ``there_and_back``: :func:`smooth` from 0 to 1 over the first half, and back
    to 0 over the second (0 at s = 0 and at s = 1, 1 at s = 1/2)."""
    return _smooth(np.where(s < 0.5, 2 * s, 2 * (1 - s)), inflection, "there_and_back")


@_rate
def rush_into(s: Any, inflection: float = 10.0) -> Any:
    """manim's ``rush_into``: the first half of :func:`smooth`, stretched to [0, 1]: starts
    at rest, ends at full speed (``2 smooth(s / 2)``)."""
    return 2 * _smooth(s / 2, inflection, "rush_into")


@_rate
def rush_from(s: Any, inflection: float = 10.0) -> Any:
    """manim's ``rush_from``: the second half of :func:`smooth`, stretched to [0, 1]: starts
    at full speed, comes to rest (``2 smooth(s / 2 + 1/2) - 1``)."""
    return 2 * _smooth(s / 2 + 0.5, inflection, "rush_from") - 1


def _numbers(value: Any, what: str, allowed: str = _VALUES) -> np.ndarray:
    """``value`` as a float64 array of finite numbers, else one line naming it."""
    arr = _read(value, what)
    if arr is None:
        raise InputTypeError(f"{what}={shown(value)} must be {allowed}")
    if not np.isfinite(arr).all():
        raise InputError(f"{what}={shown(value)} must be finite (no NaN or inf): {allowed}")
    return arr


def _read(value: Any, what: str) -> np.ndarray | None:
    """:func:`hfrender.validate.real_array` of ``value``, named as ``what`` says it
    ('lerp: a'): a tensor that requires grad, or a masked array, 'lerp: a (torch.Tensor)
    requires grad: pass a.detach() ...' (was: 'value ...: pass value.detach()')."""
    where, _, name = what.rpartition(": ")
    try:
        return real_array(value, name)
    except InputError as exc:
        raise type(exc)(f"{where}: {exc}" if where else str(exc)) from None


def _given(result: np.ndarray, as_tuple: bool) -> Any:
    """``result`` as the values were given: a float for numbers, a tuple of floats for
    tuples (or lists) of numbers, else an array."""
    if result.ndim == 0:
        return float(result)
    return tuple(result.tolist()) if as_tuple and result.ndim == 1 else result


def _tuples(*values: Any) -> bool:
    return all(isinstance(v, (tuple, list)) for v in values)


def lerp(a: Any, b: Any, s: Any) -> Any:
    """``(1 - s) * a + s * b``: ``a`` at ``s = 0`` and ``b`` at ``s = 1``, exactly. ``a``
    and ``b`` are numbers, or tuples or arrays of the same shape (positions, colours:
    component by component, in the numbers given); ``s`` is a number or an array, usually
    a rate function's value (``hf.lerp(a, b, hf.smooth(t / 2))``). ``s`` is not clamped:
    past 0..1 it goes on along the line. A float back for numbers, a tuple for tuples (with
    one ``s``), else an array."""
    x, y = _numbers(a, "lerp: a"), _numbers(b, "lerp: b")
    if x.shape != y.shape:
        raise InputError(f"lerp: a={shown(a)} and b={shown(b)} must have the same shape "
                         f"(got {x.shape} and {y.shape})")
    k = _numbers(s, "lerp: s", "a number (0 at a, 1 at b) or an array of them")
    if k.ndim:
        k = k.reshape(k.shape + (1,) * x.ndim)  # one value of the shape of a for each s
    return _given((1 - k) * x + k * y, _tuples(a, b) and k.ndim == 0)


class Keyframes:
    """A value (a number, a position, a colour) given at some times, and between them:
    ``Keyframes({0.0: (0, 0, 0), 1.5: (2, 0, 0), 3.0: (2, 1, 0)}, ease=hf.smooth)``, made
    once (in ``setup()``) and called with ``t`` (in ``update(t)``).

    Keys are times in seconds (any order), or frame numbers with ``fps`` (key ``F`` at
    ``F / fps`` seconds; frame 0 at t = 0); their values numbers, or tuples or arrays of
    one shape. Before the first key the value is the first's, after the last the last's
    (held); between two keys ``lerp(v0, v1, ease(s))``, ``s`` going 0..1 from one key to
    the next. ``ease`` (:func:`linear` unless given) is any function of ``s`` giving 0 at 0
    and 1 at 1: with :func:`ease_in_out` the value comes to rest at each key (with
    :func:`smooth`, nearly). Calls give a float for numbers, a tuple for tuples, else an
    array."""

    def __init__(self, keys: Mapping[float, Any], ease: Callable[[float], Any] = linear,
                 fps: float | None = None) -> None:
        if not isinstance(keys, Mapping) or not keys:
            raise InputTypeError(f"keyframes: keys={shown(keys)} must be a dict of time: "
                                 "value with at least one key, such as {0.0: (0, 0, 0), "
                                 "1.5: (2, 0, 0)}")
        if not callable(ease):
            raise InputTypeError(f"keyframes: ease={shown(ease)} must be a function of s "
                                 "(0..1) such as hf.smooth or hf.linear")
        rate = 1.0 if fps is None else checks.finite(
            "keyframes: fps", fps, above=0, meaning="frames a second: the keys are frame numbers")
        times = [_seconds(k, "keyframes: a key's time") / rate for k in keys]
        order = sorted(range(len(times)), key=times.__getitem__)
        named = [(f"keys[{k!r}]", v) for k, v in keys.items()]
        values = [_numbers(named[i][1], f"keyframes: {named[i][0]}") for i in order]
        for i, v in zip(order, values, strict=True):
            if v.shape != values[0].shape:
                (what, given), (first, was) = named[i], named[order[0]]
                raise InputError(f"keyframes: {what}={shown(given)} has shape {v.shape} where "
                                 f"{first}={shown(was)} has {values[0].shape}; every key's "
                                 "value must have the same shape")
        self.times = np.array([times[i] for i in order])
        self.values = np.stack(values)
        self.ease = ease
        self._tuple = _tuples(*keys.values())

    def __call__(self, t: float) -> Any:
        """The value at time ``t`` (seconds)."""
        t = _seconds(t, "keyframes: t")
        read = _READ.get()
        if read is not None:  # (a scene's look at its keys: :func:`reading`)
            read[id(self)] = (self, max(t, read.get(id(self), (self, t))[1]))
        i = int(np.searchsorted(self.times, t, side="right"))
        if i == 0 or i == len(self.times):  # held before the first key and past the last
            return _given(self.values[max(i - 1, 0)].copy(), self._tuple)
        t0, t1 = self.times[i - 1], self.times[i]
        s = self._eased((t - t0) / (t1 - t0))
        return _given((1 - s) * self.values[i - 1] + s * self.values[i], self._tuple)

    def _eased(self, s: float) -> float:
        eased = scalar(self.ease(s))
        if not (checks.real(eased) and in_floats(eased)):
            raise InputError(f"keyframes: ease={shown(self.ease)} gave {shown(eased)} at "
                             f"s={s:g}; it must give a finite number (0 at s = 0, 1 at s = 1)"
                             f"{past_floats(eased)}")
        return float(eased)

    def __repr__(self) -> str:
        keys = ", ".join(f"{t:g}: {shown(_given(v, self._tuple))}"
                         for t, v in zip(self.times, self.values, strict=True))
        return f"Keyframes({{{keys}}}, ease={getattr(self.ease, '__name__', self.ease)!s})"


def keyframes(keys: Mapping[float, Any], t: float, ease: Callable[[float], Any] = linear,
              fps: float | None = None) -> Any:
    """``Keyframes(keys, ease, fps)(t)``, in one call: the value the keys give at ``t`` (see
    :class:`Keyframes`; make that once in ``setup()`` where there are many keys)."""
    return Keyframes(keys, ease, fps)(t)


@contextlib.contextmanager
def reading() -> Iterator[dict[int, tuple[Keyframes, float]]]:
    """While it lasts, each :class:`Keyframes` called (in this thread), by id: (it, the
    latest ``t`` it was called with); a scene's check that its keys are reached."""
    read: dict[int, tuple[Keyframes, float]] = {}
    token = _READ.set(read)
    try:
        yield read
    finally:
        _READ.reset(token)


def _seconds(value: Any, what: str) -> float:
    """``value`` (a number, a 0-d array) as a float: a finite number of seconds."""
    value = scalar(value)
    if not (checks.real(value) and in_floats(value)):
        raise InputError(f"{what}={shown(value)} must be a finite number of seconds"
                         f"{past_floats(value)}")
    return float(value)
