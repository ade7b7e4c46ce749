"""``hfrender info``: what this machine offers hfrender (versions, GL contexts, fusion
backends, fusion processes, ffmpeg and its encoders)."""

from __future__ import annotations

import argparse
import platform

import hfrender
from hfrender.backends import BACKENDS, load
from hfrender.config import RenderConfig
from hfrender.errors import BackendUnavailable, HFRenderError
from hfrender.renderer.contexts import CONTEXTS
from hfrender.sizes import bytes_said


def cmd_info(args: argparse.Namespace) -> int:
    """What this machine offers hfrender: versions, GL contexts, fusion backends, ffmpeg."""
    import numpy as np

    from hfrender.renderer.contexts import create_context
    from hfrender.renderer.msaa import most_samples, msaa_samples

    print(f"hfrender {hfrender.__version__}  (Python {platform.python_version()}, "
          f"NumPy {np.__version__}, {platform.machine()})")
    for name in CONTEXTS:
        try:
            glctx = create_context(name, size=(64, 64))
            try:  # (was: not given back where a line raised: the thread's kept context lent
                most = most_samples(glctx.ctx)  # for good, each later render's made anew)
                print(f"gl {name}: {glctx.renderer}; msaa up to {most} samples, auto "
                      f"{msaa_samples(glctx.ctx, 'auto')}")
            finally:
                glctx.release()
        except HFRenderError as exc:
            print(f"gl {name}: unavailable: {exc}")
    for name in BACKENDS:
        try:
            print(f"backend {name}: {load(name).describe()}")
        except BackendUnavailable as exc:
            print(f"backend {name}: unavailable: {exc}")
    print(f"fusion processes: {_fusion_processes_offered()}")
    print(f"memory: {_memory_offered()}")
    try:
        for line in _ffmpeg_offered(getattr(args, "verbose", False)):
            print(line)
    except Exception as exc:  # noqa: BLE001 - report any failure to find the binary
        print(f"ffmpeg: unavailable: {exc}")
    return 0


def _ffmpeg_offered(verbose: bool) -> list[str]:
    """The ffmpeg lines: its binary, version and encoders; NVIDIA's (NVENC) apart where
    no NVIDIA driver loads (was: listed among those available, then refused at use)."""
    import imageio_ffmpeg

    from hfrender.backends.cuda import driver_missing
    from hfrender.io.ffmpeg_binary import ffmpeg_exe
    from hfrender.io.writers import ffmpeg_encoders

    enc = ffmpeg_encoders()
    no_gpu = driver_missing()
    nvenc = sorted(e for e in ffmpeg_encoders("V") if "nvenc" in e) if no_gpu else []
    video = [e for e in ("libx264", "libx265", "libvpx-vp9", "h264_nvenc", "hevc_nvenc",
                         "gif", "png") if e in enc and e not in nvenc]
    lines = [f"ffmpeg: {ffmpeg_exe()} (version {imageio_ffmpeg.get_ffmpeg_version()}); "
             f"{len(enc)} encoders, among them: {', '.join(video)}"
             + ("" if verbose else " (-v: every video encoder)")]
    if verbose:
        lines.append("ffmpeg video encoders: "
                     f"{', '.join(sorted(ffmpeg_encoders('V') - set(nvenc)))}")
    if nvenc:
        lines.append(f"ffmpeg NVIDIA encoders {', '.join(nvenc)}: need an NVIDIA GPU, none "
                     f"found ({no_gpu.split(' (', 1)[0]})")
    return lines


def _fusion_processes_offered() -> str:
    """What ``--fusion-process auto`` does on this machine (``hfrender info``)."""
    from hfrender.engine.render_setup import fusion_workers, usable_cores
    from hfrender.hyperframe import shared

    cores = usable_cores()
    if not shared.available():
        return "unavailable (no memfd: Linux 3.17+); the CPU fusion runs in the render's process"
    if cores < 2:
        return f"not used by auto ({cores} usable core); --fusion-process on runs them"
    n = fusion_workers(RenderConfig(), processes=True)
    return (f"{n} beside the drawing for --reconstruct and --dof depth on the CPU "
            f"({cores} usable cores)")


def _memory_offered() -> str:
    """What this process may use, as ``--granularity auto`` sizes the pool from it (was:
    unsaid, though a pool that does not fit is refused): the least of the free RAM, the
    cgroup's room and ``ulimit -v``'s, and which of them it is."""
    from hfrender.hyperframe import builder

    rooms = {"free RAM": builder._ram_available(), "the cgroup's memory.max":
             builder.cgroup_room(), "ulimit -v": builder.address_room()}
    least = min(rooms, key=rooms.__getitem__)
    return (f"{bytes_said(max(0, rooms[least]))} this process may use ({least}); "
            "--granularity auto sizes the hyperframe pool from it")
