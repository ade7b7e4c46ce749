"""glTF skins as exporters write them (hfrender/scene/model_skins.py): weights that do not
sum to 1, eight influences a vertex (JOINTS_1/WEIGHTS_1) and twelve (JOINTS_2: posed
in NumPy), no inverseBindMatrices, played;
a primitive's joints without its weights (or the reverse), a joint past the skin's, a NaN
or non-invertible inverse bind matrix and a NaN weight refused in one line naming the
file, the mesh, the primitive and what is wrong."""

import numpy as np
import pytest
from gltf_files import add_floats

import hfrender as hf
from hfrender.scene import meshes
from hfrender.scene.model_skins import posed

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
from test_model_animation import box_of, drawn_box  # noqa: E402
from test_model_skins import REST, by_hand, shot, write_bar  # noqa: E402

# (0, 0, -0.1), the middle vertex 2, turned 90 degrees about y by the tip's joint at
# t = 1 (about the origin): (-0.1, 0, 0); at its root's joint (still) it stays
TURNED2 = np.array([-0.1, 0.0, 0.0])


def pose_at(path, t=1.0):
    """The skinned bar's vertices (its one part) at ``t``."""
    mesh = hf.Mesh.load(path)
    mesh.time = t
    (part,) = mesh._loaded().parts
    return part, posed(part, np.stack(mesh.part_matrices()[1:]), None)[0]["position"]


def attributes(header):
    return header["meshes"][0]["primitives"][0]["attributes"]


def float_weights(rows):
    """A change to the bar: its WEIGHTS_0 float ``rows`` (6 x 4)."""
    def change(header):
        attributes(header)["WEIGHTS_0"] = add_floats(header, rows, "VEC4")
    return change


def test_weights_summing_to_0_99_or_2_are_scaled_to_1(tmp_path):
    """As three.js (normalizeSkinWeights) and Blender's importer do: each row over its sum.
    The middle vertices 0.297 / 0.693 (sum 0.99: 0.3 / 0.7), the tip's 2.0 alone (1)."""
    rows = [[1.0, 0, 0, 0]] * 2 + [[0.297, 0.693, 0, 0]] * 2 + [[2.0, 0, 0, 0]] * 2
    part, at = pose_at(write_bar(tmp_path, "sums", float_weights(rows)))
    np.testing.assert_allclose(part.skin.weights[2], [0.3, 0.7, 0, 0], atol=1e-6)
    # by hand: 0.3 (0, 0, -0.1) + 0.7 (-0.1, 0, 0)
    np.testing.assert_allclose(at[2], [-0.07, 0.0, -0.03], atol=1e-6)
    np.testing.assert_allclose(at[4:], by_hand(1.0)[4:], atol=1e-6)
    np.testing.assert_allclose(at[:2], REST[:2], atol=1e-6)


def eight(header, second=((1, 0, 0, 0), (0.75, 0, 0, 0))):
    """The bar's middle vertices weighed by two sets: JOINTS_0 (0, ...) at 0.25 and
    JOINTS_1 ``second`` (joints, weights), as Blender exports a dense rig."""
    at = attributes(header)
    at["JOINTS_0"] = add_floats(header, [[0, 0, 0, 0]] * 4 + [[1, 0, 0, 0]] * 2, "VEC4",
                                "<u2")
    at["WEIGHTS_0"] = add_floats(header, [[1.0, 0, 0, 0]] * 2 + [[0.25, 0, 0, 0]] * 2
                                 + [[1.0, 0, 0, 0]] * 2, "VEC4")
    at["JOINTS_1"] = add_floats(header, [[0, 0, 0, 0]] * 2 + [second[0]] * 2
                                + [[0, 0, 0, 0]] * 2, "VEC4", "<u2")
    at["WEIGHTS_1"] = add_floats(header, [[0.0] * 4] * 2 + [second[1]] * 2
                                 + [[0.0] * 4] * 2, "VEC4")


def test_eight_influences_a_vertex_are_summed(gl_context, tmp_path, caplog):
    """JOINTS_1/WEIGHTS_1 played with JOINTS_0/WEIGHTS_0, nothing said (was: left out,
    said once: the middle vertices followed their root alone)."""
    path = write_bar(tmp_path, "eight", eight)
    part, at = pose_at(path)
    assert part.skin.influences.shape == (6, 8)
    # by hand: 0.25 (0, 0, -0.1) + 0.75 (-0.1, 0, 0)
    np.testing.assert_allclose(at[2], [-0.075, 0.0, -0.025], atol=1e-6)
    np.testing.assert_allclose(at[4:], by_hand(1.0)[4:], atol=1e-6)
    assert not [r for r in caplog.records if r.levelno >= 30]
    red, clip = shot(gl_context, path, 1.0)
    want = np.vstack([REST[:2], at[2:]])
    np.testing.assert_allclose(drawn_box(red), box_of(clip, want), atol=1.0)


def twelve(header):
    """:func:`eight` with a third set: JOINTS_2 (1, ...) at 0.5 on the middle vertices (their
    second set's 0.75 now 0.25), 12 influences a vertex."""
    eight(header, ((1, 0, 0, 0), (0.25, 0, 0, 0)))
    at = attributes(header)
    at["JOINTS_2"] = add_floats(header, [[0, 0, 0, 0]] * 2 + [[1, 0, 0, 0]] * 2
                                + [[0, 0, 0, 0]] * 2, "VEC4", "<u2")
    at["WEIGHTS_2"] = add_floats(header, [[0.0] * 4] * 2 + [[0.5, 0, 0, 0]] * 2
                                 + [[0.0] * 4] * 2, "VEC4")


def test_twelve_influences_a_vertex_are_posed_in_numpy_and_drawn(gl_context, tmp_path):
    """A third set (JOINTS_2/WEIGHTS_2) is past the shader's 8 a vertex: posed in NumPy
    (was: taken to the shader, "could not broadcast (6,12) into (6,8)" at the draw)."""
    from hfrender.renderer.skinning import unfit

    path = write_bar(tmp_path, "twelve", twelve)
    part, at = pose_at(path)
    assert part.skin.influences.shape == (6, 12)
    # by hand: 0.25 (0, 0, -0.1) + (0.25 + 0.5) (-0.1, 0, 0)
    np.testing.assert_allclose(at[2], [-0.075, 0.0, -0.025], atol=1e-6)
    np.testing.assert_allclose(at[4:], by_hand(1.0)[4:], atol=1e-6)
    red, clip = shot(gl_context, path, 1.0)
    want = np.vstack([REST[:2], at[2:]])
    np.testing.assert_allclose(drawn_box(red), box_of(clip, want), atol=1.0)
    assert unfit(gl_context().ctx, part) == (
        "12 joints a vertex (JOINTS_0 to JOINTS_2), past the 8 the vertex shader poses")


@pytest.mark.parametrize("gone, kept", [("WEIGHTS_0", "JOINTS_0"), ("JOINTS_0", "WEIGHTS_0"),
                                        ("WEIGHTS_1", "JOINTS_1")])
def test_joints_without_their_weights_are_refused(tmp_path, gone, kept):
    """Was: drawn unskinned where trimesh places it (its node's 0.3 m in z in), unsaid."""
    def change(header):
        eight(header)
        del attributes(header)[gone]

    path = write_bar(tmp_path, "half", change)
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(path)
    assert str(excinfo.value) == (
        f"{path}: primitive 0 of its mesh 'BarMesh' (skin 'Rig') has {kept} but no {gone}: "
        "a skinned primitive's joints and weights come in pairs (JOINTS_n with WEIGHTS_n)")


def test_a_second_set_following_a_joint_the_skin_has_not_is_refused(tmp_path):
    path = write_bar(tmp_path, "past", lambda h: eight(h, ((7, 0, 0, 0), (0.75, 0, 0, 0))))
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(path)
    assert str(excinfo.value) == (
        f"{path}: primitive 0 of its mesh 'BarMesh' (skin 'Rig'): a vertex follows joint 7, "
        "but the skin has 2 joints (0 to 1)")


def test_without_inverse_bind_matrices_each_is_the_identity(tmp_path):
    """The spec's default: a joint's matrix is its world matrix alone. At rest the root's
    (at x = -1) moves its vertices 1 m to -x, the middle ones half, the tip's (at the
    origin) none."""
    def none(header):
        del header["skins"][0]["inverseBindMatrices"]

    _, at = pose_at(write_bar(tmp_path, "none", none), 0.0)
    np.testing.assert_allclose(at, REST - np.array([[1.0], [1], [0.5], [0.5], [0], [0]])
                               * [1, 0, 0], atol=1e-6)


@pytest.mark.parametrize("matrix, why", [
    (np.full(16, np.nan), "holds nan or infinity"),
    (np.zeros(16), "has no inverse (a determinant of 0: its joint of no size when bound)"),
    (np.diag([1.0, 1e-12, 1.0, 1.0]).ravel(), "has no inverse (a determinant of 1e-12: its "
     "joint of no size when bound)")])
def test_a_broken_inverse_bind_matrix_of_a_weighed_joint_is_refused(tmp_path, matrix, why):
    """The tip's (joint 1's) matrix broken (was: drawn at NaN, nothing drawn, or flat,
    unsaid); a third joint no vertex weighs may have any (it moves nothing)."""
    def broken(header, joint=1):
        inverse = [np.eye(4).ravel()] * 3
        inverse[joint] = matrix
        header["skins"][0]["joints"] = [0, 1, 1]
        header["skins"][0]["inverseBindMatrices"] = add_floats(header, inverse, "MAT4")

    path = write_bar(tmp_path, "broken", broken)
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(path)
    assert str(excinfo.value) == (
        f"{path}: primitive 0 of its mesh 'BarMesh' (skin 'Rig'): the inverse bind matrix of "
        f"joint 1 (node 'Tip') {why}; re-export it with the armature in its rest pose")
    part, _ = pose_at(write_bar(tmp_path, "unused", lambda h: broken(h, 2)))
    assert part.skin.joints == (0, 1, 1)


@pytest.mark.parametrize("bad", [np.nan, -0.5])
def test_a_nan_or_negative_weight_is_refused(tmp_path, bad):
    rows = [[1.0, 0, 0, 0]] * 2 + [[0.5, 0.5, 0, 0], [0.5, bad, 0, 0]] + [[1.0, 0, 0, 0]] * 2
    path = write_bar(tmp_path, "nan", float_weights(rows))
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(path)
    assert str(excinfo.value) == (
        f"{path}: primitive 0 of its mesh 'BarMesh' (skin 'Rig'): vertex 3 has weight "
        f"{bad} (WEIGHTS_0): weights are numbers of 0 or more")


def test_a_joint_naming_a_node_the_file_has_not_is_refused(tmp_path):
    """Was: loaded, then an IndexError when drawn at a time (a render begun stopped)."""
    path = write_bar(tmp_path, "gone", lambda h: h["skins"][0].update(joints=[0, 99]))
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(path)
    assert str(excinfo.value) == (f"{path}: its skin 'Rig' has joint 1 at node 99, but the "
                                  "file has 3 nodes (0 to 2)")
