"""Models as they come from the wild (hf.Mesh.load), each drawn in its own colours or
refused in one line naming the file."""


import numpy as np
import pytest
from mesh_helpers import draw, make_scene

import hfrender as hf
from hfrender.scene.meshes import ModelError

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
Image = pytest.importorskip("PIL.Image")

SQUARE = "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\n"
UVS = "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"


def centre(gl_context, path, **placement):
    """The colour drawn at the picture's centre (the model's middle), lit by ambient alone."""
    color, _, _ = draw(gl_context(), make_scene(hf.Mesh.load(path, **placement)))
    return color[color.shape[0] // 2, color.shape[1] // 2].tolist()


def test_an_obj_with_uvs_and_no_material_is_drawn_white_as_without_them(gl_context,
                                                                        tmp_path, caplog):
    """trimesh gives UVs without a material a stand-in grey texture: such an OBJ (no
    mtllib, or its .mtl not there) was drawn grey 100, the same square without UVs white."""
    (tmp_path / "plain.obj").write_text(SQUARE + "f 1 2 3 4\n")
    (tmp_path / "uvs.obj").write_text(SQUARE + UVS + "f 1/1 2/2 3/3 4/4\n")
    (tmp_path / "nomtl.obj").write_text("mtllib gone.mtl\nusemtl m\n" + SQUARE + UVS +
                                        "f 1/1 2/2 3/3 4/4\n")
    for name in ("plain.obj", "uvs.obj", "nomtl.obj"):
        assert centre(gl_context, tmp_path / name) == [255, 255, 255], name
    assert centre(gl_context, tmp_path / "uvs.obj", color="#ff8000") == [255, 128, 0]
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"{tmp_path / 'nomtl.obj'}: gone.mtl is not there (beside the model); drawn without "
        "it, in the model's colours"]


@pytest.mark.parametrize("grey", [40, 128, 200])
def test_a_16_bit_grey_texture_is_drawn_in_its_greys(gl_context, tmp_path, grey):
    """A 16-bit greyscale PNG (Pillow's mode I;16) was drawn white: Pillow's conversion to
    RGBA clips its values (0..65535) at 255."""
    Image.fromarray(np.full((8, 8), grey * 257, np.uint16)).save(tmp_path / "grey16.png")
    assert Image.open(tmp_path / "grey16.png").mode.startswith("I")
    (tmp_path / "m.mtl").write_text("newmtl m\nmap_Kd grey16.png\n")
    (tmp_path / "m.obj").write_text("mtllib m.mtl\nusemtl m\n" + SQUARE + UVS +
                                    "f 1/1 2/2 3/3 4/4\n")
    assert centre(gl_context, tmp_path / "m.obj") == [grey] * 3


@pytest.mark.parametrize("kind", ["glb", "gltf", "obj", "stl", "ply"])
@pytest.mark.parametrize("data", [b"", b"\n  \n"])
def test_an_empty_file_of_any_format_is_said_to_be_empty(tmp_path, kind, data):
    """An empty .glb was 'not a glTF 2.0 binary file (it does not start with ...)', a .gltf
    'invalid JSON (Expecting value: line 1 column 1 (char 0))', a .ply 'cannot read the ply
    file: ValueError: Not a ply file!' (an .obj's and an .stl's said it is empty)."""
    path = tmp_path / f"empty.{kind}"
    path.write_bytes(data)
    with pytest.raises(hf.errors.InputError) as info:
        hf.Mesh.load(path)
    assert str(info.value) == f"{path}: the file has no triangles: it is empty"


@pytest.mark.parametrize("named", ["../textures/green.png", r"..\textures\green.png",
                                   r"C:\Users\bob\textures\green.png",
                                   "-s 1 1 1 -bm 1 ../textures/green.png"])
def test_a_texture_named_as_exporters_name_it_is_found(gl_context, tmp_path, caplog, named):
    """A texture in a folder beside the model's (``../textures/``: trimesh refuses a path out
    of the model's folder, and said nothing), a Windows path, or a ``map_Kd`` with options
    was drawn white: found now, as Blender finds it."""
    (tmp_path / "textures").mkdir()
    (tmp_path / "obj").mkdir()
    Image.fromarray(np.full((4, 4, 3), (30, 210, 80), np.uint8)).save(
        tmp_path / "textures" / "green.png")
    (tmp_path / "obj" / "m.mtl").write_text(f"newmtl m\nmap_Kd {named}\n")
    (tmp_path / "obj" / "m.obj").write_text("mtllib m.mtl\nusemtl m\n" + SQUARE + UVS +
                                            "f 1/1 2/2 3/3 4/4\n")
    if named.startswith("C:"):  # beside the model, as copied from Windows
        (tmp_path / "textures" / "green.png").rename(tmp_path / "obj" / "green.png")
    assert centre(gl_context, tmp_path / "obj" / "m.obj") == [30, 210, 80]
    assert not [r for r in caplog.records if r.levelname == "WARNING"]


def test_a_models_texture_and_material_are_scene_files(tmp_path):
    """The files a model reads besides its own (an OBJ's .mtl and texture, a .gltf's
    buffers) are the scene's files: a changed texture makes a batch's job again and is
    refused by --resume, and --ray refuses one outside the scene's folder (was: the model
    file alone; the texture, read from ../textures/, drawn white on workers that lack it)."""
    from hfrender.config import ConfigError
    from hfrender.engine.files_read import files_inside
    from hfrender.scene.sources import asset_files

    (tmp_path / "textures").mkdir()
    (tmp_path / "shot").mkdir()
    Image.fromarray(np.full((4, 4, 3), 90, np.uint8)).save(tmp_path / "textures" / "t.png")
    (tmp_path / "shot" / "m.mtl").write_text("newmtl m\nmap_Kd ../textures/t.png\n")
    (tmp_path / "shot" / "m.obj").write_text("mtllib m.mtl\nusemtl m\n" + SQUARE + UVS +
                                             "f 1/1 2/2 3/3 4/4\n")
    scene = make_scene(hf.Mesh.load(tmp_path / "shot" / "m.obj"))
    scene.setup()
    assert asset_files(scene) == sorted([tmp_path / "shot" / "m.obj",
                                         tmp_path / "shot" / "m.mtl",
                                         tmp_path / "textures" / "t.png"])
    with pytest.raises(ConfigError) as info:
        files_inside(scene, tmp_path / "shot")
    assert str(info.value) == (
        f"--ray: the scene loads {tmp_path / 'textures' / 't.png'}, outside its folder "
        f"{tmp_path / 'shot'} (only that folder, hidden files left out, goes to the workers); "
        "put the model's texture in it, or render without --ray")
    (tmp_path / "textures" / "t.png").rename(tmp_path / "shot" / "t.png")
    (tmp_path / "shot" / "m.mtl").write_text("newmtl m\nmap_Kd t.png\n")
    inside = make_scene(hf.Mesh.load(tmp_path / "shot" / "m.obj"))
    inside.setup()
    assert files_inside(inside, tmp_path / "shot") is None


def gltf_square(path, colors=None, material=None, uv=None, **extra):
    """A .gltf (its buffer embedded) of a 2 m square facing +z, COLOR_0 ``colors`` (4 rows,
    stored in their own dtype, normalized where integers), TEXCOORD_0 ``uv`` and
    ``material`` (a glTF material's dict) if given; ``extra``: more top-level fields."""
    import base64
    import json

    arrays = [np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], "f4"),
              np.array([0, 1, 2, 0, 2, 3], "u4"), colors, uv]
    names, attributes = ["POSITION", None, "COLOR_0", "TEXCOORD_0"], {}
    kinds = {"f": 5126, "B": 5121, "H": 5123, "I": 5125}
    blob, views, accessors = b"", [], []
    for i, a in enumerate(arrays):
        if a is None:
            continue
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": a.nbytes})
        blob += a.tobytes() + b"\0" * (-a.nbytes % 4)
        accessors.append({"bufferView": len(views) - 1, "componentType": kinds[a.dtype.char],
                          "count": len(a), "type": "SCALAR" if a.ndim == 1 else
                          f"VEC{a.shape[1]}", "normalized": a.dtype.kind == "u" and i == 2})
        if names[i]:
            attributes[names[i]] = len(accessors) - 1
    accessors[0].update(min=[-1, -1, 0], max=[1, 1, 0])
    primitive = {"attributes": attributes,
                 "indices": 1, **({} if material is None else {"material": 0})}
    path.write_text(json.dumps({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}], "meshes": [{"primitives": [primitive]}],
        "buffers": [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64,"
                     + base64.b64encode(blob).decode()}],
        "bufferViews": views, "accessors": accessors,
        **({} if material is None else {"materials": [material]}), **extra}))
    return path


@pytest.mark.parametrize("material", [None, {"doubleSided": True}])
@pytest.mark.parametrize("dtype", ["f4", "u1", "u2"])
def test_gltf_vertex_colours_in_any_accessor_type_are_drawn_as_given(gl_context, tmp_path,
                                                                     material, dtype):
    """glTF's COLOR_0 is float, or 8 or 16 bits normalized (Blender writes 16 bits); was:
    beside a material, floats divided by 255 (drawn black) and 16 bits white; without one,
    16 bits cut to their low byte by trimesh (0.5 drawn as 0)."""
    linear = np.array([[0.5, 0.25, 1.0, 1.0]] * 4)
    if dtype != "f4":
        linear = (linear * np.iinfo(dtype).max).round()
    colors = linear.astype(dtype)[:, :3 if dtype == "u2" else 4]  # (RGB alone too)
    path = gltf_square(tmp_path / "colours.gltf", colors, material)
    assert centre(gl_context, path) == [188, 137, 255]  # linear 0.5, 0.25, 1 in sRGB


def test_what_a_gltf_asks_for_and_is_not_drawn_is_said_in_one_line(gl_context, tmp_path,
                                                                   caplog):
    """KHR_texture_transform and a texture's non-repeating wrap (where its UVs leave 0..1)
    were dropped without a word: the model drawn untransformed and tiled. Now one warning
    names the file and each; none for a file that has none (an emissive texture is drawn:
    not named)."""
    import base64
    import io

    png = io.BytesIO()
    Image.new("RGB", (4, 4), (255, 255, 255)).save(png, "PNG")
    uri = "data:image/png;base64," + base64.b64encode(png.getvalue()).decode()
    square = gltf_square(tmp_path / "plain.gltf", material={"name": "matte"})
    assert centre(gl_context, square) == [255, 255, 255]
    glowing = {"name": "lamp", "emissiveFactor": [1, 0.5, 0], "emissiveTexture": {
        "index": 0}, "pbrMetallicRoughness": {
        "baseColorTexture": {"index": 0, "extensions": {"KHR_texture_transform": {
            "scale": [2, 2]}}}}}
    path = gltf_square(tmp_path / "lamp.gltf", material=glowing, images=[{"uri": uri}],
                       textures=[{"source": 0, "sampler": 0}],
                       samplers=[{"wrapS": 33648, "wrapT": 33071}],
                       extensionsUsed=["KHR_texture_transform"])
    assert centre(gl_context, path) == [255, 255, 255]  # (no UVs: drawn as the factor)
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"{path}: drawn without its texture transforms (KHR_texture_transform): hfrender "
        "does not draw them"]
    caplog.clear()
    tiled = {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}
    for name, uv in (("inside.gltf", [[0, 1], [1, 1], [1, 0], [0, 0]]),
                     ("tiled.gltf", [[0, 2], [2, 2], [2, 0], [0, 0]])):
        gltf_square(tmp_path / name, material=tiled, uv=np.array(uv, "f4"),
                    images=[{"uri": uri}], textures=[{"source": 0, "sampler": 0}],
                    samplers=[{"wrapS": 33648, "wrapT": 33071}])
        assert centre(gl_context, tmp_path / name) == [255, 255, 255]
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"{tmp_path / 'tiled.gltf'}: drawn without its textures' wrap CLAMP_TO_EDGE, "
        "MIRRORED_REPEAT (drawn repeating, past UVs 0..1): hfrender does not draw them"]


def test_a_trimesh_object_is_told_to_be_written_to_a_file_first(tmp_path):
    """A mesh made in code (trimesh.creation.icosphere()) given to Mesh.load: one line
    saying how to make it a file hfrender reads (was: 'give the model file's path', and
    no word of how), and the docs' way works: exported once beside the scene, loaded."""
    ball = trimesh.creation.icosphere(subdivisions=1)
    with pytest.raises(ModelError) as excinfo:
        hf.Mesh.load(ball)
    assert str(excinfo.value) == (
        "Mesh.load(<trimesh.Trimesh(vertices.shape=(42, 3), faces.shape=(80, 3))>): a "
        "trimesh object, not a file: hfrender reads models from files (the scene's files, "
        "as a batch, --resume and Ray follow them); write it once beside the scene and load "
        "that: mesh.export('assets/model.glb'), then hf.Mesh.load('assets/model.glb')")
    with pytest.raises(ModelError, match=r"^Mesh.load\(<trimesh.Scene\(len\(geometry\)"
                                         r"=1\)>\): a trimesh object, not a file: "):
        hf.Mesh.load(trimesh.Scene(ball))
    ball.export(tmp_path / "ico.glb", include_normals=True)
    assert hf.Mesh.load(tmp_path / "ico.glb").triangles == 80
