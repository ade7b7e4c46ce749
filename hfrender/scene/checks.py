"""Checks of what a scene script sets, when it sets it: one line naming the value.

Camera, objects and scenes call these from ``__setattr__``, so a bad value raises inside
the script's own ``setup()`` or ``update(t)``, and the render engine reports the script's
file:line, ``t`` and the output frame.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import os
import sys
import weakref
from collections.abc import Callable, Iterator, Sequence
from functools import cache, wraps
from numbers import Integral, Real
from pathlib import Path
from types import FunctionType

import numpy as np

from hfrender.color import shown
from hfrender.errors import InputError
from hfrender.numeric import whole_number
from hfrender.scene.drawable import (
    FLOAT32_MOST,
    LARGEST,
    drawable,
    finite_number,
    in_floats,
    past_float32,
    past_floats,
)
from hfrender.scene.other_names import (
    BLENDER_FOV,
    GROUP,
    HINTED,
    MANIM,
    NOT_HERE,
    OTHER_NAMES,
    RENDER_OPTIONS,
    TURNS,
    setting_said,
    size_hint,
)

# what a Scene subclass is most likely to misspell; shorter names (add) are left out: too
# many ordinary words lie one letter away from them
SCENE_ATTRIBUTES = ("duration", "background", "light_direction", "light_strength",
                    "light_color", "light_angle", "ambient", "shadows", "shadow_resolution",
                    "camera", "objects", "source_path", "setup", "update")


class UnknownAttributeError(InputError, AttributeError):
    """A script set an attribute that its object does not have (a typo, usually)."""


# --- attribute names -----------------------------------------------------------------------
def per_class(fn: Callable) -> Callable:
    """``functools.cache`` for a function of a class (and more), whose entries go with the
    class: a batch loads each render job's scene anew, and a cache that held every class
    held every job's scene module, its globals too, until the batch ended (a trial: 40
    objects and about 0.1 MB a job kept, and all a scene module loads at its top)."""
    store: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @wraps(fn)
    def cached(cls: type, *args: object) -> object:
        try:
            return store[cls][args]
        except KeyError:
            value = store.setdefault(cls, {})[args] = fn(cls, *args)
            return value
    return cached


@per_class
def known_names(cls: type) -> frozenset[str]:
    """Public names of ``cls``: dataclass fields, annotations, class attributes,
    properties and methods, its bases' included."""
    names = {n for n in dir(cls) if not n.startswith("_")}
    for klass in cls.__mro__:
        names.update(n for n in inspect.get_annotations(klass) if not n.startswith("_"))
    if dataclasses.is_dataclass(cls):
        names.update(f.name for f in dataclasses.fields(cls))
    return frozenset(names)


@per_class
def method_names(cls: type) -> frozenset[str]:
    return frozenset(n for n in known_names(cls)
                     if isinstance(inspect.getattr_static(cls, n, None),
                                   (FunctionType, staticmethod, classmethod)))


@per_class
def value_names(cls: type) -> frozenset[str]:
    """Known names that are not methods: what a script sets."""
    return known_names(cls) - method_names(cls)


@per_class
def settable_names(cls: type) -> frozenset[str]:
    """Known names that are neither methods nor read-only properties."""
    def settable(name: str) -> bool:
        attr = inspect.getattr_static(cls, name, None)
        return not (isinstance(attr, property) and attr.fset is None)
    return frozenset(n for n in known_names(cls) - method_names(cls) if settable(n))


def _other_name(cls: type, name: str) -> str | None:
    """A hint for another tool's name of something the class has, or a render setting."""
    if name in NOT_HERE:
        return f"; {name} is another tool's: {NOT_HERE[name]}"
    meant = OTHER_NAMES.get(name)
    if name in BLENDER_FOV and "focal_length_mm" in known_names(cls):
        return f"; {name} is {BLENDER_FOV[name]}"
    if name in TURNS and "target" in known_names(cls):
        return "; it is aimed, not turned: look_at((x, y, z)), or set its target"
    if name in ("dof", "use_dof") and meant in known_names(cls):
        return ("; depth of field is on where the camera has an f-stop: set f_stop (e.g. 2.8) "
                "and focus_distance")
    if name in GROUP and "children" in known_names(cls):  # a Group (manim's VGroup)
        return f"; {GROUP[name]}"
    manim = MANIM.get(name)
    if manim is not None and manim[0] in known_names(cls):
        return f"; {name} is manim's: {manim[1] or size_hint(known_names(cls))}"
    if meant in known_names(cls):
        return f"; {name} is another tool's name (Blender's, manim's): here it is {meant!r}"
    if name in RENDER_OPTIONS:
        return (f"; {name.replace('_', ' ')} is a render setting, not the scene's: give "
                f"{setting_said(name)} (or set it in hfrender.toml)")
    return None


def check_name(obj: object, name: str) -> None:
    """Refuse setting ``name`` on ``obj`` unless its class knows it (private ``_names``
    are the object's own business); suggest the closest known name, or the name meant by
    another tool's (Blender's ``lens``: ``focal_length_mm``)."""
    cls = type(obj)
    if name.startswith("_") or name in settable_names(cls):  # every set of update(t): at once
        return
    what = cls.__name__
    if name in value_names(cls):  # a read-only property (was: Python's "has no setter")
        meant = " (it follows f_stop: set that)" if name == "has_dof" else ""
        raise UnknownAttributeError(f"{what}.{name} is read-only{meant}")
    other = _other_name(cls, name)
    if other is not None:
        said = (f"{what}.{name} cannot be set" if name in method_names(cls)
                else f"{what} has no attribute {name!r}")  # (lens: a method of its own)
        raise UnknownAttributeError(said + other)
    if name in method_names(cls):
        raise UnknownAttributeError(f"{what}.{name} is a method: call it, "
                                    f"{what.lower()}.{name}(...), rather than set it")
    # (not a read-only property: camera.dof suggested has_dof, which cannot be set)
    close = difflib.get_close_matches(name, sorted(settable_names(cls) | method_names(cls)),
                                      n=1)
    if close:
        hint = (f"; did you mean to call {close[0]}(...)?" if close[0] in method_names(cls)
                else f"; did you mean {close[0]!r}?")
    elif cls.__module__.startswith("hfrender."):
        hint = "; it has " + ", ".join(sorted(settable_names(cls)))
    else:  # a user's subclass
        hint = (f"; declare it in the class body (`{name}: float = 0.0`) to store state of "
                "your own")
    raise UnknownAttributeError(f"{what} has no attribute {name!r}{hint}")


class Checked:
    """Attributes checked when they are set (dataclass ``__init__`` included): an unknown
    name is refused with a suggestion, and a value by ``value_checks(cls)[name]`` (a
    function ``(label, value) -> value``), labelled ``label(name)``."""

    def _label(self, name: str) -> str:
        return f"{type(self).__name__}.{name}"

    def __getattr__(self, name: str) -> object:  # only for a name not found: read, a
        if name not in HINTED:  # hint too (camera.dof, manim's sphere.move_to(...))
            return object.__getattribute__(self, name)  # Python's own error (a property's
        other = _other_name(type(self), name)  # inner one too), its suggestion kept
        if other is None:
            return object.__getattribute__(self, name)
        raise UnknownAttributeError(f"{type(self).__name__} has no attribute {name!r}{other}")

    def __setattr__(self, name: str, value: object) -> None:
        check_name(self, name)
        check = type(self).value_checks().get(name)
        if check is not None:
            value = check(self._label(name), value)
        object.__setattr__(self, name, value)

    @classmethod
    def value_checks(cls) -> dict:
        return {}


@per_class
def scene_misspelling(cls: type, name: str) -> str | None:
    """The Scene attribute that ``name`` misspells, if it is not a name of its own.

    A scene stores state of its own under any name; only one (or, for names of 10
    letters and more, two) edits away from a Scene attribute counts, and a name that
    extends or shortens one (``cameras``, ``background_color``, ``object``) does not.
    """
    if name.startswith("_") or name in known_names(cls):
        return None
    for known in SCENE_ATTRIBUTES:
        if name.startswith(known) or known.startswith(name):
            continue
        if _edits(name, known) <= (2 if len(known) >= 10 else 1):
            return known
    return None


def _edits(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions and
    swaps of neighbours (``backround``, ``durration``, ``camrea`` are all 1)."""
    if abs(len(a) - len(b)) > 2:
        return 3
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


_PACKAGE = os.path.realpath(Path(__file__).parents[1]) + os.sep  # hfrender's own files


@cache
def _ours(filename: str) -> bool:
    """Whether code of ``filename`` is hfrender's own (or generated: ``<string>``, a
    dataclass's ``__init__``), however it was imported (a symlink, a relative path)."""
    return filename.startswith("<") or os.path.realpath(filename).startswith(_PACKAGE)


def caller_line() -> str | None:
    """``file:line`` of the nearest caller outside hfrender (a scene's line that set a
    value, through a dataclass's ``__init__`` or ``hf.Mesh.load``), if any."""
    frame = sys._getframe(1)
    while frame is not None:
        if not _ours(frame.f_code.co_filename):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return None


# --- values ----------------------------------------------------------------------------
def held(scene: object) -> Iterator[tuple[str, object]]:
    """(name, value) of what a scene holds under its own names, as its errors and warnings
    name an object: ``self.ball``, and each item of a list, tuple or dict held,
    ``self.balls[2]`` (not its ``objects`` list, nor its lamps': the scene's, by number)."""
    for name, value in vars(scene).items():
        if name in ("objects", "_lamps"):
            continue
        items = value.items() if isinstance(value, dict) else \
            enumerate(value) if isinstance(value, (list, tuple)) else [(None, value)]
        for key, item in items:
            yield f"self.{name}" + ("" if key is None else f"[{key!r}]"), item


def named(scene: object, objects: Sequence[object]) -> list[str | None]:
    """Each of ``objects`` by the scene's name for it (:func:`held`: ``self.panels[2]``);
    None for one the scene holds under no name of its own."""
    names: dict[int, str] = {}
    for where, value in held(scene) if scene is not None else ():
        names.setdefault(id(value), where)
    return [names.get(id(obj)) for obj in objects]


def listed(names: Sequence[str], first: int = 3) -> str:
    """``a, b, c and 2 more``: the first ``first`` of ``names``, and how many others."""
    more = f" and {len(names) - first} more" if len(names) > first else ""
    return ", ".join(names[:first]) + more


def real(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, (bool, np.bool_))


def finite(what: str, value: object, *, low: float | None = None,
           above: float | None = None, below: float | None = None, meaning: str = "",
           brightness: bool = False) -> float:
    """``value`` as a float: a finite number (a NumPy 0-d array's too), ``>= low`` or ``>
    above`` and ``< below`` when given; refused as ``what=value must be ... (meaning)``.
    ``brightness``: a light's, within float32 (:func:`past_float32`), not a length."""
    given = value
    value = value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value
    rule = (f" >= {low:g}" if low is not None else f" > {above:g}" if above is not None
            else "") + (f" and < {below:g}" if below is not None else "")
    meant = f" ({meaning})" if meaning else ""
    if brightness and real(value) and finite_number(value) and value > FLOAT32_MOST:
        raise past_float32(what, given, value, f"a finite number from {low or 0:g} to "
                                               f"{FLOAT32_MOST:g}{meant}")
    if real(value) and past_floats(value) and not brightness:  # 10**400: the positions'
        drawable(what, given, [value])  # line (was OverflowError)
    if not (real(value) and in_floats(value) and (low is None or value >= low)
            and (above is None or value > above) and (below is None or value < below)):
        raise InputError(f"{what}={shown(given)} must be a finite number{rule}{meant}")
    return float(value)


_PLAIN = (float, int)  # (not bool, nor NumPy's: those go the whole way)


def vector3(what: str, value: object, meaning: str = "(x, y, z)") -> tuple[float, ...]:
    """``value`` as a tuple of 3 finite floats, each within :data:`LARGEST`."""
    if type(value) is tuple and len(value) == 3:  # the usual, a particle's: 0.5 us (was
        x, y, z = value  # 16 with ABCs; 1.3 with two all() over generators, half a set's)
        if (type(x) in _PLAIN and type(y) in _PLAIN and type(z) in _PLAIN
                and -LARGEST <= x <= LARGEST and -LARGEST <= y <= LARGEST
                and -LARGEST <= z <= LARGEST):
            return (float(x), float(y), float(z))
    items = value.tolist() if isinstance(value, np.ndarray) else value
    if hasattr(value, "position") and not isinstance(value, (Sequence, np.ndarray)):
        raise InputError(f"{what}={type(value).__name__}(...): a point, not an object: give "
                         "its position (e.g. self.ball.position), set in update(t) to follow "
                         "it as it moves")  # (was: the object's whole repr, cut short)
    if not (isinstance(items, Sequence) and not isinstance(items, str) and len(items) == 3
            and all(real(v) and finite_number(v) for v in items)):
        raise InputError(f"{what}={shown(value)} must be 3 finite numbers {meaning}")
    drawable(what, value, items)
    return tuple(float(v) for v in items)


def scale(what: str, value: object) -> float | tuple[float, ...]:
    """A uniform scale (one number) or one per axis (3 numbers), finite."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, str):
        return vector3(what, value, "(x, y, z), or one number")
    if not (real(value) and finite_number(value)):
        raise InputError(f"{what}={shown(value)} must be a finite number, or 3 (x, y, z)")
    drawable(what, value, [value])
    return float(value)


def fraction(what: str, value: object, meaning: str) -> float:
    """``value`` as a float 0..1 (``meaning``: what the ends are); else one line."""
    value = value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value
    if not (real(value) and 0.0 <= value <= 1.0):  # (NaN fails both comparisons)
        raise InputError(f"{what}={shown(value)} must be a number 0..1 ({meaning})")
    return float(value)


def integer(what: str, value: object) -> int:
    if not whole_number(value):
        raise InputError(f"{what}={shown(value)} must be a whole number")
    return int(value)


def flag(what: str, value: object) -> bool:
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, Integral) and value in (0, 1)):
        return bool(value)
    raise InputError(f"{what}={shown(value)} must be True or False")


def choice(what: str, value: object, choices: tuple[str, ...]) -> str:
    """One of ``choices``, in any case (Blender writes them in capitals)."""
    if isinstance(value, str) and value.lower() in choices:
        return value.lower()
    names = ", ".join(repr(c) for c in choices)
    close = (difflib.get_close_matches(value.lower(), choices, n=1)
             if isinstance(value, str) else [])
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise InputError(f"{what}={shown(value)} must be one of {names}{hint}")


def at_line(exc: BaseException, cls: type, name: str) -> BaseException:
    """``exc`` with ``where`` (``file:line``) set to the line of the class body of ``cls``
    that binds ``name`` (if its source can be read): what
    :func:`hfrender.scene.loader.located` reports instead of the ``class`` line."""
    import ast
    import sys

    path = getattr(sys.modules.get(cls.__module__), "__file__", None)
    try:
        tree = ast.parse(Path(path).read_bytes()) if path else None
    except (OSError, SyntaxError, ValueError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            for item in node.body:
                targets = item.targets if isinstance(item, ast.Assign) else \
                    [item.target] if isinstance(item, ast.AnnAssign) else []
                names = {t.id for t in targets if isinstance(t, ast.Name)}
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(item.name)
                if name in names:
                    exc.where = f"{path}:{item.lineno}"
                    return exc
    return exc
