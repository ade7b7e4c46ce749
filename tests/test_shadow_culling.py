"""Each shadow map's face draws only the casters whose box meets its frustum (hfrender/
renderer/shadows.py: ShadowPass._draw, outside): a point lamp's six faces, a spot's and
the sun's map; the maps bit for bit those drawn with every caster in every face."""

import numpy as np
import pytest
from test_point_shadows import WAYS

import hfrender as hf
from hfrender.renderer import shadows
from hfrender.renderer.instances import InstancedDrawer
from hfrender.renderer.renderer import SceneRenderer

SIZE = (160, 96)


def ring_scene(sun=False, spot=False, point=True):
    """A point lamp of radius 0.05 at the origin, its bulb (0.025 m) around it, a 0.5 m
    cube 2 m out along each of the six axes, a ball (0.3 m) at (2, 2, 0) across the +x
    and +y faces, a 20 m floor 3 m below (behind the +y face); the sun and a spot (at
    (1, -1, 1), down) where asked; the point lamp's shadows off where not ``point``."""

    class Ring(hf.Scene):
        background = (0.0, 0.0, 0.0)
        light_strength = 1.0 if sun else 0.0
        shadows = sun
        light_direction = (0.3, 1.0, 0.2)

        def setup(self):
            for way in WAYS.values():
                self.add(hf.Cube(position=tuple(2.0 * np.asarray(way)), scale=0.5))
            self.add(hf.Sphere(radius=0.3, position=(2.0, 2.0, 0.0)))
            self.add(hf.Plane(scale=20, position=(0, -3, 0), rotation=(-np.pi / 2, 0, 0)))
            self.add(hf.Sphere(radius=0.025, shader="unlit", emissive=1))
            self.add(hf.PointLight(radius=0.05, shadows=point, intensity=4))
            if spot:
                self.add(hf.SpotLight(position=(1.0, -1.0, 1.0), angle=50, shadows=True))
            self.camera.position = (3.0, 4.0, 9.0)
            self.camera.look_at((0.0, 0.0, 0.0))

    scene = Ring()
    scene.setup()
    return scene


def maps_of(glctx, scene):
    """The bytes of each shadow map drawn for ``scene`` at t = 0: the sun's (where it
    casts) and each lamp's, in order."""
    renderer = SceneRenderer(glctx.ctx, scene, SIZE, False)
    renderer.prepare()
    renderer.draw(0.0, 0)
    passes = [renderer.shadows] * bool(scene.shadows) + renderer.shadows.spots
    found = [p.map.read() for p in passes]
    renderer.release()
    return found


@pytest.mark.usefixtures("gl_context")
def test_each_face_of_a_point_lamps_map_draws_only_the_casters_in_its_frustum(
        gl_context, monkeypatch):
    """Each face's objects (instances drawn into its tile), worked by hand: its own axis's
    cube, the ball in +x and +y, the floor in all but +y (wholly behind it); the bulb,
    within the lamp's radius, in none (was: all 9 in each of the 6)."""
    drawn: dict[tuple, int] = {}
    real = InstancedDrawer.draw

    def counted(self, prog, geometry, rows):
        if tuple(self.ctx.viewport[2:]) != SIZE:  # (a map's tile, not the picture)
            drawn[tuple(self.ctx.viewport)] = drawn.get(tuple(self.ctx.viewport), 0) + len(rows)
        real(self, prog, geometry, rows)

    monkeypatch.setattr(InstancedDrawer, "draw", counted)
    glctx = gl_context()
    maps_of(glctx, ring_scene())
    size = next(iter(drawn))[2]
    faces = {(f % 3 * size, f // 3 * size, size, size): way for f, way in enumerate(WAYS)}
    assert {faces[tile]: n for tile, n in drawn.items()} == {
        "+x": 3, "-x": 2, "+y": 2, "-y": 2, "+z": 2, "-z": 2}


@pytest.mark.usefixtures("gl_context")
def test_a_spots_map_draws_only_the_casters_in_its_cone(gl_context, monkeypatch):
    """The spot at (1, -1, 1) shining down (50 degrees) sees the floor alone (was: all 9)."""
    drawn: list[int] = []
    real = InstancedDrawer.draw

    def counted(self, prog, geometry, rows):
        drawn.extend([len(rows)] if self.ctx.viewport[2] == self.ctx.viewport[3] else [])
        real(self, prog, geometry, rows)

    scene = ring_scene(spot=True, point=False)  # (the spot's map alone drawn)
    monkeypatch.setattr(InstancedDrawer, "draw", counted)
    maps_of(gl_context(), scene)
    assert drawn == [1]


@pytest.mark.usefixtures("gl_context")
def test_culled_maps_are_bit_for_bit_those_of_every_caster(gl_context, monkeypatch):
    """The sun's, a spot's and a point lamp's maps of the ring (casters all around the
    lamp, some behind faces, one within its radius) with each face's casters culled and
    with every caster drawn into every face: the same bytes."""
    glctx = gl_context()
    culled = maps_of(glctx, ring_scene(sun=True, spot=True))
    monkeypatch.setattr(shadows, "outside", lambda matrix, boxes, sphere: np.zeros(
        len(boxes), bool))
    every = maps_of(glctx, ring_scene(sun=True, spot=True))
    assert len(culled) == 3 and [len(m) for m in culled] == [len(m) for m in every]
    assert all(np.frombuffer(m, np.float32).min() < 1.0 for m in culled)  # (each drawn)
    assert culled == every
