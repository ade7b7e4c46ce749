"""``hfrender render --keep-samples DIR``: every sub-frame of the render into a sample store
(:mod:`hfrender.io.store`), beside the normal output, to expose it again later
(``hfrender reexpose``)."""

from __future__ import annotations

import logging
import math
import shutil
from typing import Any

import numpy as np

from hfrender.dof_boxes import to_host
from hfrender.errors import output_said, spelling
from hfrender.hyperframe.frame import HyperFrame, per_frame
from hfrender.io.store import StoreWriter
from hfrender.plan_stream import PlanStream
from hfrender.scene import ShaderScene
from hfrender.sizes import bytes_said

log = logging.getLogger(__name__)

STORED = {"frames": "color", "timestamps": "times", "apertures": "aperture", "shifts": "shift",
          "depth": "depth", "velocity": "velocity"}  # a hyperframe's ARRAYS by a store's names


def store_settings(config: Any, scene: Any, dof: str, schedule: Any, first: int, count: int,
                   depth: bool) -> dict:
    """What a store's sub-frames were drawn with (its ``settings``)."""
    s = {"fps": config.fps, "shutter": schedule.effective_shutter_deg,
         "position": config.shutter_position, "curve": config.shutter_curve,
         "samples": schedule.window, "jitter": config.jitter, "seed": config.seed,
         "antialias": config.antialias, "msaa": config.msaa, "dof": dof, "depth": depth,
         "hdr": config.hdr == "on",
         "transparent": bool(config.transparent),
         "first_frame": first, "frames": count, "scene": str(scene.source_path)}
    if not isinstance(scene, ShaderScene) and scene.camera.f_stop is not None:
        lens = scene.camera.lens(config.max_coc_px, aspect=config.size[0] / config.size[1])
        s.update(focal_length_mm=lens.focal_length_mm, width_mm=lens.sensor_width_mm,
                 lens={"focus_distance": lens.focus_distance, "f_stop": lens.f_stop,
                       "max_coc_px": config.max_coc_px,
                       "aperture_blades": lens.aperture_blades})
    elif not isinstance(scene, ShaderScene):  # a pinhole at first: no focus, no f-stop
        cam = scene.camera  # (each sub-frame keeps its own, a later one's an f-stop)
        s.update(focal_length_mm=cam.focal_length_mm,
                 width_mm=cam.picture_width_mm(config.size[0] / config.size[1]),
                 lens={"max_coc_px": config.max_coc_px,
                       "aperture_blades": cam.aperture_blades})
    return s


def keeper_for(config: Any, scene: Any, dof: str, schedule: Any, first: int, count: int,
               depth: bool, drawer: Any = None) -> SampleKeeper | None:
    """The keeper of a render with ``--keep-samples`` (None without); ``drawer``'s focus
    log is then the store's (the focus it notes as it draws)."""
    if config.keep_samples is None:
        return None
    settings = store_settings(config, scene, dof, schedule, first, count, depth)
    # refocused later, a --dof off store keeps the scene's focus at each sub-frame too (a
    # pull): the drawer notes it (SubframeDrawer.focus_log) as it draws
    focus = {} if dof == "off" and not isinstance(scene, ShaderScene) else None
    keeper = SampleKeeper(config.keep_samples, settings, config.size, focus,
                          PlanStream(schedule, first, count).subframes)
    if drawer is not None:
        drawer.focus_log = keeper.focus
    return keeper


def keeps_depth(config: Any, scene: Any, dof: str) -> bool:
    """A kept mesh render keeps its depth too (a new focus later needs it), but not one of
    ``--dof lens``: its sub-frames are defocused already, and never refocused (the depth
    was half a store's bytes, unused; ``--reconstruct`` draws and keeps it anyway)."""
    return config.keep_samples is not None and not isinstance(scene, ShaderScene) \
        and dof != "lens"


class SampleKeeper:
    """Adds each full hyperframe's new sub-frames to the store (call before the engine
    fuses it: the slot is still the producer's)."""

    def __init__(self, path: str, settings: dict, size: tuple[int, int],
                 focus: dict[float, tuple[float, float]] | None = None,
                 subframes: int | None = None) -> None:
        self.writer = StoreWriter(path, settings, size)
        self.path = path
        # the render's sub-frames in all (over 360 degrees windows share them: 60 frames of
        # 8 samples at 720 degrees draw 244, not 480); None: frames x samples
        self.subframes = subframes
        self.focus = focus  # a --dof off render's: sub-frame time -> (focus, f-stop or NaN)
        self.open = True  # until close()
        self.room_told = False  # the store's whole size against its disk's free space

    def add(self, hyper: HyperFrame) -> None:
        drawn = np.isfinite(hyper.timestamps)  # --samples auto leaves slots undrawn: NaN
        drawn[: hyper.halo] = False
        new = np.flatnonzero(drawn)
        arrays = {STORED[k]: a for k, a in per_frame(hyper, lambda x: to_host(x[new])).items()
                  if a is not None}
        color = arrays["color"]  # --hdr: float linear light, kept as half floats
        if color.dtype.kind == "f":
            arrays["color"] = color.astype(np.float16)
        if hyper.lenses is not None:
            lenses = [hyper.lenses[i] for i in new]
            arrays["focus_m"] = np.array([x.focus_distance for x in lenses], np.float64)
            arrays["f_stop"] = np.array([x.f_stop for x in lenses], np.float64)
        elif self.focus is not None:  # drawn without depth of field: the scene's, each
            kept = np.array([self.focus.pop(float(t), (math.nan, math.nan))
                             for t in arrays["times"]], np.float64).reshape(-1, 2)
            arrays["focus_m"], arrays["f_stop"] = kept[:, 0], kept[:, 1]
        if len(arrays["times"]):
            self.writer.add(arrays)
        if not self.room_told and self.writer.bytes:
            self.tell_room()

    def tell_room(self) -> None:
        """Once the first chunk is on the disk: the whole store's size, from its bytes a
        sub-frame so far, against the free space of its disk: said before it fills it (was:
        a 4K render's store took 60 MB a frame, unsaid until the disk was full, a trial)."""
        self.room_told = True
        w, s = self.writer, self.writer.meta["settings"]
        with w._lock:  # the chunks written (their sha256 set) and their bytes, together
            done, kept = sum(c["count"] for c in w.meta["chunks"] if "sha256" in c), w.bytes
        total = self.subframes or s["frames"] * s["samples"]
        whole = kept / max(1, done) * total
        try:
            free = shutil.disk_usage(w.tmp).free
        except OSError:  # removed by the writer's thread, its disk full: its error says so
            return
        said = (f"{output_said(self.path, key='keep_samples')}: the store will take about "
                f"{bytes_said(whole)} ({bytes_said(kept)} for its first {done} of {total} "
                "sub-frames)")
        if whole - kept > free:
            name = spelling().name  # (the flags, or hf.render's keywords: lower samples)
            log.warning("%s, more than the %s free on its disk: free some space, or lower "
                        "%s, %s or the frames rendered", said, bytes_said(free),
                        name("samples"), name("size"))
        else:
            log.info("%s; %s free on its disk", said, bytes_said(free))

    @property
    def nbytes(self) -> int:
        return self.writer.bytes

    def close(self, error: BaseException | None, frames: int,
              stats: Any) -> BaseException | None:
        """The store in place after a complete render, else left in ``DIR.partial``;
        returns the render's error, or the store's own."""
        self.open = False
        try:
            if error is None:
                self.writer.finish(frames)
            else:
                self.writer.abandon()
        except BaseException as exc:  # noqa: BLE001 - the render's error comes first
            error = error or exc
        stats.store_bytes = self.writer.bytes
        return error
