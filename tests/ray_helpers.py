"""Ray in the tests: one local instance for the whole session (``local_ray`` in
conftest.py, idle as each test begins), and the processes it leaves, found by their parent
chain."""

import os
import signal
import time
from pathlib import Path


def descendants(pid):
    """Process ids whose parent chain reaches ``pid`` (from /proc)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parents[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        found.update(kids)
        todo += kids
    return found


RAYLET_LATE = "timed out during startup"  # Ray's: its raylet late to register (a loaded machine)


def ours_left(pid):
    """Ray's processes among the descendants of ``pid`` (their command line names it)."""
    left = []
    for p in descendants(pid):
        try:
            if "ray" in Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace"):
                left.append(p)
        except OSError:  # ended meanwhile
            pass
    return left


def end_ours(pid, wait_s=10.0):
    """Ray's processes of ours (descendants of ``pid``) that have not ended within
    ``wait_s``, killed (only ours, by their id); those, as a list."""
    deadline = time.time() + wait_s
    while descendants(pid) and time.time() < deadline:
        time.sleep(0.2)
    left = ours_left(pid)
    for p in left:
        try:
            os.kill(p, signal.SIGKILL)
            os.waitpid(p, 0)  # (a child of ours: reaped, not left a zombie)
        except (ProcessLookupError, ChildProcessError):
            pass
    return left


def start_local(ray, end, **kwargs):
    """``ray.init(**kwargs)``; tried once more where its raylet timed out as it started (a
    loaded machine: seen once, and every Ray test of the session then errored), once
    ``end()`` has ended what the first try started."""
    try:
        ray.init(**kwargs)
    except Exception as exc:
        if RAYLET_LATE not in str(exc):
            raise
        ray.shutdown()
        end()
        ray.init(**kwargs)


def wait_idle(ray, timeout=60.0):
    """Wait until no task holds a CPU of the shared local Ray (an earlier test's chunk still
    ending: a failed job's, told to stop); the seconds waited. A test that counts the chunks
    running at once saw one CPU taken (CI: a batch stopped by Ctrl-C kept 1 segment, not 2)."""
    start = time.time()
    while True:
        total = ray.cluster_resources().get("CPU", 0)
        if ray.available_resources().get("CPU", 0) >= total:
            return time.time() - start
        assert time.time() - start < timeout, (
            f"the test Ray still runs an earlier test's tasks after {timeout:g} s")
        time.sleep(0.1)
