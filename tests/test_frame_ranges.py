"""--frames START:END and still -f N: the same frames as a whole render (jitter, the lens
pattern, overlapping shutters), PNG files numbered by frame, videos starting at time 0,
one-line errors, batch jobs, --resume of a range."""

import re
import subprocess
from pathlib import Path

import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np
import pytest
from render_helpers import decode_video as decode
from render_helpers import interrupt_after_segments, render_frames

from hfrender.cli import main
from hfrender.config import RenderConfig
from hfrender.engine.batch import load_jobs
from hfrender.errors import InputError
from hfrender.frame_range import FrameRangeError, parse_frames, resolve
from hfrender.io.probe import probe

pytestmark = pytest.mark.usefixtures("gl_context")
ROOT = Path(__file__).resolve().parents[1]
SHOWCASE = str(ROOT / "scenes" / "showcase.py")  # f/1.2: lens depth of field, moving parts
BAR = str(Path(__file__).parent / "data" / "bar.frag")
FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()
SMALL = ["--size", "64x36", "--samples", "3", "--quiet"]


def pngs(folder):
    """{file name: frame} of a PNG folder."""
    return {f.name: iio.imread(f) for f in sorted(Path(folder).iterdir())}




@pytest.mark.parametrize("effects", [["--jitter", "--seed", "7"], ["--shutter", "540"],
                                     ["--shutter", "540", "--jitter", "--shutter-curve",
                                      "triangle"]])
def test_a_range_is_the_same_frames_as_the_whole_render(tmp_path, effects):
    whole, part = tmp_path / "whole" / "%03d.png", tmp_path / "part" / "%03d.png"
    args = [*SMALL, "--duration", "0.4", *effects]  # 12 frames
    assert main(["render", SHOWCASE, "-o", str(whole), *args]) == 0
    assert main(["render", SHOWCASE, "-o", str(part), "--frames", "5:9", *args]) == 0
    every, some = pngs(whole.parent), pngs(part.parent)
    assert list(some) == ["005.png", "006.png", "007.png", "008.png"]  # numbered by frame
    for name, frame in some.items():
        np.testing.assert_array_equal(frame, every[name], err_msg=name)
    assert not np.array_equal(some["005.png"], some["008.png"])  # it moves


def test_open_ended_ranges_in_memory(tmp_path):
    """The library: ``RenderConfig(frames=...)`` with any writer; overlapping windows need
    the sub-frames before the range (its lead-in), drawn by the range itself."""
    common = dict(size=(64, 36), samples=4, shutter=720, jitter=True, seed=3, duration=0.3)
    whole, _ = render_frames(SHOWCASE, **common)
    tail, stats = render_frames(SHOWCASE, frames=(6, None), **common)
    head, _ = render_frames(SHOWCASE, frames=(None, 2), **common)
    assert len(whole) == 9 and stats.total_frames == 3
    np.testing.assert_array_equal(tail, whole[6:])
    np.testing.assert_array_equal(head, whole[:2])


def test_a_video_of_a_range_starts_at_time_zero_with_those_frames(tmp_path):
    """libx264rgb at CRF 0 is lossless: the decoded frames are the rendered ones."""
    whole, clip = tmp_path / "w" / "%03d.png", tmp_path / "range.mp4"
    args = ["--size", "64x16", "--samples", "2", "--duration", "1.5", "--quiet"]
    assert main(["render", BAR, "-o", str(whole), *args]) == 0
    assert main(["render", BAR, "-o", str(clip), "--frames", "10:42", "--codec", "libx264rgb",
                 "--crf", "0", "--granularity", "12", *args]) == 0  # 2 segments, 16 + 16
    frames = decode(clip)
    every = pngs(whole.parent)
    np.testing.assert_array_equal(frames, np.stack([every[f"{k:03d}.png"]
                                                    for k in range(10, 42)]))
    log = subprocess.run([FFMPEG, "-i", str(clip), "-vf", "showinfo", "-f", "null", "-"],
                         capture_output=True, text=True).stderr
    times = [float(t) for t in re.findall(r"pts_time:\s*([\d.]+)", log)]
    assert times[0] == 0 and times[-1] == pytest.approx(31 / 30)
    assert probe(str(clip)).count == 32


def test_a_range_keeps_the_other_frames_of_its_pattern(tmp_path):
    """Ranges rendered one after the other fill one sequence, as in Blender."""
    out = tmp_path / "f" / "%02d.png"
    args = [*SMALL, "--duration", "0.2"]
    assert main(["render", BAR, "-o", str(out), "--frames", ":3", *args]) == 0
    assert main(["render", BAR, "-o", str(out), "--frames", "3:", *args]) == 0
    assert sorted(pngs(out.parent)) == [f"{k:02d}.png" for k in range(6)]
    assert main(["render", BAR, "-o", str(out), *args]) == 0  # a whole render: its own frames
    assert sorted(pngs(out.parent)) == [f"{k:02d}.png" for k in range(6)]


def test_still_f_is_frame_n_of_the_render(tmp_path, capsys):
    whole = tmp_path / "w" / "%02d.png"
    args = [*SMALL, "--jitter", "--seed", "2", "--duration", "0.3"]
    assert main(["render", SHOWCASE, "-o", str(whole), *args]) == 0
    still = tmp_path / "s.png"
    assert main(["still", SHOWCASE, "-f", "7", "-o", str(still), *args]) == 0
    np.testing.assert_array_equal(iio.imread(still), iio.imread(whole.parent / "07.png"))
    assert main(["still", SHOWCASE, "-f", "9", "-o", str(still), *args]) == 2
    assert "-f 9: past the end; --duration 0.3 at 30 fps has frames 0..8" in \
        capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["still", SHOWCASE, "-f", "1", "-t", "0.1", "-o", str(still)])
    assert exit_.value.code == 2
    assert "argument -t/--time: not allowed with argument -f/--frame" in capsys.readouterr().err


@pytest.mark.parametrize("frames,message", [
    ("20:10", "--frames 20:10: START must be before END (END is exclusive: 20:21 is frame 20 "
              "alone)"),
    ("5:5", "--frames 5:5: START must be before END"),
    ("a:b", "--frames a:b must be START:END, output frame numbers with END exclusive, "
            "either side may be empty (e.g. 10:20, 10: or :20)"),
    ("-3:4", "--frames -3:4 must be START:END"),  # as typed (were quoted: '7')
    ("7", "--frames 7 must be START:END"),
    ("10:40", "--frames 10:40: the render has frames 0 to 14 (0.5 s at 30 fps); START can be 0 "
              "to 14 and END at most 15 (lower them, or raise --duration)"),
    ("15:", "--frames 15:: the render has frames 0 to 14"),
])
@pytest.mark.parametrize("joined", [True, False])
def test_bad_ranges_are_one_line(tmp_path, capsys, frames, message, joined):
    """Either spelling; ``--frames -3:4`` too (argparse alone reads -3:4 as an option)."""
    out = tmp_path / "o.mp4"
    given = [f"--frames={frames}"] if joined else ["--frames", frames]
    assert main(["render", BAR, "-o", str(out), "--duration", "0.5", *given, *SMALL]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not any(tmp_path.iterdir())


def test_parse_and_resolve():
    assert parse_frames("10:20") == (10, 20) and parse_frames(" 3 : ") == (3, None)
    assert parse_frames(":4") == (None, 4) and parse_frames(":") == (None, None)
    assert resolve((None, None), 9, 30) == (0, 9) and resolve((2, None), 9, 30) == (2, 7)
    with pytest.raises(FrameRangeError):
        parse_frames(10)


JOBS = """
[defaults]
size = "64x16"
samples = 2
duration = 0.3

[[job]]
name = "part"
scene = "bar.frag"
output = "part/%02d.png"
frames = "4:7"

[[job]]
name = "whole"
scene = "bar.frag"
output = "whole/%02d.png"
"""


def test_batch_jobs_take_frames(tmp_path):
    (tmp_path / "bar.frag").write_bytes(Path(BAR).read_bytes())
    (tmp_path / "jobs.toml").write_text(JOBS)
    part, whole = load_jobs(tmp_path / "jobs.toml")
    assert part.render_config().frames == (4, 7) and whole.render_config().frames is None
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 0
    some, every = pngs(tmp_path / "part"), pngs(tmp_path / "whole")
    assert list(some) == ["04.png", "05.png", "06.png"] and len(every) == 9
    for name, frame in some.items():
        np.testing.assert_array_equal(frame, every[name])
    (tmp_path / "jobs.toml").write_text(JOBS.replace('"4:7"', '"7:4"'))
    with pytest.raises(InputError, match=r"job 'part': frames = \"7:4\": START must be "
                       r"before END"):
        load_jobs(tmp_path / "jobs.toml")


def test_hfrender_toml_frames(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hfrender.toml").write_text('[render]\nframes = "2:x"\n')
    assert main(["render", BAR, "-o", "o.mp4"]) == 2
    assert '[render] frames = "2:x" must be START:END' in capsys.readouterr().err


def test_resume_continues_the_same_range_only(tmp_path, monkeypatch, capsys):
    out, whole = tmp_path / "r.mp4", tmp_path / "whole.mp4"
    args = ["--size", "64x16", "--samples", "2", "--granularity", "12", "--duration", "3",
            "--quiet"]
    undo = interrupt_after_segments(monkeypatch)
    assert main(["render", BAR, "-o", str(out), "--frames", "10:80", *args]) == 130
    undo()
    capsys.readouterr()
    assert main(["render", BAR, "-o", str(out), "--frames", "10:70", *args, "--resume"]) == 2
    assert "(frames 10:80 -> 10:70)" in capsys.readouterr().err
    assert main(["render", BAR, "-o", str(out), *args, "--resume"]) == 2  # the whole: no
    assert "(frames 10:80 -> unset)" in capsys.readouterr().err
    assert main(["render", BAR, "-o", str(out), "--frames", "10:80", *args, "--resume"]) == 0
    assert main(["render", BAR, "-o", str(whole), "--frames", "10:80", *args]) == 0
    np.testing.assert_array_equal(decode(out), decode(whole))
    assert probe(str(out)).count == 70


def test_a_range_on_ray_is_the_local_range(tmp_path, local_ray):
    args = ["--size", "64x16", "--samples", "2", "--duration", "1.5", "--quiet",
            "--frames", "10:42"]
    for where, ray in (("local", []), ("ray", ["--ray"])):
        assert main(["render", BAR, "-o", str(tmp_path / f"{where}.mp4"), *args, *ray,
                     "--crf", "30"]) == 0
        assert main(["render", BAR, "-o", str(tmp_path / where / "%03d.png"), *args,
                     *ray]) == 0
    np.testing.assert_array_equal(decode(tmp_path / "ray.mp4"), decode(tmp_path / "local.mp4"))
    here, there = pngs(tmp_path / "local"), pngs(tmp_path / "ray")
    assert list(there) == [f"{k:03d}.png" for k in range(10, 42)] == list(here)
    for name, frame in there.items():
        np.testing.assert_array_equal(frame, here[name])


@pytest.mark.parametrize("pattern", ["%d.png", "%1d.png", "%01d.png", "%04d.png",
                                     "a_%05d.png", "%3d.exr", "f%02d_x.png"])
def test_a_pattern_matches_the_names_it_prints_and_no_others(pattern):
    """Every frame number's name (and its .part) is the pattern's, read back as the number;
    the names another width prints are not (where the two name a frame alike, it is)."""
    from hfrender.io.sequence_names import pattern_files

    rx = pattern_files(pattern, r"(\.part)?")
    rng = np.random.default_rng(len(pattern))
    for n in [0, 1, 9, 10, 99, 100, 999, 1000, 12345, *rng.integers(0, 10**6, 20).tolist()]:
        for name in (pattern % n, pattern % n + ".part"):
            m = rx.match(name)
            assert m is not None and int(m.group(1)) == n, (pattern, name)
    spec = re.search(r"%\d*d", pattern).group(0)
    for other in ("%d", "%02d", "%03d", "%04d", "%05d", "%06d", "%3d", "%5d"):
        printed = lambda n, o=other: pattern.replace(spec, o % n)  # noqa: E731
        for n in range(0, 2000, 7):
            if (pattern % n) != printed(n):  # a name this pattern does not print
                assert rx.match(printed(n)) is None, (pattern, other, n)


def test_a_batch_jobs_range_outside_its_render_is_refused_before_any_job_runs(tmp_path):
    """A job's frames past its duration (given, or the scene's own when the script says it
    as a number) stop the batch before the first job renders (was: found when that job
    ran, after the jobs before it)."""
    (tmp_path / "bar.frag").write_bytes(Path(BAR).read_bytes())
    (tmp_path / "short.py").write_text(
        "import hfrender as hf\nclass Short(hf.Scene):\n    duration = 0.2\n"
        "    def update(self, t):\n        pass\n")
    jobs = ('[defaults]\nsize = "64x16"\nsamples = 2\n\n[[job]]\nname = "first"\n'
            'scene = "bar.frag"\noutput = "first/%02d.png"\nduration = 0.1\n\n'
            '[[job]]\nname = "part"\nscene = "{scene}"\noutput = "part/%02d.png"\n'
            'frames = "{frames}"\n{more}')
    for scene, frames, more, told in (
            ("bar.frag", "4:12", "duration = 0.3", "the render has frames 0 to 8 (0.3 s at "
                                                    "30 fps)"),
            ("bar.frag", "130:", "", "the render has frames 0 to 119 (4 s at 30 fps)"),
            ("short.py", "4:9", "duration = 0.1", "the render has frames 0 to 2 (0.1 s"),
            ("short.py", "4:9", "", "the render has frames 0 to 5 (0.2 s at 30 fps)")):
        (tmp_path / "jobs.toml").write_text(jobs.format(scene=scene, frames=frames, more=more))
        with pytest.raises(InputError, match=rf"job 'part': --frames {frames}: "
                                             rf"{re.escape(told)}"):
            load_jobs(tmp_path / "jobs.toml")
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 2
    assert not (tmp_path / "first").exists() and not (tmp_path / "part").exists()
    (tmp_path / "jobs.toml").write_text(jobs.format(scene="short.py", frames="4:6", more=""))
    assert [j.name for j in load_jobs(tmp_path / "jobs.toml")] == ["first", "part"]


@pytest.mark.parametrize("body, seconds", [
    ("class A(hf.Scene):\n    duration = 2.5\n", 2.5),
    ("class A(hf.Scene):\n    duration: float = 3\n", 3.0),
    ("class A(hf.Scene):\n    pass\n", 4.0),  # Scene's own
    ("class A(hf.Scene):\n    duration = 2 * 3\n", None),  # takes running it
    ("class Base(hf.Scene):\n    duration = 9\nclass A(Base):\n    pass\n", None),
    ("class A(hf.Scene):\n    pass\nclass B(hf.Scene):\n    duration = 1\n", None),
    # where running it is the only way to know: none (the render checks the range)
    ("class A(hf.Scene):\n    @property\n    def duration(self):\n        return 10.0\n", None),
    ("class A(hf.Scene):\n    def setup(self):\n        self.duration = 9\n", None),
    ("class A(hf.Scene):\n    if True:\n        duration = 9\n", None),
    ("class A(hf.Scene):\n    duration = 2\n    duration = 9\n", None),
    ("class A(hf.Scene):\n    duration = 2\n    duration += 1\n", None),
])
def test_a_scenes_duration_is_read_without_running_it(tmp_path, body, seconds):
    from hfrender.scene.scene_file import scene_duration

    (tmp_path / "s.py").write_text("import hfrender as hf\n" + body)
    assert scene_duration(tmp_path / "s.py") == seconds
    assert scene_duration(Path(BAR)) == 4.0
    if "class B(" in body:
        assert scene_duration(tmp_path / "s.py", "B") == 1.0


def test_batch_jobs_that_fill_one_sequence_with_ranges_are_up_to_date(tmp_path):
    """Two jobs files, each rendering a range of one sequence: a job is told up to date by
    its own frames (was: by every file of the pattern, so the other's frames made it look
    changed, and each ran every time)."""
    import json

    (tmp_path / "bar.frag").write_bytes(Path(BAR).read_bytes())
    job = ('[defaults]\nsize = "64x16"\nsamples = 2\nduration = 0.3\n\n'
           '[[job]]\nname = "{name}"\nscene = "bar.frag"\noutput = "seq/%02d.png"\n'
           'frames = "{frames}"\n')
    (tmp_path / "head.toml").write_text(job.format(name="head", frames="0:4"))
    (tmp_path / "tail.toml").write_text(job.format(name="tail", frames="4:"))

    def status(which):
        out = tmp_path / "s.json"
        assert main(["batch", str(tmp_path / f"{which}.toml"), "--quiet", "--summary",
                     str(out)]) == 0
        (result,) = json.loads(out.read_text())
        return result["status"], result["frames"]

    assert (status("head"), status("tail")) == (("done", 4), ("done", 5))
    assert sorted(f.name for f in (tmp_path / "seq").iterdir()) == [
        f"{k:02d}.png" for k in range(9)]
    assert (status("head"), status("tail")) == (("up-to-date", 4), ("up-to-date", 5))
    (tmp_path / "seq" / "06.png").unlink()
    assert (status("head"), status("tail")) == (("up-to-date", 4), ("done", 5))
    assert len(list((tmp_path / "seq").iterdir())) == 9


def test_dof_auto_is_the_whole_renders_in_a_range_and_a_still(tmp_path, caplog, capsys):
    """An f-stop set by update(t) only after t = 0.2: --dof auto decided at a range's first
    frame (lens) where the whole render decided at t = 0 (off), and their pixels differed
    by 88 codes (a trial); now every run decides at t = 0, and says the f-stop is left out."""
    import logging
    import textwrap

    scene = tmp_path / "late.py"
    scene.write_text(textwrap.dedent("""
        import hfrender as hf

        class Late(hf.Scene):
            duration = 0.4

            def setup(self):
                self.add(hf.Sphere(radius=0.5)).position = (-0.8, 0, 0)
                self.add(hf.Sphere(radius=0.5, color=(0.2, 0.4, 1))).position = (0.8, 0, -3)
                self.camera.position = (0, 0, 5)
                self.camera.focus_distance = 5

            def update(self, t):
                self.camera.f_stop = 1.4 if t > 0.2 else None
    """))
    whole, part = tmp_path / "whole" / "%03d.png", tmp_path / "part" / "%03d.png"
    still = tmp_path / "s.png"
    with caplog.at_level(logging.WARNING, logger="hfrender"):
        assert main(["render", str(scene), "-o", str(whole), *SMALL]) == 0
        assert main(["render", str(scene), "-o", str(part), "--frames", "8:10", *SMALL]) == 0
        assert main(["still", str(scene), "-o", str(still), "-f", "9", "--size", "64x36",
                     "--samples", "3", "--quiet"]) == 0
    said = [r.getMessage() for r in caplog.records if "has an f-stop" in r.getMessage()]
    assert len(said) == 3 and said[0].startswith("at t=0.2")
    assert all(m.endswith(" the camera has an f-stop: --dof auto saw none at t = 0, the "
                          "animation's start, and renders without depth of field; set f_stop "
                          "from t = 0 (in setup()), or give --dof lens") for m in said), said
    every, some = pngs(whole.parent), pngs(part.parent)
    for name in ("008.png", "009.png"):
        np.testing.assert_array_equal(some[name], every[name])
    np.testing.assert_array_equal(iio.imread(still), every["009.png"])
    # the warning's advice holds (was: "--dof lens: the scene's camera has no f-stop"): the
    # frames with an f-stop blurred, those before it sharp as the pinhole draws them
    lens = tmp_path / "lens" / "%03d.png"
    assert main(["render", str(scene), "-o", str(lens), "--dof", "lens", *SMALL]) == 0
    blurred = pngs(lens.parent)
    np.testing.assert_array_equal(blurred["003.png"], every["003.png"])
    assert np.abs(blurred["009.png"].astype(int) - every["009.png"]).max() > 20
    scene.write_text(scene.read_text().replace("1.4 if t > 0.2 else None", "None"))
    capsys.readouterr()
    assert main(["render", str(scene), "-o", str(lens), "--dof", "lens", *SMALL]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --dof lens: the scene's camera has no f-stop (at t = 0, nor at 64 "
        "times across the animation); set self.camera.f_stop (e.g. 2.8) and focus_distance in "
        "setup()\n")


def test_a_one_frame_render_takes_a_stills_pool(tmp_path):
    """A one-frame render has one hyperframe in flight: its pool holds 2 slots as a still's
    does, not 3 (a trial: a one-frame 1080p render at 256 samples was refused for 3 slots
    where still drew it); two frames keep the render's 3."""
    from hfrender.engine.render import RenderJob

    frag = tmp_path / "bar.frag"
    frag.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 8.0); }\n")
    slots = {}
    for frames in ((4, 5), (4, 6)):
        job = RenderJob(frag, RenderConfig(output=str(tmp_path / "o.mp4"), size=(16, 8),
                                           samples=4, frames=frames, quiet=True)).prepare()
        try:
            slots[frames] = (job.builder.pool.slot_count, job.config.max_in_flight)
        finally:
            job.release()
    assert slots == {(4, 5): (2, 1), (4, 6): (3, 2)}
