"""A finished output made durable before and after it is put in place: its data reaches the
disk before the rename that makes it the output, and the rename reaches the disk after.
Without it a power cut (not a kill: the kernel keeps what a killed process wrote) soon after
a render could leave, under the output's name, a file of the right size full of zeros, or
a sequence whose frames' renames were lost (ext4's delayed allocation, for one)."""

from __future__ import annotations

import os
from pathlib import Path


def sync_file(path: str | Path) -> None:
    """``fsync`` of one file's data."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_folder(path: str | Path) -> None:
    """``fsync`` of a folder (its entries: a rename into it); nothing where folders cannot
    be opened (Windows)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # (a file system that cannot sync a folder)
        pass
    finally:
        os.close(fd)


def sync_all() -> None:
    """Every file's data written so far on every file system (``sync``): a sequence's many
    frames at once, rather than one ``fsync`` each."""
    if hasattr(os, "sync"):
        os.sync()
