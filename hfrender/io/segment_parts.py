"""A segment being written, under a name of its run's own (``seg_00000030.part-PID-TOKEN.ts``:
the run's pid and a random token), kept only once whole.

A run killed (``kill -9``, the OOM killer) leaves the encoder of its current segment running
(in a session of its own, so that Ctrl-C reaches hfrender first) until the frames in its
pipe are encoded: it wrote ``seg_00000030.part.ts`` still after the run was reaped (7 of 10
kills), and a ``--resume`` typed at once wrote that same name, so two processes wrote one
file and the resumed run kept what was there as a whole segment (17% of its pixel
values off, a trial). Now no two runs write one name: the leftover writes its own, which no
run renames, and the next run of the output removes it once its run has ended
(:func:`clear_dead_parts`: never a live run's); a segment takes its final name only once its
encoder ended well and it holds every frame written (:func:`check_whole`).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import subprocess
from pathlib import Path

from hfrender.errors import spelling
from hfrender.io.ffmpeg import bare
from hfrender.io.ffmpeg_read import probe_command
from hfrender.io.output_lock import process_ended
from hfrender.io.probe import CUT_SHORT
from hfrender.io.writers import WriteFailed

log = logging.getLogger(__name__)

PART_TAG = r"\.part-\d+-[0-9a-f]+"  # what a run's segment being written carries: its own
_PART = re.compile(r"seg_\d{8}\.part-(\d+)-[0-9a-f]+\.(mkv|ts|mov|mp4)$")


def run_tag() -> str:
    """A writer's own tag (``.part-PID-TOKEN``) for the names of the segments it writes."""
    return f".part-{os.getpid()}-{secrets.token_hex(4)}"


def clear_dead_parts(folder: Path) -> int:
    """The segments being written in ``folder`` by runs that have ended removed (a killed
    run's, its encoder perhaps writing it still: it writes on into a name no one reads);
    a live run's are kept. How many went."""
    gone = 0
    try:
        entries = list(folder.iterdir())
    except OSError:
        return 0
    for entry in entries:
        match = _PART.match(entry.name)
        if match and int(match.group(1)) != os.getpid() and process_ended(int(match.group(1))):
            entry.unlink(missing_ok=True)
            gone += 1
    if gone:
        log.debug("removed %d unfinished segment(s) of ended runs in %s", gone, folder)
    return gone


# how a segment not kept is written anew, as render and fx say it (batch and reexpose put
# their own way in its place: io/goes_on.py)
WRITE_AGAIN = "run again with --resume to write it anew"


def write_again() -> str:
    """:data:`WRITE_AGAIN`, or ``hf.render``'s ``resume=True`` in its place."""
    return WRITE_AGAIN.replace("--resume", spelling().on("resume"))


def check_whole(path: Path, written: int, name: str) -> None:
    """Segment ``path``, its encoder ended well, holds the ``written`` frames; else
    :class:`WriteFailed` naming it (``name``: the output) and the file is removed, not kept
    as whole."""
    held, said = frames_in(path)
    if held == written and not said:
        return
    path.unlink(missing_ok=True)
    raise WriteFailed(f"a segment of {name} ({path.name}) holds {held} frames of the "
                      f"{written} written{f' (ffmpeg: {said})' if said else ''}: it is not "
                      f"kept; {write_again()}")


def frames_in(path: Path) -> tuple[int, str]:
    """(the video packets segment ``path`` holds, in its own container; what ffmpeg said
    where it could not read it all): counted, not decoded."""
    fmt = "mpegts" if path.suffix == ".ts" else None  # (a few frames' TS: taken for MPEG-PS)
    # its own session, as the encoders': a Ctrl-C at the terminal (to its whole process
    # group) stopped it as the writer thread looked, and the whole segment was "not kept"
    res = subprocess.run(probe_command(str(path), fmt=fmt), capture_output=True, text=True,
                         errors="replace", start_new_session=True)
    said = [bare(line) for line in res.stderr.splitlines() if bare(line)]
    cut = CUT_SHORT.search(res.stderr)
    trouble = (said or ["no video"])[-1] if res.returncode else cut.group(1) if cut else ""
    return len(re.findall(r"^0,", res.stdout, re.M)), trouble
