"""Freed memory kept for the next frame (backends/cpu/memory.py), in fresh processes: the
setting is the whole process's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hfrender.backends.cpu import memory

pytestmark = pytest.mark.skipif(not memory._glibc(), reason="glibc's malloc only")

# a 64 MB array made, freed and made again: the page faults of the second one, in 4 KiB
# pages (no transparent huge pages for this process, nor NumPy's advice to use them)
CHILD = """
import ctypes, resource
ctypes.CDLL(None).prctl(41, 1, 0, 0, 0)  # PR_SET_THP_DISABLE
import numpy as np
for home in ("_core", "core"):
    try:
        getattr(np, home).multiarray._set_madvise_hugepage(False)
        break
    except AttributeError:
        pass
from hfrender.backends.cpu import create, memory
create()  # the CPU backend keeps freed memory, or leaves malloc alone
a = np.ones(16 << 20, np.float32)
del a
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
a = np.ones(16 << 20, np.float32)
print(memory._done, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _child(**env: str) -> tuple[bool, int]:
    clean = {k: v for k, v in os.environ.items()
             if k not in memory.USER_SETTINGS and k not in (memory.ENV, "GLIBC_TUNABLES")}
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                         env={**clean, **env}, check=True, timeout=120).stdout.split()
    return out[0] == "True", int(out[1])


def test_the_cpu_backend_keeps_freed_memory_and_a_second_frame_faults_no_pages():
    kept, faults = _child()
    assert kept is True
    assert faults < 1000  # of 16384 pages: reused, not fresh


@pytest.mark.parametrize("setting", [{memory.ENV: "0"}, {memory.ENV: "Off"},
                                     {"MALLOC_TRIM_THRESHOLD_": "131072"},
                                     {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"}])
def test_without_it_a_second_frame_faults_every_page_and_the_users_settings_win(setting):
    kept, faults = _child(**setting)
    assert kept is False
    assert faults > 10_000  # what keeping the memory spares
