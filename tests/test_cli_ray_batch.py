"""`hfrender batch --ray`'s jobs: a local run's segments said why they are not taken, a
job's warnings begin with its name, a job that cannot start takes back its folders."""





def test_a_local_runs_segments_on_ray_are_said_why_they_are_not_taken(tmp_path, caplog):
    """A batch stopped here and run again with --ray started over, told the settings were
    not the same (they were: a batch user's trial); its segments were drawn with this
    machine's GL and backend, which a Ray run's chunks each record for themselves."""
    from hfrender.engine.cluster_segments import whole_segments
    from hfrender.io.segments import Manifest, work_dir

    out = tmp_path / "o.mp4"
    local = {"size": [32, 8], "samples": 4, "gl_renderer": "llvmpipe", "backend": "cpu"}
    ray = {**local, "gl_renderer": "ray", "backend": "auto"}
    here = ("drawn here, with this machine's GL and fusion backend: on Ray each chunk is "
            "its worker's; a run goes on from them without --ray")
    other = ("a run goes on from them only with the same settings: render's and fx's "
             "--resume, a batch's same job")
    for old, new, why in ((local, ray, here), (local, {**ray, "samples": 8}, other),
                          ({**ray, "backend": "cuda"}, ray, other)):  # (an earlier Ray run's:
        folder = work_dir(out)  # not "drawn here", a review)
        folder.mkdir(exist_ok=True)
        (folder / "seg_00000000.ts").write_bytes(b"frames")
        Manifest(old, 60, 30, 30, [{"file": "seg_00000000.ts", "start": 0, "count": 30,
                                    "sha256": "x"}]).save(folder)
        caplog.clear()
        with caplog.at_level("WARNING"):
            fresh = whole_segments(str(out), new, 60, 30, 30, ".ts")
        assert fresh.segments == [] and fresh.settings == new
        assert [r.getMessage() for r in caplog.records] == [
            f"starting {out} over: an interrupted run's 30 finished frames there "
            f"(.o.mp4.hfrender) are discarded ({why})"]


def test_a_jobs_warnings_on_ray_begin_with_its_name(tmp_path, monkeypatch, caplog):
    """A job's warnings in a batch begin with its name; on Ray its preparation's did not."""
    import logging
    from contextlib import ExitStack
    from types import SimpleNamespace

    import hfrender.engine.batch_ray as batch_ray
    from hfrender.engine.batch import BatchJob

    class Ref:  # a task's reference, as Ray's: hashable, its task's id
        def task_id(self):
            return SimpleNamespace(hex=lambda: "t1")

    ref = Ref()

    class Render:
        total = 3

        def __init__(self, *args, **kwargs):
            pass

        def prepare(self):
            logging.getLogger("hfrender.io.segments").warning("starting it over")

        def submit(self, ray, gate):
            logging.getLogger("hfrender.engine.cluster").warning("%d%% of it here", 50)
            return [ref]

    monkeypatch.setattr(batch_ray, "ClusterRender", Render)
    job = BatchJob("shot", "render", tmp_path / "s.py", tmp_path / "o.mp4", {})
    with caplog.at_level("WARNING"), ExitStack() as held:
        failed = []
        started = batch_ray._start(object(), object(), job, lambda *a: None, {"total": 0},
                                   lambda i, result: failed.append(result), 0, held)
    assert failed == [] and started.refs == {ref} and started.tasks == ["t1"]
    assert [r.getMessage() for r in caplog.records] == ["job 'shot': starting it over",
                                                        "job 'shot': 50% of it here"]
    logging.getLogger("hfrender").warning("after it")  # the filter taken off after
    assert caplog.records[-1].getMessage() == "after it"

    class Joined(Render):  # its join's warnings: named too
        stats = None

        def finish(self):
            logging.getLogger("hfrender.io.join").warning("a segment was joined again")
            return SimpleNamespace(segments_reused=0, frames=3, segments_made=1,
                                   frames_made=3, retries=1, reruns=2)

    results = []
    with caplog.at_level("WARNING"):
        batch_ray._finish(0, job, batch_ray._OnCluster(Joined(), set(), 0.0, None),
                          SimpleNamespace(record=lambda *a: None),
                          lambda i, r: results.append(r))
    assert caplog.records[-1].getMessage() == "job 'shot': a segment was joined again"
    assert (results[0].status, results[0].frames, results[0].retries) == ("done", 3, 3)


def test_a_job_that_cannot_start_on_ray_takes_back_its_folders(tmp_path, monkeypatch):
    """A job whose scene's setup() raised in its preparation for Ray left its new, empty
    output folders (a review; a job here takes them back)."""
    from contextlib import ExitStack

    import hfrender.engine.batch_ray as batch_ray
    from hfrender.engine.batch import BatchJob
    from hfrender.scene.loader import SceneError

    class Render:
        def __init__(self, *args, **kwargs):
            pass

        def prepare(self):
            raise SceneError("scene error in setup(): RuntimeError: no")

    monkeypatch.setattr(batch_ray, "ClusterRender", Render)
    (tmp_path / "kept").mkdir()
    failed = []
    for output in (tmp_path / "deep" / "er" / "o.mp4", tmp_path / "kept" / "o.mp4"):
        job = BatchJob("shot", "render", tmp_path / "s.py", output, {})
        with ExitStack() as held:
            assert batch_ray._start(object(), object(), job, lambda *a: None, {"total": 0},
                                    lambda i, result: failed.append(result), 0, held) is None
    assert [r.error for r in failed] == ["scene error in setup(): RuntimeError: no"] * 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept"]  # (its own folder stays)


def test_a_job_run_here_in_a_ray_batch_begins_its_warnings_with_its_name(tmp_path,
                                                                         monkeypatch, caplog):
    """A job Ray does not take (a GIF) runs in the driver: its warnings were said without
    its name ("hfrender: warning: frame 0 blurs up to 29 px ...", a batch user's trial),
    where the batch here and Ray's own jobs name it."""
    import logging

    import hfrender.engine.batch_ray as batch_ray
    from hfrender.engine.batch import BatchJob
    from hfrender.engine.batch_state import JobResult

    def run_job(job, state):
        logging.getLogger("hfrender.engine.render").warning("frame 0 blurs up to %d px", 29)
        return JobResult(job.name, "done", 3)

    monkeypatch.setattr(batch_ray, "run_job", run_job)
    jobs = [BatchJob("spin", "render", tmp_path / "s.py", tmp_path / "o.gif", {})]
    with caplog.at_level("WARNING"):
        results = batch_ray.run_batch_on_ray(jobs, None, None)
    assert [(r.name, r.status) for r in results] == [("spin", "done")]
    assert [r.getMessage() for r in caplog.records] == ["job 'spin': frame 0 blurs up to 29 px"]
    logging.getLogger("hfrender").warning("after it")  # the filter taken off after
    assert caplog.records[-1].getMessage() == "after it"
