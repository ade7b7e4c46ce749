"""Which files make an image sequence on disk: a pattern's (``in/%05d.png``), or a folder's
one sequence, in frame order, gaps refused; and the number of its first frame."""

from __future__ import annotations

import re
from pathlib import Path

from hfrender.io.probe import FootageError
from hfrender.io.sequence_names import FIELD, pattern_files

VIDEO_FILES = (".mp4", ".mov", ".mkv", ".webm", ".avi", ".m4v", ".mxf", ".ts", ".mts",
               ".m2ts", ".mpg", ".mpeg", ".wmv", ".flv", ".3gp", ".ogv")  # no frames of one
# the pictures a folder's sequence is made of, as fx reads them (TIFF, JPEG: through Pillow;
# was PNG and EXR alone, a folder of JPEGs "no PNG or EXR images in it", its pattern read)
FOLDER_KINDS = (".png", ".exr", ".tif", ".tiff", ".jpg", ".jpeg")
# a depth pass's (16-bit PNG, EXR) and motion vectors' (EXR) folders: the JPEG or PNG
# previews beside their frames are no depth, no vectors
DEPTH_KINDS, VECTOR_KINDS = (".png", ".exr"), (".exr",)


def sequence_files(path: str, kinds: tuple[str, ...] = FOLDER_KINDS) -> list[Path] | None:
    """The files of an image sequence (a folder, or a pattern such as ``in/%05d.png``) in
    frame order; None if ``path`` is not one. ``kinds``: the suffixes a folder's sequence is
    made of (a depth pass's PNG and EXR alone: a JPEG preview beside them is no frame)."""
    p = Path(path)
    if p.is_dir():
        pattern = folder_pattern(p, kinds)
        return sequence_files(str(p / pattern)) if pattern else None
    if "%" in p.name:
        rx = pattern_files(p.name)
        if rx is None or p.is_file():  # a file of that very name is itself (a%d.mp4)
            return None
        if p.suffix.lower() in VIDEO_FILES:  # (was: each video read as a frame, a crash)
            raise FootageError(f"{path}: a sequence's frames are images (PNG or EXR: "
                               f"frames/%05d.png), not {p.suffix} videos")
        there = list(p.parent.iterdir()) if p.parent.is_dir() else []
        found = sorted((int(mm.group(1)), f) for f in there if (mm := rx.match(f.name)))
        if not found:
            _near_miss(path, there)
        _moving(path)
        for (a, _), (b, _) in zip(found, found[1:], strict=False):
            if b != a + 1:
                raise FootageError(  # (was: no more, a footage trial)
                    f"{path}: frame {a + 1} is missing (the sequence jumps from {a} to {b}); "
                    "a sequence is read only unbroken: put the missing frames back (or "
                    f"copies of frame {a} in their place)")
        _empty(path, found)
        return [f for _, f in found] or None
    return None


def _empty(path: str, found: list[tuple[int, Path]]) -> None:
    """One line, before any work, where a frame of the sequence is an empty file: Blender's
    placeholder for a frame still rendering, or a copy cut short (was: "Unable to open ...
    for read" once the frames before it were made, a compositor's trial)."""
    for n, f in found:
        try:
            empty = f.stat().st_size == 0
        except OSError:  # gone since it was listed: its read says so
            continue
        if empty:
            raise FootageError(f"{path}: frame {n} ({f.name}) is an empty file (0 bytes: a "
                               "render's placeholder for a frame not yet rendered, or a copy "
                               "cut short); put the finished frame in its place")


def _moving(path: str) -> None:
    """One line where a render was putting its frames in place over the sequence when it
    was killed (its list of them is still there): its frames and an older render's are
    mixed, the whole length there (was: read as it was, a never-lose-work trial)."""
    from hfrender.io.outputs import temporary
    from hfrender.io.sequence_commit import COMMITTING

    listing = Path(temporary(path)).parent / COMMITTING
    if listing.is_file():
        raise FootageError(f"{path}: a render was putting its frames in place over these "
                           f"when it stopped ({listing} lists them), so they mix two renders; "
                           "run that render again with --resume to finish the move")


def folder_pattern(folder: Path, kinds: tuple[str, ...] = FOLDER_KINDS) -> str | None:
    """The pattern of the one image sequence in ``folder`` (``f.%04d.png``: its files' last
    number the frame's), so that a folder is read as that pattern is, gaps refused; None
    for no image (of ``kinds``, :data:`FOLDER_KINDS` unless told); one line where the
    folder holds another file or sequence beside it (a slate, an earlier output, the same
    frames as JPEGs), which a folder read whole would take in as frames."""
    alike: dict[str, list[str]] = {}  # names alike but for their numbers
    for f in folder.iterdir():
        if f.suffix.lower() in kinds:
            alike.setdefault(re.sub(r"\d+", "#", f.name), []).append(f.name)
    groups: dict[tuple[str, str], list[int]] = {}
    for names in alike.values():
        for key, width in _frame_numbers(names):
            groups.setdefault(key, []).append(width)
    if not groups:
        return None
    if len(groups) > 1 or -1 in next(iter(groups.values())):
        names = sorted(a + ("#" if -1 not in w else "") + b for (a, b), w in groups.items())
        most = max(sorted(groups), key=lambda k: len(groups[k]))  # the longest, for example
        raise FootageError(f"{folder} holds more than one image sequence ({', '.join(names)}"
                           f"); give the one to read as a pattern, e.g. "
                           f"{folder / _as_pattern(most, set(groups[most]))}")
    key, widths = next(iter(groups.items()))
    return _as_pattern(key, set(widths))


def _frame_numbers(names: list[str]) -> list[tuple[tuple[str, str], int]]:
    """((the name before and after its frame number), the number's width) of names alike
    but for their numbers: the frame number is the one that changes from name to name
    (``s2.1001_v2.png``: 1001), else the last; width -1 for a name without one."""
    runs = [list(re.finditer(r"\d+", n)) for n in names]
    if not runs[0]:
        return [((n, ""), -1) for n in names]
    varying = [i for i in range(len(runs[0])) if len({r[i].group() for r in runs}) > 1]
    k = varying[0] if len(varying) == 1 else -1
    return [((n[:r[k].start()], n[r[k].end():]), len(r[k].group()))
            for n, r in zip(names, runs, strict=True)]


def _as_pattern(key: tuple[str, str], widths: set[int]) -> str:
    """``head%0Nd.tail`` where every number is N digits wide, else ``head%d.tail``."""
    head, tail = key
    return f"{head}%0{min(widths)}d{tail}" if len(widths) == 1 and -1 not in widths \
        else f"{head}%d{tail}"


def sequence_start(path: str, kinds: tuple[str, ...] = FOLDER_KINDS) -> int:
    """The number of an image sequence's first frame: a pattern's field in its first file
    (``shot.%04d_v2.png``: 1001 of ``shot.1001_v2.png``; a folder's, through its pattern,
    :func:`folder_pattern` of ``kinds``); 0 for a video or a name without one."""
    p = Path(path)
    pattern = folder_pattern(p, kinds) if p.is_dir() else None
    if pattern:
        p = p / pattern
    if "%" not in p.name:
        return 0
    files, rx = sequence_files(str(p)), pattern_files(p.name)
    m = rx.match(files[0].name) if files and rx is not None else None
    return int(m.group(1)) if m else 0


def output_start(path: str) -> int:
    """The number of footage ``path``'s first frame, as an output sequence takes it: a
    sequence's (:func:`sequence_start`); one picture's own, as the folder holding it gives
    it (``shot.1005.png``: 1005; was 0, a trial), 0 for a name without a number; a video's
    0."""
    from hfrender.io.exr_footage import is_one_image

    if not is_one_image(path):
        return sequence_start(path)
    name = Path(path).name
    (head, tail), width = _frame_numbers([name])[0]
    return int(name[len(head):len(name) - len(tail)]) if width > 0 else 0


def _near_miss(path: str, there: list[Path]) -> None:
    """A pattern of another width than the files beside it (in/%05d.png for Blender's
    0001.png ...): the pattern that reads them, in one line, rather than 'not found'."""
    p = Path(path)
    loose = pattern_files(p.name, any_width=True)
    names = sorted(f.name for f in there if loose.match(f.name))
    if not names:
        return
    widths = {len(loose.match(n).group(1)) for n in names}
    spec = f"%0{widths.pop()}d" if len(widths) == 1 else "%d"
    hint = str(p.parent / FIELD.sub(spec, p.name, count=1))
    raise FootageError(f"{path}: no file has the names this pattern prints; {p.parent} holds "
                       f"{names[0]} ... ({len(names)} files): give {hint}, or the folder")
