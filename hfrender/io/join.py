"""Segments joined into one video without re-encoding (ffmpeg's concat demuxer and stream
copy), and the checksums a segment is recorded with (:mod:`hfrender.io.segments`, and the
Ray renders' segments, ``hfrender/engine/cluster.py``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hfrender.errors import pastable, spelling
from hfrender.io.container_tags import write_tags
from hfrender.io.durable import sync_file, sync_folder
from hfrender.io.ffmpeg import Soundtrack, bare, crashed, frame_rate
from hfrender.io.ffmpeg_join import join_command
from hfrender.io.writers import WriteFailed
from hfrender.sizes import bytes_said

# how a failed join is gone on from, as render and fx say it (batch and reexpose put their
# own way in its place: io/goes_on.py)
JOIN_AGAIN = "the same command with --resume joins them"


def join_again() -> str:
    """:data:`JOIN_AGAIN`, or ``hf.render``'s "the same call with resume=True joins them"
    (was the command's, and hf.render then added its own line of the kept segments)."""
    said = spelling()
    return JOIN_AGAIN if said.flags else f"the same call with {said.on('resume')} joins them"


JOIN_LIST = "join.txt"  # the concat demuxer's list, beside the segments while they join
JOIN_TAGS = "tags.txt"  # the output's container tags (ffmetadata), beside it as long


def join(files: list[Path], output: str, folder: Path, fps: float,
         audio_from: Soundtrack | None = None, timecode: str = "", codec: str = "",
         tags: tuple[tuple[str, str], ...] = ()) -> None:
    """Concatenate segments into ``output`` without re-encoding the video (atomic
    replace); the soundtrack of ``audio_from``, if any, is added, and the footage's
    container ``tags`` (its creation time, place: :mod:`.container_tags`), read from a file
    (:data:`JOIN_TAGS`: one over 128 KiB is past an argument's length)."""
    listing, tags_file = folder / JOIN_LIST, folder / JOIN_TAGS
    final = Path(output).resolve()  # through a link at the output, to its file
    tmp = final.with_name(f".{final.name}.joining{final.suffix}")
    try:  # (the list too: a full disk left an empty one among the segments, a trial)
        # names relative to the list (all segments sit beside it): no quoting of the path
        _write_list(listing, files)
        tagged = write_tags(tags_file, output, tags)
        cmd = join_command([f.name for f in files], str(tmp.resolve()), frame_rate(fps),
                           audio_from, str(listing.name), timecode=timecode, codec=codec,
                           tags=tags, tags_file=JOIN_TAGS if tagged else None)
        # its own session, as the encoders': a Ctrl-C at the terminal (sent to its whole
        # process group) stopped the join the command holds Ctrl-C for, and it failed
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=folder,
                             start_new_session=True)
    except BaseException:  # a Ctrl-C: no half-joined file is left
        tmp.unlink(missing_ok=True)
        raise
    finally:
        listing.unlink(missing_ok=True)
        tags_file.unlink(missing_ok=True)
    if res.returncode != 0:
        tmp.unlink(missing_ok=True)
        last = crashed(res.returncode, bare((res.stderr.strip().splitlines() or [""])[-1]),
                       copying=True)
        raise WriteFailed(f"joining {len(files)} segment{'' if len(files) == 1 else 's'} into "
                          f"{output} failed: {last}{_room(last, files, final)} (the "
                          f"segments stay in {pastable(folder)}: once that is mended, "
                          f"{join_again()})")
    sync_file(tmp)  # its data on the disk before it takes the output's name (io/durable.py)
    os.replace(tmp, final)
    sync_folder(final.parent)


def _write_list(listing: Path, files: list[Path]) -> None:
    """The concat demuxer's list of ``files``; a full disk names it (was: "cannot write a
    file: No space left on device", which file unsaid, a trial)."""
    try:
        listing.write_text("".join(f"file '{f.name}'\n" for f in files))
    except OSError as exc:
        exc.filename = exc.filename or str(listing)
        raise


def _room(said: str, files: list[Path], final: Path) -> str:
    """Where the disk was full (ffmpeg ``said`` so), how much room the joined video needs:
    about its segments' size (was unsaid, a trial)."""
    if "No space left on device" not in said:
        return ""
    size = sum(f.stat().st_size for f in files if f.is_file())
    return f"; the video needs about {bytes_said(size)} free in {final.parent}"
