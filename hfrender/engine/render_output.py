"""A render's own output: written as it renders (segments, a temporary file or frames),
put in place when complete, else kept as ``NAME.partial.EXT`` (and segments for
``--resume``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hfrender.config import RenderConfig
from hfrender.engine.files_read import FilesRead
from hfrender.engine.render_setup import frames_format
from hfrender.errors import spelling
from hfrender.frame_range import start_of
from hfrender.io import outputs, resume
from hfrender.io.encoding import Encoding, check_encoding
from hfrender.io.ffmpeg import Soundtrack, frame_rate, sound_under
from hfrender.io.probe import audio_file
from hfrender.io.segment_cuts import render_segment_frames
from hfrender.io.segments import (
    Manifest,
    fresh_work_dir,
    interrupted,
    open_segmented,
    resumable,
    say_partial_goes,
)
from hfrender.io.sequence_names import is_sequence
from hfrender.io.writers import PngSequenceWriter, WriteFailed, open_writer


def render_sound(config: RenderConfig) -> Soundtrack | None:
    """The soundtrack of a render's ``--audio`` (None: none given): from ``--audio-offset``
    plus the time of its ``--frames``' first frame (a range's video starts there: so does
    its sound), cut to the video's length; one line where the file has no sound to give."""
    if config.audio is None:
        return None
    start = config.audio_offset + float(start_of(config.frames) / frame_rate(config.fps))
    return audio_file(str(config.audio), spelling().said("audio", str(config.audio)), start)


class RenderOutput:
    """The writer of a render's own output, and its fate: :meth:`finish` puts the complete
    output in place; :meth:`abandon` (an error, Ctrl-C) leaves the path alone (an older
    file there is untouched) and keeps what was made as ``NAME.partial.EXT``, video
    segments for ``--resume`` too. ``total`` and ``start``: output frame numbers (the end
    of the render or of its ``--frames``, the first frame this run writes).

    With ``--frames``, a video starts at the range's first frame, at time 0 (as a cut by
    ``ffmpeg -ss`` and Blender's movies do; its segments count from there), and a PNG
    sequence is numbered by output frame, beside the other frames of its pattern.
    ``scene``: the render's, whose files read as it draws the manifest names
    (:meth:`files_read`)."""

    def __init__(self, config: RenderConfig, settings: dict, manifest: Manifest | None,
                 gop: int, granularity: int, total: int, start: int, scene: Any = None
                 ) -> None:
        self.output, self.tmp = config.output, None
        self.manifest: Manifest | None = None  # what --resume checks (not of a GIF's)
        self.read = FilesRead(scene, settings) if scene is not None else None
        self.partial: str | None = None
        self.lost: int | None = None  # the bytes of a failed one-piece output, not kept
        self.late: KeyboardInterrupt | None = None  # a Ctrl-C while the output was put in place
        self.reused = len(manifest.segments) if manifest is not None else 0
        self.keep_others = config.frames is not None  # a range: other frames stay
        self.made = outputs.missing_folder(config.output)  # taken back if nothing is kept
        try:
            self._open(config, settings, manifest, gop, granularity, total, start)
        except BaseException:  # (a full disk as it began: were left, a trial)
            outputs.take_back(self.made)
            raise

    def _open(self, config: RenderConfig, settings: dict, manifest: Manifest | None,
              gop: int, granularity: int, total: int, start: int) -> None:
        """The writer (:attr:`writer`), and the folders its output and work need."""
        encoding = Encoding.of(config)
        check_encoding(config.output, config.codec, encoding)
        offset = start_of(config.frames)
        # a keyframe every segment: whole hyperframes (``gop`` frames each), about a second
        # (was: every hyperframe, an all-keyframe video at 8 sub-frames a hyperframe)
        gop = manifest.segment_frames if manifest is not None else \
            render_segment_frames(gop, config.fps)
        frames_in = frames_format(config)
        sound = render_sound(config)
        if not resumable(config.output):
            if not is_sequence(config.output):  # a GIF's: not resumed, said it goes
                say_partial_goes(config.output)
            self.tmp = outputs.temporary(config.output)
            outputs.make_folder(config.output)  # (what it made: self.made)
            if is_sequence(config.output):  # its manifest beside the frames, for --resume
                if manifest is None:
                    self.manifest = Manifest(settings, total - offset, 1, granularity)
                    resume.begin_sequence(config.output, self.tmp, self.manifest)
                else:
                    resume.take_back(config.output)
                    self.manifest = manifest
                kept = 0 if manifest is None else start - offset
                self.writer = PngSequenceWriter(self.tmp, config.size, start, kept)
            else:
                self.writer = open_writer(self.tmp, config.fps, config.size, config.codec,
                                          gop, encoding=encoding, name=config.output,
                                          pix_fmt_in=frames_in,
                                          audio_from=sound_under(sound, total - offset,
                                                                config.fps))
            return
        if manifest is None:
            fresh_work_dir(config.output)  # an older interrupted render's goes
            manifest = Manifest(settings, total - offset, gop, granularity)
        self.writer = open_segmented(config.output, config.fps, config.size, config.codec, gop,
                                     manifest, start - offset, encoding=encoding,
                                     pix_fmt_in=frames_in, audio_from=sound)
        self.manifest = manifest

    def files_read(self) -> None:
        """The scene's files read so far (``scene_files``, :class:`.files_read.FilesRead`)
        in the manifest, before a frame drawn with them is written: a video's is saved
        with its next segment, a sequence's now (its frames are kept one by one)."""
        files = self.read.grown() if self.read is not None and self.manifest else None
        if files is None:
            return
        self.manifest.settings = {**self.manifest.settings, "scene_files": files}  # (whole:
        if self.tmp is not None:  # the writer's thread saves the one it finds)
            self.manifest.save(Path(self.tmp).parent)

    @property
    def segments(self) -> tuple[int, int]:
        """(segments made by this run, segments reused from an interrupted one)."""
        if self.tmp is not None:
            return 0, 0
        return len(self.writer.manifest.segments) - self.reused, self.reused

    @property
    def frames(self) -> int:
        """Frames the output (or the partial one) holds."""
        return getattr(self.writer, "frames_in_output", self.writer.frames_written)

    def finish(self) -> None:
        """The output in place; a Ctrl-C meanwhile waits for it (:attr:`late`)."""
        if self.tmp is not None:
            self.writer.close()  # an encoder's last frames: a Ctrl-C stops it
            self.late = outputs.uninterrupted(
                lambda: outputs.commit(self.tmp, self.output, keep_others=self.keep_others))
        else:
            self.late = outputs.uninterrupted(self.writer.close)  # the join
        if self.tmp is None and not self.writer.complete:  # fewer frames than the render
            raise WriteFailed(f"{self.output}: {self.frames} of "
                              f"{self.writer.manifest.total_frames} frames were written")

    def abandon(self) -> None:
        try:
            self.writer.close()
        except Exception:  # noqa: BLE001 - the error that stopped the render is the one told
            pass
        finally:
            if self.tmp is None:
                self.partial = self.writer.partial_output
                if self.partial is None and not interrupted(self.output):  # nothing kept
                    outputs.take_back(self.made)
            elif self.frames and not getattr(self.writer, "failed", False):  # (a GIF whose
                # ffmpeg failed, a full disk: cut short, unplayable; was kept as one)
                self.partial = outputs.keep_partial(self.tmp, self.output, self.frames)
            else:
                if self.frames:  # its writer failed: what it held goes (a full disk's: the
                    tmp = Path(self.tmp)  # room it had)
                    self.lost = tmp.stat().st_size if tmp.is_file() else 0
                outputs.discard(self.tmp, self.made)

    def settle(self, error: BaseException | None, stats: Any) -> None:
        """The output in place when complete (``error`` None); else the path untouched and
        what was made kept as ``NAME.partial.EXT``; ``stats`` (a render's) told of it."""
        try:
            if error is None:
                try:
                    self.finish()
                except BaseException:
                    self.abandon()  # nothing hidden is left behind
                    raise
                stats.stopped_late = stats.stopped_late or self.late is not None
            else:
                self.abandon()
        finally:
            stats.frames_in_output, stats.partial = self.frames, self.partial
            stats.lost_bytes = self.lost
            stats.segments = self.segments

