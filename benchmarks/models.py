"""Sub-frames per second of a loaded model of about 1 million triangles at 640x360.

The model is made here with NumPy and trimesh (a bumpy sphere of 1,000,000 triangles with
smooth normals, vertex colours, or a texture) and written to a temporary ``.glb``; the
scene draws it through ``hf.Mesh.load`` with the renderer the engine uses (``SceneRenderer``:
the background, the model, the read-back of the sub-frame into a host array). Each figure
is the median of several timed runs of ``--draws`` sub-frames, the model turning between
them. The goal (issue 16): at least 10 sub-frames a second on llvmpipe.

    python benchmarks/models.py [--runs 5] [--draws 10]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import hfrender as hf
from hfrender.renderer.contexts import create_context
from hfrender.renderer.renderer import SceneRenderer

SIZE = (640, 360)
LAT, LON = 500, 1000  # 2 * 500 * 1000 = 1,000,000 triangles


def bumpy_sphere(kind: str):
    """A trimesh.Trimesh of LAT x LON quads (2 triangles each), smooth normals."""
    import trimesh
    from PIL import Image

    th = np.linspace(0.0, math.pi, LAT + 1)[:, None]
    ph = np.linspace(0.0, 2 * math.pi, LON + 1)[None, :]
    r = 1.0 + 0.04 * np.sin(12 * ph) * np.sin(9 * th)
    pts = np.stack(np.broadcast_arrays(r * np.sin(th) * np.cos(ph), r * np.cos(th),
                                       r * np.sin(th) * np.sin(ph)), -1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(LAT), np.arange(LON), indexing="ij")
    a = (i * (LON + 1) + j).ravel()
    b, c, d = a + LON + 1, a + 1, a + LON + 2
    faces = np.stack([a, c, b, c, d, b], 1).reshape(-1, 3)
    normals = pts / np.linalg.norm(pts, axis=1, keepdims=True)  # close enough for a bench
    mesh = trimesh.Trimesh(pts, faces, vertex_normals=normals, process=False)
    if kind == "colours":
        mesh.visual.vertex_colors = (np.abs(normals) * 255).astype(np.uint8)
    elif kind == "texture":
        checker = ((np.indices((256, 256)) // 32).sum(0) % 2 * 200 + 40).astype(np.uint8)
        uv = np.stack(np.broadcast_arrays(ph / (2 * math.pi), 1 - th / math.pi), -1)
        mesh.visual = trimesh.visual.TextureVisuals(
            uv=uv.reshape(-1, 2), image=Image.fromarray(checker).convert("RGB"))
    return mesh


def measure(path: Path, runs: int, draws: int, double_sided: bool, velocity: bool,
            msaa: int = 4) -> float:
    """Median sub-frames per second over ``runs`` runs of ``draws`` sub-frames."""

    class Bench(hf.Scene):
        def setup(self):
            self.model = self.add(hf.Mesh.load(path, color=(0.9, 0.8, 0.7)))
            self.camera.position = (0, 0.4, 3.2)
            self.camera.look_at((0, 0, 0))

    scene = Bench()
    scene.setup()
    parts = scene.model._model.parts
    if double_sided:  # as OBJ, STL and PLY files draw (glTF: as its material says)
        was = [part.double_sided for part in parts]
        for part in parts:
            object.__setattr__(part, "double_sided", True)
    glctx = create_context("egl", size=SIZE)
    renderer = SceneRenderer(glctx.ctx, scene, SIZE, with_depth=velocity,
                             with_velocity=velocity, msaa=msaa)
    renderer.prepare()
    w, h = SIZE
    color = np.empty((h, w, 4), np.uint8)
    depth = np.empty((h, w), np.float32) if velocity else None
    vel = np.empty((h, w, 2), np.float32) if velocity else None
    rates = [np.full((4, 4), 0.01)] if velocity else None
    rate = []
    for run in range(runs + 1):  # the first run warms up (JIT, upload)
        start = time.perf_counter()
        for k in range(draws):
            scene.model.rotation = (0.0, 0.1 * (run * draws + k), 0.0)
            renderer.draw(0.0, 0, clip_rates=rates)
            renderer.read_into(color, depth, vel)
        if run:
            rate.append(draws / (time.perf_counter() - start))
    renderer.release()
    glctx.release()
    if double_sided:  # the model stays cached: as it was for the next case
        for part, flag in zip(parts, was, strict=True):
            object.__setattr__(part, "double_sided", flag)
    return statistics.median(rate)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--msaa", type=int, default=4, help="samples per pixel (the default 4)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for kind in ("plain", "colours", "texture"):
            files[kind] = Path(tmp) / f"{kind}.glb"
            bumpy_sphere(kind).export(files[kind], include_normals=True)
        start = time.perf_counter()
        model = hf.Mesh.load(files["plain"])
        loaded = time.perf_counter() - start
        print(f"model: {model.triangles:,} triangles (read in {loaded:.2f} s, once a "
              f"process), {SIZE[0]}x{SIZE[1]}, msaa {args.msaa}, median of {args.runs} runs of "
              f"{args.draws} sub-frames")
        cases = [("glTF, base colour (back faces culled)", "plain", False, False),
                 ("glTF, vertex colours", "colours", False, False),
                 ("glTF, base-colour texture (mipmapped)", "texture", False, False),
                 ("two-sided (as OBJ/STL/PLY draw)", "plain", True, False),
                 ("glTF + depth and velocity planes", "plain", False, True)]
        worst = math.inf
        for label, kind, double, velocity in cases:
            fps = measure(files[kind], args.runs, args.draws, double, velocity, args.msaa)
            worst = min(worst, fps)
            print(f"  {label:42s} {fps:6.1f} sub-frames/s")
    print(f"goal >= 10 sub-frames/s: {'met' if worst >= 10 else 'MISSED'} "
          f"(slowest {worst:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
