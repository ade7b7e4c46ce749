"""The soft-shadow probe's widest penumbra (hfrender.engine.penumbra.penumbra_px), found on
the GL side (renderer/penumbra_pass.py), against the way it was found before: the sun's map
read back whole, its 3x3 farthest depth around each pixel's point taken in NumPy. Worked here
by hand from the map read back and the camera's own right, up and forward (not the
matrices the pass is given), on plates held at three heights and a ball."""

import math

import numpy as np
import pytest

import hfrender as hf
from hfrender.engine.penumbra import penumbra_px
from hfrender.renderer.penumbra_pass import PenumbraPass
from hfrender.renderer.renderer import SceneRenderer

W, H, ANGLE = 160, 90, 20
# the pass's width against the map read back: a map depth (24 bits) the sampler makes a
# float may round one float step (3.7e-9 at 0.06) from glGetTexImage's, its metres behind
# so (2e-8 m of 1.9 m, 1.1e-8 of the width, seen); float64 sums alike to 1e-15
TOLERANCE = 1e-6


class Plates(hf.Scene):
    light_direction = (0.3, 1.0, 0.2)
    light_angle = ANGLE
    shadows = True
    shadow_resolution = 1024

    def setup(self):
        self.add(hf.Plane(scale=12, rotation=(-math.pi / 2, 0, 0)))
        for x, height in ((-1.6, 0.4), (0.0, 1.0), (1.6, 1.8)):
            self.add(hf.Cube(position=(x, height, -0.5), scale=(0.7, 0.03, 0.7)))
        self.add(hf.Sphere(radius=0.3, position=(0.2, 0.3, 1.2)))
        self.camera.position = (0.0, 5.0, 6.0)
        self.camera.look_at((0.0, 0.3, 0.0))


def probe(ctx, orthographic):
    scene = Plates()
    scene.setup()
    if orthographic:
        scene.camera.orthographic, scene.camera.ortho_height = True, 4.0
    renderer = SceneRenderer(ctx, scene, (W, H), True, with_velocity=True)
    renderer.prepare()
    renderer.draw(0.0, 0)
    depth = np.empty((H, W), np.float32)
    renderer.read_into(np.empty((H, W, 4), np.uint8), depth, np.empty((H, W, 2), np.float32))
    return renderer, depth


def by_hand(renderer, depth):
    """The widest penumbra as the map read back gives it, and the pixel it is at."""
    cam, shadows = renderer.scene.camera, renderer.shadows
    right, up, forward = cam.basis()
    if cam.orthographic:  # (half the picture's height and width: metres, or a tangent)
        tall = cam.ortho_height / 2
        wide = tall * W / H
    else:
        side, sensor = cam.sensor_fitted(W / H)
        half = sensor / 2 / cam.focal_length_mm
        tall, wide = (half * H / W, half) if side == "horizontal" else (half, half * W / H)
    rows, cols = np.mgrid[0:H, 0:W]  # (row 0 the top of the picture, GL's first)
    across, down = ((cols + 0.5) * 2 / W - 1) * wide, ((rows + 0.5) * 2 / H - 1) * -tall
    z = depth.astype(np.float64)
    scale = 1.0 if cam.orthographic else z
    with np.errstate(invalid="ignore"):  # (sky: inf x 0)
        points = (np.asarray(cam.position) + z[..., None] * forward
                  + (across * scale)[..., None] * right + (down * scale)[..., None] * up)
    to_map, metres, texel = shadows.seen_by
    s, t, r = np.moveaxis(points @ to_map[:3, :3].T + to_map[:3, 3], -1, 0)
    n = shadows.size
    texels = np.frombuffer(shadows.map.read(), np.float32).reshape(n, n)
    edged = np.pad(texels, 1, mode="edge")
    farthest = np.lib.stride_tricks.sliding_window_view(edged, (3, 3)).max(axis=(-2, -1))
    inside = np.isfinite(z) & (s >= 0) & (s < 1) & (t >= 0) & (t < 1)
    i, j = (np.where(inside, t, 0) * n).astype(int), (np.where(inside, s, 0) * n).astype(int)
    behind = (r - farthest[i, j]) * metres
    px = np.where(inside & (behind > texel),
                  behind * 2 * math.tan(math.radians(ANGLE) / 2) * H / 2 / tall / scale, 0.0)
    return float(px.max()), np.unravel_index(np.argmax(px), px.shape)


@pytest.mark.parametrize("orthographic", [False, True], ids=["perspective", "orthographic"])
def test_the_gl_probe_finds_what_the_map_read_back_gives(gl_context, orthographic):
    """The same widest penumbra, to 1e-6 (TOLERANCE), under the
    highest plate (1.8 m up, 1.91 m along the light: 2 x 1.91 m x tan(10 deg) = 0.674 m;
    orthographic, 22.5 px a metre: 15.2 px), at the pixel the pass's plane has it; the
    other plates' and the ball's shadows shaded too."""
    renderer, depth = probe(gl_context(size=(W, H)).ctx, orthographic)
    want, (row, col) = by_hand(renderer, depth)
    along = 1.8 * np.linalg.norm(Plates.light_direction)
    assert along == pytest.approx(1.91, abs=0.005)
    if orthographic:
        assert want == pytest.approx(2 * along * math.tan(math.radians(10)) * H / 4.0, rel=0.02)
    else:
        assert 12 < want < 25
    got = penumbra_px(renderer, depth)
    assert got == pytest.approx(want, rel=TOLERANCE)
    plane = renderer.shadows.penumbra.plane(renderer, 2 * math.tan(math.radians(ANGLE) / 2))
    assert plane[row, col] == got and (plane > 0).sum() > 400
    renderer.release()  # (its pass's framebuffer, bound last, unbound before it goes: the
    SceneRenderer(renderer.ctx, Plates(), (W, H), True).release()  # next one made on the
    # context, as a render's after its hint's probe, got GL_INVALID_OPERATION: the
    # gl_context fixture fails the test on it)


def test_a_still_probe_is_not_found_again_but_a_change_is(gl_context, monkeypatch):
    """A probe of the same map (its ShadowPass's key), camera and depth plane as the last
    gives the last's width without the pass (a still scene's 90 probes a second); the
    highest plate raised to 2.4 m, then the sun turned (its map anew, the depth plane the
    same), then the camera moved nearer are each found anew, as by hand (each wider)."""
    renderer, depth = probe(gl_context(size=(W, H)).ctx, False)
    first = penumbra_px(renderer, depth)
    passes = []
    real = PenumbraPass.plane
    monkeypatch.setattr(PenumbraPass, "plane",
                        lambda self, *args: passes.append(1) or real(self, *args))
    renderer.draw(0.5, 0)
    assert penumbra_px(renderer, depth) == first and passes == []
    scene, last, widths = renderer.scene, depth.copy(), [first]
    changes = [lambda: setattr(scene.objects[3], "position", (1.6, 2.4, -0.5)),
               lambda: setattr(scene, "light_direction", (0.5, 1.0, 0.2)),
               lambda: setattr(scene.camera, "position", (0.0, 4.0, 4.5))]
    for k, change in enumerate(changes):
        change()
        renderer.draw(0.5, 0)
        renderer.read_into(np.empty((H, W, 4), np.uint8), depth,
                           np.empty((H, W, 2), np.float32))
        assert np.array_equal(depth, last) == (k == 1)
        want, _ = by_hand(renderer, depth)
        widths.append(penumbra_px(renderer, depth))
        assert widths[-1] == pytest.approx(want, rel=TOLERANCE) and len(passes) == k + 1
        last = depth.copy()
    assert np.diff(widths).min() > 0.5, widths
    renderer.release()


@pytest.mark.usefixtures("gl_context")
def test_a_gl_without_doubles_finds_it_in_floats(gl_context):
    """GL 3.3 (no double precision in shaders): the pass in floats, the same width to a
    few parts in a million."""
    renderer, depth = probe(gl_context(size=(W, H)).ctx, False)
    want, _ = by_hand(renderer, depth)
    floats = PenumbraPass(renderer.ctx, double=False)
    assert not floats.double and renderer.shadows.penumbra is None
    got = float(floats.plane(renderer, 2 * math.tan(math.radians(ANGLE) / 2)).max())
    assert got == pytest.approx(want, rel=1e-5)
    floats.release()
    renderer.release()


@pytest.mark.parametrize("dark", [{"light_strength": 0.0}, {"light_color": (0.0, 0.0, 0.0)}],
                         ids=["strength-0", "black"])
def test_a_sun_gone_dark_has_no_penumbra(gl_context, dark):
    """A sun that gives no light draws no map (renderer/shadows.py sun_casts): its probe
    is 0 px (was: the last lit map's width, 18.33 px here, read again from it)."""
    renderer, depth = probe(gl_context(size=(W, H)).ctx, False)
    assert penumbra_px(renderer, depth) == pytest.approx(by_hand(renderer, depth)[0],
                                                         rel=TOLERANCE)
    assert penumbra_px(renderer, depth) > 12
    for name, value in dark.items():
        setattr(renderer.scene, name, value)
    renderer.draw(0.5, 0)
    renderer.read_into(np.empty((H, W, 4), np.uint8), depth, np.empty((H, W, 2), np.float32))
    assert penumbra_px(renderer, depth) == 0.0
    assert renderer.shadows.seen_by is None
    renderer.release()
