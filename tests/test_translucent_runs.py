"""Translucent objects drawn in runs: consecutive ones (back to front) of one program,
geometry and culling, whatever their opacities (each instance's own), are one instanced
draw a side, a closed shape's run only while its pictures' bounds meet none before it in
the run; the same pixels, to the bit, as drawn one by one (was: a draw an object, a closed
shape two; and a run cut wherever the opacity changed, opacity a uniform)."""

from __future__ import annotations

import numpy as np
import pytest

import hfrender as hf
from hfrender.renderer import translucent
from tests.test_instances import Particles, _draw


class Grid(hf.Scene):
    """40 translucent objects of one kind on an 8 x 5 grid, their pictures apart (a
    closed shape's) or overlapping (``step`` small), over an opaque plane; ``graded``:
    each at its own opacity (a fade by distance)."""

    kind, step, graded = "cube", 0.9, False

    def setup(self):
        rng = np.random.default_rng(5)
        for k in range(40):
            colour = tuple(rng.uniform(0, 1, 3))
            where = (self.step * (k % 8 - 3.5), self.step * (k // 8 - 2), 0.0)
            opacity = 0.15 + 0.02 * k if self.graded else 0.5
            self.add(hf.Plane(scale=0.6, position=where, color=colour, opacity=opacity)
                     if self.kind == "plane" else
                     hf.Cube(scale=0.4, position=where, color=colour, opacity=opacity,
                             rotation=(0.4, 0.7, 0.0)))
        self.add(hf.Plane(scale=20, position=(0, 0, -4), color=(0.2, 0.3, 0.4)))
        self.camera.position = (0, 0, 6)
        self.camera.look_at((0, 0, 0))


class Planes(Grid):
    kind, step = "plane", 0.4  # overlapping: a plane's run needs no bounds apart


class Touching(Grid):
    step = 0.3  # each cube's picture meets its neighbour's


class Graded(Grid):
    graded = True


class GradedPlanes(Planes):
    graded = True


class Fading(Particles):
    """200 cubes at random places, moving, at one opacity (``graded``: each its own): some
    pictures meet."""

    graded = False

    def setup(self):
        super().setup()
        for k, (obj, _, _) in enumerate(self.dots):
            obj.opacity = 0.2 + 0.003 * k if self.graded else 0.6


class FadingSpheres(Fading):
    kind = "sphere"


class FadingByDistance(Fading):
    graded = True


def _one_by_one(*args):
    """:func:`translucent.runs` cut into runs of one object: the drawing as it was."""
    return [(key, [item]) for key, items in _runs(*args) for item in items]


_runs = translucent.runs


def _ctx(gl_context):
    """A context of its own for each drawing (two renderers drawing translucent objects
    one after the other on one context leave GL_INVALID_OPERATION, before runs too)."""
    return gl_context(size=(160, 90)).ctx


@pytest.mark.parametrize("scene_cls, counts", [
    (Grid, [1, 40, 40]),  # the opaque plane, then the far sides of all, the near sides
    (Planes, [1, 40]),
    (Graded, [1, 40, 40]),  # each its own opacity (was: a run each, [1] * 81)
    (GradedPlanes, [1, 40]),
    # each meeting the one before: runs of one, but a row's last and the next row's first
    (Touching, [1] + [1, 1] * 7 + ([2, 2] + [1, 1] * 6) * 3 + [2, 2] + [1, 1] * 7),
])
def test_translucent_objects_are_a_draw_a_run(gl_context, monkeypatch, scene_cls, counts):
    planes, drawn, _ = _draw(_ctx(gl_context), scene_cls, monkeypatch)
    assert drawn == counts
    monkeypatch.setattr(translucent, "runs", _one_by_one)
    planes1, drawn1, _ = _draw(_ctx(gl_context), scene_cls, monkeypatch)
    assert drawn1 == [1] * sum(counts)  # one by one
    for a, b in zip(planes, planes1, strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("scene_cls", [Fading, FadingSpheres, FadingByDistance])
@pytest.mark.parametrize("msaa", [1, 4])
def test_runs_draw_the_pixels_of_one_draw_an_object(gl_context, monkeypatch, scene_cls,
                                                     msaa):
    """Cubes and spheres at random, some pictures meeting (their runs cut there): the
    colour, depth and velocity planes equal, to the bit, to each drawn alone."""
    (colour, depth, velocity), drawn, _ = _draw(_ctx(gl_context), scene_cls, monkeypatch,
                                                msaa=msaa)
    monkeypatch.setattr(translucent, "runs", _one_by_one)
    (colour1, depth1, velocity1), drawn1, _ = _draw(_ctx(gl_context), scene_cls,
                                                    monkeypatch, msaa=msaa)
    assert sum(drawn) == sum(drawn1) and len(drawn) < len(drawn1) / 2 and max(drawn) > 2
    assert np.array_equal(colour, colour1) and np.array_equal(depth, depth1)
    assert np.array_equal(velocity, velocity1)
    assert len(np.unique(colour.reshape(-1, 4), axis=0)) > 200
