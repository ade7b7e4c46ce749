"""glTF morph targets (hfrender/scene/model_morphs.py): a primitive's targets shaped by its
node's weights at a Mesh's time, as the glTF 2.0 spec says (3.7.2.2), before skinning, its
velocity with the weights' rates."""

import json

import numpy as np
import pytest
from gltf_files import add_floats

import hfrender as hf
from hfrender.scene import meshes
from hfrender.scene.model_skins import posed

trimesh = pytest.importorskip("trimesh", reason="the models extra: pip install -e '.[dev]'")
from test_model_animation import box_of, drawn_box, turned, velocity_shot  # noqa: E402
from test_model_skins import REST, by_hand, shot, write_bar  # noqa: E402

# a quad in x-z facing up; its corner 3 (0.5, 0, 0.5) rises 1 m with the weight
QUAD = np.array([[-0.5, 0.0, -0.5], [0.5, 0.0, -0.5], [-0.5, 0.0, 0.5], [0.5, 0.0, 0.5]])
UP = np.array([[0.0, 0.0, 0.0]] * 3 + [[0.0, 1.0, 0.0]])


def write_quad(folder, name="quad", targets=True, keys=((0.0, 0.0), (1.0, 1.0)),
               interpolation="LINEAR"):
    """``name``.gltf: node 0 "Quad" (a red quad, normals up), its mesh's one target
    lifting corner 3 by 1 m in y (its normal tipped to -x); animation "Rise": the weight
    from 0 to 1 over 1 s, ``keys`` (time, weight, or CUBICSPLINE's (in, value, out))."""
    header = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
              "nodes": [{"name": "Quad", "mesh": 0}],
              "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]},
                             "doubleSided": True}]}
    prim = {"attributes": {"POSITION": add_floats(header, QUAD, "VEC3"),
                           "NORMAL": add_floats(header, [[0, 1.0, 0]] * 4, "VEC3")},
            "indices": add_floats(header, [0, 2, 3, 0, 3, 1], "SCALAR", "<u2"),
            "material": 0}
    header["meshes"] = [{"name": "QuadMesh", "primitives": [prim]}]
    times = add_floats(header, [k[0] for k in keys], "SCALAR")
    weights = add_floats(header, [w for k in keys for w in np.ravel(k[1:])], "SCALAR")
    if targets:
        prim["targets"] = [{"POSITION": add_floats(header, UP, "VEC3"),
                            "NORMAL": add_floats(header, [[0.0] * 3] * 3 + [[-1, 0, 0]],
                                                 "VEC3")}]
        header["meshes"][0]["weights"] = [0.0]
    header["animations"] = [{"name": "Rise", "samplers": [
        {"input": times, "output": weights, "interpolation": interpolation}],
        "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}] * targets}]
    path = folder / f"{name}.gltf"
    path.write_text(json.dumps(header))
    return path


@pytest.mark.parametrize("t", [0.0, 0.5, 1.0])
def test_the_corner_rises_with_the_weight(gl_context, tmp_path, t):
    red, clip = shot(gl_context, write_quad(tmp_path), t)
    want = box_of(clip, QUAD + t * UP)
    np.testing.assert_allclose(drawn_box(red), want, atol=1.0)
    corner = box_of(clip, [QUAD[3] + t * UP[3]])[:2]  # (the box's right: the corner's)
    assert abs(want[2] - corner[0]) < 1e-9
    assert abs(drawn_box(red)[2] - box_of(clip, QUAD)[2]) > 5 * t  # (it moves: 1 px past)


def test_without_targets_the_pixels_are_the_same(gl_context, tmp_path):
    """At weight 0 (t = 0) the morphed quad is the plain one, pixel for pixel."""
    morphed = shot(gl_context, write_quad(tmp_path), 0.0)[0]
    plain = shot(gl_context, write_quad(tmp_path, "plain", targets=False), 0.0)[0]
    np.testing.assert_array_equal(morphed, plain)
    assert morphed.sum() > 1000


def test_normals_are_shaped_and_renormalised(tmp_path):
    mesh = hf.Mesh.load(write_quad(tmp_path))
    mesh.time = 0.5
    (part,) = mesh._loaded().parts
    moves = mesh.part_matrices()
    assert len(moves) == 2 and moves[1][0, 0] == 0.5  # the part's, its weights'
    vertices, _ = posed(part, None, None, (np.array([0.5]), None, np.eye(4)))
    np.testing.assert_allclose(vertices["position"], QUAD + 0.5 * UP, atol=1e-6)
    tipped = np.array([-0.5, 1.0, 0.0]) / np.hypot(0.5, 1.0)  # (0, 1, 0) + 0.5 (-1, 0, 0)
    np.testing.assert_allclose(vertices["normal"][3], tipped, atol=1e-6)
    np.testing.assert_allclose(vertices["normal"][:3], [[0, 1.0, 0]] * 3, atol=1e-6)


def test_cubicspline_and_step_weights_as_the_spec_samples_them(tmp_path):
    """CUBICSPLINE: (in-tangent, value, out-tangent) a key, N = 1 weight each; at u = 0.5
    of values 0 and 1, tangents 0: the Hermite spline's 0.5. STEP: the key before."""
    cubic = hf.Mesh.load(write_quad(tmp_path, "cubic", keys=((0.0, (0, 0, 2.0)),
                                                             (1.0, (0, 1.0, 0))),
                                    interpolation="CUBICSPLINE"))
    step = hf.Mesh.load(write_quad(tmp_path, "step", interpolation="STEP"))
    got = []
    for mesh, t in ((cubic, 0.5), (step, 0.99), (step, 1.0)):
        mesh.time = t
        got.append(mesh.part_matrices()[1][0, 0])
    # h00 p0 + h10 dt m0 + h01 p1 + h11 dt m1 at 0.5: 0 + 0.125 * 2 + 0.5 + 0
    np.testing.assert_allclose(got, [0.75, 0.0, 1.0], atol=1e-7)


def test_the_velocity_of_the_rising_corner(gl_context, tmp_path):
    t, h = 0.5, 1e-3
    mesh = hf.Mesh.load(write_quad(tmp_path), position=(0.2, 0.0, 0.0))
    clips, vel = velocity_shot(gl_context, mesh, t, h)
    assert clips[2].shape == (3, 4, 4)  # the mesh's, its part's, its weights' (as they are)
    np.testing.assert_array_equal(clips[2][2][0], [0.5, 0, 0, 0])
    clip = clips[2][0]  # (the Mesh's: its 0.2 m in x in)
    for u in ([0.1, 0.7, 0.2], [0.2, 0.5, 0.3]):  # in the triangle (0, 3, 1), near 3
        path = [np.asarray(u) @ (QUAD + when * UP)[[0, 3, 1]]
                for when in (t - h, t, t + h)]
        (x0, y0), (x, y), (x1, y1) = [box_of(clip, [p])[:2] for p in path]
        np.testing.assert_allclose(vel[int(y), int(x)], [(x1 - x0) / 2e-3, (y1 - y0) / 2e-3],
                                   rtol=0.03, atol=2.0)
        assert abs(vel[int(y), int(x)]).max() > 15  # (px/s: it moves)


def test_a_skinned_part_is_shaped_before_its_skin(tmp_path):
    """The bar's tip vertices pushed 0.5 m along x by a target (weight 1), then turned 90
    degrees by the tip's joint about the origin: (1.5, 0, z) turned, not (1, 0, z) turned
    and pushed."""
    def pushed(header):
        push = [[0.0] * 3] * 4 + [[0.5, 0, 0]] * 2
        header["meshes"][0]["primitives"][0]["targets"] = [
            {"POSITION": add_floats(header, push, "VEC3")}]
        header["meshes"][0]["weights"] = [1.0]

    mesh = hf.Mesh.load(write_bar(tmp_path, "pushed", pushed))
    mesh.time = 1.0
    (part,) = mesh._loaded().parts
    moves = mesh.part_matrices()
    vertices, _ = posed(part, np.stack(moves[1:3]), None, (np.array([1.0]), None, np.eye(4)))
    want = by_hand(1.0)
    want[4:] = turned(REST[4:] + (0.5, 0.0, 0.0), 90.0)  # (1.5, 0, z) turned: (z, 0, -1.5)
    np.testing.assert_allclose(want[4], [-0.1, 0.0, -1.5], atol=1e-12)
    # its weight rising 1 a second, its joints still, the clip matrix the identity: each
    # vertex's rate is the finite difference of its positions
    joints = np.stack(moves[1:3])
    _, rate = posed(part, joints, np.zeros((2, 4, 4)), (np.array([1.0]), np.array([1.0]),
                                                        np.eye(4)))
    ends = [posed(part, joints, None, (np.array([w]), None, np.eye(4)))[0]["position"]
            for w in (0.99, 1.01)]
    np.testing.assert_allclose(rate[:, :3], (ends[1] - ends[0]) / 0.02, atol=1e-5)
    assert abs(rate).max() == pytest.approx(0.5, abs=1e-6) and not rate[:, 3].any()
    np.testing.assert_allclose(vertices["position"], want, atol=1e-6)


def test_a_weights_channel_of_another_count_is_refused_in_one_line(tmp_path):
    """Refused by Mesh.load (was: only once drawn at a time, by part_matrices: a render
    that had begun stopped there)."""
    path = write_quad(tmp_path, "two", keys=((0.0, (0.0, 0.0)), (1.0, (1.0, 1.0))))
    with pytest.raises(meshes.ModelError) as excinfo:
        hf.Mesh.load(path)
    assert str(excinfo.value) == (
        f"{path}: its node 'Quad' is given 2 morph weights a key by its animation, but its "
        "mesh has 1 morph targets: a weights channel needs one weight a target")
