"""What a sub-frame of a skinned model costs with ``shadows = True`` and velocity, its
skin posed in the vertex shader (``ModelDrawer.shader_posing``, the default) and in NumPy
(the reference), alternated in one process on one renderer: ``scenes/skinned_arm.py`` (its
arm skinned and morphed, remade by ``scenes/assets/make_assets.py`` with ``--rings`` rings
of 12 vertices: 25, the scene's own 300 vertices; 834, 10,008; 4167, 50,004) with its
shadows on, each sub-frame as a render draws it (the scene at t - h and t + h for the clip
rates, at t drawn: shadow map, colour, read-back) at 480x270. Timed besides: the pose
found on the CPU (NumPy's ``posed``: its vertices and their clip rates; the shader's
``shader_pose``: its joints' texture rows and morph weights) and ``ModelDrawer._pose``
(NumPy's: the posed vertices written into the model's buffers; the shader's: its joints'
texture written, its uniforms set). Median (min) of ``--runs`` runs of ``--draws``
sub-frames each way, ms a sub-frame; the pose's and the writes' medians and their share.

    python benchmarks/skin_shadows.py [--draws 20] [--rings 834] [--runs 5]
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
from hfrender.renderer.clip_motion import clip_rates
from hfrender.renderer.contexts import create_context
from hfrender.renderer.renderer import SceneRenderer
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


def timed(owner: object, name: str, spent: dict) -> None:
    """``owner.name`` replaced by itself timed, its seconds added to ``spent[name]``."""
    real = getattr(owner, name)

    def timing(*a, **k):
        start = time.perf_counter()
        try:
            return real(*a, **k)
        finally:
            spent[name] += time.perf_counter() - start

    setattr(owner, name, timing)


def run(renderer: SceneRenderer, scene: object, draws: int, planes: tuple) -> float:
    """``draws`` sub-frames as a render draws them; ms a sub-frame."""
    start = time.perf_counter()
    for i in range(draws):
        t, clips = 0.1 + 1.7 * i / draws, []
        for when in (t - H, t + H, t):
            scene.arm.time = when
            clips.append(renderer.clip_matrices())
        renderer.draw(t, i, clip_rates=clip_rates(clips[0], clips[1], 2 * H))
        renderer.read_into(*planes)
    return (time.perf_counter() - start) / draws * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--rings", type=int, default=25)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        scene = load_scene(arm_scene(Path(folder), args.rings))
        scene.shadows = True
        scene.setup()
    spent = dict.fromkeys(("posed", "shader_pose", "_pose"), 0.0)
    for name in ("posed", "shader_pose"):
        timed(models, name, spent)
    timed(models.ModelDrawer, "_pose", spent)
    glctx = create_context(size=SIZE)
    renderer = SceneRenderer(glctx.ctx, scene, SIZE, True, with_velocity=True)
    renderer.prepare()
    w, h = SIZE
    planes = (np.empty((h, w, 4), np.uint8), np.empty((h, w), np.float32),
              np.empty((h, w, 2), np.float32))
    ways = {"shader": (True, "shader_pose"), "NumPy": (False, "posed")}
    took = {way: {"sub-frame": [], "pose": [], "writes": []} for way in ways}
    for _ in range(args.runs):
        for way, (shader, pose) in ways.items():  # (alternated: the load swings alike)
            renderer.models.shader_posing = shader
            spent.update(dict.fromkeys(spent, 0.0))
            took[way]["sub-frame"].append(run(renderer, scene, args.draws, planes))
            took[way]["pose"].append(spent[pose] / args.draws * 1e3)
            took[way]["writes"].append(spent["_pose"] / args.draws * 1e3)
    renderer.release()
    glctx.release()
    vertices = sum(len(p.vertices) for p in scene.arm._loaded().parts)
    print(f"an arm of {vertices} vertices, shadows on, velocity, {args.runs} runs of "
          f"{args.draws} sub-frames each way, alternated")
    for way, times in took.items():
        whole = statistics.median(times["sub-frame"])
        pose, writes = (statistics.median(times[k]) for k in ("pose", "writes"))
        print(f"  posed in {way}: {whole:.2f} ms a sub-frame ({min(times['sub-frame']):.2f}); "
              f"pose {pose:.2f} ms ({100 * pose / whole:.0f}%), _pose {writes:.2f} ms "
              f"({100 * writes / whole:.0f}%)")


if __name__ == "__main__":
    main()
