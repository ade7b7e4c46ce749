"""On Ray, the files a scene reads after setup() (a font update(t) gives from t = 1 s on):
each chunk says which its scene read, and the driver's manifest names them before it keeps
the chunk's segment, so a changed one is seen by --resume (was: only setup()'s were named,
and a resumed render mixed two fonts); one outside the scene's folder (not sent to the
workers) is refused in one line."""

import json
import shutil

import pytest
from font_helpers import DEJAVU, MONO, REFUSED
from font_helpers import late_font_scene as scene
from render_helpers import batch_status

from hfrender.cli import main
from hfrender.engine import cluster
from hfrender.io.segments import work_dir

pytest.importorskip("ray", reason="the ray extra: bash dev.sh test installs it")
pytestmark = pytest.mark.usefixtures("gl_context")

ARGS = ["--size", "32x18", "--samples", "1", "--fps", "8", "--granularity", "8", "--quiet"]


def test_a_ray_renders_manifest_names_a_late_font_and_resume_sees_it_changed(
        local_ray, tmp_path, monkeypatch, capsys):
    """Stopped before the join (every segment kept): the manifest names two.ttf, which the
    chunks of frames 8-23 read; changed, a local --resume is refused in the local line (was:
    the segments joined, two fonts mixed); as it was, --ray goes on from every segment."""
    path, out = scene(tmp_path), tmp_path / "o.mp4"
    args = ["render", str(path), "-o", str(out), *ARGS]

    def stopped(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(cluster.ClusterRender, "finish", stopped)
    assert main([*args, "--ray"]) == 130
    monkeypatch.undo()
    kept = json.loads((work_dir(out) / "manifest.json").read_text())
    assert [s["count"] for s in kept["segments"]] == [8, 8, 8]
    assert sorted(kept["settings"]["scene_files"]) == ["one.ttf", "two.ttf"]
    shutil.copy(MONO, tmp_path / "two.ttf")
    capsys.readouterr()
    assert main([*args, "--resume"]) == 2
    assert capsys.readouterr().err == REFUSED
    assert not out.exists() and (work_dir(out) / "manifest.json").is_file()
    shutil.copy(DEJAVU, tmp_path / "two.ttf")  # as it was: the same command goes on
    stats = cluster.ClusterRender(path, _config(out)).prepare().run()
    assert (stats.segments_reused, stats.segments_made) == (3, 0) and out.is_file()


def _config(out):
    from hfrender.config import RenderConfig

    return RenderConfig(output=str(out), size=(32, 18), samples=1, fps=8, granularity=8,
                        quiet=True)


def _outside(tmp_path, when):
    """The scene in tmp_path/shot, its Text in tmp_path/fonts/late.ttf (outside its
    folder, not sent to the workers) ``when``: the line refusing it, up to its kind."""
    (tmp_path / "fonts").mkdir()
    late = tmp_path / "fonts" / "late.ttf"
    shutil.copy(DEJAVU, late)
    path = scene(tmp_path / "shot", repr(str(late)), when)
    return path, f"hfrender: error: --ray: the scene loads {late}"


def test_a_late_font_outside_the_scenes_folder_is_refused_before_any_work(local_ray,
                                                                        tmp_path, capsys):
    """A font update(t) gives from t = 1 s on from outside the scene's folder (was drawn,
    where the workers had the file: on a cluster they would not): refused at once, as one
    setup() gives, nothing made."""
    path, line = _outside(tmp_path, "t >= 1")
    out = tmp_path / "shot" / "o.mp4"
    assert main(["render", str(path), "-o", str(out), *ARGS, "--ray"]) == 2
    assert capsys.readouterr().err == (
        f"{line}, outside its folder {tmp_path / 'shot'} (only that folder, hidden files left "
        "out, goes to the workers); put the font in it, or render without --ray\n")
    assert sorted(f.name for f in out.parent.iterdir()) == ["fonts.py", "one.ttf", "two.ttf"]


def test_a_font_outside_given_between_the_drivers_looks_is_refused_with_its_chunk(
        local_ray, tmp_path, capsys):
    """Given at frame 9 alone (t = 1.125 s; the driver looks at frames 0, 3, 7, 10, ...):
    the chunk of frames 8-15 says its scene read it, and the run stops in one line naming
    it before that chunk is kept (was: drawn, the worker having the file)."""
    path, line = _outside(tmp_path, "1.1 <= t < 1.2")
    out = tmp_path / "shot" / "o.mp4"
    assert main(["render", str(path), "-o", str(out), *ARGS, "--ray"]) == 2
    assert capsys.readouterr().err == (
        f"{line} in update(t) (at frames 8..15), outside its folder {tmp_path / 'shot'} (only "
        "that folder, hidden files left out, goes to the workers); put the file in it, or "
        "render without --ray\n")
    assert not out.exists()
    manifest = work_dir(out) / "manifest.json"
    if manifest.is_file():  # the other chunks' segments, kept for the next run
        kept = json.loads(manifest.read_text())
        assert 8 not in [s["first"] for s in kept["segments"]]
        assert sorted(kept["settings"]["scene_files"]) == ["one.ttf"]


def test_a_ray_batch_job_is_made_again_when_a_font_only_its_chunks_read_changed(
        local_ray, tmp_path):
    """A font update(t) gives for 1 <= t < 2 alone, which the driver's scene never drew:
    the job's record stamps it from its chunks' word (was: changed, the job stayed up to
    date)."""
    scene(tmp_path, "'two.ttf'", "1 <= t < 2")
    (tmp_path / "jobs.toml").write_text(
        '[[job]]\nname = "f"\nscene = "fonts.py"\noutput = "o.mp4"\nsize = "32x18"\n'
        'samples = 1\nfps = 8\n')

    def status():
        return batch_status(tmp_path / "jobs.toml", "--ray")

    assert status() == "done" and status() == "up-to-date"
    shutil.copy(MONO, tmp_path / "two.ttf")
    assert status() == "done"


def test_a_ray_sequences_kept_frames_are_kept_with_their_late_font_named(local_ray, tmp_path,
                                                                          monkeypatch, capsys):
    """A PNG sequence on Ray stopped as by kill -9 (the driver gone before it could clear
    its hidden folder) once two of its three chunks are kept: the folder's manifest names
    two.ttf, which frames 8-23 read, so a local --resume with it changed is refused (was:
    named in the driver's memory alone, the manifest on disk had setup()'s one.ttf, and the
    resumed sequence mixed two fonts). Stopped at the second chunk kept, whichever it is
    (was: once 0 and 8 were, which came after 16 as often as not: the sequence complete),
    and again at a third come back meanwhile (kept before its stop: was taken as the rest
    of the work, the sequence whole, the run ended 0 under load, CI of 36dcec5)."""
    path, out = scene(tmp_path), tmp_path / "seq" / "f_%04d.png"
    real, kept = cluster.ClusterRender.accept, set()

    def accept(self, chunk):
        real(self, chunk)
        kept.add(chunk["first"])
        if len(kept) >= 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(cluster.ClusterRender, "accept", accept)
    monkeypatch.setattr(cluster.ClusterRender, "abandon", lambda self: None)  # as kill -9
    assert main(["render", str(path), "-o", str(out), *ARGS, "--ray"]) == 130
    monkeypatch.undo()
    hidden = out.parent / ".f_####.png.partial"
    assert {f"f_{a + k:04d}.png" for a in kept for k in range(8)} <= {
        f.name for f in hidden.iterdir()}
    files = json.loads((hidden / "manifest.json").read_text())["settings"]["scene_files"]
    assert sorted(files) == ["one.ttf", "two.ttf"]
    shutil.copy(MONO, tmp_path / "two.ttf")
    capsys.readouterr()
    assert main(["render", str(path), "-o", str(out), *ARGS, "--resume"]) == 2
    assert capsys.readouterr().err == REFUSED
