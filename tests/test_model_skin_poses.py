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
