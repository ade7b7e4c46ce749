"""An older render's frames of an image-sequence pattern removed before a new one writes
its own (:func:`remove_stale`; moved as it is from :mod:`hfrender.io.writers`, whose logger
it keeps)."""

from __future__ import annotations

import logging
from collections.abc import Collection
from pathlib import Path

from hfrender.io.frame_marks import marks, sequence_id
from hfrender.io.sequence_names import pattern_files

log = logging.getLogger("hfrender.io.writers")  # (its lines' logger as before the move)


def remove_stale(pattern: str, keep: Collection[str] = (), spare: Collection[str] = ()
                 ) -> tuple[list[str], list[str]]:
    """Remove an older render's frames of an image-sequence pattern: the files of the
    pattern that hfrender wrote (:func:`.frame_marks.marks`), and unfinished
    ``.part`` ones of its own (marked, or empty), but those named in ``spare`` (a run's
    frames, already in place). The user's own files of the pattern stay, and so do
    hfrender's frames of another sequence whose names this pattern's could be (``%d``
    beside ``%03d``: their sequence mark): (the names of the user's that stay,
    of those ``keep`` names: the frames about to replace them)."""
    folder = Path(pattern).parent
    stale = pattern_files(Path(pattern).name, r"(\.part)?") if folder.is_dir() else None
    mine = sequence_id(pattern)
    kept: list[str] = []
    replaced: list[str] = []
    gone: list[str] = []  # hfrender's older frames that no frame about to come replaces
    for old in sorted(folder.iterdir()) if stale is not None else []:
        if not (stale.match(old.name) and old.is_file()) or old.name in spare:
            continue
        ours, sequence = marks(old)
        if sequence not in (None, mine):  # another sequence's frame: not this one's to go
            continue
        if ours or (old.name.endswith(".part") and old.stat().st_size == 0):
            old.unlink()
            if keep and old.name not in keep and not old.name.endswith(".part"):
                gone.append(old.name)
        else:
            (replaced if old.name in keep else kept).append(old.name)
    if gone:  # (a re-render of the same frames replaces them: nothing to say)
        gone.sort(key=lambda name: (len(name), name))  # 9.png before 10.png
        log.warning("%s: %d frame%s of an older render of the pattern that this one does not "
                    "write (%s) %s removed", folder, len(gone), "" if len(gone) == 1 else "s",
                    gone[0] if len(gone) == 1 else f"{gone[0]} .. {gone[-1]}",
                    "is" if len(gone) == 1 else "are")
    return kept, replaced
