"""hf.arrange and hf.next_to (hfrender/scene/layout.py): manim's VGroup.arrange and
next_to, placing objects' boxes side by side. Every expected place here is worked out by
hand from the documented rule (docs/rendering.md, Layout), not by the module's code."""

import math

import numpy as np
import pytest
from test_parenting import H, W, _centroid_of, _picture, _pixel
from test_text_levels import grown_by_pages

import hfrender as hf
from hfrender.errors import InputError, InputTypeError
from hfrender.scene import layout

RIGHT, LEFT, UP, DOWN, OUT, IN = (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), \
    (0, 0, -1)


def _at(*objects):
    return [tuple(o.position) for o in objects]


def test_three_cubes_arranged_right_sit_buff_apart_about_the_centre():
    a, b, c = hf.Cube(scale=1), hf.Cube(scale=2, position=(5, 5, 5)), hf.Cube(scale=0.5)
    given = [a, b, c]
    assert hf.arrange(given, RIGHT, buff=0.25) is given
    # widths 1, 2, 0.5 and two gaps of 0.25: 4.0 m from x = -2 to 2
    # a: -2..-1 (centre -1.5); b: -0.75..1.25 (0.25); c: 1.5..2 (1.75)
    np.testing.assert_allclose(_at(a, b, c), [(-1.5, 0, 0), (0.25, 0, 0), (1.75, 0, 0)])
    hf.arrange(given, RIGHT, buff=0.25)  # a pure function of the boxes: the same again
    np.testing.assert_allclose(_at(a, b, c), [(-1.5, 0, 0), (0.25, 0, 0), (1.75, 0, 0)])


def test_arranged_left_about_a_centre_the_first_is_rightmost():
    a, b, c = hf.Cube(scale=1), hf.Cube(scale=2), hf.Cube(scale=0.5)
    hf.arrange([a, b, c], LEFT, buff=0.5, center=(1, 2, 3))
    # 1 + 2 + 0.5 + 2 * 0.5 = 4.5 m, x = 1 - 2.25 .. 1 + 2.25; a first from the right
    # a: 2.25..3.25 (2.75); b: -0.25..1.75 (0.75); c: -1.25..-0.75 (-1.0)
    np.testing.assert_allclose(_at(a, b, c), [(2.75, 2, 3), (0.75, 2, 3), (-1.0, 2, 3)])


def test_spheres_arranged_down_by_their_radius_times_scale():
    top, bottom = hf.Sphere(radius=0.5, scale=2), hf.Sphere(radius=0.25)
    hf.arrange([top, bottom], DOWN, buff=0.1)  # diameters 2 and 0.5: 2.6 m, y 1.3..-1.3
    np.testing.assert_allclose(_at(top, bottom), [(0, 0.3, 0), (0, -1.05, 0)])


def test_a_rotated_cube_is_laid_out_by_its_turned_box():
    turned, plain = hf.Cube(rotation=(0, 0, math.pi / 4)), hf.Cube()
    np.testing.assert_allclose(layout.box(turned), [[-0.5 * 2 ** 0.5] * 2 + [-0.5],
                                                    [0.5 * 2 ** 0.5] * 2 + [0.5]])
    hf.next_to(turned, plain, RIGHT, buff=0.25)  # its corner 0.25 m from x = 0.5
    np.testing.assert_allclose(turned.position, (0.75 + 0.5 * 2 ** 0.5, 0, 0))
    # scale (2, 1, 0.5) turned 90 degrees about y: 0.5 across x, 2 deep
    slab = hf.Cube(scale=(2, 1, 0.5), rotation=(0, math.pi / 2, 0))
    np.testing.assert_allclose(layout.box(slab), [(-0.25, -0.5, -1), (0.25, 0.5, 1)],
                               atol=1e-12)
    egg = hf.Sphere(radius=0.5, scale=(2, 1, 1), rotation=(0, 0, math.pi / 2))  # stood up
    np.testing.assert_allclose(layout.box(egg), [(-0.5, -1, -0.5), (0.5, 1, 0.5)],
                               atol=1e-12)
    flat = hf.Plane(scale=3)  # no depth
    np.testing.assert_allclose(layout.box(flat), [(-1.5, -1.5, 0), (1.5, 1.5, 0)])


@pytest.mark.parametrize("direction", [RIGHT, LEFT, UP, DOWN, OUT, IN])
def test_next_to_in_each_direction(direction):
    other = hf.Cube(position=(1, 2, 3))  # half 0.5
    obj = hf.Sphere(radius=0.25, scale=2, position=(9, 9, 9))  # half 0.5
    assert hf.next_to(obj, other, direction, buff=0.25) is obj
    want = np.add((1, 2, 3), np.multiply(direction, 0.5 + 0.25 + 0.5))
    np.testing.assert_allclose(obj.position, want)
    assert other.position == (1, 2, 3)  # only obj moves


def test_a_direction_of_any_length_along_an_axis_and_manims_arrays():
    obj, other = hf.Cube(), hf.Cube()
    hf.next_to(obj, other, np.array([0.0, -2.0, 0.0]), buff=np.float64(0.5))
    np.testing.assert_allclose(obj.position, (0, -1.5, 0))


def test_a_text_is_laid_out_by_its_ink():
    """An "H" is ``height`` tall from its baseline (the cap height), and its anchor midway
    up: above a unit cube, its baseline at 0.5 + 0.25, its middle 0.15 above (within a
    raster pixel or two of antialiasing: 0.3 m / ~89 px)."""
    label, cube = hf.Text("H", height=0.3), hf.Cube()
    lo, hi = layout.box(label)
    assert hi[1] - lo[1] == pytest.approx(0.3, abs=0.008)
    assert lo[2] == hi[2] == 0.0
    hf.next_to(label, cube, UP)
    np.testing.assert_allclose(label.position, (0, 0.9, 0), atol=0.008)
    np.testing.assert_allclose(layout.box(label)[0][1], 0.75, atol=1e-12)  # exactly buff



def test_a_laid_out_text_changing_every_draw_keeps_no_more_rasters_than_drawing_does():
    """A caption laid out again as it changes (next_to in update(t)) kept the last 256 of
    its rasters in the layout's own cache of their ink, past the 128 MiB the drawing keeps:
    fourteen 40-line pages grew the process by 250 MB. The ink is kept with its raster now."""
    anchor = hf.Cube(scale=0.1)

    def laid_out(page):
        label = hf.Text(page, height=0.05)
        hf.next_to(label, anchor, (0, -1, 0))
        return label.raster()

    grown, most = grown_by_pages(laid_out)
    assert grown < (128 << 20) + most, f"{grown / 2**20:.0f} MiB kept"

def test_a_text_box_is_its_inked_pixels_times_metres_a_pixel():
    """The box read off the raster by hand: the columns and rows with coverage, each
    pixel height / cap metres, about the quad's corner (the raster's pixel (0, 0) is the
    quad's top left)."""
    label = hf.Text("Hello\nworld", height=0.2, scale=1.5, position=(1, 0, 0))
    r = label.raster()
    ys, xs = np.nonzero(r.coverage)
    k = 0.2 * 1.5 / r.cap
    left, top = r.vertices["position"][3][:2]  # the quad's top-left corner: pixel (0, 0)
    want = [(1 + k * (left + xs.min()), k * (top - ys.max() - 1), 0),
            (1 + k * (left + xs.max() + 1), k * (top - ys.min()), 0)]
    np.testing.assert_allclose(layout.box(label), want, rtol=1e-6, atol=1e-9)
    quad = r.bounds * k  # the padded plate is wider than the ink
    assert quad[1][0] - quad[0][0] > want[1][0] - want[0][0] + 0.01


def test_a_mesh_is_laid_out_by_its_bounds(tmp_path):
    path = tmp_path / "tri.obj"
    path.write_text("v 0 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 3\n")
    model, cube = hf.Mesh.load(path), hf.Cube()
    hf.next_to(model, cube, RIGHT, buff=0.25)  # x 0..2, y 0..1: its left edge at 0.75
    np.testing.assert_allclose(model.position, (0.75, -0.5, 0))


def test_a_group_is_its_objects_box_and_moves_by_its_position():
    a, b = hf.Cube(position=(-1, 0, 0)), hf.Cube(position=(1, 0, 0), scale=2)
    group = hf.Group(a, b, position=(0, 5, 0), scale=0.5)  # x -0.75..1, y 4.5..5.5
    np.testing.assert_allclose(layout.box(group), [(-0.75, 4.5, -0.5), (1, 5.5, 0.5)])
    ball = hf.Sphere(radius=0.5)
    hf.arrange([group, ball], RIGHT, buff=0.25)  # 1.75 + 0.25 + 1: x -1.5..1.5
    np.testing.assert_allclose(group.position, (-1.5 + 0.75, -5 + 5, 0))  # box -1.5..0.25
    np.testing.assert_allclose(ball.position, (1.0, 0, 0))
    assert _at(a, b) == [(-1, 0, 0), (1, 0, 0)]  # the objects keep their places in it


def test_a_group_given_to_arrange_lays_out_its_children_in_its_frame():
    a, b = hf.Cube(), hf.Cube(scale=2)
    group = hf.Group(a, b, position=(3, 0, 0), rotation=(0, 0, 1.0))
    assert hf.arrange(group, UP, buff=0.5) is group
    # 1 + 2 + 0.5 = 3.5 m, y -1.75..1.75: a -1.75..-0.75, b -0.25..1.75
    np.testing.assert_allclose(_at(a, b), [(0, -1.25, 0), (0, 0.75, 0)])
    label = hf.Text("row", parent=group)
    hf.next_to(label, b, RIGHT)  # a sibling: fine
    assert label.position[0] > 1.25


@pytest.mark.parametrize("call, error, said", [
    (lambda a, b: hf.next_to(a, b, (0, 0, 0)), InputError,
     "next_to: direction=(0, 0, 0) must point along one axis: (1, 0, 0) right, (-1, 0, 0) "
     "left, (0, 1, 0) up, (0, -1, 0) down, (0, 0, 1) out (towards the default camera), (0, "
     "0, -1) in"),
    (lambda a, b: hf.arrange([a, b], (1, 1, 0)), InputError,
     "arrange: direction=(1, 1, 0) must point along one axis: (1, 0, 0) right, (-1, 0, 0) "
     "left, (0, 1, 0) up, (0, -1, 0) down, (0, 0, 1) out (towards the default camera), (0, "
     "0, -1) in"),
    (lambda a, b: hf.arrange([a, b], "right"), InputError,
     "arrange: direction='right' must be 3 finite numbers along one axis: (1, 0, 0) right, "
     "(-1, 0, 0) left, (0, 1, 0) up, (0, -1, 0) down, (0, 0, 1) out (towards the default "
     "camera), (0, 0, -1) in"),
    (lambda a, b: hf.next_to(a, b, buff=-0.1), InputError,
     "next_to: buff=-0.1 must be a finite number >= 0 (metres between the boxes)"),
    (lambda a, b: hf.arrange([a, b], buff=float("nan")), InputError,
     "arrange: buff=nan must be a finite number >= 0 (metres between the boxes)"),
    (lambda a, b: hf.arrange([a, b], center=(1, 2)), InputError,
     "arrange: center=(1, 2) must be 3 finite numbers (x, y, z) in metres"),
    (lambda a, b: hf.next_to(a, "ball"), InputTypeError,
     "next_to: other='ball' must be an object (hf.Sphere, hf.Cube, hf.Text, hf.Mesh, ...) "
     "or an hf.Group"),
    (lambda a, b: hf.arrange([a, hf.Cube, b]), InputTypeError,
     "arrange: objects[1]=<class 'hfrender.scene.objects.Cube'> must be an object "
     "(hf.Sphere, hf.Cube, hf.Text, hf.Mesh, ...) or an hf.Group (call it: hf.Cube())"),
    (lambda a, b: hf.arrange(a), InputTypeError,
     "arrange: objects=the Cube at (1, 0, 0) is one object: give a list of them, "
     "hf.arrange([a, b, c]), or an hf.Group"),
    (lambda a, b: hf.arrange(3), InputTypeError,
     "arrange: objects=3 must be a list of objects (hf.Sphere, hf.Cube, hf.Text, hf.Mesh, "
     "hf.Group) or an hf.Group"),
    (lambda a, b: hf.arrange([a, b, a]), InputError,
     "arrange: objects[2] is the Cube at (1, 0, 0) again: each object once"),
    (lambda a, b: hf.next_to(a, a), InputError,
     "next_to: obj and other are one object (the Cube at (1, 0, 0)): place it beside "
     "another"),
    (lambda a, b: hf.next_to(a, hf.Group()), InputError,
     "the Group at (0, 0, 0) has no object in it, so no box to lay out: add its objects "
     "first (group.add(a, b))"),
])
def test_bad_input_is_one_line_and_moves_nothing(call, error, said):
    a, b = hf.Cube(position=(1, 0, 0)), hf.Sphere(position=(0, 2, 0))
    with pytest.raises(error) as excinfo:
        call(a, b)
    assert str(excinfo.value) == said
    assert _at(a, b) == [(1, 0, 0), (0, 2, 0)]


def test_objects_under_different_parents_are_refused_in_one_line():
    inside, outside = hf.Cube(position=(1, 0, 0)), hf.Sphere()
    hf.Group(inside, position=(0, 3, 0))
    said = ("next_to: obj (the Sphere at (0, 0, 0)) has no parent and other (the Cube at (1, "
            "3, 0)) is under the Group at (0, 3, 0): objects are laid out in their parent's "
            "frame, so give them one parent (an hf.Group, or obj.parent = other.parent)")
    with pytest.raises(InputError) as excinfo:
        hf.next_to(outside, inside, UP)
    assert str(excinfo.value) == said
    with pytest.raises(InputError, match=r"^arrange: objects\[0\] \(the Cube at \(1, 3, 0\)\) "
                       r"is under the Group at \(0, 3, 0\) and objects\[1\] \(the Sphere "):
        hf.arrange([inside, outside])
    assert _at(inside, outside) == [(1, 0, 0), (0, 0, 0)]
    outside.parent = inside.parent  # as the message says: then it is placed
    hf.next_to(outside, inside, UP)
    np.testing.assert_allclose(outside.position, (1, 1.25, 0))


def test_the_names_are_the_packages_and_manims_hints_point_at_them():
    assert hf.arrange is layout.arrange and hf.next_to is layout.next_to
    assert {"arrange", "next_to"} <= set(hf.__all__)
    with pytest.raises(AttributeError, match=r"hf\.next_to\(obj, other, \(0, 1, 0\)"):
        hf.Cube().next_to  # noqa: B018
    with pytest.raises(AttributeError, match=r"is hf\.arrange\(group, \(1, 0, 0\)"):
        hf.Group().arrange  # noqa: B018


class Row(hf.Scene):
    """Red, green and blue cubes of sides 0.6, 1.2 and 0.3 arranged right (buff 0.4) about
    (0, 0.5, 0) in update(t), on a black ground, seen straight on by an orthographic
    camera: ambient light only, so each face is its colour."""

    background = (0, 0, 0)
    ambient = 1.0

    def setup(self):
        self.cubes = [self.add(hf.Cube(scale=s, color=c, position=(0, -3, 0)))
                      for s, c in ((0.6, "red"), (1.2, "lime"), (0.3, "blue"))]
        self.camera.position = (0, 0, 8)
        self.camera.look_at((0, 0, 0))
        self.camera.orthographic, self.camera.ortho_height = True, 3.0

    def update(self, t):
        hf.arrange(self.cubes, RIGHT, buff=0.4, center=(0, 0.5, 0))


def test_arranged_cubes_land_where_the_projection_says(gl_context):
    ctx = gl_context(size=(W, H)).ctx
    scene = Row()
    color, _, renderer = _picture(ctx, scene, 0.5)
    renderer.release()
    # 0.6 + 1.2 + 0.3 + 2 * 0.4 = 2.9 m, x -1.45..1.45: red -1.45..-0.85 (centre -1.15),
    # green -0.45..0.75 (0.15), blue 1.15..1.45 (1.3)
    for channel, x in enumerate((-1.15, 0.15, 1.3)):
        want = _pixel(scene.camera, (x, 0.5, 0))  # (its projection's rows run top down)
        # by hand: 96 px for 3 m, 32 px a metre about the picture's middle (80, 48)
        np.testing.assert_allclose(want, (W / 2 + 32 * x, H / 2 - 32 * 0.5))
        at = _centroid_of(color, channel) + 0.5
        assert np.abs(at - want).max() < 0.3, (channel, at, want)


def test_a_scenes_objects_are_named_as_it_holds_them_and_rounding_noise_is_nothing():
    """Added to a scene, an object is named by the scene's name for it (was: by its place,
    with a row's rounding in it: 'the Text at (-1.11e-16, ...)')."""

    class Held(hf.Scene):
        def setup(self):
            self.row = hf.Group(position=(0, 3, 0))
            self.left = self.add(hf.Cube(position=(1e-17 - 1e-16, 0, 0), parent=self.row))
            self.free = self.add(hf.Sphere(position=(0.1 + 0.2 - 0.3, 2, 0)))

    scene = Held()
    scene.setup()
    with pytest.raises(InputError) as excinfo:
        hf.next_to(scene.free, scene.left, UP)
    assert str(excinfo.value).startswith(
        "next_to: obj (self.free (a Sphere)) has no parent and other (self.left (a Cube)) is "
        "under the Group at (0, 3, 0): ")
    loose = hf.Sphere(position=(0.1 + 0.2 - 0.3, -1e-16, 2))  # in no scene: by its place
    with pytest.raises(InputError, match=r"one object \(the Sphere at \(0, 0, 2\)\)"):
        hf.next_to(loose, loose, UP)
