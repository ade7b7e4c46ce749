"""Places and sizes past what the GPU draws, given as whole numbers: said exactly, however
large (a review: ``(10**18 + 1, 0, 0)`` was 'past 1e+18' as '1e+18', and ``10**400`` an
OverflowError's 'int too large to convert to float', naming neither value nor limit)."""

import pytest

import hfrender as hf
from hfrender.errors import InputError

REST = ("more than the GPU's float32 can draw; scale the scene down (and camera.far with it)")
HUGE = "1" + "0" * 75 + "..."  # (shown's 80 characters, cut short)


@pytest.mark.parametrize("make, name, value, message", [
    (hf.Sphere, "position", (10**18 + 1, 0, 0),
     "Sphere.position=(1000000000000000001, 0, 0): 1000000000000000001 is past 1e+18, "),
    (hf.Sphere, "position", (0, 0.5, 1.0000000000000003e18),
     "Sphere.position=(0, 0.5, 1.0000000000000003e+18): 1.0000000000000003e+18 is past 1e+18, "),
    (hf.Sphere, "position", (10**400, 0, 0),
     f"Sphere.position=({HUGE}: a whole number of 401 digits is past 1e+18, "),
    (hf.Cube, "scale", -10**400, f"Cube.scale=-1{'0' * 75}...: a whole number of 401 digits "
                                 "is past 1e+18, "),
    (hf.Cube, "scale", (1, 2, 3 * 10**25), "Cube.scale=(1, 2, 30000000000000000000000000): "
                                           "30000000000000000000000000 is past 1e+18, "),
])
def test_a_huge_whole_number_is_said_exactly_with_the_limit(make, name, value, message):
    with pytest.raises(InputError) as info:
        make(**{name: value})
    assert str(info.value) == message + REST
