"""glTF skins (hfrender/scene/model_skins.py): a skinned mesh drawn by linear blend skinning
at its joints' animated matrices, as the glTF 2.0 spec says (3.7.3), its velocity with it."""

import copy
import logging
import struct

import numpy as np
import pytest
from gltf_files import gltf_written

import hfrender as hf
from hfrender.scene import meshes
from hfrender.scene.model_skins import posed, skin_starts

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
from mesh_helpers import draw, make_scene  # noqa: E402
from test_model_animation import (  # noqa: E402
    CAMERA,
    H,
    W,
    _f32,
    box_of,
    drawn_box,
    sampled,
    turned,
    velocity_shot,
)

HALF = 0.1  # the bar's half width
# the bar along x from -1 to 1, in x-z facing up: two vertices at x = -1, 0 and 1
REST = np.array([[x, 0.0, z] for x in (-1.0, 0.0, 1.0) for z in (-HALF, HALF)])
FACES = [0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4]


def bar_header(name, blob_size):
    """Node 0 "Root" (joint 0) at (-1, 0, 0), its child node 1 "Tip" (joint 1) at (0, 0, 0)
    in the world; node 2 "Bar" the skinned mesh, moved 0.3 in z (which the spec says is not
    used). Each vertex at x = -1 follows the root alone, at 0 both half (UNSIGNED_BYTE
    normalised 128/128: 0.5 once scaled to sum 1), at 1 the tip alone. Animation "Bend":
    the tip turns 90 degrees about y over 1 s (LINEAR)."""
    views = [(0, 72, 34962), (72, 24, 34963), (96, 48), (144, 24), (168, 128), (296, 8),
             (304, 32)]
    return {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 2]}],
        "nodes": [{"name": "Root", "translation": [-1.0, 0.0, 0.0], "children": [1]},
                  {"name": "Tip", "translation": [1.0, 0.0, 0.0]},
                  {"name": "Bar", "mesh": 0, "skin": 0, "translation": [0.0, 0.0, 0.3]}],
        "skins": [{"name": "Rig", "joints": [0, 1], "skeleton": 0,
                   "inverseBindMatrices": 4}],
        "meshes": [{"name": "BarMesh", "primitives": [{
            "attributes": {"POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3},
            "indices": 1, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]},
                       "doubleSided": True}],
        "buffers": [{"uri": f"{name}.bin", "byteLength": blob_size}],
        "bufferViews": [{"buffer": 0, "byteOffset": v[0], "byteLength": v[1],
                         **({"target": v[2]} if len(v) > 2 else {})} for v in views],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 6, "type": "VEC3",
             "min": [-1, 0, -HALF], "max": [1, 0, HALF]},
            {"bufferView": 1, "componentType": 5123, "count": 12, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5123, "count": 6, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5121, "normalized": True, "count": 6,
             "type": "VEC4"},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "MAT4"},
            {"bufferView": 5, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [1.0]},
            {"bufferView": 6, "componentType": 5126, "count": 2, "type": "VEC4"}],
        "animations": [{"name": "Bend", "samplers": [{"input": 5, "output": 6}],
                        "channels": [{"sampler": 0,
                                      "target": {"node": 1, "path": "rotation"}}]}]}


def write_bar(folder, name="bar", change=None, tip=(255, 0, 0, 0)):
    """``name``.gltf and .bin of :func:`bar_header` (``change(header)`` first, if given;
    ``tip``: the weights of the two vertices at x = 1, on joints 1, 0, 0, 0)."""
    joints = [0, 0, 0, 0] * 2 + [0, 1, 0, 0] * 2 + [1, 0, 0, 0] * 2
    weights = [255, 0, 0, 0] * 2 + [128, 128, 0, 0] * 2 + [*tip] * 2
    inverse = [np.eye(4), np.eye(4)]  # the inverse of each joint's world matrix at rest
    inverse[0][0, 3] = 1.0  # (the root at x = -1; the tip at the origin)
    blob = b"".join([
        _f32(REST.ravel()), struct.pack("<12H", *FACES), struct.pack("<24H", *joints),
        bytes(weights), _f32(np.concatenate([m.T.ravel() for m in inverse])),
        _f32([0.0, 1.0]), _f32([0, 0, 0, 1.0, 0, 0.70710678, 0, 0.70710678])])
    header = bar_header(name, len(blob))
    if change is not None:
        change(header)
    return gltf_written(folder, name, header, blob)


def by_hand(t):
    """The bar's six vertices at ``t``: the tip's turned 90 t degrees about the origin (its
    joint), the middle ones half way between the two joints' placings of them."""
    tip = turned(REST, 90.0 * min(max(t, 0.0), 1.0))
    weight = np.array([0.0, 0.0, 0.5, 0.5, 1.0, 1.0])[:, None]
    return (1 - weight) * REST + weight * tip


def test_the_middle_vertex_follows_both_joints_half(tmp_path):
    mesh = hf.Mesh.load(write_bar(tmp_path))
    mesh.time = 1.0
    (part,) = mesh._loaded().parts
    np.testing.assert_array_equal(part.skin.weights[2:4], [[0.5, 0.5, 0, 0]] * 2)
    moves = mesh.part_matrices()
    assert len(moves) == 3 and skin_starts([part]) == {0: 1}  # the part's, 2 joints'
    vertices, rates = posed(part, np.stack(moves[1:]), None)
    assert rates is None
    np.testing.assert_allclose(vertices["position"], by_hand(1.0), atol=1e-6)
    # worked by hand: (0, 0, -0.1) turned 90 degrees about y is (-0.1, 0, 0); half of each
    np.testing.assert_allclose(vertices["position"][2], [-0.05, 0.0, -0.05], atol=1e-6)


def shot(gl_context, path, t):
    mesh = hf.Mesh.load(path)
    mesh.time = t
    color, _, clips = draw(gl_context(), make_scene(mesh, **CAMERA), size=(W, H))
    return color[..., 0] > 0, clips[0]


@pytest.mark.parametrize("t", [0.0, 0.5, 1.0])
def test_the_bar_is_drawn_bent_as_its_joints_turn(gl_context, tmp_path, t):
    red, clip = shot(gl_context, write_bar(tmp_path), t)
    np.testing.assert_allclose(drawn_box(red), box_of(clip, by_hand(t)), atol=1.0)
    tip = box_of(clip, by_hand(t)[4:])  # (the tip's end: the box's top at 0.5 and 1)
    if t > 0:
        assert abs(drawn_box(red)[1] - tip[1]) <= 1.0


def test_at_rest_it_is_drawn_in_its_skins_rest_pose(gl_context, tmp_path):
    """``time`` None, and a file without animations: the bar skinned at its joints' rest
    transforms, pixel for pixel its first frame's (time 0), as three.js and Blender show it
    (was: drawn unskinned as trimesh places it, the Bar node's 0.3 in z with it, which the
    spec says a skinned mesh leaves out: a jump between a still and the first frame)."""
    def still(header):
        del header["animations"]

    first = shot(gl_context, write_bar(tmp_path), 0.0)
    np.testing.assert_allclose(drawn_box(first[0]), box_of(first[1], REST), atol=1.0)
    np.testing.assert_array_equal(shot(gl_context, write_bar(tmp_path), None)[0], first[0])
    np.testing.assert_array_equal(shot(gl_context, write_bar(tmp_path, "still", still),
                                       None)[0], first[0])


def test_the_velocity_of_a_bending_bar(gl_context, tmp_path):
    t, h = 0.5, 1e-3
    clips, vel = velocity_shot(gl_context, hf.Mesh.load(write_bar(tmp_path)), t, h)
    assert clips[2].shape == (4, 4, 4)  # the mesh's, its part's, its 2 joints'
    clip = clips[2][0]
    for u in ([0.1, 0.45, 0.45], [0.6, 0.2, 0.2]):  # in the triangle (2, 5, 4)
        path = [np.asarray(u) @ by_hand(when)[[2, 5, 4]] for when in (t - h, t, t + h)]
        (x0, y0), (x, y), (x1, y1) = [box_of(clip, [p])[:2] for p in path]
        np.testing.assert_allclose(vel[int(y), int(x)], [(x1 - x0) / 2e-3, (y1 - y0) / 2e-3],
                                   rtol=0.03, atol=2.0)
        assert abs(vel[int(y), int(x)]).max() > 15  # (px/s: it moves)


def test_a_skin_of_more_joints_than_matrices_is_refused(tmp_path):
    def three(header):
        header["skins"][0]["joints"] = [0, 1, 0]

    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(write_bar(tmp_path, "three", three))
    assert str(excinfo.value) == (f"{tmp_path / 'three.gltf'}: its skin 'Rig' has 3 joints "
                                  "and 2 inverseBindMatrices: a skin needs one matrix a joint")


def test_a_vertex_following_a_joint_the_skin_has_not_is_refused(tmp_path):
    def one(header):
        header["skins"][0]["joints"] = [0]
        del header["skins"][0]["inverseBindMatrices"]

    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(write_bar(tmp_path, "one", one))
    assert str(excinfo.value) == (f"{tmp_path / 'one.gltf'}: primitive 0 of its mesh "
                                  "'BarMesh' (skin 'Rig'): a vertex follows joint 1, but the "
                                  "skin has 1 joint (0 to 0)")


def test_a_second_set_of_influences_is_played_in_each_mesh(tmp_path, caplog):
    """JOINTS_1/WEIGHTS_1 the same as JOINTS_0/WEIGHTS_0, in two meshes: each vertex's 8
    weights scaled to sum 1 (each set's halved), the pose the bar's, nothing said (was:
    said once and left out)."""
    def eight(header):
        header["meshes"][0]["primitives"][0]["attributes"].update(JOINTS_1=2, WEIGHTS_1=3)
        header["meshes"].append(copy.deepcopy(header["meshes"][0]))
        header["nodes"].append({**header["nodes"][2], "mesh": 1})
        header["scenes"][0]["nodes"].append(3)

    with caplog.at_level(logging.WARNING):
        mesh = hf.Mesh.load(write_bar(tmp_path, "eight", eight))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    parts = mesh._loaded().parts
    assert [p.skin.weights.shape for p in parts] == [(6, 8), (6, 8)]
    np.testing.assert_array_equal(parts[0].skin.weights[2], [0.25, 0.25, 0, 0] * 2)
    mesh.time = 1.0
    moves = mesh.part_matrices()
    for k, p in enumerate(parts):
        joints = np.stack(moves[skin_starts(parts)[k]:][:2])
        np.testing.assert_allclose(posed(p, joints, None)[0]["position"], by_hand(1.0),
                                   atol=1e-6)


def test_two_meshes_of_one_file_each_drawn_at_its_own_time(gl_context, tmp_path):
    """The model's vertex buffer is shared: a Mesh at rest drawn after a posed one of the
    same file is drawn at rest (its rest pose written), not in the other's pose."""
    path = write_bar(tmp_path)
    bent, resting = hf.Mesh.load(path), hf.Mesh.load(path, position=(0.0, 0.0, 0.25))
    bent.time = 1.0
    color, _, clips = draw(gl_context(), make_scene(bent, resting, **CAMERA), size=(W, H))
    want = [box_of(clips[0], by_hand(1.0)), box_of(clips[1], REST)]
    split = int((want[0][3] + want[1][1]) / 2)  # (a row between the two)
    red = color[..., 0] > 0
    above, below = red.copy(), red.copy()
    above[split:], below[:split] = False, False
    np.testing.assert_allclose(drawn_box(above), want[0], atol=1.0)
    np.testing.assert_allclose(drawn_box(below), want[1], atol=1.0)


def test_the_channels_are_sampled_once_for_the_parts_and_joints_of_a_time(tmp_path,
                                                                          monkeypatch):
    """A 50-joint chain, one channel a joint: 50 samples a time asked, none for the same
    time again (was: 100, the joints' matrices sampling every channel again after the
    parts', then 50 more each time asked again: a sub-frame asks three times with
    velocity, its draw's time among them twice at most)."""
    from gltf_files import write_chain

    mesh = hf.Mesh.load(write_chain(tmp_path, 50))
    calls = sampled(monkeypatch)
    mesh.time = 0.5
    moves = mesh.part_matrices()
    assert len(calls) == 50
    again = mesh.part_matrices()
    np.testing.assert_array_equal(np.stack(again), np.stack(moves))  # (kept)
    assert len(calls) == 50
    assert len(moves) == 51  # the strip's, its 50 joints'
    # each joint turned 5 degrees at 0.5 s: the last two vertices about the chain's end
    (part,) = mesh._loaded().parts
    vertices, _ = posed(part, np.stack(moves[1:]), None)
    end, angle = np.zeros(3), 0.0
    for _ in range(49):
        angle += 5.0
        end += turned([[0.1, 0.0, 0.0]], angle)[0]
    np.testing.assert_allclose(vertices["position"][-2:].mean(0), end, atol=1e-5)


def test_a_mirrored_skinned_node_is_drawn_posed(gl_context, tmp_path):
    """The Bar node scaled -1 in x (its transform left out of a pose, as the spec says):
    posed, its single-sided faces are drawn as the unmirrored one's, pixel for pixel (was:
    turned for the mirror its pose does not have, all culled); at rest, mirrored."""
    def single(header):
        header["materials"][0]["doubleSided"] = False

    def mirrored(header):
        single(header)
        header["nodes"][2]["scale"] = [-1.0, 1.0, 1.0]

    posed_plain = shot(gl_context, write_bar(tmp_path, "single", single), 0.5)[0]
    posed_mirrored = shot(gl_context, write_bar(tmp_path, "mirrored", mirrored), 0.5)[0]
    assert posed_plain.sum() > 1000
    np.testing.assert_array_equal(posed_mirrored, posed_plain)
    assert shot(gl_context, write_bar(tmp_path, "mirrored", mirrored), None)[0].sum() > 1000


def test_a_vertex_of_no_weight_follows_its_first_joint(tmp_path, caplog):
    """The tip's two vertices weighted 0, 0, 0, 0 (not glTF, but exporters write it): each
    follows its first joint (the tip's) alone, as three.js draws it, said once naming
    the count (was: at the model's origin, unsaid)."""
    with caplog.at_level(logging.WARNING):
        mesh = hf.Mesh.load(write_bar(tmp_path, "unweighed", tip=(0, 0, 0, 0)))
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said == [f"{tmp_path / 'unweighed.gltf'}: 2 vertices of its skins have all their "
                    "weights 0 (glTF asks for a sum of 1): each follows its first joint "
                    "alone, as three.js draws it"]
    mesh.time = 1.0
    (part,) = mesh._loaded().parts
    np.testing.assert_array_equal(part.skin.weights[4:], [[1.0, 0, 0, 0]] * 2)
    vertices, _ = posed(part, np.stack(mesh.part_matrices()[1:]), None)
    np.testing.assert_allclose(vertices["position"], by_hand(1.0), atol=1e-6)


def test_vertices_of_no_weight_in_a_mesh_two_nodes_show_are_counted_once(tmp_path, caplog):
    """The unweighed bar's mesh shown by a second node (the file's 2 such vertices, its
    skinned part attached twice): the warning counts 2 (was 4, each node's again)."""
    def twice(header):
        header["nodes"].append({**header["nodes"][2], "translation": [0.0, 0.0, 1.0]})
        header["scenes"][0]["nodes"].append(3)

    with caplog.at_level(logging.WARNING):
        mesh = hf.Mesh.load(write_bar(tmp_path, "twice", twice, tip=(0, 0, 0, 0)))
    assert [p.skin is not None for p in mesh._loaded().parts] == [True, True]
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said == [f"{tmp_path / 'twice.gltf'}: 2 vertices of its skins have all their "
                    "weights 0 (glTF asks for a sum of 1): each follows its first joint "
                    "alone, as three.js draws it"]
