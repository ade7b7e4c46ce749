"""What the `hfrender render` command-line tests share: ``BAR``, a shader scene;
``video_info``, a video's size and frame count; the ``x_display`` fixture, a virtual X
display for --preview."""

import subprocess
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest

DATA = Path(__file__).parent / "data"


BAR = str(DATA / "bar.frag")


def video_info(path):
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    frames = [np.frombuffer(f, np.uint8) for f in reader]
    return meta["size"], len(frames)


@pytest.fixture(name="x_display")
def x_display_fixture(monkeypatch):
    """A virtual X display (Xvfb, installed by `bash dev.sh test`), accepting clients by the
    time it is yielded: Xvfb picks a free display number itself and writes it to -displayfd
    once it is ready (no guessed numbers, no sleep that a loaded machine outlasts)."""
    import os
    import shutil

    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (bash dev.sh test installs it)")
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "640x480x24",
                             "-nolisten", "tcp"], pass_fds=(write_fd,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as ready:
        number = ready.readline().strip()  # blocks until the server is up; "" if it died
    if not number.isdigit():
        proc.kill()
        proc.wait(5)
        pytest.fail(f"Xvfb did not start (exit status {proc.returncode})")
    monkeypatch.setenv("DISPLAY", f":{number}")
    yield f":{number}"
    proc.terminate()
    proc.wait(5)
