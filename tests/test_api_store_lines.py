"""hf.render's lines about its sample store (``keep_samples``) name it as the caller gave
it: ``keep_samples='s'`` to Python, ``--keep-samples s`` to the command, from the store's
own thread too (moved from test_api_lines_spelt.py as it grew)."""

import errno
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from hfrender.errors import FLAG, KEYWORD, spelt


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


STORE = 12 * 9 * 4  # (the bytes of a 12x9 RGBA sub-frame, stored as they are)


@pytest.mark.parametrize("spell, said", [
    (KEYWORD, "keep_samples='s': removing s.partial, an interrupted render's unfinished "
              "store (a store cannot be resumed)"),
    (FLAG, "--keep-samples s: removing s.partial, an interrupted render's unfinished store "
           "(a store cannot be resumed)")])
def test_an_interrupted_store_removed_is_named_as_given(here, caplog, spell, said):
    from hfrender.io.store import StoreWriter
    from hfrender.io.store_manifest import MARKER

    Path("s.partial").mkdir()
    Path("s.partial", MARKER).write_text("x")
    with spelt(spell), caplog.at_level(logging.WARNING, logger="hfrender"):
        StoreWriter("s", {}, (12, 9))._drain()
    assert [r.getMessage() for r in caplog.records] == [said]


@pytest.mark.parametrize("spell, head, lower", [
    (KEYWORD, "keep_samples='s'", "samples, size"),
    (FLAG, "--keep-samples s", "--samples, --size")])
def test_a_store_bigger_than_its_disk_is_named_as_given(here, caplog, monkeypatch, spell,
                                                       head, lower):
    from hfrender.engine import keep

    usage = shutil.disk_usage(here)._replace(free=10**3)
    monkeypatch.setattr(keep.shutil, "disk_usage", lambda path: usage)
    with spelt(spell):
        keeper = keep.SampleKeeper("s", {"frames": 100, "samples": 2}, (12, 9))
        color = np.random.default_rng(3).integers(0, 256, (2, 9, 12, 4), np.uint8)
        keeper.writer.add({"color": color, "times": np.array([0.0, 0.01])})
        keeper.writer._pending[0].result()
        kept = keeper.writer.bytes
        with caplog.at_level(logging.WARNING, logger="hfrender"):
            keeper.tell_room()
    assert [r.getMessage() for r in caplog.records] == [
        f"{head}: the store will take about 128 KB (1.3 KB for its first 2 of 200 "
        f"sub-frames), more than the 1.0 KB free on its disk: free some space, or lower "
        f"{lower} or the frames rendered"]
    assert kept == 1278  # (2 random sub-frames of 432 bytes, deflated: kept whole)
    keeper.writer._drain()


@pytest.mark.parametrize("spell, head", [(KEYWORD, "keep_samples='s'"),
                                         (FLAG, "--keep-samples s")])
def test_a_store_that_cannot_be_written_is_named_as_given_from_its_thread(here, monkeypatch,
                                                                         spell, head):
    """The chunks are written on a thread of the store's own: it says the line as its
    maker's caller names the store."""
    from hfrender.io.store import StoreWriter
    from hfrender.io.writers import WriteFailed

    real = Path.write_bytes

    def refused(self, data):
        if self.suffix == ".npz":
            raise OSError(errno.EACCES, "Permission denied")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", refused)
    with spelt(spell):
        writer = StoreWriter("s", {}, (12, 9))
    writer.add({"color": np.zeros((1, 9, 12, 4), np.uint8) + 7, "times": np.zeros(1)})
    with pytest.raises(WriteFailed) as info:
        writer._drain()
    assert str(info.value) == (f"{head}: cannot write the sample store: Permission denied "
                               "(what was kept so far is in s.partial; delete it, or free "
                               "the space and render again)")
