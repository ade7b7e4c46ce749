"""A render's fusion in processes: when auto uses them (and where it cannot, fusing here),
--fusion-process on refused where there can be none, the render, video and resume
unchanged, the summary and ``info`` saying where fusion ran."""

import numpy as np
import pytest
from offload_helpers import (
    ROOT,
    _alive,
    shared_pool_fixture,  # noqa: F401  (the fixture)
    two_cores_fixture,  # noqa: F401  (the fixture)
)
from render_helpers import decode_video, render_frames

from hfrender.config import ConfigError, RenderConfig
from hfrender.engine import offload, render_setup
from hfrender.engine.offload import FusionProcessError
from hfrender.hyperframe.shared import SharedArena

QUALITY = ROOT / "benchmarks" / "scenes" / "motion_quality.py"
FOCUS = ROOT / "scenes" / "focus_pull.py"


def _config(**kw):
    return RenderConfig(output="memory.mp4", **kw)


def test_auto_uses_processes_for_heavy_cpu_fusion_of_two_hyperframes_or_more(monkeypatch):
    auto = "auto"
    assert isinstance(render_setup.shared_arena(auto, "cpu", heavy=True), SharedArena)
    assert render_setup.shared_arena(auto, "cpu", heavy=False) is None  # plain blending
    assert render_setup.shared_arena(auto, "cuda", heavy=True) is None
    assert render_setup.shared_arena("off", "cpu", True) is None
    assert isinstance(render_setup.shared_arena("on", "cpu", False),
                      SharedArena)
    monkeypatch.setattr(render_setup, "usable_cores", lambda: 1)
    assert render_setup.shared_arena(auto, "cpu", heavy=True) is None  # nothing to overlap


def test_fusion_process_on_where_there_can_be_none_is_refused_in_one_line():
    with pytest.raises(ConfigError) as info:
        render_setup.shared_arena("on", "cuda", heavy=True)
    assert str(info.value) == ("--fusion-process on: the fusion backend is cuda, and fusion "
                               "processes fuse on the CPU; use auto or off")
    with pytest.raises(ConfigError, match="fusion_process='twice'"):
        _config(fusion_process="twice")


@pytest.mark.parametrize("settings", [
    dict(scene=QUALITY, size=(64, 36), duration=0.4, samples=4, reconstruct="on",
         granularity=8),
    dict(scene=FOCUS, size=(64, 36), duration=0.3, samples=4, dof="depth", granularity=8,
         transparent=True),
], ids=["reconstruct", "dof-depth-rgba"])
def test_a_render_fused_in_a_child_process_is_the_render_fused_here(settings):
    scene = settings.pop("scene")
    here, stats_here = render_frames(scene, backend="cpu", fusion_process="off", **settings)
    there, stats = render_frames(scene, backend="cpu", fusion_process="on", **settings)
    assert stats_here.fusion_processes == 0 and stats.fusion_processes == 2
    assert there.shape[0] == stats.frames_written > 2 and there.std() > 10
    np.testing.assert_array_equal(there, here)


def test_auto_fuses_a_render_of_one_hyperframe_in_its_own_process():
    common = dict(size=(64, 36), samples=4, reconstruct="on", backend="cpu")
    one, one_stats = render_frames(QUALITY, count=2, **common)  # 8 sub-frames: one hyperframe
    assert one_stats.granularity >= 8 and one_stats.fusion_processes == 0
    two, stats = render_frames(QUALITY, count=2, granularity=4, **common)
    assert stats.fusion_processes == 2
    np.testing.assert_array_equal(two, one)
    _, stats = render_frames(QUALITY, count=12, **common)  # cut into 6 hyperframes
    assert stats.granularity == 8 and stats.fusion_processes == 2


def test_a_render_leaves_no_fusion_process_behind(tmp_path):
    from hfrender.engine.render import RenderJob

    config = RenderConfig(output=str(tmp_path / "r.mp4"), size=(64, 36), duration=0.4,
                          samples=4, reconstruct="on", granularity=8, backend="cpu",
                          fusion_process="on", quiet=True)
    job = RenderJob(QUALITY, config).prepare()
    pids = job.processes.pids
    assert len(pids) == 2 and all(_alive(pid) for pid in pids)
    stats = job.run()
    assert stats.frames_written == 12 and stats.fusion_processes == 2
    assert not any(_alive(pid) for pid in pids) and job.processes is None


def test_the_summary_says_where_the_fusion_ran(tmp_path, capsys):
    from hfrender.cli import main

    out = tmp_path / "r.mp4"
    common = ["render", str(QUALITY), "-o", str(out), "--size", "64x36", "--duration",
              "0.4", "--samples", "4", "--reconstruct", "on", "--granularity", "8",
              "--backend", "cpu"]
    assert main(common + ["--fusion-process", "on"]) == 0
    said = capsys.readouterr().out
    assert "fusion cpu in 2 child processes" in said and "wrote" in said
    assert main(common + ["--fusion-process", "on", "--workers", "1"]) == 0
    assert "fusion cpu in a child process" in capsys.readouterr().out
    assert main(common + ["--fusion-process", "off"]) == 0
    said = capsys.readouterr().out
    assert "fusion cpu" in said and "child process" not in said


def test_fusion_processes_cut_a_short_clip_into_hyperframes_that_overlap_its_drawing():
    from hfrender.hyperframe.builder import DEFAULT_CAP
    from hfrender.plan_stream import PlanStream
    from hfrender.sampler import SampleSchedule

    arena = SharedArena()
    short = PlanStream(SampleSchedule(samples=8), 0, 12)
    assert render_setup.pipeline_cap(short, arena) == 16  # 6 hyperframes of 2 frames
    assert render_setup.pipeline_cap(short, None) == DEFAULT_CAP  # in-process: no cut
    assert render_setup.pipeline_cap(PlanStream(SampleSchedule(samples=8), 0, 3), arena) == 16
    long = PlanStream(SampleSchedule(samples=16), 0, 300)
    assert render_setup.pipeline_cap(long, arena) == DEFAULT_CAP
    wide = PlanStream(SampleSchedule(shutter_deg=720.0, samples=8), 0, 60)
    step, overlap = wide.step, wide.overlap
    assert overlap > 0 and render_setup.pipeline_cap(wide, arena) == overlap + 10 * step


def test_workers_auto_is_two_fusion_processes_or_one_thread(monkeypatch):
    assert render_setup.fusion_workers(_config(), processes=True) == 2
    assert render_setup.fusion_workers(_config(), processes=False) == 1
    assert render_setup.fusion_workers(_config(workers=3), processes=True) == 3
    monkeypatch.setattr(render_setup, "usable_cores", lambda: 1)
    assert render_setup.fusion_workers(_config(), processes=True) == 1
    with pytest.raises(ConfigError,
                       match="workers='many' must be an integer from 1 to 64 or 'auto'$"):
        _config(workers="many")


def test_a_render_with_workers_auto_fuses_in_two_processes():
    common = dict(size=(64, 36), samples=4, reconstruct="on", backend="cpu", count=12)
    two, stats = render_frames(QUALITY, **common)
    assert stats.fusion_processes == 2
    one, stats = render_frames(QUALITY, workers=1, **common)
    assert stats.fusion_processes == 1
    np.testing.assert_array_equal(two, one)


def test_without_a_usable_memfd_auto_fuses_here_and_on_is_refused(monkeypatch):
    from hfrender.hyperframe import shared

    def refused(*args):
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(shared.os, "memfd_create", refused)
    shared.available.cache_clear()
    try:
        assert not shared.available()
        assert render_setup.shared_arena("auto", "cpu", heavy=True) is None
        with pytest.raises(ConfigError, match="cannot make a memfd"):
            render_setup.shared_arena("on", "cpu", heavy=True)
    finally:
        shared.available.cache_clear()


def test_when_no_process_can_start_auto_fuses_here_and_on_says_why(shared_pool, monkeypatch,
                                                                   caplog):
    from hfrender.plan_stream import PlanStream
    from hfrender.sampler import SampleSchedule

    started = []
    real = offload.subprocess.Popen

    def second_fails(*args, **kwargs):
        if started:
            raise OSError(11, "Resource temporarily unavailable")
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(offload.subprocess, "Popen", second_fails)
    plan = PlanStream(SampleSchedule(samples=4), 0, 12)
    assert render_setup.fusion_processes(_config(), shared_pool.storage, plan, 8) is None
    assert "no fusion process could start" in caplog.text
    assert started and started[0].poll() is not None  # the first one ended
    with pytest.raises(FusionProcessError, match=r"--fusion-process on: no fusion process "
                                                 r"could start \(\[Errno 11\]"):
        render_setup.fusion_processes(_config(fusion_process="on"), shared_pool.storage,
                                      plan, 8)


def test_a_video_does_not_depend_on_where_it_was_fused(tmp_path):
    from hfrender.engine.render import render

    sizes = {}
    for mode in ("off", "on"):
        config = RenderConfig(output=str(tmp_path / f"{mode}.mp4"), size=(64, 36),
                              duration=0.5, samples=4, reconstruct="on", backend="cpu",
                              fusion_process=mode, quiet=True)
        sizes[mode] = render(str(QUALITY), config).granularity
    assert sizes["on"] < sizes["off"]  # its hyperframes were cut smaller...
    assert (tmp_path / "on.mp4").read_bytes() == (tmp_path / "off.mp4").read_bytes()


def test_a_ray_task_fuses_in_its_own_process():
    from hfrender.engine.cluster_tasks import task_config as _task_config

    assert _task_config({"size": [64, 36]}).fusion_process == "off"
    assert _task_config({"size": [64, 36], "fusion_process": "auto"}).fusion_process == "off"
    assert _task_config({"size": [64, 36], "fusion_process": "on"}).fusion_process == "on"


def test_a_render_fused_in_processes_resumes_to_the_video_fused_here(tmp_path, monkeypatch,
                                                                     capsys):
    from render_helpers import interrupt_after_segments

    from hfrender.cli import main

    out = tmp_path / "r.mp4"
    args = ["render", str(QUALITY), "-o", str(out), "--size", "64x36", "--duration", "2",
            "--samples", "4", "--reconstruct", "on", "--backend", "cpu", "--quiet"]
    undo = interrupt_after_segments(monkeypatch)
    assert main(args) == 130
    undo()
    capsys.readouterr()
    assert not out.exists() and main([*args[:-1], "--stats", "--resume"]) == 0
    assert "stats: granularity 20," in capsys.readouterr().out  # the 28 frames left, in 6
    here = tmp_path / "here.mp4"
    assert main([*args[:3], str(here), *args[4:], "--fusion-process", "off"]) == 0
    resumed, whole = decode_video(out), decode_video(here)
    assert len(whole) == 60 and whole.std() > 10
    np.testing.assert_array_equal(resumed, whole)


def test_info_says_what_fusion_processes_auto_runs(capsys, monkeypatch):
    from hfrender.cli import main
    from hfrender.hyperframe import shared

    assert main(["info"]) == 0
    assert ("fusion processes: 2 beside the drawing for --reconstruct and --dof depth on the "
            "CPU (2 usable cores)") in capsys.readouterr().out
    monkeypatch.setattr(render_setup, "usable_cores", lambda: 1)
    assert main(["info"]) == 0
    assert ("fusion processes: not used by auto (1 usable core); --fusion-process on runs "
            "them") in capsys.readouterr().out
    monkeypatch.setattr(shared, "available", lambda: False)
    assert main(["info"]) == 0
    assert "fusion processes: unavailable (no memfd" in capsys.readouterr().out


def test_auto_fuses_in_the_render_when_its_children_cannot(monkeypatch, tmp_path, caplog):
    common = dict(size=(64, 36), samples=4, reconstruct="on", backend="cpu", count=12)
    here, _ = render_frames(QUALITY, fusion_process="off", **common)
    monkeypatch.setattr(offload, "PACKAGE", tmp_path / "hfrender")  # as if another copy
    there, stats = render_frames(QUALITY, **common)
    assert "imported hfrender from" in caplog.text and "fusing in this process" \
        in caplog.text
    assert stats.fusion_processes == 0
    np.testing.assert_array_equal(there, here)
    with pytest.raises(offload.FusionProcessUnavailable, match="imported hfrender from"):
        render_frames(QUALITY, fusion_process="on", **common)


@pytest.mark.parametrize("spell, said", [
    (None, "lower --granularity or --size"), ("keyword", "lower granularity or size")])
def test_a_fusion_process_killed_says_what_to_lower_as_its_caller_names_it(spell, said):
    """A fusion child ended by SIGKILL told hf.render's caller '--granularity or --size'
    (a review); the caller's spelling now, flags for the command."""
    import contextlib
    import signal
    from types import SimpleNamespace

    from hfrender.engine.offload import FusionProcesses
    from hfrender.errors import KEYWORD, spelt

    child = SimpleNamespace(proc=SimpleNamespace(pid=4242, wait=lambda timeout: -signal.SIGKILL))
    with spelt(KEYWORD) if spell else contextlib.nullcontext():
        line = FusionProcesses._ended(child)
    assert line == ("the fusion process (pid 4242) was killed by signal 9 before it answered "
                    f"(SIGKILL: often the system out of memory; {said})")
