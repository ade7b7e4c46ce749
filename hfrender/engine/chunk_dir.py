"""Where a Ray worker lays out a chunk's scene and segment: a temporary folder named after
the worker's machine and process, and those of workers that are gone (killed with an
interrupted run, before their ``with`` could clean up) removed when the next chunk starts
on that machine. On the driver: what a chunk's task is sent of its scene (its file's name
and folder, :func:`scene_sent`; its folder's files, :func:`scene_files`)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hfrender.config import ConfigError
from hfrender.sizes import bytes_said

WORKING_DIR_LIMIT = 100 * 2**20  # what Ray uploads as a task's working_dir, at most


def scene_sent(scene_file: Path) -> tuple[str, str]:
    """On the driver: what a chunk's task is sent of its scene file, its name and its folder
    as the driver's user names it, with this machine's separator (``("boom.py",
    "scenes/")``; ``""``: the folder the command runs in), for :func:`chunk_dir`'s
    ``within`` (the worker parses no path of the driver's: its system may spell them
    otherwise)."""
    folder = scene_file.parent
    return scene_file.name, "" if folder == Path(".") else os.path.join(str(folder), "")


def scene_files(folder: Path) -> dict[str, bytes]:
    """The files of a scene's folder (its script, shaders, assets) to send to every worker:
    hidden files and folders (work folders, caches) left out; one line when too large."""
    files, size = {}, 0
    for f in sorted(folder.rglob("*")):
        rel = f.relative_to(folder)
        if any(p.startswith(".") or p == "__pycache__" for p in rel.parts) or not f.is_file():
            continue
        size += f.stat().st_size
        if size > WORKING_DIR_LIMIT:  # (a ConfigError: a batch --ray's job runs here)
            raise ConfigError(f"--ray: {folder} (the scene's folder, sent to every worker) "
                             f"holds more than {bytes_said(WORKING_DIR_LIMIT)}; move the scene "
                             "into a folder of its own with only the files it needs")
        files[str(rel)] = f.read_bytes()
    return files


@contextmanager
def chunk_dir(kind: str = "chunk", within: str = "") -> Iterator[str]:
    """A fresh ``hfrender-KIND-HOST-PID-...`` folder in the temporary folder, removed after.
    An error's message that names a file in it names it after ``within`` instead, the folder
    it stands for as the driver's user names it (:func:`scene_sent`: ``scenes/boom.py:11``,
    as a run there says it; not the worker's temporary path, nor ``boom.py:11``, from the
    folder: was)."""
    sweep(kind)
    prefix = f"hfrender-{kind}-{socket.gethostname()}-{os.getpid()}-"
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        try:
            yield tmp
        except Exception as exc:  # its message names the scene's files as the user does
            if exc.args and isinstance(exc.args[0], str) and tmp in exc.args[0]:
                exc.args = (exc.args[0].replace(tmp + os.sep, within), *exc.args[1:])
            raise


def sweep(kind: str, folder: str | None = None) -> list[Path]:
    """Remove this machine's ``hfrender-KIND-HOST-PID-...`` folders whose process is no
    longer running (another machine's, sharing the folder, are its own to sweep); the ones
    removed."""
    gone = []
    host = re.escape(socket.gethostname())
    for p in Path(folder or tempfile.gettempdir()).glob(f"hfrender-{kind}-*"):
        m = re.match(rf"hfrender-{re.escape(kind)}-{host}-(\d+)-", p.name)
        if m and p.is_dir() and not _running(int(m.group(1))):
            shutil.rmtree(p, ignore_errors=True)
            gone.append(p)
    return gone


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: running
        return True
    return True
