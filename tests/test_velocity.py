"""The velocity plane: each pixel's screen motion, from the scene's own motion.

Checked against central finite differences of projected surface points over one sub-frame
interval (the motion the reconstruction warps along), for a translating object, a rotating
one and a moving camera; zero for a still scene.
"""

import math

import numpy as np
import pytest

import hfrender as hf
from hfrender.engine.draw import SubframeDrawer
from hfrender.renderer.renderer import SceneRenderer

W, H = 160, 96
INTERVAL = 1 / 240  # one sub-frame interval: 8 samples over 180 degrees at 30 fps


class Slide(hf.Scene):
    """A cube sliding right and up, in front of a still plane."""

    def setup(self):
        self.add(hf.Plane(position=(0, 0, -1), scale=8, color=(0.3, 0.3, 0.3)))
        self.box = self.add(hf.Cube(scale=0.6, color=(0.9, 0.2, 0.1)))
        self.camera.position = (0, 0, 4)
        self.camera.look_at((0, 0, 0))

    def update(self, t):
        self.box.position = (-1.0 + 3.0 * t, 0.4 * t, 0.2 * math.sin(3 * t))


class Spin(Slide):
    """A bar turning about the view axis at 2 turns a second, tilted a little."""

    def setup(self):
        super().setup()
        self.box.scale = (1.6, 0.3, 0.1)

    def update(self, t):
        self.box.position = (0.1, -0.1, 0)
        self.box.rotation = (0.3, 0.0, 2 * math.pi * 2 * t)


class Dolly(Slide):
    """A still cube; the camera moves sideways and towards it."""

    def update(self, t):
        self.box.position = (0.2, 0.1, 0)
        x = 6.0 * (t - 0.4)
        self.camera.position = (x, 0.2, 4 - 3.0 * t)
        self.camera.look_at((x * 0.9, 0.1, 0))


class Still(Slide):
    def update(self, t):
        self.box.position = (0.3, -0.2, 0)


def _draw(ctx, scene, t):
    """(velocity plane (H, W, 2), renderer) of the scene drawn at ``t``."""
    scene.setup()
    renderer = SceneRenderer(ctx, scene, (W, H), True, with_velocity=True)
    scene.update(t)
    drawer = SubframeDrawer(scene, renderer, None, None, None, "off", True)
    renderer.draw(t, 0, clip_rates=drawer._clip_rates(t, 0, (0.0, 0.0), (0.0, 0.0)))
    color = np.empty((H, W, 4), np.uint8)
    depth = np.empty((H, W), np.float32)
    velocity = np.empty((H, W, 2), np.float32)
    renderer.read_into(color, depth, velocity)
    return velocity, renderer


def _pixel(clip_matrix, local):
    clip = clip_matrix @ np.append(local, 1.0)
    ndc = clip[:2] / clip[3]
    return np.array([(ndc[0] + 1) / 2 * W, (ndc[1] + 1) / 2 * H])


def _displacement(scene, renderer, obj, local, t):
    """Where ``local`` (a point of ``obj``) moves on screen over one interval around t."""
    index = scene.objects.index(obj)
    ends = []
    for when in (t - INTERVAL / 2, t + INTERVAL / 2):
        scene.update(when)
        ends.append(_pixel(renderer.clip_matrices()[index], local))
    scene.update(t)
    return ends[1] - ends[0], _pixel(renderer.clip_matrices()[index], local)


def _front_points(rng, count):
    """Points on the front face (+z) of a unit cube, away from its edges."""
    xy = rng.uniform(-0.35, 0.35, (count, 2))
    return np.column_stack([xy, np.full(count, 0.5)])


@pytest.mark.parametrize("scene_cls", [Slide, Spin, Dolly])
def test_velocity_matches_finite_differences_of_projected_points(gl_context, rng, scene_cls):
    glctx = gl_context(size=(W, H))
    scene = scene_cls()
    t = float(rng.uniform(0.3, 0.5))
    velocity, renderer = _draw(glctx.ctx, scene, t)
    checked = 0
    largest = 0.0
    for local in _front_points(rng, 12):
        moved, at = _displacement(scene, renderer, scene.box, local, t)
        x, y = int(at[0]), int(at[1])
        if not (0 <= x < W and 0 <= y < H):
            continue
        got = velocity[y, x].astype(np.float64) * INTERVAL
        # the pixel's centre is up to half a pixel from the point: on a rotating or
        # approaching surface its motion differs by that much times the rate of change
        assert np.abs(got - moved).max() <= 0.1, (local, got, moved)
        largest = max(largest, float(np.abs(moved).max()))
        checked += 1
    assert checked >= 8
    assert largest > 0.5  # the motion is real: over half a pixel per sub-frame interval
    renderer.release()


def test_background_and_still_objects_have_no_velocity(gl_context):
    glctx = gl_context(size=(W, H))
    velocity, renderer = _draw(glctx.ctx, Still(), 0.3)
    assert not velocity.any()
    renderer.release()
    velocity, renderer = _draw(glctx.ctx, Slide(), 0.3)
    moving = np.abs(velocity).max(axis=-1) > 0
    # only the cube moves: a patch of the picture, not the plane behind it
    assert 0.02 < moving.mean() < 0.3
    renderer.release()


def test_rates_pair_each_object_with_itself_when_one_is_added_or_removed(rng):
    """An object inserted at the front between t - h and t + h must not shift every other
    object's pairing; one that exists at only one of the times has no motion."""
    from hfrender.renderer.clip_motion import clip_rates

    a, b, c, new = (object() for _ in range(4))
    before = rng.normal(size=(3, 4, 4))
    motion = rng.normal(size=(3, 4, 4))
    after = np.concatenate([rng.normal(size=(1, 4, 4)), before + motion])  # new first
    rates = clip_rates(before, after, 0.5, ([a, b, c], [new, a, b, c], [new, a, b, c]))
    assert rates.shape == (4, 4, 4)
    np.testing.assert_array_equal(rates[0], np.zeros((4, 4)))  # new: not there before
    np.testing.assert_allclose(rates[1:], motion / 0.5)
    # c removed after t: drawn objects a, b keep their own rates
    gone = clip_rates(before, (before + motion)[:2], 0.5, ([a, b, c], [a, b], [a, b]))
    np.testing.assert_allclose(gone, motion[:2] / 0.5)
    # the same count: by place (objects made afresh in every update keep their order)
    fresh = clip_rates(before, before + motion, 0.5, ([a, b, c], [new, a, b], [a, b, c]))
    np.testing.assert_allclose(fresh, motion / 0.5)
