"""Putting a finished image sequence in place so that no kill loses it: the run's list of
frames is written first (``committing.json`` in its hidden folder), then each frame is
renamed over the older one of its name, and only then do the older render's other frames
go. A run killed in between (``kill -9``, a closed terminal) leaves that list beside the
frames still to move: ``--resume`` finishes the move instead of drawing them all again
(was: the older frames removed first, and the run's frames, all finished, redrawn from
frame 0)."""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
from pathlib import Path

from hfrender.errors import output_said
from hfrender.io.frame_marks import marks, sequence_id
from hfrender.io.sequence_names import is_sequence, pattern_files, typed_output
from hfrender.io.sequence_stale import remove_stale
from hfrender.io.writers import WriterError

log = logging.getLogger(__name__)
COMMITTING = "committing.json"  # the frames a run is putting in place (its hidden folder)
MANIFEST = "manifest.json"  # the run's settings beside them (segments.MANIFEST)


def committing(folder: Path) -> list[str] | None:
    """The frames an interrupted move into place was putting there (None: no move began)."""
    try:
        names = json.loads((folder / COMMITTING).read_text())["frames"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return [str(n) for n in names] if isinstance(names, list) else None


def commit_sequence(tmp: str, output: str, keep_others: bool = False) -> None:
    """The frames in ``tmp``'s folder in place of ``output``'s (see module); with
    ``keep_others`` (a range of frames) the pattern's other files stay."""
    src, dst = Path(tmp).parent, Path(output).resolve().parent
    dst.mkdir(parents=True, exist_ok=True)
    pattern = str(dst / Path(output).name)
    names, replaced = committing(src), []
    if names is None:  # a move begins
        rx = pattern_files(Path(output).name)
        names = [f.name for f in sorted(src.iterdir()) if rx is not None and rx.match(f.name)]
        for name in names:  # what would stop the move half-way, found before any change
            if (dst / name).is_dir():
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR),
                                        str(dst / name))
        there = {n: marks(dst / n) for n in names if (dst / n).is_file()}  # (read once)
        replaced = [n for n, (ours, _) in there.items() if not ours] if not keep_others else []
        _others(dst, there, sequence_id(output))  # (before any change, as the folders)
        part = src / f"{COMMITTING}.part"
        part.write_text(json.dumps({"frames": names}))
        os.replace(part, src / COMMITTING)
    for name in names:
        if (src / name).exists():  # (a resumed move: those moved before are in place)
            os.replace(src / name, dst / name)
    if not keep_others:  # an older render's other frames go; the user's own stay
        kept, _ = remove_stale(pattern, set(names), spare=set(names))
        _foreign(dst, kept, "kept beside this render's frames")
        _foreign(dst, replaced, "replaced by this render's frames of their names")
    (src / MANIFEST).unlink(missing_ok=True)  # first: a kill in the rmtree leaves no
    shutil.rmtree(src, ignore_errors=True)  # manifest without its list (all redrawn)


def moved_away(folder: Path, output: str) -> list[str]:
    """Of the frames an interrupted move was putting in place (:func:`committing`), those
    neither still in ``folder`` nor in the output's folder (moved, then deleted by hand)."""
    dst = Path(output).resolve().parent
    return [n for n in committing(folder) or []
            if not (folder / n).is_file() and not (dst / n).is_file()]


def check_frames_there(output: str, first: int, count: int, what: str | None = None) -> None:
    """Before any work: the files at the names this run of ``output`` (an image sequence;
    else nothing to check) would write, its output frames ``first`` on, are this sequence's
    own frames: a user's picture there (not hfrender's: its mark) was replaced, said only
    after (a batch user's trial); a frame of another sequence (``shot_%03d.png``'s 100 where
    this is ``shot_%d.png``) was refused only at the move, once all was rendered. A refusal
    names the output after ``what`` (a jobs file's ``output``), else as the caller names it
    (:func:`hfrender.errors.output_said`: ``output='f/%04d.png'`` to hf.render), as typed
    (``f/####.png``)."""
    if not is_sequence(output):
        return
    folder, rx = Path(output).parent, pattern_files(Path(output).name)
    try:  # the folder's names, not the run's (10 million frames: no list of their names)
        present = [e.name for e in folder.iterdir()]
    except OSError:
        return  # (no folder yet: nothing of anyone's there)
    wanted = [n for n in present if (m := rx.match(n)) and first <= int(m.group(1).strip())
              < first + count]
    there = {n: marks(folder / n) for n in sorted(wanted) if _filled(folder / n)}
    theirs = _theirs(there, sequence_id(output))
    said = output_said(typed_output(output), what)  # (f/####.png as typed, as the busy line)
    if theirs:
        raise WriterError(f"{said}: {folder / theirs[0]} is a frame of another sequence "
                          f"(another pattern printing the same names{_more(theirs)}), "
                          "which hfrender does not replace: remove it, or write to "
                          "another name")
    foreign = [n for n, (ours, _) in there.items() if not ours]
    if foreign:
        one = len(foreign) == 1
        raise WriterError(f"{said}: {folder / foreign[0]}{_more(foreign)} "
                          f"{'is' if one else 'are'} there and hfrender did not write "
                          f"{'it' if one else 'them'} (or an older hfrender did, before it "
                          "marked its frames); hfrender replaces only its own: remove "
                          f"{'it' if one else 'them'}, or write to another name")


def _filled(path: Path) -> bool:
    """A file with something in it (an empty one holds nothing to lose)."""
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False


def _others(folder: Path, there: dict[str, tuple[bool, str | None]], mine: str) -> None:
    """Frames of another sequence (``%03d``'s, where this is ``%d``) at names this one's
    would take (both patterns print them; ``there``: the marks of the files at them) are
    not replaced: the move is refused before it begins, the run's frames kept where they
    are (a review: replaced without a word)."""
    theirs = _theirs(there, mine)
    if theirs:
        raise FileExistsError(errno.EEXIST, f"a frame of another sequence (another pattern "
                              f"printing the same names{_more(theirs)}) is there",
                              str(folder / theirs[0]))


def _theirs(there: dict[str, tuple[bool, str | None]], mine: str) -> list[str]:
    """Of the files ``there`` (their marks), those of another sequence than ``mine``."""
    return [n for n, (_, sequence) in there.items() if sequence not in (None, mine)]


def _more(names: list[str]) -> str:
    return f" and {len(names) - 1} more" if names[1:] else ""


def _foreign(folder: Path, names: list[str], fate: str) -> None:
    """Warn of the files of a sequence's pattern that were not hfrender's, and their fate."""
    if names:
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        log.warning("%s holds %d file%s of the output's pattern without hfrender's mark "
                    "(the user's own, or an hfrender's from before it marked its frames: "
                    "%s): %s", folder, len(names), "" if len(names) == 1 else "s", shown,
                    fate)
