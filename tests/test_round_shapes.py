"""hf.Cylinder, hf.Cone and hf.Torus (manim's Cylinder, Cone and Torus; were "the built-in
shapes are hf.Plane, hf.Cube and hf.Sphere"): their outlines on the picture as worked by
hand, lit by the docs' formula, refused bad values in one line, laid out by their exact
box, many drawn in one instanced draw, fewer segments where small."""

from __future__ import annotations

import math

import moderngl
import numpy as np
import pytest

import hfrender as hf
from hfrender.color import srgb_color
from hfrender.renderer.renderer import SceneRenderer
from hfrender.scene.objects import mesh
from hfrender.scene.round_shapes import SEGMENTS, round_level

S = 120  # a square picture, orthographic 2.4 m high: 50 px a metre, the origin at its middle
PX = S / 2.4


def shot(*objects, ambient=1.0, shader="unlit", position=(0.0, 0.0, 5.0)):
    class Shot(hf.Scene):
        background = (0.0, 0.0, 0.0)

        def setup(self):
            self.ambient = ambient
            for obj in objects:
                obj.shader = shader
                self.add(obj)
            self.camera.position = position
            self.camera.look_at((0.0, 0.0, 0.0))
            self.camera.orthographic, self.camera.ortho_height = True, S / PX

    return Shot()


class _Always(dict):
    def __getitem__(self, key):
        return True


def draw(gl_context, scene, hdr=False, one_by_one=False):
    """(colour (S, S, 3): uint8 sRGB, or linear float32 where ``hdr``, the instance counts
    of the draws); ``one_by_one``: each object a draw."""
    counts, render = [], moderngl.VertexArray.render

    def counted(vao, mode=moderngl.TRIANGLES, vertices=-1, *, first=0, instances=-1):
        if vertices != 3:  # not the background's full-screen triangle
            counts.append(instances)
        return render(vao, mode, vertices, first=first, instances=instances)

    scene.setup()
    renderer = SceneRenderer(gl_context(size=(S, S)).ctx, scene, (S, S), False, hdr=hdr)
    renderer.prepare()
    if one_by_one:
        renderer.instances.one_by_one = _Always()
    moderngl.VertexArray.render = counted
    try:
        renderer.draw(0.0, 0)
    finally:
        moderngl.VertexArray.render = render
    colour = np.empty((S, S, 4), np.float32 if hdr else np.uint8)
    renderer.read_into(colour)
    renderer.release()
    return colour[..., :3], counts


# the pixels' centres in metres: x right, y up
X, Y = np.meshgrid((np.arange(S) + 0.5 - S / 2) / PX, (S / 2 - np.arange(S) - 0.5) / PX)
TURNED = (math.pi / 2, 0.0, 0.0)  # the y axis laid along z: towards the camera


def _disc(x, y, r):
    return np.hypot(X - x, Y - y) - r


def _rect(w, h):
    """The signed distance to an axis-aligned w x h rectangle at the origin."""
    qx, qy = np.abs(X) - w / 2, np.abs(Y) - h / 2
    return np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0)


SLANT = 1.6 / math.hypot(1.6, 0.6)  # a cone's side: horizontal distance to perpendicular


@pytest.mark.parametrize("make, outside", [
    # an upright cylinder, seen from the side: a 2r x h rectangle
    (lambda: hf.Cylinder(radius=0.5, height=1.2), lambda: _rect(1.0, 1.2)),
    # along its axis (turned to face the camera): a disc of its radius
    (lambda: hf.Cylinder(radius=0.7, height=0.3, rotation=TURNED), lambda: _disc(0, 0, 0.7)),
    # a cone from the side: its base 2r wide at y = -h/2, its apex at +h/2
    (lambda: hf.Cone(radius=0.6, height=1.6),
     lambda: np.maximum(np.abs(Y) - 0.8, (np.abs(X) - 0.6 * (0.8 - Y) / 1.6) * SLANT)),
    # a torus facing the camera: a ring from R - r to R + r
    (lambda: hf.Torus(radius=0.7, tube=0.25, rotation=TURNED),
     lambda: np.abs(_disc(0, 0, 0.7)) - 0.25),
    # edge-on: its tube's two circles and the band between them
    (lambda: hf.Torus(radius=0.7, tube=0.25),
     lambda: np.minimum.reduce([_disc(-0.7, 0, 0.25), _disc(0.7, 0, 0.25), _rect(1.4, 0.5)])),
])
def test_an_outline_is_the_projection_worked_by_hand(gl_context, make, outside):
    """Orthographic, 50 px a metre: a pixel is drawn where its centre lies inside the shape
    as worked by hand (``outside`` < 0, a distance in metres, exact or less); those within
    0.05 px of the outline either way (a 128-gon's error is 0.01 px at 35 px, the
    256-gon's 0.004)."""
    colour, _ = draw(gl_context, shot(make()))
    drawn = colour[..., 0] > 127
    d = outside() * PX
    sure = np.abs(d) > 0.05
    assert drawn.sum() > 1000 and sure.mean() > 0.98
    assert np.array_equal(drawn[sure], (d < 0)[sure]), np.argwhere((drawn != (d < 0)) & sure)


def _lit(colour, normal, ambient=0.18, light=(0.4, 0.8, 0.6)):
    """The docs' formula: color * (ambient + (1 - ambient) * max(0, n.l)), linear light."""
    n = np.asarray(normal) / np.linalg.norm(normal)
    l_hat = np.asarray(light) / np.linalg.norm(light)
    return np.asarray(srgb_color(colour)) * (ambient + (1 - ambient) * max(0.0, n @ l_hat))


def test_the_side_and_the_caps_are_lit_by_the_docs_formula(gl_context):
    """A cap is flat (its normal the axis, to its rim); the side's normal is the surface's
    own, smooth, at every pixel: a cylinder's (x / r, 0, z / r), a cone's of radius r and
    height h (h x / rho, r, h z / rho) where its circle is rho, as scaled objects'
    normals are."""
    c = (0.8, 0.6, 0.4)
    side = hf.Cylinder(position=(-0.6, 0, 0), radius=0.4, height=1.6, color=c)
    cap = hf.Cylinder(position=(0.6, 0.5, 0), radius=0.4, height=0.2, color=c,
                      rotation=TURNED)  # its top cap faces the camera (+z)
    cone = hf.Cone(position=(0.6, -0.55, 0), radius=0.5, height=1.0, color=c,
                   scale=(1.0, 0.6, 1.0))  # 0.6 m high: its normal its shape's
    colour, _ = draw(gl_context, shot(side, cap, cone, ambient=0.18, shader=None), hdr=True)
    row = S // 2 - 15  # y = 0.31
    for col in range(int(S / 2 - 0.95 * PX), int(S / 2 - 0.25 * PX)):  # across the side
        x = X[row, col] + 0.6
        z = math.sqrt(0.4**2 - x**2)
        assert np.allclose(colour[row, col], _lit(c, (x, 0, z)), atol=1e-3), x
    for x, y in ((0.6, 0.5), (0.45, 0.62), (0.85, 0.3), (0.3, 0.75)):  # on the cap: flat
        assert np.allclose(colour[int(S / 2 - y * PX), int(S / 2 + x * PX)],
                           _lit(c, (0, 0, 1)), atol=1e-4), (x, y)
    for col in range(int(S / 2 + 0.45 * PX), int(S / 2 + 0.75 * PX)):  # the cone's front
        for row in (S // 2 + 22, S // 2 + 27, S // 2 + 33):  # 0.1 above its middle to below
            y = Y[row, col] + 0.55
            x, rho = X[row, col] - 0.6, 0.5 * (0.3 - y) / 0.6
            z = math.sqrt(rho**2 - x**2)
            assert np.allclose(colour[row, col], _lit(c, (0.6 * x, 0.5 * rho, 0.6 * z)),
                               atol=1e-3), (x, y)


@pytest.mark.parametrize("line, said", [
    (lambda: hf.Cylinder(radius=-1), "Cylinder.radius=-1 must be a finite number >= 0"),
    (lambda: hf.Cylinder(height=float("inf")),
     "Cylinder.height=inf must be a finite number >= 0"),
    (lambda: hf.Cone(height="tall"), "Cone.height='tall' must be a finite number >= 0"),
    (lambda: hf.Torus(tube=-0.1), "Torus.tube=-0.1 must be a finite number >= 0"),
    (lambda: hf.Torus(radius=float("nan")), "Torus.radius=nan must be a finite number >= 0"),
    (lambda: hf.Torus(radius=1e19), "Torus.radius=1e+19: 1e+19 is past 1e+18, more than the "
                                    "GPU's float32 can draw; scale the scene down (and "
                                    "camera.far with it)"),
    (lambda: hf.Cone(0.5), "hf.Cone(0.5, ...): the first argument is the position, (x, y, z); "
                           "a radius is given by its keyword: hf.Cone(radius=0.5)"),
])
def test_a_bad_size_is_one_line(line, said):
    with pytest.raises(hf.InputError) as excinfo:
        line()
    assert str(excinfo.value) == said


def test_a_size_set_later_is_checked_and_keeps_the_one_before():
    cyl = hf.Cylinder(radius=0.3)
    with pytest.raises(hf.InputError, match=r"^Cylinder\.radius=-0\.2 must be a finite"):
        cyl.radius = -0.2
    assert cyl.radius == 0.3


def test_arrange_lays_out_a_cylinders_box():
    """A cylinder of radius 0.3 and height 1 beside 1 m cube, 0.25 m apart: its box is 0.6
    wide (1 high); turned a quarter about x it is 0.6 high and 1 deep; a cone's box starts
    at its base; a torus's reaches radius + tube."""
    cube, cyl = hf.Cube(), hf.Cylinder(radius=0.3, height=1.0)
    hf.arrange(hf.Group(cube, cyl), (1, 0, 0), buff=0.25)  # 1.85 wide, centred on 0
    assert cube.position == pytest.approx((-0.425, 0, 0))
    assert cyl.position == pytest.approx((0.625, 0, 0))
    from hfrender.scene.layout import box

    assert box(hf.Cylinder(radius=0.3, height=1.0, rotation=TURNED)) == pytest.approx(
        np.array([[-0.3, -0.3, -0.5], [0.3, 0.3, 0.5]]))
    turned = hf.Cylinder(radius=0.3, height=1.0, rotation=(0, 0, math.pi / 4))
    half = 0.5 * math.sqrt(0.5) + 0.3 * math.sqrt(0.5)  # its cap's rim and half its axis
    assert box(turned) == pytest.approx(np.array([[-half, -half, -0.3], [half, half, 0.3]]))
    assert box(hf.Cone(radius=0.3, height=1.0, rotation=(math.pi, 0, 0))) == pytest.approx(
        np.array([[-0.3, -0.5, -0.3], [0.3, 0.5, 0.3]]))  # upside down: its box the same
    leaning = hf.Cone(radius=0.3, height=1.0, rotation=(0, 0, -math.pi / 2))  # apex at +x
    assert box(leaning) == pytest.approx(np.array([[-0.5, -0.3, -0.3], [0.5, 0.3, 0.3]]))
    assert box(hf.Torus(radius=0.5, tube=0.125, position=(1, 0, 0))) == pytest.approx(
        np.array([[0.375, -0.125, -0.625], [1.625, 0.125, 0.625]]))
    below = hf.Cone(radius=0.2, height=0.5, parent=cyl.parent)
    hf.next_to(below, cyl, (0, -1, 0), buff=0.1)
    assert below.position == pytest.approx((0.625, -0.85, 0))


def test_many_cylinders_are_one_instanced_draw(gl_context):
    """60 cylinders of one size on the picture: one draw of 60 instances (as cubes are,
    was one a draw); 60 tori of one shape: one more; the pixels, to the bit, those of each
    drawn alone in the scene's order."""
    rng = np.random.default_rng(5)
    objects = [hf.Cylinder(position=(*rng.uniform(-1, 1, 2), 0), radius=0.05, height=0.2,
                           rotation=tuple(rng.uniform(0, 3, 3))) for _ in range(60)]
    objects += [hf.Torus(position=(*rng.uniform(-1, 1, 2), -0.5), radius=0.06, tube=0.02,
                         color="orange", rotation=tuple(rng.uniform(0, 3, 3)))
                for _ in range(60)]
    many, counts = draw(gl_context, shot(*objects, ambient=0.3, shader=None))
    assert counts == [60, 60]
    alone, counts = draw(gl_context, shot(*objects, ambient=0.3, shader=None),
                         one_by_one=True)
    assert counts == [1] * 120
    assert np.array_equal(many, alone) and many.any(-1).sum() > 1000


def test_the_levels_follow_the_size_on_the_picture():
    """8 segments to a radius of 0.32 px, ... 128 to 83 px, the full 256 past it (0.04 px
    from the circle at 540 px, a 1080p close-up); a torus's tube asks for its own 4x."""
    reach = [2 * 0.025 * n * n / math.pi**2 for n in SEGMENTS]
    assert [round(r, 2) for r in reach] == [0.32, 1.3, 5.19, 20.75, 83.0, 332.01]
    assert [round_level("cylinder", r) for r in (0.3, 1.0, 5.0, 20, 80, 300, 540)] == [
        "cylinder:8", "cylinder:16", "cylinder:32", "cylinder:64", "cylinder:128",
        "cylinder", "cylinder"]
    assert round_level("torus:0.5", 20.0) == "torus:0.5:128"  # as a circle of 40 px
    assert round_level("torus:0.2", 20.0) == "torus:0.2:64"
    assert 540 * math.pi**2 / (2 * 256**2) == pytest.approx(0.0407, abs=1e-4)
    assert [len(mesh(f"cylinder:{n}")[1]) // 3 for n in (8, 16)] == [48, 96]
    assert len(mesh("cylinder")[1]) // 3 == 6 * 256


def test_a_far_small_cone_draws_fewer_segments_a_near_cylinder_all(gl_context):
    """In perspective (166.7 px a metre at 1 m): a cone of 0.1 m 45 m away, 0.37 px,
    draws 16 segments, a cylinder 2 m from the eye all 256; two tori 0.3 m out, 11.6 px,
    64, where the one whose tube is half of that (0.15 of 0.3) asks 128, as its ring of 23
    px would."""
    objects = (hf.Cone(position=(1, 0, -40), radius=0.1),
               hf.Cylinder(position=(0, 0, 3), radius=0.5, height=0.3),
               hf.Torus(position=(0.6, 0.6, 0), radius=0.24, tube=0.06),
               hf.Torus(position=(0.6, 0.6, 0), radius=0.15, tube=0.15))
    scene = shot(*objects, shader=None)
    scene.setup()
    scene.camera.orthographic = False
    renderer = SceneRenderer(gl_context(size=(S, S)).ctx, scene, (S, S), False)
    lens = renderer._pixels_a_metre()
    assert lens[2] == pytest.approx(166.67, abs=0.01)
    assert [renderer.geometries([o], [o.world_matrix()], lens)[0] for o in objects] == [
        "cone:16", "cylinder", "torus:0.2:64", "torus:0.5:128"]
    renderer.release()


@pytest.mark.parametrize("kind", ["cylinder", "cylinder:8", "cone", "cone:16", "torus:0.25",
                                  "torus:0.5:16", "torus:0.1:8"])
def test_the_faces_wind_as_the_spheres_outward(kind):
    """Every face (not one squeezed to a line, at an axis) turns clockwise seen from
    outside, as the sphere's, which the translucent pass culls by (its far side first)."""
    def turns(geometry):
        v, i = mesh(geometry)
        p, n = v[:, :3][i.reshape(-1, 3)].astype(float), v[:, 3:][i.reshape(-1, 3)].sum(1)
        c = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
        return np.sign(np.einsum("ij,ij->i", c, n)[np.linalg.norm(c, axis=1) > 1e-9])

    assert set(turns("sphere").tolist()) == {-1.0}
    assert set(turns(kind).tolist()) == {-1.0}


def test_a_tube_changed_in_update_keeps_few_meshes_on_the_gpu(gl_context):
    """A torus's mesh is one a ratio of tube to radius: 100 ratios drawn keep the 48 most
    recently used geometries' buffers (was: every one, 1.6 MB a full torus, to the end)."""
    from hfrender.renderer.instances import KEPT

    ring = hf.Torus(radius=0.5, tube=0.1)
    scene = shot(ring, shader=None)
    scene.setup()
    renderer = SceneRenderer(gl_context(size=(S, S)).ctx, scene, (S, S), False)
    renderer.prepare()
    for k in range(100):
        ring.tube = 0.1 + 0.002 * k
        renderer.draw(0.0, 0)
    assert len(renderer.instances.buffers) == KEPT == 48
    assert ring.geometry == "torus:0.3734"  # 0.298 / 0.798, to 4 digits
    assert list(renderer.instances.buffers)[-1] == "torus:0.3734:128"  # (its level)
    assert {g for _, g in renderer.instances.vaos} <= set(renderer.instances.buffers)
    renderer.release()


def test_manims_size_names_say_hfrenders():
    with pytest.raises(AttributeError) as excinfo:
        hf.Torus().minor_radius = 0.1
    assert str(excinfo.value) == ("Torus has no attribute 'minor_radius'; minor_radius is "
                                  "another tool's name (Blender's, manim's): here it is "
                                  "'tube'")
    with pytest.raises(AttributeError, match=r"; base_radius is another tool's name "
                                             r"\(Blender's, manim's\): here it is 'radius'$"):
        hf.Cone().base_radius  # noqa: B018 - the read is the test


def test_a_cube_is_drawn_as_it_is_without_working_out_a_level():
    """A cube's or plane's geometry comes back before any matrix work (a review: 1.75 us
    against 0.09 an object a sub-frame, 1.7 ms a sub-frame for 1,000 cubes)."""
    from hfrender.renderer.levels import levels

    assert levels(["cube", "plane"], None, None, False) == ["cube", "plane"]  # (no matrix)


def test_the_in_view_box_of_a_torus_is_worked_out_not_meshed(monkeypatch):
    """The view check takes a round shape's box from its size (was: its full mesh made,
    7 ms for each torus of another ratio); the same box as the mesh's."""
    from hfrender.scene import in_view

    full = mesh("torus:0.3333")[0][:, :3]

    def meshing(kind):
        raise AssertionError(f"{kind} meshed")

    monkeypatch.setattr(in_view, "mesh", meshing)
    in_view._built_in.cache_clear()
    box = in_view._built_in("torus:0.3333")
    assert np.allclose(box, [full.min(0), full.max(0)], atol=1e-6)
