"""A sphere's tessellation follows its size on the picture: far, small ones draw fewer
triangles (1,000 particles were 4,096 triangles each), near ones the full 64 segments,
and the picture stays the full mesh's."""

import math
import textwrap

import numpy as np
import pytest
from render_helpers import render_frames

import hfrender.renderer.levels as levels_module
from hfrender.renderer.instances import InstancedDrawer
from hfrender.scene.objects import SPHERE_OUTLINE_PX, SPHERE_SEGMENTS, mesh, sphere_geometry

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test


def scene(tmp_path, body):
    path = tmp_path / "spheres.py"
    path.write_text("import hfrender as hf\n\n\nclass Spheres(hf.Scene):\n    duration = 0.2\n\n"
                    "    def setup(self):\n" + textwrap.indent(textwrap.dedent(body), " " * 8))
    return path


def drawn(monkeypatch):
    """The geometry each object is drawn with, in the order drawn (objects of one level,
    one draw)."""
    seen, real = [], InstancedDrawer.draw

    def draw(self, prog, geometry, rows):
        seen.extend([geometry] * len(rows))
        return real(self, prog, geometry, rows)

    monkeypatch.setattr(InstancedDrawer, "draw", draw)
    return seen


def triangles(geometry):
    return len(mesh(geometry)[1]) // 3


def test_levels_keep_the_outline_within_a_fortieth_of_a_pixel():
    assert SPHERE_OUTLINE_PX == 0.025  # measured against full spheres: benchmarks/RESULTS.md
    # N segments keep within e px up to a radius of 2 e N^2 / pi^2: 0.32, 1.3 and 5.19 px
    reach = {n: 2 * SPHERE_OUTLINE_PX * n * n / math.pi**2 for n in SPHERE_SEGMENTS[:-1]}
    assert [round(reach[n], 2) for n in reach] == [0.32, 1.3, 5.19]
    for n, r in reach.items():
        assert sphere_geometry(r * 0.999) == f"sphere:{n}", r
        assert sphere_geometry(r * 1.001) == ("sphere" if n == 32 else f"sphere:{2 * n}"), r
    assert [sphere_geometry(r) for r in (0.0, 0.2, 0.5, 1.0, 2.0, 4.2, 5.2, 50.0, 1e9)] == [
        "sphere:8", "sphere:8", "sphere:16", "sphere:16", "sphere:32", "sphere:32",
        "sphere", "sphere", "sphere"]
    assert [triangles(g) for g in ("sphere:8", "sphere:16", "sphere:32", "sphere")] == [
        64, 256, 1024, 4096]


@pytest.mark.parametrize("orthographic", [False, True])
def test_a_far_small_sphere_draws_fewer_triangles_a_near_one_all_64_segments(
        tmp_path, monkeypatch, orthographic):
    seen = drawn(monkeypatch)
    path = scene(tmp_path, f"""\
        self.camera.position = (0, 0, 10)
        self.camera.orthographic, self.camera.ortho_height = {orthographic}, 20.0
        self.add(hf.Sphere((-3, 0, -20), radius=0.05))
        self.add(hf.Sphere((3, 0, 0), radius=0.15, scale=(1, 1, 0.1)))
        self.add(hf.Sphere((0, 0, 0), radius=2.0))
    """)
    render_frames(path, count=1, size=(96, 54), samples=2, msaa=1)
    # the small one is 0.2 px (0.14 orthographic), the squashed one 2.1 px (by its largest
    # axis; 0.4 orthographic), the big one 5.4 px or more
    assert seen[-3:] == ["sphere:8", "sphere:16" if orthographic else "sphere:32", "sphere"]
    assert triangles(seen[-3]) * 64 == triangles(seen[-1]) == 4096


def test_small_spheres_look_as_the_full_mesh_draws_them(tmp_path, monkeypatch):
    path = scene(tmp_path, """\
        import random
        rnd = random.Random(3)
        self.camera.position, self.background = (0, 0, 12), "gray"
        for _ in range(60):
            where = (rnd.uniform(-4, 4), rnd.uniform(-2, 2), rnd.uniform(-6, 2))
            self.add(hf.Sphere(where, radius=rnd.uniform(0.03, 0.4), color="orange"))
    """)
    settings = dict(count=1, size=(160, 90), samples=16, msaa=4)
    seen = drawn(monkeypatch)
    levels, _ = render_frames(path, **settings)
    assert {"sphere:16", "sphere:32", "sphere"} <= set(seen)
    monkeypatch.setattr(levels_module, "sphere_named", lambda n: "sphere")  # (every one full)
    full, _ = render_frames(path, **settings)
    diff = np.abs(levels.astype(int) - full.astype(int)).max(-1)[0]
    pad = np.pad(full[0].astype(int), ((1, 1), (1, 1), (0, 0)), mode="edge")
    around = np.stack([pad[y:y + 90, x:x + 160] for y in range(3) for x in range(3)])
    edge = (around.max(0) - around.min(0)).max(-1) > 8  # a sphere's outline
    assert diff.max() <= 12 and (diff > 2).mean() < 0.005  # measured: 11, 0.2%
    assert diff[~edge].max() <= 1  # inside a sphere and off them, the same


def test_docs_say_the_levels_the_code_draws():
    """docs/rendering.md's "Many objects" names each level's triangles and the radius it
    reaches (was: "256 up to a radius of 1 px", the 64-triangle level under 0.26 px unsaid,
    and 1,024 "up to 4 px", where the code keeps it to 4.2 px)."""
    from pathlib import Path

    doc = " ".join((Path(__file__).parent.parent / "docs" / "rendering.md").read_text().split())
    said = ("64 triangles up to a radius of 0.32 px, 256 up to 1.3 px, 1,024 up to 5.2 px, "
            "the full 4,096")
    assert said in doc
    for r, triangles in ((0.31, 64), (0.33, 256), (1.25, 256), (1.3, 1024), (5.15, 1024),
                         (5.2, 4096)):
        assert len(mesh(sphere_geometry(r))[1]) // 3 == triangles, r


def test_the_levels_of_many_radii_are_each_ones_level():
    """``levels_of`` (a sub-frame's objects in one array) picks, for every radius, the
    segments :func:`level` picks for it alone, written out: the fewest whose outline keeps
    within the rule, N >= pi sqrt(r / 2e), the last past them all: seeded radii over
    0-40 px, the thresholds themselves and a float either side, 0, inf and NaN."""
    from hfrender.scene.round_shapes import OUTLINE_PX, SEGMENTS, levels_of

    def one(r):  # the rule, one radius at a time
        need = math.pi * math.sqrt(max(r, 0.0) / (2 * OUTLINE_PX))
        return next((n for n in SEGMENTS if n >= need), SEGMENTS[-1])

    edges = [(n / math.pi) ** 2 * 2 * OUTLINE_PX for n in SEGMENTS]  # r where N is just met
    radii = np.concatenate([np.random.default_rng(11).uniform(0, 40, 500),
                            edges, np.nextafter(edges, 0), np.nextafter(edges, 99),
                            [0.0, -0.0, math.inf, math.nan, 1e300]])
    got = levels_of(radii, SEGMENTS, OUTLINE_PX)
    assert got.tolist() == [one(r) for r in radii.tolist()]
    assert sorted(set(got.tolist())) == list(SEGMENTS)  # (every level picked somewhere)
    assert levels_of(np.array([0.31, 1.29, 5.1, 20.0]), SEGMENTS, OUTLINE_PX).tolist() == \
        [8, 16, 32, 64]  # (the docs' radii: 8 segments up to 0.32 px, 16 to 1.3, ...)
