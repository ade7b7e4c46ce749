"""Resumable video: independent segments, a manifest, and a join without re-encoding.

A video render writes its frames as segments of whole hyperframes (about a second each),
every segment a separate encode that starts with a keyframe, into a work folder beside
the output (``.NAME.hfrender/``). A segment is written under a name of its run's own
(:mod:`.segment_parts`: a killed run's encoder writing on never shares a file with the
run that resumes it), then, once its encoder ended well and it holds every frame written,
renamed, checksummed and recorded in ``manifest.json`` (replaced atomically): after a
crash, even ``kill -9``, the manifest lists exactly the segments that are whole. The
output is made at the end (or at an interruption) by joining the segments with ffmpeg's
concat demuxer and stream copy. Because every segment is encoded on its own, a resumed
render produces the same bitstream for the same frames as an uninterrupted one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.checksum import sha256_file
from hfrender.errors import InputError, spelling
from hfrender.io.ffmpeg import Soundtrack, sound_under
from hfrender.io.join import join
from hfrender.io.outputs import ours_partial, outweighs, partial_name, remove_partial
from hfrender.io.partial_record import mark_partial, recorded_frames
from hfrender.io.segment_cuts import MIN_SEGMENT
from hfrender.io.segment_files import open_segment, segment_name
from hfrender.io.segment_parts import check_whole, clear_dead_parts, run_tag
from hfrender.io.sequence_names import is_picture, is_sequence
from hfrender.io.setting_changes import differences
from hfrender.io.writers import Closing, VideoWriter, check_output

MANIFEST = "manifest.json"
# what an interrupted run's partial output does while a run starts over (a GIF's or a
# video's file, a sequence's folder: one wording, :func:`.resume.begin_sequence` too)
UNTIL = "until this run is complete or stops with as many"
MOVE = "move it elsewhere to keep it"
log = logging.getLogger(__name__)


def work_dir(output: str | Path) -> Path:
    out = Path(output)
    return out.with_name(f".{out.name}.hfrender")


def goes_on_with() -> str:
    """What goes on from an interrupted run's frames, as its caller names it: the commands'
    ``--resume`` and a batch's same job; hf.render's same call with ``resume=True`` (was the
    commands' to its caller)."""
    said = spelling()
    return "render's and fx's --resume, a batch's same job" if said.flags else \
        f"the same call with {said.on('resume')}"


def fresh_work_dir(output: str | Path, why: str | None = None) -> Path:
    """``output``'s work folder, emptied of an older interrupted run's segments, said (``why``
    they are not gone on from), and of the partial output this run removes."""
    folder = work_dir(output)
    kept = sum(_segments_kept(folder)) if folder.exists() else 0
    partial = ours_partial(str(output))
    if kept:
        log.warning("starting %s over: an interrupted run's %d finished frame%s there "
                    "(%s) are discarded (%s)%s", output, kept, "" if kept == 1 else "s",
                    folder.name, why or "a run goes on from them only with the same "
                    f"settings: {goes_on_with()}",
                    _goes(partial, "; "))
    else:
        say_partial_goes(output, partial)
    if folder.exists():
        shutil.rmtree(folder)
    return folder


def say_partial_goes(output: str | Path, partial: Path | None = None) -> None:
    """Said where an interrupted run of ``output`` kept a partial output this run removes
    once complete (was unsaid for a GIF, not resumed: that work's only copy, a trial)."""
    partial = partial or ours_partial(str(output))
    if partial is not None:
        log.warning("starting %s over%s", output, _goes(partial, ": "))


def _goes(partial: Path | None, lead: str) -> str:
    """What becomes of an interrupted run's partial output (none: nothing): it stays until
    this run is complete, or stops having kept as many frames (:func:`.outputs.outweighs`);
    one whose frames cannot be counted goes either way, once this run has frames of its
    own to keep (was: "or stops", though a run stopped before its first frame keeps it)."""
    if partial is None:
        return ""
    held = recorded_frames(partial)
    fate = (f"{held} frame{'' if held == 1 else 's'} to watch, stays {UNTIL}" if held else
            "frames to watch, goes once this run is complete or stops with frames of its "
            "own")
    return f"{lead}{partial.name}, an interrupted run's {fate} ({MOVE})"


def remove_work_dir(output: str | Path) -> None:
    """The work folder of ``output`` gone, once its segments are joined into it."""
    shutil.rmtree(work_dir(output), ignore_errors=True)


def frames_in_segments(output: str | Path) -> int:
    """Frames in the whole segments of ``output`` an interrupted run's manifest lists."""
    return sum(_segments_kept(work_dir(output)))


def segments_kept(output: str | Path) -> int:
    """Whole segments of ``output`` an interrupted run's manifest lists (0: none)."""
    return len(_segments_kept(work_dir(output)))


def _segments_kept(folder: Path) -> list[int]:
    """The frame counts of the whole segments the manifest in ``folder`` lists ([]: none,
    or none readable)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        return [int(seg["count"]) for seg in manifest.get("segments", [])]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return []


@dataclass
class Manifest:
    settings: dict
    total_frames: int
    segment_frames: int
    granularity: int
    segments: list[dict] = field(default_factory=list)

    @property
    def key(self) -> str:
        return settings_key(self.settings)

    def save(self, folder: Path) -> None:
        tmp = folder / (MANIFEST + ".tmp")
        data = asdict(self)  # the settings looked at once: a render's drawing replaces them
        try:  # as its scene reads more files (:meth:`.RenderOutput.files_read`)
            tmp.write_text(json.dumps({**data, "key": settings_key(data["settings"])},
                                      indent=1))
        except OSError as exc:  # a full disk: no empty file left, and the file named (was
            tmp.unlink(missing_ok=True)  # "cannot write a file", a trial)
            if exc.filename is not None:
                raise
            raise OSError(exc.errno, exc.strerror, str(tmp)) from exc
        os.replace(tmp, folder / MANIFEST)

    def begin(self, folder: Path) -> None:
        """Saved in ``folder``, made for it where missing; a folder it made goes again where
        it cannot be saved (a full disk: was left behind, a trial)."""
        made = not folder.exists()
        folder.mkdir(parents=True, exist_ok=True)
        try:
            self.save(folder)
        except OSError:
            if made:
                shutil.rmtree(folder, ignore_errors=True)
            raise

    @classmethod
    def load(cls, folder: Path) -> Manifest | None:
        """The manifest in ``folder``; InputError (naming it) when it is damaged."""
        path = folder / MANIFEST
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text())
            key = data.pop("key")
            manifest = cls(**data)
        except (ValueError, TypeError, KeyError) as exc:
            raise InputError(f"{path} is damaged ({type(exc).__name__}: {exc}); render "
                             f"without {spelling().on('resume')} to start over") from None
        if key != manifest.key:  # (resume=True in hf.render: was --resume beside it)
            raise InputError(f"{path} is damaged (its settings do not match their checksum); "
                             f"render without {spelling().on('resume')} to start over")
        return manifest

    def covered(self, folder: Path) -> int:
        """Frames 0..N-1 held by whole, unchanged segments in order; drops the others."""
        good, nxt = [], 0
        for seg in self.segments:
            path = folder / seg["file"]
            if seg["first"] != nxt or not path.is_file() or sha256_file(path) != seg["sha256"]:
                break
            good.append(seg)
            nxt += seg["count"]
        self.segments = good
        return nxt

    def differences(self, other: dict) -> list[str]:
        """What changed, as the command line says it (``f-stop 2 -> 2.8``):
        :func:`hfrender.io.setting_changes.differences`."""
        return differences(self.settings, other)


class SegmentedWriter(Closing):
    """Writes frames ``start ..`` as segments into ``folder``; ``close`` joins them.

    ``gop``: a keyframe every ``gop`` frames (None: the encoder's default); ``pix_fmt_in``:
    the raw frames' layout (rgb24, or yuv420p planes); ``audio_from``: a file whose
    soundtrack the joined output carries; ``join_unfinished``: an interrupted run still
    joins what it has into the output (render), or leaves the output alone and keeps the
    segments for ``--resume`` only (fx).
    """

    def __init__(self, output: str, fps: float, size: tuple[int, int], codec: str | None,
                 gop: int | None, manifest: Manifest, folder: Path, start: int = 0, *,
                 pix_fmt_in: str = "rgb24", audio_from: Soundtrack | None = None,
                 join_unfinished: bool = True, encoding: Any = None) -> None:
        self.output, self.fps, self.size, self.gop = output, fps, size, gop
        self.encoding = encoding  # --crf, --preset, ...: the same in every segment
        self.pix_fmt_in, self.audio_from = pix_fmt_in, audio_from
        self.join_unfinished = join_unfinished
        # the output's codec, in every segment (with --transparent: the one keeping alpha)
        self.codec = check_output(output, size, codec,
                                  alpha=bool(getattr(encoding, "alpha", False)),
                                  pix_fmt=getattr(encoding, "pix_fmt", None))
        self.manifest, self.folder, self.next = manifest, folder, start
        self.frames_written = 0
        self._current: VideoWriter | None = None
        self._first = start
        self._partial: Path | None = None
        self.partial_output: str | None = None  # an unfinished run's frames, to watch
        self._partial_frames = 0
        self._tag = run_tag()  # this writer's segments being written: no other run's name
        manifest.begin(folder)
        clear_dead_parts(folder)  # a killed run's (its encoder may write on: into its own)

    def _path(self, first: int, part: bool) -> Path:
        """Segment ``first``'s file (``part``: while this writer writes it, under its own
        tag), in the container of the kept ones it is joined with (an older hfrender's
        .mkv, resumed: a join of .mkv and .mov segments made 2700 frames of 90, a trial)."""
        name = Path(segment_name(first, self.codec, self.fps, output=self.output))
        kept = self.manifest.segments
        suffix = Path(kept[0]["file"]).suffix if kept else name.suffix
        return self.folder / f"{name.stem}{self._tag if part else ''}{suffix}"

    def write(self, frame: np.ndarray) -> None:
        if self._current is None:
            self._first = self.next
            self._current = open_segment(self._path(self._first, True), self.fps, self.size,
                                         self.codec, self.gop, self._first, self.pix_fmt_in,
                                         self.output, encoding=self.encoding)
        self._current.write(frame)
        self.next += 1
        self.frames_written += 1
        left = self.manifest.total_frames - self.next
        if left == 0 or (self._current.frames_written >= self.manifest.segment_frames
                         and left >= MIN_SEGMENT):  # a short rest joins this segment
            self._finish_segment()

    def _finish_segment(self) -> None:
        writer, self._current = self._current, None
        part = Path(writer.path)
        try:
            writer.close()
        except BaseException:  # (not whole: this run's own name, no one else's to keep)
            part.unlink(missing_ok=True)
            raise
        check_whole(part, writer.frames_written, self.output)
        final = self._path(self._first, False)
        os.replace(part, final)
        self.manifest.segments.append({"first": self._first, "count": writer.frames_written,
                                       "file": final.name, "sha256": sha256_file(final)})
        self.manifest.save(self.folder)

    def close(self) -> None:
        """A complete run: join every segment into the output and remove the work folder.

        An unfinished one leaves the output alone (an older file there is untouched) and
        keeps the whole segments for ``--resume``; with ``join_unfinished``, what it has
        (the last partial segment too) is also joined into ``NAME.partial.EXT`` to watch
        (:attr:`partial_output`), unless an earlier run's there holds more frames
        (:func:`.outputs.outweighs`: it stays, named all the same).
        """
        files = [self.folder / s["file"] for s in self.manifest.segments]
        rest = 0  # frames of an unfinished segment, for the partial output
        if self._current is not None:  # interrupted mid-segment: finalise it for the join
            writer, self._current = self._current, None
            writer.close()
            # a rest of a few frames would join with a gap (see MIN_SEGMENT): left out
            if self.join_unfinished and (writer.frames_written >= MIN_SEGMENT
                                         or (writer.frames_written and not files)):
                self._partial, rest = Path(writer.path), writer.frames_written
                files.append(self._partial)
            else:
                Path(writer.path).unlink(missing_ok=True)
        if files and self.complete:  # (a failed join keeps the segments for --resume)
            join(files, self.output, self.folder, self.fps,
                 sound_under(self.audio_from, self.frames_in_output, self.fps),
                 getattr(self.encoding, "timecode", ""), self.codec,
                 getattr(self.encoding, "tags", ()))
            remove_partial(self.output)  # an older run's, now out of date
            shutil.rmtree(self.folder, ignore_errors=True)
            return
        try:
            if files and self.join_unfinished:  # named once it is there (a second Ctrl-C
                partial, frames = partial_name(self.output), self.frames_in_output + rest
                if outweighs(self.output, frames) is None:  # (else an earlier run's stays)
                    join(files, partial, self.folder, self.fps,  # (may stop the join)
                         sound_under(self.audio_from, frames, self.fps), codec=self.codec)
                    mark_partial(partial, frames)  # ours: the next run may replace it
                self.partial_output, self._partial_frames = partial, rest
        finally:  # the whole segments stay for --resume; none: nothing to resume from
            if not self.manifest.segments:
                shutil.rmtree(self.folder, ignore_errors=True)
            elif self._partial is not None:
                self._partial.unlink(missing_ok=True)

    @property
    def frames_in_output(self) -> int:
        """Frames the joined output (or the partial one) holds after close: whole
        segments, of this run and earlier ones, and the partial one."""
        return sum(s["count"] for s in self.manifest.segments) + self._partial_frames

    @property
    def complete(self) -> bool:
        """Whole segments cover every frame up to ``total_frames``, from the first one's."""
        segs = self.manifest.segments
        first = segs[0]["first"] if segs else 0
        return sum(s["count"] for s in segs) == self.manifest.total_frames - first


def resumable(output: str) -> bool:
    """Whether ``output`` is a video made of segments (a GIF and image sequences are made
    whole; a video named ``speed 100%.mp4`` is a video)."""
    return Path(output).suffix.lower() in (".mp4", ".mov", ".mkv", ".webm") and \
        not is_sequence(output)


def one_piece_why(output: str) -> str:
    """Why ``output`` (not :func:`resumable`) is written in one piece, for --resume's
    refusal."""
    suffix = Path(output).suffix.lower()
    if suffix == ".gif":
        return "a GIF's palette is made whole"
    if is_picture(output):
        return "one picture is written whole"
    return (f"a {suffix or 'suffix-less'} video is written in one piece; .mp4, .mov, .mkv and "
            ".webm are written in segments that resume")


def interrupted(output: str | Path) -> bool:
    """Whether an interrupted run of ``output`` left whole segments to go on from (its work
    folder and manifest stay only then)."""
    return (work_dir(output) / MANIFEST).is_file()


def settings_key(settings: dict) -> str:
    """A manifest's checksum of its settings (a damaged one's do not match)."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()


def as_kept(settings: dict) -> dict:
    """``settings`` as a manifest's JSON keeps them (tuples as lists): what a run's own
    settings are compared in with an interrupted run's."""
    return json.loads(json.dumps(settings))


def open_segmented(output: str, fps: float, size: tuple[int, int], codec: str | None,
                   gop: int | None, manifest: Manifest, start: int, **options: Any) -> Any:
    return SegmentedWriter(output, fps, size, codec, gop, manifest, work_dir(output), start,
                           **options)
