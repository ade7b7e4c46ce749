"""Objects with an opacity: blended over what lies behind them in linear light, back to
front, after the opaque ones; 0 is not drawn, 1 is drawn as an opaque object always was."""

import logging
import math
import subprocess
import sys

import imageio.v3 as iio
import numpy as np
import pytest

import hfrender as hf
from hfrender.errors import InputError
from hfrender.renderer import translucent
from hfrender.scene import past_white
from hfrender.scene.in_view import nothing_seen
from tests.render_helpers import render_frames

FLAT = "vec3 shade(vec3 normal, vec3 world, vec3 color) { return color; }\n"
SCENE = '''
import hfrender as hf

class Squares(hf.Scene):
    duration = {duration}
    background = {background}
    def setup(self):
        self.camera.position = (0, 0, 5)
        self.camera.look_at((0, 0, 0))
        self.camera.orthographic = True
        self.camera.ortho_height = 2.0
{body}
    def update(self, t):
{update}
'''


def _scene(tmp_path, body, update="        pass", background="(0.0, 0.0, 1.0)", duration=0.2,
           name="squares.py"):
    (tmp_path / "flat.glsl").write_text(FLAT)
    path = tmp_path / name
    path.write_text(SCENE.format(body=body, update=update, background=background,
                                 duration=duration))
    return path


def _code(linear):
    """The 8-bit sRGB code of linear light ``linear`` (0..1), from the formula."""
    v = linear * 12.92 if linear <= 0.0031308 else 1.055 * linear ** (1 / 2.4) - 0.055
    return int(math.floor(v * 255 + 0.5))


def _square(name, x, z, color, opacity, scale=1.0):
    return (f"        self.{name} = self.add(hf.Plane(position=({x}, 0, {z}), scale={scale}, "
            f"color={color}, shader='flat', opacity={opacity}))\n")


@pytest.mark.parametrize("msaa", [1, 4])
@pytest.mark.parametrize("hdr", ["off", "on"])
def test_half_red_over_blue_is_mixed_in_linear_light(tmp_path, hdr, msaa):
    frames, _ = render_frames(_scene(tmp_path, _square("red", 0, 0, "(1.0, 0.0, 0.0)", 0.5)),
                              count=1, size=(64, 36), samples=2, hdr=hdr, msaa=msaa)
    mixed = _code(0.5)  # 0.5 red + 0.5 blue, each linear 1: not 128 (a mix of codes)
    assert mixed == 188
    assert frames[0, 18, 32].tolist() == [mixed, 0, mixed]
    assert frames[0, 2, 2].tolist() == [0, 0, 255]  # the background, untouched


def test_overlapping_squares_sort_back_to_front_whatever_the_scene_order(tmp_path):
    near = _square("green", 0.3, 0.5, "(0.0, 1.0, 0.0)", 0.5)
    far = _square("red", -0.3, 0.0, "(1.0, 0.0, 0.0)", 0.5)
    first, _ = render_frames(_scene(tmp_path, far + near, name="a.py"), count=1,
                             size=(64, 36), samples=2)
    second, _ = render_frames(_scene(tmp_path, near + far, name="b.py"), count=1,
                              size=(64, 36), samples=2)
    assert np.array_equal(first, second)
    # green over red over blue: green 0.5, red 0.5 * 0.5, blue 0.5 * 0.5
    assert first[0, 18, 32].tolist() == [_code(0.25), _code(0.5), _code(0.25)]
    assert first[0, 18, 20].tolist() == [_code(0.5), 0, _code(0.5)]  # red alone


@pytest.mark.parametrize("hdr", ["off", "on"])
def test_squares_of_two_opacities_are_one_draw_each_at_its_own(tmp_path, monkeypatch, hdr):
    """Red at 0.3 under green at 0.7, one shape and shader: one run (was a draw each: the
    opacity a uniform), each square blended at its own opacity over blue."""
    seen, real = [], translucent.runs
    monkeypatch.setattr(translucent, "runs", lambda *a: seen.append(real(*a)) or seen[-1])
    far = _square("red", -0.3, 0.0, "(1.0, 0.0, 0.0)", 0.3)
    near = _square("green", 0.3, 0.5, "(0.0, 1.0, 0.0)", 0.7)
    frames, _ = render_frames(_scene(tmp_path, near + far), count=1, size=(64, 36),
                              samples=2, hdr=hdr)
    assert seen and all([len(items) for _, items in found] == [2] for found in seen)
    # red 0.3 over blue: (0.3, 0, 0.7); green 0.7 over that: (0.09, 0.7, 0.21)
    assert frames[0, 18, 32].tolist() == [_code(0.09), _code(0.7), _code(0.21)]
    assert frames[0, 18, 20].tolist() == [_code(0.3), 0, _code(0.7)]  # red alone
    assert frames[0, 18, 42].tolist() == [0, _code(0.7), _code(0.3)]  # green alone


def test_translucent_children_sort_by_where_their_parents_put_them(tmp_path):
    """The green square's own z is behind the red one's, its group's brings it in front:
    it is sorted as drawn, green over red (as by its place in the world)."""
    group = "        self.lift = hf.Group(position=(0, 0, 1.0))\n"
    near = _square("green", 0.3, -0.5, "(0.0, 1.0, 0.0)", 0.5).replace(
        "opacity=0.5)", "opacity=0.5, parent=self.lift)")
    far = _square("red", -0.3, 0.0, "(1.0, 0.0, 0.0)", 0.5)
    frames, _ = render_frames(_scene(tmp_path, group + near + far), count=1, size=(64, 36),
                              samples=2)
    assert frames[0, 18, 32].tolist() == [_code(0.25), _code(0.5), _code(0.25)]


def test_opacity_1_draws_as_without_it_and_0_draws_nothing(tmp_path):
    lit = "        self.box = self.add(hf.Cube(rotation=(0.4, 0.6, 0), color='orange'{}))\n"
    plain, _ = render_frames(_scene(tmp_path, lit.format(""), name="a.py"), count=1,
                             size=(64, 36), samples=4)
    one, _ = render_frames(_scene(tmp_path, lit.format(", opacity=1.0"), name="b.py"),
                           count=1, size=(64, 36), samples=4)
    hidden, _ = render_frames(_scene(tmp_path, lit.format(", visible=False"), name="c.py"),
                              count=1, size=(64, 36), samples=4)
    zero, _ = render_frames(_scene(tmp_path, lit.format(", opacity=0.0"), name="d.py"),
                            count=1, size=(64, 36), samples=4)
    assert np.array_equal(plain, one)
    assert np.array_equal(hidden, zero)
    assert (zero == [0, 0, 255]).all()
    assert not np.array_equal(plain, zero)


def transparent_still(tmp_path, body):
    """The 64x36 RGBA still ``--transparent`` writes of the scene ``body`` makes."""
    scene = _scene(tmp_path, body, background="None")
    out = tmp_path / "still.png"
    done = subprocess.run([sys.executable, "-m", "hfrender", "still", str(scene), "-o",
                           str(out), "--size", "64x36", "--samples", "2", "--transparent",
                           "-q"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return iio.imread(out)


def test_a_transparent_output_has_the_square_s_coverage_as_alpha(tmp_path):
    png = transparent_still(tmp_path, _square("red", 0, 0, "(1.0, 0.0, 0.0)", 0.5))
    assert png.shape == (36, 64, 4)
    assert abs(int(png[18, 32, 3]) - 127.5) <= 0.5  # alpha 0.5 where the square alone is
    assert png[18, 32, :3].tolist() == [255, 0, 0]  # straight colour: the square's red
    assert png[2, 2, 3] == 0


def test_a_fade_rendered_with_motion_blur_brightens_as_its_opacity(tmp_path, caplog):
    """opacity = t over 1 s: each frame is the mean of its sub-frames, each a real
    picture, so frame k shows red at linear k / 10 over black (a symmetric shutter)."""
    body = _square("red", 0, 0, "(1.0, 0.0, 0.0)", 0.0, scale=3.0)
    scene = _scene(tmp_path, body, update="        self.red.opacity = hf.linear(t)",
                   background="(0.0, 0.0, 0.0)", duration=1.0)
    with caplog.at_level(logging.WARNING):
        frames, _ = render_frames(scene, size=(32, 18), fps=10, samples=8, reconstruct="off")
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    red = frames[:, 9, 16, 0].astype(int)
    expected = [_code(k / 10) for k in range(2, 9)]
    assert np.abs(red[2:9] - expected).max() <= 1, (red, expected)
    assert (np.diff(red) > 0).all()
    assert (frames[..., 1:] == 0).all()


LENS = ("        self.camera.orthographic = False\n        self.camera.f_stop = 2.8\n"
        "        self.camera.focus_distance = 5.0\n")


@pytest.mark.parametrize(("flags", "said"), [
    ({"dof": "depth"}, "--dof depth blurs it by the depth of the opaque surface behind it: "
                       "use --dof lens"),
    ({"reconstruct": "on"}, "--reconstruct moves it as the surface behind it moves: use "
                            "--reconstruct off, with more --samples"),
])
def test_modes_reading_depth_or_velocity_warn_once_a_render(tmp_path, caplog, flags, said):
    body = _square("red", 0, 0, "(1.0, 0.0, 0.0)", 0.5) + \
        LENS
    with caplog.at_level(logging.WARNING):
        render_frames(_scene(tmp_path, body), size=(32, 18), samples=2, **flags)
    told = [r.getMessage() for r in caplog.records if "opacity" in r.getMessage()]
    assert told == ["self.red (a Plane) has opacity 0.5: a translucent object writes no "
                    f"depth or velocity, so {said}"]


@pytest.mark.parametrize(("body", "said"), [
    ("        self.panels = [self.add(hf.Plane(position=(i / 4 - 0.6, 0, 0), scale=0.2, "
     "opacity=0.5)) for i in range(6)]\n",
     "6 translucent objects (self.panels[0], self.panels[1], self.panels[2] and 3 more) have "
     "opacity 0.5"),
    ("        self.add(hf.Plane(position=(0.5, 0, 0), scale=0.5, opacity=0.75))\n"
     "        self.group = self.add(hf.Group(opacity=0.5))\n"
     "        self.a = self.add(hf.Plane(position=(-0.5, 0, 0), scale=0.5, opacity=0.5, "
     "parent=self.group))\n",
     "2 translucent objects (the Plane at (0.5, 0, 0), self.a) have opacity 0.25 to 0.75 "
     "(their groups' in)"),
    ("        self.add(hf.Plane(position=(0.5, 0, 0), opacity=0.5))\n",
     "the Plane at (0.5, 0, 0) has opacity 0.5"),  # one, held under no name: where it is
])
def test_several_translucent_objects_are_counted_and_named_in_one_line(tmp_path, caplog,
                                                                        body, said):
    """Was: the first alone named (six panels: "the Plane at (-0.6, 0, 0) has opacity
    0.5"), as if it were the one."""
    with caplog.at_level(logging.WARNING):
        render_frames(_scene(tmp_path, body + LENS), size=(32, 18), samples=2, dof="depth")
    told = [r.getMessage() for r in caplog.records if "opacity" in r.getMessage()]
    assert told == [f"{said}: a translucent object writes no depth or velocity, so --dof "
                    "depth blurs it by the depth of the opaque surface behind it: use --dof "
                    "lens"]


def test_depth_of_field_by_lens_is_exact_for_a_translucent_object(tmp_path, caplog):
    body = _square("red", 0, 0, "(1.0, 0.0, 0.0)", 0.5, scale=1.5) + \
        LENS
    with caplog.at_level(logging.WARNING):
        frames, _ = render_frames(_scene(tmp_path, body), count=1, size=(64, 36), samples=4,
                                  dof="lens")
    assert not [r for r in caplog.records if "opacity" in r.getMessage()]
    assert frames[0, 18, 32].tolist() == [_code(0.5), 0, _code(0.5)]  # in focus: the mix


@pytest.mark.parametrize(("value", "shown"), [(1.5, "1.5"), ("half", "'half'"),
                                               (math.nan, "nan"), (-0.1, "-0.1")])
def test_a_bad_opacity_is_one_line(value, shown):
    with pytest.raises(InputError) as info:
        hf.Sphere(opacity=value)
    assert str(info.value) == (f"Sphere.opacity={shown} must be a number 0..1 (0 not drawn, "
                               "1 opaque; fade in over 1 s: obj.opacity = hf.linear(t) in "
                               "update(t))")


def test_a_loaded_model_takes_an_opacity_too():
    assert hf.Mesh(opacity=0.25).opacity == 0.25
    assert hf.Cube(opacity=np.float32(0.5)).opacity == 0.5


def test_the_scene_checks_take_opacity_0_as_not_drawn():
    class Lamps(hf.Scene):
        def setup(self):
            self.camera.position = (0, 0, 5)
            self.camera.look_at((0, 0, 0))
            self.gone = self.add(hf.Sphere(emissive=3.0, opacity=0.0))
            self.behind = self.add(hf.Sphere(position=(0, 0, 9)))

    scene = Lamps()
    scene.setup()
    assert nothing_seen(scene, (64, 36)) == ["self.behind (a Sphere) is behind the camera"]
    assert past_white(scene) is None
    scene.gone.opacity = 0.5
    assert nothing_seen(scene, (64, 36)) is None
    assert past_white(scene).startswith("self.gone (a Sphere) with emissive 3")


SHAPE = '''
import hfrender as hf

class Glass(hf.Scene):
    duration = 0.1
    background = (0.0, 0.0, 0.0)
    def setup(self):
        self.camera.position = (0, 0, 4)
        self.camera.look_at((0, 0, 0))
        self.add({shape})
'''


def _shape(tmp_path, shape):
    path = tmp_path / "glass.py"
    path.write_text(SHAPE.format(shape=shape))
    frames, _ = render_frames(path, count=1, size=(160, 160), samples=1, jitter=False)
    return frames[0].astype(int)


def test_a_closed_shapes_near_side_is_laid_over_its_far_side(tmp_path):
    """A translucent sphere or cube shows its far side through its near side: the far
    faces first, then the near ones over them (was: both in the mesh's triangle order, the
    far side laid over the near one in bands across a lit sphere: a jump of 10 codes from
    one row to the next down its middle, 2 now); a mirrored shape the same."""
    sphere = _shape(tmp_path, "hf.Sphere(radius=1.0, color=(0.2, 0.5, 1.0), opacity=0.5)")
    middle = sphere[30:130, 80, 2]  # blue down the middle, inside the outline
    assert np.abs(np.diff(middle, 2)).max() <= 3
    assert middle[-10:].mean() < middle[:10].mean() - 20  # lit from above: its near side
    cube = "hf.Cube(rotation=(0.5, 0.6, 0.0), color=(1.0, 0.2, 0.2), opacity=0.4, scale={})"
    turned = _shape(tmp_path, cube.format("1.5"))
    mirrored = _shape(tmp_path, cube.format("(-1.5, 1.5, 1.5)"))  # the same shape
    assert np.abs(turned - mirrored).max() <= 1 and turned[..., 0].max() > 60


def test_a_closed_shape_at_half_opacity_covers_three_quarters_in_its_middle(tmp_path):
    """docs/rendering.md's fade of a closed shape, measured (a manim user's trial read
    "FadeIn is opacity" and found a sphere at 0.5 brighter than half): its far and near
    sides each cover 0.5, so its middle covers 1 - 0.5**2 = 0.75 in linear light (sRGB
    225 of white over black), where a plane at 0.5 covers 0.5 (188)."""
    flat = SHAPE.replace("    def setup(self):", "    ambient = 1.0\n    def setup(self):")
    codes = {}
    for shape in ("hf.Sphere(radius=1.0", "hf.Cube(scale=1.5", "hf.Plane(scale=1.5"):
        path = tmp_path / "glass.py"
        path.write_text(flat.format(shape=shape + ", color='white', opacity=0.5)"))
        frames, _ = render_frames(path, count=1, size=(160, 160), samples=1, jitter=False)
        codes[shape.split("(")[0]] = frames[0][80, 80, :3].tolist()
    assert codes == {"hf.Sphere": [225] * 3, "hf.Cube": [225] * 3, "hf.Plane": [188] * 3}


def test_a_renderer_of_translucent_objects_leaves_its_context_clean(gl_context):
    """A render of translucent objects left its last framebuffer bound when released: the
    next renderer made on the context (a batch's next job, a still's comparison) got
    GL_INVALID_OPERATION, which GPU interop's buffer check reads as its own failure."""
    from hfrender.renderer.renderer import SceneRenderer

    ctx = gl_context().ctx

    class Glass(hf.Scene):
        def setup(self):
            self.add(hf.Cube(opacity=0.5, rotation=(0.4, 0.5, 0.0)))
            self.camera.position = (0.0, 0.0, 4.0)

    for _ in range(2):
        scene = Glass()
        scene.setup()
        assert ctx.error == "GL_NO_ERROR"
        renderer = SceneRenderer(ctx, scene, (64, 36), True, with_velocity=True)
        assert ctx.error == "GL_NO_ERROR"  # (was GL_INVALID_OPERATION the second time)
        renderer.prepare()
        renderer.draw(0.0, 0)
        renderer.read_into(np.empty((36, 64, 4), np.uint8))
        renderer.release()
        assert ctx.error == "GL_NO_ERROR"
