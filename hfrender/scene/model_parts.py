"""The parts of a loaded model (:mod:`hfrender.scene.meshes`): trimesh's placed geometries
as interleaved vertices, their node transforms baked in, and those that draw alike joined
into one draw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hfrender.color import srgb_to_linear
from hfrender.scene.model_colours import emission_of, linear_colors, material_of, vertex_colors

VERTEX = np.dtype([("position", "f4", 3), ("normal", "f4", 3), ("uv", "f4", 2),
                   ("color", "f2", 4)])  # 40 bytes; the renderer's layout "3f 3f 2f 4f2"


@dataclass(frozen=True, eq=False)
class Part:
    """Triangles drawn with one texture (or none) and one way of shading."""

    vertices: np.ndarray  # (V,) VERTEX
    indices: np.ndarray  # (3T,) uint32
    texture: np.ndarray | None  # (H, W, 4) uint8 sRGB, bottom row first (GL order)
    smooth: bool  # normals from the file; False: flat, from the triangles
    double_sided: bool  # False: back faces are culled (glTF's default)
    # its material's light of its own, linear RGB (a glTF's emissiveFactor x strength)
    emission: tuple[float, float, float] = (0.0, 0.0, 0.0)
    # its emissiveTexture, times emission: (H, W, 4) uint8 sRGB in GL order, or None
    emission_texture: np.ndarray | None = None
    # the glTF node an animation moves it with (itself or its nearest moved parent; its
    # rest world matrix is baked in), or None: no animation moves it
    node: int | None = None
    # its glTF skin (:mod:`~hfrender.scene.model_skins`: drawn posed at a Mesh's time), or
    # None
    skin: Any = None
    # its glTF morph targets (:mod:`~hfrender.scene.model_morphs`: drawn shaped at a Mesh's
    # time), or None
    morph: Any = None

    def glow(self) -> float:
        """Its brightest light of its own, one channel, linear: the emission times its
        emissive texture's brightest texel (a filtered sample is no brighter)."""
        if self.emission_texture is None:
            return max(self.emission)
        top = srgb_to_linear(self.emission_texture[..., :3].max(axis=(0, 1)) / 255.0)
        return float(max(np.asarray(self.emission) * top))


def part(mesh: Any, transform: np.ndarray, gltf: bool, textured: set,
         node: int | None = None) -> Part:
    """One placed geometry as a Part, its node transform baked in (``textured``: as
    :func:`~hfrender.scene.model_colours.emission_of` takes it; ``node``: the animated
    node it moves with, :attr:`Part.node`)."""
    faces = np.asarray(mesh.faces, np.int64)
    positions = np.asarray(mesh.vertices, np.float64)
    # the file had normals: trimesh keeps them in its cache (else it would compute them)
    normals = (np.asarray(mesh.vertex_normals, np.float64)
               if "vertex_normals" in mesh._cache else None)
    factor, texture, uv = material_of(mesh.visual)
    emission, glow = emission_of(mesh.visual, textured)
    if glow is not None and uv is None:  # (an emissive texture alone: its UVs too)
        uv = getattr(mesh.visual, "uv", None)
        uv = None if uv is None else np.asarray(uv, np.float64)[:, :2]
    if uv is not None and len(uv) != len(positions):
        texture = uv = None
    colors = vertex_colors(mesh)
    if (corners := source_rows(mesh)) is not None:  # a colour per face: unshare
        positions, colors = positions[corners], np.repeat(mesh.visual.face_colors, 3, axis=0)
        normals = None if normals is None else normals[corners]
        uv = None if uv is None else uv[corners]
        faces = np.arange(len(corners)).reshape(-1, 3)
    v = np.zeros(len(positions), VERTEX)
    m = transform[:3, :3]
    with np.errstate(invalid="ignore"):  # a NaN vertex stays NaN (said by _read)
        v["position"] = positions @ m.T + transform[:3, 3]
    if normals is not None:
        normals = normals @ _cofactor(m).T
        v["normal"] = normals / np.maximum(np.linalg.norm(normals, axis=1, keepdims=True),
                                           1e-30)
    if uv is not None:
        v["uv"] = uv
    v["color"] = linear_colors(colors, len(positions), gltf) * factor
    if np.linalg.det(m) < 0:  # a mirroring transform: keep the front faces in front
        faces = faces[:, ::-1]
    material = getattr(mesh.visual, "material", None)
    double = not gltf or bool(getattr(material, "doubleSided", False))
    return Part(v, faces.astype(np.uint32).ravel(), texture, normals is not None, double,
                emission, glow, node)


def source_rows(mesh: Any) -> np.ndarray | None:
    """The row of ``mesh``'s vertices each of its Part's comes from, where :func:`part`
    unshares them (a colour per face: three a triangle), else None (the same rows)."""
    if getattr(mesh.visual, "kind", None) == "face":
        return np.asarray(mesh.faces, np.int64).ravel()
    return None


def _cofactor(m: np.ndarray) -> np.ndarray:
    """det(m) * inverse(m).T: turns normals, defined for a singular m too; of each of a
    stack of them (..., 3, 3) alike."""
    r0, r1, r2 = m[..., 0, :], m[..., 1, :], m[..., 2, :]
    return np.stack([np.cross(r1, r2), np.cross(r2, r0), np.cross(r0, r1)], axis=-2)


def merged(parts: list[Part]) -> list[Part]:
    """Parts that draw alike and move alike joined into one (one draw call each); each
    image held once
    (a base colour and an emissive texture alike: the renderer makes one texture of each)."""
    groups: dict[tuple, list[Part]] = {}
    images: dict[tuple, np.ndarray] = {}
    for p in parts:
        keys = tuple(None if t is None else (t.shape, t.tobytes())
                     for t in (p.texture, p.emission_texture))
        images.update({k: t for k, t in zip(keys, (p.texture, p.emission_texture),
                                            strict=True) if k is not None and k not in images})
        groups.setdefault((*keys, p.smooth, p.double_sided, p.emission, p.node, p.skin,
                           p.morph),
                          []).append(p)
    out = []
    for (tex, glow, *_), group in groups.items():
        offsets = np.cumsum([0] + [len(p.vertices) for p in group[:-1]])
        out.append(Part(np.concatenate([p.vertices for p in group]),
                        np.concatenate([p.indices + np.uint32(o)
                                        for p, o in zip(group, offsets, strict=True)]),
                        images.get(tex), group[0].smooth, group[0].double_sided,
                        group[0].emission, images.get(glow), group[0].node, group[0].skin,
                        group[0].morph))
    return out
