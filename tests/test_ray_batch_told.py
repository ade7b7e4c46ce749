"""What ``batch --ray`` tells, said as the batch here says it: a scene's line by its path
from where the command ran, the whole batch's frames with an up-to-date job's counted."""

import re
import textwrap
from pathlib import Path

import pytest

from hfrender.cli import main
from hfrender.engine.batch import load_jobs
from hfrender.engine.batch_state import BatchState

SCENE = textwrap.dedent("""
    import math
    import hfrender as hf

    class Swing(hf.Scene):
        duration = 1.0
        def setup(self):
            self.box = self.add(hf.Cube(color="orange"))
        def update(self, t):
            assert t < {limit}, "broken scene"
            self.box.position = (math.sin(3 * t), 0, 0)
""")
JOB = '[[job]]\nname = "{name}"\nscene = "scenes/{name}.py"\noutput = "out/{name}.mp4"\n\n'


def jobs_file(folder, **limits):
    """``folder/jobs.toml`` of a job for each of ``limits`` (its scene's update(t) fails
    from that t on), the scenes in ``folder/scenes``."""
    (folder / "scenes").mkdir(exist_ok=True)
    text = '[defaults]\nsize = "32x18"\nsamples = 2\nfps = 24\n\n'
    for name, limit in limits.items():
        (folder / "scenes" / f"{name}.py").write_text(SCENE.format(limit=limit))
        text += JOB.format(name=name)
    (folder / "jobs.toml").write_text(text)
    return folder / "jobs.toml"


@pytest.mark.parametrize("scene,sent,said", [
    ("scenes/boom.py", ("boom.py", "scenes/"), "scenes/boom.py:3"),
    ("boom.py", ("boom.py", ""), "boom.py:3"), ("./boom.py", ("boom.py", ""), "boom.py:3"),
    ("/my shots/boom.py", ("boom.py", "/my shots/"), "/my shots/boom.py:3")])
def test_a_chunks_error_names_its_files_in_the_folder_shown(scene, sent, said):
    """The driver sends the scene file's name and its folder as shown (the worker parses
    no driver path: was Path(scene).name there, a review)."""
    from hfrender.engine.chunk_dir import chunk_dir, scene_sent

    assert scene_sent(Path(scene)) == sent
    with pytest.raises(RuntimeError) as e, chunk_dir(within=sent[1]) as tmp:
        raise RuntimeError(f"boom ({tmp}/{sent[0]}:3)", 7)
    assert e.value.args == (f"boom ({said})", 7)


def test_a_windows_drivers_folder_is_shown_as_sent():
    from hfrender.engine.chunk_dir import chunk_dir

    with pytest.raises(RuntimeError) as e, chunk_dir(within="C:\\shots\\") as tmp:
        raise RuntimeError(f"boom ({tmp}/boom.py:3)")
    assert e.value.args == ("boom (C:\\shots\\boom.py:3)",)


def test_a_scenes_line_on_ray_is_named_from_where_the_batch_ran(local_ray, tmp_path,
                                                                 monkeypatch, capsys):
    """Here the scene's line is ``(scenes/boom.py:10)``, the path from the folder the
    command ran in; on Ray it was ``(boom.py:10)``, from the scene's folder on the worker."""
    told = {}
    for where in ("here", "ray"):
        (tmp_path / where).mkdir()
        monkeypatch.chdir(tmp_path / where)
        jobs_file(tmp_path / where, boom=0.5)
        ray = ["--ray"] if where == "ray" else []
        assert main(["batch", "jobs.toml", *ray, "--quiet"]) == 1
        err = capsys.readouterr().err
        line = re.search(r"\[1/1\] boom: failed: scene error in update\(t\) at t=[\d.]+ s "
                         r"\(output frame \d+\): AssertionError: broken scene \((.*?)\)", err)
        told[where] = line.group(1) if line else err
    assert told == {"here": "scenes/boom.py:10", "ray": "scenes/boom.py:10"}


def test_an_up_to_date_jobs_frames_count_on_the_ray_bar(local_ray, tmp_path):
    """Run again with one job up to date, the bar over the cluster's jobs counted its frames
    in neither the done nor the whole (was 24/24 at the end; here the batch counts them
    done: 48/48)."""
    from hfrender.engine.batch import run_job
    from hfrender.engine.batch_ray import run_batch_on_ray

    path = jobs_file(tmp_path, kept=9, new=9)
    jobs = load_jobs(path)
    assert run_job(jobs[0], BatchState.load(path)).status == "done"  # (here: the same record)
    told = []
    results = run_batch_on_ray(jobs, BatchState.load(path), None,
                               progress=lambda done, total: told.append((done, total)))
    assert [r.status for r in results] == ["up-to-date", "done"]
    assert told[0] == (24, 48) and told[-1] == (48, 48), told
