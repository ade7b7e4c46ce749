"""Loading a scene script: a Python file with Scene subclasses, or a fragment shader."""

from __future__ import annotations

import codecs
import contextlib
import importlib.util
import inspect
import re
import sys
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from hfrender.errors import HFRenderError, InputError, Spelling, nearest, saying, spelling
from hfrender.scene import Scene, ShaderScene, other_names
from hfrender.scene.error_hints import keyword_hint, manim_name_hint, pythons_suggestion
from hfrender.scene.scene_modules import forget_scene_modules
from hfrender.scene.shader_code import UNCLOSED_COMMENT, unclosed_comment
from hfrender.scene.sources import (
    SHADER_SUFFIXES,
    missing_scene,
    shown_path,
    users_file,
)


class SceneError(InputError):
    """The scene script cannot be used as given (one line for the user)."""


def load_scene(path: str | Path, name: str | None = None,
               duration: float | None = None) -> Scene:
    """Instantiate the scene in ``path``: the class ``name``, or the only Scene subclass.
    ``duration`` (``--duration``): the scene's own, as its ``setup``, ``update`` and the
    hints about ``t`` see it (a class's ``duration`` property is left as it is)."""
    scene = _instance(path, name)
    if duration is not None:
        object.__setattr__(scene, "_own_duration", scene.duration)  # (its keys' check's)
        with contextlib.suppress(AttributeError):  # a property of that name, read-only
            scene.duration = float(duration)
        object.__setattr__(scene, "_duration_given", True)  # (update's own: no mistake)
    return scene


def _instance(path: str | Path, name: str | None) -> Scene:
    p = _scene_path(path, name)
    if p.suffix.lower() in SHADER_SUFFIXES:
        return ShaderScene(shader_text(p), str(p))
    module = _import(p)
    found = {n: c for n, c in vars(module).items()
             if inspect.isclass(c) and issubclass(c, Scene) and c not in (Scene, ShaderScene)
             and c.__module__ == module.__name__}
    # a base class that another scene of the file extends is not a scene of its own, unless
    # named (-s Alpha, with Beta(Alpha) beside it: was "no Scene named 'Alpha'"); a misspelt
    # -s lists them too
    bases, every = {b for c in found.values() for b in c.__mro__[1:]}, sorted(found)
    found = {n: c for n, c in found.items() if c not in bases or n == name} or found
    if not found:
        raise SceneError(f"{p}: no Scene subclass found (write `class MyScene(hf.Scene):`)")
    if name is None:
        if len(found) > 1:
            raise SceneError(f"{p} has several scenes ({', '.join(sorted(found))}); "
                             f"choose one with {spelling().said('scene_class', 'NAME')}")
        (cls,) = found.values()
    elif name in found:
        cls = found[name]
    else:
        raise saying(SceneError, partial(_scene_said, str(p), name, _missing("", name, every)))
    try:
        scene = cls()
    except (Exception, SystemExit) as exc:  # the scene's own __init__: its file and line
        kind = SceneInputError if isinstance(exc, InputError) or keyword_hint(exc) \
            else SceneUpdateError
        raise kind(f"scene error in {cls.__name__}(): {located(exc, p)}") from exc
    scene.source_path = str(p)
    _check_calls(scene, p)
    return scene


def _check_calls(scene: Scene, p: Path) -> None:
    """``setup()`` and ``update(t)`` take what they are called with: one line at the
    scene's ``def`` (was: Python's "takes 1 positional argument but 2 were given", from
    the first frame, with no line of the scene's)."""
    for name, args, want in (("setup", (), "def setup(self)"),
                             ("update", (0.0,), "def update(self, t)")):
        fn = getattr(scene, name, None)
        if not callable(fn):  # (was: an internal error from inspect)
            raise SceneInputError(f"{type(scene).__name__}.{name} is {fn!r}, not a method: "
                                  f"write {want}")
        try:
            inspect.signature(fn).bind(*args)
        except TypeError:
            code = getattr(getattr(fn, "__func__", fn), "__code__", None)
            line = f" ({p}:{code.co_firstlineno})" if code is not None and \
                Path(code.co_filename).resolve() == p.resolve() else ""
            raise SceneInputError(f"{type(scene).__name__}.{name}{inspect.signature(fn)} is "
                                  f"called as {name}({'t' if args else ''}): write "
                                  f"{want}{line}") from None
        except ValueError:  # no signature to read (a builtin): its call will tell
            pass
        _not_plain(scene, name, fn, p, want, args)


_PLAIN = {"update": "that sets every object from t and returns nothing (manim's self.play "
                    "and self.wait are update(t) from t alone)",
          "setup": "that adds the objects and returns nothing"}


def _not_plain(scene: Scene, name: str, fn: Callable, p: Path, want: str,
               args: tuple) -> None:
    """A ``setup`` or ``update`` with ``yield`` or ``async def``: one line at its ``def``
    (was: a generator or coroutine made at each call, its body never run: every frame as
    ``setup()`` left it, exit 0, without a word)."""
    plain = getattr(fn, "__func__", fn)
    kind = "a generator function (it has yield)" if inspect.isgeneratorfunction(plain) \
        else "a coroutine function (async def)" if inspect.iscoroutinefunction(plain) \
        else "an async generator function (async def with yield)" \
        if inspect.isasyncgenfunction(plain) else None
    if kind is None:
        return
    code = getattr(inspect.unwrap(plain), "__code__", None)  # (a partialmethod has none)
    line = f" ({p}:{code.co_firstlineno})" if code is not None and \
        Path(code.co_filename).resolve() == p.resolve() else ""
    raise SceneInputError(f"{type(scene).__name__}.{name} is {kind}{line}: hfrender calls "
                          f"{name}({'t' if args else ''}) and uses nothing it returns, so its "
                          f"body would never run; write {want} {_PLAIN[name]}")


def shader_text(path: Path) -> str:
    """A shader file's text (``path`` read: an Image's, a buffer's, a common or surface file):
    UTF-16 where a byte-order mark says so (PowerShell's ``>``, Notepad's "Unicode"), else
    UTF-8, else Latin-1 (an older file's \xa9 in a comment; GLSL code itself is ASCII); a
    CR alone (classic Mac OS) ends a line as it does in an editor. Was: "defines no
    mainImage" or "is empty" for those, the text read as one comment line. A ``/*`` never
    closed is refused at its line (:func:`~hfrender.scene.shader_code.unclosed_comment`)."""
    data = path.read_bytes()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        with contextlib.suppress(UnicodeDecodeError):  # (else: a NUL byte, said below)
            data = data.decode("utf-16").encode("utf-8")
    if b"\0" in data:  # (was: the compiler's "unexpected end of file" at the NUL)
        line = len(re.split(rb"\r\n?|\n", data[:data.index(b"\0")]))
        raise SceneError(f"{path}: not a text file (a NUL byte on line {line}); a shader is "
                         "GLSL text defining void mainImage(out vec4, in vec2)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    text = re.sub(r"\r(?!\n)", "\n", text)
    line = unclosed_comment(text)
    if line is not None:  # (was: "is empty", the rest of the file a comment)
        raise SceneError(f"{path}:{line}: {UNCLOSED_COMMENT}")
    return text


def _syntax(p: Path, exc: SyntaxError) -> SceneError:
    """A Python scene's syntax error; one that is GLSL is told to be named as a shader."""
    glsl = re.search(r"\bvoid\s+main(Image)?\s*\(", exc.text or "") or re.search(
        r"\bvoid\s+mainImage\s*\(", p.read_text(errors="replace"))
    said = (f"; it reads as a Shadertoy-style shader (mainImage): name it {p.stem}.frag"
            if glsl else "")
    return SceneError(f"{p}:{exc.lineno}: syntax error: {exc.msg}{said}")


def _scene_path(path: str | Path, name: str | None, flag: str | None = None) -> Path:
    """``path`` if it is a scene's kind of file, with no class ``name`` asked of a shader;
    else one line naming ``name`` as ``flag`` (a jobs file's ``scene_class``), else as its
    caller gave it (``-s NAME`` to the command, ``scene_class='NAME'`` to hf.render and
    hf.still: :class:`hfrender.errors.Spelling`'s ``said``, as every setting a line names)."""
    p = Path(path)
    if not p.is_file():
        raise SceneError(missing_scene(p))
    size = re.fullmatch(r"(\d+)\s*[xX:*]\s*(\d+)", name or "")
    if size and flag is None:  # ffmpeg's -s (was: no class or no scene classes of that name)
        spell, wide = spelling(), "x".join(size.groups())
        raise SceneError(f"{spell.said('scene_class', name)}: {spell.name('scene_class')} names "
                         f"the scene class; the size is {spell.said('size', wide)}")
    if p.suffix.lower() in SHADER_SUFFIXES:
        if name:
            said = f"{flag} {name}" if flag else spelling().said("scene_class", name)
            raise SceneError(f"{said}: {p.name} is a shader file, it has no scene classes")
    elif p.suffix != ".py":
        raise SceneError(f"{p}: a scene is a Python file (.py) or a fragment shader "
                         f"({', '.join(SHADER_SUFFIXES)})")
    return p


def _scene_said(path: str, name: str, rest: str, spell: Spelling) -> str:
    """A scene name the file lacks: as a command typed it (``--scene X``, ``-s ''``: was
    "FILE: no Scene named 'X'", the flag unnamed), else ``FILE: no Scene named 'X'``."""
    typed = spell.given("scene") if spell.given else None
    return f"{typed}: no Scene of that name in {path}{rest}" if typed else \
        f"{path}: no Scene named {name!r}{rest}"


def _missing(said: str, name: str, names: list[str]) -> str:
    """``said`` and the names nearest ``name`` ("did you mean"), else all of them."""
    near = nearest(name, names, n=3, cutoff=0.5)  # "orbit" is Orbit
    if not names:
        return f"{said}; it defines no classes"
    return f"{said}; did you mean {' or '.join(near)}?" if near else \
        f"{said}; found {', '.join(names)}"


_IMPORTING = threading.RLock()  # (a scene importing while imported: the same thread)
IMPORT_WAIT_S = 120.0  # another thread's import of a scene file waited for, at most


def _import(p: Path) -> object:
    """The scene file's module, run afresh, and with it the modules of the user's own
    beside it, and beside every scene loaded before (a batch's jobs), imported by a scene
    (at its top, or in its setup()): they are forgotten, so that a changed ``common.py``,
    or another folder's, is the one read; the caller's (its ``__main__``, a ``settings.py``
    it imported before its first scene of that folder) and modules elsewhere
    (PYTHONPATH's, an editable install) left alone. One thread at a time (the process's
    modules, path)."""
    if not _IMPORTING.acquire(timeout=IMPORT_WAIT_S):  # (was: waited for ever, a review)
        raise SceneError(f"{p}: another thread has been importing a scene file for "
                         f"{IMPORT_WAIT_S:g} s; a scene file that renders a scene from a "
                         "thread at its top waits for itself: put that under "
                         "if __name__ == '__main__':")
    try:
        return _import_alone(p)
    finally:
        _IMPORTING.release()


def _import_alone(p: Path) -> object:
    folder = p.resolve().parent
    forget_scene_modules(folder)
    if str(folder) in sys.path:  # a scene imports the modules that sit beside it: its own
        sys.path.remove(str(folder))  # folder first, before another scene's
    sys.path.insert(0, str(folder))
    mod_name = f"hfrender_scene_{abs(hash(str(p.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, p)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise _syntax(p, exc) from None
    except (Exception, SystemExit) as exc:  # sys.exit() in a scene ends the scene, not us
        kind = SceneError if isinstance(exc, InputError) or keyword_hint(exc) \
            else SceneUpdateError  # the scene's own code raising: exit 1, as in setup()
        raise kind(f"{p}: importing the scene failed: {located(exc, p)}") from exc
    return module


def located(exc: BaseException, path: str | Path) -> str:
    """``ExcType: message (file:line)`` with the deepest frame inside ``path``, and the
    deeper one in a module of the user's own that it called, if any (``helpers.py:2,
    called from scene.py:9``); for a misspelt keyword of one of hfrender's scene objects,
    the nearest it takes."""
    place = scene_place(exc, path)
    where = told_line(exc, path) or (f" ({place})" if place else "")
    if isinstance(exc, SystemExit):  # a scene cannot end the render (or the batch)
        return f"it called sys.exit({exc.code!r}){where}"
    hint = (keyword_hint(exc) or other_names.called_field(exc)  # (obj.scale(2): manim's)
            or other_names.group_as_list(exc) or manim_name_hint(exc)
            or pythons_suggestion(exc))
    return f"{type(exc).__name__}: {exc}{where}{hint}"


def scene_place(exc: BaseException, path: str | Path) -> str:
    """``scene.py:9``, the deepest line of ``exc``'s traceback in the scene's file ``path``,
    and the deeper one in a module of the user's own that it called, if any
    (``helpers.py:2, called from scene.py:9``); ``""`` where none is in it."""
    where, helper = "", ""
    target = str(Path(path).resolve())
    tb = exc.__traceback__
    while tb is not None:
        name = str(Path(tb.tb_frame.f_code.co_filename).resolve())
        if name == target:
            where, helper = f"{path}:{tb.tb_lineno}", ""
        elif where and users_file(name):
            helper = f"{shown_path(name)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return f"{helper}, called from {where}" if helper else where


def told_line(exc: BaseException, path: str | Path | None) -> str:
    """`` (file:line)`` where ``exc`` says it was caused in ``path`` (its ``where``: a
    class body's line, ``checks.at_line``, or the line that set a camera's value), else
    ``""``."""
    told = getattr(exc, "where", None)
    if not path or not isinstance(told, str) or ":" not in told:
        return ""
    name, line = told.rsplit(":", 1)
    return f" ({path}:{line})" if str(Path(name).resolve()) == str(Path(path).resolve()) else ""


class SceneUpdateError(HFRenderError):
    """The scene's own code raised; the message has its file and line, t and the frame."""


class SceneInputError(SceneUpdateError, InputError):
    """The scene's code gave hfrender something it refuses (a model file it cannot read, a
    negative scale): bad input, told as such (exit code 2), with the scene's file and line."""


# each thread's scene call running now, (what, t), by thread id (none: hfrender's own
# code), said slow; given back as it was when the call ends (was kept: a slow part in
# hfrender's own code was said as the last scene call's t; one for every thread: another
# render's, a review)
CALLING: dict[int, tuple[str, float | None]] = {}


def call_scene(scene: Scene, what: str, fn: Callable, *args: Any, t: float | None = None,
               frame: int | None = None) -> Any:
    """``fn(*args)``; an exception becomes a SceneUpdateError naming the scene's file:line,
    t and the output frame; :data:`CALLING` says it while it runs."""
    me = threading.get_ident()
    before = CALLING.get(me)  # (a call inside another: the outer one's again after)
    CALLING[me] = (what, t)
    try:
        return fn(*args)
    except KeyboardInterrupt as exc:  # Ctrl-C (a hang): where the scene's own code was
        _stopped_in(exc, scene, what, t)
        raise
    except (Exception, SystemExit) as exc:  # sys.exit() in a scene ends the scene, not us
        where = located(exc, scene.source_path) if scene.source_path else repr(exc)
        when = "" if t is None else f" at t={t:.6g} s (output frame {frame})"
        kind = SceneInputError if isinstance(exc, InputError) or keyword_hint(exc) \
            else SceneUpdateError
        why = _outside(scene, t) if what == "update(t)" else ""
        raise kind(f"scene error in {what}{when}: {where}{why}") from exc
    finally:
        if before is None:
            CALLING.pop(me, None)
        else:
            CALLING[me] = before


def _stopped_in(exc: KeyboardInterrupt, scene: Scene, what: str, t: float | None) -> None:
    """Notes on ``exc`` where the scene's own code was when it came (its ``scene_place``,
    ``loop.py:9, update(t=1.967)``: :func:`stopped_place`), unless a call inside this one
    did, or it came in hfrender's own code (no line of the scene's file in its traceback)."""
    place = scene_place(exc, scene.source_path) if scene.source_path else ""
    if place and not stopped_place(exc):
        at = "" if t is None else f"t={t:.4g}"
        when = f"update({at})" if what == "update(t)" else f"{what} at {at}" if at else what
        exc.scene_place = f"{place}, {when}"  # type: ignore[attr-defined]


def stopped_place(exc: BaseException) -> str:
    """Where the scene's own code was when the Ctrl-C ``exc`` stopped it (``loop.py:9,
    update(t=1.967)``), else ``""``."""
    return getattr(exc, "scene_place", "") or ""


def _outside(scene: Scene, t: float | None) -> str:
    """Why ``update`` sees a ``t`` before 0 or past the scene's duration, and what to do."""
    if t is None or 0 <= t <= scene.duration:
        return ""
    edge, position = (("before 0: the first frame's shutter opens before t = 0", "start")
                      if t < 0 else (f"past the duration ({scene.duration:g} s): the last "
                                     "frame's shutter closes after it", "end"))
    return (f"; t is {edge} (clamp t in update, t = max(0, min(t, duration)), or give "
            f"{spelling().said('shutter_position', position)})")
