"""glTF node animations of many nodes (hfrender/scene/model_animation.py): each channel
sampled once for a time asked, whatever the number of nodes it moves; accessors read as
the spec says (sparse ones too)."""

import json
import logging
import math
import struct

import numpy as np
import pytest
from gltf_files import gltf_written
from test_model_animation import sampled

import hfrender as hf
from hfrender.scene import model_animation

pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")

S = 0.1  # the quads' half size
TURN = [0.0, math.sin(math.pi / 4), 0.0, math.cos(math.pi / 4)]  # 90 degrees about y


def write_nodes(folder, n, name="many", root_path=None):
    """``name``.gltf: ``n`` nodes with a quad each at (0.3 i, 0, 0), children of a root
    node with no mesh; animation "Turn" turns each about y by 90 degrees over 1 s (one
    sampler, a channel a node), or, ``root_path`` given, moves the root on that path."""
    quad = struct.pack("<12f", -S, 0, -S, S, 0, -S, S, 0, S, -S, 0, S)
    blob = quad + struct.pack("<6H", 0, 1, 2, 0, 2, 3) + struct.pack(
        "<10f", 0.0, 1.0, 0, 0, 0, 1, *TURN)
    targets = [(i, "rotation") for i in range(n)] if root_path is None else [(n, root_path)]
    header = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [n]}],
        "nodes": [{"mesh": 0, "translation": [0.3 * i, 0.0, 0.0]} for i in range(n)]
        + [{"name": "Root", "children": list(range(n))}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"uri": f"{name}.bin", "byteLength": len(blob)}],
        "bufferViews": [{"buffer": 0, "byteOffset": o, "byteLength": size}
                        for o, size in ((0, 48), (48, 12), (60, 8), (68, 32))],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-S, 0, -S], "max": [S, 0, S]},
            {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [1.0]},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "VEC4"}],
        "animations": [{"name": "Turn", "samplers": [{"input": 2, "output": 3}],
                        "channels": [{"sampler": 0, "target": {"node": i, "path": p}}
                                     for i, p in targets]}]}
    return gltf_written(folder, name, header, blob)


def turned_about(x, degrees):
    """The matrix turning about y by ``degrees`` about the point (x, 0, 0)."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    m = np.eye(4)
    m[:3, :3] = [[c, 0, s], [0, 1, 0], [-s, 0, c]]
    m[:3, 3] = np.array([x, 0, 0]) - m[:3, :3] @ [x, 0, 0]
    return m


def test_each_channel_is_sampled_once_for_a_time_asked(tmp_path, monkeypatch):
    """300 animated nodes: 300 samples a time (was: every channel again for each node,
    90,000, 1.7 s a call: a 64-sample frame took minutes), none for a time asked again
    (a sub-frame asks at its time for its velocity's rows and its draw)."""
    mesh = hf.Mesh.load(write_nodes(tmp_path, 300))
    calls = sampled(monkeypatch)
    mesh.time = 0.5
    moves = mesh.part_matrices()
    assert len(calls) == 300
    mesh.part_matrices()
    assert len(calls) == 300
    parts = mesh._loaded().parts
    assert len(moves) == len(parts) == 300
    for part, move in zip(parts, moves, strict=True):  # each turned 45 degrees about its
        np.testing.assert_allclose(move, turned_about(0.3 * part.node, 45.0), atol=1e-12)


def test_a_sparse_accessors_rows_are_put_in(tmp_path):
    """The root (no mesh of its own: its children move with it) rises by a sparse
    accessor's translations: zeros (no bufferView) but for key 1, (0, 1, 0); halfway, at
    0.5 s, every part is 0.5 m up (was: the sparse row left out, the rest pose unsaid)."""
    path = write_nodes(tmp_path, 3, "sparse", root_path="translation")
    header = json.loads(path.read_text())
    blob = (tmp_path / "sparse.bin").read_bytes()
    extra = struct.pack("<H2x3f", 1, 0.0, 1.0, 0.0)  # the row's index, then its value
    header["buffers"][0]["byteLength"] = len(blob) + len(extra)
    header["bufferViews"] += [{"buffer": 0, "byteOffset": len(blob), "byteLength": 2},
                              {"buffer": 0, "byteOffset": len(blob) + 4, "byteLength": 12}]
    header["accessors"].append({"componentType": 5126, "count": 2, "type": "VEC3", "sparse": {
        "count": 1, "indices": {"bufferView": 4, "componentType": 5123},
        "values": {"bufferView": 5}}})
    header["animations"][0]["samplers"][0]["output"] = 4
    (tmp_path / "sparse.bin").write_bytes(blob + extra)
    path.write_text(json.dumps(header))
    mesh = hf.Mesh.load(path)
    mesh.time = 0.5
    up = np.eye(4)
    up[1, 3] = 0.5
    moves = mesh.part_matrices()
    assert len(moves) == 1  # (the three quads: one part, moved by the root)
    np.testing.assert_allclose(moves[0], up, atol=1e-12)
    header["accessors"][4]["sparse"]["indices"] = {  # a row past its count: 1.0's bits
        "bufferView": 5, "byteOffset": 4, "componentType": 5125}
    path.write_text(json.dumps(header))
    with pytest.raises(hf.InputError) as excinfo:
        hf.Mesh.load(path)
    assert str(excinfo.value) == (f"{path}: cannot read its animation 'Turn': IndexError: "
                                  "index 1065353216 is out of bounds for axis 0 with size 2")


def test_pointer_channels_and_a_lights_motion_are_said_not_played(tmp_path, caplog):
    """A KHR_animation_pointer channel and a light's node animation were left out unsaid;
    now the one warning names them (the quads still play). A camera's motion is not among
    them: camera.follow(mesh) plays it (test_model_cameras.py)."""
    path = write_nodes(tmp_path, 2, "staged")
    header = json.loads(path.read_text())
    header["nodes"] += [{"name": "Cam", "camera": 0},
                        {"extensions": {"KHR_lights_punctual": {"light": 0}}}]
    header["scenes"][0]["nodes"] += [3, 4]
    header["cameras"] = [{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.1}}]
    pointer = {"extensions": {"KHR_animation_pointer": {
        "pointer": "/materials/0/pbrMetallicRoughness/baseColorFactor"}}}
    header["animations"][0]["channels"] += [
        {"sampler": 0, "target": {"node": 3, "path": "rotation"}},
        {"sampler": 0, "target": {"node": 4, "path": "rotation"}},
        {"sampler": 0, "target": {"path": "pointer", **pointer}}]
    path.write_text(json.dumps(header))
    with caplog.at_level(logging.WARNING):
        mesh = hf.Mesh.load(path)
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said == [f"{path}: its KHR_animation_pointer channels (1: materials', cameras' and "
                    "lights' values, drawn as the file sets them) and its lights' motion (node "
                    "'#4': the scene's lights are hfrender's own) not played: hfrender plays "
                    "node animations (translation, rotation, scale), skins and morph targets "
                    "alone; drawn in their rest pose"]
    mesh.time = 1.0
    moves = mesh.part_matrices()
    assert len(moves) == 2
    for part, move in zip(mesh._loaded().parts, moves, strict=True):
        np.testing.assert_allclose(move, turned_about(0.3 * part.node, 90.0), atol=1e-12)


def test_an_animated_node_of_no_size_at_rest_is_refused_in_one_line(tmp_path):
    """Its parts are stored flat (the rest matrix baked in): was numpy's 'Singular
    matrix' alone, from the drawing."""
    path = write_nodes(tmp_path, 2, "flat")
    header = json.loads(path.read_text())
    header["nodes"][0]["scale"] = [0.0, 0.0, 0.0]
    path.write_text(json.dumps(header))
    mesh = hf.Mesh.load(path)
    assert mesh.part_matrices() is not None  # the rest pose: drawn as the file places it
    mesh.time = 0.5
    with pytest.raises(hf.InputError) as excinfo:
        mesh.part_matrices()
    assert str(excinfo.value) == (
        "flat.gltf: its node '#0' has no size in its rest pose (a scale of 0: its parts are "
        "stored flat in it), so its animation cannot move them; export it at a frame where "
        "it has a size")


def test_a_time_given_to_a_model_without_animations_is_said_once(tmp_path, caplog):
    """Was: nothing moved, unsaid (an OBJ, or a glTF of none, given mesh.time = t)."""
    path = write_nodes(tmp_path, 2, "still")
    header = json.loads(path.read_text())
    del header["animations"]
    path.write_text(json.dumps(header))
    with caplog.at_level(logging.WARNING):
        mesh = hf.Mesh.load(path)
        for t in (0.5, 1.0, None):
            mesh.time = t
        hf.Mesh.load(path).time = 2.0
        moving = hf.Mesh.load(write_nodes(tmp_path, 2))
        moving.time = 0.5
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said == ["still.gltf has no animations (hfrender plays a glTF's node animations): "
                    "its Mesh.time moves nothing, and its duration is 0"]
    assert mesh.part_matrices() is None and mesh.duration == 0.0


def test_a_channel_that_is_no_table_is_one_line(tmp_path):
    # was: AttributeError: 'str' object has no attribute 'get', out of hf.Mesh.load
    from hfrender.errors import InputError

    header = {"animations": [{"name": "Spin", "channels": ["x"], "samplers": []}]}
    with pytest.raises(InputError) as err:
        model_animation.read_animations(tmp_path / "bad.gltf", tmp_path / "bad.gltf", header, {})
    assert str(err.value) == (f"{tmp_path / 'bad.gltf'}: cannot read its animation 'Spin': "
                              "AttributeError: 'str' object has no attribute 'get'")
