"""A sample store (--keep-samples) whose folder cannot be written, or whose disk is full as
it begins: one line naming the store and why, before or as the render begins."""

import errno
import tempfile
from pathlib import Path

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
