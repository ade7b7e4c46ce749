"""``hfrender fx --ray``: an fx job cut into chunks that are whole segments, as Ray tasks.

Each task gets the footage (and depth pass) through Ray's object store, decodes up to the
last frame its windows need, and encodes its segment exactly as a local ``hfrender fx``
writes it (the same windows, frame 0 standing in before the clip, the same encoder and
timestamps). The driver checks the checksums, keeps the segments with a manifest (killing
it and running again goes on), joins them, and muxes the soundtrack once, after the join.
Constant-rate video footage into video outputs only: variable frame times and image
sequences are written locally, in one piece.
"""

from __future__ import annotations

import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import hfrender
from hfrender.backends import resolve_name
from hfrender.checksum import sha256_file
from hfrender.config import ConfigError
from hfrender.engine import chunk_stop, fx_output
from hfrender.engine.chunk_dir import chunk_dir
from hfrender.engine.chunk_warnings import Told, caught
from hfrender.engine.cluster import MAX_RETRIES, ClusterStats, Progress
from hfrender.engine.cluster_segments import keep_segment, tiled, whole_segments
from hfrender.engine.cluster_tasks import lay_out
from hfrender.engine.fx_output import raw_format
from hfrender.engine.fx_settings import FxSettings
from hfrender.engine.ray_connect import connect
from hfrender.engine.ray_wait import Gate, collect, taken, task_ids
from hfrender.errors import InputError
from hfrender.frame_range import n_frames
from hfrender.io import outputs
from hfrender.io.encoding import effective
from hfrender.io.exr_footage import is_one_image
from hfrender.io.footage import footage_format
from hfrender.io.input_clash import check_not_input
from hfrender.io.join import join
from hfrender.io.probe import probe, soundtrack
from hfrender.io.segment_cuts import segment_ranges
from hfrender.io.segment_files import open_segment, segment_name, segment_suffix
from hfrender.io.segments import remove_work_dir, resumable, work_dir
from hfrender.io.vector_pass import VectorPass
from hfrender.io.work_names import check_work_names
from hfrender.io.writers import check_output, raw_frame_shape
from hfrender.sizes import bytes_said

INPUT_LIMIT = 2 * 2**30  # footage sent to the workers through the object store, at most
VECTORS = "vectors/%06d.exr"  # --vectors' frames on a worker, in their order from 0


def _fx_chunk(files: dict[str, bytes], source: str, depth: str | None, output: str,
              settings: dict, first: int, count: int, pix_fmt: str,
              shown: dict[str, str] | None = None) -> dict:
    """On a worker: the footage laid out afresh, output frames ``first .. first + count -
    1`` encoded as one segment; its bytes and checksum, and its warnings
    (:func:`.chunk_warnings.caught`: the driver says them; ``shown``: each file sent, by
    its name here, as the driver's user names it)."""
    with caught() as warnings, chunk_dir("fx-chunk") as tmp:
        warnings.chunk(tmp, "", first, count)  # (the others: by their names here)
        warnings.shown.update({str(Path(tmp) / name): said for name, said in
                               (shown or {}).items()})
        lay_out(files, Path(tmp))
        chunk = _fx_segment(Path(tmp), source, depth, output, settings,
                            (first, count), pix_fmt)
    return {**chunk, "warnings": warnings.texts}


def _fx_segment(tmp: Path, source: str, depth: str | None, output: str, settings: dict,
                frames: tuple[int, int], pix_fmt: str) -> dict:
    """:func:`_fx_chunk`'s segment, in its chunk's folder ``tmp`` (laid out); ``frames``:
    first, count."""
    from hfrender.engine.fx import FxJob
    from hfrender.optics import Lens

    first, count = frames
    lens = Lens(**settings["lens"]) if settings["lens"] else None
    s = FxSettings(**{**settings, "workers": 1,  # a task holds one CPU
                      "lens": lens, "depth": depth and str(tmp / depth),
                      "vectors": settings["vectors"] and str(tmp / VECTORS),
                      "resume": False})
    info = probe(str(tmp / source))
    pix_fmt, alpha = fx_output.written_format(pix_fmt, output, s.codec, s.pix_fmt)
    codec = check_output(output, info.size, s.codec, alpha=alpha, pix_fmt=s.pix_fmt)
    fps = info.fps / s.stride
    path = tmp / segment_name(first, codec, fps, output=output)
    writer = open_segment(path, fps, info.size, codec, None, first, pix_fmt,
                          encoding=fx_output.fx_encoding(s, alpha, info))
    told = chunk_stop.stoppable(writer)  # (stops at a frame, its render failed)
    try:
        stats = FxJob(str(tmp / source), output, s, chunk=(first, count, told)) \
            .prepare().run()
    finally:
        writer.close()
    return {"first": first, "count": count, "data": path.read_bytes(),
            "sha256": sha256_file(path), "retries": stats.retries}


class ClusterFx:
    """``hfrender fx SOURCE -o OUTPUT`` with its segments run on Ray."""

    def __init__(self, source: str, output: str, settings: FxSettings,
                 address: str | None = None, progress: Progress | None = None) -> None:
        settings = replace(settings, backend=resolve_name(settings.backend))  # once, here
        self.source, self.output, self.s = Path(source), output, settings
        self.address, self.progress = address, progress
        self.stats = ClusterStats(output)
        self.told = Told()  # the chunks' warnings said so far (chunk_warnings)

    def prepare(self) -> ClusterFx:
        """What every chunk must agree on, decided once here; its warnings not said again
        where a chunk says them (:class:`.Told`)."""
        with caught() as own:
            self._prepare()
        self.told = Told(own.texts)
        return self

    def _prepare(self) -> None:
        s = self.s
        if not (self.source.is_file() and not is_one_image(str(self.source)) and
                resumable(self.output)):
            raise ConfigError(f"--ray: fx on Ray takes a video file into a video output "
                              f"(.mp4 .mov .mkv .webm); {self.source} -> {self.output}: run "
                              "it without --ray")
        vectors = [] if s.vectors is None else VectorPass(s.vectors).files
        check_not_input(self.output, [("input", [self.source])] +
                                ([("depth input", [Path(s.depth)])] if s.depth else []) +
                                ([("vectors input", vectors)] if vectors else []))
        outputs.check_writable(self.output)
        check_work_names(self.output)  # (fx keeps no NAME.partial.EXT: its own names)
        info = probe(str(self.source))
        if s.input_fps is not None:  # conformed (--fps), as on the workers
            info = fx_output.conformed(str(self.source), info, s.input_fps)
        if info.times is not None or info.start > 0:
            raise ConfigError(f"--ray: {self.source} has variable frame times (or starts after "
                              "its sound), which only a run in one piece keeps: run it "
                              "without --ray")
        if s.window > info.count:
            raise InputError(f"--motion-blur {s.window} is longer than the input "
                             f"({n_frames(info.count)})")
        s.check_size(info.size)
        # as the workers: the footage's alpha and depth kept
        self.pix_fmt = footage_format(raw_format(s, self.output, info.native_yuv420p), info)
        alpha = fx_output.written_format(self.pix_fmt, self.output, s.codec, s.pix_fmt)[1]
        self.codec = check_output(self.output, info.size, s.codec, for_footage=True,
                                  alpha=alpha, pix_fmt=s.pix_fmt)
        self.fps = info.fps / s.stride
        self.total = info.count if s.stride == 1 else (info.count - s.window) // s.stride + 1
        self.shape = raw_frame_shape(info.size, self.pix_fmt)
        self.segment_frames = fx_output.segment_frames(self.fps)  # as a local fx cuts them
        files = [self.source] + ([Path(s.depth)] if s.depth else [])
        if sum(f.stat().st_size for f in files + vectors) > INPUT_LIMIT:
            raise InputError(f"--ray: {self.source} is larger than {bytes_said(INPUT_LIMIT)}, "
                             "more than hfrender sends to the workers; run it without --ray")
        self.files = {f"in{i}{f.suffix}": f.read_bytes() for i, f in enumerate(files)}
        self.shown = {f"in{i}{f.suffix}": str(f) for i, f in enumerate(files)}  # (as given)
        self.vectors = {VECTORS % i: f.read_bytes() for i, f in enumerate(vectors)}
        self.sound = soundtrack(self.source, info)
        self.encoding = fx_output.fx_encoding(s, alpha, info)  # (defaults as left out)
        self.settings = {**s.output_settings(),
                         **effective(self.output, s.codec, self.encoding),
                         "input": fx_output.file_identity(str(self.source)),
                         "codec": self.codec, "total_frames": self.total, "ray": True,
                         "hfrender": hfrender.__version__}

    def run(self) -> ClusterStats:
        ray = connect(self.address)
        gate = Gate(ray)
        pending = self.submit(ray, gate)
        late = collect(ray, list(pending),
                       lambda ref: taken(ray, ref, self.accept, self.told.tell),
                       gate.running, gate.refuse, self.told.tell)  # (a Ctrl-C once all
        # were running; a failure's warnings said before its error)
        self.stats.reruns = gate.reruns(task_ids(pending))
        return replace(self.finish(), stopped_late=late is not None)

    def submit(self, ray: Any, gate: Gate) -> list:
        """Start the tasks of the segments still missing, through ``gate``; their object
        references."""
        self._t0 = time.perf_counter()
        self.folder = work_dir(self.output)
        manifest = whole_segments(self.output, self.settings, self.total, self.segment_frames,
                                  0, segment_suffix(self.codec, self.fps, self.output))
        self.manifest = manifest
        self.segment_frames = manifest.segment_frames  # (an interrupted run's cut, as a render's)
        have = {g["first"] for g in manifest.segments}
        self.stats.segments_reused = len(have)
        self.stats.workers = int(ray.cluster_resources().get("CPU", 0))
        task = gate.task(_fx_chunk, max_retries=MAX_RETRIES, retry_exceptions=False)
        files = ray.put({**self.files, **self.vectors})  # (the vector frames renumbered)
        names = list(self.files)
        settings = asdict(self.s)
        settings["lens"] = asdict(self.s.lens) if self.s.lens else None
        self._done = sum(g["count"] for g in manifest.segments)
        if self.progress is not None:  # a bar from the start (the segments kept, of all)
            self.progress(self._done, self.total)
        return [task(files, names[0], names[1] if len(names) > 1 else None,
                            self.output, settings, first, count, self.pix_fmt, self.shown)
                for first, count in segment_ranges(self.total, self.segment_frames)
                if first not in have]

    def abandon(self) -> None:
        """A run that stops: its finished segments stay for the next run."""

    def accept(self, chunk: dict) -> None:
        """A chunk that came back: its warnings said (each once), its segment kept."""
        self.told.tell(chunk)
        keep_segment(self.manifest, self.folder, chunk,
                     segment_name(chunk["first"], self.codec, self.fps, output=self.output))
        self._done += chunk["count"]
        self.stats.took(chunk)
        if self.progress is not None:
            self.progress(self._done, self.total)

    def finish(self) -> ClusterStats:
        """Every segment is here: joined, and the soundtrack muxed once, after the join."""
        join([self.folder / g["file"] for g in tiled(self.manifest.segments, self.total)],
             self.output, self.folder, self.fps, self.sound, self.encoding.timecode,
             self.codec, self.encoding.tags)  # (the timecode was left out, unsaid)
        outputs.remove_partial(self.output)
        remove_work_dir(self.output)  # joined: its segments are the output
        self.stats.frames, self.stats.seconds = self.total, time.perf_counter() - self._t0
        return self.stats
