"""Where a sample store may go (``--keep-samples DIR``), checked before any work: not over
a user's files, the output, or another's unfinished store; and the warning where a complete
store there is replaced."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from hfrender.errors import spelling
from hfrender.io.outputs import cannot_make, partial_name
from hfrender.io.sequence_names import is_sequence, pattern_files
from hfrender.io.store_manifest import CHUNK_FILE, MANIFEST, MARKER, StoreError, partial_dir

log = logging.getLogger("hfrender.io.store")  # (its warnings' logger, as before the split)


def check_target(path: str | Path, output: str | None = None) -> None:
    """``path`` may become a store: absent, an empty folder, or a store (replaced when the
    new one is complete), with no ``DIR.partial`` of anyone else's beside it, and not
    around ``output`` (replacing the store would take the output with it); anything else
    is refused before any work."""
    p, spell = Path(path), spelling()  # named as the command's flag, hf.render's keyword
    named = spell.said("keep_samples", p if spell.flags else str(path))  # (was the flag)
    if p.name.endswith(".partial"):  # (was: kept, then refused by reexpose as one unfinished)
        raise StoreError(f"{named}: a name ending .partial is a store's while it is "
                         f"written; give another (e.g. {p.with_name(p.stem + '.samples')})")
    if p.exists() and not p.is_dir():
        raise StoreError(f"{named}: a file is there; give a folder for the store")
    if p.is_dir() and any(p.iterdir()) and not (p / MANIFEST).is_file():
        raise StoreError(f"{named}: the folder is not empty and holds no sample "
                         "store; give a new or empty folder")
    others = sorted(f.name for f in p.iterdir() if not _ours(f.name)) if p.is_dir() else []
    if others:
        raise StoreError(f"{named}: the store holds {others[0]}"
                         f"{f' and {len(others) - 1} more' if len(others) > 1 else ''}, which "
                         "replacing the store would delete; move it out, or give another folder")
    tmp = partial_dir(p)
    if tmp.exists() and not (tmp.is_dir() and (tmp / MARKER).is_file()):
        raise StoreError(f"{named}: {tmp} is there and is not an interrupted "
                         "sample store of hfrender's; move it, or give another folder")
    if output is not None and p.resolve() in Path(output).resolve().parents:
        raise StoreError(f"{named}: the output {output} would be inside the "
                         "store; keep the store beside the output, not around it")
    what = _one_of_the_outputs(p, output) if output is not None else None
    if what is not None:
        raise StoreError(f"{named}: that is where {what} goes; give the store a "
                         f"folder of its own (e.g. {Path(output).parent / 'render.samples'})")
    parent = p.resolve().parent
    while not parent.exists() and parent != parent.parent:  # made with the store
        parent = parent.parent
    if not parent.is_dir():
        raise StoreError(f"{named}: {parent} is a file, not a folder")
    if refused := cannot_make(parent):  # (was: os.access, which let root through to /proc:
        # an internal error once the render began, a trial; and no reason said)
        raise StoreError(f"{named}: cannot write in {refused}")


def warn_replacing(path: str | Path) -> None:
    """A warning where ``path`` holds a complete store: this render replaces it once it
    completes (said before the work: a kept render may have taken hours)."""
    try:
        meta = json.loads((Path(path) / MANIFEST).read_text())
        held = f"{meta['subframes']} sub-frames of {Path(meta['settings']['scene']).name}"
    except (OSError, ValueError, TypeError, KeyError):
        return  # no store there (or not one to read: check_target refuses what it must)
    spell = spelling()
    log.warning("%s: the store there (%s) is replaced once this render completes; give "
                "another folder to keep it", spell.said("keep_samples", path if spell.flags
                                                        else str(path)), held)


def _ours(name: str) -> bool:
    """A file a store is made of: its manifest, sub-frame times and chunks."""
    return (name in (MANIFEST, "times.npy", ".DS_Store")  # (and a file browser's own)
            or CHUNK_FILE.fullmatch(name) is not None)


def _one_of_the_outputs(store: Path, output: str) -> str | None:
    """What of the output's the store's path is (None: none of it): the output itself, one
    of its frames (a sequence's file name), or its partial output; found only at the end,
    after the whole render."""
    here = store.resolve()
    if here == Path(output).resolve():
        return f"the output {output}"
    if here == Path(partial_name(output)).resolve():
        return f"the partial output of {output} (an interrupted render's frames)"
    rx = pattern_files(Path(output).name) if is_sequence(output) else None
    if rx is not None and here.parent == Path(output).resolve().parent and rx.match(here.name):
        return f"a frame of the output {output}"
    return None


def check_not_inside(store: str | Path, output: str) -> None:
    """An output written into a store would go when the store is replaced: refused."""
    if Path(store).resolve() in Path(output).resolve().parents:
        raise StoreError(f"-o {output} is inside the sample store {store}; write it beside the "
                         "store (a new --keep-samples there would delete it)")
