"""Freed memory kept for the next frame (backends/cpu/memory.py), in fresh processes: the
setting is the whole process's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hfrender.backends.cpu import memory


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        return False


pytestmark = pytest.mark.skipif(not _glibc(), reason="glibc's malloc only")

# a 64 MB array made, freed and made again: the page faults of the second one
CHILD = """
import resource, sys
import numpy as np
try:
    np._core.multiarray._set_madvise_hugepage(False)  # 4 KiB pages: faults count pages
except AttributeError:
    pass
from hfrender.backends.cpu import create
create()
from hfrender.backends.cpu.memory import keep_freed_memory
kept = keep_freed_memory()
a = np.ones(16 << 20, np.float32)
del a
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
a = np.ones(16 << 20, np.float32)
print(kept, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _child(**env: str) -> tuple[bool, int]:
    clean = {k: v for k, v in os.environ.items()
             if k not in memory.USER_SETTINGS and k != memory.ENV}
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                         env={**clean, **env}, check=True, timeout=120).stdout.split()
    return out[0] == "True", int(out[1])


def test_the_cpu_backend_keeps_freed_memory_and_a_second_frame_faults_no_pages():
    kept, faults = _child()
    assert kept is True
    assert faults < 1000  # of 16384 pages: reused, not fresh


def test_without_it_a_second_frame_faults_every_page_and_the_users_settings_win():
    kept, faults = _child(**{memory.ENV: "0"})
    assert kept is False
    assert faults > 10_000  # what keeping the memory spares
    kept, faults = _child(MALLOC_TRIM_THRESHOLD_="131072")
    assert kept is False
