"""What a render did: :class:`RenderStats`, typed fields the CLI, bench and tests read."""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass
class RenderStats:
    """What a render did, as typed fields (the CLI, bench and tests read these)."""

    output: str
    frames_written: int = 0
    total_frames: int = 0
    subframes: int = 0
    seconds: float = 0.0
    setup_s: float = 0.0
    gl_renderer: str = ""
    msaa: int = 1  # coverage samples per pixel the sub-frames were drawn with
    hdr: bool = False  # float sub-frames of linear light (--hdr), and why
    hdr_why: str = ""
    transparent: bool = False  # RGBA output (--transparent, or a scene's background None)
    backend: str = ""
    dof: str = "off"
    reconstruct: bool = False  # the motion between sub-frames reconstructed from velocity
    no_velocity: bool = False  # the scene cannot give velocity (a fragment shader)
    granularity: int = 0
    device_to_host_bytes: int = 0
    stopped_late: bool = False  # a Ctrl-C came once every frame was in: the output is whole
    interop: bool = False
    fusion_processes: int = 0  # child processes that fused (--fusion-process)
    retries: int = 0
    latency_ms: float = 0.0
    pool_mb: float = 0.0  # the hyperframe pool's size in MiB (bytes / 2**20)
    resumed_at: int | None = None  # the first frame rendered by a --resume
    shutter: tuple[float, int] | None = None  # (degrees, samples) when they were changed
    preview_frames: int = 0
    frames_in_output: int = 0  # frames the output file holds (after a resume: all of them)
    partial: str | None = None  # where an unfinished render's frames are kept to watch
    lost_bytes: int | None = None  # a one-piece output (GIF, .ts) its failed writer had
    #                                written, not kept: what fit where the disk filled
    segments: tuple[int, int] = (0, 0)  # (made by this run, reused from an interrupted one)
    store_bytes: int = 0  # --keep-samples: the sample store's size

    @property
    def fps(self) -> float:
        return self.frames_written / self.seconds if self.seconds > 0 else 0.0


def peak_memory() -> int | None:
    """The most memory this process held at once (resident bytes), or None where the system
    does not say (``resource``: Unix). Not its child processes': a child started by fork
    and exec keeps its parent's figure (a review: 625 MB said for ``true``)."""
    try:
        import resource
    except ImportError:
        return None
    unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, else KiB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit
