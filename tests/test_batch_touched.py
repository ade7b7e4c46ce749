"""A finished video whose time changed, not its content (a ``touch``, a copy back from a
backup without its times), stays up to date: a trial's ``touch out/p.webm`` made a batch
render the job all over again. Its content changed is made again, as ever."""

import json
import os
import shutil

import pytest
from batch_helpers import make_folder

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")


def _status(folder):
    out = folder / "s.json"
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "-q"]) == 0
    return json.loads(out.read_text())[0]["status"]


def test_a_touched_or_copied_back_video_is_up_to_date_and_a_changed_one_is_not(tmp_path):
    folder = make_folder(tmp_path)
    video = folder / "out" / "bar.mp4"
    assert _status(folder) == "done"
    os.utime(video, ns=(1, 1))  # touch
    assert _status(folder) == "up-to-date"
    shutil.copyfile(video, tmp_path / "backup.mp4")
    video.unlink()
    shutil.copyfile(tmp_path / "backup.mp4", video)  # (a new time)
    assert _status(folder) == "up-to-date"
    data = bytearray(video.read_bytes())
    data[len(data) // 2] ^= 0xFF  # the same size, other content (its mark kept)
    video.write_bytes(bytes(data))
    assert _status(folder) == "done"
