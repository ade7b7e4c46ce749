"""An installing user's trial: a missing or wrong ffmpeg, names that are not UTF-8, a
terminal that cannot show a name, what the machine lacks told as refused (exit 2), and the
declared floors of the dependencies the code needs."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hfrender.backends
import hfrender.backends.cuda
from hfrender.cli import main
from hfrender.errors import BackendUnavailable, ToolUnavailable
from hfrender.io import ffmpeg_binary

ROOT = Path(__file__).resolve().parents[1]
BAR = str(Path(__file__).parent / "data" / "bar.frag")
SMALL = ["--size", "32x8", "--samples", "2", "--duration", "0.2"]


@pytest.fixture
def fresh_check():
    ffmpeg_binary.checked.cache_clear()
    yield
    ffmpeg_binary.checked.cache_clear()


def _not_ffmpeg(tmp_path):
    fake = tmp_path / "fake-ffmpeg"
    fake.write_text("#!/bin/sh\necho 'hello from a script'\n")
    fake.chmod(0o755)
    return fake


@pytest.mark.parametrize("what, why", [
    ("missing", "no ffmpeg at IMAGEIO_FFMPEG_EXE={}: no such file; "),
    ("folder", "no ffmpeg at IMAGEIO_FFMPEG_EXE={}: not an executable file; "),
    ("script", "IMAGEIO_FFMPEG_EXE={} is not an ffmpeg: its -version says "
               "'hello from a script'; "),
])
@pytest.mark.parametrize("output", ["r.mp4", "r.gif"])
def test_a_wrong_ffmpeg_is_one_line_before_any_work(tmp_path, monkeypatch, capsys,
                                                    fresh_check, what, why, output):
    """Was: a traceback and "internal error ... a bug in hfrender" (exit 1), or, for a
    program that is not an ffmpeg, "this ffmpeg has no such encoder"."""
    exe = {"missing": tmp_path / "none" / "ffmpeg", "folder": tmp_path,
           "script": _not_ffmpeg(tmp_path)}[what]
    monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", str(exe))
    assert main(["render", BAR, "-o", str(tmp_path / output), *SMALL]) == 2
    err = capsys.readouterr().err
    assert err == (f"hfrender: error: {why.format(exe)}point IMAGEIO_FFMPEG_EXE at an "
                   "ffmpeg, or unset it for imageio-ffmpeg's own\n")
    assert not (tmp_path / output).exists()


def test_no_ffmpeg_at_all_says_how_to_get_one(monkeypatch, fresh_check):
    import imageio_ffmpeg

    def none():
        raise RuntimeError("No ffmpeg exe could be found. Install ffmpeg on your system, "
                           "or set the IMAGEIO_FFMPEG_EXE environment variable.")

    monkeypatch.delenv("IMAGEIO_FFMPEG_EXE", raising=False)
    monkeypatch.setattr(imageio_ffmpeg, "get_ffmpeg_exe", none)
    with pytest.raises(ToolUnavailable, match=r"^no ffmpeg on this machine \(imageio-ffmpeg "
                       r"brings none for it\): pip install -U imageio-ffmpeg, or install "
                       r"ffmpeg \(apt install ffmpeg\) and set IMAGEIO_FFMPEG_EXE="):
        ffmpeg_binary.ffmpeg_exe()
    assert ffmpeg_binary.ffmpeg_exe("/given/ffmpeg") == "/given/ffmpeg"  # never checked


def test_the_ffmpeg_found_is_checked_once_a_process(monkeypatch, fresh_check):
    import imageio_ffmpeg

    monkeypatch.delenv("IMAGEIO_FFMPEG_EXE", raising=False)
    runs = []
    real = subprocess.run
    monkeypatch.setattr(ffmpeg_binary.subprocess, "run",
                        lambda *a, **k: runs.append(a[0]) or real(*a, **k))
    exe = imageio_ffmpeg.get_ffmpeg_exe()
    assert ffmpeg_binary.ffmpeg_exe() == exe and ffmpeg_binary.ffmpeg_exe() == exe
    assert runs == [[exe, "-version"]]


def test_fx_from_frames_to_frames_needs_no_ffmpeg(tmp_path, monkeypatch, capsys, fresh_check):
    """As the README says: writing an image sequence needs none (was: fx listed ffmpeg's
    encoders for every output, and refused 8-bit PNGs in, PNGs out without one)."""
    from PIL import Image

    from hfrender.io.writers import ffmpeg_encoders

    for i in range(3):
        Image.new("RGB", (16, 8), (40 * i, 80, 120)).save(tmp_path / f"in_{i:04d}.png")
    monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", str(tmp_path / "none" / "ffmpeg"))
    ffmpeg_encoders.cache_clear()  # asked afresh: a list this process has would hide it
    try:
        args = ["fx", str(tmp_path / "in_%04d.png"), "--motion-blur", "2", "-q", "-o"]
        assert main([*args, str(tmp_path / "out_%04d.png")]) == 0
        assert sorted(p.name for p in tmp_path.glob("out_*.png")) == [
            "out_0000.png", "out_0001.png", "out_0002.png"]
        assert main([*args, str(tmp_path / "out.mp4")]) == 2  # a video still needs one
        assert capsys.readouterr().err.startswith("hfrender: error: no ffmpeg at ")
    finally:
        ffmpeg_encoders.cache_clear()


def test_a_backend_this_machine_lacks_is_refused_exit_2(tmp_path, monkeypatch, capsys):
    """Was exit 1, where a missing Ray, OpenEXR or display exits 2 (refused before work)."""
    def no_cuda():
        raise BackendUnavailable("no CUDA driver: libcuda.so.1 cannot be loaded")

    monkeypatch.delitem(hfrender.backends._cache, "cuda", raising=False)
    monkeypatch.setattr(hfrender.backends.cuda, "create", no_cuda)
    out = tmp_path / "r.mp4"
    assert main(["render", BAR, "-o", str(out), "--backend", "cuda", *SMALL]) == 2
    assert capsys.readouterr().err == ("hfrender: error: no CUDA driver: libcuda.so.1 cannot "
                                       "be loaded\n")
    assert not out.exists()


def test_an_output_name_not_in_utf8_renders(tmp_path, capsys):
    """Was: UnicodeEncodeError from the output's lock (an internal error, exit 1)."""
    name = os.fsdecode(b"caf\xe9")  # Latin-1 bytes: a lone surrogate in Python
    for out in (tmp_path / f"{name}.mp4", tmp_path / name / "%04d.png"):
        assert main(["render", BAR, "-o", str(out), *SMALL]) == 0
    assert (tmp_path / os.fsdecode(b"caf\xe9.mp4")).stat().st_size > 0
    assert sorted(os.listdir(os.fsencode(tmp_path / name))) == [
        b"0000.png", b"0001.png", b"0002.png", b"0003.png", b"0004.png", b"0005.png"]
    assert capsys.readouterr().out.count("wrote ") == 2


def test_a_name_the_terminal_cannot_show_is_escaped_in_the_report(tmp_path):
    """Was: the render written, then UnicodeEncodeError printing its summary (exit 1)."""
    out = tmp_path / "ñ.mp4"
    env = dict(os.environ, PYTHONIOENCODING="ascii", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "hfrender", "render", BAR, "-o", str(out),
                           *SMALL], env=env, capture_output=True, text=True,
                          encoding="ascii", timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {tmp_path}/\\xf1.mp4: 6 frames 32x8")
    assert out.stat().st_size > 0


def test_plot_says_why_matplotlib_does_not_import(monkeypatch):
    from hfrender.config import ConfigError
    from hfrender.engine.bench import pyplot

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # not installed
    with pytest.raises(ConfigError, match=r"^--plot needs matplotlib: pip install "
                                          r"'hfrender\[plot\]'$"):
        pyplot()

    class Broken:  # installed, built for another NumPy
        def find_spec(self, name, path=None, target=None):
            if name == "matplotlib":
                raise ImportError("numpy.core.multiarray failed to import",
                                  name="numpy.core.multiarray")

    monkeypatch.delitem(sys.modules, "matplotlib")
    monkeypatch.setattr(sys, "meta_path", [Broken(), *sys.meta_path])
    with pytest.raises(ConfigError, match=r"^--plot: matplotlib is installed but does not "
                       r"import \(numpy.core.multiarray failed to import\): pip install -U "
                       r"'hfrender\[plot\]'$"):
        pyplot()


def test_exr_without_openexr_is_one_line_reading_or_writing(tmp_path, monkeypatch, capsys):
    """Was "EXR output needs the OpenEXR package" also for an EXR sequence read by fx."""
    monkeypatch.setitem(sys.modules, "OpenEXR", None)  # not installed
    (tmp_path / "0000.exr").write_bytes(b"v/1\x01")
    extra = "EXR files need the OpenEXR package: pip install 'hfrender[exr]'\n"
    assert main(["fx", str(tmp_path / "%04d.exr"), "-o", str(tmp_path / "o.mp4"),
                 "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: cannot read "
                                       f"{tmp_path / '0000.exr'}: {extra}")
    assert main(["render", BAR, "-o", str(tmp_path / "f/%04d.exr"), *SMALL]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {extra}"


def test_the_quality_benchmark_without_flip_says_so_before_rendering(monkeypatch):
    """Was a ModuleNotFoundError traceback once the 256-sample reference was rendered."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("quality", ROOT / "benchmarks" / "quality.py")
    quality = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(quality)
    monkeypatch.setitem(sys.modules, "flip_evaluator", None)  # not installed
    monkeypatch.setattr(quality, "render_method", lambda *a, **k: pytest.fail("rendered"))
    monkeypatch.setattr(sys, "argv", ["quality.py", "--only", "plain 8"])
    with pytest.raises(SystemExit, match=r"^quality.py scores with NVIDIA's FLIP: pip install "
                                         r"'hfrender\[bench\]'$"):
        quality.main()


def _floors():
    text = (ROOT / "pyproject.toml").read_text()
    return {m["name"].lower(): tuple(int(p) for p in m["version"].split("."))
            for m in re.finditer(r'"(?P<name>[A-Za-z0-9_-]+)(?:\[[a-z]+\])?>=(?P<version>[0-9.]+)',
                                 text)}


def test_the_declared_floors_are_what_the_code_needs():
    """Each floor was found too low by installing it: np.fft's out= (NumPy 2.0), a
    header-only OpenEXR.File's parts (3.4), trimesh.load_scene (4.6), a matplotlib built for
    NumPy 2 (3.9). Pillow is imported by hfrender itself: a dependency, not an extra's."""
    floors = _floors()
    assert floors["numpy"] >= (2, 0) and floors["openexr"] >= (3, 4)
    assert floors["trimesh"] >= (4, 6) and floors["matplotlib"] >= (3, 9)
    text = (ROOT / "pyproject.toml").read_text()
    core = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    assert '"pillow>=' in core and "OpenEXR" not in core and "trimesh" not in core
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")


def test_an_ffmpeg_named_as_a_command_on_path_is_found(tmp_path, monkeypatch, fresh_check):
    """IMAGEIO_FFMPEG_EXE=ffmpeg (imageio-ffmpeg's own fallback when it brings no binary
    is the bare name too) was refused as "no such file" by the check (a review)."""
    import imageio_ffmpeg

    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "ffmpeg").symlink_to(imageio_ffmpeg.get_ffmpeg_exe())
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", "ffmpeg")
    assert ffmpeg_binary.ffmpeg_exe() == str(tmp_path / "bin" / "ffmpeg")
    monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", "no-such-ffmpeg")
    with pytest.raises(ToolUnavailable, match="^no ffmpeg at IMAGEIO_FFMPEG_EXE=no-such-ffmpeg: "
                                              "no such file; "):
        ffmpeg_binary.ffmpeg_exe()
