"""Easing for scene authors: rate functions (manim's names and curves), lerp, keyframes."""

import logging
import math

import numpy as np
import pytest
from render_helpers import linear as to_linear
from render_helpers import render_frames
from test_render import write_scene

import hfrender as hf
from hfrender.scene.loader import load_scene
from hfrender.scene.ready import first_look, set_up

RATES = ("linear", "smooth", "ease_in", "ease_out", "ease_in_out", "there_and_back",
         "rush_into", "rush_from")


# manim's definitions (manim/utils/rate_functions.py, ManimCommunity), as it writes them
def _sigmoid(x):
    return 1.0 / (1 + math.exp(-x))


def manim_smooth(t, inflection=10.0):
    error = _sigmoid(-inflection / 2)
    return min(max((_sigmoid(inflection * (t - 0.5)) - error) / (1 - 2 * error), 0), 1)


MANIM = {
    "smooth": manim_smooth,
    "rush_into": lambda t, k=10.0: 2 * manim_smooth(t / 2.0, k),
    "rush_from": lambda t, k=10.0: 2 * manim_smooth(t / 2.0 + 0.5, k) - 1,
    "there_and_back": lambda t, k=10.0: manim_smooth(2 * t if t < 0.5 else 2 * (1 - t), k),
}
FORMULAS = {"linear": lambda s: s, "ease_in": lambda s: s * s,
            "ease_out": lambda s: 1 - (1 - s) ** 2, "ease_in_out": lambda s: 3 * s**2 - 2 * s**3}


@pytest.mark.parametrize("name", sorted(MANIM))
@pytest.mark.parametrize("inflection", [10.0, 4.0])
def test_manims_curves_are_manims_formula(name, inflection, rng):
    fn = getattr(hf, name)
    for s in rng.uniform(0, 1, 200):
        assert fn(float(s), inflection=inflection) == pytest.approx(
            MANIM[name](float(s), inflection), abs=1e-12)


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_the_other_curves_are_their_formula(name, rng):
    s = rng.uniform(0, 1, 200)
    np.testing.assert_allclose(getattr(hf, name)(s), FORMULAS[name](s), rtol=0, atol=1e-15)


def test_smooth_is_manims_sigmoid_not_the_smoothstep():
    assert hf.smooth(0.25) == pytest.approx(0.0701037165, abs=1e-10)  # manim_smooth(0.25)
    assert hf.ease_in_out(0.25) == 0.15625  # the smoothstep
    assert hf.smooth(0.5) == hf.ease_in_out(0.5) == 0.5


@pytest.mark.parametrize("name", RATES)
def test_endpoints_are_exact_and_s_is_clamped(name):
    fn = getattr(hf, name)
    end = 0.0 if name == "there_and_back" else 1.0
    assert (fn(0.0), fn(1.0)) == (0.0, end)
    assert (fn(-3.0), fn(7.5), fn(-math.inf), fn(math.inf)) == (0.0, end, 0.0, end)
    assert type(fn(0.3)) is float and type(fn(np.float32(0.3))) is float
    out = fn(np.array([[-1.0, 0.0], [1.0, 2.0]]))
    assert out.shape == (2, 2) and out.tolist() == [[0.0, 0.0], [end, end]]


@pytest.mark.parametrize("name", RATES)
def test_monotonic_where_it_should_be(name):
    fn = getattr(hf, name)
    s = np.linspace(0, 1, 2001)
    y = fn(s)
    if name == "there_and_back":
        up, down = np.diff(y[:1001]), np.diff(y[1000:])
        assert (up >= 0).all() and (down <= 0).all() and fn(0.5) == 1.0
        np.testing.assert_allclose(y, y[::-1], atol=1e-15)
    else:
        assert (np.diff(y) >= 0).all() and y.min() == 0.0 and y.max() == 1.0


def test_rate_functions_refuse_what_is_no_number():
    with pytest.raises(hf.InputTypeError) as exc:
        hf.smooth("half")
    assert str(exc.value) == ("smooth: s='half' must be a number 0..1, or an array of them "
                              "(clamped to 0..1)")
    with pytest.raises(hf.InputError) as exc:
        hf.ease_in(np.array([0.5, np.nan]))
    assert str(exc.value) == ("ease_in: s=[0.5, nan] is NaN; a rate function takes numbers "
                              "0..1 (clamped to 0..1)")
    with pytest.raises(hf.InputError) as exc:
        hf.rush_into(0.5, inflection=-1)
    assert str(exc.value) == "rush_into: inflection=-1 must be a finite number > 0"


def test_lerp_numbers_tuples_and_arrays(rng):
    a, b, s = rng.uniform(-5, 5, 3), rng.uniform(-5, 5, 3), float(rng.uniform(0, 1))
    assert hf.lerp(float(a[0]), float(b[0]), s) == pytest.approx(a[0] + (b[0] - a[0]) * s)
    got = hf.lerp(tuple(a), tuple(b), s)
    assert type(got) is tuple and got == pytest.approx(tuple(a + (b - a) * s))
    assert hf.lerp(tuple(a), tuple(b), 0.0) == tuple(a)  # exact at the ends
    assert hf.lerp(tuple(a), tuple(b), 1.0) == tuple(b)
    assert isinstance(hf.lerp(a, b, s), np.ndarray)
    many = hf.lerp((0, 0, 0), (1, 2, 4), np.array([0.0, 0.5, 1.0]))
    assert many.tolist() == [[0, 0, 0], [0.5, 1, 2], [1, 2, 4]]
    assert hf.lerp(0, 10, 1.5) == 15.0  # s is not clamped
    assert hf.lerp(2, 4, hf.smooth(0.5)) == 3.0


def test_lerp_refuses_shapes_apart_and_non_numbers():
    with pytest.raises(hf.InputError) as exc:
        hf.lerp((0, 0), (1, 2, 3), 0.5)
    assert str(exc.value) == ("lerp: a=(0, 0) and b=(1, 2, 3) must have the same shape (got "
                              "(2,) and (3,))")
    with pytest.raises(hf.InputTypeError) as exc:
        hf.lerp("red", (1, 0, 0), 0.5)
    assert str(exc.value) == ("lerp: a='red' must be a number, or a tuple or array of numbers "
                              "(a position, a colour as 3 numbers 0..1)")
    with pytest.raises(hf.InputError) as exc:
        hf.lerp(0, 1, math.nan)
    assert str(exc.value) == ("lerp: s=nan must be finite (no NaN or inf): a number (0 at a, 1 "
                              "at b) or an array of them")


KEYS = {3.0: (2, 1, 0), 0.0: (0, 0, 0), 1.5: (2, 0, 0)}  # not in order


def test_keyframes_hold_before_and_after_and_hit_each_key():
    path = hf.Keyframes(KEYS)
    for t, want in ((-2.0, (0, 0, 0)), (0.0, (0, 0, 0)), (1.5, (2, 0, 0)), (3.0, (2, 1, 0)),
                    (99.0, (2, 1, 0))):
        got = path(t)
        assert type(got) is tuple and got == want
    assert repr(path) == ("Keyframes({0: (0.0, 0.0, 0.0), 1.5: (2.0, 0.0, 0.0), 3: (2.0, 1.0, "
                          "0.0)}, ease=linear)")


@pytest.mark.parametrize("ease", ["linear", "smooth", "ease_in", "rush_from"])
def test_keyframes_interpolate_each_stretch_through_the_ease(ease, rng):
    fn = getattr(hf, ease)
    path = hf.Keyframes(KEYS, ease=fn)
    for t in rng.uniform(0, 3, 50):
        t = float(t)
        s = fn(t / 1.5) if t < 1.5 else fn((t - 1.5) / 1.5)
        want = (2 * s, 0, 0) if t < 1.5 else (2, s, 0)
        assert path(t) == pytest.approx(want, abs=1e-12)
        assert hf.keyframes(KEYS, t, ease=fn) == path(t)


def test_keyframes_of_numbers_arrays_one_key_and_a_users_ease():
    assert hf.keyframes({0: 1.0, 2: 3.0}, 1.0) == 2.0
    assert hf.keyframes({0: 1.0, 2: 3.0}, 1.0, ease=lambda s: s**3) == 1.25
    assert hf.keyframes({5.0: 0.25}, -1.0) == hf.keyframes({5.0: 0.25}, 9.0) == 0.25
    got = hf.keyframes({0: np.zeros((2, 2)), 1: np.ones((2, 2))}, np.float64(0.25))
    assert isinstance(got, np.ndarray) and got.tolist() == [[0.25, 0.25], [0.25, 0.25]]


@pytest.mark.parametrize("keys,ease,t,kind,message", [
    ({}, hf.linear, 0.0, hf.InputTypeError, "keyframes: keys={} must be a dict of time: value "
     "with at least one key, such as {0.0: (0, 0, 0), 1.5: (2, 0, 0)}"),
    ([(0, 1)], hf.linear, 0.0, hf.InputTypeError, "keyframes: keys=[(0, 1)] must be a dict of "
     "time: value with at least one key, such as {0.0: (0, 0, 0), 1.5: (2, 0, 0)}"),
    ({0: (0, 0, 0), 1.5: (1, 2)}, hf.linear, 0.0, hf.InputError, "keyframes: keys[1.5]=(1, 2) "
     "has shape (2,) where keys[0]=(0, 0, 0) has (3,); every key's value must have the same "
     "shape"),
    ({0: 0.0, math.nan: 1.0}, hf.linear, 0.0, hf.InputError, "keyframes: a key's time=nan "
     "must be a finite number of seconds"),
    ({0: 0.0, math.inf: 1.0}, hf.linear, 0.0, hf.InputError, "keyframes: a key's time=inf "
     "must be a finite number of seconds"),
    ({0: "red", 1: "blue"}, hf.linear, 0.0, hf.InputTypeError, "keyframes: keys[0]='red' must "
     "be a number, or a tuple or array of numbers (a position, a colour as 3 numbers 0..1)"),
    ({0: 0.0, 1: 1.0}, "smooth", 0.0, hf.InputTypeError, "keyframes: ease='smooth' must be a "
     "function of s (0..1) such as hf.smooth or hf.linear"),
    ({0: 0.0, 1: 1.0}, hf.linear, math.nan, hf.InputError, "keyframes: t=nan must be a finite "
     "number of seconds"),
    ({0: 0.0, 1: 1.0}, str, 0.5, hf.InputError, "keyframes: ease=<class 'str'> gave '0.5' at "
     "s=0.5; it must give a finite number (0 at s = 0, 1 at s = 1)"),
])
def test_keyframes_refuse_bad_input_in_one_line(keys, ease, t, kind, message):
    with pytest.raises(kind) as exc:
        hf.keyframes(keys, t, ease=ease)
    assert str(exc.value) == message


def test_the_names_load_from_hfrender_and_the_missing_ones_still_hint():
    assert hf.smooth is hf.scene.easing.smooth and hf.Keyframes is hf.scene.easing.Keyframes
    assert {"smooth", "lerp", "Keyframes", "keyframes"} <= set(dir(hf))
    with pytest.raises(AttributeError) as exc:
        hf.smoothstep  # noqa: B018 - the lookup is the test
    assert str(exc.value) == ("module 'hfrender' has no attribute 'smoothstep'; hf.ease_in_out "
                              "is the smoothstep, 3 s**2 - 2 s**3")
    with pytest.raises(AttributeError, match=r"'interpolate'; did you mean hf\.lerp\?$"):
        hf.interpolate  # noqa: B018


SCENE = """
class Slide(hf.Scene):
    duration = 1.0
    background = (0, 0, 0)
    ambient = 1.0

    def setup(self):
        self.ball = self.add(hf.Sphere(radius=0.3, color=(1, 1, 1)))
        self.path = hf.Keyframes({{0.0: (-1.5, -0.5, 0), 1.0: (1.5, 0.6, 0)}}, ease=hf.smooth)
        self.n = 0

    def update(self, t):
        self.ball.position = self.path(t){impure}
        self.ball.color = hf.lerp((1, 1, 1), (0.5, 1, 0.5), hf.there_and_back(t))
"""


def test_a_scene_that_eases_is_pure_for_the_scene_check(tmp_path, caplog):
    """first_look updates at several times and sets the scene up twice: nothing said of a
    scene whose state comes from Keyframes and rate functions (and the check is awake: the
    same scene keeping a count is told)."""
    for impure, said in (("", False), ("\n        self.n += 1; self.ball.scale = self.n", True)):
        caplog.clear()
        path = write_scene(tmp_path, SCENE.format(impure=impure))
        scene = load_scene(path)
        with caplog.at_level(logging.WARNING):
            set_up(scene)
            first_look(scene, 3, 10.0, size=(96, 54))
        assert ("not a pure function of t" in caplog.text) is said, caplog.text
        assert "setup() gives another scene" not in caplog.text


def test_a_keyframed_ball_is_drawn_where_its_keys_put_it(tmp_path):
    """Rendered at 96x54, one sample a frame: the ball's brightness centroid is the
    keyframed position projected through the scene's camera (not the linear in-between)."""
    path = write_scene(tmp_path, SCENE.format(impure=""))
    frames, _ = render_frames(path, size=(96, 54), fps=10, samples=1, antialias=False)
    scene = load_scene(path)
    set_up(scene)
    to_clip = scene.camera.projection(96 / 54) @ scene.camera.view_matrix()
    lin = to_linear(frames).mean(axis=-1)
    ys, xs = np.indices(lin.shape[1:]) + 0.5  # pixel centres
    for k in (0, 3, 5, 8):
        t = k / 10
        clip = to_clip @ np.array([*scene.path(t), 1.0])
        want = ((clip[0] / clip[3] + 1) / 2 * 96, (clip[1] / clip[3] + 1) / 2 * 54)
        m = lin[k].sum()
        got = ((lin[k] * xs).sum() / m, (lin[k] * ys).sum() / m)
        assert got == pytest.approx(want, abs=0.3), (k, got, want)
        lin_x = -1.5 + 3 * t  # where a linear move would put it: pixels away mid-way
        if k in (3, 8):
            assert abs(scene.path(t)[0] - lin_x) > 0.3


def test_the_guides_example_runs_as_it_says():
    """docs/rendering.md's Easing and keyframes example: its comments are what it gives."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "rendering.md").read_text()
    section = text[text.index("## Easing and keyframes"):]
    code = section[section.index("```python\n") + 10:section.index("```\n", 10)]
    space = {"hf": hf}
    exec(code, space)  # noqa: S102 - the guide's own example
    scene = space["Slide"]()
    scene.setup()
    for t, position, scale in ((0.0, (0, 0, 0), 1.0), (1.5, (2, 0, 0), 1.375),
                               (3.0, (2, 1, 0), 1.5)):
        scene.update(t)
        assert (scene.ball.position, scene.ball.scale) == (position, scale)
    scene.update(0.5)
    assert scene.ball.scale == 1.0


def test_the_curves_picture_is_the_scripts():
    """docs/images/easing_curves.png is what benchmarks/easing_curves.py draws now."""
    import sys
    from pathlib import Path

    import imageio.v3 as iio

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "benchmarks"))
    from easing_curves import draw

    committed, drawn = iio.imread(root / "docs" / "images" / "easing_curves.png"), draw()
    assert committed.shape == drawn.shape == (316, 620, 3)
    apart = np.abs(committed.astype(int) - drawn)  # (a last bit of tanh may move a stamp)
    assert apart.max() <= 32 and (apart > 0).mean() < 1e-3


def test_a_tensor_that_requires_grad_or_a_masked_array_is_named_as_its_argument():
    """Was: 'value (torch.Tensor) requires grad: pass value.detach()' and 'give
    value.filled(v)': real_array called without the argument's name (a review's find)."""
    torch = pytest.importorskip("torch")
    grad = torch.tensor(0.25, requires_grad=True)
    with pytest.raises(hf.InputTypeError) as info:
        hf.smooth(grad)
    assert str(info.value) == ("smooth: s (torch.Tensor) requires grad: pass s.detach() (its "
                               "values are read; no gradient flows back)")
    with pytest.raises(hf.InputError) as info:
        hf.lerp(np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0]), (0, 0, 0), 0.5)
    assert str(info.value) == ("lerp: a is a masked array with 1 of 3 values masked; hfrender "
                               "reads every value, the masked ones too: give a.filled(v), v "
                               "what they stand for")
    with pytest.raises(hf.InputTypeError) as info:
        hf.Keyframes({0.0: 1.0, 1.5: grad})
    assert str(info.value) == ("keyframes: keys[1.5] (torch.Tensor) requires grad: pass "
                               "keys[1.5].detach() (its values are read; no gradient flows "
                               "back)")
    assert hf.lerp(0.0, 4.0, grad.detach()) == 1.0  # (detached: its value)
