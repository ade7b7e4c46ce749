"""The files a render's scene read by the end of what it has made, for ``--resume``: a font
or surface shader that ``update(t)`` gives from t = 1 s on counts from the first
hyperframe drawn with it (was: only those of the render's first two frames were checked,
and a resumed video mixed an old and a changed font); on Ray, those each chunk's scene read
(:func:`with_chunk_files`), and what may be sent to the workers (:func:`files_inside`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hfrender.checksum import sha256_file
from hfrender.config import ConfigError
from hfrender.errors import InputError
from hfrender.io.resume import kept_work
from hfrender.io.segments import Manifest
from hfrender.scene.sources import read_files, scene_assets


class FilesRead:
    """The scene's files (sha256 by name, as the settings' ``scene_files`` keep them) read
    so far in a run, each read once: :meth:`grown` is asked on the drawing thread before a
    hyperframe is handed over, so that the frames written of it are kept with their files
    named (:meth:`.RenderOutput.files_read`; after ``kill -9`` too)."""

    def __init__(self, scene: Any, settings: dict) -> None:
        self.scene = scene
        self.files: dict[str, str] = dict(settings.get("scene_files") or {})

    def grown(self) -> dict[str, str] | None:
        """Every file read so far, where one was read first since the last call; else None."""
        grown = joined(self.files, scene_assets(self.scene, self.files))
        if grown is not None:
            self.files = grown
        return grown


def joined(known: dict[str, str], found: dict[str, str]) -> dict[str, str] | None:
    """``known`` and the files of ``found`` it does not name (those it names keep their
    sha256, the first a run recorded), sorted by name; None where ``found`` names none
    new."""
    if found.keys() <= known.keys():
        return None
    return dict(sorted({**found, **known}.items()))


def with_later_files(settings: dict, output: str, scene_file: str | Path) -> None:
    """``settings`` (a ``--resume``'s) given, as they are now, the files the interrupted
    run's scene read after the first frames (its manifest's that these lack): one changed
    since is refused as the others are, one gone is said to be gone."""
    folder = kept_work(output)
    try:
        kept = Manifest.load(folder) if folder is not None else None
    except InputError:  # a damaged manifest: resume_from says so
        return
    theirs = kept.settings.get("scene_files") if kept is not None else None
    if not isinstance(theirs, dict):
        return
    mine = dict(settings.get("scene_files") or {})
    root = Path(scene_file).resolve().parent
    for name in theirs.keys() - mine.keys():
        if (root / name).is_file():  # (a name outside the folder is whole: root / it is it)
            mine[name] = sha256_file(root / name)
    if mine:
        settings["scene_files"] = dict(sorted(mine.items()))


def with_chunk_files(settings: dict, files: dict[str, str] | None, folder: Path,
                     frames: str) -> dict:
    """``settings`` (a Ray render's manifest's) given the files a chunk's scene read
    (``files``: its worker's :func:`.scene_assets`, names relative to the scene's folder),
    where it read one they do not name yet (else they themselves). Those named keep their
    sha256 (the first a run recorded). One outside ``folder`` (a whole path: a font
    ``update(t)`` gave at the chunk's ``frames`` alone, which a worker elsewhere lacks) is
    refused in one line, before the chunk is kept (was: drawn where the worker had it)."""
    files = files or {}
    outside = next((Path(n) for n in files if Path(n).is_absolute()), None)
    if outside is not None:
        raise _not_sent(outside, f"in update(t) (at {frames})", folder, "file")
    grown = joined(settings.get("scene_files") or {}, files)
    return settings if grown is None else {**settings, "scene_files": grown}


def files_inside(scene: Any, folder: Path) -> None:
    """The files the scene reads (:func:`~hfrender.scene.sources.read_files`: models and
    theirs, fonts, a shader's pictures and common file; a look's copy's, those ``update(t)``
    gives too: :func:`~hfrender.scene.ready.looked_over`) must lie in its folder, the one
    sent to the workers (one line, before any work; was: every chunk failed, "model file not
    found", naming the worker's temporary copy)."""
    for path, kind in read_files(scene):
        within = path.is_relative_to(folder)
        hidden = within and any(p.startswith(".") for p in path.relative_to(folder).parts)
        if not within or hidden:  # hidden folders are not sent either (scene_files)
            raise _not_sent(path, "", folder, kind, hidden)


def _not_sent(path: Path, when: str, folder: Path, kind: str, hidden: bool = False
              ) -> ConfigError:
    """The line refusing a file the scene reads that is not sent to Ray's workers."""
    where = (f"in a hidden folder of {folder}, which is not sent" if hidden else
             f"outside its folder {folder}")
    return ConfigError(f"--ray: the scene loads {path}{' ' + when if when else ''}, {where} "
                       "(only that folder, hidden files left out, goes to the workers); put "
                       f"the {kind} in it, or render without --ray")
