"""`--ray` where no cluster answers: one line, at once, nothing written; what --ray refuses
before any work (Ctrl-C and failed chunks: test_cli_ray_chunks.py; batches on Ray:
test_cli_ray_batch.py)."""

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


def test_a_chunk_run_outside_ray_starts_no_ray():
    """A chunk run in a process without Ray (a test's) asked Ray for its GPU, which started
    a local Ray of Ray's defaults: the test session's shared Ray was that one, its workers'
    output printed into the tests' stderr (CI: a test counting its warnings saw 3)."""
    import subprocess
    import sys

    code = ("import ray\nfrom hfrender.engine.cluster_tasks import _task_gpu\n"
            "print(_task_gpu(), ray.is_initialized())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.split() == ["None", "False"], out.stderr[-2000:]


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
    from hfrender.engine import chunk_dir, cluster_fx
    from hfrender.engine.fx_settings import FxSettings
    from hfrender.errors import InputError

    rng = np.random.default_rng(7)
    (tmp_path / "scene").mkdir()
    (tmp_path / "scene" / "a.bin").write_bytes(rng.bytes(1500))
    monkeypatch.setattr(chunk_dir, "WORKING_DIR_LIMIT", 1200)  # 1,500 B past 1,200 B: 1.2 KB
    with pytest.raises(ConfigError, match=r"^--ray: .*scene \(the scene's folder, sent to "
                                          r"every worker\) holds more than 1\.2 KB; move "):
        chunk_dir.scene_files(tmp_path / "scene")
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
