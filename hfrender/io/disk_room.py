"""Whether an image sequence's frames fit on the disk they are written to, said before the
first frame is drawn (was: ``-o f/%05d.png --duration 600``, 18,000 frames, started without
a word about the disk, a trial). A PNG's or EXR's size depends on its picture, so the check
is rough: refused where even the least a frame can take does not fit (one block of the
disk, 4 KB at most, or its pixels at deflate's best, 1032:1), warned of where busy frames
would not. A video is not checked (its size is the encoder's)."""

from __future__ import annotations

import logging
import math
import os
import shutil
from pathlib import Path

from hfrender.errors import spelling
from hfrender.io.sequence_names import is_sequence
from hfrender.io.writers import WriterError
from hfrender.sizes import bytes_said, range_said

log = logging.getLogger(__name__)

DEFLATE_MOST = 1032  # the most zlib's deflate packs (one byte repeated): PNG's and EXR ZIP's
HEADER = 100  # bytes of a file's header and chunks beside its pixels, at least
# the most of a disk's block a refusal counts for each file: a local disk's (4 KB); a
# network one reports its transfer size (NFS's wsize, often 1 MiB; CephFS 4 MiB) though a
# small file takes no such room there (was: 18000 640x360 frames "need at least 18.9 GB")
BLOCK_MOST = 4096
# raw bytes per file byte (EXR, bytes a sample) -> (a plain picture's, a busy one's),
# measured at 640x360: shapes.py (flat colours) 34:1 as an 8-bit PNG, 23 16-bit, 19 half
# EXR, 10 float; plasma.frag (soft noise over the whole frame) 5.3, 3.6, 2.5 and 1.05
RATIOS = {(False, 1): (30, 5), (False, 2): (20, 3.5), (True, 2): (16, 2.5), (True, 4): (8, 1)}


def frame_bytes(size: tuple[int, int], channels: float, sample_bytes: int,
                exr: bool) -> tuple[float, float]:
    """About how many bytes a frame of a plain picture and of a busy one take."""
    raw = size[0] * size[1] * channels * sample_bytes
    plain, busy = RATIOS.get((exr, sample_bytes), (30, 5))
    return raw / plain, raw / busy


def check_room(output: str, frames: int, size: tuple[int, int], channels: float,
               sample_bytes: int, fewer: bool = True) -> None:
    """Refuse (:class:`WriterError`, one line) where ``frames`` files of the sequence
    ``output`` cannot fit in its disk's free space whatever their pictures; warn where busy
    ones would not (``fewer``: the command has ``--frames`` to suggest)."""
    if not is_sequence(output) or frames < 1:
        return
    folder = Path(output).parent
    free, block = _disk(folder)
    block = min(block, BLOCK_MOST)
    exr = output.lower().endswith(".exr")
    raw = size[0] * size[1] * channels * sample_bytes
    least = math.ceil((raw / DEFLATE_MOST + HEADER) / block) * block
    spell = spelling()
    kind = "EXR" if exr else "PNG"
    where = (f"{bytes_said(free)} free in {folder}/: use a video output, "
             + (f"fewer frames ({spell.name('frames')}), " if fewer else "") + "or free space")
    said = spell.said("output", output)
    if frames * least > free:
        raise WriterError(f"{said}: {frames} frames need at least {bytes_said(frames * least)} "
                          f"({bytes_said(least)} each, the least a {size[0]}x{size[1]} {kind} "
                          f"takes on this disk); {where}")
    plain, busy = frame_bytes(size, channels, sample_bytes, exr)
    if frames * busy > free:
        log.warning("%s: %d frames may need up to about %s (a %dx%d %s frame takes about %s, "
                    "by how busy its picture is); %s", said, frames,
                    bytes_said(frames * busy), size[0], size[1], kind,
                    range_said(plain, busy), where)


def _disk(folder: Path) -> tuple[int, int]:
    """(free bytes, block size) of the disk ``folder`` is on (or would be: its nearest
    folder that is)."""
    found = folder.resolve()
    while not found.is_dir() and found != found.parent:
        found = found.parent
    try:
        free = shutil.disk_usage(found).free
    except OSError:  # (cannot be read: the writer's own error will say what is wrong)
        return 2**63, 1
    block = getattr(os, "statvfs", None)  # (Windows has none: its usual 4 KB)
    return free, (block(found).f_frsize if block else 4096) or 4096

