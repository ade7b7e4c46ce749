"""Where an interrupted run goes on from (``--resume``): a video's whole segments
(:mod:`.segments`), or an image sequence's finished frames.

A sequence is written into a hidden folder inside its own (:func:`.outputs.temporary`)
with the run's manifest (its settings); an interruption moves that folder to the visible
partial one (:func:`.outputs.partial_name`), ``kill -9`` leaves it where it is. Every frame
there is whole (each is renamed into place when complete), so ``--resume`` takes either
folder back and goes on after the last frame of an unbroken run from the first.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from hfrender.errors import InputError, pastable, spelling
from hfrender.io import segments
from hfrender.io.frame_marks import EXR_MAGIC
from hfrender.io.outputs import partial_name, temporary
from hfrender.io.segments import MANIFEST, Manifest, as_kept
from hfrender.io.sequence_commit import committing, moved_away
from hfrender.io.sequence_names import is_sequence, pattern_files

log = logging.getLogger(__name__)


def _kept_folder(output: str) -> Path | None:
    """The folder of an interrupted run's frames of sequence ``output`` (the hidden one
    that a crash left first, else the partial one), None where neither has a manifest."""
    for folder in (Path(temporary(output)).parent, Path(partial_name(output)).parent):
        if (folder / MANIFEST).is_file():
            return folder
    return None


def interrupted(output: str | Path) -> bool:
    """Whether an interrupted run of ``output`` left work to go on from."""
    return kept_work(output) is not None


def kept_work(output: str | Path) -> Path | None:
    """The folder of the work an interrupted run of ``output`` left (None: none)."""
    if is_sequence(str(output)):
        return _kept_folder(str(output))
    return segments.work_dir(output) if segments.interrupted(output) else None


def frames_kept(output: str) -> int:
    """Frames an interrupted or failed run of ``output`` made that the next run (``--resume``,
    a batch's) does not make again: a video's whole segments, a sequence's frames (each
    whole); a GIF's none (it starts over: its palette is made whole). A batch summary's
    ``frames`` of such a job, here and on Ray."""
    if not is_sequence(output):
        return segments.frames_in_segments(output) if segments.resumable(output) else 0
    folder, rx = _kept_folder(output), pattern_files(Path(output).name)
    moving = committing(folder) if folder else None
    if moving is not None:
        return len(moving)
    return sum(1 for f in folder.iterdir() if rx.match(f.name)) if folder and rx else 0


def _resume() -> str:
    """``--resume``, or ``resume=True`` inside ``hf.render`` (:func:`errors.spelling`)."""
    return spelling().on("resume")


def resume_from(output: str, settings: dict, verb: str, offset: int = 0
                ) -> tuple[int, Manifest]:
    """(frames already made, counted from output frame ``offset``; manifest) of an
    interrupted run of the same ``settings`` into ``output``; InputError naming what
    stands in the way."""
    if not is_sequence(output):
        return _from_segments(output, settings, verb)
    folder = _kept_folder(output)
    if folder is None:
        raise InputError(f"{_resume()}: nothing to resume for {output} (no interrupted run's "
                         f"frames in {Path(partial_name(output)).parent}); {verb} without "
                         f"{_resume()}")
    manifest = _matching(output, folder, settings, verb)
    if committing(folder) is not None:  # every frame was made; their move was cut short
        gone = moved_away(folder, output)
        if gone:
            raise InputError(f"{_resume()}: {len(gone)} frame(s) of the interrupted run, put in "
                             f"place before it stopped, are gone ({gone[0]} ...); {verb} "
                             f"without {_resume()} to make them all again")
        return manifest.total_frames, manifest
    name, made = Path(output).name, 0
    while made < manifest.total_frames and (folder / (name % (offset + made))).is_file():
        if not whole_picture(folder / (name % (offset + made))):
            log.warning("%s, kept by the interrupted run, is cut short (a crash before the "
                        "disk had it all): it and the frames after it are rendered again",
                        folder / (name % (offset + made)))
            break
        made += 1
    return made, manifest


PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"  # a PNG's last chunk, empty


def whole_picture(path: Path) -> bool:
    """Whether a kept frame is whole as far as its ends tell: a PNG from its signature to
    its IEND chunk, an EXR with its magic number (was: a 0-byte frame of a crash kept,
    and the resumed sequence finished with it)."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - len(PNG_END)))
            tail = f.read()
    except OSError:
        return False
    if path.suffix.lower() == ".png":
        return head == b"\x89PNG\r\n\x1a\n" and tail == PNG_END
    return head[:4] == EXR_MAGIC and size > 64 if path.suffix.lower() == ".exr" else size > 0


def _from_segments(output: str, settings: dict, verb: str) -> tuple[int, Manifest]:
    """(first frame still to make, manifest) of an interrupted run of the same
    ``settings`` into ``output``; InputError naming what stands in the way. ``verb`` is the
    command's own word in the messages ("render")."""
    if not segments.resumable(output):
        raise one_piece(output, segments.one_piece_why(output), verb)
    folder = segments.work_dir(output)
    manifest = _matching(output, folder, settings, verb)
    return manifest.covered(folder), manifest


def one_piece(output: str, why: str, verb: str) -> InputError:
    """``--resume`` of an ``output`` written in one piece (``why``): nothing of a run is
    kept to go on from; one that is there is whole (was: "cannot be resumed" of a finished
    one too, as if half made)."""
    if Path(output).exists():
        return _finished(output, verb)
    return InputError(f"{_resume()}: {output} cannot be resumed ({why}); {verb} it again")


def _finished(output: str, verb: str) -> InputError:
    return InputError(f"{_resume()}: nothing to resume for {output} ({output} is there, and "
                      f"no run of it was interrupted); {verb} without {_resume()} to make it "
                      "again")


def _matching(output: str, folder: Path, settings: dict, verb: str) -> Manifest:
    """The manifest an interrupted run of ``output`` left in ``folder``, of these
    ``settings``; InputError naming what stands in the way."""
    try:
        manifest = Manifest.load(folder)
    except InputError as exc:
        raise InputError(f"{_resume()}: {exc}".replace("render without", f"{verb} without")
                         ) from None
    if manifest is None:
        if Path(output).exists():  # finished: its work folder went when it was joined
            raise _finished(output, verb)
        raise InputError(f"{_resume()}: nothing to resume for {output} (no {folder}); {verb} "
                         f"without {_resume()}")
    settings = as_kept(settings)
    if manifest.settings != settings and made_here_alike(manifest, settings):
        manifest.settings = settings  # a Ray run's segments, drawn and fused as here
    if manifest.settings != settings:
        told = manifest.differences(settings)
        if manifest.settings.get("gl_renderer") == "ray":  # a Ray run's GL and backend are
            told = [d for d in told if not d.startswith(("backend ", "gl-renderer "))] or told
        changed = "; ".join(told[:4])  # the workers' own: not what the user changed
        raise InputError(f"{_resume()}: the settings changed since the interrupted {verb} "
                         f"({changed}); {verb} without {_resume()} to start over")
    return manifest


def made_here_alike(manifest: Manifest, settings: dict) -> bool:
    """Whether a ``render --ray`` run's segments are what a run with ``settings`` here
    makes: its settings differ only in the GL renderer ("ray": each worker's own) and an
    ``auto`` backend, and every segment was drawn with this GL and fused on this backend
    (as each chunk said)."""
    kept = manifest.settings
    if kept.get("gl_renderer") != "ray" or kept.get("backend") not in ("auto",
                                                                        settings["backend"]):
        return False
    alike = {**kept, "gl_renderer": settings["gl_renderer"], "backend": settings["backend"]}
    return alike == settings and all(
        seg.get("gl") == settings["gl_renderer"] and seg.get("backend") == settings["backend"]
        for seg in manifest.segments)


def begin_sequence(output: str, tmp: str, manifest: Manifest) -> None:
    """A sequence's run begins afresh: its hidden folder (``tmp``: the pattern there) holds
    its manifest, so that what it writes can be resumed. An interrupted run's frames are
    said in a warning (work ``--resume`` would have gone on from): a crashed run's, in
    that folder, go now; a stopped run's partial folder goes when this run is complete, or
    stops with as many frames (:func:`.outputs.keep_partial`), as a GIF's partial output
    does, said in its words (:data:`.segments.UNTIL`, :data:`.segments.MOVE`), the folder
    as a shell takes it (was: bare, and without how to keep it)."""
    frames, kept, folder = frames_kept(output), _kept_folder(output), Path(tmp).parent
    if frames:  # (a crashed run's, in the hidden folder, go now)
        stays = kept != folder
        log.warning("starting %s over: an interrupted run's %d finished frame%s in %s %s (%sa "
                    "run goes on from them only with the same settings: %s)", output, frames,
                    "" if frames == 1 else "s", pastable(kept), f"stay {segments.UNTIL}" if
                    stays else "are discarded", f"{segments.MOVE}; " if stays else "",
                    segments.goes_on_with())
    shutil.rmtree(folder, ignore_errors=True)  # a crashed run's frames and manifest
    manifest.begin(folder)


def take_back(output: str) -> None:
    """The interrupted run's frames of sequence ``output`` moved back into its hidden
    folder, where this run goes on writing."""
    folder, tmp = _kept_folder(output), Path(temporary(output)).parent
    if folder is not None and folder != tmp:
        shutil.rmtree(tmp, ignore_errors=True)
        os.replace(folder, tmp)
