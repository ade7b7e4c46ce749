"""A sample store's store.json and chunks that are not what hfrender wrote (damaged, edited
by hand, or written by another tool from the documented layout) are one line naming what is
wrong, from ``SampleStore.open`` and ``hfrender reexpose`` alike, never a KeyError's
traceback from deep inside an exposure."""

import json

import numpy as np
import pytest
from store_helpers import write_store

import hfrender as hf
from hfrender.cli import main
from hfrender.io.store import StoreError

SIZE = (16, 8)
FRAMES = 3
AGAIN = "; render it again with --keep-samples$"


def _store(path):
    return write_store(path, SIZE, FRAMES)


def _edit(store, change):
    meta = json.loads((store / "store.json").read_text())
    new = change(meta)
    meta = meta if new is None else new
    (store / "store.json").write_text(json.dumps(meta))


def test_a_sound_store_opens_and_exposes(tmp_path):
    frames = hf.SampleStore.open(_store(tmp_path / "s")).expose(shutter=90)
    assert frames.shape == (FRAMES, SIZE[1], SIZE[0], 3)


def _drop(*keys):
    def change(meta):
        d = meta
        for k in keys[:-1]:
            d = d[k]
        del d[keys[-1]]
    return change


def _set(value, *keys):
    def change(meta):
        d = meta
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value
    return change


@pytest.mark.parametrize("change, said", [
    (lambda meta: [], r"store\.json is not an hfrender sample store$"),
    (_drop("settings"), r"store\.json lacks 'settings'"),
    (_drop("settings", "fps"), r"store\.json lacks 'settings\.fps'"),
    (_drop("settings", "shutter"), r"store\.json lacks 'settings\.shutter'"),
    (_drop("chunks"), r"store\.json lacks 'chunks'"),
    (_drop("planes"), r"store\.json lacks 'planes'"),
    (_drop("subframes"), r"store\.json lacks 'subframes'"),
    (_drop("size"), r"store\.json lacks 'size'"),
    (_set("wide", "settings", "shutter"), r"store\.json's settings\.shutter is 'wide', not "
                                          r"an angle in degrees > 0"),
    (_set("middle", "settings", "position"), r"store\.json's settings\.position is 'middle', "
                                             r"not one of start, center, end"),
    (_set([16], "size"), r"store\.json's size is \[16\], not \[width, height\] in pixels"),
    (_set(["depth"], "planes"), r"store\.json's planes is \['depth'\], not a list of color, "
                                r"depth, velocity with color"),
    (_set([1, 2], "settings", "lens"), r"store\.json's settings\.lens is \[1, 2\], not an "
                                       r"object"),
    (_set("c000000.npz", "chunks"), r"store\.json's chunks is 'c000000\.npz', not a list"),
    (_set(["c000000.npz"], "chunks"), r"store\.json's chunks\[0\] is 'c000000\.npz', not an "
                                      r"object"),
    (_set("../../etc/passwd", "chunks", 0, "file"), r"store\.json's chunks\[0\]\.file is "
                                                    r"'\.\./\.\./etc/passwd', not a file "
                                                    r"name in the store"),
    (_set(7, "subframes"), r"its chunks hold 6 sub-frames, its store\.json says 7"),
    (_set(1, "chunks", 0, "first"), r"store\.json's chunks\[0\]\.first is 1, not 0 \(the "
                                    r"sub-frames before it\)"),
])
def test_a_store_json_not_as_hfrender_wrote_it_is_one_line(tmp_path, capsys, change, said):
    store = _store(tmp_path / "s")
    _edit(store, change)
    with pytest.raises(StoreError, match=f"^{store}: " + said):
        hf.SampleStore.open(store)
    assert main(["reexpose", str(store), "-o", str(tmp_path / "o.mp4")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" not in err and "Traceback" not in err
    assert err.startswith(f"hfrender: error: {store}: ")


def test_times_npy_of_another_length_is_one_line(tmp_path):
    store = _store(tmp_path / "s")
    np.save(store / "times.npy", np.zeros(4))
    with pytest.raises(StoreError, match=rf"^{store}: its chunks hold 6 sub-frames, its "
                                         r"times\.npy 4 \(damaged, or not written by "
                                         r"hfrender\)" + AGAIN):
        hf.SampleStore.open(store)


def test_a_chunks_lenses_of_another_count_are_one_line_naming_it(tmp_path):
    import hashlib
    import io

    store = _store(tmp_path / "s")
    chunk = store / "c000000.npz"
    with np.load(chunk) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["focus_m"], arrays["f_stop"] = np.full(2, 2.0), np.full(2, 2.0)  # of 6 sub-frames
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    chunk.write_bytes(buf.getvalue())
    _edit(store, _set(hashlib.sha256(buf.getvalue()).hexdigest(), "chunks", 0, "sha256"))
    with pytest.raises(StoreError, match=rf"^{chunk}: its focus_m is of shape \(2,\), not "
                                         r"\(6,\) \(6 sub-frames of 16x8\)"):
        hf.SampleStore.open(store).expose(focus_distance=2, f_stop=4)  # (was: an IndexError)


def test_a_chunk_of_another_size_is_one_line_naming_it(tmp_path, capsys):
    store = _store(tmp_path / "s")
    _edit(store, _set([32, 16], "size"))  # (was: NumPy's "could not broadcast input array
    # from shape (8,16,4) into shape (16,32,4)", an internal error)
    with pytest.raises(StoreError, match=rf"^{store / 'c000000.npz'}: its color is of shape "
                                         r"\(6, 8, 16, 4\), not \(6, 16, 32, 4\) \(6 "
                                         r"sub-frames of 32x16\) \(damaged, or not written by "
                                         r"hfrender\)" + AGAIN):
        hf.SampleStore.open(store).expose()
    assert main(["reexpose", str(store), "-o", str(tmp_path / "o.mp4")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" not in err
