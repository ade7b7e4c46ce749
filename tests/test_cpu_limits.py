"""Threads and processes fit the cores this process may use: its affinity (taskset, a
container's cpuset) and its cgroup's CPU quota (a container's --cpus), not the machine's."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hfrender import limits


def fake_cgroups(tmp_path, v2_quota="max 100000", v1_quota="-1"):
    root = tmp_path / "cg"
    (root / "app" / "job").mkdir(parents=True)
    (root / "app" / "cpu.max").write_text(f"{v2_quota}\n")
    (root / "app" / "job" / "cpu.max").write_text("max 100000\n")
    (root / "cpu" / "grp").mkdir(parents=True)
    (root / "cpu" / "grp" / "cpu.cfs_quota_us").write_text(f"{v1_quota}\n")
    (root / "cpu" / "grp" / "cpu.cfs_period_us").write_text("100000\n")
    own = tmp_path / "cgroup"
    own.write_text("3:cpu,cpuacct:/grp\n4:memory:/grp\n0::/app/job\n")
    return str(root), str(own)


@pytest.mark.parametrize("v2,v1,cores", [
    ("150000 100000", "-1", 2),  # the parent's 1.5 CPUs: 2 threads keep them busy
    ("max 100000", "50000", 1),  # v1: half a CPU
    ("400000 100000", "300000", 3),  # the least of them
    ("max 100000", "-1", limits.NO_LIMIT),  # no quota anywhere
])
def test_the_cgroup_cpu_quota_counts_v2_above_and_v1(tmp_path, v2, v1, cores):
    root, own = fake_cgroups(tmp_path, v2, v1)
    assert limits.cgroup_cores(root, own) == cores
    assert limits.cgroup_cores(root, str(tmp_path / "none")) == limits.NO_LIMIT


def test_a_cpu_quota_below_the_affinity_sizes_the_threads(monkeypatch):
    monkeypatch.setattr(limits, "cgroup_cores", lambda: 1)
    limits.usable_cores.cache_clear()
    try:
        assert limits.usable_cores() == 1
    finally:
        limits.usable_cores.cache_clear()  # (read once a process: the real one again)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or (os.cpu_count() or 1) < 2,
                    reason="needs two CPUs and sched_setaffinity")
def test_taskset_to_one_core_runs_one_band_thread():
    """`taskset -c 0 hfrender ...` on a machine of N CPUs: fusion ran N band threads on
    the one core (was: sized by os.cpu_count())."""
    code = ("import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); "
            "from hfrender.backends.cpu import blur; from hfrender.limits import usable_cores; "
            "print(usable_cores(), blur._band_pool()._max_workers)")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["1", "1"]
