"""A scene's own files beside its script: the modules of the user's own it imports (what
its picture depends on besides the script), and which files of a traceback are the user's
(not hfrender's, not Python's libraries)."""

from __future__ import annotations

import ast
import hashlib
import sysconfig
from functools import lru_cache
from pathlib import Path

from hfrender.checksum import sha256_file
from hfrender.errors import nearest, pastable


def scene_modules(path: str | Path) -> dict[str, str]:
    """The modules of the user's own that a scene file imports from its folder (``from
    common import COLOR``), and those they import in turn, each file's sha256 by its path
    relative to that folder: what a scene's picture depends on besides its own file (a
    resumed or up-to-date output must not mix in an older ``common.py``)."""
    root = Path(path).resolve().parent
    found: dict[str, str] = {}
    todo = [Path(path).resolve()]
    while todo:
        f = todo.pop()
        try:
            tree = ast.parse(f.read_bytes())
        except (OSError, SyntaxError, ValueError):
            continue
        package = f.parent.relative_to(root).parts  # a relative import's starting point
        for name in _imported(tree, package):
            for f in _module_files(root, name):
                key = f.relative_to(root).as_posix()
                if key not in found:
                    found[key] = hashlib.sha256(f.read_bytes()).hexdigest()
                    todo.append(f)
    return dict(sorted(found.items()))


def _imported(tree: ast.AST, package: tuple[str, ...]) -> list[str]:
    """Dotted names a module of ``package`` (its folder's parts under the scene's) imports:
    ``import a.b``, ``from a import b`` ("a", "a.b": b may be a module), and relative ones
    (``from . import c`` in pkg/: "pkg.c")."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            up = package[:len(package) - node.level + 1] if node.level else ()
            base = ".".join([*up, *([node.module] if node.module else [])])
            names += [base] if base else []
            names += [f"{base}.{a.name}".lstrip(".") for a in node.names if a.name != "*"]
    return names


def _module_files(root: Path, name: str) -> list[Path]:
    """The files under ``root`` that importing ``name`` runs (each package's
    ``__init__.py`` on the way, and the module), named as they are there: a link to a
    shared ``common.py`` counts as the file it points to."""
    parts, files = name.split("."), []
    for i in range(1, len(parts) + 1):
        at = root.joinpath(*parts[:i])
        files += [f for f in (at.with_suffix(".py"), at / "__init__.py") if f.is_file()]
    return files


def users_file(filename: str) -> bool:
    """Whether a traceback's file is a module of the user's own: a file, neither of
    hfrender nor of Python's libraries (the standard library, site-packages)."""
    p = Path(filename)
    return p.is_file() and not any(p.is_relative_to(d) for d in _library_dirs())


@lru_cache(maxsize=1)
def _library_dirs() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    found = {Path(paths[k]).resolve() for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    return (Path(__file__).resolve().parents[1], *found)


def shown_path(filename: str) -> str:
    """``filename`` relative to the working folder where it is inside it, else whole."""
    try:
        return str(Path(filename).relative_to(Path.cwd().resolve()))
    except ValueError:
        return filename


def surface_files(name: str, scene_dir: Path) -> list[Path]:
    """Where a surface shader ``name`` of the scene's own would be, in the order looked:
    ``NAME`` or ``NAME.glsl`` beside the scene (the renderer's lookup, before its own)."""
    return [scene_dir / name, scene_dir / f"{name}.glsl"]


def read_files(scene: object) -> list[tuple[Path, str]]:
    """The files the scene reads besides its script, modules and surface shaders, resolved,
    each with what it is: its models and the files each read (an OBJ's .mtl and textures,
    a .gltf's buffers), its texts' fonts; a shader scene's channel pictures, common file
    and buffers' shaders (and theirs). (The scene's files for a batch and --resume,
    :func:`asset_files`; what --ray checks lies in the scene's folder.)"""
    found: list[tuple[Path, str]] = []
    for obj in getattr(scene, "objects", []):  # (its own fields read as they are: a scene
        model = getattr(obj, "__dict__", {}).get("_model")  # of 10,000 asked each hyperframe)
        if model is not None:
            found.append((Path(model.path), "model"))
            found += [(f[0], "model's texture") for f in model.files]
        if callable(getattr(type(obj), "files", None)):  # a text's font
            found += [(f, "font") for f in obj.files()]
    buffers = getattr(scene, "buffers", [])  # a shader scene's (and their own files)
    for shader in [scene, *buffers] if hasattr(scene, "channel_files") else ():
        found += [(Path(shader.source_path), "buffer's shader")] * (shader is not scene)
        found += [(p, "picture") for p, _ in shader.channel_files().values()]
        found += [(c[0], "common file") for c in [shader.common_file()] if c]
    return [(path.resolve(), kind) for path, kind in dict.fromkeys(found)]  # (each once:
    #                    300 texts in one font resolved it 300 times, each hyperframe's look)


def asset_files(scene: object) -> list[Path]:
    """The files the scene's objects read besides its script and modules: its surface
    shaders beside it (a built-in shader is hfrender's own) and :func:`read_files`."""
    source = getattr(scene, "source_path", None)
    root = Path(source).resolve().parent if source else None
    found = {path for path, _ in read_files(scene) if path.is_file()}
    given: set = set()
    for obj in getattr(scene, "objects", []):  # each shader it was given: update(t)'s too
        given.add(getattr(obj, "shader", None))
        given.update(getattr(obj, "__dict__", {}).get("_shaders", ()))
    # (a name or a Path, each taken: sorted as text, a str and a Path not comparable)
    for shader in sorted((s for s in given if s), key=str) if root is not None else ():
        own = next((f for f in surface_files(shader, root) if f.is_file()), None)
        if own is not None:
            found.add(own.resolve())
    return sorted(found)


def scene_assets(scene: object, known: dict[str, str] | None = None) -> dict[str, str]:
    """:func:`asset_files`' sha256 by path (relative to the scene's folder where inside
    it): what a resumed render must find unchanged (was: a changed ``glow.glsl`` mixed its
    frames in after --resume); one in ``known`` is not read again (its sha256 there)."""
    source = getattr(scene, "source_path", None)
    root = Path(source).resolve().parent if source else None
    known = known or {}
    named = {(f.relative_to(root).as_posix() if root and f.is_relative_to(root) else str(f)):
             f for f in asset_files(scene)}
    return {k: known.get(k) or sha256_file(f) for k, f in named.items()}


SHADER_SUFFIXES = (".frag", ".glsl", ".fs")


def missing_scene(path: str | Path) -> str:
    """The line for a scene ``path`` that is no file: a folder's scene files named (was:
    "scene file not found" of a folder that is there); a misspelt file's nearest."""
    p = Path(path)
    if not str(path).strip():  # (was " is a folder, not a scene file": the current one)
        return f"{pastable(path)}: an empty path; name the scene's file (a .py script or a shader)"
    if not p.is_dir():
        try:  # a typo: the nearest scene file beside it (was: not found, and no more)
            near = nearest(p.name, [f.name for f in p.parent.iterdir()
                                    if f.suffix.lower() in (".py", *SHADER_SUFFIXES)])
        except OSError:
            near = []
        return f"scene file not found: {path}" + (
            f"; did you mean {p.with_name(near[0])}?" if near else "")
    found = sorted(f.name for f in p.iterdir() if f.is_file() and not f.name.startswith(".")
                   and f.suffix.lower() in (".py", *SHADER_SUFFIXES))
    listed = f" (in it: {', '.join(found[:6])}{', ...' if len(found) > 6 else ''})" \
        if found else " (it holds no .py or shader file)"
    return f"{path} is a folder, not a scene file: name the scene's file{listed}"
