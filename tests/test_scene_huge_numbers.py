"""Places and sizes past what the GPU draws, given as whole numbers: said exactly, however
large (a review: ``(10**18 + 1, 0, 0)`` was 'past 1e+18' as '1e+18', and ``10**400`` an
OverflowError's 'int too large to convert to float', naming neither value nor limit)."""

import math

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


HUGE_WORDS = "a whole number of 401 digits"
BIG, BIG_BELOW = "1" + "0" * 76 + "...", "-1" + "0" * 75 + "..."  # (80 characters)
SIZE_PAST = f"{HUGE_WORDS} is past 1e+18, " + REST


@pytest.mark.parametrize("make, name", [(hf.Sphere, "radius"), (hf.Cylinder, "height"),
                                        (hf.Torus, "tube")])
def test_a_size_past_any_float_is_one_line(make, name):
    """``hf.Sphere(radius=10**400)`` (or set later) raised OverflowError 'int too large to
    convert to float' (checks.finite's math.isfinite): now the positions' line."""
    with pytest.raises(InputError) as info:
        make(**{name: 10**400})
    assert str(info.value) == f"{make.__name__}.{name}={BIG}: {SIZE_PAST}"
    shape = make()
    with pytest.raises(InputError) as info:
        setattr(shape, name, 10**400)
    assert str(info.value) == f"{make.__name__}.{name}={BIG}: {SIZE_PAST}"


def test_a_camera_number_past_any_float_is_one_line():
    cam = hf.Camera()
    with pytest.raises(InputError) as info:
        cam.near = 10**400
    assert str(info.value) == f"camera.near={BIG}: {SIZE_PAST}"
    with pytest.raises(InputError) as info:
        cam.f_stop = 10**400
    assert str(info.value) == (f"camera.f_stop={BIG} must be None (a pinhole) or a finite "
                               f"number > 0: {HUGE_WORDS} is past any float (1.79769e+308)")
    with pytest.raises(InputError) as info:
        cam.focus_distance = -10**400
    assert str(info.value) == (f"camera.focus_distance={BIG_BELOW} must be a distance > 0 in "
                               f"metres, or inf: {HUGE_WORDS} is past any float (1.79769e+308)")


def test_keyframes_past_any_float_are_one_line():
    with pytest.raises(InputError) as info:
        hf.Keyframes({0: 0.0, 10**400: 1.0})
    assert str(info.value) == (f"keyframes: a key's time={BIG} must be a finite number of "
                               f"seconds: {HUGE_WORDS} is past any float (1.79769e+308)")
    keys = hf.Keyframes({0: 0.0, 1: 1.0}, ease=lambda s: 10**400)
    with pytest.raises(InputError, match=f"gave {BIG} at s=0.5; it must give a finite "
                                         rf"number \(0 at s = 0, 1 at s = 1\): {HUGE_WORDS} "
                                         r"is past any float \(1.79769e\+308\)$"):
        keys(0.5)


def test_a_duration_past_any_float_reads_no_keys_as_an_endless_one():
    """key_times read a scene's keys over its own duration: 10**400 raised OverflowError;
    now none read, as for an endless scene (inf)."""
    from types import SimpleNamespace

    from hfrender.scene.key_times import times_to_read

    assert times_to_read(SimpleNamespace(duration=math.inf)) == []
    assert times_to_read(SimpleNamespace(duration=10**400)) == []
    assert times_to_read(SimpleNamespace(duration=7)) == [float(i) for i in range(8)]


LIGHT = "the light on a surface facing the lamp 1 m away"
FLOAT32 = "more than float32 holds (largest 3.40282e+38)"


@pytest.mark.parametrize("value, shown_as, said", [
    (1e39, "1e+39", "1e+39"), (10**400, BIG, HUGE_WORDS), (3.5e38, "3.5e+38", "3.5e+38")])
def test_a_lamp_brighter_than_float32_is_said_as_a_brightness(value, shown_as, said):
    """A lamp's intensity past float32's largest: 1e39 was taken (drawn as infinity), and
    10**400 told the positions' line ("the GPU's float32 can draw; scale the scene down")."""
    with pytest.raises(InputError) as info:
        hf.PointLight(intensity=value)
    assert str(info.value) == (f"PointLight.intensity={shown_as}: {said} is {FLOAT32}; it "
                               f"must be a finite number from 0 to 3.40282e+38 ({LIGHT})")
    assert hf.PointLight(intensity=3.4e38).intensity == 3.4e38  # (the largest held, taken)


def test_the_lights_strength_and_an_emission_past_float32_are_brightnesses():
    scene = hf.Scene()
    with pytest.raises(InputError) as info:
        scene.light_strength = 10**400
    assert str(info.value) == (f"Scene.light_strength={BIG}: {HUGE_WORDS} is {FLOAT32}; it "
                               "must be a finite number from 0 to 3.40282e+38 (the "
                               "directional light: 1 full, 0 off)")
    with pytest.raises(InputError) as info:
        hf.Sphere(emissive=1e39)
    assert str(info.value) == ("Sphere.emissive=1e+39: 1e+39 is more than float32 holds "
                               "(largest 3.40282e+38); it must be a finite number from 0 to "
                               "3.40282e+38")
    with pytest.raises(InputError) as info:  # below 0: the range's line (was OverflowError's)
        hf.PointLight(intensity=-10**400)
    assert str(info.value) == (f"PointLight.intensity={BIG_BELOW} must be a finite number "
                               f">= 0 ({LIGHT})")


def test_a_colour_past_any_float_is_the_colours_line():
    with pytest.raises(InputError) as info:  # (was OverflowError: int too large to convert)
        hf.PointLight(color=(10**400, 1, 1))
    assert str(info.value) == (f"PointLight.color=({HUGE}: the values must be numbers 0..1")


def test_a_lamps_radius_past_1e18_is_a_sizes_line():
    """A lamp's radius is a size, as an object's: 1e39 was taken (its square infinite in
    float32: the lamp gave no light); 2 m taken as it is."""
    with pytest.raises(InputError) as info:
        hf.PointLight(radius=1e39)
    assert str(info.value) == ("PointLight.radius=1e+39: 1e+39 is past 1e+18, more than the "
                               "GPU's float32 can draw; scale the scene down (and camera.far "
                               "with it)")
    assert hf.PointLight(radius=2).radius == 2.0
