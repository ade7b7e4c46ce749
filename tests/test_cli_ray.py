"""`--ray` where no cluster answers: one line, at once, nothing written."""

import os
from pathlib import Path

import numpy as np
import pytest

from hfrender.cli import main

BAR = str(Path(__file__).parent / "data" / "bar.frag")


def test_ray_auto_with_no_cluster_is_one_line(tmp_path, capsys, monkeypatch):
    ray = pytest.importorskip("ray")

    def no_cluster(**kwargs):
        assert kwargs["address"] == "auto"
        raise ConnectionError("Could not find any running Ray instance.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", no_cluster)
    assert main(["render", BAR, "-o", str(tmp_path / "o.mp4"), "--size", "32x8",
                 "--duration", "0.2", "--ray", "auto"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --ray auto: Ray found no cluster to join; start one with 'ray start "
        "--head', or give --ray alone with RAY_ADDRESS unset for a Ray started here\n")
    assert not (tmp_path / "o.mp4").exists()
    monkeypatch.setenv("RAY_ADDRESS", "auto")  # --ray alone, Ray pointed elsewhere by it
    monkeypatch.setattr(ray, "init", lambda **kw: (_ for _ in ()).throw(ConnectionError()))
    assert main(["render", BAR, "-o", str(tmp_path / "o.mp4"), "--size", "32x8",
                 "--duration", "0.2", "--ray"]) == 2
    assert capsys.readouterr().err.startswith(
        "hfrender: error: --ray (RAY_ADDRESS='auto'): Ray found no cluster to join; ")


def test_a_ray_address_where_nothing_listens_is_one_line_at_once(tmp_path, capsys):
    """Ray retries such an address for minutes, repeating its log line; hfrender asks first."""
    import socket

    pytest.importorskip("ray")
    with socket.socket() as s:  # a port nothing listens on once this closes
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["render", BAR, "-o", str(tmp_path / "r.mp4"), "--size", "32x8", "--ray",
                 f"127.0.0.1:{port}"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: --ray 127.0.0.1:{port}: no Ray cluster there (Connection refused); "
        "start one with 'ray start --head' on that machine, or give --ray alone for a Ray "
        "started here\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("env", [None, "10.1.2.3:6379"])
def test_ray_alone_starts_its_own_even_beside_a_ray_start_cluster(monkeypatch, env):
    """`--ray` alone is a Ray started here, sized to this machine, also where 'ray start'
    began a cluster on it (Ray would join that one and refuse the CPU count: an internal
    error); with RAY_ADDRESS, that cluster, with no CPU count."""
    ray = pytest.importorskip("ray")
    import hfrender.engine.ray_connect as ray_connect
    from hfrender.engine.ray_connect import connect

    asked = []
    monkeypatch.setattr(ray_connect, "_answers", lambda *a: None)  # no network asked
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **kw: asked.append(kw))
    monkeypatch.setattr(ray_connect, "usable_cores", lambda: 3)  # taskset, --cpus: its own
    if env is None:
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
    else:
        monkeypatch.setenv("RAY_ADDRESS", env)
    assert connect(None) is ray
    import logging

    # Ray's own log lines under ERROR (was: "Started a local Ray instance." every run)
    common = {"include_dashboard": False, "log_to_driver": False,
              "logging_level": logging.ERROR}
    assert asked == [{**common, "address": "local", "num_cpus": 3} if env is None
                     else {**common, "address": None}]


def test_a_chunk_on_a_worker_does_not_look_for_the_drivers_output_folder(tmp_path,
                                                                           monkeypatch):
    """On a cluster a task runs in the worker's own folder: `-o out2/x.mp4` (relative to
    the driver) was refused there, "folder out2 does not exist", and every video job of a
    `batch --ray` failed. The worker encodes a segment; only the driver writes the output."""
    from dataclasses import asdict

    from hfrender.config import RenderConfig
    from hfrender.engine import cluster_fx, cluster_tasks
    from hfrender.engine.fx_settings import FxSettings

    scene = Path(BAR).read_bytes()
    worker = tmp_path / "worker"
    worker.mkdir()
    monkeypatch.chdir(worker)  # no out2/ here
    config = {k: v for k, v in RenderConfig(output="out2/x.mp4", size=(32, 8), samples=1,
                                            duration=0.2).__dict__.items()}
    chunk = cluster_tasks.render_chunk({"bar.frag": scene}, ("bar.frag", ""), None, config, 0,
                                       3, 30)
    assert chunk["count"] == 3 and len(chunk["data"]) > 100
    footage = tmp_path / "src.mp4"
    assert main(["render", BAR, "-o", str(footage), "--size", "32x8", "--duration", "0.2",
                 "--quiet"]) == 0
    settings = asdict(FxSettings(window=2))
    done = cluster_fx._fx_chunk({footage.name: footage.read_bytes()}, footage.name, None,
                                "out2/y.mp4", settings, 0, 2, "rgb24")
    assert done["count"] == 2 and len(done["data"]) > 100
    assert list(worker.iterdir()) == []


def test_an_address_where_another_server_answers_is_one_line_at_once(tmp_path, capsys):
    """The dashboard's port, or any HTTP server: Ray retried it for minutes, printing its
    own log line; hfrender asks it as a gRPC client first (Ray's GCS answers)."""
    import http.server
    import threading

    pytest.importorskip("ray")
    class Quiet(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):  # not on the test's stderr
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        assert main(["render", BAR, "-o", str(tmp_path / "r.mp4"), "--size", "32x8", "--ray",
                     f"127.0.0.1:{port}"]) == 2
    finally:
        server.shutdown()
        server.server_close()
    assert capsys.readouterr().err == (
        f"hfrender: error: --ray 127.0.0.1:{port}: something answers there, but not Ray (the "
        "dashboard's port is 8265; a cluster's address is the one 'ray start --head' "
        "printed, port 6379 by default)\n")
    assert list(tmp_path.iterdir()) == []


def test_ray_address_is_checked_for_auto_and_rays_own_reasons_are_told(tmp_path, capsys,
                                                                       monkeypatch):
    import socket

    ray = pytest.importorskip("ray")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    args = ["render", BAR, "-o", str(tmp_path / "r.mp4"), "--size", "32x8", "--ray"]
    assert main([*args, "auto"]) == 2  # was: Ray's retries, minutes
    assert capsys.readouterr().err.startswith(
        f"hfrender: error: --ray auto (RAY_ADDRESS='127.0.0.1:{port}'): no Ray cluster there "
        "(Connection refused); ")
    assert main(args) == 2  # --ray alone, RAY_ADDRESS set: its advice is to unset it
    assert capsys.readouterr().err.endswith(
        f"(RAY_ADDRESS='127.0.0.1:{port}'): no Ray cluster there (Connection refused); start "
        "one with 'ray start --head' on that machine, or unset RAY_ADDRESS and give --ray "
        "alone for a Ray started here\n")
    monkeypatch.delenv("RAY_ADDRESS")
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    reasons = iter([ValueError("no such thing"), ValueError("Invalid address format: foo"),
                    ConnectionError("RAY_AUTH_MODE is currently 'disabled' (not 'token')\nmore")])

    def refuse(**kwargs):
        raise next(reasons)

    monkeypatch.setattr(ray, "init", refuse)
    assert main(args) == 2  # --ray alone, RAY_ADDRESS unset: named as given
    assert capsys.readouterr().err.startswith("hfrender: error: --ray: no such thing; ")
    assert main([*args, "foo"]) == 2  # was: an internal error
    assert capsys.readouterr().err == (
        "hfrender: error: --ray foo: Invalid address format: foo; give HOST:PORT (as 'ray "
        "start --head' printed it, port 6379 by default), ray://HOST:PORT, auto, or --ray "
        "alone for a Ray started here\n")
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    assert main([*args, "auto"]) == 2  # was: "Ray found no cluster to join"
    assert capsys.readouterr().err == (  # how a token's cluster is joined (a trial: the
        "hfrender: error: --ray auto: Ray could not join the cluster: RAY_AUTH_MODE is "  # README
        "currently 'disabled' (not 'token') (a cluster with token authentication is joined "
        "with RAY_AUTH_MODE=token set here, and its token: RAY_AUTH_TOKEN, or the file "
        "~/.ray/auth_token)\n")  # named RAY_AUTH_TOKEN alone)


def test_ray_before_the_file_is_ray_alone_and_an_option_is_no_address(tmp_path):
    """`render --ray scene.py -o x.mp4`: argparse took the file for the address and asked
    for FILE; `batch jobs.toml --ray -ql` took -ql for one (then Ray's ValueError)."""
    from hfrender.cli.batch import overrides_of
    from hfrender.cli.common import ray_alone_before_a_file
    from hfrender.config import ConfigError

    assert ray_alone_before_a_file(["render", "--ray", BAR, "-o", "x.mp4"]) == [
        "render", "--ray=local", BAR, "-o", "x.mp4"]
    for address in ("auto", "127.0.0.1:6379", "ray://head:10001"):
        words = ["render", BAR, "--ray", address, "-o", "x.mp4"]
        assert ray_alone_before_a_file(words) == words
    assert ray_alone_before_a_file(["fx", "--ray", "in/%04d.png", "-o", "o.mp4"])[1] == \
        "--ray=local"
    words = ["batch", "--ray", BAR]  # batch reads --ray after its jobs file, itself
    assert ray_alone_before_a_file(words) == words
    assert overrides_of(["--ray", "--samples", "4"]) == ({"ray": True}, {"samples": 4})
    with pytest.raises(ConfigError, match=r"^'-ql': options after the jobs file are --name"):
        overrides_of(["--ray", "-ql"])
    for short, what in (("-o", "output"), ("-s", "scene")):  # render's: said as the long one
        with pytest.raises(ConfigError, match=rf"^{short}: each job's {what} is in the jobs "
                                              rf"file \({what} = \.\.\.\)$"):
            overrides_of(["--samples", "4", short, "x"])


def test_a_jobs_file_of_no_suffix_is_never_an_options_value(tmp_path, monkeypatch):
    """``batch --depth d.png shots``: d.png (a file that is there) was taken for the jobs
    file, shots for --depth's value (a review); so was ``4`` of ``--samples 4`` beside a
    file named 4, and a file named auto of ``--ray auto``. A flag's next word is the file."""
    from hfrender.cli.common import batch_file_first

    monkeypatch.chdir(tmp_path)
    for name in ("shots", "d.png", "4", "auto"):
        (tmp_path / name).write_text("")
    for before in (["--depth", "d.png"], ["--samples", "4"], ["--ray", "auto"], ["--ray"],
                   ["--jitter"], ["--summary", "d.png", "-q"], ["--samples=4", "-v"]):
        assert batch_file_first(["-v", "batch", *before, "shots"]) == \
            ["-v", "batch", "shots", *before]


def test_a_shaders_picture_outside_its_folder_is_refused_before_any_work(tmp_path):
    import imageio.v3 as iio

    iio.imwrite(tmp_path / "noise.png", np.zeros((2, 2, 3), np.uint8))
    (tmp_path / "shot").mkdir()
    shader = tmp_path / "shot" / "s.frag"
    shader.write_text("// hfrender: iChannel0 = ../noise.png\n"
                      "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n")
    assert _refused_on_ray(shader, tmp_path) == (
        f"--ray: the scene loads {tmp_path / 'noise.png'}, outside its folder "
        f"{tmp_path / 'shot'} (only that folder, hidden files left out, goes to the workers); "
        "put the picture in it, or render without --ray")


def _refused_on_ray(scene: Path, tmp_path: Path) -> str:
    """Why ``--ray`` refuses to render ``scene``, in one line, before any work."""
    from hfrender.config import ConfigError, RenderConfig
    from hfrender.engine.cluster import ClusterRender

    config = RenderConfig(output=str(tmp_path / "o.mp4"), size=(32, 18), samples=1,
                          duration=0.2)
    with pytest.raises(ConfigError) as err:
        ClusterRender(scene, config).prepare()
    return str(err.value)


def test_a_model_outside_the_scenes_folder_is_refused_before_any_work(tmp_path):
    pytest.importorskip("trimesh")
    import shutil

    from hfrender.config import ConfigError, RenderConfig
    from hfrender.engine.cluster import ClusterRender

    shutil.copy(Path(__file__).parents[1] / "scenes" / "assets" / "toy.glb", tmp_path)
    (tmp_path / "shot").mkdir()
    scene = tmp_path / "shot" / "shot.py"
    scene.write_text("import hfrender as hf\nclass Shot(hf.Scene):\n    def setup(self):\n"
                     "        self.add(hf.Mesh.load('../toy.glb'))\n")
    config = RenderConfig(output=str(tmp_path / "o.mp4"), size=(32, 18), samples=1,
                          duration=0.2)
    assert _refused_on_ray(scene, tmp_path) == (
        f"--ray: the scene loads {tmp_path / 'toy.glb'}, outside its folder "
        f"{tmp_path / 'shot'} (only that folder, hidden files left out, goes to the workers); "
        "put the model in it, or render without --ray")
    (tmp_path / "shot" / ".assets").mkdir()
    (tmp_path / "shot" / ".assets" / "toy.glb").write_bytes((tmp_path / "toy.glb").read_bytes())
    scene.write_text(scene.read_text().replace("../toy.glb", ".assets/toy.glb"))
    with pytest.raises(ConfigError) as err:
        ClusterRender(scene, config).prepare()
    assert str(err.value) == (  # in it, but hidden (was: "outside its folder")
        f"--ray: the scene loads {tmp_path / 'shot' / '.assets' / 'toy.glb'}, in a hidden "
        f"folder of {tmp_path / 'shot'}, which is not sent (only that folder, hidden files "
        "left out, goes to the workers); put the model in it, or render without --ray")
    (tmp_path / "shot" / "toy.glb").write_bytes((tmp_path / "toy.glb").read_bytes())
    scene.write_text(scene.read_text().replace(".assets/toy.glb", "toy.glb"))
    assert ClusterRender(scene, config).prepare().total == 6


def _two_run(waiting: list) -> list:
    """The chunks running at a Ctrl-C (the gate's answer): the first two still waiting."""
    return waiting[:2]


class _CtrlCCluster:
    """Ray's wait and cancel as a first Ctrl-C meets them: chunk 1 ended before it, each
    wait ends the first pending chunk, the second wait is interrupted."""

    def __init__(self):
        self.ended, self.cancelled, self.waits = {1}, [], 0

    def wait(self, refs, num_returns=1, timeout=None):
        if timeout == 0:
            ready = [r for r in refs if r in self.ended]
            return ready, [r for r in refs if r not in self.ended]
        self.waits += 1
        if self.waits == 2:
            raise KeyboardInterrupt  # while waiting for the second
        self.ended.add(refs[0])
        return [refs[0]], refs[1:]

    def cancel(self, ref):
        self.cancelled.append(ref)


def test_a_first_ctrl_c_on_ray_keeps_the_chunks_running_and_those_ended():
    """Chunk 1 ended before the Ctrl-C and was not taken yet; 2 and 3 run (2 CPUs); 4 and
    5 wait. The first Ctrl-C turns away 4 and 5 only, through the gate (was: 1 took a
    running place, and 3, running, was cancelled), takes 1, 2 and 3, then goes on; nothing
    is ray.cancel'ed (Ray 2.60's cancel racing a task's end ended the driver: ray_wait)."""
    from hfrender.engine.ray_wait import collect

    ray, taken = _CtrlCCluster(), []
    with pytest.raises(KeyboardInterrupt):
        collect(ray, list(range(6)), taken.append, _two_run)
    assert taken == [0, 1, 2, 3] and ray.cancelled == []


@pytest.mark.parametrize("chunks, cancelled", [(6, True), (4, False)])
def test_a_ctrl_c_once_every_chunk_runs_leaves_the_work_whole(chunks, cancelled):
    """With 4 chunks, all running or ended at the Ctrl-C, none is cancelled: the work is
    whole, told (True), not raised (was: every segment made, then "interrupted" and no
    output joined, exit 130); with 6, two are turned away and the Ctrl-C goes on."""
    from hfrender.engine.ray_wait import collect

    ray, taken = _CtrlCCluster(), []
    if cancelled:
        with pytest.raises(KeyboardInterrupt):
            collect(ray, list(range(chunks)), taken.append, _two_run)
    else:  # returned as it came (a SIGTERM's stays one: a batch exits 143 on it, was 130)
        assert type(collect(ray, list(range(chunks)), taken.append, _two_run)) is \
            KeyboardInterrupt
        from hfrender.cli.common import Terminated

        class Termed(_CtrlCCluster):
            def wait(self, refs, num_returns=1, timeout=None):
                try:
                    return super().wait(refs, num_returns, timeout)
                except KeyboardInterrupt:
                    raise Terminated from None

        assert type(collect(Termed(), list(range(chunks)), [].append, _two_run)) is Terminated
    assert taken == [0, 1, 2, 3] and ray.cancelled == []
    assert collect(_CtrlCCluster(), [0], [].append, _two_run) is None  # no Ctrl-C


def test_a_ctrl_c_while_a_chunk_is_kept_comes_after_it():
    """The Ctrl-C lands while chunk 0 is being kept (its segment written, the manifest
    saved): held until that ends, so the chunk is not lost (was: its result dropped, and
    the segment made again by the next run); then the first Ctrl-C's rule."""
    import signal
    import time

    from hfrender.engine.ray_wait import collect

    class Cluster:
        def __init__(self):
            self.cancelled = []

        def wait(self, refs, num_returns=1, timeout=None):
            if timeout == 0:
                return [], list(refs)
            return [refs[0]], refs[1:]

        def cancel(self, ref):
            self.cancelled.append(ref)

    taken = []

    def keep(ref):
        if ref == 0:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)  # Python's handler would raise here, mid-keep
        taken.append(ref)

    ray = Cluster()
    with pytest.raises(KeyboardInterrupt):
        collect(ray, list(range(5)), keep, _two_run)
    assert taken == [0, 1, 2] and ray.cancelled == []


def test_a_failed_chunk_turns_the_others_away_and_reads_what_they_raised():
    """Two chunks of a render failing: the second's error, never read, was printed by Ray
    with its traceback after hfrender's one line (a trial: 81 lines of stderr)."""
    from hfrender.engine.ray_wait import collect

    class Cluster:
        def __init__(self):
            self.cancelled, self.read = [], []

        def wait(self, refs, num_returns=1, timeout=None):
            if num_returns == len(refs) and timeout is not None:  # the others, cancelled:
                return [r for r in refs if r != 4], [4]  # 4 does not end in time
            return [refs[0]], refs[1:]

        def cancel(self, ref):
            self.cancelled.append(ref)

        def get(self, ref):
            self.read.append(ref)
            raise RuntimeError(f"chunk {ref} cancelled")

    def take(ref):
        if ref == 1:
            raise RuntimeError("chunk 1 failed")

    ray = Cluster()
    with pytest.raises(RuntimeError, match="^chunk 1 failed$"):
        collect(ray, list(range(5)), take, _two_run)
    assert ray.cancelled == [] and ray.read == [2, 3]  # (turned away by the gate)


def test_a_cluster_gone_while_a_chunk_fails_leaves_the_chunks_error():
    """forget's own wait failing (the cluster unreachable) hid the chunk's error (a
    review)."""
    from hfrender.engine.ray_wait import collect

    class Cluster:
        waits = 0

        def wait(self, refs, num_returns=1, timeout=None):
            self.waits += 1
            if self.waits > 1:
                raise ConnectionError("GCS connection lost")
            return [refs[0]], refs[1:]

        def cancel(self, ref):
            pass

    def take(ref):
        raise RuntimeError(f"chunk {ref} failed: the real error")

    with pytest.raises(RuntimeError, match="^chunk 0 failed: the real error$"):
        collect(Cluster(), list(range(3)), take, _two_run)


def test_the_gate_turns_away_a_failed_jobs_chunks_not_begun_and_no_others():
    """A batch job failing on Ray: its chunks not begun are turned away by the gate (were
    ray.cancel'ed, whose race with a task's end ended the driver, exit 1 and no word: CI);
    one begun is told to stop (and Ray's retry of it turned away: test_ray_stop), other
    jobs' chunks pass, a retry of theirs goes on, and a closed gate turns every new one
    away."""
    from hfrender.engine.ray_wait import _Keeper

    keeper = _Keeper()
    assert keeper.enter("a1") and keeper.enter("b1")
    keeper.refuse(["a1", "a2", "a3"])
    assert not keeper.enter("a2") and not keeper.enter("a3")
    assert not keeper.enter("a1") and keeper.stopping("a1")  # begun: told to stop
    assert keeper.enter("b1") and keeper.began["b1"] == 2  # a retry of one begun
    assert keeper.enter("b2")  # another job's
    assert keeper.close() == {"a1", "b1", "b2"} and not keeper.enter("b3")


def test_rays_own_sigterm_handler_gives_way_to_the_commands(monkeypatch):
    """A batch-and-Ray trial: ``ray.init`` installs a SIGTERM handler of its own (a crash
    dump, exit 1 or 15, no segment kept, no line said); the command's, in place before it,
    is put back (exit 143 and "interrupted: the N finished segments ... are kept")."""
    import signal

    ray = pytest.importorskip("ray")
    import hfrender.engine.ray_connect as ray_connect
    from hfrender.cli.common import sigterm_interrupts

    def init(**kwargs):  # as Ray's core does
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    monkeypatch.setattr(ray_connect, "_answers", lambda *a: None)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", init)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with sigterm_interrupts():
        ours = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
        assert ray_connect.connect(None) is ray
        assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == ours
    assert ours[0] not in (signal.SIG_DFL, None)


def test_another_sequences_frames_at_its_names_are_refused_before_any_work(tmp_path):
    """A Ray render of shot_%d.png whose frames 100 on are shot_%03d.png's is refused in
    its preparation, before Ray is asked for anything (as a local render is)."""
    from hfrender.config import RenderConfig
    from hfrender.engine.cluster import ClusterRender
    from hfrender.io.writers import PngSequenceWriter, WriterError

    rng = np.random.default_rng(5)
    with PngSequenceWriter(str(tmp_path / "s_%03d.png"), (8, 4), start=101) as w:
        w.write((rng.random((4, 8, 3)) * 255).astype(np.uint8))
    frag = tmp_path / "bar.frag"
    frag.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 8.0); }\n")
    config = RenderConfig(output=str(tmp_path / "s_%d.png"), size=(8, 4), samples=1,
                          duration=3.5)
    with pytest.raises(WriterError, match=rf"^-o {tmp_path / 's_%d.png'}: "
                                          rf"{tmp_path / 's_101.png'} is a frame of another "
                                          r"sequence \(another pattern printing the same "
                                          r"names\), which hfrender does not replace"):
        ClusterRender(frag, config).prepare()
    assert ClusterRender(frag, config.with_(frames=(0, 101))).prepare().total == 101


def test_a_local_runs_segments_on_ray_are_said_why_they_are_not_taken(tmp_path, caplog):
    """A batch stopped here and run again with --ray started over, told the settings were
    not the same (they were: a batch user's trial); its segments were drawn with this
    machine's GL and backend, which a Ray run's chunks each record for themselves."""
    from hfrender.engine.cluster import whole_segments
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


def test_a_first_ctrl_c_keeps_the_chunk_running_out_of_order_on_a_real_ray(local_ray,
                                                                            tmp_path):
    """A Ray trial: tasks of several shapes (a batch's) run out of the order they were sent.
    One CPU held, two tasks of two CPUs wait, the third task (one CPU) runs: the first
    Ctrl-C keeps it and turns the two waiting away (was: the first two kept, the one running
    cancelled, its work lost). The gate also says which began when asked straight."""
    import time

    from hfrender.engine.ray_wait import Gate, collect

    ray = local_ray

    def hold(marker: str, seconds: float) -> str:
        Path(marker).write_text("began")
        time.sleep(seconds)
        return marker

    blocker = ray.remote(num_cpus=1)(hold).remote(str(tmp_path / "blocker"), 60)
    _until(lambda: (tmp_path / "blocker").exists())
    gate = Gate(ray)
    wide = [gate.task(hold, num_cpus=2)(str(tmp_path / f"wide{k}"), 0) for k in range(2)]
    narrow = gate.task(hold, num_cpus=1)(str(tmp_path / "narrow"), 2)
    _until(lambda: (tmp_path / "narrow").exists())

    taken: list = []
    try:
        with pytest.raises(KeyboardInterrupt):
            collect(_FirstWaitInterrupted(ray), [*wide, narrow],
                    lambda ref: taken.append(ray.get(ref)), gate.running)
    finally:
        ray.cancel(blocker, force=True)
    assert taken == [str(tmp_path / "narrow")]
    for ref in wide:  # turned away by the gate as they start (None), not ray.cancel'ed
        assert ray.get(ref, timeout=30) is None
    assert not (tmp_path / "wide0").exists() and not (tmp_path / "wide1").exists()


class _FirstWaitInterrupted:
    """Ray, its first wait interrupted (a Ctrl-C while the driver waits)."""

    def __init__(self, ray):
        self.ray, self.waits = ray, 0

    def __getattr__(self, name):
        return getattr(self.ray, name)

    def wait(self, refs, **kw):
        self.waits += 1
        if self.waits == 1:
            raise KeyboardInterrupt
        return self.ray.wait(refs, **kw)


def _until(ready, timeout: float = 60.0) -> None:
    import time

    deadline = time.time() + timeout
    while not ready():
        assert time.time() < deadline, "timed out"
        time.sleep(0.05)


def test_segments_that_do_not_make_the_frames_once_each_are_never_joined():
    """A review: segments cut two ways overlapped in a join (147 frames for 90); before a
    join they are checked to make frames 0..total - 1 once each, in order."""
    from hfrender.engine.cluster import tiled

    def seg(first, count):
        return {"first": first, "count": count}

    assert tiled([seg(36, 54), seg(0, 36)], 90) == [seg(0, 36), seg(36, 54)]
    for bad in ([seg(0, 36), seg(32, 58)], [seg(0, 36)], [seg(0, 36), seg(36, 60)],
                [seg(1, 89)], []):
        with pytest.raises(RuntimeError, match=r"do not make frames 0\.\.89 once each$"):
            tiled(bad, 90)


def test_a_gate_slow_to_close_lets_the_chunks_kept_run(local_ray, tmp_path, monkeypatch):
    """A review: where the gate's actor did not answer the stop in time (still starting,
    say), the chunks kept by the fallback met its late close and came back as None, read
    as chunks (a TypeError). The actor is killed instead: every task passes, and those
    kept are taken whole; a None (turned away) is the stop's, never a chunk."""
    import time

    import hfrender.engine.ray_wait as ray_wait

    ray = local_ray

    def hold(marker: str, seconds: float) -> dict:
        Path(marker).write_text("began")
        time.sleep(seconds)
        return {"marker": marker}

    blockers = [ray.remote(num_cpus=1)(hold).remote(str(tmp_path / f"b{k}"), 3)
                for k in range(2)]  # the cluster busy: the chunks wait
    _until(lambda: (tmp_path / "b0").exists() and (tmp_path / "b1").exists())
    gate = ray_wait.Gate(ray)
    refs = [gate.task(hold, num_cpus=1)(str(tmp_path / f"c{k}"), 0) for k in range(4)]
    monkeypatch.setattr(ray_wait, "CLOSE_WAIT_S", 0.0)  # its answer comes too late

    taken: list = []
    with pytest.raises(KeyboardInterrupt):
        ray_wait.collect(_FirstWaitInterrupted(ray), refs,
                         lambda ref: ray_wait.taken(ray, ref, taken.append), gate.running)
    ray.get(blockers)
    assert sorted(t["marker"] for t in taken) == [  # 2 CPUs' worth, in the order they end
        str(tmp_path / f"c{k}") for k in range(2)]
    # a task turned away (None) is no chunk: counted as cancelled, the others still taken
    # (was: read as a chunk, then a second stop that dropped the chunks still running)
    fake = type("R", (), {"get": staticmethod(lambda ref: None if ref == "a" else {"n": ref})})
    assert ray_wait.taken(fake, "a", taken.append) is ray_wait.TURNED_AWAY
    kept: list = []

    class Stopped(_FirstWaitInterrupted):  # the stop, then "a" (turned away), then "b"
        def wait(self, refs, num_returns=1, timeout=None):
            self.waits += 1
            if self.waits == 1:
                raise KeyboardInterrupt
            if timeout == 0:
                return [], list(refs)
            return [refs[0]], list(refs[1:])

    with pytest.raises(KeyboardInterrupt):
        ray_wait.collect(Stopped(fake), ["a", "b"], lambda ref: ray_wait.taken(
            fake, ref, kept.append), lambda waiting: waiting)
    assert kept == [{"n": "b"}]


def test_keep_samples_with_ray_is_refused_before_the_store_there_is_said_replaced(tmp_path,
                                                                                  capsys, caplog):
    """The refusal alone (was, once the render's checks moved to engine/settings.py: "the
    store there ... is replaced once this render completes" first, for a render that never
    starts)."""
    assert main(["render", BAR, "-o", str(tmp_path / "a.mp4"), "--size", "64x16",
                 "--duration", "0.1", "--samples", "1", "--keep-samples",
                 str(tmp_path / "kept.samples"), "--quiet"]) == 0
    capsys.readouterr()
    caplog.clear()
    assert main(["render", BAR, "-o", str(tmp_path / "x.mp4"), "--ray", "--keep-samples",
                 str(tmp_path / "kept.samples")]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --keep-samples with --ray: a sample store is written by one render; "
        "render it locally to keep its sub-frames\n")
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == []


RAY_EMPTY = ("--ray '': no address; give a cluster's ('auto' or HOST:PORT), or --ray alone "
             "for a Ray started here")


@pytest.mark.parametrize("command", ["render", "fx", "batch"])
def test_an_empty_ray_address_is_refused_not_run_here(tmp_path, capsys, monkeypatch, command):
    """``--ray ''`` (an address variable unset) ran locally, exit 0, unsaid (a bad-input
    sweep): refused, before any work."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.mp4").write_bytes(b"")
    (tmp_path / "jobs.toml").write_text(f'[[job]]\nname = "a"\nscene = "{BAR}"\n'
                                        'output = "a.mp4"\nsize = "16x8"\nduration = 0.1\n')
    argv = {"render": ["render", BAR, "-o", "o.mp4", "--size", "16x8", "--duration", "0.1"],
            "fx": ["fx", "in.mp4", "-o", "o.mp4", "--motion-blur", "2"],
            "batch": ["batch", "jobs.toml"]}[command]
    assert main([*argv, "--ray", ""]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {RAY_EMPTY}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mp4", "jobs.toml"]


def test_what_ray_sends_at_most_is_said_in_decimal_units(tmp_path, monkeypatch):
    """The fixed limits of what goes to the workers were said as '100 MiB' and '2 GiB'
    (``>> 20``, ``>> 30``) where every other size line says decimal units: now in those,
    the same bytes (100 MiB: 104,857,600 B, 105 MB; 2 GiB: 2,147,483,648 B, 2.1 GB)."""
    import subprocess

    import imageio_ffmpeg

    from hfrender.config import ConfigError
    from hfrender.engine import cluster, cluster_fx
    from hfrender.engine.fx_settings import FxSettings
    from hfrender.errors import InputError

    rng = np.random.default_rng(7)
    (tmp_path / "scene").mkdir()
    (tmp_path / "scene" / "a.bin").write_bytes(rng.bytes(1500))
    monkeypatch.setattr(cluster, "WORKING_DIR_LIMIT", 1200)  # 1,500 B past 1,200 B: 1.2 KB
    with pytest.raises(ConfigError, match=r"^--ray: .*scene \(the scene's folder, sent to "
                                          r"every worker\) holds more than 1\.2 KB; move "):
        cluster.scene_files(tmp_path / "scene")
    clip = tmp_path / "in.mp4"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc=size=64x36:rate=30", "-frames:v", "30",
                    "-pix_fmt", "yuv420p", str(clip)], check=True)
    assert clip.stat().st_size > 999
    monkeypatch.setattr(cluster_fx, "INPUT_LIMIT", 999)  # 999 B: whole, under 1 KB
    with pytest.raises(InputError, match=rf"^--ray: {clip} is larger than 999 B, more than "
                                         r"hfrender sends to the workers; run it without "
                                         r"--ray$"):
        cluster_fx.ClusterFx(str(clip), str(tmp_path / "o.mp4"), FxSettings()).prepare()
    assert not (tmp_path / "o.mp4").exists()
