"""Rendering on Ray, again and on: a worker killed mid-chunk is retried (and the summary
says so), a killed or interrupted driver resumes, and segments made on Ray go on here with
--resume."""

import numpy as np
import pytest
from ray_scene_helpers import dying_scene, slow_scene
from render_helpers import decode_video as decoded

from hfrender.cli import main
from hfrender.cli.common import ray_retries
from hfrender.config import RenderConfig
from hfrender.engine import cluster
from hfrender.engine.render import render
from hfrender.io.segments import work_dir

ray = pytest.importorskip("ray", reason="the ray extra: bash dev.sh test installs it")


@pytest.mark.parametrize("ctrl_c", [1, 2])
def test_the_command_line_and_a_killed_driver_that_resumes(local_ray, tmp_path, monkeypatch,
                                                             capsys, caplog, ctrl_c):
    """Ctrl-C after the first of 4 segments, with 2 CPUs: the tasks not started are
    cancelled, the 2 running are kept ("stopping after the work in progress"; was: thrown
    away); a second Ctrl-C, as the next one comes in, stops at once."""
    scene = slow_scene(tmp_path, 0.0)
    out = tmp_path / "cli.mp4"
    args = ["render", str(scene), "-o", str(out), "--size", "32x18", "--samples", "2",
            "--duration", "4", "--ray"]
    real, kept = cluster.ClusterRender._keep, []

    def stop(self, manifest, chunk):
        real(self, manifest, chunk)
        kept.append(chunk["first"])
        if len(kept) <= ctrl_c:
            raise KeyboardInterrupt  # the driver is interrupted as it keeps a segment

    monkeypatch.setattr(cluster.ClusterRender, "_keep", stop)
    code = main(args)
    err = capsys.readouterr().err
    if ctrl_c == 1 and len(kept) == 4 and code == 0:  # (a loaded machine: every chunk had
        # started when the Ctrl-C was handled; none cancelled: the work whole, joined)
        assert out.exists() and "the interruption came after the last frame was made" in err
        return
    assert code == 130
    # those that began before the Ctrl-C was handled (1 or 2: the next may not have begun
    # as the first ended), and (a slow machine) the last one too if it ended before;
    # a second Ctrl-C as the next comes in
    assert not out.exists() and len(kept) in ((2, 3, 4) if ctrl_c == 1 else (2,))
    assert f"interrupted: the {len(kept)} finished segments of {out} are kept; run the " \
        "same command again to go on" in err, err
    monkeypatch.setattr(cluster.ClusterRender, "_keep", real)
    caplog.clear()
    with caplog.at_level("WARNING", logger="hfrender"):
        assert main([*args, "--stats"]) == 0
    said = capsys.readouterr().out
    made = 4 - len(kept)
    # --stats on Ray: the sub-frames this run's chunks drew, 30 frames x 2 each (was: none)
    assert f"sub-frames drawn: {made * 30 * 2} (by the workers)\n" in said, said
    assert "wrote" in said and f"{made} segment{'' if made == 1 else 's'} rendered, " \
        f"{len(kept)} reused" in said, said
    assert not [r for r in caplog.records if "over:" in r.getMessage()]  # joined, not lost
    render(scene, RenderConfig(output=str(tmp_path / "local.mp4"), size=(32, 18), samples=2,
                               duration=4.0, quiet=True))
    np.testing.assert_array_equal(decoded(out), decoded(tmp_path / "local.mp4"))


def test_a_ray_render_interrupted_before_any_segment_says_nothing_is_kept(local_ray, tmp_path,
                                                                         monkeypatch, capsys):
    """Ctrl-C twice before any segment is kept: it says so (it said "the finished segments
    are kept"), and no work folder of no frames is left."""
    scene = slow_scene(tmp_path, 0.0)
    out = tmp_path / "none.mp4"

    def stop(self, manifest, chunk):
        raise KeyboardInterrupt  # each time, before the segment is kept

    monkeypatch.setattr(cluster.ClusterRender, "_keep", stop)
    assert main(["render", str(scene), "-o", str(out), "--size", "32x18", "--samples", "1",
                 "--duration", "4", "--ray"]) == 130
    assert f"interrupted: no segment of {out} was finished; nothing is kept" in \
        capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == [scene.name]


def test_a_worker_killed_mid_chunk_is_retried(local_ray, tmp_path):
    scene, mark = dying_scene(tmp_path)  # 90 frames x 2 samples, a segment a second
    config = RenderConfig(output=str(tmp_path / "k.mp4"), size=(32, 18), samples=2,
                          quiet=True)
    stats = cluster.ClusterRender(scene, config).prepare().run()
    assert mark.exists() and stats.frames == 90
    # counted: Ray ran the chunk again (was: said nowhere); the sub-frames of the chunks
    # that came back (the lost attempt's never did)
    assert stats.reruns == 1 and stats.retries == 0 and stats.subframes == 90 * 2
    assert ray_retries(stats) == "; Ray ran a chunk again (a worker lost)"
    render(scene, config.with_(output=str(tmp_path / "local.mp4")))
    assert (tmp_path / "k.mp4").read_bytes() == (tmp_path / "local.mp4").read_bytes()


@pytest.mark.parametrize("reruns, retries, said", [
    (0, 0, ""), (2, 0, "; Ray ran chunks again 2 times (workers lost)"),
    (0, 1, "; 1 hyperframe split for memory"),
    (1, 3, "; Ray ran a chunk again (a worker lost); 3 hyperframes split for memory")])
def test_a_ray_summary_says_what_was_done_again(reruns, retries, said):
    """The gate counts runs, not chunks: 2 may be one chunk run twice more (a review: it
    was "Ray ran 2 chunks again")."""
    stats = cluster.ClusterStats("o.mp4", reruns=reruns, retries=retries)
    assert ray_retries(stats) == said


def test_a_render_stopped_on_ray_resumes_here_when_its_segments_were_made_alike(
        local_ray, tmp_path, monkeypatch, capsys):
    """Each chunk says which GL drew it and which backend fused it; a local --resume goes
    on from a Ray run whose segments all match this machine's (was: "the settings changed
    (backend auto -> cpu; gl-renderer ray -> llvmpipe ...)", the user having changed
    nothing), and is refused where one segment was made otherwise."""
    import json

    scene = slow_scene(tmp_path, 0.0)
    out = tmp_path / "o.mp4"
    args = ["render", str(scene), "-o", str(out), "--size", "32x18", "--samples", "2",
            "--duration", "8", "--quiet"]  # 8 segments: some left
    real = cluster.ClusterRender._keep

    def stop(self, manifest, chunk):  # once frame 0's segment is kept (the first chunk,
        real(self, manifest, chunk)  # which looks over the clip for the motion hint, may
        if any(seg["first"] == 0 for seg in manifest.segments):  # end after others)
            monkeypatch.setattr(cluster.ClusterRender, "_keep", real)
            raise KeyboardInterrupt

    monkeypatch.setattr(cluster.ClusterRender, "_keep", stop)
    assert main([*args, "--ray"]) == 130
    kept = out.parent / ".o.mp4.hfrender" / "manifest.json"
    manifest = json.loads(kept.read_text())
    assert {seg["backend"] for seg in manifest["segments"]} == {"cpu"}
    other = json.loads(kept.read_text())
    other["segments"][0]["gl"] = "another GPU"
    kept.write_text(json.dumps(other))
    capsys.readouterr()
    assert main([*args, "--resume"]) == 2
    assert "--resume: the settings changed since the interrupted render (backend auto -> " \
        "cpu; gl-renderer ray -> " in capsys.readouterr().err
    kept.write_text(json.dumps(manifest))
    assert main([*args[:-1], "--resume"]) == 0
    first = 0  # the kept segments' run from frame 0 (a later one past a gap is not it)
    for seg in sorted(manifest["segments"], key=lambda seg: seg["first"]):
        first += seg["count"] if seg["first"] == first else 0
    assert f"resumed at frame {first}" in capsys.readouterr().out and 0 < first < 240
    render(scene, RenderConfig(output=str(tmp_path / "local.mp4"), size=(32, 18), samples=2,
                               duration=8.0, quiet=True))
    assert out.read_bytes() == (tmp_path / "local.mp4").read_bytes()


@pytest.mark.parametrize("ray_frames, local_frames", [
    ([], []),
    (["--frames", ":"], []),  # the whole render, given as a range or not
    ([], ["--frames", "0:"]),
    (["--frames", "24:200"], ["--frames", "24:200"]),  # a range: its settings' total was
    (["--frames", "24:"], ["--frames", "24:"]),         # the range's on Ray, the whole here
])
def test_a_ray_runs_segments_go_on_here_with_resume(local_ray, tmp_path, monkeypatch, capsys,
                                                    ray_frames, local_frames):
    """A review: a range's segments made on Ray were refused by a local --resume of the
    same command ("total-frames 176 -> 240")."""
    scene = slow_scene(tmp_path, 0.0)
    out = tmp_path / "o.mp4"
    args = ["render", str(scene), "-o", str(out), "--size", "32x18", "--samples", "2",
            "--duration", "8", "--quiet"]
    real = cluster.ClusterRender._keep

    def stop(self, manifest, chunk):  # a Ctrl-C once the first chunk is kept
        real(self, manifest, chunk)
        monkeypatch.setattr(cluster.ClusterRender, "_keep", real)
        raise KeyboardInterrupt

    monkeypatch.setattr(cluster.ClusterRender, "_keep", stop)
    assert main([*args, *ray_frames, "--ray"]) == 130
    capsys.readouterr()
    assert main([*args, *local_frames, "--resume"]) == 0, capsys.readouterr().err
    assert out.exists() and not work_dir(out).exists()


def test_a_ray_run_goes_on_with_the_segments_its_interrupted_run_cut(local_ray, tmp_path,
                                                                      monkeypatch):
    """A review: a run stopped before its join at --granularity 24 (segments of 36 frames)
    went on at --granularity 16 cutting segments of 32 anew, and the join took both: 147
    frames for 90. It cuts them as the interrupted run did: the output is a run's in one go
    at --granularity 24, bit for bit."""
    import json

    scene = slow_scene(tmp_path, 0.0)
    out = tmp_path / "o.mp4"
    args = ["render", str(scene), "-o", str(out), "--ray", "--size", "32x18", "--samples",
            "2", "--duration", "3", "--quiet"]

    def stopped(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(cluster.ClusterRender, "finish", stopped)
    assert main([*args, "--granularity", "24"]) == 130
    manifest = json.loads((tmp_path / ".o.mp4.hfrender" / "manifest.json").read_text())
    assert manifest["segment_frames"] == 36 and len(manifest["segments"]) == 3
    monkeypatch.undo()
    assert main([*args, "--granularity", "16"]) == 0
    whole = tmp_path / "whole.mp4"
    assert main(["render", str(scene), "-o", str(whole), "--size", "32x18", "--samples", "2",
                 "--duration", "3", "--granularity", "24", "--quiet"]) == 0
    np.testing.assert_array_equal(decoded(out), decoded(whole))  # (its keyframes too)
