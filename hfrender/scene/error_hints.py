"""What a scene's error line adds to Python's words: the name Python's traceback would
suggest (``self.bal``: 'ball'), an import forgotten, the keywords of an hfrender object
given one it lacks, and manim's names used bare (moved out of :mod:`hfrender.scene.loader`,
which says the line)."""

from __future__ import annotations

import dataclasses
import re
import sys

import hfrender.scene as scene_package
from hfrender.errors import nearest
from hfrender.scene import checks, other_names


def pythons_suggestion(exc: BaseException) -> str:
    """"; did you mean 'ball'?" for ``self.bal``, a misspelt local, global or builtin: the
    name Python's own traceback suggests (``str(exc)`` has it not, and this line replaces
    the traceback); "; did you forget to import random?" for a module used unimported."""
    name = getattr(exc, "name", None)
    if not isinstance(exc, (AttributeError, NameError)) or not isinstance(name, str) \
            or "did you mean" in str(exc).lower():
        return ""
    if isinstance(exc, AttributeError):
        try:
            names = dir(exc.obj)
        except Exception:  # an object whose dir() raises: nothing to offer
            return ""
    elif name in sys.stdlib_module_names or name in _USUAL_IMPORTS:
        return f"; did you forget to import {_USUAL_IMPORTS.get(name, name)}?"
    else:
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next  # the frame where the name was looked up
        if tb is None:
            return ""
        frame = tb.tb_frame
        names = [*frame.f_locals, *frame.f_globals, *frame.f_builtins]
    near = nearest(name, [n for n in names if n != name  # (0.6: math -> 'format')
                          and (name.startswith("_") or not n.startswith("_"))], cutoff=0.75)
    return f"; did you mean '{near[0]}'?" if near else ""


_USUAL_IMPORTS = {"np": "numpy as np"}  # a name a scene uses unimported, as it is imported


_UNEXPECTED = re.compile(r"(\w+)\.(?:__init__|load)\(\) got an unexpected keyword argument "
                         r"'(\w+)'")


def keyword_hint(exc: BaseException) -> str:
    """"; did you mean radius=?" for ``hf.Sphere(radious=2)``: the keywords of the scene
    object named in a TypeError, nearest first (else all of them)."""
    m = _UNEXPECTED.search(str(exc)) if isinstance(exc, TypeError) else None
    from hfrender.scene import meshes, text

    cls = next((getattr(home, m.group(1)) for home in (scene_package, meshes, text)
                if hasattr(home, m.group(1))), None) if m else None  # hf.Text's: text.py
    if cls is None or not dataclasses.is_dataclass(cls):
        return ""
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    if m.group(2) in checks.NOT_HERE:  # aperture_rotation=: what hfrender has not
        return f"; {m.group(2)} is another tool's: {checks.NOT_HERE[m.group(2)]}"
    manim = checks.MANIM.get(m.group(2))  # direction=: what hfrender does instead
    if manim is not None and manim[1] and manim[0] in names:
        return f"; {m.group(2)} is manim's: {manim[1]}"
    other = checks.OTHER_NAMES.get(m.group(2))  # location=: Blender's name of position
    near = [other] if other in names else nearest(m.group(2), names)
    return f"; did you mean {near[0]}=?" if near else f"; {m.group(1)} takes {', '.join(names)}"


def manim_name_hint(exc: BaseException) -> str:
    """"; manim's BLUE_E is color='#236B8E' (or color='BLUE_E')" for a name of manim's
    a ported scene uses bare (``color=BLUE_E``, its ``from manim import *`` gone: was
    "name 'BLUE_E' is not defined" alone), as ``hf.BLUE_E`` says; DEGREES and manim's other
    names that hfrender answers (other_names.HF_HINTS) alike."""
    from hfrender.color import manim_color_hint

    name = exc.name if isinstance(exc, NameError) else None
    said = (manim_color_hint(name) or other_names.HF_HINTS.get(name)) if name else None
    return f"; {said}" if said else ""
