"""Memory stays bounded whatever the numbers: the pool fits what this process may use."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hfrender.hyperframe import builder

BAR = str(Path(__file__).parent / "data" / "bar.frag")


def fake_cgroups(tmp_path, v2_limit="max", v1_limit=str((1 << 63) - 4096)):
    root = tmp_path / "cg"
    (root / "app" / "job").mkdir(parents=True)
    (root / "app" / "memory.max").write_text(f"{v2_limit}\n")
    (root / "app" / "memory.current").write_text(str(1 << 30))
    (root / "app" / "job" / "memory.max").write_text("max\n")
    (root / "memory" / "grp").mkdir(parents=True)
    (root / "memory" / "grp" / "memory.limit_in_bytes").write_text(v1_limit)
    (root / "memory" / "grp" / "memory.usage_in_bytes").write_text(str(2 << 30))
    own = tmp_path / "cgroup"
    own.write_text("4:memory:/grp\n0::/app/job\n")
    return str(root), str(own)


def test_the_cgroup_limit_counts_v2_above_and_v1():
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        root, own = fake_cgroups(Path(d), v2_limit=str(8 << 30))
        assert builder.cgroup_room(root, own) == 7 << 30  # the parent's 8 GiB less 1 in use
        root, own = fake_cgroups(Path(d) / "b", v1_limit=str(4 << 30))
        assert builder.cgroup_room(root, own) == 2 << 30  # v1: 4 GiB less 2
        root, own = fake_cgroups(Path(d) / "c")
        assert builder.cgroup_room(root, own) == 1 << 62  # no limit anywhere


def run_limited(args, limit_gib=8):
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, "
            f"({limit_gib} << 30, {limit_gib} << 30)); from hfrender.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.mark.parametrize("flags,lower", [
    (["--size", "16384x16384"], "lower --samples or --size"),
    (["--granularity", "100000"], "lower --granularity, --samples or --size"),
])
def test_a_pool_larger_than_the_address_limit_is_one_line(tmp_path, flags, lower):
    res = run_limited(["render", BAR, "-o", str(tmp_path / "o.mp4"), "--duration", "0.1",
                       "--quiet", *flags])
    assert res.returncode == 2, res.stderr
    line = res.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in res.stderr
    # 16384x16384 at 8 samples: 2 slots x 8 x 4 B x 2**28 px = 17,179,869,184 B, 17.2 GB
    # (decimal units, one decimal under 100); 640x360 in 100000: 2 x 100000 x 921,600 B =
    # 184,320,000,000 B, 184 GB (whole from 100 up)
    pool = "17.2 GB" if "--size" in flags else "184 GB"
    assert line.startswith("hfrender: error: ") and f"({pool} for 2 hyperframe slots of " in line
    assert "this process may use" in line and line.endswith(lower)


def test_a_memory_error_left_is_one_line(monkeypatch, capsys):
    from hfrender.cli import info as info_module
    from hfrender.cli import main

    def no_memory(args):
        raise MemoryError()

    monkeypatch.setattr(info_module, "cmd_info", no_memory)
    monkeypatch.setattr("hfrender.cli.cmd_info", no_memory)
    assert main(["info"]) == 1
    assert capsys.readouterr().err == ("hfrender: error: out of memory: this process may not "
                                       "use more; lower --size, --samples or --granularity (or "
                                       "--workers)\n")


def test_a_frame_too_large_to_work_on_is_refused_though_its_pool_fits(monkeypatch):
    """16384x16384 at 1 sample: the pool (3 GiB) fits 24 GiB, but drawing, fusing and
    encoding take about 100 bytes a pixel more (25 GiB): refused in one line before any
    memory is taken (was: the kernel's out-of-memory killer, rc 137). 8192x8192 fits."""
    from hfrender.config import ConfigError, RenderConfig
    from hfrender.engine import memory_fit
    from hfrender.sampler import SampleSchedule

    monkeypatch.setattr(builder, "free_memory_bytes", lambda: 24 << 30)
    plan = SampleSchedule(fps=30, samples=1).plan(1)
    for side, refused in ((16384, True), (8192, False)):
        config = RenderConfig(size=(side, side), samples=1)
        pixels = side * side
        if not refused:
            memory_fit.check_granularity(config, plan, 4 * pixels)
            continue
        with pytest.raises(ConfigError) as err:
            memory_fit.check_granularity(config, plan, 4 * pixels)
        # 3 x 4 B x 2**28 px = 3,221,225,472 B (3.2 GB) and 100 B x 2**28 = 26,843,545,600
        # (26.8 GB): 30,064,771,072 (30.1 GB); 80% of 24 x 2**30 = 20,615,843,020.8 (20.6 GB)
        assert str(err.value) == (
            "16384x16384 with 1 sub-frame per output frame needs 30.1 GB (3.2 GB for 3 "
            "hyperframe slots of 1 sub-frame and 26.8 GB to draw, fuse and encode each "
            "frame), more than the 20.6 GB this process may use: lower --size")
    # (was "the 24.0 GiB": 80% of it compared, the whole said, a trial; and "lower --samples
    # or --size" with one sample already, a trial)
    # a heavy fusion's windows (--dof depth, reconstruction) in each of two fusion workers:
    # 1080p at 8 samples took 3.2 GB in all where 0.9 GiB was said, then ran out (a trial)
    monkeypatch.setattr(builder, "free_memory_bytes", lambda: 2 << 30)
    hd, eight = RenderConfig(size=(1920, 1080), samples=8), SampleSchedule(samples=8).plan(1)
    memory_fit.check_granularity(hd, eight, 16 * 1920 * 1080)  # plain: 1.00 of 1.72 GB
    with pytest.raises(ConfigError) as err:
        memory_fit.check_granularity(hd, eight, 16 * 1920 * 1080, heavy=True, workers=2)
    assert str(err.value).endswith(
        "1.8 GB to draw, fuse and encode each frame), more than the 1.7 GB this process may "
        "use: lower --samples (at most 5 fit at 1920x1080) or --size (or --reconstruct off, "
        "or --dof lens)")  # (3 x 5 x 16 + 100 + 2 x 48 x 5) B a pixel: 1.70 of 1.72 GB; 6: 2.00
    # (3 x 8 x 16 + 100 + 2 x 48 x 8) B x 2,073,600 px = 2,596,147,200 B, of it the pool's
    # 796,262,400 B and the work's (100 + 2 x 48 x 8) B x 2,073,600 = 1,799,884,800 B; 80%
    # of 2 GiB is 1,717,986,918 B
    assert "needs 2.6 GB (796 MB for 3 hyperframe slots of 8 sub-frames and" in str(err.value)
    # 3 x 4 B x 4096**2 px = 201,326,592 B (201 MB); of 200 << 20 = 209,715,200 B, 80% may
    # be taken: 167,772,160 B (was "more than the 210 MB": all of it said, 80% compared)
    with pytest.raises(ConfigError, match=r"^4096x4096 .* needs 201 MB for 3 hyperframe "
                       r"slots of 1 sub-frame, more than the 168 MB of the GPU's memory"):
        memory_fit.check_granularity(RenderConfig(size=(4096, 4096), samples=1), plan,
                                       4 * 4096 * 4096, free=200 << 20)


def test_a_still_sizes_the_pool_for_its_one_frame(tmp_path):
    """A still holds one output frame: one hyperframe in flight, 2 slots (it sized a
    render's 3, and refused a 1024-sample 1080p still a render's memory: a trial)."""
    res = run_limited(["still", BAR, "-o", str(tmp_path / "s.png"), "--size", "16384x16384"])
    assert res.returncode == 2, res.stderr
    # 16384x16384 at 8 samples: 2 slots x 8 x 4 B x 2**28 px = 17,179,869,184 B
    assert "(17.2 GB for 2 hyperframe slots of 8 sub-frames " in res.stderr, res.stderr


def test_a_pool_of_three_slots_too_large_renders_with_two(tmp_path, monkeypatch, caplog):
    """Where 3 hyperframe slots do not fit but 2 do, one hyperframe is in flight, the same
    pictures drawn (was: refused; 8K at 48 samples needed 20.9 GiB of 17, 2 slots 15.0, a
    trial); where 2 do not fit either, the refusal names those 2, the least it needs."""
    import logging

    import numpy as np

    import hfrender as hf
    from hfrender.config import ConfigError
    from hfrender.hyperframe.pool import sub_frame_bytes

    scene = Path(__file__).parent.parent / "scenes" / "orbit.py"
    opts = {"size": (64, 36), "samples": 8, "duration": 0.3, "progress": False}
    sub = sub_frame_bytes((36, 64, 4), np.uint8, False, False)
    work = 100 * 64 * 36  # memory_fit.WORK_BYTES_PER_PIXEL
    hf.render(scene, tmp_path / "a" / "%02d.png", **opts)
    monkeypatch.setattr(builder, "free_memory_bytes",
                        lambda: int((2 * 8 * sub + work) / 0.8 * 1.1))  # 2 slots, not 3
    caplog.set_level(logging.INFO, logger="hfrender.engine.memory_fit")
    stats = hf.render(scene, tmp_path / "b" / "%02d.png", **opts)
    assert stats.pool_mb * 2**20 == 2 * 8 * sub
    assert "hyperframe pool: 3 slots do not fit this process's memory; 2 do" in caplog.text
    for a in sorted((tmp_path / "a").glob("*.png")):
        assert a.read_bytes() == (tmp_path / "b" / a.name).read_bytes()
    monkeypatch.setattr(builder, "free_memory_bytes",
                        lambda: int((2 * 8 * sub + work) / 0.8 * 0.9))
    # 2 x 8 x 9216 B = 147,456 B and 100 B x 2304 px = 230,400 B: 377,856 B
    with pytest.raises(ConfigError, match=r"needs 378 KB \(147 KB for 2 hyperframe slots "
                                          r"of 8 sub-frames and 230 KB to draw"):
        hf.render(scene, tmp_path / "c" / "%02d.png", **opts)


def test_a_size_past_memory_whatever_the_pool_is_refused_before_the_gl_context(
        tmp_path, monkeypatch, capsys):
    """Its work alone (100 bytes a pixel) past what this process may use: refused before the
    GL context and the scene's setup, the same line (was: after them, 16384x16384 taking 24 s
    and 6.4 GB before its refusal, a trial)."""
    from hfrender.cli import main
    from hfrender.engine import render_prepare

    def no_context(*args, **kwargs):
        raise AssertionError("a GL context was made")

    monkeypatch.setattr(builder, "free_memory_bytes", lambda: 512 << 20)
    monkeypatch.setattr(render_prepare, "create_context", no_context)
    assert main(["still", str(BAR), "-o", str(tmp_path / "s.png"), "--size", "3840x2160"]) == 2
    # 2 x 8 x 4 B x 8,294,400 px = 530,841,600 B, 100 B x 8,294,400 = 829,440,000 B: in
    # all 1,360,281,600 B; 80% of 512 << 20 = 429,496,729.6 B
    assert capsys.readouterr().err == (
        "hfrender: error: 3840x2160 with 8 sub-frames per output frame needs 1.4 GB (531 MB "
        "for 2 hyperframe slots of 8 sub-frames and 829 MB to draw, fuse and encode each "
        "frame), more than the 429 MB this process may use: lower --samples or --size\n")
    assert list(tmp_path.iterdir()) == []


def test_more_in_flight_than_fits_steps_down_to_the_most_that_fit(monkeypatch):
    # max_in_flight 4 (6 slots) where 3 slots fit: 2 in flight (was: 1, 2 slots)
    from hfrender.config import RenderConfig
    from hfrender.engine import memory_fit
    from hfrender.sampler import SampleSchedule

    plan = SampleSchedule(fps=30, samples=8).plan(1)
    sub, work = 64 * 36 * 4, 100 * 64 * 36
    monkeypatch.setattr(builder, "free_memory_bytes", lambda: int((3 * 8 * sub + work) / 0.8))
    config = RenderConfig(size=(64, 36), samples=8, max_in_flight=4)
    assert memory_fit.fitting(config, plan, sub, None, False, 1).max_in_flight == 2


def test_a_shaders_buffers_float_textures_are_counted(tmp_path, monkeypatch, capsys):
    """Each of a shader's buffers draws into an RGBA float texture of the output's size (16
    bytes a pixel, 0.5 GiB at 8K): was not counted, an 8K render with 4 buffers passed the
    check; refused before the GL context, in the same line, the textures' share said."""
    from hfrender.cli import main
    from hfrender.engine import render_prepare

    def no_context(*args, **kwargs):
        raise AssertionError("a GL context was made")

    main_image = "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n"
    for name in "ABCD":
        (tmp_path / f"buf{name}.frag").write_text(main_image)
    (tmp_path / "s.frag").write_text("".join(f"// hfrender: iChannel{i} = buf{n}.frag\n"
                                             for i, n in enumerate("ABCD")) + main_image)
    monkeypatch.setattr(builder, "free_memory_bytes", lambda: 6 << 30)  # 4.8 GiB usable
    monkeypatch.setattr(render_prepare, "create_context", no_context)
    assert main(["still", str(tmp_path / "s.frag"), "-o", str(tmp_path / "s.png"),
                 "--size", "7680x4320", "--samples", "1"]) == 2
    # 33,177,600 px: 2 x 4 B a pixel = 265,420,800 B; 4 x 16 B = 2,123,366,400 B of
    # textures, with 100 B a pixel 5,441,126,400 B of work; in all 5,706,547,200 B; 80% of
    # 6 << 30 = 5,153,960,755.2 B
    assert capsys.readouterr().err == (
        "hfrender: error: 7680x4320 with 1 sub-frame per output frame needs 5.7 GB (265 MB "
        "for 2 hyperframe slots of 1 sub-frame and 5.4 GB to draw, fuse and encode each "
        "frame, 2.1 GB of it the float textures of 4 shader buffers), more than the 5.2 GB "
        "this process may use: lower --size\n")
    assert not (tmp_path / "s.png").exists()
    # and as the pool is sized (one buffer at 4K: 0.1 GiB more, past what fits)
    from hfrender.config import ConfigError, RenderConfig
    from hfrender.engine import memory_fit
    from hfrender.sampler import SampleSchedule

    monkeypatch.setattr(builder, "free_memory_bytes", lambda: int(1.1 * 2**30))
    config, plan = RenderConfig(size=(3840, 2160), samples=1), SampleSchedule(samples=1).plan(1)
    memory_fit.check_granularity(config, plan, 4 * 3840 * 2160)
    # 8,294,400 px: 3 x 4 B = 99,532,800 B; 16 B = 132,710,400 B of textures, with 100 B
    # 962,150,400 B of work; in all 1,061,683,200 B; 80% of int(1.1 x 2**30) = 944,892,804.8
    with pytest.raises(ConfigError, match=r"needs 1\.1 GB \(99\.5 MB for 3 hyperframe slots of 1 "
                       r"sub-frame and 962 MB to draw, fuse and encode each frame, 133 MB "
                       r"of it the float textures of 1 shader buffer\), more than the 945 MB "):
        memory_fit.check_granularity(config, plan, 4 * 3840 * 2160, buffers=1)


def test_too_many_samples_are_refused_with_the_most_that_fit(tmp_path, monkeypatch, capsys):
    """The user's `still rings.frag --samples 4096 --size 1920x1080`: was refused with
    "lower --samples or --size" alone. A still's pool is 2 slots of `samples` sub-frames of
    4 bytes a pixel, its work 100 bytes a pixel: at 1920x1080 with 16 GiB usable, (16 GiB -
    100 B x 2073600) / (2 x 4 B x 2073600) = 1023.1 sub-frames fit. Said in decimal units:
    the pool 2 x 4096 x 4 B x 2,073,600 = 67,947,724,800 B (67.9 GB), the work 207,360,000 B
    (207 MB), in all 68,155,084,800 B (68.2 GB); 16 GiB = 17,179,869,184 B (17.2 GB)."""
    from hfrender.cli import main
    from hfrender.config import ConfigError, RenderConfig
    from hfrender.engine import memory_fit
    from hfrender.sampler import SampleSchedule

    (tmp_path / "rings.frag").write_text("void mainImage(out vec4 c, in vec2 p) { c = "
                                         "vec4(fract(length(p) / 8.0)); }\n")
    monkeypatch.setattr(builder, "free_memory_bytes", lambda: 20 << 30)  # 16 GiB usable
    assert main(["still", str(tmp_path / "rings.frag"), "-o", str(tmp_path / "r.png"),
                 "--samples", "4096", "--size", "1920x1080"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: 1920x1080 with 4096 sub-frames per output frame needs 68.2 GB "
        "(67.9 GB for 2 hyperframe slots of 4096 sub-frames and 207 MB to draw, fuse and "
        "encode each frame), more than the 17.2 GB this process may use: lower --samples "
        "(at most 1023 fit at 1920x1080) or --size\n")
    pixels, one = 1920 * 1080, RenderConfig(size=(1920, 1080), samples=1, max_in_flight=1)
    for samples, fits in ((1023, True), (1024, False)):  # as said: 1023 the most
        config = one.with_(samples=samples)
        plan = SampleSchedule(samples=samples).plan(1)
        if fits:
            memory_fit.check_granularity(config, plan, 4 * pixels)
        else:
            with pytest.raises(ConfigError, match=r"lower --samples \(at most 1023 fit"):
                memory_fit.check_granularity(config, plan, 4 * pixels)
    # where one sub-frame does not fit either (the frame's work alone), no count is said
    monkeypatch.setattr(builder, "free_memory_bytes", lambda: 200 << 20)
    with pytest.raises(ConfigError, match=r"this process may use: lower --samples or "
                                          r"--size$"):
        memory_fit.check_granularity(one.with_(samples=8), SampleSchedule(samples=8).plan(1),
                                       4 * pixels)
