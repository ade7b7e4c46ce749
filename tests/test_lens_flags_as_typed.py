"""A bad lens value of ``hfrender fx`` and ``hfrender reexpose`` is named as typed, its flag
and its value (was the setting's: ``--f-stop 0.0``, ``--aperture-blades=2``), and a jobs
file's as spelt there (``f-stop = 0``), through errors.as_given."""

import numpy as np
import pytest
from store_helpers import write_store

import hfrender as hf
from hfrender.cli import main

LENS = ["--focus-distance", "2", "--f-stop", "2"]
NOTHING = " must be a finite number > 0"
BLURS_NOTHING = (" blurs nothing: under 2 px across a circle of confusion leaves every pixel as "
                 "it is (a pixel's disk is whole pixels); give at least 2, or no depth of field")
NEAR = (" must be a distance in metres greater than the focal length (0.05 m, a 50 mm lens), "
        "or inf")


@pytest.mark.parametrize("words, said", [
    (["--f-stop", "0"], "--f-stop 0" + NOTHING),  # (was: --f-stop 0.0)
    (["--f-stop=.0"], "--f-stop .0" + NOTHING),
    (["--focal-length-mm", "0"], "--focal-length-mm 0" + NOTHING),
    (["--sensor-width-mm", "-1"], "--sensor-width-mm -1" + NOTHING),  # (was: -1.0)
    (["--max-coc-px", "0"], "--max-coc-px 0" + BLURS_NOTHING),
    (["--max-coc-px=1e0"], "--max-coc-px 1e0" + BLURS_NOTHING),  # (was: 1.0)
    (["--depth-scale", "0"], "--depth-scale 0 must be a finite number > 0"),
    (["--depth-scale=-1e0"], "--depth-scale -1e0 must be a finite number > 0"),
    (["--aperture-blades", "2"], "--aperture-blades 2 must be 0 (round) or between 3 and 64"),
    (["--aperture-blades=2"], "--aperture-blades 2 must be 0 (round) or between 3 and 64"),
    (["--focus-distance", "1e-2"], "--focus-distance 1e-2" + NEAR),  # (was: 0.01, and
    # "for --focal-length-mm 50", a replace of the library's words)
])
def test_fx_names_a_bad_lens_value_as_typed(tmp_path, capsys, words, said):
    clip, depth = tmp_path / "in.mkv", tmp_path / "d.npy"
    clip.write_bytes(b"")  # refused before either is read
    np.save(depth, np.ones((1, 4, 4), np.float32))
    before = set(tmp_path.iterdir())
    assert main(["fx", str(clip), "-o", str(tmp_path / "out.mp4"), "--depth", str(depth),
                 *LENS, *words]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {said}\n"
    assert set(tmp_path.iterdir()) == before


@pytest.mark.parametrize("words, said", [
    (["--f-stop", "0"], "--f-stop 0 must be a finite number > 0"),  # (was: --f-stop 0.0)
    (["--f-stop=-1e0"], "--f-stop -1e0 must be a finite number > 0"),
    (["--focus-distance", "0"], "--focus-distance 0 must be a distance > 0 in metres, or inf"),
    (["--focus-distance", "1e-2"], "--focus-distance 1e-2" + NEAR),  # (was: 0.01, a check
    # of its own beside the lens's)
    (["--shutter", "0"], "--shutter 0 must be a finite number > 0 and at most the 180 the "
                         "store holds"),  # (was: --shutter 0.0; then render's "<= 5760")
    (["--shutter=1e3"], "--shutter 1e3: the store holds sub-frames over 180 degrees only; "
                        "expose at most that (render with a wider shutter to choose wider ones "
                        "later)"),
])
def test_reexpose_names_a_bad_value_as_typed(tmp_path, capsys, words, said):
    store = write_store(tmp_path / "s.samples")
    out = tmp_path / "o.mp4"
    assert main(["reexpose", str(store), "-o", str(out), *LENS, *words]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {said}\n"
    assert not out.exists()


def test_the_library_keeps_its_keywords(tmp_path):
    kept = hf.SampleStore.open(write_store(tmp_path / "s.samples"))
    with pytest.raises(hf.InputError, match=r"^focus_distance=0\.05 must be a distance in "
                                            r"metres greater than the focal length \(0\.05 m, "
                                            r"a 50 mm lens\), or inf$"):
        kept.expose(focus_distance=0.05, f_stop=2)
    with pytest.raises(hf.InputError, match=r"^f_stop=0 must be a finite number > 0$"):
        kept.expose(focus_distance=2, f_stop=0)
    with pytest.raises(hf.InputError, match=r"^aperture_blades=2 must be 0 \(round\)"):
        hf.Lens(2.0, 2.0, aperture_blades=2)
