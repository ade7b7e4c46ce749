"""A glTF material's light of its own (emissiveFactor x KHR_materials_emissive_strength),
drawn as the object's ``emissive`` is: linear light added to the lit colour; times its
emissiveTexture where it has one. (Was: not drawn, a warning saying to give the Mesh
emissive= instead; then an emissiveTexture not drawn, its material not glowing.)"""

import base64
import json
import struct

import numpy as np
import pytest
from mesh_helpers import H, W, make_scene
from render_helpers import render_frames
from test_models_in_the_wild import gltf_square

import hfrender as hf
from hfrender.renderer.renderer import SceneRenderer
from hfrender.scene import past_white

pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")

# linear vertex colours, exact in the vertices' half floats (a baseColorFactor would be
# cut to 8 bits by trimesh: 0.25 drawn as 64 / 255)
BASE = [0.25, 0.5, 0.125, 1.0]


def lamp(path, strength=2.0, factor=(1, 0.5, 0), **material):
    """A 2 m square of colour BASE whose material glows ``factor`` x ``strength``."""
    extensions = {} if strength is None else {"extensions": {
        "KHR_materials_emissive_strength": {"emissiveStrength": strength}}}
    return gltf_square(path, np.array([BASE] * 4, "f4"), material={
        "name": "lamp", "emissiveFactor": list(factor), **extensions, **material},
        extensionsUsed=["KHR_materials_emissive_strength"])


def drawn_light(gl_context, *objects):
    """The picture's linear light (float target, (H, W, 4)) of a scene of ``objects``."""
    scene = make_scene(*objects)
    scene.setup()
    renderer = SceneRenderer(gl_context().ctx, scene, (W, H), False, hdr=True)
    renderer.prepare()
    renderer.draw(0.0, 0)
    color = np.empty((H, W, 4), np.float32)
    renderer.read_into(color)
    renderer.release()
    return color


def centre_light(gl_context, *objects):
    """The linear light (float target) at the picture's centre, ambient light alone."""
    return drawn_light(gl_context, *objects)[H // 2, W // 2, :3].tolist()


def glb_of(gltf):
    """The .gltf ``gltf`` (one embedded buffer) as a .glb beside it."""
    header = json.loads(gltf.read_text())
    blob = base64.b64decode(header["buffers"][0].pop("uri").split(",", 1)[1])
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 4)
    blob += b"\0" * (-len(blob) % 4)
    body = struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(blob),
                                                                        b"BIN\0") + blob
    path = gltf.with_suffix(".glb")
    path.write_bytes(b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body)
    return path


def test_a_materials_emission_times_its_strength_is_added_to_the_lit_colour(
        gl_context, tmp_path, caplog):
    """Ambient 1: base + emissiveFactor (1, 0.5, 0) x strength 2, in linear light; a .glb's
    as a .gltf's; strength 0, none; without the extension, the factor alone."""
    gltf = lamp(tmp_path / "lamp.gltf")
    for path in (gltf, glb_of(gltf)):
        assert centre_light(gl_context, hf.Mesh.load(path)) == [2.25, 1.5, 0.125]
    assert centre_light(gl_context, hf.Mesh.load(lamp(tmp_path / "off.gltf", 0.0))) == BASE[:3]
    assert centre_light(gl_context, hf.Mesh.load(lamp(tmp_path / "one.gltf", None))) == [
        1.25, 1.0, 0.125]
    assert not [r for r in caplog.records if r.levelname == "WARNING"]


def test_emission_is_untinted_and_apart_from_the_objects_emissive_and_shader(
        gl_context, tmp_path):
    """The Mesh's color tints the base colour, not the material's light (a red-tinted car
    keeps white headlamps, as a glTF's baseColorFactor leaves its emission); emissive=
    still adds base x emissive; a shader's shade() (unlit; one returning black) is the lit
    part alone; opacity scales it all, as it does the base colour."""
    path = lamp(tmp_path / "lamp.gltf")
    assert centre_light(gl_context, hf.Mesh.load(path, color=(1, 0, 0))) == [2.25, 1.0, 0.0]
    assert centre_light(gl_context, hf.Mesh.load(path, emissive=1.0)) == [2.5, 2.0, 0.25]
    assert centre_light(gl_context, hf.Mesh.load(path, shader="unlit")) == [2.25, 1.5, 0.125]
    (tmp_path / "dark.glsl").write_text(
        "vec3 shade(vec3 normal, vec3 world, vec3 color) { return vec3(0.0); }\n")
    assert centre_light(gl_context, hf.Mesh.load(path, shader=str(tmp_path / "dark.glsl"))
                        ) == [2.0, 1.0, 0.0]
    assert centre_light(gl_context, hf.Mesh.load(path, opacity=0.5)) == [1.125, 0.75, 0.0625]


def test_8_bit_pictures_show_the_emission_and_an_unread_emissive_texture_none(
        gl_context, tmp_path):
    """On 8-bit sub-frames: the sRGB codes of base + emission. An emissiveTexture that names
    no image trimesh reads: its material glows not at all (its factor alone, Blender's 1,
    1, 1, would light the texture's dark parts too)."""
    from test_models_in_the_wild import centre

    from hfrender.color import linear_to_srgb

    dim = lamp(tmp_path / "dim.gltf", 0.5, (0.5, 0.25, 0))  # + (0.25, 0.125, 0)
    want = np.rint(linear_to_srgb(np.array([0.5, 0.625, 0.125])) * 255).tolist()
    assert centre(gl_context, dim) == want
    screen = lamp(tmp_path / "screen.gltf", 5.0, (1, 1, 1), emissiveTexture={"index": 0})
    assert centre(gl_context, screen) == np.rint(
        linear_to_srgb(np.array(BASE[:3])) * 255).tolist()


@pytest.mark.parametrize("strength", [-1, "bright", True])
def test_a_strength_that_is_no_number_of_0_or_more_is_said_in_one_line(tmp_path, strength):
    path = lamp(tmp_path / "bad.gltf", strength)
    with pytest.raises(hf.errors.InputError) as info:
        hf.Mesh.load(path)
    assert str(info.value) == (f"{path}: cannot read the gltf file: ValueError: material "
                               f"'lamp': emissiveStrength {strength!r} is not a number of 0 "
                               "or more")


def test_hdr_auto_sees_a_model_whose_emission_passes_white(tmp_path):
    """Strength 10: its base colour (0.5 at most) plus 10x white of the material's own
    light (was: unseen, 8-bit sub-frames clipping the lamp to white before its blur); a
    dim one, 0.625 at most, chooses 8-bit sub-frames still."""
    lamp(tmp_path / "lamp.gltf", 10.0)
    lamp(tmp_path / "dim.gltf", 0.5, (0.5, 0.25, 0))
    scene = make_scene(hf.Mesh.load(tmp_path / "lamp.gltf"))
    scene.setup()
    assert past_white(scene) == ("the Mesh lamp.gltf with its materials' emission (up to "
                                 "10x white) reaches 10.5x white")
    scene.objects[0].emissive = 2.0  # base x 3 + 10
    assert past_white(scene) == ("the Mesh lamp.gltf with emissive 2 and its materials' "
                                 "emission (up to 10x white) reaches 11.5x white")
    dim = make_scene(hf.Mesh.load(tmp_path / "dim.gltf"))
    dim.setup()
    assert past_white(dim) is None
    (tmp_path / "shot.py").write_text(
        "import hfrender as hf\n\nclass Shot(hf.Scene):\n    duration = 0.1\n"
        "    def setup(self):\n        self.lamp = self.add(hf.Mesh.load('lamp.gltf'))\n"
        "        self.camera.position = (0, 0, 5)\n")
    _, stats = render_frames(tmp_path / "shot.py", size=(48, 32), samples=1, count=1)
    assert stats.hdr and stats.hdr_why == ("self.lamp (a Mesh) with its materials' emission "
                                           "(up to 10x white) reaches 10.5x white")


# an emissive texture's four quadrants (sRGB codes), as the image shows them: top left, top
# right, bottom left, bottom right; each quadrant 2x2 texels (sampled between two of its own)
QUADRANTS = [[255, 128, 0], [0, 64, 255], [128, 255, 32], [16, 0, 200]]


def screen(path, factor=(1, 1, 1), strength=4.0, quadrants=QUADRANTS, **material):
    """``lamp``'s square with an emissiveTexture of ``quadrants``, upright (UV 0, 0 at its
    top left corner, glTF's image origin), embedded as a PNG."""
    import base64
    import io

    from PIL import Image

    image = np.array(quadrants, np.uint8).reshape(2, 2, 1, 1, 3).repeat(2, 2).repeat(2, 3)
    png = io.BytesIO()
    Image.fromarray(image.transpose(0, 2, 1, 3, 4).reshape(4, 4, 3)).save(png, "PNG")
    uri = "data:image/png;base64," + base64.b64encode(png.getvalue()).decode()
    return gltf_square(path, np.array([BASE] * 4, "f4"), material={
        "name": "screen", "emissiveFactor": list(factor), "emissiveTexture": {"index": 0},
        "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": strength}},
        **material}, uv=np.array([[0, 1], [1, 1], [1, 0], [0, 0]], "f4"),
        images=[{"uri": uri}], textures=[{"source": 0}],
        extensionsUsed=["KHR_materials_emissive_strength"])


def quadrant_light(gl_context, *objects):
    """The linear light (float target) at the middle of each quarter of the square seen
    head-on (it fills the picture's middle), in QUADRANTS' order: (4, 3)."""
    color = drawn_light(gl_context, *objects)
    rows, cols = (np.flatnonzero(color[..., 1].max(axis)) for axis in (1, 0))
    ys = [round(rows[0] + (rows[-1] - rows[0]) * f) for f in (0.25, 0.75)]
    xs = [round(cols[0] + (cols[-1] - cols[0]) * f) for f in (0.25, 0.75)]
    return np.array([color[y, x, :3] for y in ys for x in xs], np.float64)


def test_an_emissive_texture_times_factor_and_strength_is_added_at_the_parts_uvs(
        gl_context, tmp_path, caplog):
    """Ambient 1, seen head-on: each quarter of the square shows BASE + its quadrant's
    texel (sRGB decoded) x emissiveFactor x strength, upright (was: the texture not drawn
    and the material not glowing: BASE alone, and a warning); a .glb's as a .gltf's."""
    from hfrender.color import srgb_to_linear

    gltf = screen(tmp_path / "screen.gltf", (1, 0.5, 0.25), 2.0)
    want = np.array(BASE[:3]) + srgb_to_linear(np.array(QUADRANTS) / 255) * [2, 1, 0.5]
    for path in (gltf, glb_of(gltf)):
        got = quadrant_light(gl_context, hf.Mesh.load(path))
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-3)  # (the GPU's sRGB decode)
    assert got[0, [0, 2]].tolist() == [2.25, 0.125]  # (codes 255 and 0: exact)
    assert not [r for r in caplog.records if r.levelname == "WARNING"]


@pytest.mark.parametrize("shader", ["lambert", "toon", "unlit", "own"])
def test_every_surface_shader_adds_the_emissive_texture_to_what_it_returns(
        gl_context, tmp_path, shader):
    """Under each shader, the square drawn with its emissive texture less the same square
    with strength 0 is the texture's light alone (factor 1, strength 4), the Mesh's color
    leaving it untinted."""
    from hfrender.color import srgb_to_linear

    if shader == "own":
        shader = str(tmp_path / "mine.glsl")
        (tmp_path / "mine.glsl").write_text(
            "vec3 shade(vec3 normal, vec3 world, vec3 color) { return 0.5 * color; }\n")
    lit, dark = (quadrant_light(gl_context, hf.Mesh.load(
        screen(tmp_path / f"{name}.gltf", strength=strength), shader=shader,
        color=(1, 0.5, 1))) for name, strength in (("lit", 4.0), ("dark", 0.0)))
    np.testing.assert_allclose(lit - dark, 4 * srgb_to_linear(np.array(QUADRANTS) / 255),
                               rtol=0, atol=5e-3)
    assert (dark > 0).any() and (dark < 1).all()


def test_one_texture_is_made_of_an_image_base_colour_and_emission_alike(gl_context,
                                                                       tmp_path):
    """A material whose baseColorTexture is its emissiveTexture (one image): one texture
    uploaded, bound as both."""
    from hfrender.renderer.models import ModelDrawer

    mesh = hf.Mesh.load(screen(tmp_path / "both.gltf", pbrMetallicRoughness={
        "baseColorTexture": {"index": 0}}))
    drawer = ModelDrawer(gl_context().ctx, None)
    drawer.prepare(None, mesh.geometry)
    (_, _, base, glow, part, *_), = drawer.uploads[mesh.geometry]
    assert base is glow and part.texture is part.emission_texture
    drawer.release()


def test_hdr_auto_sees_an_emissive_textures_brightest_texel(tmp_path):
    """--hdr auto takes the brightest texel x factor x strength (was: no light at all): a
    screen of full red x 4 reaches 4.5x white; a dim one (codes 128 at most, factor 1, 1,
    1 as Blender writes it) stays under white (its factor alone would be 1.5x)."""
    from hfrender.color import srgb_to_linear

    bright = make_scene(hf.Mesh.load(screen(tmp_path / "bright.gltf")))
    bright.setup()
    assert past_white(bright) == ("the Mesh bright.gltf with its materials' emission (up to "
                                  "4x white) reaches 4.5x white")
    dim = make_scene(hf.Mesh.load(screen(tmp_path / "dim.gltf", strength=1.0, quadrants=[
        [128, 0, 0], [0, 100, 0], [0, 0, 64], [128, 128, 128]])))
    dim.setup()
    assert past_white(dim) is None
    assert dim.objects[0]._model.emitters == [(0.5, float(srgb_to_linear(128 / 255)))]


def test_an_emissive_texture_not_there_leaves_its_material_unlit(tmp_path, caplog):
    """An emissiveTexture whose image is not beside the model: the material glows not at
    all (its factor alone would light the whole square 4x white), and the missing file is
    named."""
    path = screen(tmp_path / "gone.gltf")
    header = json.loads(path.read_text())
    header["images"] = [{"uri": "gone.png"}]
    path.write_text(json.dumps(header))
    mesh = hf.Mesh.load(path)
    assert [(p.emission, p.emission_texture) for p in mesh._model.parts] == [
        ((0.0, 0.0, 0.0), None)]
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"{path}: gone.png is not there (beside the model); drawn without it, in the "
        "model's colours"]


def test_a_texture_on_another_uv_set_is_said_to_be_drawn_at_texcoord_0(gl_context, tmp_path,
                                                                       caplog):
    """An emissive (or base colour) texture naming texCoord 1: trimesh keeps TEXCOORD_0
    alone, so it is drawn there; one warning says so (was: without a word)."""
    path = screen(tmp_path / "second.gltf", emissiveTexture={"index": 0, "texCoord": 1})
    got = quadrant_light(gl_context, hf.Mesh.load(path))
    assert got[0, [0, 2]].tolist() == [4.25, 0.125]  # (at TEXCOORD_0: code 255 x 4)
    screen(tmp_path / "first.gltf", emissiveTexture={"index": 0, "texCoord": 0})
    hf.Mesh.load(tmp_path / "first.gltf")
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"{path}: drawn without its textures' other UV sets (texCoord of material 'screen': "
        "drawn at TEXCOORD_0): hfrender does not draw them"]


@pytest.mark.parametrize("name", [None, "screen"])
def test_a_lamp_beside_an_emissive_texture_of_its_name_keeps_its_glow(tmp_path, name):
    """A material with an emissiveFactor alone glows, though another of the same name
    (unnamed both, or a name used twice) has an emissiveTexture (was: unlit, taken for a
    material whose emissive texture is not there)."""
    path = screen(tmp_path / "two.gltf", strength=1.0)
    header = json.loads(path.read_text())
    if name is None:
        del header["materials"][0]["name"]
    header["materials"].append({"emissiveFactor": [1, 0.5, 0],
                                **({} if name is None else {"name": name})})
    header["meshes"].append({"primitives": [{**header["meshes"][0]["primitives"][0],
                                             "material": 1}]})
    header["nodes"].append({"mesh": 1, "translation": [3, 0, 0]})
    header["scenes"][0]["nodes"] = [0, 1]
    path.write_text(json.dumps(header))
    parts = hf.Mesh.load(path)._model.parts
    assert sorted((p.emission, p.emission_texture is not None) for p in parts) == [
        ((1.0, 0.5, 0.0), False), ((1.0, 1.0, 1.0), True)]
