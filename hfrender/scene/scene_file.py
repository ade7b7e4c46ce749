"""What a scene file says without running it (:mod:`ast`): that it is a scene's kind of
file, that a Python one parses and holds the class asked for, and its duration where its
class body sets one (a batch checks every job, and counts its frames, before any runs).
Loading and running a scene: :mod:`hfrender.scene.loader`."""

from __future__ import annotations

import ast
from pathlib import Path

from hfrender.scene import Scene
from hfrender.scene.loader import SceneError, _missing, _scene_path, _syntax
from hfrender.scene.sources import SHADER_SUFFIXES


def check_scene_file(path: str | Path, name: str | None = None) -> None:
    """What can be told of a scene file without running it (a batch checks every job
    before any runs): it is a scene's kind of file, a Python one parses, and the class
    ``name`` is defined in it (at its top level or inside an ``if`` or ``try``; or bound
    by an assignment: an alias), else the names of the classes it defines, nearest first.
    That the class is a Scene is found when the job runs."""
    p = _scene_path(path, name, "scene_class")
    if p.suffix.lower() in SHADER_SUFFIXES:
        return
    try:
        tree = ast.parse(p.read_bytes(), str(p))
    except SyntaxError as exc:
        raise _syntax(p, exc) from None
    if name is None:
        _one_scene(p, tree)
        return
    nodes = list(ast.walk(tree))
    classes = [n.name for n in nodes if isinstance(n, ast.ClassDef)]
    bound = set(classes) | {t.id for n in nodes if isinstance(n, (ast.Assign, ast.AnnAssign))
                            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                            if isinstance(t, ast.Name)}
    if name not in bound:  # an imported class is none of the file's scenes (load_scene)
        raise SceneError(_missing(f"{p}: no class named {name!r}", name, classes))


def _one_scene(p: Path, tree: ast.Module) -> None:
    """Refuse a file of several scenes (a job without scene_class): the Scene classes at
    its top level (in an ``if`` or ``try`` too; not a class made inside a function), less
    those another extends, as :func:`load_scene` counts them."""
    defined = [n for n in _top_level(tree.body) if isinstance(n, ast.ClassDef)]
    found = _scene_classes(defined)
    bases = {b.id for n in defined if n.name in found for b in n.bases
             if isinstance(b, ast.Name)}
    leaves = sorted(found - bases) or sorted(found)
    if len(leaves) > 1:
        raise SceneError(f"{p} has several scenes ({', '.join(leaves)}); choose one with "
                         f'scene_class = "{leaves[0]}"')


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's statements that bind its own names: its body, and the bodies of its
    ``if``, ``try``, ``with`` and loops (not of functions or classes)."""
    out = []
    for node in body:
        out.append(node)
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(node, field, None)
            if isinstance(inner, list) and not isinstance(
                    node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out += _top_level(inner)
    return out


def scene_duration(path: str | Path, name: str | None = None) -> float | None:
    """A scene file's duration in seconds as far as it can be told without running it (a
    batch checks frame ranges before any job runs): a shader's is the default; a Python
    scene's the number its class sets (``duration = 2.5``), or the default where its class
    derives from Scene alone and sets none. None where that takes running the script."""
    p = Path(path)
    if p.suffix.lower() in SHADER_SUFFIXES:
        return float(Scene.duration)
    try:
        tree = ast.parse(p.read_bytes(), str(p))
    except (OSError, SyntaxError, ValueError):
        return None
    defined = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    scenes = _scene_classes(defined)
    classes = [n for n in defined if (n.name == name if name else n.name in scenes)]
    if len(classes) != 1:  # none, or several (load_scene wants the one named)
        return None
    found = [n for n in ast.walk(classes[0]) if _sets_duration(n)]
    if not found:  # Scene's own, where the class derives from it alone
        bases = classes[0].bases
        return float(Scene.duration) if len(bases) == 1 and _names_scene(bases[0]) else None
    node = found[0]  # one plain `duration = 2.5` in the class body, and nothing else
    value = getattr(node, "value", None)
    number = value.value if isinstance(value, ast.Constant) else None
    plain = (len(found) == 1 and node in classes[0].body and isinstance(number, (int, float))
             and not isinstance(number, bool))
    return float(number) if plain else None


def _scene_classes(defined: list[ast.ClassDef]) -> set[str]:
    """The names of the classes (of a file's ``defined``) that derive from Scene, through
    the file's own classes too."""
    scenes: set[str] = set()
    while True:
        more = {n.name for n in defined if any(
            _names_scene(b) or (isinstance(b, ast.Name) and b.id in scenes) for b in n.bases)}
        if more <= scenes:
            return scenes
        scenes |= more


def _sets_duration(node: ast.AST) -> bool:
    """Whether ``node`` binds a ``duration``: an assignment (``duration =``,
    ``self.duration =``), a method or property of that name."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name == "duration"
    targets = (node.targets if isinstance(node, ast.Assign) else
               [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
    return any((isinstance(t, ast.Name) and t.id == "duration")
               or (isinstance(t, ast.Attribute) and t.attr == "duration") for t in targets)


def _names_scene(base: ast.expr) -> bool:
    """A class base written ``Scene``, ``hf.Scene`` or ``hfrender.Scene``."""
    return (isinstance(base, ast.Name) and base.id == "Scene") or (
        isinstance(base, ast.Attribute) and base.attr == "Scene")
