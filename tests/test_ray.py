"""Rendering on Ray (one local instance for the whole test session, 2 CPUs): the same
bits as a local render and local fx, what the driver decides for its workers (GPUs, granularity,
HDR), a failed run's folders taken back. Ray's retries and resumes are in test_ray_resume.py,
batches on Ray in test_ray_jobs.py."""

import os
from pathlib import Path

import numpy as np
import pytest

from hfrender.cli import main
from hfrender.config import RenderConfig
from hfrender.engine import cluster, cluster_tasks
from hfrender.engine.render import render
from hfrender.io.segments import work_dir

ray = pytest.importorskip("ray", reason="the ray extra: bash dev.sh test installs it")


SCENES = Path(__file__).resolve().parents[1] / "scenes"


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
