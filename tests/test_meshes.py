"""Models from files (hf.Mesh.load): glTF, OBJ, STL and PLY through trimesh, drawn by the
renderer at their projected size, with their node transforms, textures, vertex colours and
normals; the velocity plane; the errors of bad files; loaded once per process."""

import gc
import math
import os
import weakref
from pathlib import Path

import numpy as np
import pytest
from mesh_helpers import (
    H,
    W,
    draw,
    make_scene,
    write,
)

import hfrender as hf
from hfrender.scene import meshes

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
Image = pytest.importorskip("PIL.Image")
SCENES = Path(__file__).resolve().parents[1] / "scenes"


def project(clip, points):
    """Pixel coordinates (x right, y down) of object-space ``points`` (N, 3)."""
    p = np.column_stack([points, np.ones(len(points))]) @ clip.T
    ndc = p[:, :2] / p[:, 3:]
    return np.column_stack([(ndc[:, 0] + 1) / 2 * W, (ndc[:, 1] + 1) / 2 * H])


def box_corners(extents, offset=(0, 0, 0)):
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
    return signs * np.asarray(extents) / 2 + offset


def silhouette(color):
    """(left, top, right, bottom) pixel edges of what is not background, exclusive end."""
    ys, xs = np.nonzero(color.max(axis=2) > 0)
    return np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])


def quad_with_uv(size=1.0):
    """A square in the xy plane facing +z, uv (0, 0) bottom left and (1, 1) top right."""
    s = size / 2
    verts = np.array([[-s, -s, 0], [s, -s, 0], [s, s, 0], [-s, s, 0]], np.float64)
    mesh = trimesh.Trimesh(verts, [[0, 1, 2], [0, 2, 3]], vertex_normals=[[0, 0, 1]] * 4,
                           process=False)
    return mesh, np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)


# --- drawing ---------------------------------------------------------------------------------
def test_a_gltf_box_is_drawn_at_its_projected_size(gl_context, rng, tmp_path):
    extents = rng.uniform(0.6, 1.4, 3)
    offset = rng.uniform(-0.5, 0.5, 3)
    path = write(trimesh.creation.box(extents), tmp_path / "box.glb")
    box = hf.Mesh.load(path, position=tuple(offset), color="white")
    color, _, clips = draw(gl_context(), make_scene(box))
    px = project(clips[0], box_corners(extents))
    want = np.concatenate([px.min(0), px.max(0)])
    got = silhouette(color)
    # a pixel is covered when its centre is inside: edges land within a pixel
    assert np.abs(got - want).max() <= 1.0, (got, want)
    assert (color == 255).all(axis=2).sum() > 0.9 * np.prod(got[2:] - got[:2])


def checker_texture(squares=4, px=16):
    """(image, colour of square (row, column) from the image's top left): dark and light
    squares, the top-left one green (a flipped or turned texture fails)."""
    dark, light, mark = (40, 60, 200), (230, 200, 60), (30, 210, 80)
    colors = np.array([[dark if (i + j) % 2 else light for j in range(squares)]
                       for i in range(squares)], np.uint8)
    colors[0, 0] = mark
    img = np.repeat(np.repeat(colors, px, axis=0), px, axis=1)
    return Image.fromarray(img), colors


def test_a_checker_textures_squares_land_on_their_pixels_in_their_colours(gl_context,
                                                                           tmp_path):
    quad, uv = quad_with_uv(2.0)
    image, colors = checker_texture()
    quad.visual = trimesh.visual.TextureVisuals(
        uv=uv, material=trimesh.visual.material.PBRMaterial(baseColorTexture=image))
    path = write(quad, tmp_path / "checker.glb")
    scene = make_scene(hf.Mesh.load(path), orthographic=True, ortho_height=2.4)
    color, _, clips = draw(gl_context(), scene)
    n = len(colors)
    for i in range(n):  # image rows from the top: world y from +1 down
        for j in range(n):
            centre = np.array([[-1 + (j + 0.5) * 2 / n, 1 - (i + 0.5) * 2 / n, 0]])
            x, y = project(clips[0], centre)[0].astype(int)
            got = color[y - 3:y + 4, x - 3:x + 4].reshape(-1, 3).astype(int)
            assert np.abs(got - colors[i, j]).max() <= 2, (i, j, got[0], colors[i, j])


def test_gltf_node_transforms_are_honoured(gl_context, tmp_path):
    from trimesh.transformations import rotation_matrix, translation_matrix

    scene = trimesh.Scene()
    parent = translation_matrix([1.0, 0.5, 0.0]) @ rotation_matrix(math.pi / 2, [0, 0, 1])
    scene.add_geometry(trimesh.creation.box((0.6, 0.2, 0.2)), node_name="bar",
                       geom_name="bar", transform=parent)
    # a child node: its transform composes with its parent's (translated along the parent's
    # rotated x axis, which is world y)
    scene.add_geometry(trimesh.creation.box((0.3, 0.3, 0.3)), node_name="cube",
                       geom_name="cube", parent_node_name="bar",
                       transform=translation_matrix([-1.0, 0.0, 0.0]))
    model = hf.Mesh.load(write(scene, tmp_path / "nodes.glb"), color="white")
    data = meshes.load_model(tmp_path / "nodes.glb")
    corners = np.concatenate([p.vertices["position"] for p in data.parts])
    np.testing.assert_allclose(corners.min(0), [0.85, -0.65, -0.15], atol=1e-6)
    np.testing.assert_allclose(corners.max(0), [1.15, 0.8, 0.15], atol=1e-6)
    color, _, clips = draw(gl_context(), make_scene(model))
    px = project(clips[0], np.concatenate([box_corners((0.2, 0.6, 0.2), (1.0, 0.5, 0.0)),
                                           box_corners((0.3, 0.3, 0.3), (1.0, -0.5, 0.0))]))
    want = np.concatenate([px.min(0), px.max(0)])
    assert np.abs(silhouette(color) - want).max() <= 1.0, (silhouette(color), want)
    x, y = project(clips[0], [[1.0, -0.5, 0.0]])[0].astype(int)  # the child cube
    assert (color[y, x] == 255).all()
    x, y = project(clips[0], [[1.0, 0.0, 0.0]])[0].astype(int)  # the gap between them
    assert (color[y, x] == 0).all()


def sphere_with_normals(subdivisions=1):
    s = trimesh.creation.icosphere(subdivisions)
    return trimesh.Trimesh(s.vertices, s.faces, vertex_normals=s.vertices, process=False)


FORMATS = ["glb", "gltf", "obj", "stl", "ply"]


@pytest.mark.parametrize("kind", FORMATS)
def test_each_format_loads_and_draws_the_same_box(gl_context, tmp_path, kind):
    path = write(trimesh.creation.box((1.0, 0.8, 0.6)), tmp_path / f"box.{kind}")
    box = hf.Mesh.load(path, rotation=(0.3, 0.4, 0.0), color="white")
    assert box.triangles == 12
    np.testing.assert_allclose(box.bounds, [[-0.5, -0.4, -0.3], [0.5, 0.4, 0.3]], atol=1e-6)
    color, _, clips = draw(gl_context(), make_scene(box))
    px = project(clips[0], box_corners((1.0, 0.8, 0.6)))
    assert np.abs(silhouette(color) - np.concatenate([px.min(0), px.max(0)])).max() <= 1.0
    assert (color == 255).all(axis=2).sum() > 1000


@pytest.mark.parametrize("kind", ["stl", "glb"])
def test_normals_smooth_from_the_file_flat_without(gl_context, tmp_path, kind):
    # STL has no vertex normals: each triangle is flat; the glb keeps the sphere's
    mesh = sphere_with_normals()
    path = write(mesh, tmp_path / f"ball.{kind}")
    scene = make_scene(hf.Mesh.load(path, scale=1.6))
    scene.ambient = 0.1
    color, _, _ = draw(gl_context(), scene)
    inside = color.max(axis=2) > 0
    shades = len(np.unique(color[inside][:, 0]))
    if kind == "stl":
        assert shades <= 40  # one shade per visible face (of 80: about half are seen)
    else:
        assert shades > 120


@pytest.mark.parametrize("kind, shown", [("ply", 128), ("glb", 188)])
def test_vertex_colours_ply_as_display_values_gltf_as_linear(gl_context, tmp_path, kind,
                                                             shown):
    box = trimesh.creation.box((1.2, 1.2, 1.2))
    box.visual.vertex_colors = np.tile([128, 0, 255, 255], (len(box.vertices), 1))
    path = write(box, tmp_path / f"colours.{kind}")
    color, _, _ = draw(gl_context(), make_scene(hf.Mesh.load(path)))
    # PLY's 128 is a display value; glTF's is linear 0.502, displayed as sRGB 188
    np.testing.assert_allclose(color[H // 2, W // 2], [shown, 0, 255], atol=1)


def test_face_colours_colour_their_own_triangles(gl_context, tmp_path):
    box = trimesh.creation.box((1.2, 1.2, 1.2))
    front = box.face_normals[:, 2] > 0.9
    box.visual.face_colors = np.where(front[:, None], [255, 0, 0, 255], [0, 0, 255, 255])
    path = write(box, tmp_path / "faces.ply")
    scene = make_scene(hf.Mesh.load(path, rotation=(0.0, 0.5, 0.0)))
    color, _, clips = draw(gl_context(), scene)
    x, y = project(clips[0], [[0.0, 0.0, 0.6]])[0].astype(int)  # the front face
    assert tuple(color[y, x]) == (255, 0, 0)
    x, y = project(clips[0], [[-0.6, 0.0, 0.0]])[0].astype(int)  # the left side
    assert tuple(color[y, x]) == (0, 0, 255)


def test_color_tints_and_mirroring_keeps_the_front_faces(gl_context, tmp_path):
    path = write(trimesh.creation.box((1.0, 1.0, 1.0)), tmp_path / "box.glb")
    plain, _, _ = draw(gl_context(), make_scene(hf.Mesh.load(path, color=(1.0, 0.5, 0.0))))
    mirrored, _, _ = draw(gl_context(), make_scene(hf.Mesh.load(path, scale=(-1, 1, 1),
                                                                color=(1.0, 0.5, 0.0))))
    np.testing.assert_array_equal(plain, mirrored)  # culled faces would show the inside
    assert tuple(plain[H // 2, W // 2]) == (255, 128, 0)


def test_the_velocity_plane_of_a_moving_model(gl_context, tmp_path):
    path = write(trimesh.creation.box((1.0, 1.0, 1.0)), tmp_path / "box.glb")
    box = hf.Mesh.load(path, position=(0.2, 0.1, 0.0))
    color, _, clips = draw(gl_context(), make_scene(box), velocity=True)
    # d/dt of the clip matrix of the box moving right at 2 m/s
    rate = clips[0] @ np.array([[0, 0, 0, 2.0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    _, vel, _ = draw(gl_context(), make_scene(hf.Mesh.load(path, position=(0.2, 0.1, 0.0))),
                     velocity=True, clip_rates=[rate])
    for local in ([0.0, 0.0, 0.5], [0.3, -0.2, 0.5]):
        a, b = project(clips[0], [local, np.add(local, [0.002, 0, 0])])
        x, y = a.astype(int)
        np.testing.assert_allclose(vel[y, x], (b - a) / 0.001, rtol=0.01, atol=0.05)
    assert np.abs(vel[color.max(axis=2) == 0]).max() == 0  # the background stays still


def test_a_model_is_read_once_per_process_and_again_when_changed(tmp_path, monkeypatch):
    path = write(trimesh.creation.box(), tmp_path / "box.obj")
    calls = []
    real = trimesh.load_scene
    monkeypatch.setattr(trimesh, "load_scene", lambda *a, **k: calls.append(a) or real(*a, **k))
    first = hf.Mesh.load(path)
    second = hf.Mesh.load(str(path), position=(1, 0, 0))
    assert calls == [(str(path),)] and first._model is second._model
    assert first.geometry == second.geometry  # the renderer uploads it once
    write(trimesh.creation.box((2, 2, 2)), path)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    third = hf.Mesh.load(path)
    assert len(calls) == 2 and third.bounds[1, 0] == pytest.approx(1.0)


def test_a_model_no_scene_holds_is_let_go_past_the_recent_ones(tmp_path, monkeypatch):
    """A batch of many models kept every one it read to the process's end (a 1M-triangle
    model is ~100 MB: 200 product shots ran out of memory); now a model no Mesh holds is
    kept only among the most recently read (:data:`meshes.RECENT_BYTES`), and one a Mesh
    holds stays however many are read after it."""
    monkeypatch.setattr(meshes, "RECENT_BYTES", 1)  # the last one read alone
    paths = [write(trimesh.creation.box((1 + i, 1, 1)), tmp_path / f"b{i}.ply")
             for i in range(3)]
    calls = []
    real = trimesh.load_scene
    monkeypatch.setattr(trimesh, "load_scene", lambda *a, **k: calls.append(a) or real(*a, **k))
    first = hf.Mesh.load(paths[0])
    gone = weakref.ref(first._loaded())
    held = hf.Mesh.load(paths[1])
    del first
    gc.collect()
    assert gone() is None  # (was: kept in the cache)
    assert hf.Mesh.load(paths[2]).bounds[1, 0] == pytest.approx(1.5)
    gc.collect()
    assert meshes.model_data(held.geometry) is held._loaded()  # held: still drawn
    assert held.bounds[1, 0] == pytest.approx(1.0) and len(calls) == 3
    again = hf.Mesh.load(paths[2])  # the last read: not read again
    assert len(calls) == 3 and again.bounds[1, 0] == pytest.approx(1.5)
    hf.Mesh.load(paths[0])  # let go: read again
    assert len(calls) == 4


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copied_mesh_whose_first_is_gone_is_still_found(tmp_path, monkeypatch, how):
    """A Mesh pickled (to a child process, a Ray worker) or deep-copied holds a model of its
    own; once the Mesh it came from was gone and its model past the recent ones, its
    geometry name found nothing: KeyError 'model:...' when drawn (the cache held every
    model before; a review). Its model is found by its name again, as it is."""
    import copy
    import pickle

    monkeypatch.setattr(meshes, "RECENT_BYTES", 1)  # the last one read alone
    first = hf.Mesh.load(write(trimesh.creation.box((2, 1, 1)), tmp_path / "a.ply"))
    twin = pickle.loads(pickle.dumps(first)) if how == "pickle" else copy.deepcopy(first)
    del first
    hf.Mesh.load(write(trimesh.creation.box((1, 1, 1)), tmp_path / "b.ply"))  # a.ply let go
    gc.collect()
    found = meshes.model_data(twin.geometry)
    assert found is twin._loaded() and found.bounds[1, 0] == pytest.approx(1.0)


def test_the_example_scene_renders_its_model(gl_context):
    from render_helpers import render_frames

    frames, stats = render_frames(SCENES / "toy_turntable.py", first_frame=3, count=1,
                                  size=(96, 54), samples=2, backend="cpu")
    assert frames.shape == (1, 54, 96, 3)
    assert stats.subframes == 2
    # the crate's orange checker squares are in the picture
    orange = (frames[0, ..., 0] > 180) & (frames[0, ..., 2] < 90)
    assert orange.sum() > 20


def test_a_copy_of_a_scene_shares_its_models_data(tmp_path):
    """The scene checks look at other times with a deep copy of the scene: a model's
    vertices, never changed in place, were copied too (10 MB and 18.7 ms a copy for a
    327,680-triangle model); shared now, as its other large arrays are."""
    import copy

    path = write(trimesh.creation.icosphere(subdivisions=3), tmp_path / "s.ply")
    mesh = hf.Mesh.load(path)
    twin = copy.deepcopy(mesh)
    assert twin._loaded() is mesh._loaded() and twin is not mesh
    assert copy.copy(mesh)._loaded() is mesh._loaded()
    twin.position = (1.0, 2.0, 3.0)  # the placement is the copy's own
    assert tuple(mesh.position) == (0.0, 0.0, 0.0)
