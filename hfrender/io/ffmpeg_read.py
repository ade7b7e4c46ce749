"""ffmpeg command lines that read a video, built by pure functions (a test reads them):
its frames decoded to raw frames on a pipe (:func:`decode_command`, with the YUV matrix an
untagged video is read with, :func:`untagged_matrix`) and its packets listed without
decoding them (:func:`probe_command`). The encoder's and the join's are in
:mod:`hfrender.io.ffmpeg`.

Every builder takes the ffmpeg binary as ``exe`` (default: imageio-ffmpeg's).
"""

from __future__ import annotations

from pathlib import Path

from hfrender.io.colour_tags import FROM_SCALER, WIDE, YUV, source_colour
from hfrender.io.ffmpeg import EXACT_SWS
from hfrender.io.ffmpeg_binary import ffmpeg_exe


def decode_command(path: str, pix_fmt: str, exe: str | None = None,
                   decoder: str | None = None, listing: bool = False,
                   matrix: str | None = None, yuv: bool = False) -> list[str]:
    """ffmpeg decoding the first video stream of ``path`` to raw frames on stdout, every
    frame once (variable frame rate too). ``decoder``: the decoder to use (libvpx-vp9
    decodes VP9's alpha, ffmpeg's own vp9 does not); ``listing``: ``path`` is an ffconcat
    list of image files (a 16-bit PNG sequence); ``matrix``: the YUV matrix to read an
    untagged video with (:func:`untagged_matrix`); ``yuv``: the video is YUV (into 16-bit
    RGB, its white made 65535: :data:`~hfrender.io.colour_tags.FROM_SCALER`)."""
    before = ["-c:v", decoder] if decoder else []
    if listing:
        before += ["-f", "concat", "-safe", "0"]
    filters = [f"scale=in_color_matrix={matrix}"] if matrix else []
    if yuv and pix_fmt in WIDE:
        filters += [f"format={pix_fmt}", FROM_SCALER]
    convert = ["-vf", ",".join(filters)] if filters else []
    return [ffmpeg_exe(exe), "-hide_banner", "-loglevel", "error", *before,
            "-i", str(Path(path).resolve()),  # absolute: a "name:x" is not a protocol
            "-map", "0:V:0", "-fps_mode", "passthrough", *convert, *EXACT_SWS,
            "-f", "rawvideo", "-pix_fmt", pix_fmt,
            "-avioflags", "direct", "-"]  # a frame a write, not 32 KiB ones: fewer wake-ups


def untagged_matrix(described: str, size: tuple[int, int], pix_fmt: str) -> str | None:
    """The matrix a video of no colour space (``described`` as ffmpeg describes the
    stream) is read with into RGB ``pix_fmt``, as players read it: BT.709 for HD (1280
    wide or more than 576 lines, mpv's rule); None (ffmpeg's BT.601) for SD, a tagged
    video, RGB planes or planes passed through."""
    if not described.startswith(YUV) or pix_fmt.startswith(YUV):
        return None
    if "colorspace" in source_colour(described):
        return None
    w, h = size
    return "bt709" if w >= 1280 or h > 576 else None


def probe_command(path: str, exe: str | None = None, fmt: str | None = None) -> list[str]:
    """ffmpeg listing the packets of the first video stream (framecrc: one line each with
    its timestamps, as the file holds them: ``-copyts``, so that the first one less the
    file's start is where the video starts against the audio; without it ffmpeg shifts
    them by a start of its own choosing, the file's or the stream's) without decoding
    them; its log describes the streams. ``fmt``: the demuxer, not guessed (a segment's
    MPEG-TS of a few frames was taken for MPEG-PS)."""
    return [ffmpeg_exe(exe), "-hide_banner", "-nostats", "-copyts",
            *(["-f", fmt] if fmt else []), "-i", path, "-map", "0:V:0", "-c", "copy", "-f",
            "framecrc", "-"]
