"""A Ray chunk's warnings come back when it fails or is told to stop too (were lost: only
its error came back), said before the render's one-line error, as a local run says them;
and a scene's ``warnings.warn`` comes back as its log warnings do (was left in the
worker's log), naming its file:line as a local run does."""

import logging
import pickle
import sys
import textwrap
import warnings

import pytest

from hfrender.cli import main

SCENE = textwrap.dedent("""
    import logging, os, time, warnings
    import hfrender as hf

    class Shot(hf.Scene):
        duration = 3.0
        def setup(self):
            self.box = self.add(hf.Cube(color="orange"))
            warnings.warn("setup's own")
        def update(self, t):
            if {warn}:
                logging.getLogger("hfrender.scene").warning("the lamp flickers")
                warnings.warn("the bulb hums")
                open({flag!r}, "w").close()  # (another chunk waits for it)
            if {slow}:
                time.sleep(0.5)
            if {fail}:
                for _ in range({waits}):
                    if os.path.exists({flag!r}):
                        break
                    time.sleep(0.05)
                raise ValueError("the lamp broke")
            self.box.position = (0, 0, 0)
""")
HUMS = 13  # the line of warnings.warn("the bulb hums") in SCENE
SETUP = 9  # setup's


@pytest.fixture
def to_stderr():
    """The log's warnings on this test's stderr, as the command line's are (the error's
    line printed there too: their order seen)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("hfrender: warning: %(message)s"))
    logging.getLogger().addHandler(handler)
    yield
    logging.getLogger().removeHandler(handler)


def said(caplog, text):
    return [r.getMessage() for r in caplog.records
            if r.levelno >= logging.WARNING and text in r.getMessage()]


def test_a_scenes_warnings_warn_is_caught_with_its_file_and_line_as_the_driver_names_it():
    """warnings.warn in a chunk: its first line as a local run prints it (file:line:
    category: text), the chunk's folder named as the driver's; once each; none silenced;
    still shown where it was (the worker's log, the driver's stderr); put back after."""
    from hfrender.engine.chunk_warnings import caught
    from hfrender.logs import silenced

    shown = []
    before = warnings.showwarning
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *rest, **kw: shown.append(str(message))
        with caught() as chunk:
            for _ in range(3):
                warnings.warn_explicit("the bulb hums", UserWarning, "/tmp/c-1/shot.py", 15)
            warnings.warn_explicit("x / 0", RuntimeWarning, "/tmp/c-1/lib/fx.py", 4)
            with silenced():
                warnings.warn_explicit("a look's", UserWarning, "/tmp/c-1/shot.py", 9)
        warnings.warn_explicit("after", UserWarning, "/tmp/c-1/shot.py", 20)
    chunk.chunk("/tmp/c-1", "scenes/", 0, 8)
    assert chunk.texts == ["scenes/shot.py:15: UserWarning: the bulb hums",
                           "scenes/lib/fx.py:4: RuntimeWarning: x / 0"]
    assert shown == ["the bulb hums"] * 3 + ["x / 0", "after"]
    assert warnings.showwarning is before


def test_a_failed_chunks_error_carries_its_warnings_and_says_what_it_said():
    """An error raised in a chunk carries the warnings said before it (picklable, as Ray
    sends it back), its words unchanged; :func:`.carried` reads them from Ray's wrapping
    (its ``cause``) too."""
    from hfrender.engine.chunk_warnings import carried, caught

    with pytest.raises(ValueError) as raised, caught() as chunk:
        chunk.chunk("/tmp/c-2", "", 16, 8)
        logging.getLogger("hfrender.scene").warning("frame 17: flickers in /tmp/c-2/a.png")
        raise ValueError("the lamp broke (shot.py:18)")
    back = pickle.loads(pickle.dumps(raised.value))
    assert str(back) == "the lamp broke (shot.py:18)"
    assert carried(back) == ["frame 17: flickers in a.png"]

    class RayTaskError(Exception):  # Ray's wrapping: the task's error as its cause
        cause = back

    assert carried(RayTaskError("task failed")) == ["frame 17: flickers in a.png"]
    assert carried(ValueError("no chunk's")) == []


def test_taken_says_a_failed_or_stopped_chunks_warnings_before_its_error(caplog):
    """ray_wait.taken: a chunk's error says the warnings it carries first, then is raised
    as it came (the one line a user sees unchanged); a stopped chunk's, too."""
    from hfrender.engine.chunk_warnings import Told, stopped_with
    from hfrender.engine.ray_wait import TURNED_AWAY, taken

    error = ValueError("the lamp broke")
    error.hf_warnings = ["the lamp flickers", "the driver's own"]

    class Ray:
        def __init__(self, result):
            self.result = result

        def get(self, ref):
            if isinstance(self.result, Exception):
                raise self.result
            return self.result

    told = Told(["the driver's own"])
    with caplog.at_level("WARNING"), pytest.raises(ValueError) as raised:
        taken(Ray(error), "ref", lambda chunk: None, told.tell)
    assert raised.value is error
    stop = stopped_with(["frame 9: hums"])
    with caplog.at_level("WARNING"):
        assert taken(Ray(stop), "ref", lambda chunk: None, told.tell) is TURNED_AWAY
    assert [r.getMessage() for r in caplog.records] == ["the lamp flickers", "frame 9: hums"]


def test_forget_says_the_warnings_of_a_chunk_that_ended_whole_and_waits_for_those_begun(
        caplog):
    """A failed render's other chunk that had ended whole (or ends in the wait): its
    warnings were dropped (read as an error's: none, review r1); a chunk the gate says
    never began is not waited for (a batch's other jobs hold the CPUs it waits for: the
    whole batch paused 5 s; it is read when it ends: test_ray_stop)."""
    from hfrender.engine.chunk_warnings import Told
    from hfrender.engine.ray_wait import forget

    class Ray:
        waited = None

        def wait(self, refs, num_returns=1, timeout=None):
            self.waited = list(refs)
            return list(refs), []

        def get(self, ref):
            return {"first": 0, "warnings": [f"{ref}: the lamp flickers"]}

    ray, told = Ray(), Told()
    with caplog.at_level("WARNING"):
        forget(ray, ["whole", "never began"], lambda refs: refs[:1], tell=told.tell)
    assert ray.waited == ["whole"]
    assert [r.getMessage() for r in caplog.records] == ["whole: the lamp flickers"]


def test_a_failed_chunks_warnings_on_ray_are_said_before_its_error(local_ray, tmp_path, caplog,
                                                                  capsys, to_stderr, recwarn):
    """The last chunk (frames 16-23) warns at frame 17 (a log record and warnings.warn),
    then fails at frame 20: its warnings are said, once, before the error's one line, as
    a local run says them (were not: its error alone came back); setup()'s warnings.warn,
    printed by the driver as it prepared, is not said again."""
    path = tmp_path / "shot.py"
    path.write_text(SCENE.format(warn="2.1 < t < 2.2", slow="False", fail="2.45 < t < 2.6",
                                 flag=str(tmp_path / "warned"), waits=0))
    with caplog.at_level("WARNING"):
        assert main(["render", str(path), "-o", str(tmp_path / "o.mp4"), "--size", "32x18",
                     "--samples", "2", "--fps", "8", "--ray", "--quiet"]) == 1
    assert said(caplog, "flickers") == ["the lamp flickers"]
    assert said(caplog, "hums") == [f"{path}:{HUMS}: UserWarning: the bulb hums"]
    assert said(caplog, "setup's own") == []
    err = capsys.readouterr().err.splitlines()
    errors = [i for i, line in enumerate(err) if line.startswith("hfrender: error:")]
    assert len(errors) == 1 and "(output frame 20): ValueError: the lamp broke" in err[errors[0]]
    hums = [i for i, line in enumerate(err) if "the bulb hums" in line]
    assert len(hums) == 1 and hums[0] < errors[0], err
    setup = [w for w in recwarn if "setup's own" in str(w.message)]  # (the driver's)
    assert [(w.filename, w.lineno) for w in setup] == [(str(path), SETUP)]


def test_a_stopped_chunks_warnings_on_ray_are_said_before_the_error(local_ray, tmp_path,
                                                                   caplog, capsys, to_stderr):
    """Chunk 0 fails at frame 6 (once chunk 1 warned, at frame 9), chunk 1
    (frames 8-15, slow from frame 10) is told to stop: what it said comes back with its
    stop, said before the error (was lost)."""
    path = tmp_path / "shot.py"
    path.write_text(SCENE.format(warn="1.1 < t < 1.2", slow="1.2 < t < 2.0",
                                 fail="0.7 < t < 0.85", flag=str(tmp_path / "warned"),
                                 waits=400))
    with caplog.at_level("WARNING"):
        assert main(["render", str(path), "-o", str(tmp_path / "o.mp4"), "--size", "32x18",
                     "--samples", "1", "--fps", "8", "--ray", "--quiet"]) == 1
    assert said(caplog, "flickers") == ["the lamp flickers"]
    assert said(caplog, "hums") == [f"{path}:{HUMS}: UserWarning: the bulb hums"]
    err = capsys.readouterr().err.splitlines()
    errors = [i for i, line in enumerate(err) if line.startswith("hfrender: error:")]
    assert len(errors) == 1 and "(output frame 6): ValueError: the lamp broke" in err[errors[0]]
    assert max(i for i, line in enumerate(err) if "flickers" in line) < errors[0], err


def test_a_failed_batch_jobs_chunk_warnings_begin_with_its_name(local_ray, tmp_path, caplog,
                                                                monkeypatch):
    """In ``batch --ray`` a failed job's chunk's warnings are said, named with the job."""
    (tmp_path / "scenes").mkdir()
    (tmp_path / "scenes" / "shot.py").write_text(SCENE.format(
        warn="2.1 < t < 2.2", slow="False", fail="2.45 < t < 2.6",
        flag=str(tmp_path / "warned"), waits=0))
    (tmp_path / "jobs.toml").write_text(
        '[defaults]\nsize = "32x18"\nsamples = 2\nfps = 8\n\n[[job]]\nname = "lamp"\n'
        'scene = "scenes/shot.py"\noutput = "out/lamp.mp4"\n')
    monkeypatch.chdir(tmp_path)
    with caplog.at_level("WARNING"):
        assert main(["batch", "jobs.toml", "--ray", "--quiet"]) == 1
    assert said(caplog, "flickers") == ["job 'lamp': the lamp flickers"]
    assert said(caplog, "hums") == [
        f"job 'lamp': scenes/shot.py:{HUMS}: UserWarning: the bulb hums"]
