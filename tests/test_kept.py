"""What the effects keep between calls (the fast depth of field's disk spectra, the
splats' stamps, text rasters): bounded, least recently used out first, and each array's
bytes counted once as it comes and once as it goes, however many are kept."""

from __future__ import annotations

import numpy as np

from hfrender.backends.cpu import dof_transforms
from hfrender.dof_layers import FAR

MB = 1 << 20


class _Counted:
    """A stand-in spectrum of 1 MB that counts how often its size is read."""

    reads = 0

    @property
    def nbytes(self) -> int:
        _Counted.reads += 1
        return MB


def test_a_focus_pulled_every_call_keeps_256_mb_of_spectra_and_reads_each_size_twice(
        monkeypatch):
    """A stream pulling focus a little each call makes new disks every call: the spectra
    kept stay within 256 MB (256 of 1 MB here, the newest), and keeping one more reads two
    sizes (its own, the one it pushes out). Was: every one kept summed again at each new
    one, a cost growing with them (547 spectra after 1800 calls of a 64x36 frame pulling
    focus 3 mm a call at f/1.4, 150 mm)."""
    dof_transforms._spectra.clear()  # (the stand-ins go with the test's end too)
    monkeypatch.setattr(dof_transforms, "disk_spectrum", lambda *args: _Counted())
    monkeypatch.setattr(_Counted, "reads", 0)
    for area in range(1, 2001):
        dof_transforms._spectrum(area, (16, 20), 4, 0, FAR)
    kept = dof_transforms._spectra
    assert len(kept) == 256
    assert _Counted.reads <= 2 * 2000, _Counted.reads
    newest = dof_transforms._spectrum(2000, (16, 20), 4, 0, FAR)
    assert isinstance(newest, _Counted) and _Counted.reads <= 2 * 2000
    dof_transforms._spectra.clear()


def test_kept_go_least_recently_used_first_within_their_bytes_and_count():
    from hfrender.kept import Kept

    kept = Kept(300)
    for k in "abcde":
        kept.put(k, np.zeros(100, np.uint8))
    assert list(kept) == ["c", "d", "e"] and kept.held == 300
    assert kept.get("c") is not None and kept.get("a") is None  # "c" used last: kept longest
    kept.put("f", np.zeros(100, np.uint8))
    assert list(kept) == ["e", "c", "f"]
    kept.put("e", np.zeros(50, np.uint8))  # a key kept again: its old bytes out
    assert list(kept) == ["c", "f", "e"] and kept.held == 250
    kept.put("big", np.zeros(1000, np.uint8))
    assert list(kept) == ["big"] and kept.held == 1000  # the newest stays, whatever its size
    counted = Kept(1 << 30, most=2)
    for k in "xyz":
        counted.put(k, np.zeros(10, np.uint8))
    assert list(counted) == ["y", "z"] and counted.held == 20


def test_a_focus_pull_shares_its_disks_spectra_between_calls_and_draws_as_each_alone(
        monkeypatch):
    """A disk of ``area`` pixels is the same disk whatever the largest blur of its call
    (its tables' ``max_d2``; the first ``area`` offsets, whole rings): the CPU's spectra
    were kept by ``max_d2`` too, which a focus pulled a little each call changes, so each
    call made its own (103 over these 12 calls, 54 now; CUDA's were already kept without it). The
    pull draws bit for bit as each call with nothing kept."""
    import hfrender as hf

    rng = np.random.default_rng(3)
    frame = rng.integers(0, 256, (1, 36, 64, 3), dtype=np.uint8)
    depth = rng.uniform(1, 10, (36, 64)).astype(np.float32)
    made, real = [], dof_transforms.disk_spectrum
    monkeypatch.setattr(dof_transforms, "disk_spectrum", lambda *a: made.append(1) or real(*a))

    def pulled(i):
        return hf.depth_of_field(frame, depth, focus_distance=2 + 0.003 * i, f_stop=1.4,
                                 focal_length_mm=150, backend="cpu")

    dof_transforms._spectra.clear()
    warm = [pulled(i) for i in range(12)]
    assert 30 < len(made) <= 60, len(made)
    for i in range(12):
        dof_transforms._spectra.clear()
        assert np.array_equal(pulled(i), warm[i]), i


def test_a_child_forked_mid_put_counts_its_bytes_again_and_size_reads_wait_for_the_lock():
    """Was: after a fork only the lock was new, so a child forked while another thread was
    between a put's two counts kept a ``held`` off by that value for good; and len() and
    iteration read the dict while a put might be changing it."""
    import threading

    from hfrender import kept as kept_module

    kept = kept_module.Kept(1000)
    for k, n in [("a", 100), ("b", 30)]:
        kept.put(k, np.zeros(n, np.uint8))
    kept.held = 230  # (as a fork leaves it between a put's pop and its new value's count)
    kept_module._after_fork()
    assert kept.held == 130 and not kept._lock.locked()
    seen = []
    with kept._lock:  # (a put under way in another thread)
        readers = [threading.Thread(target=lambda: seen.append(len(kept))),
                   threading.Thread(target=lambda: seen.append(list(kept)))]
        for reader in readers:
            reader.start()
        readers[0].join(0.2), readers[1].join(0.2)
        assert seen == []  # both wait for the put
    for reader in readers:
        reader.join(5)
    assert sorted(map(str, seen)) == ["2", "['a', 'b']"]
