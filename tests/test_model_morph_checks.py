"""glTF morph targets as exporters write them (hfrender/scene/model_morphs.py): targets of
NORMAL deltas alone, of TANGENT deltas alone (not drawn: hfrender draws no tangents), and
deltas in sparse accessors (Blender's shape keys: no bufferView, the moved rows alone)."""

import json

import numpy as np
import pytest
from gltf_files import add_floats

import hfrender as hf
from hfrender.scene.model_skins import posed

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
from test_model_morphs import QUAD, UP, write_quad  # noqa: E402
from test_model_skins import shot  # noqa: E402


def retargeted(folder, name, target):
    """:func:`write_quad`'s file, its one target ``target(header)``'s."""
    path = write_quad(folder, name)
    header = json.loads(path.read_text())
    header["meshes"][0]["primitives"][0]["targets"] = [target(header)]
    path.write_text(json.dumps(header))
    return path


def shaped_at(path, w):
    """The quad's one part and its vertices at weight ``w``."""
    (part,) = hf.Mesh.load(path)._loaded().parts
    return part, posed(part, None, None, (np.array([w]), None, np.eye(4)))[0]


def test_normal_deltas_alone_tip_the_normals_and_leave_the_positions(tmp_path):
    path = retargeted(tmp_path, "normals", lambda h: {"NORMAL": add_floats(
        h, [[0.0] * 3] * 3 + [[-1, 0, 0]], "VEC3")})
    part, at = shaped_at(path, 0.5)
    np.testing.assert_array_equal(part.morph.positions, np.zeros((1, 4, 3)))
    np.testing.assert_allclose(at["position"], QUAD, atol=1e-7)
    tipped = np.array([-0.5, 1.0, 0.0]) / np.hypot(0.5, 1.0)  # (0, 1, 0) + 0.5 (-1, 0, 0)
    np.testing.assert_allclose(at["normal"][3], tipped, atol=1e-6)
    np.testing.assert_allclose(at["normal"][:3], [[0, 1.0, 0]] * 3, atol=1e-6)


def test_tangent_deltas_alone_are_not_posed(gl_context, tmp_path):
    """Nothing of them drawn: no morph kept (was: a morph of zero deltas, posed in NumPy
    each draw for nothing), the pixels the plain quad's at its weight 1."""
    path = retargeted(tmp_path, "tangents", lambda h: {"TANGENT": add_floats(
        h, [[1.0, 0, 0]] * 4, "VEC3")})
    (part,) = hf.Mesh.load(path)._loaded().parts
    assert part.morph is None
    plain = shot(gl_context, write_quad(tmp_path, "plain", targets=False), 1.0)[0]
    drawn = shot(gl_context, path, 1.0)[0]
    assert drawn.sum() > 1000
    np.testing.assert_array_equal(drawn, plain)


def sparse(header, rows, values, base=None):
    """An accessor of 4 VEC3 rows (``base``'s, else zeros: no bufferView, as Blender
    writes shape keys) whose ``rows`` are ``values`` (a sparse accessor); its index."""
    where = add_floats(header, rows, "SCALAR", "<u2")
    what = add_floats(header, values, "VEC3")
    accessors = header["accessors"]
    found = {"componentType": 5126, "count": 4, "type": "VEC3", "sparse": {
        "count": len(rows),
        "indices": {"bufferView": accessors[where]["bufferView"], "componentType": 5123},
        "values": {"bufferView": accessors[what]["bufferView"]}}}
    if base is not None:
        found["bufferView"] = accessors[add_floats(header, base, "VEC3")]["bufferView"]
    accessors.append(found)
    return len(accessors) - 1


@pytest.mark.parametrize("base", [None, [[0.0, 0.0, 0.25]] * 4])
def test_sparse_position_deltas_as_blender_writes_them(tmp_path, base):
    """Corner 3 (row 3 of the sparse accessor) rises 1 m a weight; with a base bufferView
    its rows not in the sparse set keep the base's (0.25 m in z)."""
    path = retargeted(tmp_path, "sparse", lambda h: {"POSITION": sparse(
        h, [3], [[0.0, 1.0, 0.0]], base)})
    _, at = shaped_at(path, 0.5)
    want = QUAD + 0.5 * UP + (0 if base is None else 0.5 * (np.arange(4) < 3)[:, None]
                              * [0.0, 0.0, 0.25])
    np.testing.assert_allclose(at["position"], want, atol=1e-7)


def test_a_base_position_in_a_sparse_accessor_is_said(tmp_path, caplog):
    """trimesh (5.2) reads a sparse accessor's base alone, its sparse rows left out: the
    quad's corner 3, moved to (0.5, 1, 0.5) by the sparse rows, is drawn at (0.5, 0,
    0.5); said once naming the file, the mesh and the primitive (was: unsaid)."""
    import logging

    path = write_quad(tmp_path, "base", targets=False)
    header = json.loads(path.read_text())
    header["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = sparse(
        header, [3], [[0.5, 1.0, 0.5]], QUAD)
    path.write_text(json.dumps(header))
    with caplog.at_level(logging.WARNING):
        (part,) = hf.Mesh.load(path)._loaded().parts
    np.testing.assert_array_equal(part.vertices["position"], QUAD)
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said == [f"{path}: drawn without its vertices' sparse rows (POSITION of primitive "
                    "0 of mesh 'QuadMesh': trimesh reads a sparse accessor's base alone): "
                    "hfrender does not draw them"]
