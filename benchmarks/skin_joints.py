"""What finding a skinned model's matrices costs a sub-frame: ``Mesh.part_matrices`` of a
glTF strip skinned to a chain of 50 joints (one rotation channel a joint, written by
``tests/gltf_files.py``'s ``write_chain``), asked as a sub-frame with velocity asks it: at
t - h and t + h (the velocity's clip matrices) and at t (the draw). Median of ``--runs``
runs of ``--subframes`` sub-frames, milliseconds a sub-frame.

    python benchmarks/skin_joints.py [--joints 50] [--runs 7] [--subframes 64]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from gltf_files import write_chain  # noqa: E402

import hfrender as hf  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--joints", type=int, default=50)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--subframes", type=int, default=64)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        mesh = hf.Mesh.load(write_chain(Path(folder), args.joints))
        h, took = 1e-3, []
        for run in range(args.runs):
            start = time.perf_counter()
            for k in range(args.subframes):
                t = (run * args.subframes + k) / (args.runs * args.subframes)
                for when in (t - h, t + h, t):
                    mesh.time = when
                    mesh.part_matrices()
            took.append((time.perf_counter() - start) / args.subframes * 1e3)
    print(f"{args.joints} joints: {statistics.median(took):.2f} ms a sub-frame "
          f"(min {min(took):.2f}, {args.runs} runs of {args.subframes})")


if __name__ == "__main__":
    main()
