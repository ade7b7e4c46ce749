"""Putting a finished output in place: written under a temporary name beside it, renamed
when complete, so that a file which looks complete is complete (and an older one at the
same path is untouched until then)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from hfrender.io.writers import is_sequence, remove_stale


def temporary(output: str) -> str:
    """Where ``output`` is written until it is complete (a hidden name beside it; for an
    image sequence, a hidden folder beside its folder)."""
    out = Path(output).resolve()
    if is_sequence(output):
        return str(out.parent.with_name(f".{out.parent.name or 'frames'}.partial") / out.name)
    return str(out.with_name(f".{out.name}.partial{out.suffix}"))


def commit(tmp: str, output: str) -> None:
    """Put the complete ``tmp`` in place of ``output``."""
    if is_sequence(output):
        src, dst = Path(tmp).parent, Path(output).resolve().parent
        dst.mkdir(parents=True, exist_ok=True)
        remove_stale(str(dst / Path(output).name))  # an older render's frames
        for f in sorted(src.iterdir()):
            os.replace(f, dst / f.name)
        shutil.rmtree(src, ignore_errors=True)
    else:
        os.replace(tmp, output)


def discard(tmp: str) -> None:
    """Remove what an unfinished run wrote under ``tmp``."""
    if is_sequence(tmp):
        shutil.rmtree(Path(tmp).parent, ignore_errors=True)
    else:
        Path(tmp).unlink(missing_ok=True)
