"""A finished output made durable before and after it is put in place: its data reaches the
disk before the rename that makes it the output, and the rename reaches the disk after.
Without it a power cut (not a kill: the kernel keeps what a killed process wrote) soon after
a render could leave, under the output's name, a file of the right size full of zeros, or
a sequence whose frames' renames were lost (ext4's delayed allocation, for one). Best
effort: a file system that cannot sync (EINVAL, ENOTSUP, ...) is left as it is, and the
output put in place all the same; a sync that fails to write (EIO) is the output's error."""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from functools import cache
from pathlib import Path

# what a file system answers when it does not sync at all: not a failure to write
CANNOT = {errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EBADF,
          errno.EROFS}


def _sync(path: str | Path, flags: int, call: object = None) -> None:
    """``call`` (default ``os.fsync``) on ``path`` opened with ``flags``; what cannot sync
    (:data:`CANNOT`, or a path that cannot be opened so: a folder on Windows) is skipped."""
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    try:
        (call or os.fsync)(fd)
    except OSError as exc:
        if exc.errno not in CANNOT:
            raise
    finally:
        os.close(fd)


def sync_file(path: str | Path) -> None:
    """``fsync`` of one file's data (opened for writing: Windows' FlushFileBuffers needs
    it; the file is the run's own)."""
    _sync(path, os.O_RDWR)


def sync_folder(path: str | Path) -> None:
    """``fsync`` of a folder (its entries: a rename into it)."""
    _sync(path, os.O_RDONLY)


def sync_all(folder: str | Path) -> None:
    """The data of every file on ``folder``'s file system (Linux's ``syncfs``: a
    sequence's many frames at once, not one ``fsync`` each, and not every other file
    system's unsaved data, as ``sync`` would wait for); elsewhere ``sync``."""
    libc = _libc()
    if libc is not None and hasattr(libc, "syncfs"):
        def syncfs(fd: int) -> None:
            if libc.syncfs(fd) != 0:
                code = ctypes.get_errno()
                raise OSError(code, os.strerror(code))
        _sync(folder, os.O_RDONLY, syncfs)
    elif hasattr(os, "sync"):
        os.sync()


@cache
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
