"""What the soft-shadow penumbra probe (:func:`hfrender.engine.penumbra.penumbra_px`) costs
a probe sub-frame: scenes/soft_shadows.py at 640x360 (its sun's map 4096 texels a side),
the probe drawn as ``--samples auto`` draws it; the old way (``--old``, a commit: its
penumbra.py loaded from git, the whole map read back, padded and gathered in NumPy) and
this checkout's (its GL pass drawn every call; and as a still scene's probes call it, the
same map, camera and depth plane as the last) alternate call by call in one process;
median (min) ms of ``--rounds``, and the process's CPU time (llvmpipe's threads too).

``--render``: the whole ``hfrender render scenes/soft_shadows.py --size 640x360
--duration 1 --samples auto`` in this process, the probe's ``penumbra_px`` the old one and
this checkout's in turn, ``--renders`` of each, alternated; seconds, and those spent in
``penumbra_px``.

    python benchmarks/penumbra_probe.py [--old dee317f] [--rounds 15] [--render --renders 2]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
import types
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.engine import adaptive
from hfrender.engine.penumbra import penumbra_px
from hfrender.renderer.contexts import create_context
from hfrender.renderer.renderer import SceneRenderer
from hfrender.scene.loader import load_scene

ROOT = Path(__file__).resolve().parent.parent
SCENE, SIZE = ROOT / "scenes" / "soft_shadows.py", (640, 360)


def old_module(commit: str) -> types.ModuleType:
    """hfrender/engine/penumbra.py as it was at ``commit``, as a module."""
    text = subprocess.run(["git", "show", f"{commit}:hfrender/engine/penumbra.py"], cwd=ROOT,
                          check=True, capture_output=True, text=True).stdout
    module = types.ModuleType("penumbra_old")
    exec(compile(text, f"{commit}:penumbra.py", "exec"), module.__dict__)  # noqa: S102
    return module


def found_anew(renderer: SceneRenderer, depth: np.ndarray) -> float:
    """This checkout's penumbra_px, its GL pass drawn every call (not the last probe's)."""
    if renderer.shadows.penumbra is not None:
        renderer.shadows.penumbra.held = None
    return penumbra_px(renderer, depth)


def probe_costs(old: types.ModuleType, rounds: int) -> None:
    """Each way's ms a call on the probe of t = 0.5, alternated; and their values."""
    glctx = create_context(size=SIZE)
    scene = load_scene(SCENE)
    scene.setup()
    renderer = SceneRenderer(glctx.ctx, scene, SIZE, True, with_velocity=True)
    renderer.prepare()
    renderer.draw(0.5, 15)
    w, h = SIZE
    color, depth = np.empty((h, w, 4), np.uint8), np.empty((h, w), np.float32)
    renderer.read_into(color, depth, np.empty((h, w, 2), np.float32))
    ways = {"old (map read back)": lambda: old.penumbra_px(renderer, depth),
            "new (GL pass)": lambda: found_anew(renderer, depth),
            "new, a still probe (the last's width)": lambda: penumbra_px(renderer, depth)}
    took: dict[str, list[float]] = {name: [] for name in ways}
    cpu: dict[str, list[float]] = {name: [] for name in ways}
    found = {name: way() for name, way in ways.items()}  # (warm-up)
    for _ in range(rounds):
        for name, way in ways.items():
            start, used = time.perf_counter(), time.process_time()
            way()
            took[name].append((time.perf_counter() - start) * 1e3)
            cpu[name].append((time.process_time() - used) * 1e3)
    print(f"map {renderer.shadows.size} texels a side, {SIZE[0]}x{SIZE[1]} probe")
    for name, ms in took.items():
        print(f"{name}: {statistics.median(ms):.1f} ({min(ms):.1f}) ms, CPU (all threads) "
              f"{statistics.median(cpu[name]):.1f} ms, penumbra {found[name]!r} px")
    renderer.release()
    glctx.release()


def render_costs(old: types.ModuleType, renders: int) -> None:
    """The whole --samples auto render, the probe's penumbra_px each way in turn; the
    seconds spent in it too."""
    from hfrender.cli import main

    spent = [0.0]

    def timed(way: Any) -> Any:
        def call(*args: Any) -> float:
            start = time.perf_counter()
            try:
                return way(*args)
            finally:
                spent[0] += time.perf_counter() - start
        return call

    ways = {"old": timed(old.penumbra_px), "new": timed(penumbra_px)}
    took: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(renders):
            for name, way in ways.items():
                adaptive.penumbra_px, spent[0] = way, 0.0
                start = time.perf_counter()
                assert main(["render", str(SCENE), "--size", f"{SIZE[0]}x{SIZE[1]}",
                             "--duration", "1", "--samples", "auto", "--quiet",
                             "-o", str(Path(folder) / f"{name}.mp4")]) == 0
                took[name].append((time.perf_counter() - start, spent[0]))
                print(f"{name}: {took[name][-1][0]:.1f} s, penumbra_px {spent[0]:.2f} s",
                      flush=True)
    adaptive.penumbra_px = penumbra_px
    for name, runs in took.items():
        print(f"{name}: median {statistics.median(s for s, _ in runs):.1f} s, penumbra_px "
              f"{statistics.median(p for _, p in runs):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", default="dee317f", help="the commit of the old way")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--render", action="store_true")
    parser.add_argument("--renders", type=int, default=2)
    args = parser.parse_args()
    old = old_module(args.old)
    if args.render:
        render_costs(old, args.renders)
    else:
        probe_costs(old, args.rounds)


if __name__ == "__main__":
    main()
