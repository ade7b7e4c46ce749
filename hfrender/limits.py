"""What of the machine this process may use: its CPU cores (its affinity, and its cgroup's
CPU quota: a container's ``--cpus``, a Kubernetes CPU limit), and the walk over its
cgroups, from its own up, that the memory limits read too."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from hfrender.sizes import bytes_said

NO_LIMIT = 1 << 62
# files a run may need open at once: pipes to ffmpeg and its probes, fusion processes' memfd
# and pipes, segments, locks (measured: 10 to 18, an fx the most; about 2x that, for room)
OPEN_FILES_NEEDED = 32


def cgroups(own: str = "/proc/self/cgroup") -> list[tuple[str, str]]:
    """This process's cgroups: (controllers, path) each; ``""`` controllers is cgroup v2's
    group; none where ``own`` cannot be read."""
    try:
        with open(own) as fh:
            return [tuple(ln.strip().split(":", 2)[1:]) for ln in fh if ln.count(":") >= 2]
    except OSError:
        return []


def groups_up(base: Path, path: str) -> Iterator[Path]:
    """The folders of the cgroup ``path`` under ``base`` and of each group above it."""
    group = base / path.lstrip("/")
    while True:
        yield group
        if group == base or group.parent == group:
            return
        group = group.parent


def cgroup_folders(controller: str, root: str = "/sys/fs/cgroup",
                   own: str = "/proc/self/cgroup") -> Iterator[tuple[bool, Path]]:
    """``(v2, folder)`` of each cgroup over this process that ``controller`` (``"cpu"``,
    ``"memory"``) limits, from its own up: cgroup v2's group under ``root``, or v1's under
    ``root/controller``."""
    for controllers, path in cgroups(own):
        if controllers == "":
            yield from ((True, group) for group in groups_up(Path(root), path))
        elif controller in controllers.split(","):
            yield from ((False, group) for group in groups_up(Path(root) / controller, path))


def cgroup_cores(root: str = "/sys/fs/cgroup", own: str = "/proc/self/cgroup") -> int:
    """The cores the least CPU quota over this process's cgroups allows, rounded up:
    ``cpu.max`` (v2, ``quota period``) or ``cpu.cfs_quota_us / cpu.cfs_period_us`` (v1);
    huge where there is none."""
    cores = NO_LIMIT
    for v2, group in cgroup_folders("cpu", root, own):
        files = ("cpu.max",) if v2 else ("cpu.cfs_quota_us", "cpu.cfs_period_us")
        try:
            quota, period = " ".join((group / f).read_text() for f in files).split()
            if quota not in ("max", "-1") and int(quota) > 0 < int(period):
                cores = min(cores, math.ceil(int(quota) / int(period)))
        except (OSError, ValueError):
            pass
    return cores


@lru_cache(maxsize=1)
def usable_cores() -> int:
    """CPU cores this process may run on: its affinity (``taskset``, a container's cpuset, a
    Ray task's), and no more than its cgroup's CPU quota lets it keep busy. Read once a
    process (the cgroups' files cost 0.27 ms a look, and fusion asks at every frame)."""
    if hasattr(os, "sched_getaffinity"):
        affinity = len(os.sched_getaffinity(0))
    else:
        affinity = os.cpu_count() or 1
    return max(1, min(affinity, cgroup_cores()))


def open_files_limit(needed: int = OPEN_FILES_NEEDED) -> tuple[int, int]:
    """How many files this process may open at once (``ulimit -n``), before and after a
    soft limit below ``needed`` is raised toward it (as far as the hard limit allows; a
    shell's ``ulimit -n 40`` sets both); :data:`NO_LIMIT` where there is none."""
    try:
        import resource
    except ImportError:  # (Windows: no such limit)
        return NO_LIMIT, NO_LIMIT
    soft, hard = (NO_LIMIT if v == resource.RLIM_INFINITY else v
                  for v in resource.getrlimit(resource.RLIMIT_NOFILE))
    if soft >= needed or hard <= soft:
        return soft, soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard if hard < NO_LIMIT
                                                    else resource.RLIM_INFINITY))
    except (ValueError, OSError):  # (refused: the limit stays)
        return soft, soft
    return soft, min(needed, hard)


def file_size_limit() -> int:
    """The most bytes one file this process (or a child: ffmpeg) writes may hold, ``ulimit
    -f``; :data:`NO_LIMIT` where there is none."""
    try:
        import resource
    except ImportError:  # (Windows: no such limit)
        return NO_LIMIT
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return NO_LIMIT if soft == resource.RLIM_INFINITY else soft


def file_size_limit_said() -> str:
    """``4096 bytes (4.1 KB), ulimit -f 4`` (bash's 1024-byte blocks; the size as
    :func:`~hfrender.sizes.bytes_said` says it beside the count); ``4100 bytes (4.1 KB), set
    in bytes: ulimit -f shows 4`` for a limit ``prlimit --fsize`` set (was 'ulimit -f 4',
    rounded down); ``ulimit -f`` where no limit is set now."""
    limit = file_size_limit()
    if limit >= NO_LIMIT:
        return "ulimit -f"
    blocks, size = limit // 1024, f"{limit} bytes ({bytes_said(limit)})"
    return (f"{size}, ulimit -f {blocks}" if limit % 1024 == 0 else
            f"{size}, set in bytes: ulimit -f shows {blocks}")
