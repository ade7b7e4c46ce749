"""What a render wrangler's trial of `hfrender batch` found: a stale fx output kept as
up-to-date, a scene's sys.exit() ending the batch, a summary over a frame, and the
spellings the commands take (``####``, ``24000/1001``) refused in a jobs file."""

import json
import os
from pathlib import Path

import pytest
from render_helpers import decode_video as decode

from hfrender.cli import main
from hfrender.config import ConfigError
from hfrender.engine.batch import load_jobs, run_job
from hfrender.engine.batch_state import BatchState
from hfrender.errors import InputError

pytestmark = pytest.mark.usefixtures("gl_context")
BAR = Path(__file__).parent / "data" / "bar.frag"

SEQUENCE_THEN_FX = """
[[job]]
name = "frames"
scene = "bar.frag"
output = "frames/####.png"
size = "32x8"
fps = 24
duration = 0.25

[[job]]
name = "blurred"
input = "frames/%04d.png"
output = "out/blurred.mp4"
motion-blur = 2
"""


def write(folder, jobs, shader=None):
    (folder / "bar.frag").write_text(shader or BAR.read_text())
    (folder / "jobs.toml").write_text(jobs)
    return folder / "jobs.toml"


def run(folder, *extra):
    out = folder / "summary.json"
    code = main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "--quiet", *extra])
    return code, {r["name"]: r for r in json.loads(out.read_text())}


def test_an_fx_job_runs_again_when_the_sequence_it_reads_is_made_again(tmp_path):
    write(tmp_path, SEQUENCE_THEN_FX)
    code, first = run(tmp_path)
    assert code == 0 and first["blurred"]["status"] == "done", first["blurred"]["error"]
    assert first["frames"]["output"].endswith("frames/%04d.png")  # #### as --output takes it
    code, again = run(tmp_path)  # the sequence is the one made: neither runs again
    assert again["frames"]["status"] == again["blurred"]["status"] == "up-to-date"
    frame = tmp_path / "frames" / "0002.png"
    frame.unlink()  # a frame gone: the sequence is made again, and what reads it
    code, again = run(tmp_path)
    assert again["frames"]["status"] == "done" and frame.is_file()
    assert again["blurred"]["status"] == "done"  # its frames are new
    dim = BAR.read_text().replace("vec3(on)", "vec3(0.25 * on)")
    write(tmp_path, SEQUENCE_THEN_FX, dim)
    code, changed = run(tmp_path)
    assert changed["blurred"]["status"] == "done"
    assert decode(tmp_path / "out" / "blurred.mp4").max() < 160  # the dim bar's, not 255
    jobs = load_jobs(tmp_path / "jobs.toml")
    key = jobs[1].key()
    assert jobs[1].key() == key  # the same frames: the same key (an up-to-date check)
    frame = tmp_path / "frames" / "0001.png"
    os.utime(frame, ns=(frame.stat().st_atime_ns, frame.stat().st_mtime_ns + 10**9))
    assert jobs[1].key() != key  # a frame made again


def test_an_fx_job_reads_an_earlier_jobs_video_at_its_own_rate(tmp_path):
    """No fps anywhere in the file: the fx job of a render's video took the render's rate
    as a sequence's, and every run failed with "--fps 30 is a PNG sequence's frame rate"."""
    write(tmp_path, SEQUENCE_THEN_FX.replace("frames/####.png", "out/a.mp4")
          .replace("frames/%04d.png", "out/a.mp4").replace("fps = 24\n", ""))
    (tmp_path / "out").mkdir()
    jobs = load_jobs(tmp_path / "jobs.toml")
    assert "fps" not in jobs[1].options
    code, results = run(tmp_path)
    assert code == 0 and results["blurred"]["status"] == "done", results["blurred"]["error"]
    assert results["blurred"]["frames"] == results["frames"]["frames"] == 8  # 0.25 s at 30


EXITS = """
import sys
import hfrender as hf


class Exits(hf.Scene):
    duration = 1.0

    def setup(self):
        self.add(hf.Sphere(radius=0.5))

    def update(self, t):
        if t > 0.5:
            sys.exit(3)
"""


def test_a_scene_that_calls_sys_exit_fails_its_job_alone(tmp_path):
    (tmp_path / "exits.py").write_text(EXITS)
    write(tmp_path, '[defaults]\nsize = "32x18"\nfps = 10\n\n[[job]]\nname = "exits"\n'
                    'scene = "exits.py"\noutput = "out/e.mp4"\n\n[[job]]\nname = "bar"\n'
                    'scene = "bar.frag"\noutput = "out/bar.mp4"\nduration = 0.3\n')
    code, results = run(tmp_path)
    assert code == 1
    assert results["exits"]["status"] == "failed" and results["bar"]["status"] == "done"
    assert "it called sys.exit(3) (" in results["exits"]["error"]
    assert "exits.py:14)" in results["exits"]["error"]
    job = load_jobs(tmp_path / "jobs.toml")[0]
    result = run_job(job, BatchState(tmp_path / "state.json"))
    assert result.status == "failed" and "t=0.5" in result.error


def test_a_summary_over_a_frame_of_a_sequence_output_is_refused(tmp_path, capsys):
    write(tmp_path, SEQUENCE_THEN_FX)
    code = main(["batch", str(tmp_path / "jobs.toml"), "--summary",
                 str(tmp_path / "frames" / "0001.png"), "--quiet"])
    assert code == 2
    err = capsys.readouterr().err
    assert "is a frame of the output of job 'frames'" in err
    assert not (tmp_path / "frames").exists()  # refused before anything ran
    assert main(["batch", str(tmp_path / "jobs.toml"), "--summary",
                 str(tmp_path / "frames" / "00001.png"), "--quiet"]) == 0  # not its name
    assert (tmp_path / "frames" / "0002.png").is_file()  # made by the run just above
    write(tmp_path, SEQUENCE_THEN_FX[SEQUENCE_THEN_FX.index('[[job]]\nname = "blurred"'):])
    code = main(["batch", str(tmp_path / "jobs.toml"), "--summary",
                 str(tmp_path / "frames" / "0002.png"), "--quiet"])
    assert code == 2 and "is a frame of the input of job 'blurred'" in capsys.readouterr().err


def test_a_jobs_file_takes_a_fraction_for_fps_as_the_commands_do(tmp_path):
    write(tmp_path, SEQUENCE_THEN_FX.replace("fps = 24", 'fps = "24000/1001"'))
    jobs = load_jobs(tmp_path / "jobs.toml")
    assert jobs[0].options["fps"] == pytest.approx(24000 / 1001, abs=1e-12)
    write(tmp_path, SEQUENCE_THEN_FX.replace("fps = 24", 'fps = "24/0"'))
    with pytest.raises(ConfigError, match=r"fps = \"24/0\" must be a number or a fraction"):
        load_jobs(tmp_path / "jobs.toml")
    write(tmp_path, SEQUENCE_THEN_FX)
    from hfrender.cli.batch import overrides_of

    assert overrides_of(["--fps", "30000/1001"])[1]["fps"] == pytest.approx(30000 / 1001)
    with pytest.raises(ConfigError, match="^--fps thirty must be a number or a fraction"):  # (was
        #                                                     --fps='thirty')
        overrides_of(["--fps", "thirty"])
    with pytest.raises(InputError):
        load_jobs(tmp_path / "jobs.toml", {"fps": True})


MODEL_SCENE = """
import hfrender as hf


class Model(hf.Scene):
    duration = 0.2

    def setup(self):
        self.add(hf.Mesh.load("tri.obj"))
"""


def test_a_render_job_runs_again_when_a_model_its_scene_loads_changes(tmp_path):
    """Its key is the scene's text: the model file it loads is recorded beside it (the
    README's "touch the scene" did nothing: the key is a checksum, not a time)."""
    pytest.importorskip("trimesh")
    obj = tmp_path / "tri.obj"
    obj.write_text("v -1 -1 0\nv 1 -1 0\nv 0 1 0\nf 1 2 3\n")
    (tmp_path / "model.py").write_text(MODEL_SCENE)
    write(tmp_path, '[[job]]\nname = "model"\nscene = "model.py"\noutput = "out/m.mp4"\n'
                    'size = "32x18"\nfps = 10\n')
    assert run(tmp_path)[1]["model"]["status"] == "done"
    state = json.loads((tmp_path / ".jobs.toml.state.json").read_text())
    assert list(state["model"]["assets"]) == [str(obj.resolve())]
    assert run(tmp_path)[1]["model"]["status"] == "up-to-date"
    obj.write_text("v -1 -1 0\nv 1 -1 0\nv 0 0.5 0\nf 1 2 3\n")  # the model changed
    assert run(tmp_path)[1]["model"]["status"] == "done"
    assert run(tmp_path)[1]["model"]["status"] == "up-to-date"
    obj.unlink()  # gone: the job runs (and fails, saying so)
    code, gone = run(tmp_path)
    assert code == 1 and gone["model"]["status"] == "failed"
    assert "tri.obj: model file not found" in gone["model"]["error"]


def test_a_video_name_with_a_percent_sign_is_a_video(tmp_path):
    out = tmp_path / "speed 100%.mp4"
    assert main(["render", str(BAR), "-o", str(out), "--size", "32x8", "--duration", "0.2",
                 "--quiet"]) == 0
    assert len(decode(out)) == 6


def test_a_gif_above_50_fps_is_warned_of(tmp_path, caplog):
    out = tmp_path / "fast.gif"
    assert main(["render", str(BAR), "-o", str(out), "--size", "32x8", "--duration", "0.1",
                 "--fps", "60", "--quiet"]) == 0
    assert "a GIF at 60 fps: browsers show its frames shorter than 20 ms" in caplog.text
    caplog.clear()
    assert main(["render", str(BAR), "-o", str(out), "--size", "32x8", "--duration", "0.1",
                 "--fps", "50", "--quiet"]) == 0
    assert "GIF" not in caplog.text


def test_batch_v_shows_a_failed_jobs_traceback(tmp_path, capsys, caplog):
    """A failure is told even with --quiet; -v after the file (also after --quiet) adds its
    traceback, as render -v does."""
    import logging

    (tmp_path / "exits.py").write_text(EXITS.replace("sys.exit(3)", "raise ValueError('boom')"))
    write(tmp_path, '[defaults]\nsize = "32x18"\nfps = 10\n\n[[job]]\nname = "boom"\n'
                    'scene = "exits.py"\noutput = "out/e.mp4"\n')
    logging.getLogger().setLevel(logging.WARNING)
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 1
    assert "[1/1] boom: failed: scene error in update(t)" in capsys.readouterr().err
    assert "Traceback" not in caplog.text
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet", "-v"]) == 1
    assert "job 'boom' failed (its traceback, for -v)" in caplog.text
    assert "Traceback" in caplog.text and "ValueError: boom" in caplog.text
    logging.getLogger().setLevel(logging.WARNING)


def test_two_batches_of_one_jobs_file_keep_each_others_records(tmp_path):
    """Each batch read the state file once and wrote it whole: the one that ended last
    dropped the other's records, and its jobs ran again next time."""
    write(tmp_path, '[defaults]\nsize = "32x8"\nfps = 24\nduration = 0.2\n\n[[job]]\n'
                    'name = "a"\nscene = "bar.frag"\noutput = "out/a.mp4"\n\n[[job]]\n'
                    'name = "b"\nscene = "bar.frag"\noutput = "out/b.mp4"\n')
    jobs = load_jobs(tmp_path / "jobs.toml")
    first, second = (BatchState.load(tmp_path / "jobs.toml") for _ in range(2))
    assert run_job(jobs[0], first).status == "done"
    assert run_job(jobs[1], second).status == "done"  # its state had not read a's record
    again = BatchState.load(tmp_path / "jobs.toml")
    assert [run_job(j, again).status for j in jobs] == ["up-to-date", "up-to-date"]


HELPER = '''
import hfrender as hf

TRI = hf.Mesh.load("tri.obj")
'''

HELPED = """
import hfrender as hf
from props import TRI


class Helped(hf.Scene):
    duration = 0.2

    def setup(self):
        self.add(TRI)
"""


def test_a_model_loaded_by_a_helper_module_is_recorded_for_every_job(tmp_path):
    """A helper module is imported once a process: a second job's scene loads nothing, yet
    holds the model (a review found it kept up-to-date after the model changed)."""
    pytest.importorskip("trimesh")
    obj = tmp_path / "tri.obj"
    obj.write_text("v -1 -1 0\nv 1 -1 0\nv 0 1 0\nf 1 2 3\n")
    (tmp_path / "props.py").write_text(HELPER)
    (tmp_path / "helped.py").write_text(HELPED)
    write(tmp_path, '[defaults]\nsize = "32x18"\nfps = 10\n\n[[job]]\nname = "a"\n'
                    'scene = "helped.py"\noutput = "out/a.mp4"\n\n[[job]]\nname = "b"\n'
                    'scene = "helped.py"\noutput = "out/b.mp4"\n')
    code, first = run(tmp_path)
    assert code == 0 and [r["status"] for r in first.values()] == ["done", "done"]
    obj.write_text("v -1 -1 0\nv 1 -1 0\nv 0 0.5 0\nf 1 2 3\n")
    code, again = run(tmp_path)
    assert [r["status"] for r in again.values()] == ["done", "done"]


def test_a_scene_that_exits_while_samples_auto_probes_it_fails_its_job(tmp_path):
    (tmp_path / "exits.py").write_text(EXITS)
    write(tmp_path, '[defaults]\nsize = "32x18"\nfps = 10\n\n[[job]]\nname = "exits"\n'
                    'scene = "exits.py"\noutput = "out/e.mp4"\nsamples = "auto"\n\n'
                    '[[job]]\nname = "bar"\nscene = "bar.frag"\noutput = "out/bar.mp4"\n'
                    'duration = 0.3\n')
    code, results = run(tmp_path)
    assert code == 1 and results["bar"]["status"] == "done"
    assert results["exits"]["status"] == "failed"
    assert "it called sys.exit(3)" in results["exits"]["error"]


def test_a_jobs_warnings_name_the_job(tmp_path, caplog):
    """A batch's log said a job's warning between two jobs' lines, whose it was unsaid."""
    (tmp_path / "jobs.toml").write_text(
        f'[[job]]\nname = "fast 50%"\nscene = "{BAR}"\noutput = "fast.gif"\nfps = 60\n'
        'size = "32x8"\nduration = 0.1\n'
        f'[[job]]\nname = "calm"\nscene = "{BAR}"\noutput = "calm.gif"\nfps = 10\n'
        'size = "32x8"\nduration = 0.1\n')
    with caplog.at_level("WARNING"):
        assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records]
    assert told == ["job 'fast 50%': a GIF at 60 fps: browsers show its frames shorter than 20 ms "
                    "for 100 ms: the clip plays slower; --fps 50 or less keeps its speed"]
    caplog.clear()
    with caplog.at_level("WARNING"):
        assert main(["render", str(BAR), "-o", str(tmp_path / "alone.gif"), "--size", "32x8",
                     "--duration", "0.1", "--fps", "60", "--quiet"]) == 0
    assert [r.getMessage() for r in caplog.records][0].startswith("a GIF at 60 fps")
