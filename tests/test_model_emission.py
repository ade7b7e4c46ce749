"""A glTF material's light of its own (emissiveFactor x KHR_materials_emissive_strength),
drawn as the object's ``emissive`` is: linear light added to the lit colour. (Was: not
drawn, a warning saying to give the Mesh emissive= instead.)"""

import base64
import json
import struct

import numpy as np
import pytest
from render_helpers import render_frames
from test_meshes import H, W, make_scene
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


def centre_light(gl_context, *objects):
    """The linear light (float target) at the picture's centre, ambient light alone."""
    scene = make_scene(*objects)
    scene.setup()
    renderer = SceneRenderer(gl_context().ctx, scene, (W, H), False, hdr=True)
    renderer.prepare()
    renderer.draw(0.0, 0)
    color = np.empty((H, W, 4), np.float32)
    renderer.read_into(color)
    renderer.release()
    return color[H // 2, W // 2, :3].tolist()


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


def test_8_bit_pictures_show_the_emission_and_a_texture_alone_is_still_warned_of(
        gl_context, tmp_path, caplog):
    """On 8-bit sub-frames: the sRGB codes of base + emission. An emissiveTexture is not
    drawn: its material glows not at all (its factor alone, Blender's 1, 1, 1, would light
    the texture's dark parts too), and the warning names it."""
    from test_models_in_the_wild import centre

    from hfrender.color import linear_to_srgb

    dim = lamp(tmp_path / "dim.gltf", 0.5, (0.5, 0.25, 0))  # + (0.25, 0.125, 0)
    want = np.rint(linear_to_srgb(np.array([0.5, 0.625, 0.125])) * 255).tolist()
    assert centre(gl_context, dim) == want
    screen = lamp(tmp_path / "screen.gltf", 5.0, (1, 1, 1), emissiveTexture={"index": 0})
    assert centre(gl_context, screen) == np.rint(
        linear_to_srgb(np.array(BASE[:3])) * 255).tolist()
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"{screen}: drawn without its emissive textures (emissiveTexture of material 'lamp': "
        "the material drawn without its emission): hfrender does not draw them"]


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
