"""glTF skins and morph targets posed (hfrender/scene/model_skins.py): normals under a
joint's non-uniform scale, a mirroring joint's faces, the rest pose (``time`` None), and
posing one model from two threads."""

import json

import numpy as np
import pytest
from gltf_files import add_floats

import hfrender as hf
from hfrender.scene.model_skins import posed

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")

# a triangle in the plane x + y = 1 (its normal (1, 1, 0) / sqrt 2), skinned to one joint
SLANT = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]])


def write_slant(folder, scale=(2.0, 1.0, 1.0), name="slant"):
    """``name``.gltf: node 0 "Joint" (the skin's one joint, no inverseBindMatrices), node 1
    "Slant" the skinned triangle (normals given); animation "Stretch" holds the joint's
    scale at ``scale``."""
    header = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1]}],
              "nodes": [{"name": "Joint"}, {"name": "Slant", "mesh": 0, "skin": 0}],
              "skins": [{"joints": [0]}]}
    prim = {"attributes": {
        "POSITION": add_floats(header, SLANT, "VEC3"),
        "NORMAL": add_floats(header, [[0.5 ** 0.5, 0.5 ** 0.5, 0.0]] * 3, "VEC3"),
        "JOINTS_0": add_floats(header, [[0, 0, 0, 0]] * 3, "VEC4", "<u2"),
        "WEIGHTS_0": add_floats(header, [[1.0, 0, 0, 0]] * 3, "VEC4")},
        "indices": add_floats(header, [0, 1, 2], "SCALAR", "<u2")}
    header["meshes"] = [{"primitives": [prim]}]
    sampler = {"input": add_floats(header, [0.0, 1.0], "SCALAR"),
               "output": add_floats(header, [scale, scale], "VEC3")}
    header["animations"] = [{"name": "Stretch", "samplers": [sampler], "channels": [
        {"sampler": 0, "target": {"node": 0, "path": "scale"}}]}]
    path = folder / f"{name}.gltf"
    path.write_text(json.dumps(header))
    return path


def test_a_normal_under_a_joint_scaled_2_1_1(tmp_path):
    """Stretched twice in x, the plane x + y = 1 is x / 2 + y = 1: its normal (1, 2, 0) /
    sqrt 5 by hand (was: (2, 1, 0) / sqrt 5, the normal turned by the joint's matrix itself,
    not its inverse transpose: shaded as a face tipped the other way)."""
    mesh = hf.Mesh.load(write_slant(tmp_path))
    mesh.time = 0.5
    (part,) = mesh._loaded().parts
    vertices, _ = posed(part, np.stack(mesh.part_matrices()[1:]), None)
    np.testing.assert_allclose(vertices["position"], SLANT * (2.0, 1.0, 1.0), atol=1e-6)
    np.testing.assert_allclose(vertices["normal"], [[1 / 5 ** 0.5, 2 / 5 ** 0.5, 0.0]] * 3,
                               atol=1e-6)


def test_two_threads_posing_one_model(tmp_path):
    """2 threads x 200 poses of one loaded model (its Animations shared, as the model cache
    shares it), at times that overflow its kept answers, a thread switch made likely where
    the oldest answer is dropped: nothing raised, each pose as one thread finds it (was: a
    KeyError, both threads dropping the same oldest answer)."""
    import threading
    import time

    from gltf_files import write_chain

    class Slow(dict):
        def pop(self, key, *default):
            time.sleep(1e-4)  # (the other thread runs here)
            return super().pop(key, *default)

    mesh = hf.Mesh.load(write_chain(tmp_path, 8))
    animations, parts = mesh._loaded().animations, mesh._loaded().parts
    times = np.random.default_rng(9).random((2, 200))
    alone = [[np.stack(animations.pose(parts, 0, t)) for t in row] for row in times]
    object.__setattr__(animations, "_kept", Slow())
    found, failed = [[], []], []

    def poses(k):
        try:
            found[k] = [np.stack(animations.pose(parts, 0, t)) for t in times[k]]
        except Exception as exc:  # (a thread's exception: else unseen)
            failed.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=poses, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failed == []
    for k in range(2):
        np.testing.assert_array_equal(np.stack(found[k]), np.stack(alone[k]))


def test_the_binary_is_read_once_for_the_animations_and_the_skins(tmp_path, monkeypatch):
    """bar.bin (its animation's keys and its skin's matrices, joints and weights) read once
    by hfrender (was: twice, and held twice while loading: one copy for read_animations,
    one for the skins)."""
    import sys
    from pathlib import Path

    from test_model_skins import by_hand, write_bar

    path, reads = write_bar(tmp_path), []
    real = Path.read_bytes

    def read_bytes(p):  # (trimesh's own read of it, for the vertices, not counted)
        reads.append((sys._getframe(1).f_globals["__name__"], p.name))
        return real(p)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    mesh = hf.Mesh.load(path)
    assert reads.count(("hfrender.scene.model_animation", "bar.bin")) == 1
    mesh.time = 1.0
    (part,) = mesh._loaded().parts
    vertices, _ = posed(part, np.stack(mesh.part_matrices()[1:]), None)
    np.testing.assert_allclose(vertices["position"], by_hand(1.0), atol=1e-6)


def test_a_file_without_animations_is_shaped_at_its_default_weights(tmp_path, caplog):
    """The quad's mesh weights 0.5, no animation: at ``time`` None its corner 3 half risen
    (0.5 m), as viewers show it, unsaid (was: at its base shape, said not played)."""
    import logging

    from test_model_morphs import QUAD, UP, write_quad

    path = write_quad(tmp_path)
    header = json.loads(path.read_text())
    header["meshes"][0]["weights"] = [0.5]
    del header["animations"]
    path.write_text(json.dumps(header))
    with caplog.at_level(logging.WARNING):
        mesh = hf.Mesh.load(path)
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == []
    moves = mesh.part_matrices()
    np.testing.assert_array_equal(moves[1].ravel()[:2], [0.5, 0.0])  # (its weights' row)
    (part,) = mesh._loaded().parts
    vertices, _ = posed(part, None, None, (np.array([0.5]), None, moves[0]))
    np.testing.assert_allclose(vertices["position"], QUAD + 0.5 * UP, atol=1e-6)


def grown(mask):
    """``mask`` and every pixel within 1 px of it (its 8 neighbours)."""
    h, w = mask.shape
    padded = np.pad(mask, 1)
    return np.any([padded[y:y + h, x:x + w] for y in range(3) for x in range(3)], axis=0)


def test_a_bar_mirrored_by_its_root_joint_is_drawn_as_the_mirror_image(gl_context, tmp_path):
    """The single-sided bar's root joint at (1, 0, 0) scaled -1 in x (the inverse bind
    unchanged): each joint matrix is the plain one's mirrored in x = 0, the plane the camera
    looks along, so at t = 0.5 it is drawn as the plain bar's picture flipped left to right,
    as many pixels, each within 1 px (was: 0 pixels, every face culled as its back)."""
    from test_model_skins import shot, write_bar

    def single(header):
        header["materials"][0]["doubleSided"] = False

    def mirrored(header):
        single(header)
        header["nodes"][0].update(translation=[1.0, 0.0, 0.0], scale=[-1.0, 1.0, 1.0])

    plain = shot(gl_context, write_bar(tmp_path, "single", single), 0.5)[0]
    flipped = shot(gl_context, write_bar(tmp_path, "mirrored", mirrored), 0.5)[0]
    mirror = plain[:, ::-1]
    assert plain.sum() > 1000 and not np.array_equal(mirror, plain)  # (bent: not symmetric)
    assert flipped.sum() == plain.sum()
    assert not (flipped & ~grown(mirror)).any() and not (mirror & ~grown(flipped)).any()


def test_the_facing_of_a_pose_is_the_sign_of_its_used_joints_determinants():
    """1 where every joint a vertex weighs keeps the winding, -1 where all mirror it, 0
    where some do (drawn unculled); a joint no vertex weighs is not asked."""
    from dataclasses import replace

    from hfrender.scene.model_skins import Skinning, facing

    skin = Skinning((0, 1, 2), np.tile(np.eye(4), (3, 1, 1)), np.zeros((1, 4), np.int64),
                    np.array([[1.0, 0, 0, 0]]), np.array([[0.0, 0, 0, 1]]), None)
    mirror = np.diag([-1.0, 1.0, 1.0, 1.0])
    assert facing(skin, np.stack([np.eye(4)] * 3)) == 1
    assert facing(skin, np.stack([mirror] * 3)) == -1
    assert facing(skin, np.stack([mirror, np.eye(4), mirror])) == 0
    assert facing(replace(skin, used=np.array([0, 2])), np.stack([mirror, np.eye(4), mirror])
                  ) == -1


@pytest.mark.parametrize("shader", [True, False])
def test_a_sub_frame_poses_a_skin_once_for_its_shadow_map_and_its_colour(
        gl_context, tmp_path, monkeypatch, shader):
    """``shadows = True`` with velocity, 3 sub-frames of the bending bar: its pose is
    found once a sub-frame, the shader's (``shader_pose``: its joints' texture written
    once) or NumPy's (``posed``; was twice: the shadow map's pose, then the colour's again
    with its rates), and its colour and velocity planes are those drawn without shadows
    (lit by ambient light alone, nothing shadows the bar)."""
    from mesh_helpers import make_scene
    from test_model_animation import CAMERA, H, W, sub_frame
    from test_model_skins import write_bar

    from hfrender.renderer import models
    from hfrender.renderer.renderer import SceneRenderer

    calls = []
    name = "shader_pose" if shader else "posed"
    real = getattr(models, name)

    def spy(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(models, name, spy)
    path, h = write_bar(tmp_path), 1e-3

    def planes(shadows):
        mesh = hf.Mesh.load(path)
        scene = make_scene(mesh, **CAMERA)
        scene.shadows = shadows
        scene.setup()
        renderer = SceneRenderer(gl_context().ctx, scene, (W, H), True, with_velocity=True)
        renderer.models.shader_posing = shader
        renderer.prepare()
        shots = [sub_frame(renderer, mesh, t, h)[1:] for t in (0.2, 0.5, 0.8)]
        renderer.release()
        return shots

    plain = planes(False)
    assert len(calls) == 3
    shadowed = planes(True)
    assert len(calls) == 6  # (was 9: 2 a sub-frame)
    for (color, vel), (color0, vel0) in zip(shadowed, plain, strict=True):
        assert abs(vel0).max() > 15  # (px/s: it moves)
        np.testing.assert_array_equal(color, color0)
        np.testing.assert_array_equal(vel, vel0)


def test_a_released_drawer_keeps_no_pose_by_a_buffer_id(gl_context, tmp_path):
    """``ModelDrawer.release`` forgets the poses it wrote, keyed by the ids of buffers it
    released (a new buffer may take a freed id, and would be thought to hold that pose)."""
    from mesh_helpers import make_scene
    from test_model_animation import CAMERA, H, W
    from test_model_skins import write_bar

    from hfrender.renderer.renderer import SceneRenderer

    mesh = hf.Mesh.load(write_bar(tmp_path))
    scene = make_scene(mesh, **CAMERA)
    scene.setup()
    renderer = SceneRenderer(gl_context().ctx, scene, (W, H), True, with_velocity=True)
    renderer.prepare()
    mesh.time = 0.5
    renderer.draw(0.5, 0)
    drawer = renderer.models
    assert len(drawer.posed) == 1
    renderer.release()
    assert (drawer.posed, drawer.kept) == ({}, {})
