"""The shutter of a motion-vector blur and a focus pixel are each checked by one function
and said in one wording from every entry point: ``hfrender fx``'s flags, a jobs file's fx
job, ``FxSettings`` and the library (``hf.vector_blur``, ``hf.depth_of_field``), each
naming the value as its caller gave it (was two wordings each: "--shutter 800: degrees in
(0, 720]" against "shutter=800 must be degrees in (0, 720]"; "--focus-pixel '-1,3': give
X,Y, the pixel's column and row" against "--focus-pixel (-1, 3): give X,Y, two whole
numbers >= 0" and "focus_pixel=(-1, 3) must be (x, y), two whole numbers >= 0")."""

import numpy as np
import pytest
from fx_helpers import png_sequence

import hfrender as hf
from hfrender.cli import main
from hfrender.engine.batch import load_jobs
from hfrender.engine.fx_settings import FxSettings
from hfrender.shutter_curve import SHUTTER

H, W = 12, 16
SHUTTER_RANGE = " must be degrees in (0, 720] (180: half a frame's motion, 360: all of it)"
MAX_LENGTH = (" must be pixels a frame, a number > 0 (each longer vector clamped to it); no "
              "clamp: leave it out")
ONLY_VECTORS = (" applies only with {v} (motion blur from motion vectors: the longest vector "
                "it takes)")
PIXEL_FORM = (" must be {form}, two whole numbers >= 0: the pixel's column and row from the "
              "top left corner (e.g. {eg})")
FLAG_FORM = PIXEL_FORM.format(form="X,Y", eg="320,180")
OUTSIDE = f" is outside the {W}x{H} frames (x from 0 to {W - 1}, y from 0 to {H - 1})"
JOB = """[[job]]
name = "shot"
input = "frames"
output = "out/%04d.png"
fps = 24
{keys}
"""


@pytest.fixture
def shot(tmp_path, rng, monkeypatch):
    """A folder holding frames/ (3 seeded random frames, W x H) and a depth pass d.npy (2 m,
    a card at 1 m); the run inside it (motion vectors named are never read: the shutter is
    refused first)."""
    png_sequence(tmp_path, rng, 3, H, W)
    depth = np.full((H, W), 2.0, np.float32)
    depth[3:9, 4:12] = 1.0
    np.save(tmp_path / "d.npy", depth)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def cli_line(capsys, *flags):
    """The one line ``hfrender fx frames ... flags`` refuses with (nothing written)."""
    assert main(["fx", "frames", "-o", "out/%04d.png", "-q", *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.removeprefix("hfrender: error: ").rstrip("\n")


def job_line(root, keys):
    """The one line a jobs file's fx job holding ``keys`` is refused with, before any job
    runs (without the file's name)."""
    (root / "jobs.toml").write_text(JOB.format(keys=keys))
    with pytest.raises(hf.InputError) as e:
        load_jobs(root / "jobs.toml", {})
    assert not (root / "out").exists()
    return str(e.value).removeprefix(f"{root / 'jobs.toml'}: job 'shot': ")


@pytest.mark.parametrize("typed", ["800", "0", "-90", "nan", "720.5"])
def test_a_shutter_out_of_range_is_said_alike_everywhere(shot, capsys, rng, typed):
    value = float(typed)
    assert cli_line(capsys, "--vectors", "v/%04d.exr", "--shutter", typed) == \
        f"--shutter {typed}{SHUTTER_RANGE}"
    assert job_line(shot, f'vectors = "v/%04d.exr"\nshutter = {typed}') == \
        f"shutter = {typed}{SHUTTER_RANGE}"
    with pytest.raises(hf.InputError) as e:
        FxSettings(vectors="v/%04d.exr", shutter=value, workers=1)
    assert str(e.value) == f"--shutter {value:g}{SHUTTER_RANGE}"
    frame = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    with pytest.raises(hf.InputError) as e:
        hf.vector_blur(frame, np.zeros((H, W, 2), np.float32), shutter=value)
    assert str(e.value) == f"shutter={value:g}{SHUTTER_RANGE}"


@pytest.mark.parametrize("typed", ["0", "-3", "nan", "inf"])
def test_a_max_length_out_of_range_is_said_alike_everywhere(shot, capsys, rng, typed):
    """--max-length, a jobs file's max-length, FxSettings and hf.vector_blur(max_length=):
    one check (shutter_curve.vector_max_length), each naming the value as given."""
    value = float(typed)
    assert cli_line(capsys, "--vectors", "v/%04d.exr", "--max-length", typed) == \
        f"--max-length {typed}{MAX_LENGTH}"
    assert job_line(shot, f'vectors = "v/%04d.exr"\nmax-length = {typed}') == \
        f"max-length = {typed}{MAX_LENGTH}"
    with pytest.raises(hf.InputError) as e:
        FxSettings(vectors="v/%04d.exr", max_length=value, workers=1)
    assert str(e.value) == f"--max-length {value:g}{MAX_LENGTH}"
    frame = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    with pytest.raises(hf.InputError) as e:
        hf.vector_blur(frame, np.zeros((H, W, 2), np.float32), max_length=value)
    assert str(e.value) == f"max_length={value:g}{MAX_LENGTH}"


def test_a_max_length_without_vectors_is_said_alike_everywhere(shot, capsys):
    """As --shutter: a frame-blending (or depth) run has no vectors to clamp."""
    assert cli_line(capsys, "--motion-blur", "2", "--max-length", "5") == \
        "--max-length 5" + ONLY_VECTORS.format(v="--vectors")
    assert job_line(shot, "motion-blur = 2\nmax-length = 5") == \
        "max-length = 5" + ONLY_VECTORS.format(v="vectors")
    with pytest.raises(hf.InputError) as e:
        FxSettings(window=2, max_length=5.0, workers=1)
    assert str(e.value) == "--max-length 5" + ONLY_VECTORS.format(v="--vectors")


def test_the_default_shutter_is_one_constant_said_in_the_help_and_the_docs(shot, capsys,
                                                                         rng):
    """180 degrees: FxSettings', the command line's and a jobs file's (none given), and
    hf.vector_blur's; fx --help and docs/footage.md say it."""
    assert SHUTTER == 180.0
    assert FxSettings().shutter == SHUTTER
    (shot / "jobs.toml").write_text(JOB.format(keys="motion-blur = 2"))
    assert load_jobs(shot / "jobs.toml", {})[0].fx_settings().shutter == SHUTTER
    import inspect

    assert inspect.signature(hf.vector_blur).parameters["shutter"].default == SHUTTER
    with pytest.raises(SystemExit):
        main(["fx", "--help"])
    helped = " ".join(capsys.readouterr().out.split())
    assert f"centred on each frame ({SHUTTER:g})" in helped
    from pathlib import Path

    docs = (Path(__file__).parents[1] / "docs" / "footage.md").read_text()
    assert f"`--shutter DEG` (default {SHUTTER:g}, up to 720)" in docs


@pytest.mark.parametrize("typed", ["-1,3", "a", "1,2,3", "3", "1.5,2"])
def test_a_focus_pixel_of_the_wrong_form_is_said_alike_everywhere(shot, capsys, rng, typed):
    assert cli_line(capsys, "--depth", "d.npy", "--f-stop", "2", "--focus-pixel", typed) == \
        f"--focus-pixel {typed}{FLAG_FORM}"
    assert job_line(shot, f'depth = "d.npy"\nf-stop = 2.0\nfocus-pixel = "{typed}"') == \
        f'focus-pixel = "{typed}"{FLAG_FORM}'
    pixel = (-1, 3)
    with pytest.raises(hf.InputError) as e:
        FxSettings(depth="d.npy", lens=hf.Lens(2.0, 2.0), focus_pixel=pixel, workers=1)
    assert str(e.value) == f"--focus-pixel {pixel}{FLAG_FORM}"
    frame = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frame, np.load("d.npy"), depth_kind="disparity", max_blur=9,
                          focus_pixel=pixel)
    assert str(e.value) == f"focus_pixel={pixel}" + PIXEL_FORM.format(form="(x, y)",
                                                                       eg="(320, 180)")


def test_a_focus_pixel_outside_the_frames_is_said_alike_everywhere(shot, capsys, rng):
    assert cli_line(capsys, "--depth", "d.npy", "--f-stop", "2", "--focus-pixel",
                    f"{W},3") == f"--focus-pixel {W},3{OUTSIDE}"
    assert job_line(shot, f'depth = "d.npy"\nf-stop = 2.0\nfocus-pixel = "3,{H}"') == \
        f'focus-pixel = "3,{H}"{OUTSIDE}'
    with pytest.raises(hf.InputError) as e:
        FxSettings(depth="d.npy", lens=hf.Lens(2.0, 2.0), focus_pixel=(W, 3),
                   workers=1).check_size((W, H))
    assert str(e.value) == f"--focus-pixel {W},3{OUTSIDE}"
    frame = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frame, 1 / np.load("d.npy"), depth_kind="disparity", max_blur=9,
                          focus_pixel=(W, 3))
    assert str(e.value) == f"focus_pixel=({W}, 3){OUTSIDE}"


@pytest.mark.parametrize("flags, said", [
    (["--motion-blur", "x"], "--motion-blur x must be a whole number of frames "
     ">= 1 (the window)"),
    (["--motion-blur", "2.5"], "--motion-blur 2.5 must be a whole number of "
     "frames >= 1 (the window)"),
    (["--motion-blur", "2", "--stride", "x"], "--stride x must be a whole number of frames "
     ">= 1"),
    (["--vectors", "v/%04d.exr", "--shutter", "wide"], f"--shutter wide{SHUTTER_RANGE}"),
    (["--vectors", "v/%04d.exr", "--max-length", "far"], f"--max-length far{MAX_LENGTH}"),
    (["--depth", "d.npy", "--f-stop", "x", "--focus-distance", "1"], "--f-stop x must be a "
     "finite number > 0"),
    (["--depth", "d.npy", "--f-stop", "2", "--focus-distance", "far"], "--focus-distance far "
     "must be a distance in metres greater than the focal length (0.05 m, a 50 mm lens), or "
     "inf"),
    (["--depth", "d.npy", "--f-stop", "2", "--focus-distance", "1", "--depth-scale", "mm"],
     "--depth-scale mm must be a finite number > 0"),
    (["--depth", "d.npy", "--f-stop", "2", "--focus-distance", "1", "--aperture-blades",
      "5.5"], "--aperture-blades 5.5 must be a whole number, 0 (round) or between 3 and 64"),
    (["--depth", "d.npy", "--f-stop", "2", "--focus-distance", "1", "--max-coc-px", "x"],
     "--max-coc-px x must be a finite number of pixels, at least 2 (no cap: leave it out)"),
    (["--depth", "d.npy", "--depth-kind", "disparity", "--focus-disparity", "0.5",
      "--max-blur", "x"], "--max-blur x must be a finite number of pixels, at least 2"),
])
def test_a_flag_that_is_no_number_is_said_as_its_range_is(shot, capsys, flags, said):
    """What a numeric flag takes, said for a word as for a number out of range (was
    argparse's "argument --shutter: invalid float value: 'wide'", what it takes unsaid;
    --max-blur x "(no cap: None)", a Python word, and no cap at all)."""
    assert cli_line(capsys, *flags) == said


def test_a_resume_names_a_changed_max_length_and_takes_an_older_run_without_it(tmp_path):
    """fx --resume compares the settings: --max-length is one of them (``max-length unset
    -> 3``); unclamped it is left out, so a run interrupted before the flag was goes on."""
    from hfrender.io import resume, segments

    before = FxSettings(vectors="v/%04d.exr", workers=1).output_settings()
    assert "max_length" not in before  # (what a manifest held before --max-length)
    clamped = FxSettings(vectors="v/%04d.exr", max_length=3, workers=1).output_settings()
    assert clamped["max_length"] == 3.0
    out = str(tmp_path / "o.mp4")
    segments.Manifest(before, 10, 5, 0).begin(segments.work_dir(out))
    assert resume.resume_from(out, dict(before), "run")[0] == 0
    with pytest.raises(hf.InputError) as e:
        resume.resume_from(out, clamped, "run")
    assert str(e.value) == ("--resume: the settings changed since the interrupted run "
                            "(max-length unset -> 3); run without --resume to start over")
