"""What a Ray task of a render runs on its worker (:mod:`hfrender.engine.cluster` submits
them): the scene's folder laid out afresh, a chunk of frames rendered with the task's own
GPU, if any, and given back as bytes with their checksum (a segment, or lossless PNGs)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from hfrender.checksum import sha256_file
from hfrender.config import RenderConfig
from hfrender.engine import chunk_stop
from hfrender.engine.chunk_dir import chunk_dir
from hfrender.engine.chunk_warnings import caught
from hfrender.engine.render_setup import frames_format
from hfrender.frame_range import start_of
from hfrender.io.encoding import Encoding
from hfrender.io.segment_files import open_segment, segment_name
from hfrender.io.writers import check_output
from hfrender.scene.sources import scene_assets


def _task_gpu() -> int | None:
    """The GPU Ray gave this task, as EGL numbers devices (all of them), or None (outside
    Ray: ``ray.get_gpu_ids()`` there started a whole Ray of Ray's defaults, its workers'
    output printed here: a chunk run in a test, and every later test's Ray was that one)."""
    try:
        import ray

        if not ray.is_initialized():
            return None
        ids = ray.get_gpu_ids()
    except Exception:  # noqa: BLE001 - not in a Ray task, or no GPU asked
        return None
    return int(ids[0]) if ids else None


def lay_out(files: dict[str, bytes], folder: Path) -> None:
    """Write a sent folder's files (relative names) into ``folder``."""
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)


def task_config(config: dict) -> RenderConfig:
    """A chunk's settings on its worker. ``--fusion-process auto`` fuses there in the task's
    process: a task holds one CPU, and the cluster's parallelism is its tasks (fusion
    processes in every task would put three busy processes on each core)."""
    fusion = "off" if config.get("fusion_process", "auto") == "auto" else config["fusion_process"]
    return RenderConfig(**{**config, "size": tuple(config["size"]), "fusion_process": fusion})


def render_frames(files: dict[str, bytes], scene: tuple[str, str], scene_name: str | None,
                   config: dict, first: int, count: int, gop: int, known: dict | None = None,
                   hints: int | None = None) -> dict:
    """On a worker: frames ``first .. first + count - 1`` as lossless PNGs (an image
    sequence's chunk); their bytes and one checksum (and :func:`_figures`). ``scene``: its
    file's name and its folder as the driver shows it (:func:`.chunk_dir.scene_sent`: where
    an error names its files); ``hints``: as :class:`~hfrender.engine.render.RenderJob`
    takes them."""
    from hfrender.engine.render import RenderJob
    from hfrender.io.frame_marks import sequence_id
    from hfrender.io.images import png8_bytes
    from hfrender.io.writers import MemoryWriter

    cfg = task_config(config)
    with caught() as warnings, chunk_dir(within=scene[1]) as tmp:
        warnings.chunk(tmp, scene[1], start_of(cfg.frames) + first, count)  # (as the driver
        lay_out(files, Path(tmp))  # names its files)
        memory = MemoryWriter()
        job = RenderJob(Path(tmp) / scene[0], cfg, scene_name=scene_name,
                        first_frame=start_of(cfg.frames) + first, count=count, writer=memory,
                        gl_device=_task_gpu(), stop=chunk_stop.check, hints=hints).prepare()
        figures = _figures(job, job.run(), known)
    figures["warnings"] = warnings.texts
    mark = sequence_id(cfg.output)  # hfrender's, and this sequence's (a review)
    pngs = [png8_bytes(frame, mark) for frame in memory.frames]
    return {"first": first, "count": count, "pngs": pngs,
            "sha256": hashlib.sha256(b"".join(pngs)).hexdigest(), **figures}


def _figures(job: object, stats: object, known: dict | None) -> dict:
    """A chunk's figures for the driver's summary: sub-frames drawn, hyperframes split for
    memory; and the files its scene read (``files``: sha256 by name, relative to the
    scene's folder where inside it, as :func:`.scene_assets` gives them; those ``known``,
    the driver's, not read again), a font ``update(t)`` gave at these frames alone too: the
    driver's manifest names them before it keeps the chunk's frames, for ``--resume``
    (was: only those of ``setup()``)."""
    return {"subframes": stats.subframes, "retries": stats.retries,
            "files": scene_assets(job.scene, known)}


def render_chunk(files: dict[str, bytes], scene: tuple[str, str], scene_name: str | None,
                  config: dict, first: int, count: int, gop: int, known: dict | None = None,
                  hints: int | None = None) -> dict:
    """On a worker: the scene's folder laid out afresh, frames ``first .. first + count -
    1`` rendered as one segment; its bytes and checksum (and :func:`_figures`); ``scene``,
    ``hints``: as :func:`render_frames` takes them."""
    cfg = task_config(config)
    codec = check_output(cfg.output, cfg.size, cfg.codec, pix_fmt=cfg.pix_fmt)
    with caught() as warnings, chunk_dir(within=scene[1]) as tmp:
        warnings.chunk(tmp, scene[1], start_of(cfg.frames) + first, count)  # (as the driver
        lay_out(files, Path(tmp))  # names its files)
        chunk = _segment(Path(tmp), (scene[0], scene_name), cfg, codec, (first, count, gop),
                         known, hints)
    return {**chunk, "warnings": warnings.texts}


def _segment(tmp: Path, scene: tuple[str, str | None], cfg: RenderConfig, codec: str,
             frames: tuple[int, int, int], known: dict | None, hints: int | None) -> dict:
    """:func:`render_chunk`'s segment, in its chunk's folder ``tmp`` (laid out); ``scene``:
    its file's name and the scene's name; ``frames``: first, count, keyframe interval."""
    from hfrender.engine.render import RenderJob

    first, count, gop = frames
    path = tmp / ".segment" / segment_name(first, codec, cfg.fps, output=cfg.output)
    path.parent.mkdir()
    writer = open_segment(path, cfg.fps, cfg.size, codec, gop, first,
                          frames_format(cfg), encoding=Encoding.of(cfg))
    try:  # ``first`` counts from the output's first frame (--frames: the range's)
        job = RenderJob(tmp / scene[0], cfg, scene_name=scene[1],
                        first_frame=start_of(cfg.frames) + first, count=count,
                        writer=writer, gl_device=_task_gpu(), stop=chunk_stop.check,
                        hints=hints).prepare()
        stats = job.run()
    finally:
        writer.close()
    return {"first": first, "count": count, "data": path.read_bytes(),
            "sha256": sha256_file(path), "gl": stats.gl_renderer,
            "backend": stats.backend, **_figures(job, stats, known)}
