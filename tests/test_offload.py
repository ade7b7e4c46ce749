"""Fusion in child processes (hfrender.engine.offload): hyperframes cross by place in a
shared arena, results and errors come back, the children end, a render is unchanged."""

import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from render_helpers import decode_video, render_frames

from hfrender.config import ConfigError, RenderConfig
from hfrender.engine import offload, render_setup
from hfrender.engine.offload import FusionProcessError, FusionProcesses
from hfrender.engine.render_fusion import fuse_frames
from hfrender.hyperframe.frame import HyperFrame
from hfrender.hyperframe.pool import HyperFramePool
from hfrender.hyperframe.shared import ArrayRef, SharedArena, describe
from hfrender.hyperframe.windows import WindowWeights
from hfrender.optics import Lens

ROOT = Path(__file__).resolve().parent.parent
QUALITY = ROOT / "benchmarks" / "scenes" / "motion_quality.py"
FOCUS = ROOT / "scenes" / "focus_pull.py"


@pytest.fixture(autouse=True)
def two_cores(monkeypatch):
    """Every decision as on CI's 2 cores, whatever this machine has."""
    monkeypatch.setattr(render_setup, "usable_cores", lambda: 2)


@pytest.fixture
def shared_pool():
    pool = HyperFramePool((12, 16, 4), np.uint8, capacity=6, depth=True, slots=2,
                          storage=SharedArena())
    yield pool
    pool.storage.release()


@pytest.fixture
def processes(shared_pool):
    procs = FusionProcesses(shared_pool.storage)
    yield procs
    procs.close()


def _filled(pool, rng):
    slot = pool.acquire()
    slot.frames[:] = rng.integers(0, 256, slot.frames.shape, dtype=np.uint8)
    slot.depth[:] = rng.uniform(1.0, 9.0, slot.depth.shape).astype(np.float32)
    return HyperFrame(frames=slot.frames, depth=slot.depth, timestamps=np.arange(6) / 48,
                      slot=slot, pool=pool)


def _alive(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in fh)
    except FileNotFoundError:
        return False


def test_a_hyperframe_crosses_by_place_and_the_child_reads_the_slot_as_it_is_now(
        shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    shared = describe(hyper, shared_pool.storage)
    assert isinstance(shared.arrays["frames"], ArrayRef)  # an offset, not a copy
    assert isinstance(shared.arrays["depth"], ArrayRef)
    np.testing.assert_array_equal(processes.call(getattr, hyper, "frames"), hyper.frames)
    hyper.frames[2:4] = rng.integers(0, 256, hyper.frames[2:4].shape, dtype=np.uint8)
    np.testing.assert_array_equal(processes.call(getattr, hyper, "frames"), hyper.frames)
    first, second = hyper.split(3, halo=1)  # views that start inside the slot
    np.testing.assert_array_equal(processes.call(getattr, second, "depth"), second.depth)
    turned = HyperFrame(frames=hyper.frames[::-1, :, ::-2])  # negative and uneven strides
    np.testing.assert_array_equal(processes.call(getattr, turned, "frames"), turned.frames)
    free = HyperFrame(frames=hyper.frames.copy())  # outside the arena: it travels as a copy
    assert isinstance(describe(free, shared_pool.storage).arrays["frames"], np.ndarray)
    np.testing.assert_array_equal(processes.call(getattr, free, "frames"), hyper.frames)
    first.release()
    second.release()


def test_frames_fused_in_the_child_are_the_frames_fused_here(shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    hyper.lenses = [Lens(focus_distance=3.0 + i, f_stop=1.4, aperture_blades=5)
                    for i in range(6)]
    rows = rng.dirichlet(np.ones(3), size=2)
    windows = WindowWeights(np.array([0, 3]), rows)
    how = dict(backend="cpu", shutter=None, dof_method="fast", channels=slice(0, 3),
               dtype=np.dtype(np.uint16))
    here = fuse_frames(hyper, windows, **how)
    there = processes.call(fuse_frames, hyper, windows, **how)
    assert there.dtype == np.uint16 and there.shape == (2, 12, 16, 3)
    assert here.std() > 1000  # defocused noise, not a flat frame
    np.testing.assert_array_equal(there, here)
    hyper.release()


def test_an_error_in_the_child_is_raised_here_with_the_childs_traceback(
        shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    with pytest.raises(AttributeError, match="no_such_plane") as info:
        processes.call(getattr, hyper, "no_such_plane")
    notes = "".join(getattr(info.value, "__notes__", []))
    assert "in the fusion process" in notes and "Traceback" in notes
    np.testing.assert_array_equal(processes.call(getattr, hyper, "depth"), hyper.depth)
    hyper.release()


def test_a_memory_error_in_the_child_stays_a_memory_error(shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    with pytest.raises(MemoryError):  # the engine splits the hyperframe on this
        processes.call(np.resize, hyper, (2**46,))
    hyper.release()


class _Unpicklable(MemoryError):
    def __init__(self, need, have):
        super().__init__(f"need {need} bytes, have {have}")


def test_an_error_that_does_not_pickle_comes_back_as_its_nearest_builtin():
    stand_in = offload._portable(_Unpicklable(10, 2))
    assert type(stand_in) is MemoryError
    assert str(stand_in) == "_Unpicklable: need 10 bytes, have 2"
    assert "in the fusion process" in "".join(stand_in.__notes__)


def test_the_childs_log_records_are_told_here(shared_pool, processes, rng, caplog):
    hyper = _filled(shared_pool, rng)
    caplog.set_level(logging.WARNING, logger="hfrender")
    processes.call(logging.getLogger("hfrender.backends.cpu.dof").warning, hyper)
    told = [r for r in caplog.records if r.name == "hfrender.backends.cpu.dof"]
    assert len(told) == 1 and told[0].levelno == logging.WARNING
    assert told[0].getMessage().startswith("HyperFrame((6, 12, 16, 4) uint8, ")  # (its repr)
    hyper.release()


def test_a_killed_child_is_told_in_one_line(shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    pid = processes.pids[0]
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(FusionProcessError) as info:
        processes.call(getattr, hyper, "frames")
    assert str(info.value) == (f"the fusion process (pid {pid}) was killed by signal 9 before "
                               "it answered (SIGKILL: often the system out of memory; lower "
                               "--granularity or --size)")
    hyper.release()


def test_ctrl_c_does_not_reach_the_child_and_close_ends_it(shared_pool, rng):
    procs = FusionProcesses(shared_pool.storage, count=2)
    hyper = _filled(shared_pool, rng)
    try:
        assert processes_answer(procs, hyper)
        for pid in procs.pids:
            os.kill(pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
        time.sleep(0.2)
        assert processes_answer(procs, hyper)
        pids = procs.pids
    finally:
        procs.close()
        hyper.release()
    assert procs.pids == [] and not any(_alive(pid) for pid in pids)
    procs.close()  # twice is harmless


def processes_answer(procs, hyper):
    return all(np.array_equal(procs.call(getattr, hyper, "frames"), hyper.frames)
               for _ in procs.pids)


def test_the_child_ends_when_its_parent_is_killed(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent("""
        import time
        import numpy as np
        from hfrender.engine.offload import FusionProcesses
        from hfrender.hyperframe.pool import HyperFramePool
        from hfrender.hyperframe.shared import SharedArena

        pool = HyperFramePool((4, 4, 4), np.uint8, capacity=2, storage=SharedArena())
        print(FusionProcesses(pool.storage).pids[0], flush=True)
        time.sleep(60)
    """))
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                              text=True, cwd=ROOT)
    child = None
    try:
        child = int(parent.stdout.readline())
        assert _alive(child)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 10
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if child is not None and _alive(child):
            os.kill(child, signal.SIGKILL)


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


def test_a_call_cut_short_costs_its_child_and_no_later_call_reads_its_reply(
        shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    np.testing.assert_array_equal(processes.call(getattr, hyper, "depth"), hyper.depth)
    child = processes.children[0]
    old = child.proc.pid

    def interrupted():
        raise KeyboardInterrupt  # Ctrl-C while the reply is on its way

    child.conn.recv = interrupted
    with pytest.raises(KeyboardInterrupt):
        processes.call(getattr, hyper, "frames")
    assert processes.pids != [old] and not _alive(old)
    # the new child answers this call, not the one cut short
    np.testing.assert_array_equal(processes.call(getattr, hyper, "depth"), hyper.depth)
    hyper.release()


def test_the_child_imports_this_hfrender_not_one_in_the_working_directory(
        shared_pool, rng, tmp_path, monkeypatch):
    for folder in ("here", "on_path"):  # the working directory; a copy on PYTHONPATH
        fake = tmp_path / folder / "hfrender"
        fake.mkdir(parents=True)
        (fake / "__init__.py").write_text("raise ImportError('the wrong hfrender')\n")
    monkeypatch.chdir(tmp_path / "here")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "on_path"))
    procs = FusionProcesses(shared_pool.storage)
    hyper = _filled(shared_pool, rng)
    try:
        np.testing.assert_array_equal(procs.call(getattr, hyper, "frames"), hyper.frames)
    finally:
        procs.close()
        hyper.release()


def test_a_child_with_another_hfrender_is_refused_in_one_line(shared_pool, rng, monkeypatch,
                                                              tmp_path):
    monkeypatch.setattr(offload, "PACKAGE", tmp_path / "hfrender")
    procs = FusionProcesses(shared_pool.storage)
    hyper = _filled(shared_pool, rng)
    try:
        with pytest.raises(FusionProcessError) as info:
            procs.call(getattr, hyper, "frames")
        assert str(info.value) == (f"the fusion process imported hfrender from "
                                   f"{ROOT / 'hfrender'}, this process from "
                                   f"{tmp_path / 'hfrender'}")
        with pytest.raises(FusionProcessError, match="imported hfrender from"):
            procs.call(getattr, hyper, "frames")  # and so says every later call
    finally:
        procs.close()
        hyper.release()


def test_a_closed_set_of_processes_refuses_calls(shared_pool, rng):
    procs = FusionProcesses(shared_pool.storage)
    hyper = _filled(shared_pool, rng)
    procs.close()
    with pytest.raises(FusionProcessError, match="the fusion processes were closed"):
        procs.call(getattr, hyper, "frames")
    hyper.release()


def test_the_childs_planes_are_read_only_there(shared_pool, rng):
    hyper = _filled(shared_pool, rng)
    there = describe(hyper, shared_pool.storage).open(shared_pool.arena)
    np.testing.assert_array_equal(there.frames, hyper.frames)
    assert not there.frames.flags.writeable and not there.depth.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        there.frames[0, 0, 0, 0] = 1
    hyper.release()


class _OldException(Exception):
    add_note = None  # as on Python 3.10, which has no add_note


def test_a_childs_traceback_is_kept_as_a_note_on_python_3_10_too():
    stand_in = offload._portable(_OldException("broken"))
    assert "in the fusion process" in "".join(stand_in.__notes__)
    assert "_OldException: broken" in "".join(stand_in.__notes__)


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


def test_a_child_closed_before_its_first_hyperframe_ends_quietly(shared_pool, capfd):
    procs = FusionProcesses(shared_pool.storage, count=2)
    pids = procs.pids
    procs.close()  # an error before the first frame: the children are still importing
    assert not any(_alive(pid) for pid in pids)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_a_first_message_that_is_not_a_hello_makes_the_child_unavailable(processes):
    from multiprocessing import Pipe

    ours, theirs = Pipe()
    child = offload._Child(None, ours)
    theirs.send(("a", "b", "c"))
    with pytest.raises(offload.FusionProcessUnavailable,
                       match=r"^the fusion process said \('a', 'b', 'c'\) instead of hello$"):
        processes._greet(child)
    assert child.dead is not None


def test_no_child_is_started_again_once_the_processes_are_closed(shared_pool, monkeypatch):
    procs = FusionProcesses(shared_pool.storage)
    child = procs.children[0]
    procs.close()
    started = []
    monkeypatch.setattr(offload.subprocess, "Popen", lambda *a, **k: started.append(a))
    assert procs._replace(child) is child and child.dead is not None
    assert started == [] and procs.children == []


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


def test_abort_ends_a_call_in_progress_at_once(shared_pool, rng, monkeypatch):
    """A second Ctrl-C said "Ctrl-C again to stop at once", then waited for the hyperframes
    in the children: 392 s of an exact depth of field of reexpose."""
    import threading

    from child_helpers import sleep

    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))
    procs = FusionProcesses(shared_pool.storage, count=2)
    hyper = _filled(shared_pool, rng)
    told = []

    def call():
        try:
            procs.call(sleep, hyper, 60)
        except FusionProcessError as exc:
            told.append(str(exc))

    try:
        thread = threading.Thread(target=call, daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while procs._idle.qsize() == 2 and time.monotonic() < deadline:
            time.sleep(0.01)  # the call has taken a child
        time.sleep(0.2)
        pids = list(procs.pids)
        t0 = time.monotonic()
        procs.abort()
        thread.join(10)
        assert not thread.is_alive() and time.monotonic() - t0 < 5
        assert told == ["the fusion process was stopped: the job failed or was interrupted"]
        deadline = time.monotonic() + 5  # (the killed one: its pipe closes as it exits, a
        while sum(_alive(pid) for pid in pids) > 1 and time.monotonic() < deadline:
            time.sleep(0.01)  # moment before it is gone; a full run on a busy machine saw it)
        assert sum(_alive(pid) for pid in pids) == 1  # the idle one is left as it was
    finally:
        procs.close()
        hyper.release()
    assert not any(_alive(pid) for pid in pids)


def test_a_failed_engine_stops_the_fusion_in_progress():
    """The engine's failure (a second Ctrl-C, an error) aborts its fusion's calls: nothing
    of them is written any more."""
    from hfrender.engine.core import Engine
    from hfrender.io.writers import MemoryWriter

    class Fusion:
        aborted = 0

        def abort(self):
            Fusion.aborted += 1

    engine = Engine(Fusion(), MemoryWriter())
    engine.fail(KeyboardInterrupt())
    assert Fusion.aborted == 1


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
