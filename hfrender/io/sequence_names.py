"""Names of image sequences: a pattern such as ``frames/%05d.png``, whether an output is
one, and the file names it prints (as ffmpeg reads them)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from hfrender.errors import InputError, output_said

FIELD = re.compile(r"%(0?)(\d*)d")  # a sequence pattern's number: %d, %04d, %5d


def home_path(text: str) -> str:
    """``text`` with a leading ``~`` or ``~user`` expanded as a shell would, where no shell
    did (``-o=~/out.mp4``, a jobs file's paths: was a folder named ``~`` made here); any
    other path as given."""
    return os.path.expanduser(text) if text.startswith("~") else text


def is_sequence(path: str) -> bool:
    """Whether ``path`` names an image sequence: a ``%d`` field in its file name (a
    video named ``speed 100%.mp4`` is a video)."""
    return FIELD.search(Path(path).name) is not None


def files_said(output: str, first: int, count: int) -> str:
    """How a finished command names what it wrote: a video's name; an image sequence's
    first and last files (``out/exr/0000.exr .. 0029.exr``; one: its file), the frames
    numbered from ``first`` (was the pattern, ``out/exr/%04d.exr``, which names no file)."""
    if not is_sequence(output) or count < 1:
        return output
    head, name = os.path.split(output)  # (the field is in the name: a folder may hold %)
    said = os.path.join(head, name % first)
    return said if count == 1 else f"{said} .. {name % (first + count - 1)}"


def sequence_name(text: str) -> str:
    """An image sequence named as Blender and Nuke name them, ``frames/####.png`` or
    ``shot.####.exr``, as the printf pattern hfrender reads (``%04d``): the last run of
    ``#`` in the file name, between its start or ``._-`` and a ``.``; all else as given.
    The name typed is remembered for :func:`typed_output`: a pattern this made, named
    again, keeps it (was dropped: said as ``f/%04d.png``); one typed as printf is named
    so from then on."""
    if isinstance(text, _Made):  # (its own pattern, handed on: named as it was typed)
        return text
    cut = max(text.rfind("/"), text.rfind("\\")) + 1
    head, name = text[:cut], text[cut:]
    runs = [] if is_sequence(name) or not name.lower().endswith((".png", ".exr")) else \
        list(re.finditer(r"(?:(?<=^)|(?<=[._-]))#+(?=\.)", name))
    if not runs:  # (a printf pattern already; "100% ####.png" has none)
        _TYPED.pop(text, None)  # (typed so now)
        return text
    last = runs[-1]
    named = _Made(f"{head}{name[:last.start()]}%0{len(last.group())}d{name[last.end():]}")
    _TYPED[named] = text
    return named


class _Made(str):
    """A printf pattern :func:`sequence_name` made of a name typed otherwise (``####``)."""


_TYPED: dict[str, str] = {}  # a pattern sequence_name made -> the name last typed for it


def typed_output(output: str) -> str:
    """``output`` as its user typed it last: ``f/####.png`` for the ``f/%04d.png``
    :func:`sequence_name` made of it (a refusal named the pattern, never typed: a trial),
    else as it is."""
    return _TYPED.get(output, output)


def is_picture(path: str) -> bool:
    """Whether ``path`` names one picture (``out.png``, ``out.exr``: fx's output of
    footage that makes one frame), not a sequence of them."""
    return Path(path).suffix.lower() in (".png", ".exr") and not is_sequence(path)


def pattern_files(name: str, suffix: str = "", any_width: bool = False) -> re.Pattern | None:
    """The file names of an image-sequence pattern such as ``%05d.png`` (the number as group
    1, then ``suffix``, a regex); None if ``name`` has no ``%d``. Only the names the pattern
    prints, as ffmpeg reads them: ``%04d`` is 0012 or 12345, never 00012 (a ``%05d``
    sequence beside it is another one, not frames to replace); ``any_width``: numbers of
    any count of digits (what a pattern of another width would read)."""
    m = FIELD.search(name)
    if m is None:
        return None
    width = int(m.group(2) or 0)
    if any_width:
        number = r"(\d+)"
    elif m.group(1) and width > 1:  # zero-padded: exactly the width, or longer with no lead 0
        number = rf"(\d{{{width}}}|[1-9]\d{{{width},}})"
    elif width > 1:  # space-padded: exactly the width, or longer
        short = [" " * (width - k) + (r"\d" if k == 1 else rf"[1-9]\d{{{k - 1}}}")
                 for k in range(1, width + 1)]
        number = "(" + "|".join(short + [rf"[1-9]\d{{{width},}}"]) + ")"
    else:
        number = r"(0|[1-9]\d*)"
    return re.compile(re.escape(name[: m.start()]) + number + re.escape(name[m.end():])
                      + suffix + "$")


def check_output_name(output: str, instead: str | None = None,
                      named: Callable[[str], str] = output_said) -> None:
    """One line for an output named as a folder, ``-o out.mp4/`` (it ends in a slash; was
    written as ``out.mp4``, ``still -o s.png/`` as ``s.png``), before anything is rendered:
    name ``instead`` (default: the file or the frames without the slash, or a file or
    frames in that folder); ``named``: how the user gave an output (default
    :func:`hfrender.errors.output_said`: ``-o X``, hf.render's ``output='X'``; a jobs
    file's ``output = "X"``)."""
    if not output.endswith(("/", os.sep)):
        return
    if instead is None:
        from hfrender.io.ffmpeg import VIDEO_SUFFIXES

        path = Path(output)  # (the slash dropped)
        instead = (
            f"the file ({named(str(path))})" if path.suffix.lower() in VIDEO_SUFFIXES else
            f"the frames ({named(str(path))})" if is_sequence(sequence_name(str(path))) else
            f"a file or frames in it ({named(str(path / 'out.mp4'))}, "
            f"{named(str(path / '%05d.png'))})")
    raise InputError(f"{named(output)}: a folder's name (it ends in /); name {instead}")
