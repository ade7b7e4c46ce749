"""A batch of render jobs on Ray with 2 local workers against the same batch one job after
the other, in one run (the jobs' outputs are byte-identical either way).

    python benchmarks/batch_ray.py [--jobs 4] [--frames 60] [--size 320x180] [--repeats 2]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from hfrender.cli import main as hfrender

SCENE = Path(__file__).resolve().parents[1] / "scenes" / "showcase.py"


def jobs_file(folder: Path, jobs: int, frames: int, size: str) -> Path:
    (folder / "showcase.py").write_text(SCENE.read_text())
    text = f'[defaults]\nsize = "{size}"\nsamples = 8\nduration = {frames / 30}\n'
    for j in range(jobs):
        text += f'\n[[job]]\nname = "j{j}"\nscene = "showcase.py"\noutput = "out/j{j}.mp4"\n' \
                f"seed = {j}\n"
    path = folder / "jobs.toml"
    path.write_text(text)
    return path


def timed(args: list[str], folder: Path) -> float:
    shutil.rmtree(folder / "out", ignore_errors=True)
    for state in folder.glob(".jobs.toml.state.json"):
        state.unlink()
    t = time.perf_counter()
    assert hfrender(args) == 0
    return time.perf_counter() - t


def main() -> None:
    import ray

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, default=4)
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--size", default="320x180")
    p.add_argument("--repeats", type=int, default=2)
    args = p.parse_args()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            path = jobs_file(folder, args.jobs, args.frames, args.size)
            local, on_ray = [], []
            for _ in range(args.repeats):
                local.append(timed(["batch", str(path), "--quiet"], folder))
                on_ray.append(timed(["batch", str(path), "--ray", "--quiet"], folder))
    finally:
        ray.shutdown()
    a, b = statistics.median(local), statistics.median(on_ray)
    print(f"{args.jobs} render jobs of showcase.py, {args.frames} frames {args.size} x 8 "
          f"samples each; median of {args.repeats} (Ray started once, before)")
    print(f"  one after the other : {a:6.2f} s   runs: {', '.join(f'{x:.2f}' for x in local)}")
    print(f"  batch --ray, 2 CPUs : {b:6.2f} s   runs: {', '.join(f'{x:.2f}' for x in on_ray)}")
    print(f"  one after the other / Ray = {a / b:.2f}x")


if __name__ == "__main__":
    main()
