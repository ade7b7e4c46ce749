"""A glTF file's camera as the scene's (hfrender/scene/model_cameras.py): a camera animated
in Blender and exported with its cameras, played by ``self.camera.follow(mesh)`` at the
Mesh's time, through the Mesh's placing; its lens from yfov on hfrender's sensor."""

import json
import logging
import math
import struct

import numpy as np
import pytest
from gltf_files import gltf_written

import hfrender as hf

pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")

S = 0.3  # the quad's half size
W, H = 320, 180
BLENDER_YFOV = 2 * math.atan(36 / (16 / 9) / 2 / 50)  # Blender's 50 mm on 36 mm, 16:9
START, END = (0.0, 0.0, 4.0), (0.4, 0.2, 3.0)  # the camera's flight, over 1 s (LINEAR)


def write_shot(folder, name="shot", lens=None, camera_node=None):
    """``name``.gltf: a white quad of side 2 S at the origin in x-y, facing +z (node 0),
    and node 1 "Camera" (``lens``: Blender's 50 mm for 16:9) at START, flying to END over
    1 s (animation "Fly", LINEAR)."""
    blob = struct.pack("<12f", -S, -S, 0, S, -S, 0, S, S, 0, -S, S, 0) + struct.pack(
        "<6H", 0, 1, 2, 0, 2, 3) + struct.pack("<8f", 0.0, 1.0, *START, *END)
    header = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"mesh": 0}, {"name": "Camera", "camera": 0, "translation": list(START),
                                **(camera_node or {})}],
        "cameras": [lens or {"type": "perspective", "perspective": {
            "yfov": BLENDER_YFOV, "aspectRatio": 16 / 9, "znear": 0.1, "zfar": 100.0}}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1,
                                    "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1]},
                       "doubleSided": True}],
        "buffers": [{"uri": f"{name}.bin", "byteLength": len(blob)}],
        "bufferViews": [{"buffer": 0, "byteOffset": o, "byteLength": n}
                        for o, n in ((0, 48), (48, 12), (60, 8), (68, 24))],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-S, -S, 0], "max": [S, S, 0]},
            {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [1.0]},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "VEC3"}],
        "animations": [{"name": "Fly", "samplers": [{"input": 2, "output": 3}],
                        "channels": [{"sampler": 0,
                                      "target": {"node": 1, "path": "translation"}}]}]}
    return gltf_written(folder, name, header, blob)


def by_hand(t):
    """(centre u, v; side) in pixels of the quad seen by the pinhole at the camera's place
    at ``t`` (LINEAR between START and END), looking down -z, of vertical field of view
    BLENDER_YFOV in a W x H picture."""
    cx, cy, cz = (a + t * (b - a) for a, b in zip(START, END, strict=True))
    f_px = H / 2 / math.tan(BLENDER_YFOV / 2)  # 444.4 px: 50 mm on 36 mm, 320 wide
    return W / 2 - cx / cz * f_px, H / 2 + cy / cz * f_px, 2 * S / cz * f_px


def drawn(picture):
    """(centre u, v; width, height) in pixels of the lit part of ``picture``."""
    rows, cols = np.nonzero(picture[..., 0] > 127)
    return ((cols.min() + cols.max() + 1) / 2, (rows.min() + rows.max() + 1) / 2,
            cols.max() - cols.min() + 1, rows.max() - rows.min() + 1)


@pytest.mark.parametrize("t", [0.25, 1.0])
def test_the_files_animated_camera_is_the_pictures(gl_context, tmp_path, t):
    """The quad where the pinhole at the glTF camera's place at t puts it (the Mesh placed
    turned, moved and scaled: its camera with it, the picture the same); was: hfrender's
    camera where the scene left it, the file's camera's motion 'not played'."""
    write_shot(tmp_path)
    (tmp_path / "fly.py").write_text(
        "import math\n\nimport hfrender as hf\n\n"
        "class Fly(hf.Scene):\n"
        "    background = (0, 0, 0)\n"
        "    ambient = 1.0\n\n"
        "    def setup(self):\n"
        "        self.shot = self.add(hf.Mesh.load('shot.gltf', position=(1, 0.5, -2),\n"
        "                                          rotation=(0, math.pi / 2, 0), scale=2))\n\n"
        "    def update(self, t):\n"
        "        self.shot.time = t\n"
        "        self.camera.follow(self.shot)\n")
    picture = hf.still(tmp_path / "fly.py", t, size=(W, H), fps=4, samples=1)
    u, v, side = by_hand(t)
    np.testing.assert_allclose(drawn(picture), (u, v, side, side), atol=1.0)


def test_camera_at_is_the_nodes_world_place_through_the_meshs(tmp_path):
    """Position, target 1 m ahead, up, near and far scaled with the Mesh."""
    shot = hf.Mesh.load(write_shot(tmp_path), position=(1.0, 0.0, 0.0),
                        rotation=(0.0, math.pi / 2, 0.0), scale=2.0)
    assert shot.cameras == ("Camera",)
    pose = shot.camera_at()  # time None: the rest pose, at START
    np.testing.assert_allclose(pose.position, (9.0, 0.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(pose.target, (8.0, 0.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(pose.up, (0.0, 1.0, 0.0), atol=1e-12)
    assert (pose.near, pose.far, pose.orthographic) == (0.2, 200.0, False)
    shot.time = 0.5  # (0.2, 0.1, 3.5) in the file: x -> -z, z -> x, x 2, + (1, 0, 0)
    np.testing.assert_allclose(shot.camera_at("Camera").position, (8.0, 0.2, -0.4),
                               atol=1e-12)


def test_a_turned_camera_looks_along_its_minus_z_with_its_y_up(tmp_path):
    """A node turned 90 degrees about x (looking straight down, as Blender's +Y up export
    turns a camera looking down its -Z): ahead is -y, up is -z."""
    quarter = [-math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4)]  # -90 about x
    shot = hf.Mesh.load(write_shot(tmp_path, camera_node={"rotation": quarter,
                                                          "translation": [0, 5, 0]}))
    scene = hf.Scene()
    scene.camera.follow(shot)
    np.testing.assert_allclose(scene.camera.position, (0.0, 5.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(scene.camera.target, (0.0, 4.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(scene.camera.up, (0.0, 0.0, -1.0), atol=1e-12)


@pytest.mark.parametrize(("aspect", "fit", "expected_mm"), [
    (None, "auto", 50.0),  # the file's aspectRatio, 16:9: Blender's lens again
    (16 / 9, "horizontal", 50.0),
    (4 / 3, "auto", 36 / (4 / 3) / 2 / math.tan(BLENDER_YFOV / 2)),  # 66.7: the same height
    (16 / 9, "vertical", 24 / 2 / math.tan(BLENDER_YFOV / 2)),  # 59.3 on 24 mm high
    (9 / 16, "auto", 36 / 2 / math.tan(BLENDER_YFOV / 2)),  # portrait: 36 mm high
])
def test_the_focal_length_sees_yfov_on_hfrenders_sensor(tmp_path, aspect, fit, expected_mm):
    shot = hf.Mesh.load(write_shot(tmp_path))
    cam = hf.Camera(sensor_fit=fit)
    cam.follow(shot, aspect=aspect)
    assert cam.focal_length_mm == pytest.approx(expected_mm, rel=1e-12)
    picture_aspect = aspect or 16 / 9  # the vertical field of view, through the projection
    p11 = cam.projection(picture_aspect)[1, 1]
    assert 2 * math.atan(1 / abs(p11)) == pytest.approx(BLENDER_YFOV, rel=1e-12)


@pytest.mark.parametrize(("size", "across", "up"), [
    ((1920, 1080), 39.6, 22.9), ((1080, 1080), 39.6, 39.6), ((1080, 1920), 22.9, 39.6)])
def test_a_16_9_camera_drawn_at_another_size_keeps_its_longer_sides_field(tmp_path, size,
                                                                            across, up):
    """As docs/rendering.md says and Blender's sensor fit auto does: the 50 mm lens's
    39.6 degrees go to the picture's longer side (the height of a portrait one)."""
    cam = hf.Camera()
    cam.follow(hf.Mesh.load(write_shot(tmp_path)))
    p = cam.projection(size[0] / size[1])
    fields = [round(math.degrees(2 * math.atan(1 / abs(p[i, i]))), 1) for i in (0, 1)]
    assert (cam.focal_length_mm, fields) == (pytest.approx(50.0, rel=1e-12), [across, up])


def test_a_blender_camera_made_for_4_3_is_its_50_mm():
    """Blender's exporter: yfov = 2 atan(tan(angle / 2) / aspectRatio) for a landscape
    picture, angle = 2 atan(36 / 2 / 50): the file's yfov for 4:3."""
    yfov = 2 * math.atan(math.tan(math.atan(36 / 2 / 50)) / (4 / 3))
    assert hf.Camera().focal_length_for(yfov, 4 / 3) == pytest.approx(50.0, rel=1e-12)


def test_an_orthographic_camera(tmp_path):
    shot = hf.Mesh.load(write_shot(tmp_path, lens={"type": "orthographic", "orthographic": {
        "xmag": 0.8, "ymag": 0.45, "znear": 0.5, "zfar": 20.0}}), scale=2.0)
    cam = hf.Camera(focal_length_mm=35.0)
    cam.follow(shot)
    assert (cam.orthographic, cam.ortho_height, cam.near, cam.far, cam.focal_length_mm) == \
        (True, 1.8, 1.0, 40.0, 35.0)
    assert shot.camera_at().aspect_ratio == pytest.approx(16 / 9)


@pytest.mark.parametrize(("xmag", "ymag", "aspect", "seen"), [
    (0.8, 0.45, None, (3.2, 1.8)),  # the file's 16:9: 2 ymag high
    (0.8, 0.45, 16 / 9, (3.2, 1.8)),
    (0.8, 0.45, 4 / 3, (3.2, 2.4)),  # was 2.4 x 1.8: the height kept, the width lost
    (0.8, 0.45, 1.0, (3.2, 3.2)),
    (0.8, 0.45, 9 / 16, (1.8, 3.2)),  # portrait: the ortho_scale up (was 1.0125 x 1.8)
    (0.45, 0.8, None, (1.8, 3.2)),  # a file made portrait
    (0.45, 0.8, 16 / 9, (3.2, 1.8)),  # drawn landscape: across (was 5.69 x 3.2)
])
def test_an_orthographic_camera_keeps_blenders_ortho_scale_across_the_longer_side(
        tmp_path, xmag, ymag, aspect, seen):
    """Blender's ortho_scale (2 max(xmag, ymag), scaled 2 with the Mesh: 3.2) spans the
    picture's longer side at any render size, as its field does for perspective."""
    shot = hf.Mesh.load(write_shot(tmp_path, lens={"type": "orthographic", "orthographic": {
        "xmag": xmag, "ymag": ymag, "znear": 0.5, "zfar": 20.0}}), scale=2.0)
    cam = hf.Camera()
    cam.follow(shot, aspect=aspect)
    p = cam.projection(aspect or xmag / ymag)
    assert (2 / p[0, 0], -2 / p[1, 1]) == (pytest.approx(seen[0], rel=1e-12),
                                           pytest.approx(seen[1], rel=1e-12))


def test_a_camera_with_no_zfar_keeps_the_cameras_far(tmp_path):
    shot = hf.Mesh.load(write_shot(tmp_path, lens={"type": "perspective", "perspective": {
        "yfov": 0.5, "znear": 0.01}}))
    cam = hf.Camera(far=300.0)
    cam.follow(shot)
    assert (cam.near, cam.far) == (0.01, 300.0)
    assert cam.focal_length_mm == pytest.approx(36 / (16 / 9) / 2 / math.tan(0.25))


def test_a_large_mesh_with_no_zfar_keeps_its_far_past_its_near(tmp_path):
    """znear 0.1 scaled 20000 with the Mesh is 2000: far at least 10^4 times that (was
    the camera's 1000, refused: 'camera.near=2000 must be less than camera.far=1000'), and
    the camera's own far again once the Mesh is small."""
    shot = hf.Mesh.load(write_shot(tmp_path, lens={"type": "perspective", "perspective": {
        "yfov": 0.5, "znear": 0.1}}), scale=20000.0)
    cam = hf.Camera()
    cam.follow(shot)
    cam.validate()
    assert (cam.near, cam.far) == (pytest.approx(2000.0), pytest.approx(2e7))
    shot.scale = 1.0
    cam.follow(shot)
    assert (cam.near, cam.far) == (pytest.approx(0.1), 1000.0)
    cam.follow(hf.Mesh.load(tmp_path / "shot.gltf", scale=20000.0))
    cam.far = 5e7  # one set after follow is the camera's own
    cam.follow(shot)
    assert cam.far == 5e7


def test_a_name_not_in_the_file_and_a_file_with_no_camera(tmp_path):
    shot = hf.Mesh.load(write_shot(tmp_path))
    cam = hf.Camera()
    with pytest.raises(hf.InputError) as excinfo:
        cam.follow(shot, "Cam")
    assert str(excinfo.value) == ("camera 'Cam': shot.gltf has no camera of that name; its "
                                  "cameras: 'Camera'")
    path = write_shot(tmp_path, "bare")
    header = json.loads(path.read_text())
    del header["cameras"], header["nodes"][1]["camera"]
    path.write_text(json.dumps(header))
    with pytest.raises(hf.InputError) as excinfo:
        cam.follow(hf.Mesh.load(path))
    assert str(excinfo.value) == ("bare.gltf has no camera: export it with its cameras "
                                  "(Blender's glTF export: Include > Cameras)")
    with pytest.raises(hf.InputError) as excinfo:
        cam.follow("shot.gltf")
    assert str(excinfo.value) == ("camera.follow('shot.gltf'): give the Mesh of a glTF file "
                                  "with a camera, e.g. hf.Mesh.load('shot.glb')")
    with pytest.raises(hf.InputError) as excinfo:
        cam.follow(shot, aspect=0)
    assert str(excinfo.value) == ("camera.follow aspect=0 must be a finite number > 0 (the "
                                  "picture's width / height)")
    assert cam.position == (0.0, 0.0, 5.0)  # nothing set by a refusal


@pytest.mark.parametrize(("lens", "said"), [
    ({"type": "perspective", "perspective": {"yfov": 0, "znear": 0.1}},
     "has perspective.yfov=0: it must be a finite number > 0"),
    ({"type": "perspective", "perspective": {"yfov": 3.5, "znear": 0.1}},
     "has perspective.yfov=3.5: a field of view must be less than pi (180 degrees)"),
    ({"type": "perspective", "perspective": {"yfov": 0.5, "znear": 2.0, "zfar": 1.0}},
     "has znear=2 not less than zfar=1"),
    ({"type": "fisheye"}, "is of type 'fisheye': neither 'perspective' nor 'orthographic' "
     "with its values"),
])
def test_a_broken_lens_is_one_line(tmp_path, lens, said):
    shot = hf.Mesh.load(write_shot(tmp_path, lens=lens))  # (loads: refused when followed)
    with pytest.raises(hf.InputError) as excinfo:
        hf.Camera().follow(shot)
    assert str(excinfo.value) == f"shot.gltf: its camera 'Camera' {said}"


def test_a_followed_cameras_motion_is_not_said_not_played(tmp_path, caplog):
    """Was: 'its cameras' and lights' motion (node 'Camera': the scene's camera and lights
    are hfrender's own) not played'."""
    with caplog.at_level(logging.WARNING):
        hf.Mesh.load(write_shot(tmp_path))
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_the_cameras_own_action_plays_beside_the_objects(tmp_path):
    """Blender exports each action as an animation: the quad's 'CubeAction' first, the
    camera's 'CameraAction' second. The Mesh plays its first; the camera follows its own
    (was: held at rest, the Mesh's animation moving it not)."""
    path = write_shot(tmp_path)
    header = json.loads(path.read_text())
    fly = header["animations"][0]
    header["animations"] = [
        {"name": "CubeAction", "samplers": fly["samplers"],
         "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]},
        {**fly, "name": "CameraAction"}]
    path.write_text(json.dumps(header))
    shot = hf.Mesh.load(path)
    shot.time = 1.0
    np.testing.assert_allclose(shot.camera_at().position, END, atol=1e-7)
    shot.animation = "CameraAction"
    np.testing.assert_allclose(shot.camera_at().position, END, atol=1e-7)
    header["nodes"].append({"name": "Rig", "children": [1]})  # a parent the Mesh's moves
    header["scenes"][0]["nodes"] = [0, 2]
    header["animations"][0]["channels"].append(
        {"sampler": 0, "target": {"node": 2, "path": "translation"}})
    path.write_text(json.dumps(header))
    shot = hf.Mesh.load(path)
    shot.time = 1.0  # 'CubeAction' moves it: the Rig at END, the camera START from it
    np.testing.assert_allclose(shot.camera_at().position, np.add(START, END), atol=1e-7)
