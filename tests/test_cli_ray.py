"""`--ray` where no cluster answers: one line, at once, nothing written."""

import os
from pathlib import Path

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
    from hfrender.engine.ray_connect import connect

    asked = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **kw: asked.append(kw))
    if env is None:
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
    else:
        monkeypatch.setenv("RAY_ADDRESS", env)
    assert connect(None) is ray
    common = {"include_dashboard": False, "log_to_driver": False}
    assert asked == [{**common, "address": "local", "num_cpus": os.cpu_count()} if env is None
                     else {**common, "address": None}]
