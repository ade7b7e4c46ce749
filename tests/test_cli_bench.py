"""`hfrender bench`: the grid of granularity x fusion workers, its refusals."""

import re
from pathlib import Path

import pytest

from hfrender.cli import build_parser, main

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test
BAR = str(Path(__file__).parent / "data" / "bar.frag")


def test_bench_prints_the_grid_with_the_best_marked(capsys, tmp_path):
    plot = tmp_path / "grid.png"
    args = ["bench", BAR, "--frames", "6", "--outputs", "1,2", "--grid-workers", "1,2",
            "--size", "32x8", "--samples", "2"]
    try:
        import matplotlib  # noqa: F401
        args += ["--plot", str(plot)]
    except ImportError:
        plot = None
    assert main(args) == 0
    out = capsys.readouterr().out
    # the backend that fuses, not "auto" (was "fusion auto")
    from hfrender.backends import get_backend
    assert out.startswith(f"bar.frag: 6 frames 32x8 x 2 samples, fusion {get_backend().name} ")
    assert "(one run a cell: --repeats 3 steadies the figures)\n" in out
    rows = [line.split() for line in out.splitlines() if re.match(r"\s+(\d+|auto=\d+)\s", line)]
    # granularity (sub-frames), its output frames (--outputs: 2 samples a frame), workers
    assert [tuple(r[:3]) for r in rows[:4]] == [("2", "1", "1"), ("2", "1", "2"),
                                                ("4", "2", "1"), ("4", "2", "2")]
    assert rows[-1][0].startswith("auto=") and len(rows) == 5
    assert int(rows[-1][1]) == int(rows[-1][0][5:]) // 2
    best = [r for r in rows if r[-1] == "best"]
    assert len(best) == 1 and rows[-1][2] == best[0][2]  # auto runs with the best's workers
    fps = [float(r[3]) for r in rows]
    assert all(f > 0 for f in fps) and all(float(r[4]) > 0 for r in rows)  # fps, latency
    # the best is the grid's highest throughput (auto, measured beside it, is not a candidate)
    assert float(best[0][3]) == max(fps[:4]) and best[0] in rows[:4]
    assert [float(r[5]) for r in rows[:4]] == sorted(float(r[5]) for r in rows[:4])  # memory
    ratio = float(re.search(r"auto / best = (\d+\.\d\d)\n", out).group(1))
    assert ratio == pytest.approx(fps[-1] / max(fps[:4]), rel=0.01, abs=0.01)
    fastest = (f"--workers {rows[-1][2]} (granularity auto, the default)" if fps[-1] >
               max(fps[:4]) else f"--granularity {best[0][0]} --workers {best[0][2]}")
    assert f"\nfastest here: {fastest}, beside the render settings benched\n" in out
    if plot is not None:
        assert plot.stat().st_size > 1000


def test_bench_says_a_warning_every_cell_gives_once(capsys, caplog, tmp_path):
    """The scene's motion warning was said once a cell (11 times by default)."""
    from test_render import write_scene

    scene = write_scene(tmp_path, """
    class Fast(hf.Scene):
        duration = 1.0

        def setup(self):
            self.ball = self.add(hf.Sphere(radius=0.2))
            self.camera.position = (0, 0, 4)

        def update(self, t):
            self.ball.position = (-1 + 90 * t, 0, 0)
    """)
    with caplog.at_level("WARNING"):
        assert main(["bench", str(scene), "--frames", "2", "--outputs", "1,2",
                     "--grid-workers", "1", "--size", "64x36", "--samples", "2"]) == 0
    told = [r.getMessage() for r in caplog.records]
    assert len(told) == 1 and told[0].startswith("frame 0 moves up to "), told


def test_bench_takes_a_short_scenes_frames_all(capsys, tmp_path):
    """--frames 48 (the default) of a scene of 6 frames: "nothing to render" after the
    header; now the scene's 6, said."""
    assert main(["bench", BAR, "--duration", "0.2", "--outputs", "1", "--grid-workers", "1",
                 "--size", "32x8", "--samples", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("bar.frag: 6 frames (the scene's all; --frames 48 asked) 32x8 x 2 "
                          "samples, ")


def test_bench_rejects_bad_lists(capsys):
    for given, said in ((["--outputs", "1,x"], "--outputs 1,x must be a comma-separated "
                         "list of integers >= 1"),
                        (["--outputs", "1,,2"], "--outputs 1,,2 must be a comma-separated "
                         "list of integers >= 1"),  # (was: taken as 1,2)
                        (["--grid-workers", "1,99"], "--grid-workers 1,99 must be a "
                         "comma-separated list of integers >= 1 and <= 64")):
        assert main(["bench", BAR, *given]) == 2
        out, err = capsys.readouterr()
        assert err == f"hfrender: error: {said}\n" and out == ""  # before the header


@pytest.mark.parametrize("given,said", [
    (["--codec", "libx265"], "--codec libx265: bench discards its frames, no encoder runs"),
    (["--resume"], "--resume: bench writes no video to resume"),
    (["--granularity", "8"], "--granularity 8: bench tries its own: give --outputs"),
    (["--workers", "2"], "--workers 2: bench tries its own: give --grid-workers"),
    # was: the grid's header printed, then "-o bench.mp4 is a video" (bench has no -o)
    (["--bit-depth", "16"], "--bit-depth 16: bench discards its frames, no file is written"),
    # was: an internal error; then "must be an integer >= 1", beside 101's "from 1 to 100"
    (["--repeats", "0"], "--repeats 0 must be an integer from 1 to 100 (runs per cell, the "
     "best kept)\n"),
    (["--repeats", "-2"], "--repeats -2 must be an integer from 1 to 100 (runs per cell, "
     "the best kept)\n"),
    (["--frames", "0"], "--frames 0 must be an integer >= 1"),
    # was: taken, and the grid ran its first cell 10**12 times (a sweep's only hang)
    (["--repeats", "1000000000000"], "--repeats 1000000000000 must be an integer from 1 to "
     "100 (runs per cell, the best kept)"),
    (["--repeats", "101"], "--repeats 101 must be an integer from 1 to 100"),
])


def test_bench_refuses_the_render_options_it_would_ignore(capsys, given, said):
    assert main(["bench", BAR, *given]) == 2
    out, err = capsys.readouterr()
    assert len(err.splitlines()) == 1 and said in err and not out, (out, err)


def test_bench_help_shows_only_what_bench_does():
    """The render options bench refuses (each with what to give instead, above) are not in
    its --help (were: --preview, --resume, --codec, --stats, --granularity, --workers and
    --bit-depth listed as if bench took them)."""
    shown = build_parser()._subparsers._group_actions[0].choices["bench"].format_help()
    for flag in ("--preview", "--resume", "--codec", "--stats", "--granularity", "--workers ",
                 "--bit-depth"):
        assert flag not in shown, flag
    for flag in ("--outputs", "--grid-workers", "--samples", "--dof", "--size"):
        assert flag in shown, flag


def test_bench_ctrl_c_prints_the_cells_measured_so_far(capsys, monkeypatch):
    """A Ctrl-C in the third cell: the two measured are printed, the best of them marked,
    and one line says how many of the grid's they are; exit 130 (was "hfrender:
    interrupted" alone, every figure lost)."""
    from hfrender.engine import bench

    measured = [bench.Cell(2, 1, 10.0, 50.0, 1.5, 2), bench.Cell(2, 2, 12.5, 40.0, 1.5, 2)]

    def run_cell(scene, config, frames, scene_name, repeats=1):
        if not measured:
            raise KeyboardInterrupt
        return measured.pop(0)

    monkeypatch.setattr(bench, "run_cell", run_cell)
    assert main(["bench", BAR, "--frames", "4", "--outputs", "1,2", "--grid-workers", "1,2",
                 "--size", "32x8", "--samples", "2"]) == 130
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == [
        "granularity frames workers      fps latency ms      pool",
        "          2      1       1     10.0       50.0    1.6 MB",
        "          2      1       2     12.5       40.0    1.6 MB best"]  # (1.5 MiB)
    assert err.splitlines()[-1] == "interrupted: 2 of 5 cells measured (above; auto's cell not)"


def test_bench_ctrl_c_before_any_cell_says_none_was_measured(capsys, monkeypatch):
    from hfrender.engine import bench

    def run_cell(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(bench, "run_cell", run_cell)
    assert main(["bench", BAR, "--frames", "4", "--outputs", "1", "--grid-workers", "1",
                 "--size", "32x8", "--samples", "2"]) == 130
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1  # the header alone
    assert err.splitlines()[-1] == "interrupted: 0 of 2 cells measured"


def test_bench_refuses_outputs_past_the_largest_hyperframe_before_the_header(capsys):
    """Was: the header, then "granularity=1200000 must be an integer from 1 to 1048576"
    (an option bench refuses, a value never given)."""
    assert main(["bench", BAR, "--outputs", "1,600000", "--size", "32x8", "--samples",
                 "2"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == ("hfrender: error: --outputs 600000: at most 524288 output "
                                 "frames a hyperframe of 1048576 sub-frames (2 an output "
                                 "frame)\n")


def test_bench_says_a_pool_past_memory_as_the_outputs_to_lower(capsys, monkeypatch):
    """A cell whose pool would not fit: the cells measured before it printed, and the
    refusal names the --outputs value and says lower --outputs (was: "lower --granularity",
    which bench refuses, and the measured cells lost)."""
    from hfrender.hyperframe import builder

    monkeypatch.setattr(builder, "free_memory_bytes", lambda: 10 * 2**20)
    assert main(["bench", BAR, "--frames", "2", "--outputs", "1,4096", "--grid-workers", "1",
                 "--size", "32x8", "--samples", "2"]) == 2
    out, err = capsys.readouterr()
    rows = out.splitlines()[2:]
    assert len(rows) == 1 and rows[0].split()[:3] == ["2", "1", "1"], out
    assert err.startswith("hfrender: error: --outputs 4096: 32x8 with 2 sub-frames per "
                          "output frame needs ") and len(err.splitlines()) == 1, err
    assert err.endswith("this process may use: lower --outputs, --samples or --size\n"), err


def test_bench_says_the_machine_it_measured(capsys, gl_context):
    """The figures are one machine's: its GL renderer (as a render's summary says it) and
    the CPU cores the process may use (was: unsaid)."""
    from hfrender.engine.render_setup import usable_cores

    glctx = gl_context("egl", size=(8, 8))
    renderer = glctx.renderer
    glctx.release()
    assert main(["bench", BAR, "--frames", "2", "--outputs", "1", "--grid-workers", "1",
                 "--size", "32x8", "--samples", "2"]) == 0
    out = capsys.readouterr().out
    cores = usable_cores()
    assert (f"\nmeasured on {renderer}, {cores} CPU core{'' if cores == 1 else 's'}\n"
            "fastest here: ") in out, out


def test_bench_says_the_pool_as_every_size_line_does():
    """The pool's size (RenderStats.pool_mb, MiB) said by the sizes rule, decimal units
    (was a "pool MiB" column, 3.0 for this pool, the one size line of hfrender's own unit;
    before that "pool MB", 4.9% too few for megabytes)."""
    from types import SimpleNamespace

    from hfrender.engine import bench

    pool = 3 * 2**20  # a pool of 3 MiB: 3145728 bytes, 3.1 MB
    big = 700 * 2**20  # 734003200 bytes: 734 MB
    cells = [bench.Cell(8, 1, 30.0, 40.0, pool / 2**20, 8), bench.Cell(16, 1, 20.0, 40.0,
                                                                       big / 2**20, 16)]
    lines = bench.table(cells, None, SimpleNamespace(overlap=0, step=8)).splitlines()
    assert lines[0].split()[-1] == "pool"
    assert lines[1].split()[-3:] == ["3.1", "MB", "best"]
    assert lines[2].split()[-2:] == ["734", "MB"]


@pytest.mark.parametrize("quiet", [False, True])
def test_bench_quiet_leaves_out_the_bar_not_the_figures(quiet, capsys, monkeypatch):
    """``bench -q`` has no progress bar, as its --help says; the table is what it is run
    for (was: -q taken and nothing changed, the bar shown all the same)."""
    import hfrender.cli.bench as cli_bench

    asked = []
    real = cli_bench.progress_bar
    monkeypatch.setattr(cli_bench, "progress_bar", lambda q, *a: asked.append(q) or real(q, *a))
    assert main(["bench", BAR, "--frames", "2", "--outputs", "1", "--grid-workers", "1",
                 "--size", "16x8", "--samples", "2", *(["-q"] if quiet else [])]) == 0
    assert asked == [quiet]
    assert "fastest here: " in capsys.readouterr().out
    help_q = build_parser()._subparsers._group_actions[0].choices["bench"].format_help()
    assert "-q, --quiet           no progress bar (the figures are printed)" in help_q
