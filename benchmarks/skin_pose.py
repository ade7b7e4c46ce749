"""What posing a skinned part costs a draw: ``hfrender.scene.model_skins.posed`` on one
Part of ``--vertices`` vertices skinned to ``--joints`` joints, 4 random influences a vertex
(seeded), joints' matrices with a random non-uniform 3x3: positions and normals, then with
the vertices' clip rates (velocity). Median (min) of 7 runs of 20 calls, ms a call. Since
2026-12-07 the renderer poses in its vertex shader (``hfrender/renderer/skinning.py``);
``posed`` is the reference it is tested against, and poses a part past the shader's limits.

    python benchmarks/skin_pose.py [--vertices 10000] [--joints 50]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from hfrender.scene.model_parts import VERTEX, Part
from hfrender.scene.model_skins import Skinning, posed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vertices", type=int, default=10_000)
    parser.add_argument("--joints", type=int, default=50)
    args = parser.parse_args()
    rng, v, j = np.random.default_rng(7), args.vertices, args.joints
    weights = rng.random((v, 4))
    weights /= weights.sum(1, keepdims=True)
    skin = Skinning(tuple(range(j)), np.tile(np.eye(4), (j, 1, 1)),
                    rng.integers(0, j, (v, 4)), weights,
                    np.column_stack([rng.random((v, 3)), np.ones(v)]), rng.random((v, 3)) - 0.5)
    part = Part(np.zeros(v, VERTEX), np.arange(3 * (v // 3), dtype=np.uint32), None, True,
                False, skin=skin)
    matrices = np.tile(np.eye(4), (j, 1, 1))
    matrices[:, :3, :3] += rng.normal(0.0, 0.2, (j, 3, 3))
    for label, rates in (("positions and normals", None), ("with clip rates", matrices / 10)):
        took = []
        for _ in range(7):
            start = time.perf_counter()
            for _ in range(20):
                posed(part, matrices, rates)
            took.append((time.perf_counter() - start) / 20 * 1e3)
        print(f"{label}: {statistics.median(took):.2f} ms ({min(took):.2f})")


if __name__ == "__main__":
    main()
