"""A jobs file's fx job with ``vectors`` (and ``shutter``) as ``hfrender fx --vectors``:
its files read beside the jobs file, a changed vector file made again, ``[defaults]``'
shutter (a render's) given to the vector jobs alone, its depth options to the jobs with a
depth pass alone, and what is refused named by the file's keys."""

import json

import numpy as np
import pytest

import hfrender as hf
from hfrender.cli import main

OpenEXR = pytest.importorskip("OpenEXR")
import imageio.v3 as iio  # noqa: E402
from test_fx_vectors import write_exr  # noqa: E402

from hfrender.engine.batch import load_jobs  # noqa: E402

W, H, N = 64, 48, 3
JOBS = """[defaults]
shutter = 270
{defaults}
[[job]]
name = "v"
input = "frames/%04d.png"
output = "out/v/%04d.png"
vectors = "{vec}"
fps = 24
{v}
[[job]]
name = "m"
input = "frames/%04d.png"
output = "out/m/%04d.png"
motion-blur = 2
fps = 24
{m}"""


def vectors(folder, k, u):
    """Vector frame ``k``: ``u`` px a frame right (and 2 up) on the square, 0 elsewhere."""
    plane = np.zeros((H, W), np.float32)
    plane[18:30, 26:38] = 1.0
    write_exr(folder / f"{k:04d}.exr", {"forward.u": plane * u, "forward.v": plane * 2})


@pytest.fixture
def shots(tmp_path, rng, monkeypatch):
    """A folder holding frames/ (a bright square on seeded noise), vec/ and the jobs file;
    the run from another folder (the paths: the jobs file's)."""
    root = tmp_path / "shots"
    for sub in ("frames", "vec"):
        (root / sub).mkdir(parents=True)
    for k in range(N):
        img = (rng.random((H, W, 3)) * 80).astype(np.uint8)
        img[18:30, 26:38] = 230
        iio.imwrite(root / "frames" / f"{k:04d}.png", img)
        vectors(root / "vec", k, 6.0 + k)
    monkeypatch.chdir(tmp_path)
    return root


def jobs_file(root, defaults="", v="", m="", vec="vec/%04d.exr"):
    (root / "jobs.toml").write_text(JOBS.format(defaults=defaults, v=v, m=m, vec=vec))
    return root / "jobs.toml"


def statuses(root, capsys):
    assert main(["batch", str(root / "jobs.toml"), "--quiet", "--summary",
                 str(root / "s.json")]) == 0, capsys.readouterr().err
    return {r["name"]: r["status"] for r in json.loads((root / "s.json").read_text())}


def frames(folder):
    return [iio.imread(folder / f"{k:04d}.png") for k in range(N)]


def test_a_vectors_job_makes_fx_vectors_frames_and_runs_again_on_changed_vectors(shots,
                                                                                  capsys):
    """vectors = "vec/%04d.exr" (beside the jobs file) and [defaults]' shutter 270: the
    frames of fx --vectors --shutter 270; the motion-blur job beside it takes no shutter
    (was: 'unknown field vectors', and a [defaults] shutter refused to every fx job); run
    again, both up to date; a vector file changed, the vector job alone made again."""
    path = jobs_file(shots)
    v, m = load_jobs(path, {})
    assert (v.options["vectors"], v.options["shutter"]) == (str(shots / "vec/%04d.exr"), 270)
    assert "shutter" not in m.options and m.fx_settings().shutter == 180
    v, m = load_jobs(path, {"shutter": 90.0})  # --shutter 90 after the file: the same
    assert (v.options["shutter"], "shutter" in m.options) == (90, False)
    assert statuses(shots, capsys) == {"v": "done", "m": "done"}
    for name, args in (("v", ["--vectors", str(shots / "vec/%04d.exr"), "--shutter", "270"]),
                       ("m", ["--motion-blur", "2"])):
        assert main(["fx", str(shots / "frames/%04d.png"), *args, "--fps", "24", "-q", "-o",
                     str(shots / "direct" / name / "%04d.png")]) == 0
        made, direct = frames(shots / "out" / name), frames(shots / "direct" / name)
        assert all(np.array_equal(a, b) for a, b in zip(made, direct, strict=True))
    assert not np.array_equal(frames(shots / "out" / "v")[1], frames(shots / "frames")[1])
    assert statuses(shots, capsys) == {"v": "up-to-date", "m": "up-to-date"}
    vectors(shots / "vec", 1, -9.0)
    assert statuses(shots, capsys) == {"v": "done", "m": "up-to-date"}
    assert main(["fx", str(shots / "frames/%04d.png"), "--vectors",
                 str(shots / "vec/%04d.exr"), "--shutter", "270", "--fps", "24", "-q", "-o",
                 str(shots / "again" / "%04d.png")]) == 0
    assert np.array_equal(frames(shots / "out" / "v")[1], frames(shots / "again")[1])


def test_max_length_goes_to_the_vector_jobs_as_shutter_does(shots, capsys):
    """[defaults]' max-length (or --max-length after the file) to the vector job alone, its
    frames fx --vectors --max-length's (was: 'unknown field max-length'); a change of it
    makes the job again."""
    path = jobs_file(shots, "max-length = 4\n")
    v, m = load_jobs(path, {})
    assert (v.options["max_length"], "max_length" in m.options) == (4, False)
    assert (v.fx_settings().max_length, m.fx_settings().max_length) == (4.0, None)
    v, m = load_jobs(path, {"max_length": 2.5})
    assert (v.options["max_length"], "max_length" in m.options) == (2.5, False)
    for typed in ("0", "far"):  # after the file: the flag's one line, for the vector job
        assert main(["batch", str(path), "--max-length", typed]) == 2
        assert capsys.readouterr().err == (
            f"hfrender: error: on the command line, for job 'v': --max-length {typed} must "
            "be pixels a frame, a number > 0 (each longer vector clamped to it); no clamp: "
            "leave it out\n")
    assert statuses(shots, capsys) == {"v": "done", "m": "done"}
    assert main(["fx", str(shots / "frames/%04d.png"), "--vectors", str(shots / "vec/%04d.exr"),
                 "--shutter", "270", "--max-length", "4", "--fps", "24", "-q", "-o",
                 str(shots / "direct" / "%04d.png")]) == 0
    made, direct = frames(shots / "out" / "v"), frames(shots / "direct")
    assert all(np.array_equal(a, b) for a, b in zip(made, direct, strict=True))
    jobs_file(shots)  # no clamp: the vectors up to 8 px a frame, another picture
    assert statuses(shots, capsys) == {"v": "done", "m": "up-to-date"}
    assert not np.array_equal(frames(shots / "out" / "v")[2], direct[2])


def test_depth_defaults_leave_out_jobs_without_a_depth_pass(shots):
    """[defaults] depth-kind = "disparity", depth-zero-is-sky, f-stop ... are a depth
    pass's: a motion blur alone or a vectors job takes none (was: '[defaults], for job 'm':
    depth-kind disparity needs depth'); nor a vectors job [defaults]' motion-blur."""
    path = jobs_file(shots, 'depth-kind = "disparity"\ndepth-zero-is-sky = true\nmax-blur = 8\n'
                            'motion-blur = 3\n')
    v, m = load_jobs(path, {})
    assert v.options == {"vectors": str(shots / "vec/%04d.exr"), "fps": 24, "shutter": 270}
    assert m.options == {"motion_blur": 2, "fps": 24}


@pytest.mark.parametrize("v, m, said", [
    ("", "shutter = 90\n", "job 'm': shutter = 90 applies only with vectors (motion blur "
     "from motion vectors); fx's frame-blending shutter is motion-blur N and stride S, "
     "360*N/S degrees (motion-blur 4 and stride 8: 180)"),
    ("motion-blur = 2\n", "", "job 'v': vectors and motion-blur: give one (vectors blurs each "
     "frame along its own motion vectors, Z from their files; the other in a run of its own)"),
    ("", "depth-zero-is-sky = true\n", "job 'm': depth-zero-is-sky needs depth"),
    ("", 'depth-resize = "linear"\n', "job 'm': depth-resize needs depth"),
    ("", 'depth-range = "1,5"\n', "job 'm': depth-range needs depth"),
    ("shutter = 800\n", "", "job 'v': shutter = 800 must be degrees in (0, 720] (180: half a "
     "frame's motion, 360: all of it)"),
    ("", "max-length = 5\n", "job 'm': max-length = 5 applies only with vectors (motion blur "
     "from motion vectors: the longest vector it takes)"),
    ("max-length = 0\n", "", "job 'v': max-length = 0 must be pixels a frame, a number > 0 "
     "(each longer vector clamped to it); no clamp: leave it out"),
    ("gone/%04d.exr", "", "job 'v': --vectors {root}/gone/%04d.exr: no such file or EXR "
     "sequence (give the frames holding the motion vectors, e.g. frames/%04d.exr)"),
], ids=["shutter", "vectors-and-motion-blur", "zero-is-sky", "resize", "range", "wide",
        "max-length-alone", "max-length-0", "missing"])
def test_a_jobs_wrong_keys_are_one_line_naming_them(shots, capsys, v, m, said):
    """Said in the file's keys (was the flags: '--depth-zero-is-sky needs --depth'), before
    any job runs, nothing written."""
    path = jobs_file(shots, *(("", "", m, v) if v.endswith(".exr") else ("", v, m)))
    with pytest.raises(hf.InputError) as e:
        load_jobs(path, {})
    assert str(e.value) == f"{path}: " + said.format(root=shots)
    assert main(["batch", str(path)]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {path}: {said.format(root=shots)}\n"
    assert not (shots / "out").exists()


@pytest.mark.parametrize("flag, line", [
    (["--max-length", "5"], "--max-length 5 applies only with --vectors (motion blur from "
     "motion vectors: the longest vector it takes)"),
    (["--shutter", "90"], "--shutter 90 applies only with --vectors (motion blur from motion "
     "vectors); fx's frame-blending shutter is --motion-blur N and --stride S, 360*N/S "
     "degrees (--motion-blur 4 and --stride 8: 180)")])
def test_a_vectors_option_after_a_file_of_no_vector_job_is_refused(shots, capsys, flag, line):
    """(was: taken as an fx option, which the jobs file has, and left out unsaid)"""
    path = shots / "jobs.toml"
    path.write_text('[[job]]\nname = "m"\ninput = "frames/%04d.png"\noutput = "out/m/%04d.png"'
                    '\nmotion-blur = 2\n')
    assert main(["batch", str(path), *flag]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {line}\n"
    assert not (shots / "out").exists()


@pytest.mark.parametrize("v, tail", [
    ("", "give max-length = PX to clamp such vectors"),
    ("max-length = 1e9\n", "clamped to max-length = 1000000000.0 it is still over "
     "100 frame diagonals (8000 px): not a motion; give a max-length of at most 8000"),
], ids=["unclamped", "clamped"])
def test_a_vector_over_100_diagonals_names_the_jobs_key(shots, capsys, v, tail):
    """A vectors job names its file's key (was 'give max_length=', Python's spelling)."""
    vectors(shots / "vec", 1, 1e7)
    path = jobs_file(shots, v=v)
    assert main(["batch", str(path), "--summary", str(shots / "s.json")]) == 1
    error = {r["name"]: r["error"] for r in json.loads((shots / "s.json").read_text())}["v"]
    assert error.startswith("velocity of frame ") and tail in error, error
    assert "max_length" not in error and "--max-length" not in error
