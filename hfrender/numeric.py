"""What a number is, one rule for every caller: the effects library's arguments (through
:mod:`hfrender.interop`), the render settings (:mod:`hfrender.config`), fx's
(:mod:`hfrender.engine.fx_settings`) and the counts checked across the package.

A real number is Python's, NumPy's, a ``Fraction`` or a ``Decimal`` (not a bool) that a
float holds; a setting that takes a float takes any of them, converted once, at the edge
(:func:`finite_float`). A whole number is an integer's type (:func:`whole_number`); a
setting that takes an int also takes a Fraction or Decimal whose value is whole
(:func:`as_whole`, ``Decimal('3')``: 3). Binary floats are never whole numbers (``2.0``
counts nothing: a float given for a count is a measurement, said so). NumPy's bool is
no number of the ``numbers`` module (``np.True_`` refused as ``True`` is), so this module
needs no NumPy: ``import hfrender`` loads none (``hf.render``'s keywords are read here)."""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from fractions import Fraction

from hfrender.errors import digits_said, shown


def a_number(value: object) -> bool:
    """A number of a kind :func:`real_number` takes (Python's, NumPy's, a Fraction, a
    Decimal; not a bool), whatever its value: one it refuses for its value (sNaN, 1e400)
    is said as a number (an InputError, a list 'holding' it), not as a type."""
    return isinstance(value, (numbers.Real, Decimal)) and not isinstance(value, bool)


def real_number(value: object) -> bool:
    """A real number (Python's, NumPy's, a Fraction, a Decimal), not a bool, that float
    holds (NaN and infinities too): what a one-number argument takes, and an item of the
    lists and object arrays :func:`~hfrender.interop.real_numbers` takes (was: a Decimal
    refused by the lens's numbers, taken in a focus pull's list). None are a signalling NaN
    (float() of it raises), Decimal('1e400') (float's inf) and 10**400 (float() raises)."""
    if not a_number(value):
        return False
    try:
        as_float = float(value)
    except (OverflowError, ValueError):
        return False
    return not math.isinf(as_float) or value == as_float  # (an infinity: one given)


def finite_float(value: object) -> float | None:
    """``value`` as a float where it is a finite :func:`real_number` (``Decimal('2.5')``:
    2.5, ``Fraction(1, 3)``, ``np.float32``), else None (10**400, NaN, inf, a bool, '3'):
    a float setting's number, converted once at the edge."""
    if not real_number(value):
        return None
    as_float = float(value)  # type: ignore[arg-type]
    return as_float if math.isfinite(as_float) else None


def whole_number(value: object) -> bool:
    """An integer's type, Python's or NumPy's, of any size, not a bool (``np.True_`` none
    either): what a count, an index, a seed takes."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def as_whole(value: object) -> int | None:
    """``value`` as an int where it is a :func:`whole_number`, or a Fraction or Decimal
    whose value is whole (``Fraction(6, 2)``, ``Decimal('3')``); else None: a setting's
    count, converted once at the edge (floats, ``Decimal('2.5')``, NaN: None)."""
    if whole_number(value):
        return int(value)  # type: ignore[call-overload]
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    return None


def number_said(value: object) -> str:
    """``value``'s repr on one line (:func:`hfrender.errors.shown`); an integer past float's
    range by its first digits and length (``100000... (401 digits)``)."""
    if whole_number(value) and not real_number(value):
        return digits_said(int(value))  # type: ignore[call-overload]
    return shown(value)
