"""A Ray chunk's warnings reach the user once (its worker's log is its own): a scene's own
warning in update(t), the motion hint, each said once by the driver, as a local run says
them; a batch's begin with the job's name."""

import logging
import textwrap

from hfrender.cli import main

SCENE = textwrap.dedent("""
    import logging, math
    import hfrender as hf

    class Shot(hf.Scene):
        duration = 3.0
        def setup(self):
            self.box = self.add(hf.Cube(color="orange"))
            self.n = 0
        def update(self, t):
            self.n += 1
            if 0.92 < t < 1.08 or 1.3 < t < 1.7:  # frames 7 and 8: two chunks; 11 to 13
                logging.getLogger("hfrender.scene").warning("the lamp flickers")
            if 2.3 < t < 2.6:  # frames 19 and 20 (the driver looks at 0, 1, 22 and 23)
                logging.getLogger("hfrender.scene").warning("late: %s", "past 2.3 s")
            self.box.position = ({x}, 0, 0)
""")


def said(caplog, text):
    return [r.getMessage() for r in caplog.records
            if r.levelno >= logging.WARNING and text in r.getMessage()]


def test_a_chunks_warnings_are_caught_distinct_and_name_the_drivers_paths(caplog):
    """A chunk's warnings: hfrender's own, each once, at most 20 then a count of the rest,
    its folder's paths as the driver names them; none silenced, none after."""
    from hfrender.engine.chunk_warnings import caught
    from hfrender.logs import silenced

    font = logging.getLogger("hfrender.scene.glyphs")
    with caught() as chunk:
        for i in range(50):  # frames 0..22: 23 distinct, each said twice or thrice
            font.warning("frame %d: %s/fonts/a.ttf has no glyph for 'ß'", i % 23, "/tmp/c-1")
        logging.getLogger("ray.worker").warning("not hfrender's")
        with silenced():
            font.warning("a look said by the driver")
    font.warning("after the task")
    chunk.chunk("/tmp/c-1", "scenes/", 24, 24)
    assert chunk.texts == [f"frame {i}: scenes/fonts/a.ttf has no glyph for 'ß'"
                           for i in range(20)] + ["(and 3 more warnings of frames 24-47)"]


def test_a_scenes_own_loggers_are_caught_and_the_chunks_folder_named_as_the_drivers():
    """A scene's logging.warning (root) and getLogger(__name__) (its module's, no
    hfrender's) were lost on Ray (a local run shows them: review r7); a line naming the
    chunk's folder itself kept the worker's path; two chunks' overflow lines were one."""
    from hfrender.engine.chunk_warnings import caught

    with caught() as chunk:
        logging.warning("the scene's root warning")
        logging.getLogger("hfrender_scene_ab12").warning("its module's")
        logging.getLogger("ray.worker").warning("not the scene's")
        logging.getLogger("hfrender.io.segments").warning("no room in /tmp/c-1 for it")
    chunk.chunk("/tmp/c-1", "shots/", 0, 24)
    assert chunk.texts == ["the scene's root warning", "its module's",
                           "no room in shots for it"]


def test_the_driver_says_a_chunks_warning_once_and_not_its_own_again(caplog):
    from hfrender.engine.chunk_warnings import Told

    told = Told(["the driver's look"])
    with caplog.at_level("WARNING"):
        told.tell({"warnings": ["the driver's look", "frame 9: a glyph", "frame 9: a glyph"]})
        told.tell({"warnings": ["frame 9: a glyph", "frame 30: late"]})
        told.tell({"first": 0})  # (a chunk of an older hfrender: none)
    assert [r.getMessage() for r in caplog.records] == ["frame 9: a glyph", "frame 30: late"]


def test_a_scenes_warnings_on_ray_are_said_once(local_ray, tmp_path, caplog):
    """Three chunks (a segment a second); one warning said at every update(t) of frames of
    two of them, another of the last one's: each once, from the driver (was: neither, in
    the workers' logs)."""
    path = tmp_path / "shot.py"
    path.write_text(SCENE.format(x="0 * t"))
    with caplog.at_level("WARNING"):
        assert main(["render", str(path), "-o", str(tmp_path / "o.mp4"), "--size", "32x18",
                     "--samples", "2", "--fps", "8", "--ray", "--quiet"]) == 0
    assert said(caplog, "flickers") == ["the lamp flickers"]
    assert said(caplog, "late") == ["late: past 2.3 s"]


def test_the_drivers_look_at_the_scene_is_not_said_again_by_its_chunks(local_ray, tmp_path,
                                                                       caplog):
    """The driver looks at update(t) over every chunk's frames and says what it finds; a
    chunk's own look (at its first frame) found it too, in other words (another t): was
    said three times, once a chunk, once warnings came back."""
    path = tmp_path / "shot.py"
    path.write_text(SCENE.format(x="0.001 * self.n"))  # (each call moves it)
    with caplog.at_level("WARNING"):
        assert main(["render", str(path), "-o", str(tmp_path / "o.mp4"), "--size", "32x18",
                     "--samples", "2", "--fps", "8", "--ray", "--quiet"]) == 0
    impure = said(caplog, "not a pure function of t")
    assert len(impure) == 1 and "box.position at t=0 s was (0.001, 0.0, 0.0)" in impure[0]
    assert said(caplog, "flickers") == ["the lamp flickers"]


def test_a_batch_jobs_chunk_warnings_begin_with_its_name(local_ray, tmp_path, caplog,
                                                         monkeypatch):
    """In ``batch --ray`` a job's warnings begin with its name, its chunks' too, once."""
    (tmp_path / "scenes").mkdir()
    (tmp_path / "scenes" / "shot.py").write_text(SCENE.format(x="0 * t"))
    (tmp_path / "jobs.toml").write_text(
        '[defaults]\nsize = "32x18"\nsamples = 2\nfps = 8\n\n[[job]]\nname = "lamp"\n'
        'scene = "scenes/shot.py"\noutput = "out/lamp.mp4"\n')
    monkeypatch.chdir(tmp_path)
    with caplog.at_level("WARNING"):
        assert main(["batch", "jobs.toml", "--ray", "--quiet"]) == 0
    assert said(caplog, "flickers") == ["job 'lamp': the lamp flickers"]
    assert said(caplog, "late") == ["job 'lamp': late: past 2.3 s"]


def test_an_fx_chunks_warnings_are_said_once_naming_the_footage_as_given(local_ray, tmp_path,
                                                                        caplog, monkeypatch):
    """fx on Ray: each chunk's fusion saw see-through frames and said so: once, naming the
    footage as given (not the chunk's copy of it, in0.mov in its folder); was said by none."""
    import subprocess

    import imageio_ffmpeg

    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 1.0)  # 3 chunks
    clip = tmp_path / "half.mov"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "color=c=red@0.5:size=32x18:rate=30,format=rgba",
                    "-frames:v", "80", "-c:v", "qtrle", "-pix_fmt", "argb", str(clip)],
                   check=True)
    with caplog.at_level("WARNING"):
        assert main(["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--motion-blur", "3",
                     "--ray", "--quiet"]) == 0
    alpha = said(caplog, "has alpha")
    assert len(alpha) == 1 and alpha[0].startswith(
        f"{clip} has alpha; {tmp_path / 'o.mp4'} keeps none: it is composited over black"), alpha


def test_the_motion_hint_on_ray_is_the_local_runs_once(local_ray, tmp_path, caplog):
    """A box at rest until t = 1.3 s, then swinging fast: here the hint scans the clip and names the
    first frame that shows copies, once; on Ray each chunk looked at its first frame alone
    (frame 16 said, from the last chunk, or nothing before warnings were carried back); now
    the first chunk scans to the end as a local run does, and the others say none."""
    path = tmp_path / "shot.py"
    path.write_text(SCENE.format(x="0 if t < 1.3 else 1.5 * math.sin(20 * (t - 1.3))"))
    hints = {}
    for where in ("here", "ray"):
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["render", str(path), "-o", str(tmp_path / f"{where}.mp4"), "--size",
                         "32x18", "--samples", "2", "--fps", "8", "--quiet",
                         *(["--ray"] if where == "ray" else [])]) == 0
        hints[where] = said(caplog, "while the shutter is open")
    assert len(hints["here"]) == 1 and hints["here"][0].startswith("frame 13 moves up to 18 px")
    assert hints["ray"] == hints["here"]
