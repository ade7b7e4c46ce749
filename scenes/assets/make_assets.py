"""Makes the models of the example scenes (run it again after changing it):

    python scenes/assets/make_assets.py      # writes scenes/assets/toy.glb (about 100 KB)

``toy.glb`` is a glTF 2.0 file of three nodes, each with its own transform: a crate with a
checker texture (UVs, an sRGB PNG inside the file), a ring with vertex colours, set
tilted on top of it (a child node of the crate), and a ball with a plain base colour
factor. All three have smooth normals stored in the file. Built from NumPy arrays and
written with trimesh (``pip install 'hfrender[models]'``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def checker(size: int = 128, squares: int = 8) -> np.ndarray:
    """(size, size, 3) uint8: orange and cream squares with a dark border."""
    i, j = np.indices((size, size)) * squares // size
    img = np.where(((i + j) % 2)[..., None] == 0, [235, 120, 40], [245, 230, 200])
    edge = size // 32
    img[:edge], img[-edge:], img[:, :edge], img[:, -edge:] = 60, 60, 60, 60
    return img.astype(np.uint8)


def crate():
    """hfrender's unit cube (4 vertices a face), each face mapped onto the whole texture."""
    import trimesh
    from PIL import Image

    from hfrender.scene.objects import mesh

    verts, idx = mesh("cube")  # corners (-1,-1) (1,-1) (1,1) (-1,1) of each face, in turn
    uvs = np.tile([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], (len(verts) // 4, 1))
    material = trimesh.visual.material.PBRMaterial(
        baseColorTexture=Image.fromarray(checker()), metallicFactor=0.0, roughnessFactor=0.8)
    return trimesh.Trimesh(verts[:, :3].astype(np.float64), idx.reshape(-1, 3),
                           vertex_normals=verts[:, 3:].astype(np.float64),
                           visual=trimesh.visual.TextureVisuals(uv=uvs, material=material),
                           process=False)


def ring(major: float = 0.42, minor: float = 0.12, around: int = 64, across: int = 20):
    """A torus about the y axis with rainbow vertex colours (hue around the ring)."""
    import trimesh

    a = np.linspace(0, 2 * math.pi, around, endpoint=False)[:, None]
    b = np.linspace(0, 2 * math.pi, across, endpoint=False)[None, :]
    normals = np.stack(np.broadcast_arrays(np.cos(b) * np.cos(a), np.sin(b),
                                           np.cos(b) * np.sin(a)), -1).reshape(-1, 3)
    centres = np.stack(np.broadcast_arrays(major * np.cos(a), 0 * b, major * np.sin(a)),
                       -1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(around), np.arange(across), indexing="ij")
    p, q = i * across + j, i * across + (j + 1) % across
    r, s = ((i + 1) % around) * across + j, ((i + 1) % around) * across + (j + 1) % across
    faces = np.stack([p, q, r, q, s, r], -1).reshape(-1, 3)
    hue = np.repeat(a.ravel() / (2 * math.pi), across)
    rgb = np.clip(np.abs((hue[:, None] * 6 + [0, 4, 2]) % 6 - 3) - 1, 0, 1)  # hue -> rgb
    colors = np.column_stack([rgb * 235 + 20, np.full(len(hue), 255)]).astype(np.uint8)
    mesh = trimesh.Trimesh(centres + minor * normals, faces, vertex_normals=normals,
                           process=False)
    mesh.visual.vertex_colors = colors
    return mesh


def ball(radius: float = 0.22, lat: int = 16, lon: int = 32):
    """A UV sphere with a plain blue base colour factor."""
    import trimesh

    th = np.linspace(0, math.pi, lat + 1)[:, None]
    ph = np.linspace(0, 2 * math.pi, lon + 1)[None, :]
    n = np.stack(np.broadcast_arrays(np.sin(th) * np.cos(ph), np.cos(th),
                                     np.sin(th) * np.sin(ph)), -1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(lat), np.arange(lon), indexing="ij")
    p = (i * (lon + 1) + j).ravel()
    faces = np.stack([p, p + 1, p + lon + 1, p + 1, p + lon + 2, p + lon + 1], 1)
    material = trimesh.visual.material.PBRMaterial(baseColorFactor=[40, 110, 230, 255])
    return trimesh.Trimesh(radius * n, faces.reshape(-1, 3), vertex_normals=n,
                           visual=trimesh.visual.TextureVisuals(material=material),
                           process=False)


def toy(path: Path) -> None:
    import trimesh
    from trimesh.transformations import rotation_matrix, translation_matrix

    scene = trimesh.Scene()
    scene.add_geometry(crate(), node_name="crate", geom_name="crate",
                       transform=translation_matrix([0, 0.5, 0]))
    tilt = translation_matrix([0, 0.72, 0]) @ rotation_matrix(0.5, [1, 0, 0])
    scene.add_geometry(ring(), node_name="ring", geom_name="ring", parent_node_name="crate",
                       transform=tilt)
    scene.add_geometry(ball(), node_name="ball", geom_name="ball",
                       transform=translation_matrix([0.85, 0.22, 0.35]))
    path.write_bytes(scene.export(file_type="glb", include_normals=True))


if __name__ == "__main__":
    out = HERE / "toy.glb"
    toy(out)
    print(f"wrote {out} ({out.stat().st_size / 1000:.0f} KB)")
