"""Writing finished frames: video through imageio-ffmpeg, or a lossless PNG sequence.

The format follows the output name: ``.mp4``/``.mov``/``.mkv`` (H.264, yuv420p), ``.webm``
(VP9), ``.gif`` (a palette made from the whole clip), or a pattern such as
``frames/%05d.png``. Frames are written at exactly the requested size (imageio-ffmpeg's
silent rescale to multiples of 16 is turned off). Closing the writer finalises the file
so it plays, also after an error or Ctrl-C mid-render.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import HFRenderError, InputError

VIDEO_SUFFIXES = {".mp4": "libx264", ".mov": "libx264", ".mkv": "libx264",
                  ".webm": "libvpx-vp9", ".gif": "gif"}
X264_LIKE = ("libx264", "libx264rgb", "libx265")


class WriterError(InputError):
    """The output cannot be written as asked (one line for the user)."""


def widen_pipe(stream: Any) -> None:
    """A 1 MiB pipe instead of 64 KiB: fewer wake-ups for megabyte frames (Linux only)."""
    try:
        import fcntl

        fcntl.fcntl(stream.fileno(), 1031, 1 << 20)  # F_SETPIPE_SZ
    except (ImportError, OSError, ValueError):
        pass


def frame_pipe_env() -> dict[str, str]:
    """The environment of an ffmpeg that moves megabyte raw frames through a pipe.

    glibc's malloc gives a freed block back to the kernel once the free space at the top
    of a heap passes a threshold that follows the block sizes seen (~2.8 MB for 720p
    4:2:0 frames), and the next frame then faults its pages in again, each cleared anew.
    Fixed thresholds keep freed frames for reuse: over 240 frames of 720p that saved
    ~0.3 s of CPU in the decoder and encoder together (``benchmarks/RESULTS.md``). Other C
    libraries ignore these variables, and values the user set win.
    """
    env = dict(os.environ)
    env.setdefault("MALLOC_MMAP_THRESHOLD_", str(32 << 20))  # glibc's largest
    env.setdefault("MALLOC_TRIM_THRESHOLD_", str(1 << 30))
    return env


def is_sequence(path: str) -> bool:
    return "%" in Path(path).name


def pattern_files(name: str, suffix: str = "") -> re.Pattern | None:
    """The file names of an image-sequence pattern such as ``%05d.png`` (the number as group
    1, then ``suffix``, a regex); None if ``name`` has no ``%d``."""
    m = re.search(r"%0?\d*d", name)
    if m is None:
        return None
    return re.compile(re.escape(name[: m.start()]) + r"(\d+)" + re.escape(name[m.end():])
                      + suffix + "$")


def raw_frame_shape(size: tuple[int, int], pix_fmt: str) -> tuple[int, int, int]:
    """The array of one raw frame: (H, W, 3) for rgb24, (3H/2, W, 1) for yuv420p's planes."""
    w, h = size
    return (h, w, 3) if pix_fmt == "rgb24" else (h * 3 // 2, w, 1)


@cache
def ffmpeg_encoders() -> frozenset[str]:
    """Names of the encoders of imageio-ffmpeg's ffmpeg binary."""
    import imageio_ffmpeg

    res = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-encoders"],
                         capture_output=True, text=True, check=False)
    names = set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[0]) == 6 and parts[0][0] in "VAS":
            names.add(parts[1])
    return frozenset(names)


def check_output(path: str, size: tuple[int, int], codec: str | None = None) -> str:
    """Validate an output before anything is rendered; returns the codec that will be used."""
    suffix = Path(path).suffix.lower()
    if is_sequence(path):
        if suffix != ".png":
            raise WriterError(f"-o {path}: an image sequence is written as PNG: use a name "
                              "like frames/%05d.png")
        try:
            _ = Path(path).name % 0
        except (TypeError, ValueError):
            raise WriterError(f"-o {path}: the pattern needs one integer field such as %05d"
                              ) from None
        return "png"
    if suffix not in VIDEO_SUFFIXES:
        raise WriterError(f"-o {path}: unknown output type {suffix or '(none)'!r}; use "
                          f"{', '.join(VIDEO_SUFFIXES)} or a PNG pattern like frames/%05d.png")
    chosen = codec or VIDEO_SUFFIXES[suffix]
    if chosen not in ffmpeg_encoders():
        raise WriterError(f"--codec {chosen}: this ffmpeg has no such encoder (hfrender info "
                          "lists them)")
    if chosen != "gif" and (size[0] % 2 or size[1] % 2) and "rgb" not in chosen:
        raise WriterError(f"size {size[0]}x{size[1]}: {chosen} video in yuv420p needs an even "
                          f"width and height; use {size[0] // 2 * 2}x{size[1] // 2 * 2}, "
                          "or write a PNG sequence (-o frames/%05d.png)")
    parent = Path(path).parent
    if str(parent) not in ("", ".") and not parent.is_dir():
        raise WriterError(f"-o {path}: folder {parent} does not exist")
    return chosen


class WriteFailed(HFRenderError):
    """Writing failed while rendering (ffmpeg died, the disk is full, ...)."""


class VideoWriter:
    """Frames (H, W, 3) uint8 RGB -> a video file, through the ffmpeg of imageio-ffmpeg.

    ffmpeg runs in its own process session (Ctrl-C reaches hfrender, which then closes the
    pipe so that ffmpeg finalises the file) and its exit status is checked at the end.
    """

    def __init__(self, path: str, fps: float, size: tuple[int, int], codec: str | None = None,
                 gop: int | None = None, audio_from: str | None = None,
                 container: str | None = None, pix_fmt_in: str = "rgb24",
                 times: Sequence[float] | None = None, start: float = 0.0) -> None:
        import tempfile
        from fractions import Fraction

        import imageio_ffmpeg

        self.path, self.size = path, size
        self.codec = check_output(container or path, size, codec)
        params: list[str] = []
        pix_fmt = "yuv420p"
        if self.codec == "gif":
            pix_fmt = "pal8"
            params += ["-filter_complex", "split[a][b];[a]palettegen[p];[b][p]paletteuse",
                       "-loop", "0"]
        elif self.codec in X264_LIKE:
            params += ["-crf", "18", "-preset", "medium"]
            if self.codec == "libx264rgb":
                pix_fmt = "rgb24"
        elif self.codec == "libvpx-vp9":
            params += ["-crf", "32", "-b:v", "0", "-row-mt", "1"]
        if gop and self.codec != "gif":
            params += ["-g", str(gop)]
            if self.codec in X264_LIKE:
                params += ["-keyint_min", str(gop), "-sc_threshold", "0"]
        rate = Fraction(fps).limit_denominator(1001)
        audio: list[str] = []
        if audio_from and self.codec != "gif":  # the soundtrack of the footage, kept
            audio_codec = "libopus" if Path(container or path).suffix.lower() == ".webm" \
                else "aac"
            audio = ["-i", audio_from, "-map", "0:v:0", "-map", "1:a:0?", "-c:a", audio_codec]
        fmt = ["-f", {".mp4": "mp4", ".mov": "mov", ".mkv": "matroska", ".webm": "webm",
                      ".gif": "gif"}[Path(container).suffix.lower()]] if container else []
        self._timing: str | None = None
        timing: list[str] = []
        if times is not None and self.codec != "gif":  # frame k is shown at start + times[k]
            fd, self._timing = tempfile.mkstemp(prefix="hfrender-", suffix=".filter")
            with os.fdopen(fd, "w") as fh:
                fh.write(timestamps_filter([start + t for t in times]))
            timing = ["-/vf", self._timing, "-fps_mode", "passthrough",
                      "-enc_time_base:v", "filter"]
        self.shape = raw_frame_shape(size, pix_fmt_in)
        cmd = [imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error", "-y",
               "-f", "rawvideo", "-pix_fmt", pix_fmt_in, "-s", f"{size[0]}x{size[1]}",
               "-r", str(rate), "-avioflags", "direct",  # frames read whole from the pipe
               "-i", "-", *audio, "-c:v", self.codec, "-pix_fmt", pix_fmt,
               *params, *timing, *fmt, path]
        self._log = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                      stderr=self._log, start_new_session=True,
                                      env=frame_pipe_env())
        widen_pipe(self._proc.stdin)
        self.frames_written = 0

    def _ffmpeg_says(self) -> str:
        self._log.seek(0)
        lines = [s.strip() for s in self._log.read().decode(errors="replace").splitlines()]
        return next((s for s in reversed(lines) if s), "no message")

    def write(self, frame: np.ndarray) -> None:
        if frame.shape != self.shape or frame.dtype != np.uint8:
            raise ValueError(f"frame is {frame.dtype} {frame.shape}; the video takes uint8 "
                             f"{self.shape}")
        try:
            self._proc.stdin.write(np.ascontiguousarray(frame).data)
        except (BrokenPipeError, OSError):
            self._proc.wait()
            raise WriteFailed(f"ffmpeg stopped writing {self.path} after {self.frames_written} "
                              f"frames: {self._ffmpeg_says()}") from None
        self.frames_written += 1

    def close(self) -> None:
        """Finalise the file (ffmpeg writes its index): it plays even after an interruption.

        A file that got no frame at all is not a video: it is removed. A failure of
        ffmpeg at the end raises :class:`WriteFailed` (the file may be unusable).
        """
        if self._proc is None:
            return
        proc, self._proc = self._proc, None
        try:
            proc.stdin.close()
        except OSError:
            pass
        code = proc.wait()
        if self._timing is not None:
            Path(self._timing).unlink(missing_ok=True)
        out = Path(self.path)
        empty = not out.is_file() or out.stat().st_size == 0
        if self.frames_written == 0 or (code != 0 and empty):
            out.unlink(missing_ok=True)  # no video at all: nothing that looks like one
        if code != 0:
            kept = "" if empty else " (what it wrote is kept, possibly incomplete)"
            raise WriteFailed(f"ffmpeg could not finish {self.path} (exit {code}): "
                              f"{self._ffmpeg_says()}{kept}")


def timestamps_filter(times: Sequence[float]) -> str:
    """An ffmpeg filter giving frame ``N`` the time ``times[N]`` (seconds): variable frame
    rate footage keeps its timing. Runs of even spacing become one linear piece each,
    found by a balanced tree of comparisons on ``N`` (a handful of pieces for a screen
    recording that dropped a few frames; never more than one per frame)."""
    runs: list[tuple[int, float, float]] = []  # (first frame, its time, step)
    i, n = 0, len(times)
    while i < n:  # a last frame on its own keeps the step before it (for any frame after)
        step = times[i + 1] - times[i] if i + 1 < n else (runs[-1][2] if runs else 0.0)
        j = i + 1
        while j + 1 < n and abs(times[j + 1] - times[j] - step) < 1e-7:
            j += 1
        runs.append((i, times[i], step))
        i = j + 1

    def tree(lo: int, hi: int) -> str:
        if hi - lo == 1:
            first, t, step = runs[lo]
            return f"{t:.9f}+(N-{first})*{step:.9f}"
        mid = (lo + hi) // 2
        return f"if(lt(N,{runs[mid][0]}),{tree(lo, mid)},{tree(mid, hi)})"

    return f"settb=1/90000,setpts='({tree(0, len(runs))})/TB+0.5'\n"  # +0.5: rounded


class PngSequenceWriter:
    """Frames -> ``pattern % index`` PNG files (lossless).

    Nothing is touched before the first frame: then the folder is made and older files
    of the same pattern (a previous render's) are removed, so the folder never mixes two
    renders. Each file is written under a temporary name and renamed when complete.
    """

    def __init__(self, pattern: str, fps: float, size: tuple[int, int], codec: str | None = None,
                 gop: int | None = None, start: int = 0) -> None:
        check_output(pattern, size, codec)
        self.pattern, self.size, self.index = pattern, size, start
        self.frames_written = 0

    def _prepare(self) -> None:
        Path(self.pattern).parent.mkdir(parents=True, exist_ok=True)
        remove_stale(self.pattern)

    def write(self, frame: np.ndarray) -> None:
        import imageio.v3 as iio

        if self.frames_written == 0:
            self._prepare()
        path = self.pattern % self.index
        tmp = f"{path}.part"
        try:
            iio.imwrite(tmp, np.ascontiguousarray(frame), extension=".png")
            os.replace(tmp, path)  # a file either is a whole frame or is not there
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise WriteFailed(f"cannot write {path}: {exc.strerror or exc}") from None
        self.index += 1
        self.frames_written += 1

    def close(self) -> None:
        pass


def remove_stale(pattern: str) -> None:
    """Remove the files of an image-sequence pattern (a previous render's frames)."""
    folder = Path(pattern).parent
    if not folder.is_dir():
        return
    stale = pattern_files(Path(pattern).name, r"(\.part)?")
    if stale is None:
        return
    for old in folder.iterdir():
        if stale.match(old.name) and old.is_file():
            old.unlink()


def open_writer(path: str, fps: float, size: tuple[int, int], codec: str | None = None,
                gop: int | None = None) -> Any:
    if is_sequence(path):
        return PngSequenceWriter(path, fps, size, codec, gop)
    return VideoWriter(path, fps, size, codec, gop)


class MemoryWriter:
    """Keeps frames in a list (stills, tests, library use)."""

    def __init__(self) -> None:
        self.frames: list[np.ndarray] = []

    @property
    def frames_written(self) -> int:
        return len(self.frames)

    def write(self, frame: np.ndarray) -> None:
        self.frames.append(np.array(frame, copy=True))

    def close(self) -> None:
        pass
