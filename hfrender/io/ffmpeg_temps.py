"""hfrender's own temporary files beside an ffmpeg run, in the temporary folder: a
variable-rate video's timing script (``.filter``), the container tags it gets
(``.ffmetadata``-format ``.tags``), an image sequence's ``.ffconcat`` list. Each is made
whole or not at all (:func:`temp_file`), and its maker removes it on every way out: the
run's end, an ffmpeg that does not start or stops midway, a Ctrl-C while it starts
(:func:`remove_temps`; was: left behind in /tmp by any of those but the end)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hfrender.io.container_tags import output_tags, write_tags

PREFIX = "hfrender-"  # (mkstemp's own random name follows: never a user's file)


def temp_file(suffix: str, write: Callable[[Path], object]) -> str:
    """A new temporary file's name, ``write`` having filled it; removed if that fails."""
    import tempfile

    fd, name = tempfile.mkstemp(prefix=PREFIX, suffix=suffix)
    os.close(fd)
    try:
        write(Path(name))
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return name


def remove_temps(*names: str | None) -> None:
    """Remove the temporary files ``names`` (None: none made) where they still are."""
    for name in names:
        if name is not None:
            Path(name).unlink(missing_ok=True)


def tags_file(output: str, encoding: object) -> str | None:
    """A temporary ffmetadata file of the container tags ``output`` gets of ``encoding``'s
    (:func:`hfrender.io.container_tags.write_tags`: a tag over 128 KiB was past an
    argument's length); None where it gets none."""
    tags = getattr(encoding, "tags", ())
    if not output_tags(output, tags):
        return None
    return temp_file(".tags", lambda path: write_tags(path, output, tags))
