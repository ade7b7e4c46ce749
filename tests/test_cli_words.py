"""What the command line says of a bad value: every numeric flag of render, still, bench, reexpose,
batch (and fx's --crf, the encoder options render shares) given a word names the flag, the
text and what the flag takes, in the setting's own line (was argparse's "argument --shutter:
invalid float value: 'x'", what is allowed unsaid)."""

from pathlib import Path

import pytest

from hfrender.cli import main

DATA = Path(__file__).parent / "data"
BAR = str(DATA / "bar.frag")  # a shader scene: 4 s, the default duration
CRF = ("must be an integer from 0 to 63 (lower is better quality; 0-51 for libx264 and "
       "libx265)")
BITS = "must be one of 8, 16, 32"
OFFSET = ("must be a finite number of seconds (where in the sound the video starts; < 0: "
          "silence first)")
JOBS = f"""[[job]]
name = "shot"
scene = "{BAR}"
output = "shot.mp4"
size = "16x8"

[[job]]
name = "blur"
input = "shot.mp4"
output = "blur.mp4"
motion-blur = 2
"""


def refused(capsys, *argv):
    """The one line ``hfrender ARGV`` refuses with, before any work (nothing on stdout)."""
    assert main(list(argv)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    return err.removeprefix("hfrender: error: ").rstrip("\n")


@pytest.mark.parametrize("flags, said", [
    (["--shutter", "x"], "--shutter x must be a finite number > 0 and <= 5760"),
    (["--duration", "x"], "--duration x must be a finite number > 0"),
    (["--crf", "x"], f"--crf x {CRF}"),
    (["--crf", "2.5"], f"--crf 2.5 {CRF}"),
    (["--granularity", "x"], "--granularity x must be 'auto' or an integer"),
    (["--workers", "x"], "--workers x must be 'auto' or an integer"),
    (["--bit-depth", "ten"], f"--bit-depth ten {BITS}"),  # (was argparse's "invalid choice")
    (["--bit-depth", "12"], f"--bit-depth 12 {BITS}"),
    (["--msaa", "3"], "--msaa 3 must be auto or one of 1, 2, 4, 8, 16"),
    (["--seed", "x"], "--seed x must be an integer from 0 to 9223372036854775807"),
    (["--max-coc-px", "x"], "--max-coc-px x must be a finite number > 0"),
    (["--audio-offset", "x"], f"--audio-offset x {OFFSET}"),
    # a number as typed (was "--audio-offset 1e+12")
    (["--audio-offset", "1000000000000"], "--audio-offset 1000000000000 places the sound of "
     "--audio FILE: give it too, or leave --audio-offset out"),
])
def test_render_numeric_flag_given_a_word(tmp_path, capsys, flags, said):
    out = tmp_path / "o.mp4"
    assert refused(capsys, "render", BAR, "-o", str(out), "--size", "16x8", *flags) == said
    assert not out.exists()


@pytest.mark.parametrize("flags, said", [
    (["-t", "x"], "-t x: not a time (give seconds, a finite number >= 0); a shader at 30 fps "
     "has frames 0..9999999 (-t 0 to 333333.3)"),
    (["--time", "x", "--duration", "1"], "--time x: not a time (give seconds, a finite number >= "
     "0); --duration 1 at 30 fps has frames 0..29 (-t 0 to 0.967)"),
    (["-f", "x", "--duration", "1"], "-f x: not a frame's number (a whole number >= 0); "
     "--duration 1 at 30 fps has frames 0..29"),
    (["--frame", "2.5", "--duration", "1"], "--frame 2.5: not a frame's number (a whole number >= "
     "0); --duration 1 at 30 fps has frames 0..29"),
    # the flag and the value as typed (were "-t : not a time", "-t inf", "-t 1e+06")
    (["--time", "", "--duration", "1"], "--time '': not a time (give seconds, a finite "
     "number >= 0); --duration 1 at 30 fps has frames 0..29 (-t 0 to 0.967)"),
    (["-t", "1e309", "--duration", "1"], "-t 1e309: not a time (give seconds, a finite "
     "number >= 0); --duration 1 at 30 fps has frames 0..29 (-t 0 to 0.967)"),
    (["-t", "1000000", "--duration", "1"], "-t 1000000: frame 30000000, "
     "past the end; --duration 1 at 30 fps has frames 0..29 (-t 0 to 0.967)"),
    (["--frame", "", "--duration", "1"], "--frame '': not a frame's number (a whole number "
     ">= 0); --duration 1 at 30 fps has frames 0..29"),
    (["--passes", ""], "--passes '': a still is one picture, which holds no passes (they "
     "are channels of an EXR sequence's frames); render the frame alone instead: hfrender "
     f"render {BAR} --frames 0:1 -o frames/%04d.exr --passes '' --size 16x8"),
    (["--duration", "x"], "--duration x must be a finite number > 0"),
    (["--shutter", "wide"], "--shutter wide must be a finite number > 0 and <= 5760"),
])
def test_still_numeric_flag_given_a_word(tmp_path, capsys, flags, said):
    out = tmp_path / "s.png"
    assert refused(capsys, "still", BAR, "-o", str(out), "--size", "16x8", *flags) == said
    assert not out.exists()


@pytest.mark.parametrize("flags, said", [
    (["--frames", "x"], "--frames x must be an integer >= 1"),
    (["--repeats", "1.5"], "--repeats 1.5 must be an integer from 1 to 100 (runs per cell, "
     "the best kept)"),
    (["--shutter", "x"], "--shutter x must be a finite number > 0 and <= 5760"),
    # an empty value quoted (was "--frames  must be", the value unseen)
    (["--frames", ""], "--frames '' must be an integer >= 1"),
    (["--repeats", ""], "--repeats '' must be an integer from 1 to 100 (runs per cell, the "
                        "best kept)"),
    (["--outputs", ""], "--outputs '' must be a comma-separated list of integers >= 1"),
    (["--grid-workers", ""], "--grid-workers '' must be a comma-separated list of integers "
     ">= 1 and <= 64"),
    (["--codec", ""], "--codec '': bench discards its frames, no encoder runs: leave it out"),
    (["--plot", ""], "--plot '': an empty path; name a file: --plot PNG"),  # (was: taken)
    (["--audio", ""], "--audio '': bench writes no video to give sound: leave it out"),
    (["--audio-offset", "1e309"], "--audio-offset 1e309: bench writes no video to give "
     "sound: leave it out"),  # (a number as typed: was "inf")
])
def test_bench_numeric_flag_given_a_word(capsys, flags, said):
    assert refused(capsys, "bench", BAR, "--size", "16x8", *flags) == said


def test_fx_encoder_flag_given_a_word(tmp_path, capsys):
    out = tmp_path / "o.mp4"
    assert refused(capsys, "fx", str(DATA / "missing.mp4"), "-o", str(out), "--motion-blur",
                   "2", "--crf", "x") == f"--crf x {CRF}"
    # an empty encoder's name, refused as render refuses it (was: taken, exit 0)
    assert refused(capsys, "fx", str(DATA / "missing.mp4"), "-o", str(out), "--motion-blur",
                   "2", "--codec", "") == ("--codec '' must be an ffmpeg encoder's name, such "
                                           "as libx264")


@pytest.mark.parametrize("flags, said", [
    (["--stride", "x"], "--stride x must be a whole number of frames >= 1"),
    (["--workers", "0"], "--workers 0 must be an integer from 1 to 64"),
    (["--stride", "0"], "--stride 0 must be a whole number of frames >= 1"),
    (["--fps", "1000000000000"], "--fps 1000000000000: the output's rate (--fps / --stride "
     "1) must be from 0.001 to 1000 fps"),  # (was "--fps 1e+12")
    (["--stride", ""], "--stride '' must be a whole number of frames >= 1"),
    (["--motion-blur", ""], "--motion-blur '' must be a whole number of frames >= 1 (the "
     "window)"),
])
def test_fx_numeric_flag_given_a_word(tmp_path, capsys, flags, said):
    """fx's own numeric flags in the one form (were "--stride x: must be ...")."""
    clip = tmp_path / "in.mp4"
    clip.write_bytes(b"")
    assert refused(capsys, "fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--motion-blur",
                   "2", *flags) == said


@pytest.mark.parametrize("flags, said", [
    (["--shutter", "x"], "on the command line, for job 'shot': --shutter x must be a finite "
     "number > 0 and <= 5760"),
    (["--crf", "x"], f"on the command line, for job 'shot': --crf x {CRF}"),
    (["--bit-depth", "ten"], f"on the command line, for job 'shot': --bit-depth ten {BITS}"),
    (["--samples", "x"], "on the command line, for job 'shot': --samples x must be an integer "
     "from 1 to 4096 or 'auto'"),
    (["--motion-blur", "2.5"], "on the command line, for job 'blur': --motion-blur 2.5 must "
     "be a whole number of frames >= 1 (the window)"),
    # a lens option no job uses (no depth pass): no job's check to say it, said all the same
    (["--f-stop", "x"], "--f-stop x must be a number"),
    (["--aperture-blades", "5.5"], "--aperture-blades 5.5 must be a whole number"),
    # a lens option no job uses, its number checked all the same (was: taken, exit 0)
    (["--f-stop", "nan"], "--f-stop nan must be a finite number > 0"),
    (["--focus-distance", "-inf"], "--focus-distance -inf must be a distance in metres "
     "greater than the focal length (0.05 m, a 50 mm lens), or inf"),
    (["--sensor-width-mm", "nan"], "--sensor-width-mm nan must be a finite number > 0"),
    # a focal length past the focus is the focal length's fault, as fx says it (was: blamed
    # on --focus-distance 2)
    (["--focus-distance", "2", "--focal-length-mm", "5000"], "--focal-length-mm 5000 must "
     "be shorter than the focus distance (2 m): under 2000 mm"),
    # the flag's cap (1 km) where no job reads depth (was: taken once Lens lost the cap)
    (["--focal-length-mm", "2e6"], "--focal-length-mm 2e6 must be a finite number > 0, at "
     "most 1000000 (a lens of a kilometre)"),
    # numbers as typed (were "--duration 1e+06", "--shutter inf")
    (["--duration", "1e6"], "on the command line, for job 'shot': --duration 1e6 s at 30 fps "
     "is 30,000,000 frames; hfrender renders at most 10,000,000 in one output (lower "
     "--duration or --fps, or render it in parts)"),
    (["--shutter", "1e309"], "on the command line, for job 'shot': --shutter 1e309 must be a "
     "finite number > 0 and <= 5760"),
    (["--workers", ""], "on the command line, for job 'shot': --workers '' must be an integer "
     "from 1 to 64 or 'auto'"),
    (["--max-length", "1e309"], "--max-length 1e309 applies only with --vectors (motion blur "
     "from motion vectors: the longest vector it takes)"),  # (as typed: was "inf")
    (["--max-length", ""], "--max-length '' applies only with --vectors (motion blur from "
     "motion vectors: the longest vector it takes)"),
    (["--depth-kind", ""], "on the command line, for job 'blur': --depth-kind '' must be one "
     "of distance, disparity"),
])
def test_batch_numeric_override_given_a_word(tmp_path, capsys, monkeypatch, flags, said):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "jobs.toml").write_text(JOBS)
    assert refused(capsys, "batch", "jobs.toml", *flags) == said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs.toml"]


@pytest.mark.parametrize("argv, said", [
    (["fx", "in.mp4", "-o", "o.mp4", "--weights", "flat"], "argument --weights: invalid "
     "choice: 'flat' (choose from 'box', 'triangle', 'gaussian') (see hfrender fx --help)"),
    (["still", BAR, "--samlpes", "4"], "unrecognized arguments: --samlpes 4; did you mean "
     "--samples? (see hfrender still --help)"),
    (["fx", "in.mp4", "--motion-blur", "2"], "the following arguments are required: "
     "-o/--output (see hfrender fx --help)"),
    (["rendr", BAR], "argument COMMAND: invalid choice: 'rendr' (choose from 'info', 'render', "
     "'still', 'bench', 'fx', 'batch', 'reexpose', 'docs') (see hfrender --help)"),
])
def test_argparse_refusals_start_as_hfrenders_own(capsys, argv, said):
    """argparse's lines begin "hfrender: error:", as hfrender's own refusals (was
    "hfrender fx: error: argument --weights: ..." beside "hfrender: error: --crf x: ..."),
    the command's --help named at the end."""
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"hfrender: error: {said}\n"


STORE_BOUND = "must be a finite number > 0 and at most the 180 the store holds"


@pytest.mark.parametrize("flags, said", [
    # said as render says it, with the store's bound (was render's "<= 5760", the store
    # holding 180)
    (["--shutter", "x"], f"--shutter x {STORE_BOUND}"),
    (["--shutter", "0"], f"--shutter 0 {STORE_BOUND}"),
    (["--shutter", "-5"], f"--shutter -5 {STORE_BOUND}"),
    (["--shutter", "nan"], f"--shutter nan {STORE_BOUND}"),
    (["--shutter", "6000"], "--shutter 6000: the store holds sub-frames over 180 degrees "
     "only; expose at most that (render with a wider shutter to choose wider ones later)"),
    (["--shutter", "270"], "--shutter 270: the store holds sub-frames over 180 degrees only; "
     "expose at most that (render with a wider shutter to choose wider ones later)"),
    (["--focus-distance", "x", "--f-stop", "2"], "--focus-distance x must be a distance > 0 "
     "in metres, or inf"),
    (["--f-stop", "x", "--focus-distance", "2"], "--f-stop x must be a finite number > 0"),
    (["--crf", "x"], f"--crf x {CRF}"),
    (["--bit-depth", "ten"], f"--bit-depth ten {BITS}"),
    (["--workers", "x"], "--workers x must be 'auto' or an integer"),
    (["--workers", ""], "--workers '' must be 'auto' or an integer"),
])
def test_reexpose_numeric_flag_given_a_word(tmp_path, capsys, flags, said):
    from store_helpers import write_store

    store = write_store(tmp_path / "s.samples")
    out = tmp_path / "o.mp4"
    assert refused(capsys, "reexpose", str(store), "-o", str(out), *flags) == said
    assert not out.exists()


def test_fx_focal_length_past_the_focus_is_its_own_fault(tmp_path, capsys):
    """``--focal-length-mm 1e12`` beside ``--focus-distance 2`` was blamed on the focus
    distance ('--focus-distance 2 must be ... greater than the focal length (1e+09 m, a
    1e+12 mm lens)'): the focal length given is named, as typed; a focus distance no lens
    reaches is still its own."""
    np = pytest.importorskip("numpy")
    clip, depth = tmp_path / "in.mp4", tmp_path / "z.npy"
    clip.write_bytes(b"")
    np.save(depth, np.full((2, 4, 4), 3.0, np.float32))
    argv = ["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--depth", str(depth), "--f-stop",
            "2"]
    assert refused(capsys, *argv, "--focus-distance", "2", "--focal-length-mm", "1e12") == (
        "--focal-length-mm 1e12 must be shorter than the focus distance (2 m): under 2000 mm")
    assert refused(capsys, *argv, "--focus-distance", "0.01", "--focal-length-mm", "85") == (
        "--focus-distance 0.01 must be a distance in metres greater than the focal length "
        "(0.085 m, a 85 mm lens), or inf")


@pytest.mark.parametrize("flags, said", [
    # the flag and the value as typed, existence first (were "depth not found: abc", and
    # "depth missing.mp4: a video is not read as depth" of a file not there)
    (["--depth", "abc"], "--depth abc: not found"),
    (["--depth", "missing.mp4"], "--depth missing.mp4: not found"),
    (["--depth", "z.mp4"], "--depth z.mp4: a video is not read as depth (8-bit, compressed: "
     "its steps would show); export the pass as a 16-bit PNG or EXR sequence, or a .npy"),
])
def test_fx_depth_path_named_as_given(tmp_path, capsys, monkeypatch, flags, said):
    import subprocess

    import imageio_ffmpeg

    monkeypatch.chdir(tmp_path)
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc=size=32x16:rate=30", "-frames:v", "3", "-pix_fmt", "yuv420p",
                    "clip.mp4"], check=True)
    (tmp_path / "z.mp4").write_bytes((tmp_path / "clip.mp4").read_bytes())
    assert refused(capsys, "fx", "clip.mp4", "-o", "o.mp4", "--focus-distance", "2",
                   "--f-stop", "2", *flags) == said
    assert not (tmp_path / "o.mp4").exists()


@pytest.mark.parametrize("argv, said", [
    # an empty path named as typed (were "jobs file not found: .", " is a folder, not a
    # scene file", ".: not a sample store", "--keep-samples .: the folder is not empty")
    (["batch", ""], "jobs file '': an empty path; name the jobs file (jobs.toml)"),
    (["render", "", "-o", "o.mp4"], "'': an empty path; name the scene's file (a .py script "
     "or a shader)"),
    (["still", "", "-o", "s.png"], "'': an empty path; name the scene's file (a .py script "
     "or a shader)"),
    (["reexpose", "", "-o", "r.mp4"], "'': an empty path; name the sample store (the folder "
     "render --keep-samples wrote)"),
    (["render", BAR, "-o", "o.mp4", "--keep-samples", ""], "--keep-samples '' must be a "
     "folder's name: the sample store to write (shot.samples)"),
    # a folder for the jobs file (was "jobs file not found" of a folder that is there)
    (["batch", "shots"], "jobs file shots is a folder; name the jobs file in it (in it: "
     "a.toml, b.toml)"),
    # a scene given for the jobs file (was "not a TOML file: Expected '=' after a key ...")
    (["batch", "shots/spin.py"], "jobs file shots/spin.py is a scene, not a jobs file: "
     "render it alone with hfrender render shots/spin.py -o OUT.mp4, or name it in a jobs "
     "file's [[job]] (scene = \"shots/spin.py\")"),
])
def test_an_empty_path_or_a_folder_is_named(tmp_path, capsys, monkeypatch, argv, said):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shots").mkdir()
    for name in ("b.toml", "a.toml", "notes.txt"):
        (tmp_path / "shots" / name).write_text("")
    (tmp_path / "shots" / "spin.py").write_text("import hfrender as hf\n")
    (tmp_path / "keep").write_text("")  # the folder is not empty: "." would be refused so
    assert refused(capsys, *argv) == said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep", "shots"]



@pytest.mark.parametrize("argv", [["render", "-o", "o.mp4", "--scene", "Bal"],
                                  ["still", "-o", "s.png", "-s", "Bal"],
                                  ["bench", "--scene", ""]])
def test_a_scene_name_not_in_the_file_names_the_flag_as_typed(tmp_path, capsys, monkeypatch,
                                                               argv):
    """``--scene X`` was refused as 'FILE: no Scene named 'X'', the flag unnamed (a
    bad-input sweep)."""
    monkeypatch.chdir(tmp_path)
    scene = tmp_path / "two.py"
    scene.write_text("import hfrender as hf\nclass Ball(hf.Scene):\n    pass\n"
                     "class Cube(hf.Scene):\n    pass\n")
    command, *flags = argv
    typed = " ".join(flags[-2:]) if flags[-1] else f"{flags[-2]} ''"
    near = "did you mean Ball?" if flags[-1] else "found Ball, Cube"
    assert refused(capsys, command, str(scene), *flags) == (
        f"{typed}: no Scene of that name in {scene}; {near}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["two.py"]
