"""A child's frame, and the check that its parents are added, are remembered while nothing
is placed again (1,000 children of one group asked 4-5 times a sub-frame each walked and
multiplied the group's frame, and looked for each parent): the same matrices, bit for
bit, and the same refusal once a parent is set (hfrender/scene/nodes.py)."""

import math
import pickle

import numpy as np
import pytest

import hfrender as hf
from hfrender.errors import InputError
from hfrender.scene.nodes import placement


def test_a_childs_frame_is_remembered_until_something_is_placed_again():
    """The same matrices as the product of the placements, bit for bit, whatever is set
    between two looks: a group's place, a sphere's radius, a parent, a grandparent."""
    top, mid = hf.Group(position=(1, 0, 0)), hf.Group(rotation=(0, 0.5, 0))
    ball = hf.Sphere(position=(0, 2, 0), radius=0.3, parent=mid)

    def product():
        frame = (top.world_matrix() if mid.parent is top else np.eye(4)) @ \
            placement(mid.position, mid.rotation, mid.scale)
        return frame @ ball.model_matrix()

    first = ball.world_matrix()
    first[0, 0] = 7.0  # (a fresh array: what it remembers is not changed)
    np.testing.assert_array_equal(ball.world_matrix(), product())
    for change in (lambda: setattr(mid, "parent", top), lambda: setattr(top, "position", (
            0, 0, 3)), lambda: setattr(ball, "radius", 0.5), lambda: setattr(
            top, "scale", (1, 2, 1)), lambda: setattr(mid, "rotation", (math.pi, 0, 0))):
        before = ball.world_matrix()
        change()
        after = ball.world_matrix()
        assert not np.array_equal(before, after)
        assert np.array_equal(after, product())
    copy = pickle.loads(pickle.dumps(ball))
    assert "_world" in vars(ball) and not {"_world", "_framed"} & set(vars(copy))
    np.testing.assert_array_equal(copy.world_matrix(), ball.world_matrix())


def test_a_parent_not_added_is_refused_when_the_chain_changes_after_a_look():
    """The parents' check is remembered while no parent is set: set one, and it looks
    again."""
    scene = hf.Scene()
    planet = scene.add(hf.Sphere(parent=hf.Group()))
    moon = scene.add(hf.Sphere(position=(1, 0, 0), parent=planet))
    np.testing.assert_array_equal(moon.world_matrix()[:3, 3], (1, 0, 0))
    planet.parent.parent = hf.Cube(position=(0, 2, 0))  # a grandparent, never added
    for child in (planet, moon):
        with pytest.raises(InputError, match=r"^Sphere.parent: the Cube at \(0, 2, 0\) is "
                                             r"not added to this scene"):
            child.world_matrix()


def test_a_groups_frame_is_made_once_while_it_stays(monkeypatch):
    """100 children of a moving group, their matrices looked at 5 times a sub-frame (as the
    renderer does): the group's frame is made once a sub-frame (was: 500 times)."""
    from hfrender.scene import nodes

    scene = hf.Scene()
    group = hf.Group(rotation=(0, 0.3, 0))
    cubes = [scene.add(hf.Cube(position=(0.1 * i, 0, 0), parent=group)) for i in range(100)]
    made = []
    monkeypatch.setattr(nodes, "placement", lambda *a: made.append(a) or placement(*a))
    for k in range(3):
        group.position = (0.5 * k, 0, 0)
        looks = [[c.world_matrix() for c in cubes] for _ in range(5)]
        assert len(made) == k + 1
        np.testing.assert_array_equal(looks[4][99], placement((0.5 * k, 0, 0), (0, 0.3, 0), 1.0)
                                      @ placement((9.9, 0, 0), (0, 0, 0), 1.0))


def test_world_matrices_are_each_objects_world_matrix_and_follow_every_change():
    """:func:`world_matrices` (a sub-frame's objects in one array, a particle's turn and
    scale cached while they stay) gives each object's own ``world_matrix()`` bit for bit:
    particles of every shape and scale, children of a turned group, a text; and again
    after a radius, a scale, a turn, a height and a parent are set between two looks."""
    from hfrender.scene.objects import world_matrices

    rnd = np.random.default_rng(5)
    group = hf.Group(position=(0.5, -1, 2), rotation=(0.1, 0.7, 0))
    kinds = (hf.Sphere, hf.Cube, hf.Cylinder, hf.Cone, hf.Torus, hf.Plane)
    objs = []
    for k in range(60):
        obj = kinds[k % len(kinds)](position=tuple(rnd.uniform(-5, 5, 3).tolist()),
                                    rotation=tuple(rnd.uniform(-3, 3, 3).tolist()),
                                    scale=float(rnd.uniform(0.1, 2)) if k % 4 else (0.2, 1.5, 0.7))
        if k % 5 == 0:
            obj.parent = group
        objs.append(obj)
    objs.append(hf.Text("hi", position=(1, 2, 3), rotation=(0, 0.3, 0)))

    def each():
        return np.stack([obj.world_matrix() for obj in objs])

    np.testing.assert_array_equal(world_matrices(objs), each())
    assert not np.array_equal(world_matrices(objs)[0], world_matrices(objs)[1])
    objs[0].radius = 2.5  # a sphere's radius: its matrix's scale
    objs[1].scale = 3.0
    objs[2].rotation = (0.0, 1.0, 0.0)
    objs[3].height = 4.0
    objs[6].parent = group
    group.rotation = (0.0, -0.4, 0.2)
    after = world_matrices(objs)
    np.testing.assert_array_equal(after, each())
    assert math.isclose(float(np.linalg.norm(after[0, :3, 0])), 2.5 * 0.2)  # radius x scale
