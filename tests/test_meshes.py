"""Models from files (hf.Mesh.load): glTF, OBJ, STL and PLY through trimesh, drawn by the
renderer at their projected size, with their node transforms, textures, vertex colours and
normals; the velocity plane; the errors of bad files; loaded once per process."""

import gc
import math
import os
import re
import weakref
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest

import hfrender as hf
from hfrender.renderer.renderer import SceneRenderer
from hfrender.scene import meshes

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
Image = pytest.importorskip("PIL.Image")

W, H = 160, 96
SCENES = Path(__file__).resolve().parents[1] / "scenes"


def make_scene(*objects, position=(0.0, 0.0, 5.0), target=(0.0, 0.0, 0.0), **camera):
    """A scene of ``objects`` (made in setup) on black, lit by ambient light alone (every
    surface shows exactly its colour)."""

    class Shot(hf.Scene):
        background = (0.0, 0.0, 0.0)
        ambient = 1.0

        def setup(self):
            for obj in objects:
                self.add(obj)
            self.camera.position = position
            self.camera.look_at(target)
            for name, value in camera.items():
                setattr(self.camera, name, value)

    return Shot()


def draw(glctx, scene, size=(W, H), velocity=False, clip_rates=None):
    """(colour (H, W, 3) uint8, velocity (H, W, 2) or None, renderer clip matrices)."""
    scene.setup()
    renderer = SceneRenderer(glctx.ctx, scene, size, velocity, with_velocity=velocity)
    renderer.prepare()
    renderer.draw(0.0, 0, clip_rates=clip_rates)
    w, h = size
    color = np.empty((h, w, 4), np.uint8)
    vel = np.empty((h, w, 2), np.float32) if velocity else None
    renderer.read_into(color, np.empty((h, w), np.float32) if velocity else None, vel)
    clips = renderer.clip_matrices()
    renderer.release()
    return color[..., :3], vel, clips


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


def write(mesh_or_scene, path):
    """Export with trimesh; normals are written where the mesh holds them."""
    kind = path.suffix[1:]
    if kind in ("glb", "gltf"):
        scene = (mesh_or_scene if isinstance(mesh_or_scene, trimesh.Scene)
                 else trimesh.Scene(mesh_or_scene))
        normals = all("vertex_normals" in g._cache for g in scene.geometry.values())
        data = scene.export(file_type=kind, include_normals=normals)
        if kind == "gltf":  # a dict of files: the .gltf and its buffers
            for name, blob in data.items():
                (path.parent / (path.name if name.endswith(".gltf") else name)).write_bytes(blob)
            return path
        path.write_bytes(data)
    else:
        mesh_or_scene.export(path)
    return path


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


# --- files ---------------------------------------------------------------------------------
def test_bad_files_are_one_line_naming_the_file(tmp_path, monkeypatch):
    missing = tmp_path / "missing.glb"
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(missing)
    assert str(excinfo.value) == f"{missing}: model file not found ({missing} does not exist)"
    # a relative path: where it was looked for, beside the script and in the folder (it
    # named neither)
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load("gone.glb")
    here, cwd = Path(__file__).parent / "gone.glb", Path.cwd() / "gone.glb"
    assert str(excinfo.value) == (f"gone.glb: model file not found (neither {here} nor {cwd} "
                                  "exists)" if here != cwd else
                                  f"gone.glb: model file not found ({here} does not exist)")
    # a folder, or a path of no suffix not there (was: "unsupported model format '(no
    # suffix)'"); a file of no suffix that is there is one of no format
    monkeypatch.chdir(tmp_path)
    for folder in (tmp_path, tmp_path / "assets.glb", "assets"):
        Path(folder).mkdir(exist_ok=True)
        with pytest.raises(meshes.ModelError) as excinfo:
            hf.Mesh.load(folder)
        assert str(excinfo.value) == (f"{folder}: a folder, not a model file: give a model "
                                      "file's path (one of .glb, .gltf, .obj, .stl, .ply)")
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(tmp_path / "toy")
    assert str(excinfo.value) == (f"{tmp_path / 'toy'}: model file not found ("
                                  f"{tmp_path / 'toy'} does not exist)")
    (tmp_path / "toy").write_bytes(b"x")
    with pytest.raises(meshes.ModelError, match=r"toy: unsupported model format '\(no "
                                                r"suffix\)'; use one of \.glb"):
        hf.Mesh.load(tmp_path / "toy")
    fbx = tmp_path / "model.fbx"
    fbx.write_bytes(b"x")
    with pytest.raises(meshes.ModelError, match=r"model\.fbx: unsupported model format "
                                                r"'\.fbx'; use one of \.glb, \.gltf"):
        hf.Mesh.load(fbx)
    cloud = tmp_path / "points.ply"
    trimesh.PointCloud(np.random.default_rng(1).random((20, 3))).export(cloud)
    with pytest.raises(meshes.ModelError, match=r"points\.ply: the file has no triangles"):
        hf.Mesh.load(cloud)
    missing_buffer = ('{"asset": {"version": "2.0"}, "buffers": [{"uri": "gone.bin", '
                      '"byteLength": 36}], "bufferViews": [{"buffer": 0, "byteLength": 36}], '
                      '"accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, '
                      '"type": "VEC3"}], "meshes": [{"primitives": [{"attributes": '
                      '{"POSITION": 0}}]}], "nodes": [{"mesh": 0}], "scenes": [{"nodes": '
                      '[0]}]}')
    for name, data, says in (
            ("notgltf.glb", b"PK\x03\x04 a zip file", r"not a glTF 2\.0 binary file"),
            ("broken.glb", b"glTF\x02\x00\x00\x00garbage", r"cannot read the glb file: \w+"),
            ("broken.gltf", b'{"asset": {"version": "2.0"}, "meshes": [{"primi',
             r"not a glTF file: invalid JSON \(.*line 1 column \d+"),
            ("nobuffer.gltf", missing_buffer.encode(), r"cannot read the gltf file: \w+")):
        (tmp_path / name).write_bytes(data)
        with pytest.raises(meshes.ModelError) as info:
            hf.Mesh.load(tmp_path / name)
        message = str(info.value)
        assert message.startswith(f"{tmp_path / name}: ") and "\n" not in message, message
        assert re.search(says, message), message
    empty = tmp_path / "empty.gltf"
    empty.write_text('{"asset": {"version": "2.0"}}')
    with pytest.raises(meshes.ModelError, match="empty.gltf: the file has no triangles"):
        hf.Mesh.load(empty)
    (tmp_path / "zero.stl").write_bytes(b"")  # (was: "text that is not an ASCII STL")
    with pytest.raises(meshes.ModelError, match=r"zero\.stl: the file has no triangles: it "
                                                r"is empty$"):
        hf.Mesh.load(tmp_path / "zero.stl")
    for given in ("", "  "):  # (was: ".: unsupported model format '(no suffix)'")
        with pytest.raises(meshes.ModelError, match=rf"^Mesh\.load\({given!r}\): give the "
                                                    r"model file's path"):
            hf.Mesh.load(given)
    with pytest.raises(meshes.ModelError, match=r"no model: make it with hf.Mesh.load"):
        hf.Mesh().geometry  # noqa: B018
    # the API slips: a path given to the class (it said "Mesh.position='box.glb' must be 3
    # finite numbers"), no path at all (Path's own TypeError)
    with pytest.raises(meshes.ModelError, match=r"^hf.Mesh\('box.glb'\): a model is loaded "
                                                r"with hf.Mesh.load\('box.glb'\)$"):
        hf.Mesh("box.glb")
    with pytest.raises(meshes.ModelError, match=r"^Mesh.load\(None\): give the model file's "
                                                r"path \(a str or Path\)"):
        hf.Mesh.load(None)
    assert hf.Mesh(position=(0, 1, 2)).position == (0.0, 1.0, 2.0)  # a place is a place


def test_a_texture_that_is_not_there_is_warned_of(tmp_path, caplog):
    """An OBJ whose material names a missing image drew a plain model without a word
    (trimesh says it only in its debug log); its other log lines are not shown."""
    (tmp_path / "m.mtl").write_text("newmtl mat\nKd 1 1 1\nmap_Kd tex/gone.png\n")
    (tmp_path / "tri.obj").write_text("mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\n"
                                      "vt 1 0\nvt 0 1\nusemtl mat\nf 1/1 2/2 3/3\n")
    with caplog.at_level("INFO"):  # as -v shows it
        model = hf.Mesh.load(tmp_path / "tri.obj")
    assert model.triangles == 1
    said = [(r.name, r.getMessage()) for r in caplog.records if r.levelno >= 30]
    assert said == [("hfrender.scene.meshes", f"{tmp_path / 'tri.obj'}: tex/gone.png is not "
                     "there (beside the model); drawn without it, in the model's colours")]
    assert not [r for r in caplog.records if r.name.startswith("trimesh")]
    (tmp_path / "tex").mkdir()
    iio.imwrite(tmp_path / "tex" / "gone.png", np.full((2, 2, 3), 200, np.uint8))  # there now
    with open(tmp_path / "tri.obj", "a") as f:
        f.write("# read again\n")  # (its size changed: not the model kept from before)
    caplog.clear()
    with caplog.at_level("WARNING"):
        hf.Mesh.load(tmp_path / "tri.obj")
    assert not caplog.records
    (tmp_path / "m.mtl").unlink()  # the material library itself (was: not a word)
    with open(tmp_path / "tri.obj", "a") as f:
        f.write("# and again\n")
    with caplog.at_level("WARNING"):
        assert hf.Mesh.load(tmp_path / "tri.obj").triangles == 1
    assert [r.getMessage() for r in caplog.records] == [
        f"{tmp_path / 'tri.obj'}: m.mtl is not there (beside the model); drawn without it, in "
        "the model's colours"]


def test_a_models_errors_name_it_as_the_scene_gives_it(tmp_path, capsys):
    """A model found beside the scene was named by its absolute path in its errors (the
    README quotes ``model.fbx: unsupported model format ...``)."""
    from test_render import write_scene

    from hfrender.cli import main

    (tmp_path / "model.fbx").write_bytes(b"x")
    scene = write_scene(tmp_path, """
    class M(hf.Scene):
        def setup(self):
            self.add(hf.Mesh.load("model.fbx"))
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "m.mp4"), "--size", "32x18",
                 "--quiet"]) == 2
    assert ": ModelError: model.fbx: unsupported model format '.fbx'; use one of .glb, " \
        in capsys.readouterr().err


def test_without_trimesh_the_error_names_the_extra(tmp_path, monkeypatch):
    path = write(trimesh.creation.box(), tmp_path / "box.stl")
    monkeypatch.setitem(__import__("sys").modules, "trimesh", None)
    with pytest.raises(meshes.ModelError, match=r"pip install 'hfrender\[models\]'$"):
        hf.Mesh.load(path)


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


def test_a_scene_loading_a_bad_model_is_bad_input_exit_2(tmp_path, capsys):
    from hfrender.cli import main

    (tmp_path / "bad.glb").write_bytes(b"not a model")
    scene = tmp_path / "uses_bad.py"
    scene.write_text("import hfrender as hf\n\nclass S(hf.Scene):\n    duration = 0.1\n\n"
                     "    def setup(self):\n        self.add(hf.Mesh.load('bad.glb'))\n")
    assert main(["render", str(scene), "-o", str(tmp_path / "o.mp4"), "--size", "64x36",
                 "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hfrender: error: scene error in setup(): "
                                               "ModelError: ")
    assert "bad.glb: not a glTF 2.0 binary file" in err[0] and "uses_bad.py:7)" in err[0]
    assert not (tmp_path / "o.mp4").exists()


def test_a_model_path_from_home_is_expanded(tmp_path, monkeypatch):
    """``hf.Mesh.load("~/models/box.obj")`` was looked for in a folder named ``~``."""
    trimesh = pytest.importorskip("trimesh")
    (tmp_path / "models").mkdir()
    trimesh.creation.box().export(tmp_path / "models" / "box.obj")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert hf.Mesh.load("~/models/box.obj").triangles == 12


def test_a_model_with_nan_vertices_is_said_and_bounded_by_the_rest(tmp_path, caplog):
    """A PLY with a NaN vertex loaded silently with bounds of NaN: a user centring it from
    them was refused at their own line, the file unnamed."""
    (tmp_path / "nan.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 2 0\nv nan 0 0\n"
                                      "f 1 2 3\nf 1 2 4\n")
    with caplog.at_level("WARNING"):
        model = hf.Mesh.load(tmp_path / "nan.obj")
    np.testing.assert_array_equal(model.bounds, [[0, 0, 0], [1, 2, 0]])
    assert [r.getMessage() for r in caplog.records] == [
        f"{tmp_path / 'nan.obj'}: 1 of its 4 vertices is NaN or infinite: the triangles "
        "using them are not drawn, and its bounds are the other vertices'"]
    (tmp_path / "all.obj").write_text("v nan 0 0\nv 1 inf 0\nv 0 0 nan\nf 1 2 3\n")
    with pytest.raises(meshes.ModelError, match=r"all\.obj: no vertex of it is a finite "
                                                r"number \(NaN or infinity\)$"):
        hf.Mesh.load(tmp_path / "all.obj")


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


def test_an_older_trimesh_is_named_with_the_least_it_needs(tmp_path, monkeypatch):
    # was: a glTF of emissive strength 4 (scenes/windmill.glb) refused by trimesh 4.6-4.11
    # as "all factors must be between 0.0-1.0", read as a broken file
    path = write(trimesh.creation.box(), tmp_path / "old.stl")
    monkeypatch.setattr(trimesh, "__version__", "4.9.0")
    with pytest.raises(meshes.ModelError) as err:
        hf.Mesh.load(path)
    assert str(err.value) == ("hf.Mesh.load needs trimesh >= 4.12 (this is 4.9.0): pip "
                              "install -U 'hfrender[models]'")
