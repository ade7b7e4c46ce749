"""A disparity map's fx options in a jobs file and on resume: depth-kind, focus-disparity
and max-blur taken, the values that mean "not given" taken, [defaults] keys for each depth
kind, a --resume with another --max-blur named alone."""

import imageio.v3 as iio
import numpy as np
import pytest
from disparity_helpers import (
    H,
    N,
    W,
    scene,
)
from fx_helpers import png_sequence

import hfrender as hf
from hfrender.cli import main

JOB = """[[job]]
name = "shot"
input = "frames"
output = "b/%03d.png"
fps = 24
depth = "d.npy"
depth-kind = "disparity"
focus-disparity = 0.5
max-blur = 9
"""


def test_a_jobs_file_takes_depth_kind_focus_disparity_and_max_blur(tmp_path, rng, capsys):
    """A jobs file's fx job takes fx's disparity options (was: "unknown field 'depth-kind'"):
    its frames the command line's; a wrong one is one line naming the job, before any
    work, naming the file's keys (was: '--depth-kind disparity needs --max-blur', flags the
    file has none of); depth-kind disparity with no depth (a job's motion blur alone) is
    refused, not left out without a word."""
    from hfrender.engine.batch import load_jobs

    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "d.npy", scene()[1])
    (tmp_path / "jobs.toml").write_text(JOB)
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 0
    assert main(["fx", str(seq), "-o", str(tmp_path / "c" / "%03d.png"), "--depth",
                 str(tmp_path / "d.npy"), "--depth-kind", "disparity", "--focus-disparity",
                 "0.5", "--max-blur", "9", "--fps", "24", "--quiet"]) == 0
    for i in range(N):
        assert np.array_equal(iio.imread(tmp_path / "b" / f"{i:03d}.png"),
                              iio.imread(tmp_path / "c" / f"{i:03d}.png"))
    for edit, said, message in (
            ('"disparity"', '"metres"', "depth-kind metres must be one of distance, disparity"),
            ("max-blur = 9", "max-blur = 1", "max-blur = 1 blurs nothing: under 2 px across a "
             "circle of confusion leaves every pixel as it is (a pixel's disk is whole "
             "pixels); give at least 2, or no depth of field"),
            ("max-blur = 9", 'max-blur = "9"', 'max-blur = "9" must be a number'),
            ("focus-disparity = 0.5", "focus-disparity = -1", "focus-disparity = -1 must be a "
             "finite disparity >= 0 (in the map's units; 0 and below is sky)"),
            ("max-blur = 9", "max-blur = 9\nf-stop = 2", "f-stop does not apply with depth-kind "
             "disparity: the blur's size is max-blur's"),
            ('depth = "d.npy"', "motion-blur = 2", "depth-kind disparity needs depth"),
            ("max-blur = 9\n", "", "depth-kind disparity needs max-blur (the largest circle of "
             "confusion's diameter, in pixels)"),
            ("focus-disparity = 0.5\n", "", "depth-kind disparity needs focus-pixel or "
             "focus-disparity (the pixel in focus, or the disparity in focus)"),
            ("max-blur = 9", 'max-blur = 9\nfocus-pixel = "30,12"', "focus-pixel and "
             "focus-disparity: give one (the pixel in focus, or the disparity in focus)")):
        (tmp_path / "jobs.toml").write_text(JOB.replace(edit, said))
        with pytest.raises(hf.InputError) as e:
            load_jobs(tmp_path / "jobs.toml", {})
        assert str(e.value) == f"{tmp_path / 'jobs.toml'}: job 'shot': {message}"
    (tmp_path / "jobs.toml").write_text(JOB.replace("max-blur = 9\n", ""))
    assert main(["batch", str(tmp_path / "jobs.toml"), "--max-blur", "1", "--quiet"]) == 2
    assert capsys.readouterr().err.endswith("for job 'shot': --max-blur 1 blurs nothing: under "
                                            "2 px across a circle of confusion leaves every "
                                            "pixel as it is (a pixel's disk is whole pixels); "
                                            "give at least 2, or no depth of field\n")


def test_resume_with_another_max_blur_names_it_alone_and_the_same_run_goes_on(
        tmp_path, rng, monkeypatch, capsys):
    """An interrupted disparity run: a --resume with another --max-blur is refused, naming
    it (was: 'focus-distance 49.4327 -> 37.087; max-blur 9 -> 12', a stand-in's metres no
    flag gives); with the same flags it goes on to the uninterrupted run's frames."""
    import signal

    from fx_engine_helpers import segments_done, start_fx, wait_for
    from fx_helpers import decode, make_clip

    clip, _ = make_clip(tmp_path, rng, n=120)  # 15-frame segments: 8 of them
    d = np.full((120, 36, 64), 0.5, np.float32)
    d[:, 5:20, 5:25] = np.linspace(1, 3, 120, dtype=np.float32)[:, None, None]
    d[:, :3] = 0
    np.save(tmp_path / "d.npy", d)
    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 0.5)
    flags = ["--depth", str(tmp_path / "d.npy"), "--depth-kind", "disparity",
             "--focus-disparity", "0.5", "--max-blur", "9", "--quiet"]
    whole, out = tmp_path / "whole.mp4", tmp_path / "crash.mp4"
    assert main(["fx", str(clip), "-o", str(whole), *flags]) == 0
    proc = start_fx(tmp_path, [str(clip), "-o", str(out), *flags])
    wait_for(out, 2, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()  # its pipes closed with it
    assert 2 <= len(segments_done(out)) < 8
    assert main(["fx", str(clip), "-o", str(out), *flags[:-2], "12", "--quiet",
                 "--resume"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --resume: the settings changed since the interrupted run (max-blur "
        "9 -> 12); run without --resume to start over\n")
    assert main(["fx", str(clip), "-o", str(out), *flags, "--resume"]) == 0
    np.testing.assert_array_equal(decode(whole)[0], decode(out)[0])


def test_the_values_that_mean_not_given_are_taken_with_a_disparity_map(tmp_path, rng):
    """depth-scale = 1.0 and depth-zero-is-sky = false in a jobs file (and --depth-scale 1)
    change nothing, as FxSettings holds them when none is given: were refused ("does not
    apply with depth-kind disparity"); the job's settings and frames are those without."""
    from hfrender.engine.batch import load_jobs

    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "d.npy", scene()[1])
    (tmp_path / "jobs.toml").write_text(JOB)
    plain = load_jobs(tmp_path / "jobs.toml", {})[0].fx_settings()
    (tmp_path / "jobs.toml").write_text(JOB + "depth-scale = 1.0\ndepth-zero-is-sky = false\n")
    assert load_jobs(tmp_path / "jobs.toml", {})[0].fx_settings() == plain
    args = ["fx", str(seq), "--depth", str(tmp_path / "d.npy"), "--depth-kind", "disparity",
            "--focus-disparity", "0.5", "--max-blur", "9", "--quiet"]
    assert main(args + ["-o", str(tmp_path / "a" / "%03d.png")]) == 0
    assert main(args + ["-o", str(tmp_path / "b" / "%03d.png"), "--depth-scale", "1"]) == 0
    for i in range(N):
        assert np.array_equal(iio.imread(tmp_path / "a" / f"{i:03d}.png"),
                              iio.imread(tmp_path / "b" / f"{i:03d}.png"))


def test_defaults_give_each_depth_kind_its_own_keys(tmp_path, rng, capsys):
    """[defaults] holding the file's metre jobs' f-stop and focus-distance and its disparity
    jobs' max-blur and focus-disparity: a disparity job was refused ('[defaults], for job
    'd': focus-distance does not apply with depth-kind disparity'), a metre job too
    ('max-blur applies only with depth-kind disparity'); now each takes its kind's keys, as
    though its own; a job's own f-stop with depth-kind disparity is still refused."""
    from hfrender.engine.batch import load_jobs

    png_sequence(tmp_path, rng, N, H, W)
    z, d = scene()
    np.save(tmp_path / "z.npy", z)
    np.save(tmp_path / "d.npy", d)
    metre = ('[[job]]\nname = "m"\ninput = "frames"\noutput = "m/%03d.png"\nfps = 24\n'
             'depth = "z.npy"\n')
    both = ("[defaults]\nf-stop = 1.4\nfocus_distance = 4.0\nmax-blur = 9\n"
            "focus-disparity = 0.5\n\n" + metre + JOB.replace("focus-disparity = 0.5\n", "")
            .replace("max-blur = 9\n", ""))
    (tmp_path / "jobs.toml").write_text(both)
    jobs = load_jobs(tmp_path / "jobs.toml", {})
    (tmp_path / "own.toml").write_text(metre + "f-stop = 1.4\nfocus-distance = 4.0\n" + JOB)
    own = load_jobs(tmp_path / "own.toml", {})
    assert [j.options for j in jobs] == [j.options for j in own]
    assert [j.fx_settings() for j in jobs] == [j.fx_settings() for j in own]
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 0
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["000.png", "001.png"]
    (tmp_path / "jobs.toml").write_text(both + "f-stop = 2\n")
    with pytest.raises(hf.InputError) as e:
        load_jobs(tmp_path / "jobs.toml", {})
    assert str(e.value) == (f"{tmp_path / 'jobs.toml'}: job 'shot': f-stop does not apply with "
                            "depth-kind disparity: the blur's size is max-blur's")
