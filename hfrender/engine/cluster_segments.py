"""A chunked render's segments, as the driver keeps them (``--ray``: render and fx alike).

The chunks' segments come back in any order: each is checked against its checksum and kept
in the output's work folder with the manifest (:func:`keep_segment`); a run that goes on
finds an interrupted one's whole, unchanged segments again (:func:`whole_segments`); the
join takes them only once they tile the output's frames (:func:`tiled`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from hfrender.checksum import sha256_file
from hfrender.errors import InputError
from hfrender.io.segments import Manifest, as_kept, fresh_work_dir, work_dir


def whole_segments(output: str, settings: dict, total: int, segment_frames: int,
                   granularity: int, suffix: str) -> Manifest:
    """The manifest of an interrupted run of the same ``settings`` into ``output``, with
    the segments that are whole and unchanged (chunks end in any order: all of them
    count) and in the container this run writes (``suffix``: an older hfrender's .mkv
    ones are made again, not joined with .mov ones), else a new one in a fresh work
    folder."""
    folder = work_dir(output)
    try:
        old = Manifest.load(folder)
    except InputError:
        old = None
    if old is not None and old.settings == as_kept(settings):
        old.segments = [seg for seg in old.segments if seg["file"].endswith(suffix)
                        and (folder / seg["file"]).is_file()
                        and sha256_file(folder / seg["file"]) == seg["sha256"]]
        return old
    fresh_work_dir(output, "drawn here, with this machine's GL and fusion backend: on Ray "
                           "each chunk is its worker's; a run goes on from them without "
                           "--ray" if _drawn_here(old, settings) else None)  # (was: "only
    # with the same settings", a trial)
    folder.mkdir(parents=True)
    manifest = Manifest(settings, total, segment_frames, granularity)
    manifest.save(folder)
    return manifest


def tiled(segments: list[dict], total: int) -> list[dict]:
    """``segments`` in order, where each starts as the one before ends and the last ends at
    ``total``; else a bug, raised before any output is written (segments cut two ways
    overlapped in a join, 147 frames for 90: a review)."""
    order = sorted(segments, key=lambda seg: seg["first"])
    ends = [seg["first"] + seg["count"] for seg in order]
    if [seg["first"] for seg in order] != [0, *ends[:-1]] or ends[-1:] != [total]:
        raise RuntimeError(f"segments {[(g['first'], g['count']) for g in order]} do not "
                           f"make frames 0..{total - 1} once each")
    return order


def _drawn_here(old: Manifest | None, settings: dict) -> bool:
    """Whether ``old`` is a local run's of these ``settings`` but for its GL and backend
    (which a Ray run's chunks each record for themselves)."""
    def rest(kept: dict) -> dict:
        return {k: v for k, v in kept.items() if k not in ("gl_renderer", "backend")}

    return old is not None and old.settings.get("gl_renderer") != "ray" and \
        rest(old.settings) == rest(as_kept(settings))


def keep_segment(manifest: Manifest, folder: Path, chunk: dict, name: str) -> None:
    """A chunk that came back: its checksum checked, its segment kept in ``folder`` as
    ``name``, the manifest updated (segments in frame order; chunks end in any order)."""
    if hashlib.sha256(chunk["data"]).hexdigest() != chunk["sha256"]:
        raise InputError(f"segment at frame {chunk['first']} came back damaged "
                         "(its checksum does not match)")
    part = folder / (name + ".part")
    part.write_bytes(chunk["data"])
    os.replace(part, folder / name)
    made = {k: chunk[k] for k in ("gl", "backend") if k in chunk}  # where it was drawn, fused
    manifest.segments.append({"first": chunk["first"], "count": chunk["count"], "file": name,
                              "sha256": chunk["sha256"], **made})
    manifest.segments.sort(key=lambda seg: seg["first"])
    manifest.save(folder)
