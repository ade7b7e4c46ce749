"""A model file read into :class:`ModelData`: its parts, bounds, animations and cameras.

:func:`read_model` reads a file with trimesh (glTF node transforms baked into the parts,
a glTF's animations, skins and cameras read from its own buffers) and checks what it
finds; :mod:`hfrender.scene.meshes` caches the result and places it in a scene as a Mesh.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hfrender.scene import model_files
from hfrender.scene.model_animation import Animations, not_played, read_animations
from hfrender.scene.model_cameras import FileCamera, read_cameras
from hfrender.scene.model_files import (
    ModelError,
    check_file,
    missing_files,
    read_scene,
    trimesh_module,
    why_none,
)
from hfrender.scene.model_parts import Part, merged, part
from hfrender.scene.model_skins import Skins

log = logging.getLogger("hfrender.scene.meshes")  # its lines named as before the move


@dataclass(frozen=True, eq=False)
class ModelData:
    key: str
    path: Path
    parts: tuple[Part, ...]
    triangles: int
    bounds: np.ndarray  # (2, 3) min and max corner, in the model's own units
    # the files it read besides its own (an OBJ's .mtl and textures, a .gltf's buffers),
    # each (resolved path, st_mtime_ns, st_size) as it read them: the scene's files too
    files: tuple[tuple[Path, int, int], ...] = ()
    animations: Animations | None = None  # a glTF's node animations (None: it has none)
    cameras: tuple[FileCamera, ...] = ()  # a glTF's camera nodes

    def __copy__(self) -> ModelData:
        return self

    def __deepcopy__(self, memo: dict) -> ModelData:
        """Itself: read-only data, shared by a scene's copies (the scene checks look at other
        times with one; was: every vertex copied, 18.7 ms a 327,680-triangle model)."""
        return self

    @property
    def emitters(self) -> list[tuple[float, float]]:
        """(brightest base colour, brightest emission), one channel each, linear, of each
        part whose material gives light of its own (:func:`hfrender.scene.past_white`)."""
        glows = [(p, p.glow()) for p in self.parts]
        return [(float(p.vertices["color"][:, :3].max()), glow) for p, glow in glows if glow > 0]

    @property
    def nbytes(self) -> int:
        """The memory its arrays take."""
        return int(self.bounds.nbytes + sum(
            p.vertices.nbytes + p.indices.nbytes + sum(t.nbytes for t in (
                p.texture, p.emission_texture) if t is not None) for p in self.parts))


def read_model(shown: Path, path: Path, key: str) -> ModelData:
    """The model file ``path`` read into :class:`ModelData` (``key``: its cache key), its
    errors and warnings naming it as ``shown``."""
    trimesh = trimesh_module()
    check_file(shown, path)
    try:
        with missing_files() as missing:
            scene, finder, header = read_scene(trimesh, path)
    except Exception as exc:  # trimesh raises many kinds for a broken file
        text = " ".join(str(exc).split())[:200]
        raise ModelError(f"{shown}: cannot read the {path.suffix.lower()[1:]} file: "
                         f"{type(exc).__name__}" + (f": {text}" if text else "")) from None
    gltf = header is not None  # its materials with an emissiveTexture, as trimesh names them
    textured = {model_files.glow_name(i) for i, m in enumerate((header or {}).get(
        "materials", ())) if "emissiveTexture" in m}
    buffers: dict[int, bytes] = {}  # the file's, read once for its animations and skins
    animations = None if header is None else read_animations(shown, path, header, buffers)
    nodes = model_files.gltf_nodes(trimesh, scene, header, animations)  # frame: node
    skins, parts = None if animations is None else Skins(shown, path, header, buffers), []
    for frame in scene.graph.nodes_geometry:
        transform, name = scene.graph[frame]
        geom, node = scene.geometry.get(name), nodes.get(frame)
        if isinstance(geom, trimesh.Trimesh) and len(geom.faces):
            made = part(geom, np.asarray(transform, np.float64), gltf, textured,
                        None if node is None else animations.carrier(node))
            parts.append(made if skins is None else skins.attach(made, geom, node, transform))
    if not parts:
        raise ModelError(f"{shown}: the file has no triangles{why_none(path)}")
    if missing:  # trimesh goes on without them, and says so only in its debug log
        log.warning("%s: %s %s not there (beside the model); drawn without %s, in the "
                    "model's colours", shown, ", ".join(missing),
                    "is" if len(missing) == 1 else "are", "it" if len(missing) == 1 else "them")
    parts = merged(parts)
    if animations is not None:  # (a weights channel of another count: refused now)
        animations.check_weights(shown, parts)
    textured = [p.vertices["uv"] for p in parts
                if p.texture is not None or p.emission_texture is not None]
    if header is not None and (unread := model_files.not_drawn(shown, header, textured)):
        log.warning(unread)
    for unplayed in [*(skins.said if skins else ()), not_played(shown, header or {})]:
        if unplayed:
            log.warning(unplayed)
    positions = np.concatenate([p.vertices["position"] for p in parts])
    finite = positions[np.isfinite(positions).all(1)]
    if len(finite) < len(positions):  # (was: bounds of NaN, refused later at the user's line)
        if not len(finite):
            raise ModelError(f"{shown}: no vertex of it is a finite number (NaN or infinity)")
        bad = len(positions) - len(finite)
        log.warning("%s: %d of its %d vertices %s NaN or infinite: the triangles using them "
                    "are not drawn, and its bounds are the other vertices'", shown, bad,
                    len(positions), "is" if bad == 1 else "are")
    return ModelData(key, path, tuple(parts), sum(len(p.indices) // 3 for p in parts),
                     np.stack([finite.min(0), finite.max(0)]).astype(np.float64),
                     tuple(finder.read.values()), animations,
                     () if header is None else read_cameras(header))
