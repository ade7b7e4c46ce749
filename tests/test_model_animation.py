"""glTF node animations (hfrender/scene/model_animation.py): read from the file's JSON and
buffers, sampled as the glTF 2.0 spec says, each part drawn at its node's animated matrix
(and its velocity from it)."""

import json
import logging
import math
import struct

import numpy as np
import pytest
from gltf_files import gltf_written

import hfrender as hf
from hfrender.scene import meshes
from hfrender.scene.model_animation import Channel, hermite, sample

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
from mesh_helpers import draw, make_scene  # noqa: E402

W, H = 320, 192
HALF = 0.25  # the quads' half size
CAMERA = {"position": (0.0, 5.0, 2.5), "target": (0.0, 0.0, -0.5)}


def _f32(values):
    return struct.pack(f"<{len(values)}f", *values)


def write_gltf(folder, name="prop", extra=None):
    """``name``.gltf and .bin: node 0 "Parent" (a red quad in x-z, facing up) with child
    node 1 "Child" (a green one) at (1, 0, 0). Animation "Spin": the parent turns 90
    degrees about y over 1 s (LINEAR; its quaternions normalised int16), the child steps to
    (1.5, 0, 0) at 0.5 s (STEP). Animation "Lift": the parent rises 1 m over 2 s."""
    s = HALF
    blob = b"".join([
        _f32([-s, 0, -s, s, 0, -s, s, 0, s, -s, 0, s]),  # 0: positions, 48 bytes
        struct.pack("<6H", 0, 1, 2, 0, 2, 3),  # 48: indices, 12
        _f32([0.0, 1.0]),  # 60: Spin's times, 8
        struct.pack("<8h", 0, 0, 0, 32767, 0, 23170, 0, 23170),  # 68: its quaternions, 16
        _f32([0.0, 0.5]),  # 84: the step's times, 8
        _f32([1.0, 0, 0, 1.5, 0, 0]),  # 92: the step's translations, 24
        _f32([0.0, 2.0]),  # 116: Lift's times, 8
        _f32([0, 0, 0, 0, 1.0, 0]),  # 124: its translations, 24
    ])
    views = [(0, 48, 34962), (48, 12, 34963), (60, 8), (68, 16), (84, 8), (92, 24), (116, 8),
             (124, 24)]
    header = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Parent", "mesh": 0, "children": [1]},
                  {"name": "Child", "mesh": 1, "translation": [1.0, 0.0, 0.0]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1,
                                    "material": m}]} for m in (0, 1)],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": c}, "doubleSided": True}
                      for c in ([1, 0, 0, 1], [0, 1, 0, 1])],
        "buffers": [{"uri": f"{name}.bin", "byteLength": len(blob)}],
        "bufferViews": [{"buffer": 0, "byteOffset": v[0], "byteLength": v[1],
                         **({"target": v[2]} if len(v) > 2 else {})} for v in views],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-s, 0, -s], "max": [s, 0, s]},
            {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [1.0]},
            {"bufferView": 3, "componentType": 5122, "normalized": True, "count": 2,
             "type": "VEC4"},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [0.5]},
            {"bufferView": 5, "componentType": 5126, "count": 2, "type": "VEC3"},
            {"bufferView": 6, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [2.0]},
            {"bufferView": 7, "componentType": 5126, "count": 2, "type": "VEC3"}],
        "animations": [
            {"name": "Spin", "samplers": [{"input": 2, "output": 3},
                                          {"input": 4, "output": 5, "interpolation": "STEP"}],
             "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}},
                          {"sampler": 1, "target": {"node": 1, "path": "translation"}}]},
            {"name": "Lift", "samplers": [{"input": 6, "output": 7}],
             "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}],
        **(extra or {})}
    return gltf_written(folder, name, header, blob)


def turned(points, degrees):
    """``points`` turned about y (a right-handed turn: +x goes to -z at 90 degrees)."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.asarray(points, np.float64) @ np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]).T


def quad(centre, degrees):
    corners = [[x, 0.0, z] for x in (-HALF, HALF) for z in (-HALF, HALF)]
    return turned(corners, degrees) + centre


def box_of(clip, points):
    """(left, top, right, bottom) of ``points`` (world) projected, pixels."""
    p = np.column_stack([points, np.ones(len(points))]) @ clip.T
    ndc = p[:, :2] / p[:, 3:]
    xy = np.column_stack([(ndc[:, 0] + 1) / 2 * W, (ndc[:, 1] + 1) / 2 * H])
    return np.concatenate([xy.min(0), xy.max(0)])


def drawn_box(mask):
    ys, xs = np.nonzero(mask)
    return np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], np.float64)


def shot(gl_context, path, t, **load):
    mesh = hf.Mesh.load(path, **load)
    mesh.time = t
    color, _, clips = draw(gl_context(), make_scene(mesh, **CAMERA), size=(W, H))
    red = (color[..., 0] > 0) & (color[..., 1] == 0)
    green = (color[..., 1] > 0) & (color[..., 0] == 0)
    return red, green, clips[0]


def sampled(monkeypatch):
    """The times ``model_animation.sample`` is called at from now on (a list it grows)."""
    from hfrender.scene import model_animation

    calls, real = [], model_animation.sample
    monkeypatch.setattr(model_animation, "sample", lambda c, t: calls.append(t) or real(c, t))
    return calls


# worked by hand: the parent's turn (degrees) and the child's centre in the world
@pytest.mark.parametrize("t, degrees, child", [
    (None, 0.0, (1.0, 0, 0)),  # the rest pose, as before
    (0.0, 0.0, (1.0, 0, 0)),
    (0.25, 22.5, turned([[1.0, 0, 0]], 22.5)[0]),  # the step not yet taken
    (0.5, 45.0, turned([[1.5, 0, 0]], 45.0)[0]),  # slerp halfway; the step taken
    (1.0, 90.0, (0.0, 0, -1.5)),
    (2.0, 90.0, (0.0, 0, -1.5)),  # past the last key: the last holds (glTF clamps)
])
def test_each_part_is_drawn_at_its_nodes_animated_matrix(gl_context, tmp_path, t, degrees,
                                                         child):
    path = write_gltf(tmp_path)
    red, green, clip = shot(gl_context, path, t)
    np.testing.assert_allclose(drawn_box(red), box_of(clip, quad((0, 0, 0), degrees)),
                               atol=1.0)
    np.testing.assert_allclose(drawn_box(green), box_of(clip, quad(child, degrees)),
                               atol=1.0)


def test_the_animation_is_chosen_by_name(gl_context, tmp_path):
    path = write_gltf(tmp_path)
    red, green, clip = shot(gl_context, path, 1.0, animation="Lift")  # halfway up
    np.testing.assert_allclose(drawn_box(red), box_of(clip, quad((0, 0.5, 0), 0)), atol=1.0)
    np.testing.assert_allclose(drawn_box(green), box_of(clip, quad((1, 0.5, 0), 0)),
                               atol=1.0)
    mesh = hf.Mesh.load(path)
    assert (mesh.animations, mesh.animation, mesh.duration) == (("Spin", "Lift"), None, 1.0)
    mesh.animation = "Lift"
    assert mesh.duration == 2.0
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(path, animation="Spinn")
    assert str(excinfo.value) == ("Mesh.animation='Spinn': prop.gltf has no animation of "
                                  "that name; its animations: 'Spin', 'Lift'")
    with pytest.raises(meshes.ModelError) as excinfo:
        mesh.animation = 2
    assert str(excinfo.value) == ("Mesh.animation=2 must be an animation's name (a str; "
                                  "mesh.animations lists them), or None for the file's first")
    with pytest.raises(hf.InputError) as excinfo:
        mesh.time = float("nan")
    assert str(excinfo.value) == ("Mesh.time=nan must be a finite number (seconds into the "
                                  "file's animation, or None: its rest pose)")
    assert mesh.animation == "Lift" and mesh.time is None  # (kept)


def test_cubicspline_follows_the_specs_hermite_formula():
    # keys at 1 s and 3 s, (in-tangent, value, out-tangent) each; at 2 s, u = 0.5:
    # p(u) = (2u^3-3u^2+1) p0 + (u^3-2u^2+u) dt b0 + (-2u^3+3u^2) p1 + (u^3-u^2) dt a1
    values = np.array([[[9, 9, 9], [1.0, 2.0, 0.0], [4.0, 0.0, -2.0]],
                       [[-6.0, 2.0, 0.0], [3.0, 0.0, 1.0], [9, 9, 9]]])
    channel = Channel(0, "translation", np.array([1.0, 3.0]), values, "CUBICSPLINE")
    dt = 2.0
    want = (0.5 * values[0, 1] + 0.125 * dt * values[0, 2] + 0.5 * values[1, 1]
            - 0.125 * dt * values[1, 0])
    np.testing.assert_allclose(sample(channel, 2.0), want)
    np.testing.assert_allclose(want, [4.5, 0.5, 0.0])  # worked by hand
    np.testing.assert_allclose(hermite(*values[0, 1:], values[1, 1], values[1, 0], 0.0),
                               values[0, 1])
    np.testing.assert_allclose(sample(channel, 0.0), values[0, 1])  # clamped: the values,
    np.testing.assert_allclose(sample(channel, 5.0), values[1, 1])  # not the tangents


def test_linear_rotations_are_slerped_and_normalised():
    half = [0.0, math.sin(math.pi / 4), 0.0, math.cos(math.pi / 4)]  # 90 degrees about y
    channel = Channel(0, "rotation", np.array([0.0, 1.0]),
                      np.array([[0.0, 0.0, 0.0, 1.0], half]), "LINEAR")
    got = sample(channel, 0.25)  # slerp: 22.5 degrees (a normalised lerp: 21.6)
    np.testing.assert_allclose(got, [0, math.sin(math.radians(11.25)), 0,
                                     math.cos(math.radians(11.25))], atol=1e-12)
    step = Channel(0, "rotation", np.array([0.0, 1.0]), np.array([[0, 0, 0, 2.0], half]),
                   "STEP")
    np.testing.assert_allclose(sample(step, 0.5), [0, 0, 0, 1.0])  # normalised


def test_morph_targets_are_not_said_not_played(tmp_path, caplog):
    """Skins and morph targets are played (test_model_skins.py, test_model_morphs.py): not
    in the warning; a file without animations whose mesh's default weights are not 0 is
    drawn at them too (test_model_skin_poses.py; was: at its base shapes, said so)."""
    path = write_gltf(tmp_path, "rig", extra={"skins": [{"joints": [1]}]})
    header = json.loads(path.read_text())
    header["meshes"][0]["primitives"][0]["targets"] = [{"POSITION": 0}]
    header["meshes"][0]["weights"] = [0.5]
    path.write_text(json.dumps(header))
    del header["animations"]
    still = tmp_path / "still.gltf"
    still.write_text(json.dumps(header))
    with caplog.at_level(logging.WARNING):
        hf.Mesh.load(path)
        hf.Mesh.load(still)
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said == []


def test_the_rest_pose_is_drawn_as_the_file_without_animations(gl_context, tmp_path):
    """``time`` None (the default): the picture of the file with its animations stripped,
    pixel for pixel; a file without animations has no part matrices (drawn as before)."""
    moving = hf.Mesh.load(write_gltf(tmp_path))
    still = hf.Mesh.load(write_gltf(tmp_path, "still", extra={"animations": []}))
    assert still.part_matrices() is None and still.animations == () and still.duration == 0
    assert len(moving._loaded().parts) == 2 and len(still._loaded().parts) == 1  # (merged)
    pictures = [draw(gl_context(), make_scene(m, **CAMERA), size=(W, H))[0]
                for m in (moving, still)]
    np.testing.assert_array_equal(pictures[0], pictures[1])


def sub_frame(renderer, mesh, t, h=1e-3):
    """``mesh`` drawn at ``t`` by ``renderer`` (prepared, with velocity) as a sub-frame is:
    its clip matrices at t - h, t + h (the velocity's rates) and t, the colour (H, W, 4)
    and the velocity (H, W, 2) read back."""
    from hfrender.renderer.clip_motion import clip_rates

    clips = []
    for when in (t - h, t + h, t):
        mesh.time = when
        clips.append(renderer.clip_matrices())
    renderer.draw(t, 0, clip_rates=clip_rates(clips[0], clips[1], 2 * h))
    color, vel = np.empty((H, W, 4), np.uint8), np.empty((H, W, 2), np.float32)
    renderer.read_into(color, np.empty((H, W), np.float32), vel)
    return clips, color, vel


def velocity_shot(gl_context, mesh, t, h=1e-3):
    """:func:`sub_frame` of ``mesh`` alone before CAMERA, by a renderer of its own: its
    clip matrices and velocity."""
    from hfrender.renderer.renderer import SceneRenderer

    scene = make_scene(mesh, **CAMERA)
    scene.setup()
    renderer = SceneRenderer(gl_context().ctx, scene, (W, H), True, with_velocity=True)
    renderer.prepare()
    clips, _, vel = sub_frame(renderer, mesh, t, h)
    renderer.release()
    return clips, vel


def test_the_velocity_of_a_turning_part(gl_context, tmp_path):
    t = 0.75  # the parent at 67.5 degrees, turning 90 degrees a second
    clips, vel = velocity_shot(gl_context, hf.Mesh.load(write_gltf(tmp_path)), t)
    assert clips[2].shape == (3, 4, 4)  # the mesh's, then each of its 2 parts'
    clip = clips[2][0]
    for local in ([1.5, 0, 0], [1.6, 0, 0.1], [0.2, 0, 0.0]):  # the child's, the parent's
        path = [turned([local], 67.5 + d)[0] for d in (-0.09, 0.0, 0.09)]  # +-1 ms
        (x0, y0), (x, y), (x1, y1) = [box_of(clip, [p])[:2] for p in path]
        np.testing.assert_allclose(vel[int(y), int(x)], [(x1 - x0) / 2e-3, (y1 - y0) / 2e-3],
                                   rtol=0.01, atol=2.0)  # (the pixel's centre: a
        # turn of 1.57 rad/s moves its points 1.57 px/s apart a pixel)
        assert abs(vel[int(y), int(x)]).max() > 15  # (px/s: it moves)


def test_a_turning_parts_streak_spans_the_angle_it_sweeps(gl_context, tmp_path):
    path = write_gltf(tmp_path)
    (tmp_path / "spin.py").write_text(
        "import hfrender as hf\n\n"
        "class Spin(hf.Scene):\n"
        "    background = (0, 0, 0)\n"
        "    ambient = 1.0\n\n"
        "    def setup(self):\n"
        "        self.prop = self.add(hf.Mesh.load('prop.gltf'))\n"
        f"        self.camera.position = {CAMERA['position']}\n"
        f"        self.camera.look_at({CAMERA['target']})\n\n"
        "    def update(self, t):\n"
        "        self.prop.time = t\n")
    # at 4 fps a 360-degree shutter is open 0.25 s around frame 3, t = 0.75: 56.25 to
    # 78.75 degrees
    picture = hf.still(tmp_path / "spin.py", frame=3, size=(W, H), fps=4, shutter=360,
                       samples=64)
    green = (picture[..., 1] > 0) & (picture[..., 0] == 0)
    clip = draw(gl_context(), make_scene(hf.Mesh.load(path), **CAMERA), size=(W, H))[2][0]
    swept = np.concatenate([quad(turned([[1.5, 0, 0]], a)[0], a)
                            for a in np.linspace(56.25, 78.75, 91)])
    np.testing.assert_allclose(drawn_box(green), box_of(clip, swept), atol=1.5)
    instant = np.concatenate([quad(turned([[1.5, 0, 0]], 67.5)[0], 67.5)])
    assert (box_of(clip, swept)[2:] - box_of(clip, swept)[:2]).min() > \
        (box_of(clip, instant)[2:] - box_of(clip, instant)[:2]).min() + 10  # a streak
