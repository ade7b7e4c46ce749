"""What a sub-frame of a skinned model costs with ``shadows = True`` and velocity:
``scenes/skinned_arm.py`` (its arm skinned and morphed, remade by
``scenes/assets/make_assets.py`` with ``--rings`` rings of 12 vertices: 25, the scene's
own 300 vertices; 834, 10,008) with its shadows on, each sub-frame as a render draws it
(the scene at t - h and t + h for the clip rates, at t drawn: shadow map, colour,
read-back) at 480x270, the calls to ``posed`` counted and timed (the CPU skinning: its
vertices and their clip rates in NumPy), and the writes of the posed vertices into the
model's buffers (``ModelDrawer._pose``) timed. Median (min) of 5 runs of ``--draws``
sub-frames, ms a sub-frame; the skinning's and the writes' medians and their share of it.

    python benchmarks/skin_shadows.py [--draws 20] [--rings 834]
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from hfrender.renderer import models
from hfrender.renderer.contexts import create_context
from hfrender.renderer.renderer import SceneRenderer, clip_rates
from hfrender.scene.loader import load_scene

SIZE, H = (480, 270), 1e-3
SCENES = Path(__file__).resolve().parents[1] / "scenes"


def arm_scene(folder: Path, rings: int) -> Path:
    """skinned_arm.py copied into ``folder``, its assets/arm.glb made of ``rings`` rings."""
    spec = importlib.util.spec_from_file_location("make_assets", SCENES / "assets" /
                                                  "make_assets.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    tube = make.tube
    make.tube = lambda: tube(rings=rings)
    (folder / "assets").mkdir()
    make.arm(folder / "assets" / "arm.glb")
    return Path(shutil.copy(SCENES / "skinned_arm.py", folder))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--rings", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        scene = load_scene(arm_scene(Path(folder), args.rings))
        scene.shadows = True
        scene.setup()
    calls, real, write = [0], models.posed, models.ModelDrawer._pose
    spent = {"posed": 0.0, "write": 0.0}

    def counted(*a, **k):
        calls[0] += 1
        start = time.perf_counter()
        try:
            return real(*a, **k)
        finally:
            spent["posed"] += time.perf_counter() - start

    def written(*a, **k):
        start = time.perf_counter()
        try:
            return write(*a, **k)
        finally:
            spent["write"] += time.perf_counter() - start

    models.posed, models.ModelDrawer._pose = counted, written
    glctx = create_context(size=SIZE)
    renderer = SceneRenderer(glctx.ctx, scene, SIZE, True, with_velocity=True)
    renderer.prepare()
    w, h = SIZE
    color, depth, vel = (np.empty((h, w, 4), np.uint8), np.empty((h, w), np.float32),
                         np.empty((h, w, 2), np.float32))
    took, shares = [], {"posed": [], "write": []}
    for _ in range(5):
        start, calls[0] = time.perf_counter(), 0
        spent.update(posed=0.0, write=0.0)
        for i in range(args.draws):
            t, clips = 0.1 + 1.7 * i / args.draws, []
            for when in (t - H, t + H, t):
                scene.arm.time = when
                clips.append(renderer.clip_matrices())
            renderer.draw(t, i, clip_rates=clip_rates(clips[0], clips[1], 2 * H))
            renderer.read_into(color, depth, vel)
        took.append((time.perf_counter() - start) / args.draws * 1e3)
        for name in shares:
            shares[name].append(spent[name] / args.draws * 1e3)
    renderer.release()
    glctx.release()
    vertices = sum(len(p.vertices) for p in scene.arm._loaded().parts)
    print(f"an arm of {vertices} vertices, shadows on, velocity: "
          f"{statistics.median(took):.2f} ms a sub-frame ({min(took):.2f}); "
          f"posed {calls[0] / args.draws:.0f} times a sub-frame")
    whole = statistics.median(took)
    for name, what in (("posed", "skinning (posed, NumPy)"), ("write", "buffer writes")):
        ms = statistics.median(shares[name])
        print(f"  {what}: {ms:.2f} ms a sub-frame ({100 * ms / whole:.0f}%)")


if __name__ == "__main__":
    main()
