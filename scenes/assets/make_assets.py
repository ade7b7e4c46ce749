"""Makes the models of the example scenes (run it again after changing it):

    python scenes/assets/make_assets.py   # writes scenes/assets/toy.glb (about 100 KB)
                                          # scenes/assets/windmill.glb (about 40 KB)
                                          # and scenes/assets/arm.glb (about 30 KB)

``toy.glb`` is a glTF 2.0 file of three nodes, each with its own transform: a crate with a
checker texture (UVs, an sRGB PNG inside the file), a ring with vertex colours, set
tilted on top of it (a child node of the crate), and a ball with a plain base colour
factor. All three have smooth normals stored in the file. Built from NumPy arrays and
written with trimesh (``pip install 'hfrender[models]'``).

``arm.glb`` is skinned (:func:`arm`): a tube bent back and forth by three bones, its
end swelling by a morph target; written as glTF JSON and binary chunk directly (trimesh
writes no skins).

``windmill.glb`` is animated: a tower (node ``mill``) whose child node ``rotor`` (a hub and
four sails) turns twice a second about its axis (LINEAR rotation keys every quarter turn
over 2 s) while the whole mill turns slowly 0.3 rad about y and back (a second channel),
animation ``Turn``; beside it a sign on two posts (node ``sign``) whose screen has an
``emissiveTexture``: a row of bulbs round a windmill's cross, factor 1 and strength 4
(``KHR_materials_emissive_strength``). trimesh writes neither the animation nor the
strength: :func:`animate` and :func:`brighten` write them into the file's JSON and binary
chunk after the export.
"""

from __future__ import annotations

import json
import math
import struct
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



def painted(parts):
    """One trimesh of hfrender's unit shapes, each ``(kind, matrix, rgb)``: ``kind``'s
    vertices placed by the 4x4 ``matrix`` (normals by its inverse transpose), in vertex
    colours ``rgb`` (0..255). Each triangle is wound counter-clockwise seen from outside
    (glTF's front face: :func:`outward`), as the round shapes' own are not."""
    import trimesh

    from hfrender.scene.objects import mesh

    points, normals, faces, colours = [], [], [], []
    for kind, matrix, rgb in parts:
        verts, idx = mesh(kind)
        n = verts[:, 3:] @ np.linalg.inv(matrix[:3, :3])
        placed_points = verts[:, :3] @ matrix[:3, :3].T + matrix[:3, 3]
        faces.append(outward(placed_points, n, idx.reshape(-1, 3))
                     + sum(len(p) for p in points))
        points.append(placed_points)
        normals.append(n / np.linalg.norm(n, axis=1, keepdims=True))
        colours.append(np.tile([*rgb, 255], (len(verts), 1)))
    shape = trimesh.Trimesh(np.concatenate(points), np.concatenate(faces),
                            vertex_normals=np.concatenate(normals), process=False)
    shape.visual.vertex_colors = np.concatenate(colours).astype(np.uint8)
    return shape


def outward(points: np.ndarray, normals: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """``faces`` (F, 3) each wound counter-clockwise seen from the side its vertices'
    ``normals`` point to: glTF's front face, the one drawn (its back faces are culled).
    hfrender's round shapes wind clockwise (hfrender.renderer.translucent.outside); copied as
    they are, a cylinder showed the inside of its far wall, lit as its back."""
    a, b, c = (points[faces[:, k]] for k in range(3))
    ahead = np.einsum("ij,ij->i", np.cross(b - a, c - a), normals[faces].sum(1))
    return np.where((ahead < 0)[:, None], faces[:, ::-1], faces)


def placed(at=(0, 0, 0), size=(1, 1, 1), turn=0.0, axis=(0, 0, 1)):
    """The matrix that scales by ``size``, turns ``turn`` radians about ``axis``, then
    moves to ``at``."""
    from trimesh.transformations import rotation_matrix, translation_matrix

    return (translation_matrix(at) @ rotation_matrix(turn, axis)
            @ np.diag([*size, 1]).astype(np.float64))


def mill():
    """The tower: a cream cylinder with a red cone roof and a dark door, 2.7 m tall."""
    return painted([("cylinder:16", placed((0, 1, 0), (0.42, 2, 0.42)), (235, 225, 200)),
                    ("cone:16", placed((0, 2.35, 0), (0.55, 0.7, 0.55)), (160, 50, 40)),
                    ("cube", placed((0, 0.35, 0.41), (0.3, 0.6, 0.06)), (70, 50, 40))])


def rotor():
    """A hub on an axle along z and four sails (a spar and a cloth each, 1.15 m long) about
    the z axis, the first and third cloth red, the others white."""
    parts = [("sphere:8", placed(size=(0.12,) * 3), (90, 90, 95)),
             ("cylinder:8", placed((0, 0, -0.2), (0.05, 0.4, 0.05), math.pi / 2, (1, 0, 0)),
              (90, 90, 95))]
    for k in range(4):
        arm = placed(turn=k * math.pi / 2)
        parts.append(("cube", arm @ placed((0, 0.62, 0.03), (0.05, 1.1, 0.05)), (90, 60, 40)))
        cloth = placed((0.13, 0.72, 0.05), (0.22, 0.86, 0.02), 0.25, (0, 1, 0))
        parts.append(("cube", arm @ cloth, (200, 40, 35) if k % 2 == 0 else (240, 236, 226)))
    return painted(parts)


def marquee(width: int = 48, height: int = 24) -> np.ndarray:
    """(height, width, 3) uint8: warm bulbs every 4 px round a dark sign, a cyan
    windmill's cross in the middle."""
    img = np.zeros((height, width, 3), np.uint8) + np.uint8([18, 12, 24])
    i, j = np.indices((height, width))
    ring = ((i % 4 == 1) & ((j == 1) | (j == width - 3))) | (
        (j % 4 == 1) & ((i == 1) | (i == height - 3)))
    bulbs = ring | np.roll(ring, 1, 0) | np.roll(ring, 1, 1) | np.roll(ring, (1, 1), (0, 1))
    img[bulbs] = [255, 200, 90]
    u, v = j - width / 2 + 0.5, i - height / 2 + 0.5
    img[(np.abs(np.abs(u) - np.abs(v)) < 1.0) & (np.abs(u) < height / 2 - 5)] = [60, 220, 255]
    return img


def screen():
    """The sign's screen: a 0.96 x 0.48 m quad facing +z, its emissive texture
    :func:`marquee` (UVs 0..1 across it) on a dark base colour."""
    import trimesh
    from PIL import Image

    from hfrender.scene.objects import mesh

    verts, idx = mesh("plane")
    glow = Image.fromarray(marquee())
    material = trimesh.visual.material.PBRMaterial(
        baseColorFactor=[30, 30, 34, 255], metallicFactor=0.0, roughnessFactor=0.6,
        emissiveTexture=glow, emissiveFactor=[1.0, 1.0, 1.0])
    return trimesh.Trimesh(verts[:, :3] * [0.96, 0.48, 1], idx.reshape(-1, 3),
                           vertex_normals=verts[:, 3:],
                           visual=trimesh.visual.TextureVisuals(uv=verts[:, :2] + 0.5,
                                                                material=material),
                           process=False)


def glb_chunks(data: bytes) -> tuple[dict, bytes]:
    """A .glb's JSON header and binary chunk."""
    size = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + size]), data[28 + size:]


def glb(header: dict, blob: bytes) -> bytes:
    """A .glb of ``header`` and binary chunk ``blob``, each padded to 4 bytes."""
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    blob += b"\0" * (-len(blob) % 4)
    chunks = (struct.pack("<I4s", len(text), b"JSON") + text
              + struct.pack("<I4s", len(blob), b"BIN\0") + blob)
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


def add(header: dict, blob: bytearray, array: np.ndarray, kind: str) -> int:
    """Appends an array (``kind``: "SCALAR", "VEC3", "VEC4", "MAT4" of floats; "u2": VEC4 of
    unsigned shorts, joints; "u4": unsigned int indices) to ``blob``: its accessor. A VEC3
    (positions) and a flat SCALAR (key times) give their bounds."""
    data = np.asarray(array, {"u2": "<u2", "u4": "<u4"}.get(kind, "<f4"))
    blob += b"\0" * (-len(blob) % 4)
    header["bufferViews"].append({"buffer": 0, "byteOffset": len(blob),
                                  "byteLength": data.nbytes})
    blob += data.tobytes()
    accessor = {"bufferView": len(header["bufferViews"]) - 1,
                "componentType": {"u2": 5123, "u4": 5125}.get(kind, 5126),
                "count": len(data), "type": {"u2": "VEC4", "u4": "SCALAR"}.get(kind, kind)}
    if kind == "VEC3" or (kind == "SCALAR" and data.ndim == 1):
        accessor.update(min=np.atleast_1d(data.min(0)).tolist(),
                        max=np.atleast_1d(data.max(0)).tolist())
    header["accessors"].append(accessor)
    return len(header["accessors"]) - 1


def keys(header: dict, blob: bytearray, times, values) -> tuple[int, int]:
    """Appends an animation sampler's ``times`` and float ``values`` (K, n) to ``blob``:
    the indices of their accessors."""
    values = np.asarray(values, np.float32)
    kind = {1: "SCALAR", 3: "VEC3", 4: "VEC4"}[values.shape[1] if values.ndim > 1 else 1]
    return add(header, blob, times, "SCALAR"), add(header, blob, values, kind)


def about(axis: int, angles) -> np.ndarray:
    """Quaternions (x, y, z, w) of turns of ``angles`` radians about axis 0, 1 or 2."""
    q = np.zeros((len(angles), 4))
    q[:, axis], q[:, 3] = np.sin(np.asarray(angles) / 2), np.cos(np.asarray(angles) / 2)
    return q


def animate(header: dict, blob: bytes) -> bytes:
    """Writes animation ``Turn`` into the file's ``header`` (its animated nodes' matrices as
    translations, as glTF asks of them): ``rotor`` two turns a second about z, clockwise
    as seen from the front, a key each quarter turn over 2 s; ``mill`` 0.3 rad about y
    and back over the same 2 s."""
    blob = bytearray(blob)
    names = [node.get("name") for node in header["nodes"]]
    spin = np.linspace(0.0, 2.0, 17)
    tracks = ((names.index("rotor"), spin, about(2, -spin * 4 * math.pi)),
              (names.index("mill"), [0.0, 1.0, 2.0], about(1, [0.0, 0.3, 0.0])))
    samplers, channels = [], []
    for node, times, quaternions in tracks:
        matrix = header["nodes"][node].pop("matrix", None)
        if matrix is not None:
            header["nodes"][node]["translation"] = matrix[12:15]
        source, values = keys(header, blob, times, quaternions)
        channels.append({"sampler": len(samplers), "target": {"node": node,
                                                              "path": "rotation"}})
        samplers.append({"input": source, "output": values, "interpolation": "LINEAR"})
    header["animations"] = [{"name": "Turn", "samplers": samplers, "channels": channels}]
    header["buffers"][0]["byteLength"] = len(blob) + (-len(blob) % 4)
    return bytes(blob)


def brighten(header: dict, strength: float = 4.0) -> None:
    """Gives each material with an emissive texture ``strength`` (its extension)."""
    for material in header["materials"]:
        if "emissiveTexture" in material:
            material.setdefault("extensions", {})["KHR_materials_emissive_strength"] = {
                "emissiveStrength": strength}
            header["extensionsUsed"] = ["KHR_materials_emissive_strength"]


def windmill(path: Path) -> None:
    import trimesh

    scene = trimesh.Scene()
    scene.add_geometry(mill(), node_name="mill", geom_name="mill")
    scene.add_geometry(rotor(), node_name="rotor", geom_name="rotor", parent_node_name="mill",
                       transform=placed((0, 2.05, 0.62)))
    posts = painted([("cylinder:8", placed((x, 0.5, 0), (0.03, 1.0, 0.03)), (60, 60, 66))
                     for x in (-0.44, 0.44)])
    scene.add_geometry(posts, node_name="sign", geom_name="posts",
                       transform=placed((1.1, 0, 1.7), turn=-0.35, axis=(0, 1, 0)))
    scene.add_geometry(screen(), node_name="screen", geom_name="screen",
                       parent_node_name="sign", transform=placed((0, 0.78, 0.035)))
    header, blob = glb_chunks(scene.export(file_type="glb", include_normals=True))
    blob = animate(header, blob)
    brighten(header)
    path.write_bytes(glb(header, blob))


def tube(rings: int = 25, sides: int = 12, length: float = 3.0, radius: float = 0.16):
    """An arm: a closed-off round tube along x from 0 to ``length``, ``rings`` rings of
    ``sides`` vertices (normals out from its axis); faces counter-clockwise from outside."""
    x = np.linspace(0.0, length, rings)[:, None]
    a = np.linspace(0.0, 2 * math.pi, sides, endpoint=False)[None, :]
    normals = np.stack(np.broadcast_arrays(0 * x + 0 * a, np.cos(a) + 0 * x,
                                           np.sin(a) + 0 * x), -1).reshape(-1, 3)
    points = normals * radius + np.repeat(x.ravel(), sides)[:, None] * [1.0, 0.0, 0.0]
    i, j = np.meshgrid(np.arange(rings - 1), np.arange(sides), indexing="ij")
    p, q = i * sides + j, i * sides + (j + 1) % sides
    faces = np.stack([p, q, p + sides, q, q + sides, p + sides], -1).reshape(-1, 3)
    return points, normals, outward(points, normals, faces)


def arm(path: Path) -> None:
    """``arm.glb``: :func:`tube` skinned to three bones in a chain (``shoulder`` at
    (-1.5, 1, 0), ``elbow`` and ``wrist`` 1 m apart along x), each vertex blended between
    the two bones nearest it; a morph target swells its last half metre to twice its
    girth. Animation ``Wave`` (2 s, LINEAR): the elbow and wrist bend 0.7 rad about z up
    and down, the shoulder 0.25 rad, and the swell's weight goes 0 -> 1 -> 0."""
    points, normals, faces = tube()
    x = points[:, 0]
    bone = np.clip(x - 0.5, 0.0, 1.999)  # 0..2: between the bones' middles
    lower = np.floor(bone).astype(int)
    share = np.clip(bone - lower, 0.0, 1.0)
    joints = np.column_stack([lower, np.minimum(lower + 1, 2), 0 * lower, 0 * lower])
    weights = np.column_stack([1 - share, share, 0 * share, 0 * share])
    swell = np.clip((x - 2.5) / 0.5, 0.0, 1.0)[:, None] * normals * 0.16
    header = {"asset": {"version": "2.0", "generator": "hfrender make_assets.py"},
              "scene": 0, "scenes": [{"nodes": [0, 3]}],
              "nodes": [{"name": "shoulder", "translation": [-1.5, 1.0, 0.0], "children": [1]},
                        {"name": "elbow", "translation": [1.0, 0.0, 0.0], "children": [2]},
                        {"name": "wrist", "translation": [1.0, 0.0, 0.0]},
                        {"name": "arm", "mesh": 0, "skin": 0}],
              "materials": [{"pbrMetallicRoughness": {
                  "baseColorFactor": [0.85, 0.45, 0.2, 1.0], "metallicFactor": 0.0}}],
              "buffers": [{}], "bufferViews": [], "accessors": []}
    blob = bytearray()
    views = [add(header, blob, a, kind) for a, kind in (
        (points - [1.5, -1.0, 0.0], "VEC3"), (normals, "VEC3"), (joints, "u2"),
        (weights, "VEC4"), (faces.ravel(), "u4"), (swell, "VEC3"),
        (np.concatenate([np.eye(4) + np.pad([[1.5 - x0, -1.0, 0.0]], ((3, 0), (0, 1)))
                         for x0 in (0.0, 1.0, 2.0)]).reshape(3, 16), "MAT4"))]
    header["meshes"] = [{"name": "arm", "weights": [0.0], "primitives": [{
        "attributes": {"POSITION": views[0], "NORMAL": views[1], "JOINTS_0": views[2],
                       "WEIGHTS_0": views[3]}, "indices": views[4], "material": 0,
        "targets": [{"POSITION": views[5]}]}]}]
    header["skins"] = [{"name": "bones", "joints": [0, 1, 2], "inverseBindMatrices": views[6]}]
    times = [0.0, 0.5, 1.0, 1.5, 2.0]
    bend = np.array([0.0, 1.0, 0.0, -1.0, 0.0])
    samplers = [keys(header, blob, times, about(2, bend * angle)) for angle in (0.25, 0.7, 0.7)]
    samplers.append(keys(header, blob, [0.0, 1.0, 2.0], [[0.0], [1.0], [0.0]]))
    header["animations"] = [{"name": "Wave", "samplers": [
        {"input": i, "output": o, "interpolation": "LINEAR"} for i, o in samplers],
        "channels": [{"sampler": k, "target": {"node": min(k, 3), "path": "rotation"
                                               if k < 3 else "weights"}} for k in range(4)]}]
    header["buffers"][0]["byteLength"] = len(blob) + (-len(blob) % 4)
    path.write_bytes(glb(header, bytes(blob)))


if __name__ == "__main__":
    for name, make in (("toy.glb", toy), ("windmill.glb", windmill), ("arm.glb", arm)):
        make(HERE / name)
        print(f"wrote {HERE / name} ({(HERE / name).stat().st_size / 1000:.0f} KB)")
