"""The colours a model's parts carry, as trimesh hands them over: vertex colours of any type
to linear RGBA, a material's base colour factor, its texture (in GL's row order) and UVs,
its emission and emissive texture (:mod:`hfrender.scene.meshes` reads the file)."""

from __future__ import annotations

from typing import Any

import numpy as np

from hfrender.color import srgb_to_linear


def linear_colors(colors: np.ndarray | None, n: int, gltf: bool) -> np.ndarray:
    """(n, 4) linear RGBA: glTF's are linear already, other formats' are sRGB. Each as
    its type holds it: 0..1 floats, 8 or 16 bits (a glTF COLOR_0 beside a material comes
    as the file has it; was: all divided by 255, floats drawn black and 16 bits white)."""
    lin = np.ones((n, 4))
    if colors is not None:
        c = np.asarray(colors)
        top = np.iinfo(c.dtype).max if c.dtype.kind in "ui" else 1.0
        c = c[:, :4].astype(np.float64) / top
        lin[:, :c.shape[1]] = c
        if not gltf:
            lin[:, :3] = srgb_to_linear(lin[:, :3])
    return lin


def vertex_colors(mesh: Any) -> np.ndarray | None:
    visual = mesh.visual
    if getattr(visual, "kind", None) == "vertex" and hasattr(visual, "vertex_colors"):
        return np.asarray(visual.vertex_colors)
    attrs = getattr(visual, "vertex_attributes", None)  # glTF COLOR_0 beside a texture
    if attrs is not None and "color" in attrs and len(attrs["color"]) == len(mesh.vertices):
        return np.asarray(attrs["color"])
    return None


def material_of(visual: Any) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """(linear RGBA factor, sRGB texture in GL row order or None, UVs or None)."""
    material = getattr(visual, "material", None)
    factor = np.ones(4)
    if material is None or _stand_in(material):
        return factor, None, None
    image = getattr(material, "baseColorTexture", None)
    if image is None:
        image = getattr(material, "image", None)
    base = getattr(material, "baseColorFactor", None)
    if base is None and image is None:  # OBJ's Kd: trimesh's default grey where unset
        base = getattr(material, "diffuse", None)
    if base is not None:
        b = np.asarray(base, np.float64).ravel()
        factor[:len(b)] = b / 255.0 if b.dtype.kind in "ui" or b.max() > 1.0 else b
    uv = getattr(visual, "uv", None)
    if image is None or uv is None:
        return factor, None, None
    rgba = _rgba(image)
    return factor, np.ascontiguousarray(rgba[::-1]), np.asarray(uv, np.float64)[:, :2]


def emission_of(visual: Any, textured: set) -> tuple[tuple[float, float, float],
                                                   np.ndarray | None]:
    """A glTF material's light of its own: (its ``emissiveFactor`` as read, linear RGB
    (:func:`~hfrender.scene.model_files.as_drawn`: times its strength), its
    ``emissiveTexture`` (sRGB, in GL row order) or None); an OBJ's: none. Where the factor
    is 0 (glTF's default) the texture is dropped: it multiplies the factor. A material
    named in ``textured`` (the file's with an emissiveTexture, as
    :func:`~hfrender.scene.model_files.as_drawn` names them) whose image trimesh could
    not read (not there, KTX2) glows not at all: its factor alone (1, 1, 1 as Blender
    writes it) would light the texture's dark parts too."""
    material = getattr(visual, "material", None)
    factor = getattr(material, "emissiveFactor", None)
    image = getattr(material, "emissiveTexture", None)
    if factor is None or (image is None and getattr(material, "name", None) in textured):
        return (0.0, 0.0, 0.0), None
    r, g, b = (float(c) for c in np.asarray(factor, np.float64).ravel()[:3])
    if image is None or max(r, g, b) <= 0:
        return (r, g, b), None
    return (r, g, b), np.ascontiguousarray(_rgba(image)[::-1])


def _rgba(image: Any) -> np.ndarray:
    """(H, W, 4) uint8 of a texture image; a 16-bit grey one (Pillow's modes I;16 and I) to
    its 8 bits (was: white, Pillow's conversion clipping 0..65535 at 255)."""
    if image.mode.startswith("I"):
        grey = np.clip(np.asarray(image, np.float64) / 257.0, 0, 255).round().astype(np.uint8)
        return np.dstack([grey, grey, grey, np.full_like(grey, 255)])
    return np.asarray(image.convert("RGBA"), np.uint8)


def _stand_in(material: Any) -> bool:
    """trimesh's stand-in for UVs that come without a material (an OBJ with no ``.mtl``, or
    its ``.mtl`` not there): a 2x2 texture of grey 100. (Was: drawn grey 100, where the same
    file without UVs is white: in the model's colours, which it has none of.)"""
    image = getattr(material, "image", None)
    return (getattr(material, "baseColorTexture", None) is None and image is not None
            and image.size == (2, 2) and bool((np.asarray(image.convert("RGBA")) ==
                                               (100, 100, 100, 255)).all()))
