"""Rendering on a Ray cluster: a render cut into chunks that are whole segments.

Each chunk is a Ray task (not an actor) that opens its own headless GL context, renders,
fuses and encodes one segment — the same segment, bit for bit, that a local render writes
(the same frames, keyframes, encoder and timestamps) — and returns its bytes and checksum
through Ray's object store: no shared storage is needed. The driver alone writes: it checks
every checksum, keeps each segment in the output's work folder and the manifest, joins them
by stream copy at the end. Killing the driver and running the same command again continues
from the manifest; Ray retries a chunk whose worker died (``max_retries``), and only that.

The scene's folder (its script, shaders and assets; its size checked first) goes to the
workers once, through the object store: Ray takes a ``working_dir`` only when it starts,
and the driver may join a Ray that is already running.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.config import ConfigError, RenderConfig
from hfrender.engine.chunk_dir import scene_files, scene_sent
from hfrender.engine.chunk_warnings import Told, caught
from hfrender.engine.cluster_segments import keep_segment, tiled, whole_segments
from hfrender.engine.cluster_tasks import render_chunk, render_frames
from hfrender.engine.files_read import files_inside, with_chunk_files, with_later_files
from hfrender.engine.ray_connect import connect
from hfrender.engine.ray_wait import Gate, collect, taken, task_ids
from hfrender.engine.render_output import render_sound
from hfrender.errors import InputError
from hfrender.frame_range import resolve
from hfrender.hyperframe.builder import auto_granularity
from hfrender.hyperframe.pool import slot_count, sub_frame_bytes
from hfrender.io import outputs, resume
from hfrender.io.encoding import Encoding, check_encoding
from hfrender.io.ffmpeg import sound_under
from hfrender.io.join import join
from hfrender.io.segment_cuts import render_segment_frames, segment_ranges
from hfrender.io.segment_files import segment_name, segment_suffix
from hfrender.io.segments import Manifest, remove_work_dir, resumable, work_dir
from hfrender.io.sequence_commit import check_frames_there
from hfrender.io.sequence_names import is_sequence
from hfrender.io.writers import check_output
from hfrender.plan_stream import PlanStream

log = logging.getLogger(__name__)

MAX_RETRIES = 3  # a chunk whose worker died is run again, up to this many times
Progress = Callable[[int, int], None]


@dataclass
class ClusterStats:
    output: str
    frames: int = 0  # frames in the output
    frames_made: int = 0  # rendered by this run (the others came from an interrupted one)
    segments_made: int = 0
    segments_reused: int = 0
    seconds: float = 0.0
    workers: int = 0  # CPUs the cluster offered
    hdr: bool = False  # float sub-frames (--hdr), decided once for every chunk, and why
    hdr_why: str = ""
    stopped_late: bool = False  # a Ctrl-C came once every chunk was running: the output whole
    subframes: int = 0  # drawn by this run's chunks
    retries: int = 0  # hyperframes the workers split for memory
    reruns: int = 0  # chunks Ray ran again, their worker lost

    def took(self, chunk: dict) -> None:
        """Count a chunk that came back (a segment or frames)."""
        self.frames_made += chunk["count"]
        self.segments_made += 1
        self.subframes += chunk.get("subframes", 0)
        self.retries += chunk.get("retries", 0)

    @property
    def fps(self) -> float:
        """This run's frames a second."""
        return self.frames_made / self.seconds if self.seconds > 0 else 0.0


def _local_only(config: RenderConfig) -> None:
    """What a render on Ray does not write yet: alpha (a transparent scene or
    ``--transparent``), more than 8 bits (``--bit-depth``) and OpenEXR frames (float light:
    was an internal error in every chunk, a batch user's trial); one line, before any
    work."""
    exr = config.output.lower().endswith(".exr")
    if config.transparent or config.bit_depth not in (None, 8) or exr:
        what = "--transparent (or background = None)" if config.transparent else \
            f"-o {config.output} (OpenEXR frames)" if exr else f"--bit-depth {config.bit_depth}"
        raise ConfigError(f"--ray: {what} is rendered locally only for now; render "
                          "without --ray")


class ClusterRender:
    """A render of ``scene_file`` into ``config.output``, its chunks run on Ray."""

    def __init__(self, scene_file: str | Path, config: RenderConfig, address: str | None = None,
                 scene_name: str | None = None, progress: Progress | None = None) -> None:
        # the backend resolved here, once: the workers' environments may differ
        config = config.with_(backend=config.backend_name)
        self.scene_file, self.config, self.address = Path(scene_file), config, address
        self.scene_name, self.progress = scene_name, progress
        self.stats = ClusterStats(config.output)
        self.told = Told()  # the chunks' warnings said so far (chunk_warnings)

    def prepare(self) -> ClusterRender:
        """What every chunk must agree on, decided once here: frames, granularity (so
        keyframes and segments fall where a local render puts them), the manifest. Its
        warnings are not said again where a chunk says them (:class:`.Told`)."""
        with caught() as own:  # (its scene's file as its chunks name it: their setup()'s
            own.named(str(self.scene_file.resolve().parent), scene_sent(self.scene_file)[1])
            self._prepare()  # warnings.warn, printed here, not said again)
        self.told = Told(own.texts)
        return self

    def _prepare(self) -> None:
        from hfrender.engine import deep_output
        from hfrender.engine.memory_fit import schedule_for
        from hfrender.engine.render_modes import (
            resolve_dof,
            resolve_reconstruct,
            resolve_samples,
            resolve_transparent,
        )
        from hfrender.engine.render_setup import keyframe_interval, output_settings
        from hfrender.renderer.shader_notes import shader_notes
        from hfrender.scene.loader import load_scene
        from hfrender.scene.ready import first_look, looked_over, set_up

        config = self.config
        self.sequence = is_sequence(config.output)
        if not (resumable(config.output) or self.sequence):
            raise ConfigError(f"--ray: -o {config.output}: on Ray a render is written as "
                              "video segments or PNG frames; use .mp4, .mov, .mkv, .webm or "
                              "frames/%05d.png")
        self.codec = check_output(config.output, config.size, config.codec,
                                  pix_fmt=config.pix_fmt)
        check_encoding(config.output, config.codec, Encoding.of(config))
        outputs.check_writable(config.output)
        outputs.check_partial_free(config.output)
        self.files = scene_files(self.scene_file.resolve().parent)
        scene = load_scene(self.scene_file, self.scene_name, config.duration)
        set_up(scene, config.duration)
        self.scene = scene  # (a batch records the files it read)
        _local_only(resolve_transparent(config, scene))
        config = resolve_samples(config, scene)  # (said here, not in the workers' logs)
        shader_notes(config, scene)  # here, where the user sees it (not the workers' logs)
        whole = config.frame_count(scene.duration)
        self.first, self.total = resolve(config.frames, whole, config.fps)  # chunks from first
        check_frames_there(config.output, self.first, self.total)
        last = self.first + self.total - 1
        first_look(scene, self.first, config.fps, config.size, last)  # said once, here
        files_inside(looked_over(scene, self.first, last, config.fps),  # (a late font too;
                     self.scene_file.resolve().parent)  # those between: accept's)
        plan = PlanStream(schedule_for(config, scene.camera.aperture_blades), 0, self.total)
        dof = resolve_dof(config.dof, scene, self.first, config.fps)
        hdr, self.stats.hdr_why = deep_output.resolve_hdr(config.hdr, config.output, scene,
                                                          self.first, config.fps)
        self.stats.hdr = hdr  # one choice for every chunk
        given, config = config.hdr, config.with_(hdr="on" if hdr else "off")
        # a worker whose backend is auto may fuse on CUDA, where auto reconstructs (and a
        # fragment shader's --reconstruct on is told here, where the user sees it)
        velocity = resolve_reconstruct(config.reconstruct, scene,
                                       "cuda" if config.backend == "auto" else config.backend)
        self.config = config = _fixed_granularity(config, plan, hdr, dof == "depth", velocity)
        hyper = keyframe_interval(config.granularity, plan)  # segments (a keyframe each) of
        self.segment_frames = render_segment_frames(hyper, config.fps)  # whole ones, ~1 s
        # as given (auto too): a local --resume of the same command must find them equal
        self.settings = output_settings(self.scene_file, config.with_(hdr=given),
                                        config.backend, dof, whole, "ray", scene)  # as here
        with_later_files(self.settings, config.output, self.scene_file)  # (its chunks' files)

    def _manifest(self) -> Manifest:
        return whole_segments(self.config.output, self.settings, self.total,
                              self.segment_frames, self.config.granularity,
                              segment_suffix(self.codec, self.config.fps, self.config.output))

    def run(self) -> ClusterStats:
        """Every missing segment as a Ray task, kept as it comes back; the output joined."""
        ray = connect(self.address)
        try:
            gate = Gate(ray)
            pending = self.submit(ray, gate)
            late = collect(ray, list(pending),
                           lambda ref: taken(ray, ref, self.accept, self.told.tell),
                           (lambda waiting: []) if self.sequence else  # a sequence's frames
                           partial(gate.running, gpu=self.config.backend == "cuda"),  # go
                           gate.refuse, self.told.tell)  # a chunk failed: the others stop
            self.stats.reruns = gate.reruns(task_ids(pending))  # on a stop
            return replace(self.finish(), stopped_late=late is not None)
        except BaseException:
            self.abandon()
            raise

    def abandon(self) -> None:
        """A run that stops: PNG frames made so far go (on Ray, a sequence is made whole:
        its chunks come back in any order); video segments stay for the next run (none: the
        work folder goes, as a local run's), and the folders made for them where empty."""
        made, kept = getattr(self, "made", None), getattr(self, "manifest", None)
        if self.sequence and getattr(self, "tmp", None):
            outputs.discard(self.tmp, made)
        elif kept is not None and not self.sequence and not kept.segments:
            remove_work_dir(self.config.output)
            outputs.take_back(made)

    def submit(self, ray: Any, gate: Gate) -> list:
        """Start the tasks of the segments still missing, through ``gate``; their object
        references."""
        self._t0 = time.perf_counter()
        options: dict = {"max_retries": MAX_RETRIES, "retry_exceptions": False}
        if self.config.backend == "cuda":  # (before any folder is made or frame removed)
            if not ray.cluster_resources().get("GPU"):
                raise ConfigError("--backend cuda on Ray: the cluster has no GPU "
                                  f"({ray.cluster_resources()}); use --backend cpu")
            options["num_gpus"] = 1
        self.made = outputs.missing_folder(self.config.output)  # taken back with a failure
        if self.sequence:  # frames, not segments: made whole under a temporary name
            self.manifest = Manifest(self.settings, self.total, self.segment_frames, 0)
            self.tmp = outputs.temporary(self.config.output)
            # a local run's kept frames: said before they go (begin_sequence's warning)
            resume.begin_sequence(self.config.output, self.tmp, self.manifest)
        else:
            self.manifest = self._manifest()
            # an interrupted run's segments are cut as it cut them (another --granularity,
            # or an older hfrender's rule; was: cut anew, segments overlapping in the join,
            # 147 frames for 90, a review)
            self.segment_frames = self.manifest.segment_frames
        have = {seg["first"] for seg in self.manifest.segments}
        stats = self.stats
        stats.segments_reused = len(self.manifest.segments)
        stats.workers = int(ray.cluster_resources().get("CPU", 0))
        task = gate.task(render_frames if self.sequence else render_chunk, **options)
        config = {**asdict(self.config), "quiet": True, "resume": False}
        files = ray.put(self.files)  # once in the object store, for every chunk
        self._done = sum(seg["count"] for seg in self.manifest.segments)
        if self.progress is not None:  # a bar from the start (the segments kept, of all)
            self.progress(self._done, self.total)
        known = self.settings.get("scene_files")  # (not hashed again by the workers)
        scene = scene_sent(self.scene_file)  # (its name and folder: not parsed there)
        ranges = [(first, count) for first, count in
                  segment_ranges(self.total, self.segment_frames) if first not in have]
        # the hints (lens, motion: the clip scanned) once, from the first chunk run, over
        # the rest of the output, as a local run (or its --resume) gives them; none from the
        # others (each said its first frame's: lines a local run does not say)
        return [task(files, scene, self.scene_name, config, first, count, self.segment_frames,
                     known, self.total - first if i == 0 else 0)
                for i, (first, count) in enumerate(ranges)]

    def accept(self, chunk: dict) -> None:
        """A chunk that came back: its warnings said (each once), checked, kept, recorded
        (the files its scene read named in the manifest first: a late font's, for
        --resume); progress."""
        self.told.tell(chunk)
        a = self.first + chunk["first"]  # (its output frames, named where refused)
        known = self.manifest.settings
        self.manifest.settings = with_chunk_files(known, chunk.get("files"),
                                                  self.scene_file.resolve().parent,
                                                  f"frames {a}..{a + chunk['count'] - 1}")
        if self.sequence and self.manifest.settings is not known:  # on disk before its
            self.manifest.save(Path(self.tmp).parent)  # frames (kill -9: was in memory alone)
        if self.sequence:
            self._keep_frames(chunk)
        else:
            self._keep(self.manifest, chunk)
        self._done += chunk["count"]
        self.stats.took(chunk)
        if self.progress is not None:
            self.progress(self._done, self.total)

    def finish(self) -> ClusterStats:
        """Every segment is here: join them into the output (the work folder goes)."""
        if self.sequence:
            outputs.commit(self.tmp, self.config.output,
                           keep_others=self.config.frames is not None)
        else:
            folder = work_dir(self.config.output)
            files = [folder / s["file"] for s in tiled(self.manifest.segments, self.total)]
            sound = sound_under(render_sound(self.config), self.total, self.config.fps)
            join(files, self.config.output, folder, self.config.fps, sound,  # --audio: muxed
                 codec=self.codec)  # once, in the join
            outputs.remove_partial(self.config.output)
            remove_work_dir(self.config.output)  # joined: its segments are the output
        stats = self.stats
        stats.frames, stats.seconds = self.total, time.perf_counter() - self._t0
        return stats

    def _keep_frames(self, chunk: dict) -> None:
        if hashlib.sha256(b"".join(chunk["pngs"])).hexdigest() != chunk["sha256"]:
            raise InputError(f"frames from {chunk['first']} came back damaged (their checksum "
                             "does not match)")
        pattern = Path(self.tmp)
        for i, data in enumerate(chunk["pngs"]):
            path = pattern.parent / (pattern.name % (self.first + chunk["first"] + i))
            path.with_name(path.name + ".part").write_bytes(data)
            os.replace(path.with_name(path.name + ".part"), path)

    def _keep(self, manifest: Manifest, chunk: dict) -> None:
        keep_segment(manifest, work_dir(self.config.output), chunk,
                     segment_name(chunk["first"], self.codec, self.config.fps,
                                  output=self.config.output))


def _fixed_granularity(config: RenderConfig, plan: PlanStream, hdr: bool, depth: bool,
                       velocity: bool) -> RenderConfig:
    """``--granularity auto`` fixed here, from the driver's memory: every chunk cuts its
    hyperframes alike (keyframes and segments where a local render puts them)."""
    if config.granularity != "auto":
        return config
    w, h = config.size
    frame_bytes = sub_frame_bytes((h, w, 4), np.float32 if hdr else np.uint8,
                                  depth or velocity, velocity)
    return config.with_(granularity=auto_granularity(
        frame_bytes, frames_per_output=plan.step, halo=plan.overlap,
        slots=slot_count(config.max_in_flight)))
