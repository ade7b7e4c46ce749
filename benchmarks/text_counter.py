"""What a text new every sub-frame (a counter, manim's DecimalNumber habit) costs a render.

The scene: a floor, 20 shapes circling and an ``hf.Text`` counter
(``f"frame {n:05d} t={t:.3f}"``, new each sub-frame), at 160x90, in this process, each mode
in turn, ``--rounds`` times: its sub-frames drawn and read back by a ``SceneRenderer``
(``--subframes`` of them, the median of each's time: the text's cost without the
render's fusion and encoding), and with ``--render`` the whole ``hf.render`` at
``--samples 4`` to mp4 (``--frames`` frames, its wall time). The modes:

- ``now``: as hfrender draws it (glyph tiles, uploads written again),
- ``before``: its raster drawn whole by Pillow and a new texture for each upload (the code
  before glyph tiles, by switching them off: ``glyph_tiles.trusted`` False and
  ``TextDrawer._reused`` None),
- ``fixed``: the same scene with a text that does not change (the floor of what text costs).

Prints each mode's median ms a sub-frame (and with ``--render`` seconds a render).

    python benchmarks/text_counter.py [--subframes 240] [--rounds 5] [--render]
        [--frames 150]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

SCENE = '''
import math
import hfrender as hf

class Counter(hf.Scene):
    duration = {duration}
    background = (0.05, 0.05, 0.08)

    def setup(self):
        self.add(hf.Plane(scale=40, rotation=(-math.pi / 2, 0, 0), position=(0, -1, 0),
                          color=(0.25, 0.25, 0.3)))
        kinds = [hf.Cube, hf.Sphere, hf.Cylinder, hf.Cone, hf.Torus]
        self.objs = [self.add(kinds[i % 5](scale=0.3, color=(0.2 + 0.04 * i, 0.5, 0.5)))
                     for i in range(20)]
        self.counter = self.add(hf.Text("0", height=0.3, position=(0, 1.2, 0)))
        self.camera.position = (0, 1.5, 7)
        self.camera.look_at((0, 0, 0))

    def update(self, t):
        for i, o in enumerate(self.objs):
            a = t * (1 + 0.1 * i) + i
            o.position = (2.5 * math.cos(a), 0.5 * math.sin(2 * a), 2.5 * math.sin(a) - 1)
        self.counter.text = {text}
'''
MODES = ("now", "before", "fixed")


def switched(mode: str) -> None:
    """Glyph tiles and upload reuse on (``now``, ``fixed``) or off (``before``)."""
    from hfrender.renderer.text import TextDrawer
    from hfrender.scene import glyph_tiles, text

    _TRUSTED.cache_clear()
    text._rasters.clear()
    if mode == "before":
        glyph_tiles.trusted = _never
        TextDrawer._reused = lambda self, key, coverage, raster: None
    else:
        glyph_tiles.trusted = _TRUSTED
        TextDrawer._reused = _REUSED


def _never(*key: object) -> bool:
    return False


def drawn(path: Path, mode: str, count: int, start: int, glctx: Any) -> float:
    """The median ms of ``count`` sub-frames of the scene at ``path`` drawn and read."""
    import numpy as np

    from hfrender.renderer.renderer import SceneRenderer
    from hfrender.scene.loader import load_scene

    switched(mode)
    scene = load_scene(path)
    scene.setup()
    renderer = SceneRenderer(glctx.ctx, scene, (160, 90), False)
    renderer.prepare()
    color, times = np.empty((90, 160, 4), np.uint8), []
    for i in range(start, start + count):
        t, begun = i / 120, time.perf_counter()
        scene.update(t)
        renderer.draw(t, 0)
        renderer.read_into(color, None, None)
        times.append(time.perf_counter() - begun)
    renderer.release()
    return statistics.median(times) * 1e3


def rendered(path: Path, mode: str) -> float:
    """Seconds ``hf.render`` takes over the scene at ``path``, 160x90, 4 samples."""
    import hfrender as hf

    switched(mode)
    begun = time.perf_counter()
    hf.render(path, path.with_suffix(".mp4"), size="160x90", samples=4, fps=30)
    return time.perf_counter() - begun


def main() -> None:
    global _TRUSTED, _REUSED
    from hfrender.renderer.contexts import create_context
    from hfrender.renderer.text import TextDrawer
    from hfrender.scene import glyph_tiles

    _TRUSTED, _REUSED = glyph_tiles.trusted, TextDrawer._reused
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subframes", type=int, default=240)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--render", action="store_true")
    parser.add_argument("--frames", type=int, default=150)
    args = parser.parse_args()
    ms: dict[str, list[float]] = {m: [] for m in MODES}
    seconds: dict[str, list[float]] = {m: [] for m in MODES}
    glctx = create_context("egl", size=(160, 90))
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for mode in MODES:
            text = '"frame"' if mode == "fixed" else 'f"frame {int(t * 30):05d} t={t:.3f}"'
            paths[mode] = Path(tmp, f"{mode}.py")
            paths[mode].write_text(SCENE.format(duration=args.frames / 30, text=text))
        for r in range(args.rounds):
            for mode in MODES:
                ms[mode].append(drawn(paths[mode], mode, args.subframes, r * 10_000, glctx))
                if args.render:
                    seconds[mode].append(rendered(paths[mode], mode))
    for mode in MODES:
        line = f"{mode:7s} {statistics.median(ms[mode]):5.2f} ms a sub-frame"
        if args.render:
            line += f", a render {statistics.median(seconds[mode]):5.2f} s"
        print(f"{line}  ({', '.join(f'{v:.2f}' for v in ms[mode] + seconds[mode])})")


_TRUSTED = _REUSED = None

if __name__ == "__main__":
    main()
