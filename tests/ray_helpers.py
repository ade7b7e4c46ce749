"""Ray in the tests: one local instance for the whole session (``local_ray`` in
conftest.py), and the processes it leaves, found by their parent chain."""

import os


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
