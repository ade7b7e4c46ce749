"""A sample store (--keep-samples) whose folder cannot be written, or whose disk is full as
it begins: one line naming the store and why, before or as the render begins."""

import errno
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from store_helpers import SETTINGS

from hfrender.io.store import MARKER, StoreError, StoreWriter, check_target
from hfrender.io.writers import WriteFailed


def test_a_store_on_a_read_only_file_system_says_so_before_the_render(tmp_path,
                                                                      monkeypatch):
    """Checked by making a file there, as an output's folder is (was: os.access, which lets
    root through: --keep-samples /proc/s as root was an internal error once the render
    began, and a read-only mount said "cannot write in DIR" without why, a trial)."""
    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    store = tmp_path / "new" / "s.samples"
    with pytest.raises(StoreError) as info:
        check_target(store)
    assert str(info.value) == (f"--keep-samples {store}: cannot write in {tmp_path}: the "
                               "file system is read-only")
    monkeypatch.undo()
    check_target(store)  # (writable: no word)
    assert list(tmp_path.iterdir()) == []  # (the probe removed)


def test_a_full_disk_as_a_store_begins_names_it_and_leaves_nothing(tmp_path, monkeypatch):
    """Its marker file could not be written (a trial on a full tmpfs: "cannot write a file:
    No space left on device", and an unfinished store left to remove)."""
    real = Path.write_text

    def full(self, *args, **kwargs):
        if self.name == MARKER:
            self.touch()
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full)
    store = tmp_path / "s.samples"
    with pytest.raises(WriteFailed) as info:
        StoreWriter(store, {**SETTINGS, "frames": 3}, (16, 8))
    assert str(info.value) == (f"--keep-samples {store}: cannot write the sample store: No "
                               "space left on device")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("free, level, end", [
    (10**6, "WARNING", ", more than the 1.0 MB free on its disk: free some space, or lower "
                       "--samples, --size or the frames rendered"),
    (10**8, "INFO", "; 100 MB free on its disk")])
def test_a_store_bigger_than_its_disk_is_said_after_its_first_chunk(tmp_path, monkeypatch,
                                                                   caplog, free, level, end):
    """Its whole size from the first chunk's bytes a sub-frame (was: a 4K render's store took
    60 MB a frame, unsaid until the disk was full and the render stopped, a trial)."""
    from hfrender.engine import keep

    usage = shutil.disk_usage(tmp_path)._replace(free=free)
    monkeypatch.setattr(keep.shutil, "disk_usage", lambda path: usage)
    store = tmp_path / "s.samples"
    keeper = keep.SampleKeeper(str(store), {**SETTINGS, "frames": 100}, (128, 64))
    color = np.random.default_rng(3).integers(0, 256, (2, 64, 128, 4), np.uint8)
    keeper.writer.add({"color": color, "times": np.array([0.0, 0.01])})
    keeper.writer._pending[0].result()
    assert round(keeper.writer.bytes, -3) == 66_000  # (random bytes: deflate keeps them all)
    kept = f"{keeper.writer.bytes / 1000:.1f} KB"  # (under 100 KB: one decimal)
    with caplog.at_level("INFO", logger="hfrender.engine.keep"):
        keeper.tell_room()
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [(level, (
        f"--keep-samples {store}: the store will take about 6.6 MB ({kept} for its first 2 "
        "of 200 sub-frames)") + end)]
    keeper.close(None, 1, type("Stats", (), {})())


def test_a_store_filling_the_outputs_disk_leaves_the_room_to_its_finished_frames(
        tmp_path, monkeypatch, capsys):
    """The store's chunks filled the disk the video shares: its unfinished store removed at
    once (it can be neither exposed nor resumed), the partial video joined in the room left
    (a trial: the store kept, the disk full, no partial video, no segment)."""
    from render_helpers import decode_video
    from test_render import write_scene

    from hfrender.cli import main
    from hfrender.io import segments

    scene = write_scene(tmp_path, """
    class Slide(hf.Scene):
        duration = 4.0
        def setup(self):
            self.cube = self.add(hf.Cube())
        def update(self, t):
            self.cube.position = (t, 0, 0)
    """)
    real_write, real_join, chunks = Path.write_bytes, segments.join, []

    def store_write(self, data):  # the disk is full at the store's second chunk
        if self.suffix == ".npz":
            chunks.append(self.name)
            if len(chunks) >= 2:
                raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, data)

    def video_join(files, out, *args, **kwargs):  # on the same disk: full while chunks stay
        if any((tmp_path / "ks.partial").glob("*.npz")):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_join(files, out, *args, **kwargs)

    monkeypatch.setattr(Path, "write_bytes", store_write)
    monkeypatch.setattr(segments, "join", video_join)
    monkeypatch.chdir(tmp_path)
    assert main(["render", str(scene), "-o", "o.mp4", "--size", "64x36", "--samples", "2",
                 "--keep-samples", "ks", "-q"]) == 1
    line = capsys.readouterr().err.strip().splitlines()[-1]
    n = len(decode_video(tmp_path / "o.partial.mp4"))
    assert (n, line) == (90, (
        "hfrender: error: --keep-samples ks: cannot write the sample store: No space left on "
        "device (its unfinished ks.partial was removed, leaving the room to the output's "
        "frames; a store holds a whole render: keep one on a disk with room, or render "
        "without --keep-samples); the 90 frames finished so far are in o.partial.mp4 (o.mp4 "
        "is not written); the 90 frames in whole segments are kept: the same command without "
        "--keep-samples and with --resume goes on from them"))
    assert not (tmp_path / "ks.partial").exists() and not (tmp_path / "ks").exists()


def test_a_store_removed_for_a_full_disk_before_its_size_is_foretold_says_nothing_of_it(
        tmp_path, caplog):
    """The writer's thread removes the unfinished store when the disk fills (a chunk after
    the first): the keeper's foretelling, a moment later on the drawing thread, found no
    folder to measure (was: "FileNotFoundError" from shutil.disk_usage, an internal error's
    traceback in place of the store's one line; test_a_store_filling_the_outputs_disk...
    failed 4 runs in 10)."""
    from hfrender.engine import keep

    store = tmp_path / "s.samples"
    keeper = keep.SampleKeeper(str(store), {**SETTINGS, "frames": 100}, (16, 8))
    keeper.writer.add({"color": np.zeros((2, 8, 16, 4), np.uint8),
                       "times": np.array([0.0, 0.01])})
    keeper.writer._pending[0].result()
    assert keeper.writer.bytes > 0
    keeper.writer.failed(OSError(errno.ENOSPC, "No space left on device"))  # (its thread's)
    assert not keeper.writer.tmp.exists()
    with caplog.at_level("INFO", logger="hfrender.engine.keep"):
        keeper.tell_room()
    assert caplog.records == []
    keeper.close(None, 1, type("Stats", (), {})())


def test_a_stores_size_is_foretold_from_the_sub_frames_its_render_draws(tmp_path, caplog):
    """Over 360 degrees the windows share sub-frames: 60 frames of 8 samples at 720 degrees
    draw 244, not 480 (was: "the store will take about 1.2 MB (... of 480 sub-frames)" for a
    store of 0.5 MB, a warning of a full disk where half the room was enough)."""
    import json
    import re

    import hfrender as hf

    scene = Path(__file__).parent.parent / "scenes" / "orbit.py"
    with caplog.at_level("INFO", logger="hfrender.engine.keep"):
        hf.render(scene, tmp_path / "o.mp4", size=(64, 36), samples=8, shutter=720,
                  duration=2.0, keep_samples=tmp_path / "ks")
    kept = json.loads((tmp_path / "ks" / "store.json").read_text())["subframes"]
    said = [re.search(r"for its first \d+ of (\d+) sub-frames", r.getMessage())
            for r in caplog.records]
    assert (kept, [int(m[1]) for m in said if m]) == (244, [244])
