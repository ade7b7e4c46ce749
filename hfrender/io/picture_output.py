"""One picture out of ``hfrender fx``: ``-o out.png`` (``out.exr`` from EXR footage) for
footage that makes one output frame, as ``ffmpeg -i a.png b.png`` writes one; footage
that makes more is refused before anything is read, naming the count and a pattern."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hfrender.errors import os_said
from hfrender.frame_range import n_frames
from hfrender.io.images import write_picture
from hfrender.io.sequence_names import is_picture
from hfrender.io.writers import Closing, WriteFailed, WriterError


def check_one_picture(output: str, frames: int, source: str, made_by: str = "") -> None:
    """One line where ``output`` is one picture but the footage ``source`` makes
    ``frames`` output frames (``made_by``: the flags that make them, ``--motion-blur 2``)."""
    if not is_picture(output) or frames == 1:
        return
    out = Path(output)
    what = f"{made_by} of {source}" if made_by else source
    raise WriterError(f"-o {output} is one picture; {what} makes {n_frames(frames)}: give a "
                      f"pattern such as {out.with_name(f'{out.stem}_%05d{out.suffix}')} (each "
                      "frame a picture)")


class PictureWriter(Closing):
    """The one frame of an fx run -> the picture ``path`` (its dtype's: an 8- or 16-bit
    PNG, an EXR), written whole (the caller renames it into place)."""

    def __init__(self, path: str) -> None:
        self.path, self.frames_written = path, 0

    def write(self, frame: np.ndarray) -> None:
        if self.frames_written:
            raise WriteFailed(f"{self.path} is one picture: a second frame came")
        try:
            write_picture(self.path, frame)
        except OSError as exc:
            raise WriteFailed(f"cannot write {self.path}: {os_said(exc, self.path)}") from None
        self.frames_written += 1

    def close(self) -> None:
        pass
