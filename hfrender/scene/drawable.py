"""How large a number a scene may hold: a place, size or turn past :data:`LARGEST` is one
line naming it exactly (the GPU draws in float32); a brightness past float32's largest,
:data:`FLOAT32_MOST`, one of its own (:func:`past_float32`)."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from numbers import Integral, Real

from hfrender.color import shown
from hfrender.errors import InputError
from hfrender.numeric import real_number, whole_number

# a place, size or turn past this is refused: the GPU draws in float32, whose largest
# number (3.4e38) a normal matrix's products of two scales pass beyond 1.8e19
LARGEST = 1e18
# a brightness past this is refused: float32's largest number (a lamp's intensity, the
# light's strength, an emission: no length, so not :data:`LARGEST`)
FLOAT32_MOST = 3.4028234663852886e38


def drawable(what: str, value: object, numbers: Sequence[float]) -> None:
    """One line where a number of ``value`` is past :data:`LARGEST` (was: the object
    silently gone, or lit wrong, with NumPy's overflow warning from hfrender's code)."""
    big = max((abs(v) for v in numbers), default=0.0)
    if big > LARGEST:
        raise InputError(f"{what}={shown(value)}: {_exactly(big)} is past {LARGEST:g}, more "
                         "than the GPU's float32 can draw; scale the scene down (and "
                         "camera.far with it)")


def past_float32(what: str, value: object, number: Real, rule: str) -> InputError:
    """The line refusing a brightness ``what=value`` whose ``number`` is past
    :data:`FLOAT32_MOST` (was: 1e39 taken and drawn as infinity; 10**400 told
    :func:`drawable`'s line of places and sizes, "scale the scene down"); ``rule``: what
    it must be, with its range."""
    return InputError(f"{what}={shown(value)}: {_exactly(number)} is more than float32 holds "
                      f"(largest {FLOAT32_MOST:g}); it must be {rule}")


def _exactly(number: float) -> str:
    """``number`` exactly (10**18 + 1 was '1e+18'); past 30 digits 'a whole number of N
    digits' (10**400 was an OverflowError); else its float's shortest exact repr."""
    digits = str(int(number)) if isinstance(number, Integral) else ""
    if digits:
        return digits if len(digits) <= 30 else f"a whole number of {len(digits)} digits"
    return repr(float(number)) if abs(number) < 1e308 else shown(number)


def past_floats(number: object) -> str:
    """``": a whole number of 401 digits is past any float (1.79769e+308)"`` for a whole
    number no float holds (``math.isfinite`` of 10**400 raised OverflowError, where a
    user's number was checked); "" for any other."""
    if whole_number(number) and not real_number(number):
        return f": {_exactly(abs(number))} is past any float ({sys.float_info.max:g})"
    return ""


def in_floats(number: Real) -> bool:
    """``math.isfinite`` of ``number``, a whole number past any float (:func:`past_floats`)
    not finite: no float holds it."""
    return not past_floats(number) and math.isfinite(number)


def finite_number(number: Real) -> bool:
    """``math.isfinite`` of ``number``, a whole number past any float finite too."""
    try:
        return math.isfinite(number)
    except OverflowError:  # (a whole number past any float is: 10**400's was raised)
        return True
