"""What is wrong with a model file, said plainly (for :mod:`hfrender.scene.meshes`): a file
that is no glTF at all, one with no triangles and why, and the files a model names that
trimesh could not find."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import InputError


class ModelError(InputError):
    """A model file that cannot be used: the message names the file and what is wrong."""


def check_file(shown: Path, path: Path) -> None:
    """What is wrong with a file that is empty, or no glTF 2.0 at all, said plainly (was, of
    an empty .glb, .gltf or .ply: 'not a glTF 2.0 binary file', 'invalid JSON (Expecting
    value ...)', 'ValueError: Not a ply file!')."""
    kind = path.suffix.lower()
    with path.open("rb") as f:
        head = f.read(4097)
    if not head.strip() and len(head) <= 4096:
        raise ModelError(f"{shown}: the file has no triangles: it is empty")
    if kind == ".glb" and (head[:4] != b"glTF" or head[4:8] != b"\x02\x00\x00\x00"):
        raise ModelError(f"{shown}: not a glTF 2.0 binary file (it does not start with "
                         "'glTF' version 2)")
    if kind == ".gltf":
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise ModelError(f"{shown}: not a glTF file: invalid JSON ({exc})") from None


_WRAPS = {33071: "CLAMP_TO_EDGE", 33648: "MIRRORED_REPEAT"}  # glTF's default: REPEAT
TRIMESH = (4, 12)  # the least trimesh: 4.12 takes a glTF emissiveFactor past 1 (a strength)


def not_drawn(shown: Path, header: dict, uvs: list[np.ndarray]) -> str | None:
    """One line of what a glTF file (its JSON ``header``, :func:`read_scene`'s) asks for
    that hfrender does not draw, or None: KHR_texture_transform, a texture's second UV set
    (``texCoord`` 1 or more: trimesh keeps TEXCOORD_0 alone), (where the UVs ``uvs`` of
    its textured parts leave 0..1) a wrap other than repeating, and a vertex attribute's
    sparse rows (trimesh 5 reads a sparse accessor's base alone). (Was: dropped without a
    word.)"""
    said = []
    others = sorted({f"{m.get('name', f'#{i}')!r}" for i, m in enumerate(header.get(
        "materials", [])) for info in (m.get("emissiveTexture"), m.get(
            "pbrMetallicRoughness", {}).get("baseColorTexture")) if _uv_set(info)})
    if others:
        said.append(f"its textures' other UV sets (texCoord of material {', '.join(others)}: "
                    "drawn at TEXCOORD_0)")
    if "KHR_texture_transform" in header.get("extensionsUsed", ()):
        said.append("its texture transforms (KHR_texture_transform)")
    wraps = sorted({_WRAPS[w] for s in header.get("samplers", ())
                    for w in (s.get("wrapS"), s.get("wrapT")) if w in _WRAPS})
    if wraps and any((np.abs(uv - 0.5) > 0.5001).any() for uv in uvs):
        said.append(f"its textures' wrap {', '.join(wraps)} (drawn repeating, past UVs 0..1)")
    if sparse := _sparse_attributes(header):
        said.append(f"its vertices' sparse rows ({sparse}: trimesh reads a sparse accessor's "
                    "base alone)")
    if not said:
        return None
    listed = ", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0]
    return f"{shown}: drawn without {listed}: hfrender does not draw them"


def _sparse_attributes(header: dict) -> str:
    """The first mesh attribute of a glTF file (its JSON ``header``) held in a sparse
    accessor, named (and how many more), or ''. (Morph targets' and skins' sparse accessors
    are hfrender's to read, and read: not these.)"""
    accessors = header.get("accessors", ())
    found = [f"{name} of primitive {k} of mesh {m.get('name') or f'#{i}'!r}"
             for i, m in enumerate(header.get("meshes", ()))
             for k, prim in enumerate(m.get("primitives", ()))
             for name, a in prim.get("attributes", {}).items()
             if isinstance(a, int) and 0 <= a < len(accessors) and "sparse" in accessors[a]
             and not name.startswith(("JOINTS_", "WEIGHTS_"))]
    return "" if not found else found[0] + f" and {len(found) - 1} more" * (len(found) > 1)


def _uv_set(info: Any) -> bool:
    """Whether a material's textureInfo ``info`` names a UV set past TEXCOORD_0."""
    return isinstance(info, dict) and info.get("texCoord", 0) not in (0, None)


def as_drawn(path: Path, header: dict) -> io.BytesIO | None:
    """The glTF file ``path`` (its JSON ``header``, changed so) as trimesh is to read it:
    each material's ``emissiveFactor`` times its ``KHR_materials_emissive_strength`` (which
    trimesh drops; its ``emissiveTexture`` multiplies the two), and each material with an
    ``emissiveTexture`` named :func:`glow_name` in what trimesh reads (``header`` keeps its
    names): one whose image trimesh could not read is told from another of its name (or
    unnamed) that has none (was: a lamp beside such a screen left unlit). None where no
    material has either."""
    changed = [m for m in header.get("materials", ()) if "emissiveFactor" in m and
               "KHR_materials_emissive_strength" in m.get("extensions", {})]
    glowing = any("emissiveTexture" in m for m in header.get("materials", ()))
    if not changed and not glowing:
        return None
    for m in changed:
        strength = m["extensions"]["KHR_materials_emissive_strength"].get("emissiveStrength",
                                                                          1.0)
        if isinstance(strength, bool) or not isinstance(strength, (int, float)) or \
                not 0.0 <= strength < float("inf"):
            raise ValueError(f"material {m.get('name', '?')!r}: emissiveStrength {strength!r} "
                             "is not a number of 0 or more")
        m["emissiveFactor"] = [float(c) * strength for c in m["emissiveFactor"]]
    drawn = {**header, "materials": [
        {**m, "name": glow_name(i)} if "emissiveTexture" in m else m
        for i, m in enumerate(header.get("materials", ()))]} if glowing else header
    text = json.dumps(drawn).encode()
    if path.suffix.lower() == ".gltf":
        return io.BytesIO(text)
    data = path.read_bytes()  # a .glb: its JSON chunk replaced, padded to 4 bytes
    text += b" " * (-len(text) % 4)
    rest = data[20 + int.from_bytes(data[12:16], "little"):]
    return io.BytesIO(data[:8] + (20 + len(text) + len(rest)).to_bytes(4, "little") +
                      len(text).to_bytes(4, "little") + data[16:20] + text + rest)


def glow_name(index: int) -> str:
    """The name trimesh reads for material ``index`` of a glTF, one with an
    ``emissiveTexture`` (:func:`as_drawn`)."""
    return f"hfrender: material #{index}, emissive textured"


def _header(path: Path) -> dict:
    """A glTF file's JSON (a .glb's first chunk)."""
    if path.suffix.lower() == ".gltf":
        return json.loads(path.read_text(encoding="utf-8"))
    with path.open("rb") as f:
        head = f.read(20)
        return json.loads(f.read(int.from_bytes(head[12:16], "little")))


_NO_MTL = re.compile(r"unable to load materials from: (.+)")  # trimesh's OBJ loader


@contextmanager
def missing_files() -> Iterator[list[str]]:
    """The files a model names that trimesh could not find while loading it (a texture
    image, an OBJ's ``.mtl``): trimesh logs them at debug level, each with its
    FileNotFoundError (a ``.mtl``: by its message alone)."""
    found: list[str] = []
    logger = logging.getLogger("trimesh")
    shown = logger.getEffectiveLevel()  # what the user would have seen of trimesh's log

    class Missing(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            exc = record.exc_info[1] if record.exc_info else None
            cause = exc if isinstance(exc, FileNotFoundError) else getattr(exc, "__context__",
                                                                            None)
            if isinstance(cause, FileNotFoundError):  # the name as the model gives it
                found.append(str(cause.filename or (cause.args or ("?",))[0]))
            said = _NO_MTL.match(record.getMessage())  # an OBJ's .mtl: said without the
            if said and exc is None:  # error (one that is there but broken: with it)
                found.append(said.group(1))
            if record.levelno >= shown:  # the rest of trimesh's log as before
                logging.getLogger().handle(record)

    handler, level, propagate = Missing(), logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield found
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


def why_none(path: Path) -> str:
    """Why trimesh found no triangles in ``path``, where its format tells (was: "no
    triangles" for a binary STL cut short, or another file named .stl or .obj)."""
    suffix, data = path.suffix.lower(), path.read_bytes()
    if not data.strip():  # (was: "text that is not an ASCII STL" of an empty .stl)
        return ": it is empty"
    if suffix == ".stl" and not data.lstrip().startswith(b"solid"):
        if all(32 <= b < 127 or b in b"\t\r\n" for b in data[:84]):
            return ": text that is not an ASCII STL (which begins 'solid'): not an STL file?"
        count = int.from_bytes(data[80:84], "little")
        if len(data) != 84 + 50 * count:
            return (f": not a whole binary STL file (its header says {count:,} triangles, "
                    f"{84 + 50 * count:,} bytes; the file has {len(data):,}): cut short, or "
                    "not an STL file")
    if suffix == ".obj":
        lines = {line.split(maxsplit=1)[0] for line in data.splitlines() if line.strip()}
        if b"v" not in lines:
            return ": no vertex lines ('v x y z'): not an OBJ file?"
        if b"f" not in lines:
            return ": vertices but no face lines ('f ...'): points or lines, not a mesh"
    return " (a model needs a triangle mesh)"


def read_scene(trimesh: Any, path: Path) -> tuple[Any, Any, dict | None]:
    """(trimesh's scene of the model in ``path``, the :func:`resolver` that found its
    files, a glTF's JSON as drawn (:func:`as_drawn`; None: another format)). A glTF's
    16-bit vertex colours (Blender's export) are read as 0..1: trimesh's Trimesh cast them
    to 8 bits, keeping the low byte (0.5 drawn as 0); those beside a material stay as the
    file has them, in its visual."""
    finder = resolver(trimesh, path)
    kind = path.suffix.lower()
    if kind not in (".glb", ".gltf"):
        return trimesh.load_scene(str(path), process=False, resolver=finder), finder, None
    load = trimesh.exchange.gltf.load_glb if kind == ".glb" else trimesh.exchange.gltf.load_gltf
    header = _header(path)  # (read once: as_drawn's and not_drawn's)
    with as_drawn(path, header) or path.open("rb") as f:
        parsed = load(file_obj=f, resolver=finder)
    for kwargs in parsed.get("geometry", {}).values():
        colors = kwargs.get("vertex_colors")
        if isinstance(colors, np.ndarray) and colors.dtype == np.uint16:
            kwargs["vertex_colors"] = colors / 65535.0
    return trimesh.load_scene(parsed), finder, header


def gltf_nodes(trimesh: Any, scene: Any, header: dict | None, animations: Any
               ) -> dict[str, int | None]:
    """Each geometry frame of trimesh's ``scene`` of a glTF file (its JSON ``header``): its
    node's index in the file (None: not found); empty where the file has no animations.
    Frames are found by trimesh's names of the file's nodes (a node's name, else its
    index, made unique), a primitive's frame under its node's."""
    if animations is None or header is None:
        return {}
    index: dict[str, int] = {}
    counts: dict = {}
    for i, node in enumerate(header.get("nodes", ())):
        index[trimesh.util.unique_name(node.get("name", str(i)), index, counts=counts)] = i
    parents, found = scene.graph.transforms.parents, {}
    for frame in scene.graph.nodes_geometry:
        name = frame
        while name is not None and name not in index:
            name = parents.get(name)
        found[frame] = None if name is None else index[name]
    return found


def resolver(trimesh: Any, path: Path) -> Any:
    """trimesh's finder of the files a model names (textures, buffers, an OBJ's ``.mtl``),
    finding them as exporters name them: in a folder beside the model's (``../textures/``,
    which trimesh 5 refuses, saying nothing), by a Windows path, or after ``map_Kd``'s
    options (``-s 1 1 1 tex.png``). Each was drawn without its texture. ``.read``: the
    files it found, each (resolved path, st_mtime_ns, st_size): the scene's files too."""

    class Finder(trimesh.resolvers.FilePathResolver):
        read: dict[Path, tuple[Path, int, int]]  # each file found, as it was read

        def get(self, name: str) -> bytes:
            for candidate in _candidates(name):
                place = Path(self.parent, candidate)
                if candidate and place.is_file():
                    data, stat = place.read_bytes(), place.stat()
                    found = place.resolve()
                    self.read[found] = (found, stat.st_mtime_ns, stat.st_size)
                    return data
            raise FileNotFoundError(name)

    finder = Finder(str(path))
    finder.read = {}
    return finder


def _candidates(name: str) -> Iterator[str]:
    """Where a file a model names may be, relative to the model's folder: as named, with a
    Windows path's separators, after each space (options before the name), and the name
    alone (a path on the machine that made the model: the file copied beside it)."""
    unix = name.strip().replace("\\", "/")
    yield name.strip()
    yield unix
    words = unix.split(" ")
    yield from (" ".join(words[i:]) for i in range(1, len(words)))
    yield unix.rsplit("/", 1)[-1]


def trimesh_module() -> Any:
    """trimesh, where it is installed and new enough (one line where not)."""
    try:
        import trimesh
    except ImportError:
        raise ModelError("hf.Mesh.load needs trimesh: pip install 'hfrender[models]'") from None
    have = tuple(int(x) for x in re.findall(r"\d+", trimesh.__version__)[:2])
    if have < TRIMESH:  # (an older one refuses a glTF emission past 1: "factors must be
        raise ModelError(  # between 0.0-1.0", a review of the windmill scenes)
            f"hf.Mesh.load needs trimesh >= {'.'.join(map(str, TRIMESH))} (this is "
            f"{trimesh.__version__}): pip install -U 'hfrender[models]'")
    return trimesh
