"""An object's matrix from its place, turn and scale (hfrender/scene/nodes.py's
``placement``): Blender's XYZ Euler times the scale, then the place, and cheap to make anew.
3,000 particles each moving every sub-frame make 3,000 new matrices a sub-frame: they were
made by NumPy (three 3x3 arrays, two products, an eye: 45 us each, some 140-260 ms a
sub-frame of a 3,000-particle spiral on 2 busy cores), now from floats (6 us)."""

import math
import random
import timeit

import numpy as np

from hfrender.scene import nodes


def _reference(position, rotation, scale):
    rx, ry, rz = rotation
    rot_x = np.array([[1, 0, 0], [0, math.cos(rx), -math.sin(rx)],
                      [0, math.sin(rx), math.cos(rx)]])
    rot_y = np.array([[math.cos(ry), 0, math.sin(ry)], [0, 1, 0],
                      [-math.sin(ry), 0, math.cos(ry)]])
    rot_z = np.array([[math.cos(rz), -math.sin(rz), 0], [math.sin(rz), math.cos(rz), 0],
                      [0, 0, 1]])
    m = np.eye(4)
    m[:3, :3] = rot_z @ rot_y @ rot_x @ np.diag(np.broadcast_to(scale, (3,)))
    m[:3, 3] = position
    return m


def test_a_placement_is_xyz_euler_times_the_scale_then_the_place():
    rng = random.Random(5)
    for _ in range(200):
        position = tuple(rng.uniform(-50, 50) for _ in range(3))
        rotation = tuple(rng.uniform(-7, 7) for _ in range(3))
        for scale in (rng.uniform(0.01, 3), tuple(rng.uniform(-2, 2) for _ in range(3)), 2):
            made = nodes._model_matrix.__wrapped__(position, rotation, scale)
            np.testing.assert_allclose(made, _reference(position, rotation, scale),
                                       rtol=0, atol=1e-12)
            assert made.dtype == np.float64 and made.shape == (4, 4)
            assert not made.flags.writeable
    turned = nodes.placement((1, 2, 3), (0, 0, math.pi / 2), 2.0)
    np.testing.assert_allclose(turned @ (1, 0, 0, 1), (1, 4, 3, 1), atol=1e-12)


def test_a_new_placement_costs_a_few_small_arrays_not_numpys_products():
    """Against a 4x4 array made from a nested list in the same process (the machine's speed
    and load cancel): was 20-47 times one, now 1.3-9 (2 busy cores)."""
    make = nodes._model_matrix.__wrapped__
    args = ((1.0, 2.0, 3.0), (0.1, 0.2, 0.3), 0.03)
    rows = [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 2.0], [0.0, 0.0, 1.0, 3.0],
            [0.0, 0.0, 0.0, 1.0]]
    one = min(timeit.repeat(lambda: np.array(rows), number=2000, repeat=7))
    made = min(timeit.repeat(lambda: make(*args), number=2000, repeat=7))
    assert made < 12 * one, f"a placement costs {made / one:.1f} arrays"


def test_a_plain_place_is_checked_cheaply_and_a_bad_one_refused_as_before():
    """``obj.position = (x, y, z)`` of plain floats, 3,000 times an update for 3,000
    particles: checked without NumPy's and the numbers ABC's isinstance (was 16 us, 5-10
    times a 4x4 np.array; now about one), and what is refused still is, in its line."""
    from hfrender.errors import InputError
    from hfrender.scene import checks

    place = (1.0, 2, -0.3)
    rows = [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 2.0], [0.0, 0.0, 1.0, 3.0],
            [0.0, 0.0, 0.0, 1.0]]
    one = min(timeit.repeat(lambda: np.array(rows), number=2000, repeat=7))
    made = min(timeit.repeat(lambda: checks.vector3("Cube.position", place), number=2000,
                             repeat=7))
    assert made < 3 * one, f"a place's check costs {made / one:.1f} arrays"
    checked = checks.vector3("Cube.position", place)
    assert checked == (1.0, 2.0, -0.3) and all(type(v) is float for v in checked)
    for bad, said in (((1.0, math.nan, 0.0), "Cube.position=(1.0, nan, 0.0) must be 3 finite "
                       "numbers (x, y, z)"),
                      ((True, 0.0, 0.0), "Cube.position=(True, 0.0, 0.0) must be 3 finite "
                       "numbers (x, y, z)"),
                      ((2e18, 0.0, 0.0), "Cube.position=(2e+18, 0.0, 0.0): 2e+18 is past 1e+18, "
                       "more than the GPU's float32 can draw; scale the scene down (and "
                       "camera.far with it)")):
        try:
            checks.vector3("Cube.position", bad)
        except InputError as exc:
            assert str(exc) == said
        else:
            raise AssertionError(f"{bad} was taken")
