"""The names hfrender keeps its work under beside an output: a sequence's hidden folder
(``.f_####.png.partial/``) and partial folder (``f_####.png.partial/``), a video's hidden
file (``.x.mp4.partial.mp4``), work folder (``.x.mp4.hfrender/``) and joining file
(``.x.mp4.joining.mp4``). A run removes or replaces what is there, so where one is there
and is not hfrender's (a folder holding anything but its manifests, segments and marked
frames; a file that is not a video), the run is refused before any work (was: removed
without a word, a never-lose-work trial), as a foreign ``NAME.partial.mp4`` was."""

from __future__ import annotations

import re
from pathlib import Path

from hfrender.errors import output_said
from hfrender.io.frame_marks import SOFTWARE, written_by_hfrender
from hfrender.io.join import JOIN_LIST, JOIN_TAGS
from hfrender.io.outputs import partial_name, temporary
from hfrender.io.segment_files import SEGMENT_FILE
from hfrender.io.segments import MANIFEST, work_dir
from hfrender.io.sequence_commit import COMMITTING
from hfrender.io.sequence_names import is_sequence, pattern_files
from hfrender.io.writers import WriterError

# what hfrender writes in its folders besides frames: manifests, a move's list, segments, a
# join's list and tags
KNOWN = re.compile(rf"({re.escape(MANIFEST)}(\.tmp)?|{re.escape(COMMITTING)}(\.part)?|"
                   rf"{re.escape(JOIN_LIST)}|{re.escape(JOIN_TAGS)}|{SEGMENT_FILE})$")
# the first bytes of what hfrender's hidden files hold: Matroska/WebM, MP4/MOV, GIF (a TS:
# its sync byte every 188 bytes)
MEDIA = (b"\x1a\x45\xdf\xa3", b"GIF8")


def work_names(output: str) -> list[Path]:
    """The names ``output``'s runs keep their work under (see module)."""
    if is_sequence(output):
        return [Path(temporary(output)).parent, Path(partial_name(output)).parent]
    final = Path(output).resolve()
    return [Path(temporary(output)), work_dir(final),
            final.with_name(f".{final.name}.joining{final.suffix}")]


def check_work_names(output: str, what: str | None = None) -> None:
    """Each of ``output``'s work names (:func:`work_names`) that is there is hfrender's, and
    so is a file at ``output`` itself (:func:`check_not_foreign`): else one line, before
    any work."""
    check_not_foreign(output, what)
    frames = pattern_files(Path(output).name, r"(\.part)?") if is_sequence(output) else None
    folder = Path(output).parent
    if frames is not None and folder.is_dir():  # a folder at a frame's name (was: found
        for entry in folder.iterdir():  # once the whole render was done, a trial)
            if entry.is_dir() and frames.match(entry.name):
                raise WriterError(f"{output_said(output, what)}: {entry} is a folder, where "
                                  "a frame of the sequence would go: move it, or write to "
                                  "another name")
    for path in work_names(output):
        if (path.exists() or path.is_symlink()) and not _holds_ours(path, frames):
            raise WriterError(f"{output_said(output, what)}: {path} is there and is not "
                              "hfrender's, but hfrender keeps its work for this output under "
                              "that name and would remove it: move it, or write to another name")


def _holds_ours(path: Path, frames: re.Pattern | None) -> bool:
    """Whether ``path`` holds nothing but what hfrender keeps there."""
    if path.is_symlink():
        return False
    if path.is_file():
        return _media(path)
    try:
        entries = list(path.iterdir())
    except OSError:
        return False
    return all(e.is_file() and not e.is_symlink() and (
        KNOWN.match(e.name) or (frames is not None and frames.match(e.name) and (
            written_by_hfrender(e) or e.stat().st_size == 0))) for e in entries)


def _media(path: Path) -> bool:
    """An empty file, or one whose first bytes are a video's or a GIF's."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(377)
    except OSError:
        return False
    ts = len(head) == 377 and head[0] == head[188] == head[376] == 0x47
    return not head or ts or head.startswith(MEDIA) or head[4:8] in (
        b"ftyp", b"moov", b"wide", b"mdat", b"free")


VIDEO_MARK = SOFTWARE.encode()  # the comment every video of hfrender's holds
SPAN = 1 << 18  # where it is looked for: a file's first and last 256 KiB (MP4's moov, its
# metadata, may be at either end; Matroska's tags near the start)


def check_not_foreign(output: str, what: str | None = None) -> None:
    """A file at ``output`` (a video, a still) that hfrender did not write is refused, not
    replaced (was: a user's own video, or picture, replaced without a word, a
    never-lose-work trial; a GIF too, since its comment marks it: was replaced, a trial)."""
    path = Path(output)
    try:  # (a name too long, a folder not searchable: said by the checks of the path)
        if is_sequence(output) or not path.is_file() or path.stat().st_size == 0:
            return
    except OSError:
        return
    if path.suffix.lower() in (".png", ".exr"):
        ours = written_by_hfrender(path)
    else:
        ours = _video_marked(path)
    if not ours:
        raise WriterError(f"{output_said(output, what)}: a file is there that hfrender did not "
                          "write (or an older hfrender did, before it marked its outputs); "
                          "hfrender replaces only its own: remove it, or write to another name")


def _video_marked(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(SPAN)
            fh.seek(max(0, path.stat().st_size - SPAN))
            tail = fh.read(SPAN)
    except OSError:
        return True  # (what cannot be read is said by the writer, not here)
    return VIDEO_MARK in head or VIDEO_MARK in tail
