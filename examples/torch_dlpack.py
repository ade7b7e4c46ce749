"""A torch tensor in, a torch tensor out: hfrender reads it through DLPack, without a copy.

    python examples/torch_dlpack.py        (needs: pip install torch)
"""

from __future__ import annotations

import sys

try:
    import torch
except ImportError as exc:  # (was: a traceback ending in "No module named 'torch'")
    sys.exit(f"torch_dlpack.py needs torch, which does not import here ({exc}): "
             "pip install torch")

import hfrender as hf  # noqa: E402 - after torch's check


def main() -> torch.Tensor:
    gen = torch.Generator().manual_seed(7)
    frames = torch.randint(0, 256, (12, 36, 64, 3), dtype=torch.uint8, generator=gen)
    out = hf.motion_blur(frames, window=4, stride=1, weights="triangle")
    print(f"torch in {tuple(frames.shape)} {frames.dtype} -> "
          f"{type(out).__module__}.{type(out).__name__} {tuple(out.shape)} {out.dtype}")
    return out


if __name__ == "__main__":
    main()
