"""The command line itself: ``hfrender info`` (versions, backends, encoders, memory, the
GPU), the entry points and the version, and arguments refused or taken (argparse's refusals
in one line, -v after the command, -q, a render's option given to fx or a jobs file)."""

import logging
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hfrender
from hfrender import backends
from hfrender.backends import load
from hfrender.cli import main
from hfrender.errors import BackendUnavailable


def check_cuda_line(out):
    """The one ``backend cuda:`` line of ``hfrender info``: with a GPU the device and CuPy,
    without one (CI) why not; either way what the backend itself says."""
    lines = re.findall(r"^backend cuda: .*$", out, re.M)
    assert len(lines) == 1, out
    try:
        cuda = load("cuda")
    except BackendUnavailable as exc:
        assert re.fullmatch(r"backend cuda: unavailable: \S.*", lines[0]), lines[0]
        assert lines[0] == f"backend cuda: unavailable: {exc}"
    else:
        assert re.fullmatch(r"backend cuda: cuda \(\S.*, CuPy \d+\.\d+\S*\)", lines[0]), lines[0]
        assert lines[0] == f"backend cuda: {cuda.describe()}"
    return lines[0]


def test_info_reports_versions_backends_and_ffmpeg(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"hfrender {hfrender.__version__}  (Python ")
    assert "backend cpu: cpu (NumPy " in out
    check_cuda_line(out)  # true on machines with and without a GPU
    assert "ffmpeg: /" in out and "(version " in out
    assert "(-v: every video encoder)" in out and "ffmpeg video encoders:" not in out
    assert main(["info", "-v"]) == 0  # every video encoder, as the --codec error says
    listed = capsys.readouterr().out.split("ffmpeg video encoders: ")[1].splitlines()[0]
    listed = listed.split(", ")
    assert {"libx264", "libvpx-vp9", "prores_ks", "ffv1"} <= set(listed)
    assert "=" not in listed and "aac" not in listed and listed == sorted(listed)


@pytest.mark.parametrize("gpu", [False, True])
def test_info_lists_nvenc_apart_without_an_nvidia_driver(capsys, monkeypatch, gpu):
    """h264_nvenc and hevc_nvenc were listed among the encoders on a machine with no NVIDIA
    GPU, then refused at use: apart now, with why (the CUDA backend's driver check)."""
    from hfrender.backends import cuda
    from hfrender.io import writers

    have = {"libx264", "h264_nvenc", "hevc_nvenc", "av1_nvenc", "ffv1", "gif", "png", "aac"}
    monkeypatch.setattr(writers, "ffmpeg_encoders",
                        lambda kinds="VAS": frozenset(have - ({"aac"} if kinds == "V" else set())))
    monkeypatch.setattr(cuda, "driver_missing", lambda: None if gpu else (
        "no CUDA driver: libcuda.so.1 cannot be loaded (libcuda.so.1: cannot open)"))
    assert main(["info", "-v"]) == 0
    out = capsys.readouterr().out
    listed = out.split("ffmpeg video encoders: ")[1].splitlines()[0]
    among = out.split("among them: ")[1].splitlines()[0]
    if gpu:
        assert among == "libx264, h264_nvenc, hevc_nvenc, gif, png"
        assert "h264_nvenc" in listed and "need an NVIDIA GPU" not in out
    else:
        assert among == "libx264, gif, png"
        assert listed == "ffv1, gif, libx264, png"
        assert ("ffmpeg NVIDIA encoders av1_nvenc, h264_nvenc, hevc_nvenc: need an NVIDIA "
                "GPU, none found (no CUDA driver: libcuda.so.1 cannot be loaded)\n") in out


def test_info_says_the_memory_the_pool_is_sized_from(capsys, monkeypatch):
    """Was: no memory line, though --granularity auto and the pool's refusal hang on it;
    the least of the free RAM, the cgroup's room and ulimit -v, named."""
    from hfrender.hyperframe import builder

    monkeypatch.setattr(builder, "_ram_available", lambda: 8_000_000_000)
    monkeypatch.setattr(builder, "cgroup_room", lambda: 2_500_000_000)
    monkeypatch.setattr(builder, "address_room", lambda: 1 << 62)
    assert main(["info"]) == 0
    assert ("memory: 2.5 GB this process may use (the cgroup's memory.max); --granularity "
            "auto sizes the hyperframe pool from it\n") in capsys.readouterr().out


def test_info_names_the_gpu_where_cuda_works(capsys, monkeypatch):
    class FakeCuda:  # what the CUDA backend says on a machine with a GPU
        name = "cuda"

        def describe(self):
            return "cuda (NVIDIA H200, CuPy 13.3.0)"

    monkeypatch.setitem(backends._cache, "cuda", FakeCuda())
    assert main(["info"]) == 0
    line = check_cuda_line(capsys.readouterr().out)
    assert line == "backend cuda: cuda (NVIDIA H200, CuPy 13.3.0)"


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert "info" in err and not out  # usage, as an error is (was: on stdout, exit 2)


def test_console_script_module_entry_point():
    res = subprocess.run([sys.executable, "-m", "hfrender", "--version"],
                         capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == f"hfrender {hfrender.__version__}"


@pytest.mark.parametrize("argv,said", [
    (["render", "x.frag", "--samlpes", "4"], r"^hfrender: error: unrecognized arguments: "
     r"--samlpes 4; did you mean --samples\? \(see hfrender render --help\)$"),
    (["fx", "in.mp4", "-o", "o.mp4", "--motion-blurr", "4"], r"^hfrender: error: "
     r"unrecognized arguments: --motion-blurr 4; did you mean --motion-blur\? "),
    (["render", "x.frag", "--dof", "lense"], r"^hfrender: error: argument --dof: "
     r"invalid choice: 'lense' \(choose from 'auto', 'lens', 'depth', 'off'\) \(see "),
    (["still", "x.frag", "--duration", "abc"], r"^hfrender: error: --duration abc must be "
     r"a finite number > 0$"),  # (the setting's own line: tests/test_cli_words.py)
    (["rendr", "x.frag"], r"^hfrender: error: argument COMMAND: invalid choice: 'rendr' "),
    (["render", "x.frag", "--width", "320"], r"^hfrender: error: unrecognized "
     r"arguments: --width 320; the picture's size is --size WxH: --size 320xH \(see"),
    # other tools' names, with their values (was: "did you mean --size, --size?")
    (["render", "x.frag", "--width", "320", "--height=180"], r"^hfrender: error: "
     r"unrecognized arguments: --width 320 --height=180; the picture's size is --size WxH: "
     r"--size 320x180 \(see hfrender render --help\)$"),
    (["still", "x.frag", "--resolution", "1920,1080"], r"arguments: --resolution 1920,1080; "
     r"the picture's size is --size WxH: --size 1920x1080 \(see"),
    (["render", "x.frag", "--sizes", "9x9", "--framerate", "5"], r"arguments: --sizes 9x9 "
     r"--framerate 5; did you mean --size, --fps\? \(see"),
    (["render", "x.frag", "--framerate=24"], r"; did you mean --fps\? "),
    # a long option's prefix is not taken for the option it starts (was: --res 160x90 as
    # --resume, "unrecognized arguments: 160x90"; --fp 0 as --fps, "fps=0.0 must be ...")
    (["render", "x.frag", "--res", "160x90"], r"^hfrender: error: unrecognized "
     r"arguments: --res 160x90; the picture's size is --size WxH: --size 160x90 \(see"),
    (["render", "x.frag", "--fp", "0"], r"^hfrender: error: unrecognized arguments: "
     r"--fp 0; did you mean --fps\? \(see"),
    (["fx", "in.mp4", "-o", "o.mp4", "--motion", "4"], r"^hfrender: error: "
     r"unrecognized arguments: --motion 4; did you mean --motion-blur\? "),
    (["render", "x.frag", "-r", "24", "-t", "2"], r"^hfrender: error: unrecognized "
     r"arguments: -r 24 -t 2; did you mean --fps, --duration\? "),  # ffmpeg's (was: alone)
    (["fx", "in.mp4", "-o", "o.mp4", "-c:v", "prores_ks"], r"^hfrender: error: "
     r"unrecognized arguments: -c:v prores_ks; did you mean --codec\? "),
    # the lens of footage's options on a scene (was: "unrecognized arguments" alone)
    (["render", "x.frag", "--f-stop", "2"], r"^hfrender: error: unrecognized "
     r"arguments: --f-stop 2; a scene's lens is its camera's: self\.camera\.f_stop in "
     r"setup\(\) or update\(t\) \(--f-stop is fx's, for footage, and reexpose's\) \(see "),
    (["still", "x.frag", "--focus-distance=3"], r"self\.camera\.focus_distance in setup"),
    (["render", "x.frag", "--aperture-blades", "6"], r"\(--aperture-blades is fx's, for "
     r"footage\) \(see"),
    (["reexpose", "s", "-o", "o.mp4", "--aperture-blades", "6"], r"^hfrender: error: "
     r"unrecognized arguments: --aperture-blades 6 \(see"),  # no scene there: no camera
    (["fx", "in.mp4", "-o", "o.mp4", "--width", "3"], r"^hfrender: error: "
     r"unrecognized arguments: --width 3 \(see"),  # fx has no --size (nor is --depth meant)
    (["render", "x.frag", "--fps", "24000/1001/2"], r"^hfrender: error: argument "
     r"--fps: '24000/1001/2' is not a frame rate: give a number \(29\.97\) or a fraction "),
    # Unreal's Movie Render Queue's counts (was: "did you mean --keep-samples?", and
    # --keep-samples 8 writes a sample store named 8) and a shutter speed (was: "did you
    # mean --shutter?" alone, and --shutter 48 is 48 degrees, not 1/48 s)
    (["render", "x.frag", "--temporal-samples", "8"], r"^hfrender: error: "
     r"unrecognized arguments: --temporal-samples 8; did you mean --samples\? \(see"),
    (["still", "x.frag", "--spatial-samples=4"], r"arguments: --spatial-samples=4; did you "
     r"mean --msaa\? \(see"),
    (["render", "x.frag", "--shutter-speed", "48"], r"^hfrender: error: unrecognized "
     r"arguments: --shutter-speed 48; did you mean --shutter\? \(--shutter is an angle in "
     r"degrees: a shutter speed of 1/S s at F fps is 360 F / S \(1/48 s at 24 fps: 180\)\) "
     r"\(see hfrender render --help\)$"),
    (["render", "x.frag", "--bogus"], r"^hfrender: error: unrecognized arguments: "
     r"--bogus \(see hfrender render --help\)$"),  # nothing near: no guess from the dashes
    (["batch", "jobs.toml", "--samlpes", "3"], r"^hfrender: error: --samlpes: not an option "
     r"of hfrender render or fx; did you mean --samples\?$"),
    # manim's habits (a trial; was "unrecognized arguments" alone, and -r 320,180 --fps)
    (["render", "x.py", "-r", "320,180"], r"^hfrender: error: unrecognized arguments: "
     r"-r 320,180; manim's -r W,H is --size 320x180 \(see"),
    (["render", "x.py", "-p"], r"arguments: -p; --preview shows the frames as they are "
     r"drawn \(manim's -p opens the file after\) \(see"),
    # manim's quality flags (a trial; was "unrecognized arguments: -pql" alone, and
    # "ignored explicit argument 'k'" alone for -qk)
    (["render", "x.py", "-pql"], r"^hfrender: error: unrecognized arguments: -pql; "
     r"manim's -pql is -ql here; --preview shows the frames as they are drawn \(manim's -p "
     r"opens the file after\) \(see hfrender render --help\)$"),
    (["render", "x.py", "-qk"], r"^hfrender: error: argument -q/--quiet: ignored "
     r"explicit argument 'k'; manim's -qk is --size 3840x2160 --fps 60 here \(see"),
    (["render", "x.py", "-qlp"], r"argument 'lp'; manim's -qlp is -ql here; --preview "),
    (["still", "x.py", "-pqp"], r"arguments: -pqp; manim's -pqp is --size 2560x1440 --fps "
     r"60 here \(see hfrender still"),  # (still has no --preview)
    (["fx", "in.mp4", "-o", "o.mp4", "-qk"], r"argument 'k' \(see"),  # no scene: no manim
    (["render", "x.py", "--format", "gif"], r"arguments: --format gif; the output's name "
     r"chooses its format: -o out\.gif "),
    (["render", "x.py", "-n", "3,10"], r"arguments: -n 3,10; --frames START:END renders "
     r"output frames START\.\.END-1 \(see"),
    (["render", "x.py", "Orbit"], r"arguments: Orbit; the scene class is chosen with -s "
     r"Orbit \(see"),
    (["render", "x.py", "-t"], r"arguments: -t; a transparent background is --transparent "
     r"\(see"),
    (["render", "x.py", "-s"], r"^hfrender: error: argument -s/--scene: expected one "
     r"argument; -s names the scene class \(manim's -s, the last frame, is hfrender still "
     r"FILE -f N\) \(see"),
    (["x.py", "-o", "o.mp4"], r"^hfrender: error: argument COMMAND: invalid choice: 'x\.py' "
     r"\(choose from .*\); did you mean hfrender render x\.py\? \(see hfrender --help\)$"),
    (["fx", "in.mp4", "-o", "o.mp4", "-p"], r"arguments: -p \(see"),  # no scene: no manim
    (["still", "x.py", "-n", "3,5"], r"arguments: -n 3,5 \(see"),  # no option it has (a
    (["bench", "x.py", "--format", "gif"], r"arguments: --format gif \(see"),  # review)
    # ffmpeg's and render's habits on fx (a tmix user's trial; was "unrecognized arguments"
    # alone, "argument -v/--verbose: ignored explicit argument 'f'" for -vf)
    (["fx", "in.mp4", "-o", "o.mp4", "-vf", "tmix=frames=4"], r"^hfrender: error: "
     r"argument -v/--verbose: ignored explicit argument 'f'; ffmpeg's -vf tmix=frames=4 is "
     r"--motion-blur 4 --gamma-space \(tmix blends code values; fx, without --gamma-space, "
     r"linear light\) \(see hfrender fx --help\)$"),
    (["fx", "in.mp4", "-o", "o.mp4", "-filter:v", "tmix=frames=3:weights=1 2 1"],
     r"arguments: -filter:v tmix=frames=3:weights=1 2 1; ffmpeg's -filter:v "
     r"tmix=frames=3:weights=1 2 1 is --motion-blur 3 --gamma-space \(tmix blends"),
    (["fx", "in.mp4", "-o", "o.mp4", "-vf", "scale=320:180"], r"; fx takes no ffmpeg "
     r"filters: filter the footage with ffmpeg first, or after \(see"),
    (["fx", "-i", "in.mp4", "-o", "o.mp4", "--motion-blur", "3"], r"^hfrender: error: "
     r"unrecognized arguments: -i; the input is named alone, without -i: hfrender fx "
     r"INPUT -o OUTPUT \(see"),
    (["fx", "in.mp4", "-o", "o.mp4", "-y"], r"arguments: -y; an existing output is "
     r"replaced, once the new one is whole: no -y is needed \(see"),
    (["fx", "in.mp4", "o.mp4", "--motion-blur", "3"], r"^hfrender: error: the following "
     r"arguments are required: -o/--output; the output is named with -o: -o o\.mp4 \(see"),
    (["fx", "in.mp4", "-o", "o.mp4", "--shutter", "180"], r"^hfrender: error: --shutter 180 "
     r"applies only with --vectors \(motion blur from motion vectors\); fx's frame-blending "
     r"shutter is --motion-blur N and --stride S, 360\*N/S degrees \(--motion-blur 4 and "
     r"--stride 8: 180\)$"),
    (["fx", "in.mp4", "-o", "o.mp4", "--frames", "10:40"], r"arguments: --frames 10:40; fx "
     r"takes the whole clip: cut the part first \(ffmpeg -i IN -vf "
     r"trim=start_frame=10:end_frame=40 -c:v ffv1 part\.mkv\) \(see"),
    (["fx", "in.mp4", "-o", "o.mp4", "-ss", "2", "-t", "1"], r"arguments: -ss 2 -t 1; fx "
     r"takes the whole clip: cut the part first \(ffmpeg -ss 2 -t 1 -i IN -c:v ffv1 "
     r"part\.mkv\) \(see"),
    (["render", "x.frag", "-y"], r"arguments: -y \(see"),  # fx's alone
    # a count, not a range (ffmpeg's -frames 10): no cut is offered (a review: was the
    # part from frame 10 on)
    (["fx", "in.mp4", "-o", "o.mp4", "--frames", "10"], r"arguments: --frames 10 \(see"),
])
def test_a_command_line_argparse_refuses_is_one_line_too(capsys, tmp_path, monkeypatch, argv,
                                                          said):
    """Not the whole usage first: one line, as hfrender's own refusals, with the option
    meant where one is misspelt."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "a"\nscene = "x.frag"\n'
                                        'output = "a.mp4"\n')
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and re.search(said, err), err


def test_verbose_is_taken_after_the_command_too(capsys, monkeypatch):
    seen = {}
    monkeypatch.setattr("hfrender.cli.cmd_info", lambda args: seen.update(v=args.verbose) or 0)
    for argv, verbose in ((["info", "-v"], True), (["-v", "info"], True), (["info"], False)):
        seen.clear()
        assert main(argv) == 0 and seen["v"] is verbose


def test_batch_takes_verbose_after_its_jobs_file(monkeypatch, tmp_path):
    from hfrender.cli import batch

    seen = {}
    root = logging.getLogger()
    monkeypatch.setattr("hfrender.engine.batch.load_jobs", lambda path, overrides: seen.update(
        o=overrides, level=root.level) or [])
    monkeypatch.setattr(batch, "table", lambda results: "")
    (tmp_path / "jobs.toml").write_text("")
    monkeypatch.setattr(root, "level", root.level)  # put back after the test
    for argv in (["batch", str(tmp_path / "jobs.toml"), "-v", "--samples", "2"],
                 ["batch", str(tmp_path / "jobs.toml"), "--samples", "2", "--verbose"]):
        root.setLevel(logging.WARNING)
        assert main(argv) == 0
        assert seen["o"] == {"samples": 2}  # -v is hfrender's, not a job option
        assert seen["level"] == logging.INFO  # what hfrender -v batch ... logs
        assert root.level == logging.WARNING  # as it was, after (was left INFO: a later
        #                                       call in the process, a test's, logged INFO)


def test_a_renders_option_given_to_fx_or_a_jobs_file_says_what_it_is(tmp_path, capsys):
    """fx --preview suggested --preset, and a jobs file's preview = true 'did you mean
    preset?' (a trial): each now says what the option is and where it belongs."""
    with pytest.raises(SystemExit) as leaving:
        main(["fx", "in.mp4", "-o", str(tmp_path / "o.mp4"), "--preview"])
    assert leaving.value.code == 2 and capsys.readouterr().err == (
        "hfrender: error: unrecognized arguments: --preview; --preview is a render's "
        "window of its frames; this command shows none (see hfrender fx --help)\n")
    with pytest.raises(SystemExit):  # and a misspelt one beside it keeps its hint
        main(["fx", "in.mp4", "-o", str(tmp_path / "o.mp4"), "--preview", "--motion-blurr", "2"])
    assert capsys.readouterr().err == (
        "hfrender: error: unrecognized arguments: --preview --motion-blurr 2; --preview is "
        "a render's window of its frames; this command shows none; did you mean "
        "--motion-blur? (see hfrender fx --help)\n")
    from hfrender.engine.batch import load_jobs
    from hfrender.errors import InputError

    for field, why in (("preview", "a batch shows no window"),
                       ("resume", "a batch goes on by itself"),
                       ("keep_samples", "a batch keeps no samples")):
        jobs = tmp_path / f"{field}.toml"
        bar = Path(__file__).parent / "data" / "bar.frag"
        jobs.write_text(f'[[job]]\nname = "a"\nscene = "{bar}"\noutput = "a.mp4"\n'
                        f"{field} = true\n")
        with pytest.raises(InputError, match=rf"^{jobs}: job 'a': '{field}' is not a job's "
                                             rf"field: {why}"):
            load_jobs(jobs)


@pytest.mark.parametrize("argv", [["render", "{bar}", "-o", "{tmp}/a.mp4"],
                                  ["still", "{bar}", "-o", "{tmp}/a.png"]])
def test_dash_q_is_quiet(tmp_path, capsys, argv):
    """``-q`` was "ambiguous option: -q could match -ql, -qm, -qh" (and unknown to fx)."""
    bar = Path(__file__).parent / "data" / "bar.frag"
    argv = [a.format(bar=bar, tmp=tmp_path) for a in argv]
    assert main([*argv, "--size", "16x8", "--duration", "0.1", "-q"]) == 0
    assert capsys.readouterr() == ("", "")
    if argv[0] == "render":  # fx on the render
        assert main(["fx", str(tmp_path / "a.mp4"), "-o", str(tmp_path / "b.mp4"),
                     "--motion-blur", "2", "-q"]) == 0
        assert capsys.readouterr() == ("", "")


def test_the_package_version_is_the_modules():
    """The version is written once (hfrender/__init__.py; pyproject takes it from there,
    ``[tool.hatch.version]``): what pip shows is what ``--version`` says (a trial: two
    places, nothing keeping them one)."""
    import importlib.metadata
    from pathlib import Path

    assert importlib.metadata.version("hfrender") == hfrender.__version__
    project = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in project and "\nversion =" not in project
