"""A sample store (--keep-samples) whose folder cannot be written, or whose disk is full as
it begins: one line naming the store and why, before or as the render begins."""

import errno
import tempfile

import pytest

from hfrender.io.store import StoreError, check_target


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

