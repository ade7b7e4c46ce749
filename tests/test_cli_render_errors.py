"""`hfrender render` from the command line: bad input is one line and leaves nothing;
settings that cannot work, a shutter given in frames, a project file's unknown or
misspelt key, a scene's runtime failure at its line."""

import re

import pytest
from cli_render_helpers import BAR

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test


SEVERAL = "import hfrender as hf\nclass A(hf.Scene):\n    pass\nclass B(hf.Scene):\n    pass\n"


@pytest.mark.parametrize("args, message", [
    (["render", "missing.py"], r"scene file not found: missing.py"),
    # a folder that is there (was: "scene file not found"): its scene files named
    (["render", "{tmp}"], r"hfrender: error: .+ is a folder, not a scene file: name the "
                          r"scene's file \(in it: empty\.py, several\.py\)$"),
    (["still", "{tmp}", "-o", "{tmp}/s.png"], r"is a folder, not a scene file: name the "),
    (["render", "{empty}"],
     r"empty.py: no Scene subclass found \(write `class MyScene\(hf.Scene\):`\)"),
    (["render", "{several}"], r"several.py has several scenes \(A, B\); choose one with -s NAME"),
    (["render", "{several}", "-s", "C"], r"-s C: no Scene of that name in .+several.py; found "
     r"A, B"),
    (["render", "{several}", "-s", "a"], r"-s a: no Scene of that name in .+several.py; did you "
     r"mean A\?$"),
    (["render", "{several}", "-s", "320x180"], r"-s 320x180: -s names the scene class; the "
     r"size is --size 320x180$"),  # ffmpeg's -s (was: no Scene named '320x180')
    (["render", BAR, "-s", "320:180"], r"-s 320:180: -s names the scene class; the size is "
     r"--size 320x180$"),  # (was: "bar.frag is a shader file, it has no scene classes")
    # each flag named as typed (were fps=0.0, fps=-5.0, samples_range=(16, 4), a trial)
    (["render", BAR, "--fps", "0"], r"error: --fps 0 must be a finite number >= 0.001 and "
     r"<= 1000$"),
    (["render", BAR, "--fps", "-5"], r"error: --fps -5 must be a finite number >= 0.001 and "
     r"<= 1000$"),
    (["render", BAR, "--samples", "0"], r"error: --samples 0 must be an integer from 1 to 4096 "
     r"or 'auto'$"),
    (["render", BAR, "--duration", "inf"], r"error: --duration inf must be a finite number > 0$"),
    (["render", BAR, "--samples", "auto", "--samples-range", "16:4"], r"error: --samples-range "
     r"16:4 must be MIN:MAX with 1 <= MIN <= MAX <= 4096$"),
    (["render", BAR, "--seed=-1"], r"error: --seed -1 must be an integer from 0 to "
     r"9223372036854775807$"),
    # a negative number argparse does not take for one (-inf, -1e3): the setting's line (was
    # "argument --shutter: expected one argument", the value and what is allowed unsaid)
    (["render", BAR, "--shutter", "-inf"], r"error: --shutter -inf must be a finite number > 0 "
     r"and <= 5760$"),
    (["render", BAR, "--duration", "-1e3"], r"error: --duration -1e3 must be a finite number > "
     r"0$"),
    # was "duration=1e+12 s at 30 fps ...": the keyword, the number not as typed
    (["render", BAR, "--duration", "1000000000000"], r"error: --duration 1000000000000 s at 30 "
     r"fps is 30,000,000,000,000 frames; hfrender renders at most 10,000,000 in one output "
     r"\(lower --duration or --fps, or render it in parts\)$"),
    (["still", BAR, "-o", "{tmp}/s.png", "--duration", "1e12"], r"error: --duration 1e12 s at "
     r"30 fps is 30,000,000,000,000 frames"),
    (["render", BAR, "--audio-offset", "-nan"], r"error: --audio-offset -nan must be a finite "
     r"number of seconds"),
    # a value that is empty or holds a space quoted as a shell takes it (was "--codec  must
    # be ...", the value unseen; "--samples a b must be ...")
    (["render", BAR, "--codec", ""], r"error: --codec '' must be an ffmpeg encoder's name, "
     r"such as libx264$"),
    (["render", BAR, "--samples", "a b"], r"error: --samples 'a b' must be an integer from 1 "
     r"to 4096 or 'auto'$"),
    # was: "... give --samples 1", to a user who had (the shutter is what to leave)
    (["render", BAR, "--shutter", "0", "--samples", "1"], r"--shutter 0: for no motion blur "
     r"\(an instant shutter\) leave the shutter as it is and give --samples 1 \(one "
     r"sub-frame a frame, at the shutter's middle: the frame's time with the default "
     r"--shutter-position center\); a shutter is > 0 and <= 5760 degrees$"),
    (["render", BAR, "--size", "640by360"], r"--size 640by360 must be WIDTHxHEIGHT, e.g. 640x360"),
    (["render", BAR, "--size", "641x360"], r"size 641x360: libx264 video in yuv420p needs an even "
                                           r"width and height; use 640x360"),
    (["render", BAR, "--codec", "zzz"], r"--codec zzz: this ffmpeg has no such encoder "
     r"\(hfrender info -v lists its video encoders\)$"),  # was: "info lists them" (7 of 230)
    (["render", BAR, "--codec", "libx246"], r"--codec libx246: this ffmpeg has no such encoder "
     r"\(did you mean libx26[45]\? hfrender info -v lists its video encoders\)$"),
    (["render", BAR, "-o", "{tmp}/x.gif", "--codec", "libx264"], r"--codec libx264: -o .*x\.gif "
     r"cannot hold it \(ffmpeg: gif muxer supports only codec gif for type video\)$"),
    (["render", BAR, "-o", "{tmp}/x.mov", "--codec", "libvpx-vp9"], r"--codec libvpx-vp9: -o "
     r".*x\.mov cannot hold it \(ffmpeg: vp9 only supported in MP4\.\)$"),
    (["render", BAR, "-o", "{tmp}/x.mp4", "--codec", "prores_ks"], r"--codec prores_ks: -o "
     r".*x\.mp4 cannot hold it \(ffmpeg: Could not find tag for codec prores in stream #0"),
    # MPEG-TS muxed these as private data without an error: a .ts with no video in it
    (["render", BAR, "-o", "{tmp}/x.ts", "--codec", "prores_ks"], r"--codec prores_ks: -o "
     r".*x\.ts cannot hold it \(ffmpeg: Stream 0, codec prores, is muxed as a private data "
     r"stream"),
    (["render", BAR, "-o", "{tmp}/x.ts", "--codec", "libvpx-vp9"], r"--codec libvpx-vp9: -o "
     r".*x\.ts cannot hold it \(ffmpeg: .*codec vp9, is muxed as a private data stream"),
    # was: a .mkv or .mov with no video, said written; into .mp4 a failed join after the render
    (["render", BAR, "-o", "{tmp}/x.mkv", "--codec", "gif"], r"--codec gif: -o .*x\.mkv cannot "
     r"hold it \(a GIF is written as \.gif: -o .*x\.gif\)$"),
    (["render", BAR, "-o", "{tmp}/x.mp4", "--codec", "gif"], r"--codec gif: -o .*x\.mp4 cannot "
     r"hold it \(a GIF is written as \.gif"),
    (["render", BAR, "-o", "{tmp}/x.gif", "--bit-depth", "16"], r"--bit-depth 16: -o .*x\.gif "
     r"is a GIF: 8 bits, a palette of 256 colours; --bit-depth is for PNG \(8, 16\) and EXR "
     r"\(16, 32\) outputs$"),  # was: "is a video ... (e.g. --pix-fmt yuv420p10le)", refused
    (["render", BAR, "-o", "{tmp}/x.gif", "--codec", "png"], r"--codec png: -o .*x\.gif cannot "
     r"hold it \(a \.gif holds the gif encoder's frames alone: leave --codec out\)$"),
    (["render", BAR, "-o", "{tmp}/x.avi"], r"unknown output type '.avi'; use .* like "
     r"frames/%05d\.png$"),
    (["render", BAR, "-o", "{tmp}/x.png"], r"unknown output type '.png'; use .*\.ts or a PNG "
     r"or EXR pattern like frames/%05d\.png \(one picture: hfrender still\)$"),
    (["render", BAR, "-o", "{tmp}/f/%05x.png"], r"-o .*/f/%05x\.png: %05x is no frame-number "
     r"field; an image sequence is named with one such as %05d \(frames/%05d\.png\)$"),
    (["render", BAR, "-o", "{tmp}"], r"-o .+ is a folder; for frames in it, give a pattern: "
                                     r".+/%05d\.png$"),
    (["render", BAR, "--dof", "lens"], r"--dof lens: bar.frag is a shader scene without a camera"),
    (["render", BAR, "--granularity", "many"], r"--granularity many must be 'auto' or an integer"),
    (["still", BAR, "-o", "{tmp}/s.png", "--bit-depth", "32"], r"--bit-depth 32: PNG frames "
     r"are 8 or 16 bits$"),
    (["render", BAR, "-o", "{tmp}/x.ts", "--resume"], r"--resume: .*x\.ts cannot be resumed "
     r"\(a \.ts video is written in one piece; \.mp4, \.mov, \.mkv and \.webm are written in "
     r"segments that resume\); render it again$"),  # was: "(a GIF's palette is made whole)"
    # was: rendered, then "cannot write st/c%04d.png"; #### wrote a file named so
    (["still", BAR, "-o", "{tmp}/c%04d.png"], r"-o .*/c%04d\.png: a still is one picture, not "
     r"a sequence's pattern; name the file, or render the frame into the sequence: hfrender "
     r"render FILE --frames N:N\+1 -o .*/c%04d\.png$"),
    (["still", BAR, "-o", "{tmp}/####.exr"], r"-o .*/####\.exr: a still is one picture"),
    (["still", BAR, "-o", "{tmp}/s.jpg"], r"-o .*s\.jpg: a still is written as PNG \(8 or 16 "
     r"bits: --bit-depth\) or EXR \(linear light\)$"),
    (["render", BAR, "--dof", "depth", "--max-coc-px", "1.5"], r"--max-coc-px 1.5 blurs nothing: "
     r"under 2 px across a circle of confusion leaves every pixel as it is \(a pixel's disk is "
     r"whole pixels\); give at least 2, or no depth of field$"),
    (["render", BAR, "--dof", "depth", "--max-coc-px=-5"], r"--max-coc-px -5 blurs nothing: "
     r"under 2 px"),  # as fx says it (was: "must be a finite number > 0", beside 1.5's line)
    (["render", BAR, "--max-coc-px", "1.5"], r"--max-coc-px applies only with --dof depth "
     r"\(the depth of field from each sub-frame's depth\); --dof is auto"),
    (["render", BAR, "--max-coc-px", "4"], r"--max-coc-px applies only with --dof depth \(the "
     r"depth of field from each sub-frame's depth\); --dof is auto: give --dof depth, or leave "
     r"it out$"),
    (["still", BAR, "-o", "{tmp}/s.png", "--dof", "off", "--dof-method", "exact", "--max-coc-px",
      "4"],
     r"--dof-method and --max-coc-px apply only with --dof depth .*; --dof is off: give --dof "
     r"depth, or leave them out$"),
    (["render", BAR, "--samples-range", "16:64"], r"--samples-range 16:64 applies only with "
     r"--samples auto \(a count per frame from its motion\); --samples is 8: give --samples "
     r"auto, or leave --samples-range out$"),  # (was: ignored without a word)
    (["still", BAR, "-o", "{tmp}/s.png", "--samples", "4", "--samples-range", "2:6"],
     r"--samples-range 2:6 applies only with --samples auto .*; --samples is 4: "),
])
def test_cli_errors_are_one_line_and_leave_nothing(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.py").write_text("x = 1\n")
    (tmp_path / "several.py").write_text(SEVERAL)
    args = [a.format(empty=tmp_path / "empty.py", several=tmp_path / "several.py", tmp=tmp_path)
            for a in args]
    if "-o" not in args:
        args += ["-o", str(tmp_path / "out.mp4")]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("hfrender: error: "), err
    assert re.search(message, err), err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.py", "several.py"]


def test_runtime_failure_exits_1_with_the_scene_line(tmp_path, capsys):
    scene = tmp_path / "boom.py"
    scene.write_text("import hfrender as hf\nclass Boom(hf.Scene):\n    def update(self, t):\n"
                     "        raise RuntimeError('nope')\n")
    assert main(["render", str(scene), "-o", str(tmp_path / "b.mp4"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert re.fullmatch(r"hfrender: error: scene error in update\(t\) at t=0 s "
                        rf"\(output frame 0\): RuntimeError: nope \({scene}:4\)\n", err)
    assert not (tmp_path / "b.mp4").exists()  # no empty video left behind


@pytest.mark.parametrize("args, message", [
    (["--samples", "8", "--granularity", "12"],
     r"--granularity 12: a hyperframe holds 0 carried sub-frames plus whole output frames of "
     r"8; use 8 or 16"),
    (["--samples", "4096", "-qh"],
     # 2 x 4096 x 4 B x 2,073,600 px = 67,947,724,800 B, and 100 B a pixel 207,360,000 B
     r"1920x1080 with 4096 sub-frames per output frame needs 68\.2 GB \(67\.9 GB for 2 "
     r"hyperframe slots of 4096 sub-frames and 207 MB to draw, fuse and encode each "
     r"frame\), more than the [\d.]+ [KMGT]?B this process may use: lower --samples \(at most "
     r"\d+ fit at 1920x1080\) or --size"),
])
def test_settings_that_cannot_work_are_refused_before_writing(tmp_path, capsys, args, message):
    out = tmp_path / "x.mp4"
    assert main(["render", BAR, "-o", str(out), "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(rf"hfrender: error: {message}\n", err), err
    assert not out.exists()


def test_a_duration_set_in_setup_is_refused_with_its_line(tmp_path, capsys):
    """A trial's: ``self.duration = 1`` in setup() was left out without a word (the frames
    counted from the class's 4 s before setup() ran), and the render failed past the
    scene's end with advice about the shutter. Now one line names the line that set it;
    a --duration given stands over it, as the README says."""
    import imageio.v3 as iio

    scene = tmp_path / "keys.py"
    scene.write_text("import hfrender as hf\n\n\nclass S(hf.Scene):\n    def setup(self):\n"
                     "        self.s = self.add(hf.Sphere())\n        self.duration = 1\n\n"
                     "    def update(self, t):\n        assert t <= 1.05, t\n")
    out = tmp_path / "k.mp4"
    assert main(["render", str(scene), "-o", str(out), "--size", "32x18", "--samples", "1"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: setup() set duration = 1 (keys.py:7), but the frames are counted "
        "from the duration before setup() (4 s): set duration in the class body (duration = "
        "...), or give --duration\n")
    assert not out.exists()
    assert main(["render", str(scene), "-o", str(out), "--size", "32x18", "--samples", "1",
                 "--duration", "0.5", "--quiet"]) == 0  # --duration stands over it (a review)
    assert out.exists() and len(iio.imread(out)) == 15


@pytest.mark.parametrize("shutter, said", [
    ("0.5", "--shutter 0.5 is in degrees: a shutter open 0.14% of the frame, all but no "
            "motion blur; Blender's shutter of 0.5 frames is --shutter 180"),
    ("2", "--shutter 2 is in degrees: a shutter open 0.56% of the frame, all but no motion "
          "blur; Blender's shutter of 2 frames is --shutter 720"),
    ("2.5", None), ("180", None),
])
def test_a_shutter_given_in_frames_is_said(tmp_path, caplog, shutter, said):
    """Blender's shutter is in frames (0.5 its default): --shutter 0.5 rendered half a
    degree, the motion blur all but gone, without a word (a trial)."""
    with caplog.at_level("WARNING"):
        assert main(["still", BAR, "--shutter", shutter, "--samples", "2", "--size", "16x16",
                     "-o", str(tmp_path / "s.png"), "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records if "is in degrees" in r.getMessage()]
    assert told == ([] if said is None else [said])
    caplog.clear()  # hfrender.toml's too (a review: the flag's alone was looked at)
    (tmp_path / "hfrender.toml").write_text(f"[render]\nshutter = {shutter}\n")
    with caplog.at_level("WARNING"), pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path)
        assert main(["still", BAR, "--samples", "2", "--size", "16x16", "-o",
                     str(tmp_path / "s.png"), "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records if "is in degrees" in r.getMessage()]
    assert told == ([] if said is None else [said])


@pytest.mark.parametrize("key, said", [
    ('quality = "low"', r"\[render\] quality: the presets -ql, -qm, -qh are the command "
                        r"line's \(a size and a frame rate\); in hfrender.toml give size and "
                        r'fps \(-ql is size = "854x480", fps = 15\)$'),
    # as a jobs file says it (was: "did you mean samlpes -> samples?")
    ("samlpes = 4", r"hfrender.toml: \[render\]: unknown field 'samlpes'; did you mean "
                    r"'samples'\?$"),
    # Unreal's (was: "temporal_samples -> keep_samples", a sample store's folder)
    ("temporal_samples = 8", r"\[render\]: unknown field 'temporal_samples'; did you mean "
                             r"'samples'\?$"),
    ("shutter_speed = 48", r"\[render\]: unknown field 'shutter_speed'; did you mean 'shutter'\? "
                           r"\(shutter is an angle in degrees: a shutter speed of 1/S s at F fps "
                           r"is 360 F / S \(1/48 s at 24 fps: 180\)\)$"),
    # an output of another type was an internal error ("expected str, ... not int"), a bit
    # depth no output takes was left out without a word (as a PNG's 12 is)
    ("output = 5", r"\[render\] output = 5 must be a file name: a video \(out.mp4\) or an "
                   r"image sequence \(frames/%05d.png\)$"),
    ("bit-depth = 12", r"\[render\] bit-depth = 12 must be one of 8, 16, 32$"),
    ('bit_depth = "16"', r'\[render\] bit_depth = "16" must be one of 8, 16, 32$'),
    # named as hfrender.toml's (were "--codec 5: this ffmpeg has no such encoder", "gl=3
    # is not an OpenGL context", as if given on the command line)
    ("codec = 5", r"hfrender.toml: \[render\] codec = 5 must be an ffmpeg encoder's name"),
    # an encoder this ffmpeg lacks: the file and its key (was "--codec libx246: this ffmpeg
    # has no such encoder ...", a flag the user never gave)
    ('codec = "libx246"', r'^hfrender: error: .*/hfrender.toml: \[render\] codec = "libx246": '
                          r"this ffmpeg has no such encoder \(did you mean libx26[45]\? hfrender "
                          r"info -v lists its video encoders\)$"),
    # each key as the file spells it, its value as TOML does (were max_in_flight=0,
    # samples_range=(16, 4), hdr=True: the setting's own name and Python's spelling, a trial)
    ("max-in-flight = 0", r"hfrender.toml: \[render\] max-in-flight = 0 must be an integer "
                          r"from 1 to 64$"),
    ('samples-range = "16:4"', r'hfrender.toml: \[render\] samples-range = "16:4" must be '
                               r"MIN:MAX with 1 <= MIN <= MAX <= 4096$"),
    ("hdr = true", r"hfrender.toml: \[render\] hdr = true must be one of auto, on, off$"),
    ("fps = 0", r"hfrender.toml: \[render\] fps = 0 must be a finite number >= 0.001 and "
                r"<= 1000$"),
    ("gl = 3", r"hfrender.toml: \[render\] gl = 3 is not an OpenGL context; choose one of "
               r"egl, glfw$"),
    ('backend = "gpu"', r'hfrender.toml: \[render\] backend = "gpu" is not a backend; choose '
                        r"one of auto, cpu, cuda$"),
    # the encoder's settings and the frames as the file spells them too (were "--crf 99",
    # '--frames 5:2', "-o o2.mp4/", flags the user never gave)
    ("crf = 99", r"hfrender.toml: \[render\] crf = 99 must be an integer from 0 to 63 "),
    ('bitrate = "fast"', r'hfrender.toml: \[render\] bitrate = "fast" must be a rate in '
                         r"bits per second"),
    ('pix-fmt = "yuv 444"', r'hfrender.toml: \[render\] pix-fmt = "yuv 444" must be a name '),
    ('frames = "5:2"', r'hfrender.toml: \[render\] frames = "5:2": START must be before END '
                       r"\(END is exclusive: 5:6 is frame 5 alone\)$"),
    ('frames = "a"', r'hfrender.toml: \[render\] frames = "a" must be START:END'),
    # (checked when the file is read: -o, given here, would have taken its place)
    ('output = "o2.mp4/"', r'hfrender.toml: \[render\] output = "o2.mp4/": a folder\'s name '
                           r'\(it ends in /\); name the file \(output = "o2.mp4"\)$'),
])
def test_a_project_files_unknown_key_names_what_is_meant(tmp_path, monkeypatch, capsys, key,
                                                        said):
    """manim's quality in hfrender.toml was "did you mean quality -> quiet?" (a trial)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hfrender.toml").write_text(f"[render]\n{key}\n")
    assert main(["render", BAR, "-o", str(tmp_path / "o.mp4")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(said, err.rstrip("\n")), err


def test_a_misspelt_key_reads_alike_in_hfrender_toml_and_a_jobs_file(tmp_path, monkeypatch,
                                                                    capsys):
    """hfrender.toml's "did you mean sampels -> samples?" read awkwardly beside a jobs file's
    line for the same mistake; now both say it in one wording (errors.unknown_key)."""
    monkeypatch.chdir(tmp_path)
    jobs = tmp_path / "jobs.toml"
    jobs.write_text(f'[defaults]\nsampels = 4\n[[job]]\nname = "a"\nscene = "{BAR}"\n'
                    'output = "a.mp4"\n')
    assert main(["batch", str(jobs)]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {jobs}: [defaults]: unknown field "
                                       "'sampels' for a render or fx job; did you mean "
                                       "'samples'?\n")
    toml = tmp_path / "hfrender.toml"
    toml.write_text("[render]\nsampels = 4\n")
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {toml}: [render]: unknown field "
                                       "'sampels'; did you mean 'samples'?\n")
