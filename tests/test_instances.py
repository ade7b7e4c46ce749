"""Many objects of one built-in geometry are one instanced draw (was: a draw call and ~6
uniform uploads each, a sub-frame), and draw the same pixels as one draw an object."""

from __future__ import annotations

from collections import Counter

import moderngl
import numpy as np
import pytest

import hfrender as hf
from hfrender.engine.draw import SubframeDrawer
from hfrender.renderer import instances
from hfrender.renderer.renderer import SceneRenderer, _cofactor

W, H = 160, 90
T = 0.3


class Particles(hf.Scene):
    """200 small objects of one kind, moving, seeded, at many distances (a sphere's level
    differs), over a plane."""

    kind = "cube"

    def setup(self):
        rng = np.random.default_rng(11)
        self.dots = []
        for k in range(200):
            colour = tuple(rng.uniform(0, 1, 3))
            shape = (hf.Sphere(radius=0.12, color=colour, emissive=float(k % 3) / 4)
                     if self.kind == "sphere" else
                     hf.Cube(scale=0.2, color=colour, rotation=tuple(rng.uniform(0, 3, 3))))
            centre = (rng.uniform(-4, 4), rng.uniform(-2.2, 2.2), rng.uniform(-3, 1))
            self.dots.append((self.add(shape), centre, rng.uniform(1, 4)))
        self.add(hf.Plane(scale=20, position=(0, 0, -4), color=(0.2, 0.3, 0.4)))
        self.camera.position = (0, 0, 6)
        self.camera.look_at((0, 0, 0))

    def update(self, t):
        for obj, (x, y, z), speed in self.dots:
            obj.position = (x + 0.3 * np.cos(speed * t), y + 0.3 * np.sin(speed * t), z)


class Spheres(Particles):
    kind = "sphere"


def _draw(ctx, scene_cls, monkeypatch, one_by_one=False, msaa=1):
    """(colour, depth, velocity planes, the mesh draws' instance counts, {geometry: objects
    of it}) of the scene drawn at T with a lens offset and jitter; ``one_by_one``: each
    object a draw."""
    counts = []
    render = moderngl.VertexArray.render

    def counted(vao, mode=moderngl.TRIANGLES, vertices=-1, *, first=0, instances=-1):
        if vertices != 3:  # not the background's full-screen triangle
            counts.append(instances)
        return render(vao, mode, vertices, first=first, instances=instances)

    monkeypatch.setattr(moderngl.VertexArray, "render", counted)
    scene = scene_cls()
    scene.setup()
    renderer = SceneRenderer(ctx, scene, (W, H), True, with_velocity=True, msaa=msaa,
                             hdr=True)
    renderer.prepare()
    if one_by_one:
        monkeypatch.setattr(renderer.instances, "one_by_one", _Always())
    scene.update(T)
    lens = renderer._pixels_a_metre()
    levels = Counter(renderer.geometries([o], [o.model_matrix()], lens)[0] for o in scene.objects)
    drawer = SubframeDrawer(scene, renderer, None, None, None, "off", True)
    lens, jitter = (0.003, -0.002), (0.25, -0.4)
    renderer.draw(T, 0, lens, jitter, clip_rates=drawer._clip_rates(T, 0, lens, jitter))
    planes = (np.empty((H, W, 4), np.float32), np.empty((H, W), np.float32),
              np.empty((H, W, 2), np.float32))
    renderer.read_into(*planes)
    renderer.release()
    monkeypatch.setattr(moderngl.VertexArray, "render", render)
    return planes, counts, levels


class _Always(dict):
    def __getitem__(self, key):
        return True


@pytest.mark.parametrize("scene_cls, msaa", [(Particles, 1), (Spheres, 1), (Particles, 4)])
def test_many_objects_are_a_few_draws_with_the_pixels_of_one_draw_each(gl_context,
                                                                      monkeypatch, scene_cls,
                                                                      msaa):
    """200 cubes: one draw of 200 instances and one of the plane (was 201 draws); 200
    spheres: one draw a level (the near ones finer). Colour, depth and velocity planes
    equal, to the bit, to the same objects drawn one a draw in the scene's order."""
    ctx = gl_context(size=(W, H)).ctx
    (colour, depth, velocity), counts, levels = _draw(ctx, scene_cls, monkeypatch, msaa=msaa)
    if scene_cls is Particles:
        assert counts == [200, 1]
    else:  # a draw for each level the spheres' sizes on the picture chose, then the plane
        assert len(levels) == 3 and counts == list(levels.values())
        assert sorted(levels.items()) == [("plane", 1), ("sphere", 42), ("sphere:32", 158)]
    (colour1, depth1, velocity1), counts1, _ = _draw(ctx, scene_cls, monkeypatch, True, msaa)
    assert counts1 == [1] * 201
    assert np.array_equal(colour, colour1) and np.array_equal(depth, depth1)
    assert np.array_equal(velocity, velocity1)
    assert np.isfinite(depth).mean() == 1.0  # the plane behind fills the picture
    assert np.abs(velocity).max() > 10 and 0.02 < (np.abs(velocity).max(-1) > 0).mean() < 0.5
    assert len(np.unique(colour.reshape(-1, 4), axis=0)) > 200


def test_a_rows_normal_matrix_is_the_one_object_cofactor(rng):
    """The stacked normal matrices equal the one-object ones to the bit (a zero scale and a
    mirror too)."""
    models = rng.normal(size=(50, 3, 3))
    models[0, :, 2] = 0.0
    models[1, 0] *= -1
    stacked = instances.cofactors(models)
    for m, c in zip(models, stacked, strict=True):
        assert np.array_equal(c, _cofactor(m))


@pytest.mark.parametrize("code, want", [
    ("return u_color;", [255, 78, 0]),  # the object's linear colour, 1.5x with its emissive
    ("return u_color * (1.0 + u_emissive);", [255, 90, 0]),  # 2x
])
def test_a_surface_shader_reads_the_objects_colour_and_emissive(gl_context, tmp_path, code,
                                                                want):
    """u_color and u_emissive, once uniforms, are each instance's: a shader reading them
    draws each object in its own colour."""
    (tmp_path / "own.glsl").write_text(
        f"vec3 shade(vec3 normal, vec3 world, vec3 color) {{\n    {code}\n}}\n")

    class Two(hf.Scene):
        def setup(self):
            self.add(hf.Cube(position=(-1, 0, 0), color=(1.0, 0.25, 0.0), emissive=0.5,
                             shader="own"))
            self.add(hf.Cube(position=(1, 0, 0), color=(0.0, 0.25, 1.0), shader="own"))
            self.camera.position = (0, 0, 4)
            self.camera.look_at((0, 0, 0))

    scene = Two()
    scene.source_path = str(tmp_path / "two.py")
    scene.setup()
    renderer = SceneRenderer(gl_context(size=(W, H)).ctx, scene, (W, H), False)
    renderer.prepare()
    renderer.draw(0.0, 0)
    colour = np.empty((H, W, 4), np.uint8)
    renderer.read_into(colour)
    renderer.release()
    assert colour[H // 2, W // 2 - 30, :3].tolist() == want
    assert colour[H // 2, W // 2 + 30, :3].tolist() == [0, 64, 255]
