"""Re-exposure's and --keep-samples' bad input: one clear line each (a bad store, value,
output place or worker count; what Ray does not write yet). What reexpose says of an
exposure a store cannot give: test_reexpose_errors.py."""

import json
import math
import re
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest
from reexpose_helpers import (
    SCENE,
    SIZE,
    _keep,
    scene_fixture,  # noqa: F401  (the fixture scene)
)

import hfrender as hf
from hfrender.config import RenderConfig
from hfrender.io.store import StoreError


@pytest.mark.usefixtures("gl_context")
def test_bad_exposure_values_are_one_line(scene, tmp_path, capsys):
    store = tmp_path / "store"
    _keep(scene, store, samples=4, shutter=180.0)
    kept = hf.SampleStore.open(store)
    with pytest.raises(hf.InputError, match=r"^shutter=270: the store holds sub-frames over "
                                            r"180 degrees only"):
        kept.expose(shutter=270)
    for bad in (0, -90.0, math.inf, math.nan):  # the store's bound (was render's "<= 5760")
        with pytest.raises(hf.InputError, match=rf"^shutter={bad!r} must be a finite number > 0 "
                                                r"and at most the 180 the store holds$"):
            kept.expose(shutter=bad)
    for bad, allowed in (({"f_stop": 0}, "a finite number > 0"), ({"f_stop": np.inf},
                         "a finite number > 0"), ({"focus_distance": -1.0}, "a distance > 0 in "
                         "metres, or inf"), ({"focus_distance": np.nan}, "a distance > 0 in "
                         "metres, or inf")):  # named as this call's keywords (a library
        name, value = next(iter(bad.items()))  # user was told the command's options)
        with pytest.raises(hf.InputError, match=rf"^{name}={value!r} must be {allowed}$"):
            kept.expose(**bad)
    for bad, said in (({"curve": "tri"}, "curve='tri' must be one of box, triangle, "
                       "gaussian"), ({"position": "middle"}, "position='middle' must be one of"),
                      ({"workers": 0}, "workers=0 must be an integer >= 1")):  # (0: NumPy's
        with pytest.raises(hf.InputError, match="^" + re.escape(said)):  # "need at least one
            kept.expose(**bad)  # array to stack", -1: a pool's internal names)
    with pytest.raises(hf.InputTypeError, match=r"^workers='2' must be an integer >= 1$"):
        kept.expose(workers="2")
    for bad in (True, "90"):  # (True passed as 1 degree; "90" was no TypeError)
        with pytest.raises(hf.InputTypeError, match=rf"^shutter={bad!r} must be a finite "
                                                    r"number > 0 and at most the 180 the "
                                                    r"store holds$"):
            kept.expose(shutter=bad)
    with pytest.raises(hf.InputError, match=r"^output frame 0: no kept sub-frame inside its "
                       r"shutter \(from -0\.0005 to 0\.0005 s\); the kept sub-frames around "
                       r"it lie 45 degrees apart \(-0\.0021 and 0\.0021 s\): a shutter of 45 "
                       r"degrees or more holds one \(or keep more --samples\)$"):  # (no figure)
        kept.expose(shutter=10)  # centred between the middle two (+-22.5 degrees)
    assert len(kept.expose(shutter=45)) == len(kept.expose())
    from hfrender.cli import main  # the command names its options

    assert main(["reexpose", str(store), "-o", str(tmp_path / "o.mp4"), "--shutter", "270"]) == 2
    assert "error: --shutter 270: the store holds sub-frames over 180" in capsys.readouterr().err


@pytest.mark.usefixtures("gl_context")
def test_a_bad_store_or_store_place_is_one_line(scene, tmp_path):
    store = tmp_path / "store"
    _keep(scene, store, samples=4, shutter=180.0)
    lens_store = tmp_path / "lens"
    _keep(scene, lens_store, samples=4, dof="lens")
    with pytest.raises(hf.InputError, match=r"drawn through the lens \(--dof lens\)"):
        hf.SampleStore.open(lens_store).expose(focus_distance=2.0)
    # nor is its depth kept: its sub-frames are defocused already (it was half the bytes)
    assert hf.SampleStore.open(lens_store).planes == ["color"]
    assert sum(f.stat().st_size for f in lens_store.glob("*.npz")) < \
        0.8 * sum(f.stat().st_size for f in store.glob("*.npz"))
    _keep(scene, tmp_path / "lens_recon", samples=4, dof="lens", reconstruct="on")
    assert hf.SampleStore.open(tmp_path / "lens_recon").planes == ["color", "depth", "velocity"]
    meta = json.loads((store / "store.json").read_text())
    chunk = store / meta["chunks"][-1]["file"]
    data = bytearray(chunk.read_bytes())
    data[len(data) // 2] ^= 0xFF
    chunk.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=r"c00000\d\.npz: damaged \(its SHA-256 differs"):
        hf.SampleStore.open(store).expose()
    chunk.unlink()  # one chunk gone: said before any frame is written (was: midway)
    with pytest.raises(StoreError, match=rf"^{store}: {chunk.name} of its "
                       rf"{len(meta['chunks'])} chunks missing; render it again with "
                       r"--keep-samples$"):
        hf.SampleStore.open(store)
    meta["version"] = 99
    (store / "store.json").write_text(json.dumps(meta))
    with pytest.raises(StoreError, match="sample store version 99; this hfrender reads "
                                         "versions 1 and 2$"):
        hf.SampleStore.open(store)
    for where, why in (("gone", "no such folder"), ("", r"not a sample store \(no store.json\)")):
        with pytest.raises(StoreError, match=rf"^{tmp_path / where}: {why}; make one with "
                                             r"hfrender render \.\.\. --keep-samples DIR$"):
            hf.SampleStore.open(tmp_path / where)  # (it said "not a sample store" for both)
    (tmp_path / "busy.partial").mkdir()
    with pytest.raises(StoreError, match="still being written"):
        hf.SampleStore.open(tmp_path / "busy")
    with pytest.raises(StoreError, match=rf"^{tmp_path / 'gone.partial'}: no such folder; "):
        hf.SampleStore.open(tmp_path / "gone.partial")  # (was: "still being written")
    with pytest.raises(StoreError, match=r"^--keep-samples .*/my\.partial: a name ending "
                       r"\.partial is a store's while it is written; give another \(e\.g\. "
                       r".*/my\.samples\)$"):  # (was: kept, then refused by reexpose)
        _keep(scene, tmp_path / "my.partial", samples=4)
    assert not (tmp_path / "my.partial").exists()
    from hfrender.engine.render import RenderJob

    with pytest.raises(hf.InputError, match="--keep-samples with --resume"):
        RenderJob(scene, RenderConfig(output=str(tmp_path / "r.mp4"), resume=True,
                                      keep_samples=str(tmp_path / "k")))
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="the folder is not empty and holds no sample store"):
        _keep(scene, tmp_path / "full", samples=4)
    assert (tmp_path / "full" / "notes.txt").read_text() == "mine"


def test_ray_refuses_what_it_does_not_write_yet_and_tells_a_task_s_cause(tmp_path):
    from hfrender.cli.common import first_line as _first_line
    from hfrender.engine.cluster import ClusterRender

    clear = tmp_path / "clear.py"
    clear.write_text(SCENE.replace("self.add(hf.Plane(position=(0, 0, -1), scale=8, "
                                   "color=(0.3, 0.5, 0.3)))", "self.background = None"))
    job = ClusterRender(clear, RenderConfig(output=str(tmp_path / "a.mov"), size=SIZE))
    with pytest.raises(hf.InputError, match=r"--ray: --transparent \(or background = None\) "
                                            "is rendered locally only"):
        job.prepare()
    exr = str(tmp_path / "f" / "%04d.exr")  # float frames (was: every chunk's internal error)
    with pytest.raises(hf.InputError, match=rf"^--ray: -o {re.escape(exr)} \(OpenEXR frames\) "
                                            r"is rendered locally only for now; render "
                                            r"without --ray$"):
        opaque = tmp_path / "opaque.py"
        opaque.write_text(SCENE)
        ClusterRender(opaque, RenderConfig(output=exr, size=SIZE)).prepare()

    class RayTaskError(Exception):  # what Ray raises in the driver for a task's error
        cause = StoreError("the real reason")

    assert _first_line(RayTaskError("ray::_render_chunk() (pid=1, ip=...)")) == \
        "the real reason"


def test_a_store_path_through_a_file_is_one_line(tmp_path):
    from hfrender.io.store import StoreError, check_target

    (tmp_path / "afile").write_text("")
    with pytest.raises(StoreError, match=r"afile is a file, not a folder$"):
        check_target(tmp_path / "afile" / "sub" / "s")


@pytest.mark.usefixtures("gl_context")
def test_a_store_that_cannot_be_written_is_one_line(scene, tmp_path, monkeypatch, capsys):
    """A full disk under the sample store ended in "internal error ... this is a bug in
    hfrender" and a traceback; it is one line naming where what was kept stays."""
    from hfrender.cli import main
    from hfrender.io import store as io_store

    real = io_store.StoreWriter.__init__

    def init(self, *args, **kwargs):
        real(self, *args, **kwargs)
        (self.tmp / "c000001.npz").mkdir()  # the second chunk cannot be written there

    monkeypatch.setattr(io_store.StoreWriter, "__init__", init)
    store, out = tmp_path / "s.samples", tmp_path / "o.mp4"
    assert main(["render", str(scene), "-o", str(out), "--size", "64x36", "--samples", "8",
                 "--granularity", "8", "--keep-samples", str(store), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"hfrender: error: --keep-samples {store}: cannot write the sample "
                          "store: Is a directory (what was kept so far is in "
                          f"{store}.partial; delete it, or free the space and render again)")
    assert err.count("\n") == 1 and "internal error" not in err
    assert err.count(f"{store}.partial") == 1  # named once, by the store's own line
    assert not store.exists() and (tmp_path / "s.samples.partial" / "c000000.npz").is_file()


@pytest.mark.parametrize("output, store, what", [
    ("b.mp4", "b.mp4", "the output b.mp4"),
    ("kk/%04d.png", "kk/0003.png", "a frame of the output kk/%04d.png"),
    ("c.mp4", "c.partial.mp4", "the partial output of c.mp4 (an interrupted render's frames)")])
def test_a_store_where_the_output_goes_is_refused_first(scene, tmp_path, monkeypatch, capsys,
                                                        output, store, what):
    """A store named as the output blamed "another hfrender (pid ...)", this one; one named
    as a frame of the output's sequence was found after the whole render ("cannot put
    kk/0003.png in place: Is a directory")."""
    from hfrender.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["render", str(scene), "-o", output, "--size", "64x36", "--samples", "2",
                 "--keep-samples", store]) == 2
    folder = Path(output).parent
    assert capsys.readouterr().err == (
        f"hfrender: error: --keep-samples {store}: that is where {what} goes; give the store "
        f"a folder of its own (e.g. {folder / 'render.samples'})\n")
    assert sorted(p.name for p in tmp_path.rglob("*") if p.name != "spin.py") == []


@pytest.mark.usefixtures("gl_context")
def test_reexpose_into_a_place_no_file_can_be_made_is_one_line(scene, tmp_path, capsys):
    """``-o /proc/x.mp4`` was an internal error (FileNotFoundError), and a file where a
    folder goes "cannot write ...: Not a directory"; as render says them now."""
    from hfrender.cli import main

    store = tmp_path / "s.samples"
    _keep(scene, store, samples=2)
    (tmp_path / "f.mp4").write_bytes(b"mine")
    for out, said in (("/proc/x.mp4", "-o /proc/x.mp4: cannot write in /proc: no file can be "
                       "made there (No such file or directory)"),
                      (f"{tmp_path}/f.mp4/x.mp4", f"-o {tmp_path}/f.mp4/x.mp4: cannot make "
                       f"folder {tmp_path}/f.mp4: it is a file")):
        assert main(["reexpose", str(store), "-o", out]) == 2
        assert capsys.readouterr().err == f"hfrender: error: {said}\n"
    assert (tmp_path / "f.mp4").read_bytes() == b"mine"


@pytest.mark.usefixtures("gl_context")
def test_reexpose_workers_takes_auto_as_its_errors_say(scene, tmp_path, capsys):
    """Was: ``--workers auto`` refused by argparse, while ``--workers 0`` said "an integer
    from 1 to 64 or 'auto'". auto is the default, 2; the same frames with 1."""
    from hfrender.cli import main

    store = tmp_path / "store"
    _keep(scene, store, samples=4, shutter=180.0)
    outs = []
    for workers in ("auto", "1"):
        out = tmp_path / f"w{workers}" / "%03d.png"
        assert main(["reexpose", str(store), "-o", str(out), "--workers", workers,
                     "--quiet"]) == 0
        outs.append([iio.imread(f) for f in sorted(out.parent.glob("*.png"))])
    assert len(outs[0]) == len(outs[1]) > 0
    assert all(np.array_equal(a, b) for a, b in zip(*outs, strict=True))
    assert main(["reexpose", str(store), "-o", str(tmp_path / "x.mp4"), "--workers", "0"]) == 2
    assert "workers" in capsys.readouterr().err
