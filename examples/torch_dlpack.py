"""A torch tensor in, a torch tensor out: hfrender reads it through DLPack, without a copy.

    python examples/torch_dlpack.py        (needs: pip install torch)
"""

from __future__ import annotations

import torch

import hfrender as hf


def main() -> torch.Tensor:
    gen = torch.Generator().manual_seed(7)
    frames = torch.randint(0, 256, (12, 36, 64, 3), dtype=torch.uint8, generator=gen)
    out = hf.motion_blur(frames, window=4, stride=1, weights="triangle")
    print(f"torch in {tuple(frames.shape)} {frames.dtype} -> "
          f"{type(out).__module__}.{type(out).__name__} {tuple(out.shape)} {out.dtype}")
    return out


if __name__ == "__main__":
    main()
