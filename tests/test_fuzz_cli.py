"""A fuzz test of the command line: random values for every numeric flag and random paths,
as a new user (or a script with a bug) would give them. Never a traceback, never a lost
input file, exit 2 for bad input (0 when the value happens to be fine)."""

import hashlib
import re
import subprocess
from pathlib import Path

import imageio_ffmpeg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hfrender.cli import main

BAR = str(Path(__file__).parent / "data" / "bar.frag")
NASTY = ["0", "-1", "-0.5", "nan", "inf", "-inf", "1e300", "1e-300", "abc", "", "3",
         "0.25", "99999999999999999999", "1e9", "7"]
RENDER_FLAGS = ["--fps", "--duration", "--samples", "--shutter", "--max-coc-px",
                "--granularity", "--workers", "--seed", "--size"]
STILL_FLAGS = ["--time", "--fps", "--samples", "--shutter", "--duration", "--size"]
FX_FLAGS = ["--motion-blur", "--stride", "--fps", "--depth-scale", "--workers",
            "--focus-distance", "--f-stop", "--max-coc-px"]


BAD_EVERYWHERE = {"nan", "inf", "-inf", "abc", ""}  # no numeric flag takes these


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


BAR_DIGEST = digest(BAR)


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    path = d / "in.mp4"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc=size=32x16:rate=30", "-frames:v", "6",
                    "-pix_fmt", "yuv420p", str(path)], check=True)
    return path


def run(argv, capsys, value=None):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: a value of the wrong type
        code = exc.code
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, (argv, err)
    assert code in (0, 2), (argv, code, err)
    if value in BAD_EVERYWHERE:
        assert code == 2, (argv, err)
    if code == 2:  # argparse's refusals too: one line, no usage first
        lines = err.splitlines()
        assert len(lines) == 1 and re.match(r"hfrender( \w+)?: error: ", lines[0]), (argv, err)
    return code


def paths(tmp):
    return st.sampled_from([str(tmp / "o.mp4"), str(tmp / "missing" / "o.mp4"),
                            "/proc/o.mp4", str(tmp / "f" / "%03d.png"), str(tmp / "o.gif"),
                            str(tmp / "o.txt"), str(tmp)])


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_render_never_crashes_on_any_number(tmp_path_factory, capsys, data):
    tmp = tmp_path_factory.mktemp("r")
    flag = data.draw(st.sampled_from(RENDER_FLAGS))
    value = data.draw(st.sampled_from(NASTY + (["0x0", "7x7", "16x8x2"] if flag == "--size"
                                               else [])))
    out = data.draw(paths(tmp))
    args = ["render", BAR, "-o", out, "--size", "16x8", "--duration", "0.05", "--samples",
            "2", "--quiet", flag, value]
    run(args, capsys, value)
    assert digest(BAR) == BAR_DIGEST  # the scene file is an input too


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_still_never_crashes_on_any_number(tmp_path_factory, capsys, data):
    tmp = tmp_path_factory.mktemp("s")
    flag = data.draw(st.sampled_from(STILL_FLAGS))
    value = data.draw(st.sampled_from(NASTY))
    out = data.draw(st.sampled_from([str(tmp / "s.png"), str(tmp / "no" / "s.png"),
                                     "/proc/s.png", str(tmp / "s.jpg")]))
    run(["still", BAR, "-o", out, "--size", "16x8", "--samples", "2", "--quiet", flag, value],
        capsys, value)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fx_never_crashes_or_loses_its_input(clip, tmp_path_factory, capsys, data):
    tmp = tmp_path_factory.mktemp("x")
    before = digest(clip)
    flag = data.draw(st.sampled_from(FX_FLAGS))
    value = data.draw(st.sampled_from(NASTY))
    out = data.draw(st.one_of(paths(tmp), st.just(str(clip))))  # the input itself, too
    args = ["fx", str(clip), "-o", out, "--motion-blur", "2", "--quiet", flag, value]
    if flag in ("--focus-distance", "--f-stop", "--max-coc-px") and data.draw(st.booleans()):
        depth = tmp / "d.npy"
        import numpy as np

        np.save(depth, np.full((6, 16, 32), 2.0, np.float32))
        args += ["--depth", str(depth)]  # and the lens, but not over the value on trial
        for lens_flag in ("--focus-distance", "--f-stop"):
            if lens_flag != flag:
                args += [lens_flag, "2"]
    focused_far = flag == "--focus-distance" and value == "inf" and "--depth" in args
    run(args, capsys, None if focused_far else value)  # (focus at infinity: allowed)
    assert digest(clip) == before  # never lost, never changed
