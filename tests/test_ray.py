"""Rendering on Ray (one local instance for the whole test session, 2 CPUs): the same
bits as a local render, a worker killed mid-chunk is retried, a killed driver resumes."""

import os
import textwrap
from pathlib import Path

import numpy as np
import pytest
from render_helpers import decode_video as decoded

from hfrender.cli import main
from hfrender.cli.common import ray_retries
from hfrender.config import RenderConfig
from hfrender.engine import cluster, cluster_tasks
from hfrender.engine.render import render
from hfrender.io.segments import work_dir

ray = pytest.importorskip("ray", reason="the ray extra: bash dev.sh test installs it")
SCENES = Path(__file__).resolve().parents[1] / "scenes"




def slow_scene(tmp_path, sleep):
    path = tmp_path / "slow.py"
    path.write_text(textwrap.dedent(f"""
        import math, time
        import hfrender as hf

        class Slow(hf.Scene):
            duration = 3.0
            def setup(self):
                self.box = self.add(hf.Cube(color="orange"))
            def update(self, t):
                time.sleep({sleep})
                self.box.position = (math.sin(3 * t), 0, 0)
    """))
    return path


@pytest.mark.parametrize("settings", [{"shutter": 720, "jitter": True}, {"samples": 2}])
def test_a_render_on_ray_is_the_local_render_bit_for_bit(local_ray, tmp_path, settings):
    common = dict(size=(64, 36), samples=settings.pop("samples", 4), duration=2.0,
                  quiet=True, **settings)
    stats = cluster.ClusterRender(SCENES / "showcase.py", RenderConfig(
        output=str(tmp_path / "ray.mp4"), **common)).prepare().run()
    render(SCENES / "showcase.py", RenderConfig(output=str(tmp_path / "local.mp4"), **common))
    assert stats.frames == 60 and stats.segments_made == 2 and stats.workers == 2
    assert (tmp_path / "ray.mp4").read_bytes() == (tmp_path / "local.mp4").read_bytes()
    assert not work_dir(tmp_path / "ray.mp4").exists()


def test_a_png_sequence_on_ray_is_the_local_one(local_ray, tmp_path):
    import imageio.v3 as iio

    common = dict(size=(48, 27), samples=4, shutter=540, duration=2.2, quiet=True)
    stats = cluster.ClusterRender(SCENES / "propeller.py", RenderConfig(
        output=str(tmp_path / "ray" / "%03d.png"), **common)).prepare().run()
    render(SCENES / "propeller.py", RenderConfig(output=str(tmp_path / "local" / "%03d.png"),
                                                 **common))
    names = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert stats.frames == 66 and sorted(p.name for p in (tmp_path / "ray").iterdir()) == names
    for name in names:
        np.testing.assert_array_equal(iio.imread(tmp_path / "ray" / name),
                                      iio.imread(tmp_path / "local" / name))
    from hfrender.io.frame_marks import sequence_id, sequence_of  # each frame's sequence
    assert {sequence_of(tmp_path / d / n) for d in ("ray", "local") for n in names} == {
        sequence_id("%03d.png")}  # on Ray too (a review: unmarked there)


@pytest.mark.parametrize("output", ["seq/%03d.png", "late.mp4", "gone/../late.mp4"])
def test_a_render_on_ray_that_fails_takes_back_the_folders_it_made(local_ray, tmp_path, output):
    """Its missing folders are made (as a local run makes them), and go with a run whose
    frames all go: a sequence's, or a video's that failed before any segment was whole
    (its work folder too: nothing to go on from), a folder named only to be left by
    ``..`` too."""
    scene = tmp_path / "late.py"
    scene.write_text("import hfrender as hf\nclass Late(hf.Scene):\n    duration = 0.5\n"
                     "    def setup(self):\n        self.add(hf.Cube())\n"
                     "    def update(self, t):\n        if t > 0.3:\n"
                     "            raise RuntimeError('late')\n")
    (tmp_path / "out").mkdir()
    job = cluster.ClusterRender(scene, RenderConfig(
        output=str(tmp_path / "out" / "new" / output), size=(32, 18), samples=1,
        quiet=True))
    with pytest.raises(Exception, match="late"):
        job.prepare().run()
    assert list((tmp_path / "out").iterdir()) == []


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


def dying_scene(tmp_path):
    """A scene whose worker dies (``os._exit``, as a SIGKILL or the OOM killer would end it)
    mid-chunk, once: at t = 1.5 s the first time (a mark file says it has died), on a
    worker (its own copy of the folder) only. Only the chunk of 1-2 s reaches it (was: any
    t >= 1.5, so a loaded machine that began the chunk of 2-3 s before the other had died
    lost two workers)."""
    path = slow_scene(tmp_path, 0.0)
    mark = tmp_path / "died"
    path.write_text(path.read_text().replace(
        "time.sleep(0.0)",
        f"import os\n        if 1.5 <= t < 1.9 and not os.path.exists({str(mark)!r}) and "
        f"not __file__.startswith({str(tmp_path)!r}):  # on a worker only\n"
        f"            open({str(mark)!r}, 'w').close()\n"
        "            os._exit(1)"))
    return path, mark


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


def test_a_batch_on_ray_runs_the_chunks_of_every_job(local_ray, tmp_path):
    import json

    for name in ("ray", "local"):
        folder = tmp_path / name
        folder.mkdir()
        slow_scene(folder, 0.0)
        (folder / "broken.py").write_text(
            (folder / "slow.py").read_text().replace("time.sleep(0.0)",
                                                     "assert t < 1.0, 'broken scene'"))
        (folder / "jobs.toml").write_text(BATCH)
        import subprocess

        import imageio_ffmpeg

        subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                        "-f", "lavfi", "-i", "testsrc=size=32x18:rate=30", "-frames:v", "40",
                        "-pix_fmt", "yuv420p", str(folder / "clip.mp4")], check=True)
    args = ["--summary", "s.json", "--quiet"]
    assert main(["batch", str(tmp_path / "ray" / "jobs.toml"), "--ray", *args[:1],
                 str(tmp_path / "ray" / "s.json"), args[2]]) == 1
    assert main(["batch", str(tmp_path / "local" / "jobs.toml"), *args[:1],
                 str(tmp_path / "local" / "s.json"), args[2]]) == 1
    ray_r = {r["name"]: r for r in json.loads((tmp_path / "ray" / "s.json").read_text())}
    local_r = {r["name"]: r for r in json.loads((tmp_path / "local" / "s.json").read_text())}
    assert [r["status"] for r in ray_r.values()] == ["done", "done", "failed", "done", "done",
                                                    "done"]
    import imageio.v3 as iio

    for i in range(6):  # the sequence job, on Ray too: the same pixels
        np.testing.assert_array_equal(iio.imread(tmp_path / "ray" / "out" / "seq" / f"{i:03d}.png"),
                                      iio.imread(tmp_path / "local" / "out" / "seq" /
                                                 f"{i:03d}.png"))
    for i in range(3):  # not on Ray yet, so in the driver (was: failed, at run time)
        np.testing.assert_array_equal(
            iio.imread(tmp_path / "ray" / "out" / "clear" / f"{i:03d}.png"),
            iio.imread(tmp_path / "local" / "out" / "clear" / f"{i:03d}.png"))
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


def test_a_task_draws_on_the_gpu_ray_gave_it(monkeypatch):
    """Ray renumbers CUDA devices (CUDA_VISIBLE_DEVICES) but not EGL's: the task's GL
    context is asked for the physical GPU."""
    from hfrender.engine import render as render_job
    from hfrender.engine import render_prepare

    seen = {}

    class Backend:
        name = "cuda"

        def device_id(self):
            return 0  # CUDA's own number inside the task

    class Stop(Exception):
        pass

    def context(name, **kwargs):
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr("hfrender.backends.get_backend", lambda name: Backend())
    monkeypatch.setattr(render_prepare, "create_context", context)
    monkeypatch.setattr(ray, "get_gpu_ids", lambda: [3])
    job = render_job.RenderJob(SCENES / "showcase.py", RenderConfig(size=(32, 18)),
                               writer=object(), count=1, gl_device=cluster_tasks._task_gpu())
    with pytest.raises(Stop):
        job.prepare()
    assert seen["cuda_device"] == 3


@pytest.mark.parametrize("gamma", [True, False])
def test_fx_on_ray_is_the_local_fx_bit_for_bit(local_ray, tmp_path, monkeypatch, capsys, caplog,
                                               gamma):
    import subprocess

    import imageio_ffmpeg

    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 1.0)  # 30-frame segments
    clip = tmp_path / "in.mp4"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc=size=64x36:rate=30", "-f", "lavfi", "-i",
                    "sine=frequency=440:duration=3", "-frames:v", "80", "-pix_fmt",
                    "yuv420p", "-c:a", "aac", "-shortest", "-metadata", "title=Take 3",
                    "-timecode", "01:00:00:00", str(clip)], check=True)
    flags = ["--motion-blur", "5"] + (["--gamma-space"] if gamma else [])
    with caplog.at_level("WARNING", logger="hfrender"):
        assert main(["fx", str(clip), "-o", str(tmp_path / "ray.mp4"), *flags, "--ray"]) == 0
    assert not [r for r in caplog.records if "over:" in r.getMessage()]  # joined, not lost
    said = capsys.readouterr().out
    assert "80 frames on Ray" in said and "3 segments made, 0 reused" in said, said
    assert main(["fx", str(clip), "-o", str(tmp_path / "local.mp4"), *flags, "--quiet"]) == 0
    assert (tmp_path / "ray.mp4").read_bytes() == (tmp_path / "local.mp4").read_bytes()
    assert b"Take 3" in (tmp_path / "ray.mp4").read_bytes()  # (its title and timecode:
    # the join on Ray gave neither, a local run both)


def test_fx_vectors_on_ray_sends_the_vectors_and_is_the_local_fx_bit_for_bit(
        local_ray, tmp_path, monkeypatch):
    """fx --vectors --ray gave the workers the driver's path to the vector frames (on a
    cluster not there: the job failed); now they go through the object store with the
    footage, and the output is the local one's bytes (the driver's frames moved away
    before the run, as on another machine)."""
    import subprocess

    import imageio_ffmpeg
    OpenEXR = pytest.importorskip("OpenEXR")

    from hfrender.engine.cluster_fx import ClusterFx
    from hfrender.engine.fx_settings import FxSettings

    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 0.5)  # 15-frame segments
    clip = tmp_path / "in.mp4"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc=size=64x36:rate=30", "-frames:v", "30",
                    "-pix_fmt", "yuv420p", str(clip)], check=True)
    rng = np.random.default_rng(5)
    (tmp_path / "vec").mkdir()
    for i in range(30):
        planes = {"forward.u": np.full((36, 64), rng.uniform(-8, 8), np.float32),
                  "forward.v": rng.uniform(-4, 4, (36, 64)).astype(np.float32)}
        with OpenEXR.File({"compression": OpenEXR.ZIP_COMPRESSION,
                           "type": OpenEXR.scanlineimage}, planes) as f:
            f.write(str(tmp_path / "vec" / f"{i + 1001:04d}.exr"))
    settings = FxSettings(vectors=str(tmp_path / "vec" / "%04d.exr"), shutter=270.0,
                          max_length=3.0, backend="cpu")  # (up to 8.9 px a frame: clamped)
    job = ClusterFx(str(clip), str(tmp_path / "ray.mp4"), settings).prepare()
    (tmp_path / "vec").rename(tmp_path / "away")
    stats = job.run()
    assert (stats.frames, stats.segments_reused) == (30, 0)
    assert main(["fx", str(clip), "--vectors", str(tmp_path / "away" / "%04d.exr"),
                 "--shutter", "270", "--max-length", "3", "--backend", "cpu", "-o",
                 str(tmp_path / "local.mp4"), "--quiet"]) == 0
    assert (tmp_path / "ray.mp4").read_bytes() == (tmp_path / "local.mp4").read_bytes()
    plain = tmp_path / "plain.mp4"
    assert main(["fx", str(clip), "--vectors", str(tmp_path / "away" / "%04d.exr"),
                 "--shutter", "1", "--backend", "cpu", "-o", str(plain), "--quiet"]) == 0
    assert plain.read_bytes() != (tmp_path / "local.mp4").read_bytes()  # it did blur
    free = tmp_path / "free.mp4"  # unclamped: another video (the workers clamped too)
    assert main(["fx", str(clip), "--vectors", str(tmp_path / "away" / "%04d.exr"),
                 "--shutter", "270", "--backend", "cpu", "-o", str(free), "--quiet"]) == 0
    assert free.read_bytes() != (tmp_path / "local.mp4").read_bytes()


@pytest.mark.parametrize("output", ["new/g.mp4", "new/seq/%03d.png"])
def test_a_gpu_job_on_a_cluster_without_one_fails_at_once(local_ray, tmp_path, output):
    """Not waiting forever for a GPU that is not there; and before any folder is made or
    work folder started (a review: a manifest of no frames, a sequence's folders, were
    left), or an earlier crashed run's kept frames removed."""
    from hfrender.config import ConfigError

    (tmp_path / "out").mkdir()
    job = cluster.ClusterRender(SCENES / "showcase.py", RenderConfig(
        output=str(tmp_path / "out" / output), size=(32, 18), backend="cuda")).prepare()
    with pytest.raises(ConfigError, match=r"^--backend cuda on Ray: the cluster has no GPU "):
        job.run()
    assert list((tmp_path / "out").iterdir()) == []


def test_the_driver_sizes_auto_granularity_with_the_planes_the_workers_keep(tmp_path,
                                                                           monkeypatch):
    """Memory-bound ``--granularity auto`` on the driver counts the depth and velocity
    planes a reconstructing worker keeps (16 bytes a pixel, not 4), and float colour."""
    from hfrender.hyperframe import builder
    from hfrender.hyperframe.builder import auto_granularity
    from hfrender.hyperframe.pool import slot_count, sub_frame_bytes

    size = (320, 180)
    monkeypatch.setattr(builder, "free_memory_bytes", lambda: 60 * 320 * 180 * 16)

    def granularity(reconstruct, hdr="off"):
        config = RenderConfig(output=str(tmp_path / "g.mp4"), size=size, samples=4,
                              backend="cpu", reconstruct=reconstruct, hdr=hdr)
        return cluster.ClusterRender(SCENES / "propeller.py", config).prepare().config.granularity

    slots = slot_count(RenderConfig.max_in_flight)
    shape = (size[1], size[0], 4)
    with_planes = auto_granularity(sub_frame_bytes(shape, np.uint8, True, True),
                                   frames_per_output=4, slots=slots)
    assert granularity("on") == with_planes
    assert granularity("off") == auto_granularity(sub_frame_bytes(shape, np.uint8),
                                                  frames_per_output=4, slots=slots)
    assert granularity("off") > with_planes
    # the propeller's glowing tips pass white: --hdr auto draws float colour (16 bytes)
    assert granularity("off", "auto") == auto_granularity(sub_frame_bytes(shape, np.float32),
                                                          frames_per_output=4, slots=slots)
    assert granularity("off", "auto") < granularity("off")


def test_the_driver_decides_hdr_once_and_keeps_auto_in_the_settings(tmp_path):
    """Every chunk draws as the driver decided at the first frame (on/off), while the
    settings keep what was given: a local --resume of the same command matches them."""
    def prepared(scene, hdr):
        config = RenderConfig(output=str(tmp_path / "h.mp4"), size=(32, 18), samples=2,
                              backend="cpu", hdr=hdr)
        return cluster.ClusterRender(SCENES / scene, config).prepare()

    bright, plain = prepared("propeller.py", "auto"), prepared("showcase.py", "auto")
    assert (bright.config.hdr, bright.settings["hdr"]) == ("on", "auto")
    assert bright.stats.hdr  # its tips:
    assert bright.stats.hdr_why.startswith("self.tips[0] (a Sphere) with emissive 1.5")
    assert (plain.config.hdr, plain.settings["hdr"]) == ("off", "auto")
    forced = prepared("showcase.py", "on")
    assert (forced.config.hdr, forced.settings["hdr"]) == ("on", "on")


@pytest.mark.parametrize("granularity", ["auto", 16])
def test_the_driver_says_a_fragment_shader_keeps_plain_sub_frames(tmp_path, caplog,
                                                                    granularity):
    frag = sorted(SCENES.glob("*.frag"))[0]
    config = RenderConfig(output=str(tmp_path / "f.mp4"), size=(64, 36), samples=4,
                          reconstruct="on", granularity=granularity)
    with caplog.at_level("WARNING", logger="hfrender"):
        prepared = cluster.ClusterRender(frag, config).prepare()
    said = [r.getMessage() for r in caplog.records if "--reconstruct on" in r.getMessage()]
    assert len(said) == 1 and frag.name in said[0] and "plain sub-frames" in said[0], said
    if granularity == "auto":  # no velocity plane counted for it: colour alone
        assert prepared.config.granularity == cluster.auto_granularity(
            64 * 36 * 4, frames_per_output=4, slots=cluster.slot_count(RenderConfig.max_in_flight))


def test_chunk_folders_of_workers_gone_are_swept_and_no_others(tmp_path):
    """A worker killed with an interrupted run leaves its chunk folder; the next chunk on
    that machine removes it, and only it (a running worker's, anyone else's stay)."""
    import socket
    import subprocess
    import sys

    from hfrender.engine.chunk_dir import chunk_dir, sweep

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead = int(done.stdout)  # a process that has ended
    host = socket.gethostname()
    kept = [f"hfrender-chunk-{host}-{os.getpid()}-cd34", "hfrender-chunk-old",
            f"hfrender-fx-chunk-{host}-{dead}-ef56", f"hfrender-chunk-other-host-{dead}-aa",
            "mine"]  # running; not of this form; another kind; another machine's; a user's
    for name in [f"hfrender-chunk-{host}-{dead}-ab12", *kept]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "seg.ts").write_bytes(b"x")
    assert sweep("chunk", str(tmp_path)) == [tmp_path / f"hfrender-chunk-{host}-{dead}-ab12"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)
    with chunk_dir("chunk") as tmp:
        assert Path(tmp).name.startswith(f"hfrender-chunk-{host}-{os.getpid()}-")
    assert not Path(tmp).exists()


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

    def stop(self, manifest, chunk):
        real(self, manifest, chunk)
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
    first = sum(seg["count"] for seg in manifest["segments"])
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
