"""Batches on Ray (``batch --ray``): the chunks of every job, the chunks Ray ran again, a
Ctrl-C that says what each job kept, a job too large for Ray run here, a failed job's folders
taken back, a job made again when a file its scene read changed."""

import numpy as np
import pytest
from ray_scene_helpers import dying_scene, slow_scene
from render_helpers import decode_video as decoded

from hfrender.cli import main
from hfrender.engine import cluster

ray = pytest.importorskip("ray", reason="the ray extra: bash dev.sh test installs it")


def test_a_batch_on_ray_counts_the_chunks_ray_ran_again(local_ray, tmp_path):
    """A worker killed mid-chunk in ``batch --ray``: the summary's retries say 1 (was 0 on
    Ray, whatever Ray ran again), the job done."""
    import json

    scene, mark = dying_scene(tmp_path)
    (tmp_path / "jobs.toml").write_text('[defaults]\nsize = "32x18"\nsamples = 2\n\n'
                                        '[[job]]\nname = "a"\nscene = "slow.py"\n'
                                        'output = "a.mp4"\n')
    assert main(["batch", str(tmp_path / "jobs.toml"), "--ray", "--summary",
                 str(tmp_path / "s.json"), "--quiet"]) == 0
    (result,) = json.loads((tmp_path / "s.json").read_text())
    assert mark.exists() and (result["status"], result["frames"], result["retries"]) == \
        ("done", 90, 1)


BATCH = """
[defaults]
size = "32x18"
samples = 2

[[job]]
name = "a"
scene = "slow.py"
output = "out/a.mp4"
duration = 2.0

[[job]]
name = "b"
scene = "slow.py"
output = "out/b.mp4"
shutter = 540

[[job]]
name = "broken"
scene = "broken.py"
output = "out/broken.mp4"

[[job]]
name = "seq"
scene = "slow.py"
output = "out/seq/%03d.png"
duration = 0.2

[[job]]
name = "clear"
scene = "slow.py"
output = "out/clear/%03d.png"
duration = 0.1
transparent = true
bit-depth = 16

[[job]]
name = "smooth"
input = "clip.mp4"
output = "out/smooth.mp4"
motion-blur = 3
"""


def _two_batch_folders(tmp_path):
    """ray/ and local/ under ``tmp_path``, each with the slow scene, a broken one (failing
    from t = 1 s), BATCH as jobs.toml and a 40-frame clip.mp4."""
    import subprocess

    import imageio_ffmpeg

    for name in ("ray", "local"):
        folder = tmp_path / name
        folder.mkdir()
        slow_scene(folder, 0.0)
        (folder / "broken.py").write_text(
            (folder / "slow.py").read_text().replace("time.sleep(0.0)",
                                                     "assert t < 1.0, 'broken scene'"))
        (folder / "jobs.toml").write_text(BATCH)
        subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                        "-f", "lavfi", "-i", "testsrc=size=32x18:rate=30", "-frames:v", "40",
                        "-pix_fmt", "yuv420p", str(folder / "clip.mp4")], check=True)


def _assert_the_same_frames(tmp_path):
    """The sequence job's 6 frames and the transparent job's 3: Ray's pixels as here's."""
    import imageio.v3 as iio

    for i in range(6):  # the sequence job, on Ray too: the same pixels
        np.testing.assert_array_equal(iio.imread(tmp_path / "ray" / "out" / "seq" / f"{i:03d}.png"),
                                      iio.imread(tmp_path / "local" / "out" / "seq" /
                                                 f"{i:03d}.png"))
    for i in range(3):  # not on Ray yet, so in the driver (was: failed, at run time)
        np.testing.assert_array_equal(
            iio.imread(tmp_path / "ray" / "out" / "clear" / f"{i:03d}.png"),
            iio.imread(tmp_path / "local" / "out" / "clear" / f"{i:03d}.png"))


def test_a_batch_on_ray_runs_the_chunks_of_every_job(local_ray, tmp_path):
    import json

    _two_batch_folders(tmp_path)
    args = ["--summary", "s.json", "--quiet"]
    assert main(["batch", str(tmp_path / "ray" / "jobs.toml"), "--ray", *args[:1],
                 str(tmp_path / "ray" / "s.json"), args[2]]) == 1
    assert main(["batch", str(tmp_path / "local" / "jobs.toml"), *args[:1],
                 str(tmp_path / "local" / "s.json"), args[2]]) == 1
    ray_r = {r["name"]: r for r in json.loads((tmp_path / "ray" / "s.json").read_text())}
    local_r = {r["name"]: r for r in json.loads((tmp_path / "local" / "s.json").read_text())}
    assert [r["status"] for r in ray_r.values()] == ["done", "done", "failed", "done", "done",
                                                    "done"]
    _assert_the_same_frames(tmp_path)
    assert "broken scene" in ray_r["broken"]["error"]
    assert ray_r["broken"]["error"].endswith(  # not the worker's path; as the batch here
        f"broken scene ({tmp_path / 'ray' / 'broken.py'}:10)")  # names it (was: broken.py:10)
    assert ray_r["a"]["frames"] == 60 and ray_r["b"]["segments_made"] == 3
    assert ray_r["smooth"]["frames"] == 40 and ray_r["smooth"]["segments_made"] == 1
    for job in ("a", "b"):  # the same bits as the batch run here
        assert (tmp_path / "ray" / "out" / f"{job}.mp4").read_bytes() == \
            (tmp_path / "local" / "out" / f"{job}.mp4").read_bytes()
    # here a clip shorter than a segment is written in one piece, on Ray as one segment
    np.testing.assert_array_equal(decoded(tmp_path / "ray" / "out" / "smooth.mp4"),
                                  decoded(tmp_path / "local" / "out" / "smooth.mp4"))
    assert local_r["broken"]["status"] == "failed"
    assert main(["batch", str(tmp_path / "ray" / "jobs.toml"), "--ray", "--summary",
                 str(tmp_path / "ray" / "again.json"), "--quiet"]) == 1
    again = json.loads((tmp_path / "ray" / "again.json").read_text())
    assert [r["status"] for r in again] == ["up-to-date", "up-to-date", "failed",
                                            "up-to-date", "up-to-date",
                                            "up-to-date"]  # the sequences too
    from hfrender.io.output_lock import output_lock

    with output_lock(str(tmp_path / "ray" / "out" / "broken.mp4")):  # another run writes it
        assert main(["batch", str(tmp_path / "ray" / "jobs.toml"), "--ray", "--summary",
                     str(tmp_path / "ray" / "busy.json"), "--quiet"]) == 1
    busy = {r["name"]: r for r in json.loads((tmp_path / "ray" / "busy.json").read_text())}
    assert busy["broken"]["error"].startswith(
        f"output {tmp_path / 'ray' / 'out' / 'broken.mp4'}: another hfrender (pid ")


def test_a_batch_on_ray_stopped_by_ctrl_c_says_what_each_job_kept(local_ray, tmp_path,
                                                                    monkeypatch):
    """Ctrl-C as the first chunk comes back: the running chunks end and are kept (the
    video's segments), the table counts them (was: 0 frames, 0/0 segments), and a
    sequence's frames go, as render --ray's do (were: left in a hidden folder, and the
    rerun made them again)."""
    import json

    slow_scene(tmp_path, 0.0)
    (tmp_path / "jobs.toml").write_text(
        '[defaults]\nsize = "32x18"\nsamples = 2\n\n'
        '[[job]]\nname = "video"\nscene = "slow.py"\noutput = "out/v.mp4"\nduration = 4.0\n\n'
        '[[job]]\nname = "frames"\nscene = "slow.py"\noutput = "out/seq/%03d.png"\n'
        'duration = 4.0\n')
    real, seen = cluster.ClusterRender.accept, []

    def stop_once(self, chunk):
        real(self, chunk)
        seen.append(chunk["first"])
        if len(seen) == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(cluster.ClusterRender, "accept", stop_once)
    summary = tmp_path / "s.json"
    assert main(["batch", str(tmp_path / "jobs.toml"), "--ray", "--summary", str(summary),
                 "--quiet"]) == 130
    rows = {r["name"]: r for r in json.loads(summary.read_text())}
    # a job whose chunks had all ended by the time the Ctrl-C was handled is done (a slow
    # machine: the first chunk's keeping outlasted the others); the rest are interrupted
    assert "interrupted" in {r["status"] for r in rows.values()}
    video, seq = rows["video"], rows["frames"]
    if video["status"] == "done":
        assert len(decoded(tmp_path / "out" / "v.mp4")) == 120
    else:
        manifest = json.loads((tmp_path / "out" / ".v.mp4.hfrender" / "manifest.json")
                              .read_text())
        kept = manifest["segments"]
        assert video["segments_made"] == len(kept) >= 2  # the first, those running with it
        assert video["frames"] == sum(g["count"] for g in kept) < 120
        assert video["frames_made"] == video["frames"]
    if seq["status"] == "done":
        assert len(list((tmp_path / "out" / "seq").glob("*.png"))) == 120
    else:
        assert seq["frames"] == seq["segments_made"] == 0
        folder = tmp_path / "out" / "seq"  # no hidden frames (its folder, made for them,
        assert not folder.exists() or list(folder.iterdir()) == []  # taken back or empty)


def test_a_batch_job_whose_folder_is_too_large_for_ray_runs_here_said(local_ray, tmp_path,
                                                                      monkeypatch, caplog):
    """A scene folder past what is sent to the workers failed its job mid-batch; it runs
    in the driver, as a job Ray does not take does, and that is said (was: unsaid)."""
    # the scene file alone is past it
    monkeypatch.setattr("hfrender.engine.chunk_dir.WORKING_DIR_LIMIT", 100)
    slow_scene(tmp_path, 0.0)
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "big"\nscene = "slow.py"\n'
                                        'output = "o.mp4"\nsize = "32x18"\nsamples = 1\n'
                                        'duration = 0.2\n')
    with caplog.at_level("WARNING"):
        assert main(["batch", str(tmp_path / "jobs.toml"), "--ray", "--quiet"]) == 0
    assert [r.getMessage() for r in caplog.records] == [
        f"job 'big' runs here, not on Ray: {tmp_path} (the scene's folder, sent to every "
        "worker) holds more than 100 B; move the scene into a folder of its own with only "
        "the files it needs"]
    assert len(decoded(tmp_path / "o.mp4")) == 6


def test_a_batch_job_failing_on_ray_takes_back_what_it_made(local_ray, tmp_path):
    """A job whose chunks fail on the workers: its new output folders are taken back and a
    sequence's frames made so far go, as a job failing here does (were left: an empty
    folder, and a hidden folder of PNG frames; a review); the table says it kept none."""
    import json
    import os

    slow_scene(tmp_path, 0.0)
    (tmp_path / "broken.py").write_text((tmp_path / "slow.py").read_text().replace(
        "time.sleep(0.0)", f"assert __import__('os').getpid() == {os.getpid()}, 'on a worker'"))
    (tmp_path / "jobs.toml").write_text(
        '[defaults]\nsize = "32x18"\nsamples = 1\nduration = 1.0\n\n'
        '[[job]]\nname = "video"\nscene = "broken.py"\noutput = "out/v/v.mp4"\n\n'
        '[[job]]\nname = "frames"\nscene = "broken.py"\noutput = "out/seq/%03d.png"\n')
    (tmp_path / "out").mkdir()
    summary = tmp_path / "s.json"
    assert main(["batch", str(tmp_path / "jobs.toml"), "--ray", "--summary", str(summary),
                 "--quiet"]) == 1
    rows = json.loads(summary.read_text())
    assert [(r["name"], r["status"], r["frames"]) for r in rows] == [
        ("video", "failed", 0), ("frames", "failed", 0)]
    assert all(r["error"].startswith("scene error in update") and "on a worker" in r["error"]
               for r in rows), rows
    assert list((tmp_path / "out").iterdir()) == []


def test_a_ray_batch_job_is_made_again_when_a_file_its_scene_read_changed(local_ray,
                                                                           tmp_path):
    """A review: a job run on Ray recorded no stamps of the files its scene read (its
    models, a shader's pictures): changed, it stayed up to date."""
    import json

    import imageio.v3 as iio

    iio.imwrite(tmp_path / "n.png", np.full((2, 2, 3), 40, np.uint8))
    (tmp_path / "s.frag").write_text(
        "// hfrender: iChannel0 = n.png\n"
        "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n")
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "s"\nscene = "s.frag"\n'
                                        'output = "o.mp4"\nsize = "16x8"\nduration = 0.2\n')

    def status():
        assert main(["batch", str(tmp_path / "jobs.toml"), "--ray", "--quiet", "--summary",
                     str(tmp_path / "r.json")]) == 0
        return json.loads((tmp_path / "r.json").read_text())[0]["status"]

    assert status() == "done" and status() == "up-to-date"
    iio.imwrite(tmp_path / "n.png", np.full((2, 2, 3), 200, np.uint8))
    assert status() == "done"
