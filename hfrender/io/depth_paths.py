"""What a depth path is, said where it is not what was meant (:mod:`.depth_pass`): not
there, a video, a folder of other images, one frame of a sequence given for all, an EXR's
lone channel that names no depth."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from hfrender.errors import about
from hfrender.io.exr_files import DEPTH_CHANNELS, exr_depth_channel
from hfrender.io.probe import FootageError
from hfrender.io.sequence_files import DEPTH_KINDS, VIDEO_FILES

log = logging.getLogger("hfrender.io.depth_pass")  # (said as the depth pass's own)


def say_one_of_many(path: str, p: Path) -> None:
    """A warning where one depth image given is a frame of a sequence beside it
    (``zexr/1001.exr`` meant as ``zexr/%04d.exr``: every frame took the first's depth,
    unsaid, a trial)."""
    m = re.fullmatch(r"(.*?)(\d+)", p.stem)
    if m is None:
        return
    like = re.compile(re.escape(m.group(1)) + rf"\d{{{len(m.group(2))}}}")
    n = sum(1 for f in p.parent.iterdir() if f.suffix == p.suffix and like.fullmatch(f.stem))
    if n > 2:  # (two: depth_v1 and depth_v2, versions more likely than frames)
        pattern = p.with_name(f"{m.group(1)}%0{len(m.group(2))}d{p.suffix}")
        log.warning("depth %s is one frame of a sequence (%s holds %d like it): every frame "
                    "takes it; for each its own, give %s", path, p.parent, n, pattern)


def no_depth(path: str) -> FootageError:
    """Why ``path`` gives no depth: not there (said first: was "a video is not read" of a
    video not there), a video, or a folder of other images (was: the formats listed for
    each, as if the one given were none of them); ``depth PATH: ...``, named as its caller
    gave it (``--depth abc: not found``, ``depth = "abc": ...``: :func:`~hfrender.errors.
    as_given`)."""
    p = Path(path)
    folder = p if p.is_dir() else p.parent
    why = "use a .npy or .npz file, or a 16-bit PNG / EXR sequence (a folder or a pattern " \
        "such as depth/%05d.png), or one such image for every frame"
    kinds = sorted({f.suffix.lower() for f in folder.iterdir() if f.suffix.lower() in
                    DEPTH_KINDS}) if folder.is_dir() else []
    if not p.exists() and ("%" not in p.name or not folder.is_dir()):
        why = "not found"
    elif p.is_file() and p.suffix.lower() not in (*VIDEO_FILES, ".gif", *DEPTH_KINDS):
        why = (f"{p.suffix or 'a file without a suffix'} is no depth format; use a .npy or "
               ".npz file, or a 16-bit PNG / EXR sequence")
    elif p.suffix.lower() in (*VIDEO_FILES, ".gif"):
        why = ("a video is not read as depth (8-bit, compressed: its steps would show); "
               "export the pass as a 16-bit PNG or EXR sequence, or a .npy")
    elif kinds and p.suffix.lower() not in kinds and not p.is_dir():
        why = f"{folder} holds no {p.suffix} images (it holds {', '.join(kinds)})"
    return about(FootageError, "depth", path, f": {why}", head=f"depth {path}")


def say_channel(path: str, file: Path, whose: str) -> None:
    """Which channel of an EXR depth ``file`` is read (``-v``; a warning where it is a lone
    channel that names no depth: was a lone G or A taken without a word)."""
    if file.suffix.lower() != ".exr":
        return
    channel = exr_depth_channel(file) or ""
    lone = channel.split(" ")[0] not in DEPTH_CHANNELS and "depth" not in channel.lower()
    (log.warning if lone else log.info)(
        "depth %s: %s channel %s%s", path, whose, channel,
        ", its only one, which names no depth (Z, depth.Z, Y or R)" if lone else "")
