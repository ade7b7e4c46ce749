"""What a lamp's shadows cost a sub-frame: scenes/lamps.py's floor, cube, ball and cone
lit by one lamp 1.5 m up (the directional light off), each sub-frame as a render draws
it (shadow maps, colour, read-back) at 640x360: a point lamp without shadows, with them,
and a shadowed spot (60 degrees, down); "unculled": as before each map's face was culled
to its frustum (every caster drawn into every face: ``shadows.outside`` none).
``moving``: the lamp moves a little every sub-frame, so its map is drawn every
sub-frame; ``still``: it stands, its map kept.
The kinds alternate in one process, round by round; median (min) of ``--rounds`` rounds
of ``--draws`` sub-frames, ms a sub-frame.

    python benchmarks/lamp_shadow_costs.py [--draws 12] [--rounds 7] [--crowd 0]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import statistics
import time
from unittest import mock

import numpy as np

import hfrender as hf
from hfrender.renderer import shadows as shadow_maps
from hfrender.renderer.contexts import create_context
from hfrender.renderer.renderer import SceneRenderer

SIZE = (640, 360)
KINDS = {"point, no shadows": (hf.PointLight, False), "point, shadows": (hf.PointLight, True),
         "point, shadows, unculled": (hf.PointLight, True),
         "spot, shadows": (hf.SpotLight, True), "spot, shadows, unculled": (hf.SpotLight, True)}


def unculled(name: str) -> contextlib.AbstractContextManager:
    """Every caster drawn into every face where ``name`` says "unculled" (as before)."""
    if "unculled" not in name:
        return contextlib.nullcontext()
    return mock.patch.object(shadow_maps, "outside", lambda matrix, boxes, sphere: np.zeros(
        len(boxes), bool))


def lamp_scene(kind: type, shadows: bool, crowd: int = 0) -> hf.Scene:
    """The scene, lit by a ``kind`` lamp casting ``shadows`` (a spot: 60 degrees, down);
    ``crowd`` balls of 0.15 m more, seeded, all around the lamp (1.5..5 m from it across,
    0.15..3 m up: in each of a point lamp's faces but +y's)."""
    rng = np.random.default_rng(7)
    turns, out, up = rng.uniform(0, 2 * math.pi, crowd), rng.uniform(1.5, 5, crowd), \
        rng.uniform(0.15, 3.0, crowd)

    class Lit(hf.Scene):
        light_strength = 0
        ambient = 0.05

        def setup(self):
            self.add(hf.Plane(scale=40, rotation=(-math.pi / 2, 0, 0), color=(0.5,) * 3))
            self.add(hf.Cube(position=(-1.3, 0.45, -0.3), scale=0.9, rotation=(0, 0.6, 0)))
            self.add(hf.Sphere(radius=0.5, position=(1.2, 0.5, 0.4)))
            self.add(hf.Cone(position=(0.1, 0.5, -1.4), radius=0.4, height=1.0))
            for turn, far, high in zip(turns, out, up, strict=True):
                self.add(hf.Sphere(radius=0.15, position=(far * math.cos(turn), high,
                                                         far * math.sin(turn))))
            more = {"angle": 60.0} if kind is hf.SpotLight else {}
            self.lamp = self.add(kind(position=(0.0, 1.5, 0.0), intensity=2.0,
                                      shadows=shadows, **more))
            self.camera.position = (0, 2.4, 5.5)
            self.camera.look_at((0, 0.5, 0))

    scene = Lit()
    scene.setup()
    return scene


def round_of(renderer: SceneRenderer, draws: int, moving: bool, color: np.ndarray) -> float:
    """ms a sub-frame over ``draws`` sub-frames (the lamp moved 1 cm each where
    ``moving``)."""
    start = time.perf_counter()
    for i in range(draws):
        renderer.scene.lamp.position = (0.01 * i * moving, 1.5, 0.0)
        renderer.draw(i / draws, i)
        renderer.read_into(color)
    return (time.perf_counter() - start) / draws * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--crowd", type=int, default=0, help="balls more around the lamp")
    args = parser.parse_args()
    glctx = create_context(size=SIZE)
    renderers = {}
    for name, (kind, shadows) in KINDS.items():
        renderers[name] = SceneRenderer(glctx.ctx, lamp_scene(kind, shadows, args.crowd),
                                        SIZE, False)
        renderers[name].prepare()
    color = np.empty((SIZE[1], SIZE[0], 4), np.uint8)
    for moving in (True, False):
        took: dict[str, list[float]] = {name: [] for name in KINDS}
        for name, renderer in renderers.items():  # (a warm-up round each)
            with unculled(name):
                round_of(renderer, 2, moving, color)
        for _ in range(args.rounds):
            for name, renderer in renderers.items():
                with unculled(name):
                    took[name].append(round_of(renderer, args.draws, moving, color))
        for name, times in took.items():
            print(f"{'moving' if moving else 'still'}, {name}: "
                  f"{statistics.median(times):.1f} ms a sub-frame ({min(times):.1f})")
    for name, renderer in renderers.items():
        maps = renderer.shadows.spots if renderer.shadows else []
        print(f"{name}: maps {[m.map.size for m in maps]}")
        renderer.release()
    glctx.release()


if __name__ == "__main__":
    main()
