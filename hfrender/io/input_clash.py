"""An output that would replace or remove one of its run's own input files (the footage an
fx job reads, its depth pass): refused before anything is read."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from hfrender.errors import InputError, about, output_said
from hfrender.io.outputs import partial_name
from hfrender.io.partial_record import ours
from hfrender.io.sequence_names import is_sequence, pattern_files


def replaced_files(output: str) -> list[Path]:
    """The files that writing ``output`` would replace or remove: the file itself, or every
    existing file of a sequence's pattern (hfrender's own are removed, and any of a frame's
    name is replaced)."""
    out = Path(output)
    if not is_sequence(output):  # and an interrupted render's partial, ours to remove
        partial = Path(partial_name(output))
        return [f for f in (out, partial) if f.exists() and (f is out or ours(f))]
    rx = pattern_files(out.name, r"(\.part)?")
    if rx is None or not out.parent.is_dir():
        return []
    return [f for f in out.parent.iterdir() if rx.match(f.name)]


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)  # hard links and symlinks too
    except OSError:
        return False


def check_not_input(output: str, inputs: Iterable[tuple[str, Iterable[Path]]]) -> None:
    """Refuse an output that would replace one of the run's own input files (``inputs``:
    (what it is, its files)), before anything is read: ``-o OUT is the input (IN)``, a jobs
    file's job ``output = "OUT" ...`` as its file gives it (:func:`hfrender.errors.as_given`;
    was "-o", a flag a batch has not)."""
    replaced = replaced_files(output)
    for what, files in inputs:
        for f in files:
            hit = next((r for r in replaced if _same(r, f)), None)
            if hit is None:
                continue
            same = ("is" if _same(hit, Path(output)) else
                    f"would replace {hit}, a file of" if is_sequence(output) else
                    f"would remove {hit} (an interrupted render's partial output), which is")
            raise about(InputError, "output", output, f" {same} the {what} ({f}): write "
                        "the output elsewhere", head=output_said(output))
