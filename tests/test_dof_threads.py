"""The CPU fast depth of field's threads and bands: the FFTs on a thread of their own, a
large frame's steps band by band on two threads, a fork while a lock is held; each gives the
single thread's whole-frame results bit for bit."""

import threading

import numpy as np
import pytest
from dof_fast_helpers import FOCUS, H, W, lens_for, pole

import hfrender as hf
from hfrender import dof_frame, dof_layers
from hfrender.backends.cpu.dof_fast import defocus_fast
from hfrender.dof_layers import FAR


def test_the_fft_thread_gives_the_picture_of_one_thread_bit_for_bit(rng, monkeypatch):
    """The windows' FFTs run ahead on their own thread; their sums are added in the loop's
    order, so the picture is the serial one exactly; the light is cleaned on the calling
    thread. A failing FFT is raised to the caller."""
    from hfrender.backends.cpu import dof_fast

    img, depth = pole(rng)
    lens = lens_for(depth, 24)
    ready, threads = dof_fast._Ops.ready, set()

    def cleaned_where(self, light, rows=None):  # the FFT thread's calls: the FFTs alone
        threads.add(threading.current_thread())
        return ready(self, light, rows)

    monkeypatch.setattr(dof_fast._Ops, "ready", cleaned_where)
    ahead = defocus_fast(img, depth, lens)
    assert threads == {threading.current_thread()}
    monkeypatch.undo()
    calls = []

    def now(self, fn, *args):
        calls.append(fn.__name__)
        value = fn(*args)
        return lambda: value

    monkeypatch.setattr(dof_fast._Ops, "later", now)
    monkeypatch.setattr(dof_frame, "LOOKAHEAD", 0)
    serial = defocus_fast(img, depth, lens)
    assert {"_spread", "_gathered"} <= set(calls)
    assert np.array_equal(ahead, serial)
    monkeypatch.undo()
    inverse = dof_fast._Ops.inverse
    seen = []

    def failing(self, spectrum, win):
        seen.append(win)
        if len(seen) == 3:
            raise MemoryError("no room for the third window")
        return inverse(self, spectrum, win)

    monkeypatch.setattr(dof_fast._Ops, "inverse", failing)
    with pytest.raises(MemoryError, match="third window"):
        defocus_fast(img, depth, lens)


def test_a_fork_while_an_fft_thread_holds_the_spectra_lock_leaves_the_child_its_own():
    from hfrender import kept
    from hfrender.backends.cpu import dof_transforms

    with dof_transforms._spectra._lock:
        kept._after_fork()  # what os.register_at_fork runs in a forked child
        assert not dof_transforms._spectra._lock.locked()
        spectrum = dof_transforms._spectrum(5, (16, 20), 4, 0, FAR)  # would block on the old lock
    assert spectrum.shape == (16, 11) and abs(spectrum[0, 0] - 5 * 16 * 20) < 1e-3


@pytest.mark.parametrize("blades", [0, 5])
def test_a_large_frames_classes_band_by_band_are_the_whole_frames(rng, monkeypatch, blades):
    """The CPU's squared radii and class keys of a frame large enough to go band by band
    (here: every frame past 1000 pixels, bands of 600 on two threads) are the whole-frame
    steps' bit for bit, and so is the keys' histogram the plan is made from."""
    from hfrender.backends.cpu import dof_fast, dof_light
    from hfrender.backends.cpu.dof import squared_radii

    monkeypatch.setattr(dof_light, "BAND_SPLIT_PIXELS", 1000)
    monkeypatch.setattr(dof_light, "BAND_PIXELS", 600)
    bands, threads, by_rows = [], set(), dof_light.by_rows

    def counted(fn, rows, cols):  # the steps' bands, and the threads that ran them
        def band(y0, y1):
            bands.append((y0, y1))
            threads.add(threading.current_thread())
            fn(y0, y1)
        by_rows(band, rows, cols)

    monkeypatch.setattr(dof_light, "by_rows", counted)
    depth = (0.3 + 6.0 * rng.random((H, W))).astype(np.float32)
    depth[rng.random((H, W)) < 0.05] = np.inf  # sky
    depth[:10] = FOCUS  # a band in focus
    lens = hf.Lens(FOCUS, 2.0, aperture_blades=blades, max_coc_px=40.0)
    r2, max_d2 = squared_radii(depth, lens, W, H)
    whole = lens.coc_radius_px(depth, W, H)
    np.testing.assert_array_equal(r2, whole * whole)
    assert max_d2 == int(np.floor(float((whole * whole).max()))) >= 50
    ops = dof_fast._Ops(rng.random((H, W, 3), dtype=np.float32), max_d2, blades)
    keys, counts = ops.classes(r2, depth, FOCUS, max_d2, blades)
    want_keys, want_counts = dof_layers.classes(np, r2, depth, FOCUS, max_d2, blades)
    np.testing.assert_array_equal(keys, want_keys)
    np.testing.assert_array_equal(counts, want_counts)
    assert counts.sum() == H * W and (keys[:10] == 0).all()
    assert (keys < 0).any() and (keys > 0).any()  # both sides of the focus plane
    assert len(bands) == 2 * (H // 3 + (H % 3 > 0))  # 3 rows a band, both steps
    assert threading.current_thread() in threads and len(threads) >= 2  # and a band thread
