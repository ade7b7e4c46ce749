"""Which ffmpeg runs: imageio-ffmpeg's (or ``IMAGEIO_FFMPEG_EXE``'s), checked once a process
to be an ffmpeg that starts, so that a missing or wrong one is one line up front, not a
traceback from the first pipe opened to it."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from functools import cache
from typing import Any

from hfrender.errors import ToolUnavailable, system_refused

ENV = "IMAGEIO_FFMPEG_EXE"
GET_ONE = ("pip install -U imageio-ffmpeg, or install ffmpeg (apt install ffmpeg) and set "
           "IMAGEIO_FFMPEG_EXE=/usr/bin/ffmpeg")
OUT_OF_FILES = (errno.EMFILE, errno.ENFILE)
SET_ONE = "point IMAGEIO_FFMPEG_EXE at an ffmpeg, or unset it for imageio-ffmpeg's own"


def ffmpeg_exe(exe: str | None = None) -> str:
    """``exe`` if given, else the ffmpeg binary this machine has (:func:`checked`)."""
    return exe if exe is not None else checked(os.environ.get(ENV) or None)


@cache
def checked(env: str | None) -> str:
    """The ffmpeg binary that ``IMAGEIO_FFMPEG_EXE=env`` (None: unset) gives, once it is
    seen to start and to say it is an ffmpeg; else one :class:`ToolUnavailable` line."""
    import imageio_ffmpeg

    try:
        exe = imageio_ffmpeg.get_ffmpeg_exe()
    except RuntimeError as exc:  # no binary in the wheel, none on PATH
        raise ToolUnavailable(f"no ffmpeg on this machine (imageio-ffmpeg brings none for "
                              f"it): {GET_ONE}") from exc
    where = f"{ENV}={env}" if env else f"imageio-ffmpeg's {exe}"
    fix = SET_ONE if env else GET_ONE
    if os.sep not in exe:  # a command's name, found on PATH (imageio-ffmpeg's fallback)
        exe = shutil.which(exe) or exe
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        why = "no such file" if not os.path.exists(exe) else "not an executable file"
        raise ToolUnavailable(f"no ffmpeg at {where}: {why}; {fix}")
    try:
        said = subprocess.run([exe, "-version"], capture_output=True, text=True,
                              errors="replace", timeout=60, check=False).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        refused = system_refused(exc) if getattr(exc, "errno", None) in OUT_OF_FILES else None
        if refused is not None:  # (ulimit -n: was "does not start; pip install -U ...")
            raise refused from exc
        raise ToolUnavailable(f"the ffmpeg at {where} does not start "
                              f"({getattr(exc, 'strerror', None) or exc}); {fix}") from exc
    if not said.startswith("ffmpeg version"):
        first = (said.strip().splitlines() or ["nothing"])[0][:80]
        raise ToolUnavailable(f"{where} is not an ffmpeg: its -version says {first!r}; "
                              f"{fix}")
    return exe


def started(cmd: list[str], **popen: Any) -> subprocess.Popen:
    """``subprocess.Popen(cmd, **popen)`` of an ffmpeg (``cmd[0]``); one that cannot run
    now (removed or made unexecutable since :func:`checked`) is one line naming it (was
    "cannot write <the ffmpeg's path>", as if it were an output)."""
    try:
        return subprocess.Popen(cmd, **popen)
    except OSError as exc:
        if exc.errno in OUT_OF_FILES or exc.filename != cmd[0]:
            raise  # (out of files: :func:`hfrender.errors.system_refused`'s line)
        fix = SET_ONE if os.environ.get(ENV) else GET_ONE
        raise ToolUnavailable(f"the ffmpeg at {cmd[0]} does not start "
                              f"({exc.strerror or exc}); {fix}") from exc
