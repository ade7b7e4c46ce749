"""`hfrender batch`: a jobs file's mistakes (bad keys and values, scene classes, conflicts
between jobs, what a job would overwrite) are told, one line each, before any job runs."""

import re

import numpy as np
import pytest
from batch_helpers import (
    JOBS,
    folder_fixture,  # noqa: F401  (the fixture folder)
)

from hfrender.cli import main
from hfrender.engine.batch import load_jobs
from hfrender.errors import InputError

pytestmark = pytest.mark.usefixtures("gl_context")


@pytest.mark.parametrize("edit,message", [
    (lambda t: t + "\n[[job\n", r"jobs\.toml: not a TOML file: "),
    (lambda t: t.replace("motion-blur = 4", "motion-blurr = 4"),
     r"job 'smooth': unknown field 'motion-blurr' for an fx job; did you mean 'motion-blur'\?$"),
    (lambda t: t.replace("motion-blur = 4", "motion-blur = 4\nzzz = 4"),
     r"job 'smooth': unknown field 'zzz' for an fx job; known: aperture-blades, backend, "
     r"bitrate"),
    (lambda t: t.replace("samples = 2", 'samples = "two"'),  # once, for every job
     r"jobs\.toml: \[defaults\]: samples = \"two\" must be an integer or auto$"),
    (lambda t: t.replace('duration = 0.5', 'duration = 0.5\nsamples = "two"'),
     r"job 'bar': samples = \"two\" must be an integer or auto$"),
    (lambda t: t.replace('scene = "bar.frag"\noutput = "out/bar.mp4"',
                         'scene = "nope.py"\noutput = "out/bar.mp4"'),
     r"job 'bar': scene file not found: .*nope\.py$"),
    (lambda t: t.replace("duration = 0.5", 'duration = 0.5\nscene_class = "Bar"'),
     r"job 'bar': scene_class Bar: bar\.frag is a shader file, it has no scene classes$"),
    (lambda t: t.replace('output = "out/bar.mp4"', 'output = "/proc/hf/bar.mp4"'),
     r"job 'bar': output /proc/hf/bar\.mp4: cannot write in /proc: no file can be made "
     r"there \(No such file or directory\)$"),
    (lambda t: t.replace('input = "clip.mp4"', 'input = "missing.mp4"'),
     r"job 'smooth': input .*missing\.mp4 not found"),
    # found only when the job's turn came, after the jobs before it had run
    (lambda t: t.replace('input = "clip.mp4"', 'input = "none/%04d.png"'),
     r"job 'smooth': input .*none/%04d\.png not found$"),
    (lambda t: t.replace('input = "clip.mp4"', 'input = "."'),  # was found when its turn
     r"job 'smooth': input .* is a folder with no PNG, EXR, TIFF or JPEG images"),  # came, exit 1
    (lambda t: t.replace('output = "out/smooth.mp4"', 'output = "./clip.mp4"'),
     r"job 'smooth': output = \"\./clip\.mp4\" is the input \(.*clip\.mp4\): write the "
     r"output elsewhere$"),  # the key as the file gives it (was: "-o /abs/clip.mp4")
    (lambda t: t.replace("samples = 2", 'samples = 2\nscene = "bar.frag"'),  # was ignored
     r"jobs\.toml: \[defaults\]: scene is each job's own; give it in every \[\[job\]\]$"),
    (lambda t: t.replace("samples = 2", 'samples = 2\noutput = "o.mp4"'),
     r"jobs\.toml: \[defaults\]: output is each job's own; give it in every \[\[job\]\]$"),
    (lambda t: t.replace("samples = 2", "sampels = 2"),  # not the first job's typo
     r"jobs\.toml: \[defaults\]: unknown field 'sampels' for a render or fx job; did you "
     r"mean 'samples'\?$"),
    (lambda t: t.replace("samples = 2", "shutter-speed = 48"),  # (was: 'shutter'? alone)
     r"\[defaults\]: unknown field 'shutter-speed' for a render or fx job; did you mean "
     r"'shutter'\? \(shutter is an angle in degrees: a shutter speed of 1/S s at F fps is "
     r"360 F / S \(1/48 s at 24 fps: 180\)\)$"),
    # a job's own key misspelt: named, with the one meant (were: "give either scene (a
    # render) or input", "name is missing", and a known list without output, a trial)
    (lambda t: t.replace('output = "out/bar.mp4"', 'ouput = "out/bar.mp4"'),
     r"jobs\.toml: job 'bar': unknown field 'ouput'; did you mean 'output'\?$"),
    (lambda t: t.replace('scene = "bar.frag"', 'scnee = "bar.frag"', 1),
     r"jobs\.toml: job 'bar': unknown field 'scnee'; did you mean 'scene'\?$"),
    (lambda t: t.replace('input = "clip.mp4"', 'inptu = "clip.mp4"'),
     r"jobs\.toml: job 'smooth': unknown field 'inptu'; did you mean 'input'\?$"),
    (lambda t: t.replace('name = "frames"', 'nmae = "frames"'),
     r"jobs\.toml: \[\[job\]\] number 3: unknown field 'nmae'; did you mean 'name'\?$"),
    # an option's misspelling is the option's, not an own key's (were told 'name', 'scene')
    (lambda t: t.replace("duration = 0.5", "duration = 0.5\nsample = 8"),
     r"job 'bar': unknown field 'sample' for a render job; did you mean 'samples'\?$"),
    (lambda t: t.replace("duration = 0.5", "duration = 0.5\nsizee = \"32x18\""),
     r"job 'bar': unknown field 'sizee' for a render job; did you mean 'size'\?$"),
    (lambda t: t.replace("duration = 0.5", "duration = 0.5\nzzz = 1"),
     r"job 'bar': unknown field 'zzz' for a render job; known: .*, name, output, .*, scene, "
     r"scene_class, "),  # as documented and as the hint offers it (was scene-class there)
    (lambda t: t.replace("duration = 0.5", "duration = 0.5\nscene-clas = \"A\""),
     r"jobs\.toml: job 'bar': unknown field 'scene-clas'; did you mean 'scene_class'\?$"),
    # a job's own key misspelt in [defaults]: the key meant, and whose it is (was: the
    # known options' list, without it)
    (lambda t: t.replace("samples = 2", 'samples = 2\nouput = "o.mp4"'),
     r"jobs\.toml: \[defaults\]: unknown field 'ouput'; did you mean 'output'\? output is "
     r"each job's own; give it in every \[\[job\]\]$"),
    (lambda t: t.replace("samples = 2", 'samples = 2\nscene_clas = "A"'),
     r"jobs\.toml: \[defaults\]: unknown field 'scene_clas'; did you mean 'scene_class'\? "
     r"scene_class is each job's own; give it in every \[\[job\]\]$"),
    (lambda t: t.replace('name = "frames"', 'name = "bar"'),
     r"two jobs are named 'bar'; give each its own name"),
    (lambda t: t.replace('name = "frames"', 'name = 5'),  # was: "name is missing"
     r"\[\[job\]\] number 3: name = 5 must be a string of some characters, on one line "
     r"\(name = \"shot\"\)$"),
    (lambda t: t.replace('name = "frames"', 'name = "  "'),  # was: a row of no name
     r"job '  ': name = \"  \" must be a string of some characters, on one line \(name = "
     r"\"shot\"\)$"),
    (lambda t: t.replace('name = "frames"', 'name = "fra\\nmes"'),  # was: run, its table
     r"job 'fra\\nmes': name = \"fra\\nmes\" must be a string of some characters, on one "
     r"line \(name = \"shot\"\)$"),  # row and progress line broken in two
    (lambda t: t.replace("[[job]]", "[job]", 1).split("[[job]]")[0],  # was: "no [[job]]"
     r"jobs\.toml: \[job\] is one table; each job is a \[\[job\]\] entry \(two brackets\), "
     r"even where there is one$"),
    (lambda t: t.replace('output = "out/bar.mp4"', "output = 5"),  # was: "output is missing"
     r"job 'bar': output = 5 must be a path such as output = \"out/shot\.mp4\"$"),
    (lambda t: t.replace('input = "clip.mp4"', 'input = ""'),
     r"job 'smooth': input = \"\" must be a path such as input = \"clip\.mp4\"$"),
    (lambda t: t.replace("duration = 0.25", "duration = 0.25\nframes = 3"),  # was: "must be
     r"job 'frames': frames = 3 must be a string such as frames = \"10:20\" \(output "  # a
     r"frames START:END, END exclusive; \"10:\" or \":20\"\)$"),  # string", no more
    (lambda t: t.replace("samples = 2", "samples = 2\nsamples-range = 4"),
     r"jobs\.toml: \[defaults\]: samples-range = 4 must be a string such as samples-range = "
     r"\"4:64\"$"),
    (lambda t: "job = 5\n",  # was: "no [[job]] entries", as for a file of none
     r"jobs\.toml: job = 5 is not a job; each job is a \[\[job\]\] entry \(two brackets\) "
     r"of name, scene or input, output$"),
    (lambda t: "defaults = 5\n" + t[t.index("[[job]]"):],
     r"jobs\.toml: defaults = 5 is not a table; the settings of every job go under "
     r"\[defaults\]$"),
    (lambda t: t.replace('output = "out/png/%03d.png"', 'output = "out/bar.mp4"'),
     r"jobs 'bar' and 'frames' have the same output"),
    (lambda t: t.replace('output = "out/smooth.mp4"', 'output = "out/bar.partial.mp4"'),
     r"job 'bar' would keep an interrupted run's frames in .*out/bar\.partial\.mp4, the "
     r"output of job 'smooth': name one of them otherwise$"),
    (lambda t: t.replace("duration = 0.25", "duration = -1"),
     r"job 'frames': duration = -1 must be a finite number > 0$"),
    # each key as the jobs file spells it, its value as TOML does (were max_in_flight=0,
    # samples_range=(16, 4), hdr = True, a trial)
    (lambda t: t.replace("duration = 0.25", "duration = 0.25\nmax-in-flight = 0"),
     r"jobs\.toml: job 'frames': max-in-flight = 0 must be an integer from 1 to 64$"),
    (lambda t: t.replace("duration = 0.25", 'duration = 0.25\nsamples = "auto"\n'
                                            'samples-range = "16:4"'),
     r"jobs\.toml: job 'frames': samples-range = \"16:4\" must be MIN:MAX with 1 <= MIN <= "
     r"MAX <= 4096$"),
    (lambda t: t.replace("samples = 2", "samples = 2\nhdr = true"),
     r"jobs\.toml: \[defaults\]: hdr = true must be a string$"),
    (lambda t: t.replace("duration = 0.25", "duration = 1e9"),  # was found as it ran
     r"job 'frames': duration=1e\+09 s at 24 fps is 24,000,000,000 frames; hfrender renders "
     r"at most [\d,]+ in one output"),
    (lambda t: t.replace("duration = 0.5", "duration = 0.5\nfps = 5000"),
     r"job 'bar': fps = 5000 must be a finite number >= 0\.001 and <= 1000$"),
    (lambda t: t.replace('output = "out/bar.mp4"', 'output = "out/bar.avi"'),
     r"job 'bar': -o .*out/bar\.avi: unknown output type '\.avi'"),
    (lambda t: t.replace('size = "32x8"', 'size = "33x8"'),
     r"job 'bar': size 33x8: libx264 video in yuv420p needs an even width and height"),
    (lambda t: t.replace("duration = 0.5", "duration = 0.5\nbit-depth = 16"),  # was: the
     r"job 'bar': --bit-depth 16: -o .*out/bar\.mp4 is a video, whose encoder's pixel "  # job
     r"format decides"),  # failed when its turn came, exit 1, the jobs before it run
    (lambda t: t.replace("duration = 0.25", "duration = 0.25\nbit-depth = 32"),  # (EXR's)
     r"job 'frames': --bit-depth 32: PNG frames are 8 or 16 bits$"),
    (lambda t: t.replace('duration = 0.5', 'duration = 0.5\ntransparent = true'),
     r"job 'bar': --transparent: -o .*out/bar\.mp4 \(libx264\) keeps no alpha"),
])
def test_a_bad_jobs_file_is_one_line_before_anything_runs(folder, capsys, edit, message):
    import re

    path = folder / "jobs.toml"
    path.write_text(edit(path.read_text()))
    assert main(["batch", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and re.search(message, err), err
    assert not (folder / "out").exists()  # nothing rendered, nothing written


SCENES = """import hfrender as hf
from math import tau as Tau


class Orbit(hf.Scene):
    pass


class Spin(hf.Scene):
    pass


try:
    import trimesh
except ImportError:
    class Fallback(hf.Scene):
        pass
else:
    class Fallback(hf.Scene):
        pass

Alias = Spin
Typed: type = Orbit
"""


def _scene_job(folder, source, scene_class):
    """The jobs file with job 'bar' rendering class ``scene_class`` of scenes.py (``source``)."""
    (folder / "scenes.py").write_text(source)
    path = folder / "jobs.toml"
    text = path.read_text().replace('scene = "bar.frag"\noutput = "out/bar.mp4"',
                                    'scene = "scenes.py"\noutput = "out/bar.mp4"')
    path.write_text(text.replace("duration = 0.5",
                                 f'duration = 0.5\nscene_class = "{scene_class}"'))
    return path


@pytest.mark.parametrize("source,scene_class,message", [
    (SCENES, "Orbt", r"job 'bar': .*scenes\.py: no class named 'Orbt'; did you mean Orbit\?$"),
    (SCENES, "Zzz", r"job 'bar': .*scenes\.py: no class named 'Zzz'; found Orbit, Spin, "
                    r"Fallback, Fallback$"),
    (SCENES, "Tau", r"job 'bar': .*scenes\.py: no class named 'Tau'; found Orbit, "),
    ("import hfrender as hf\n", "Orbit",
     r"job 'bar': .*scenes\.py: no class named 'Orbit'; it defines no classes$"),
    (SCENES.replace("    pass\n\n\nclass Spin", "    pass\n\n\nclass Spin("), "Orbit",
     r"job 'bar': .*scenes\.py:9: syntax error: "),
])
def test_a_scene_class_not_in_its_file_is_said_before_anything_runs(folder, capsys, source,
                                                                    scene_class, message):
    """Told from the file without running it: a render job's scene parses and defines (or
    assigns) the class it names; an imported one is none of the file's scenes."""
    import re

    path = _scene_job(folder, source, scene_class)
    assert main(["batch", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and re.search(message, err), err
    assert not (folder / "out").exists()  # nothing rendered, nothing written


@pytest.mark.parametrize("name", ["Orbit", "Spin", "Alias", "Fallback", "Typed"])
def test_a_class_defined_or_assigned_in_the_scene_file_passes_the_check(folder, name):
    """At its top level, inside a try or an if, or an alias by (annotated) assignment."""
    job = load_jobs(_scene_job(folder, SCENES, name), {})[0]
    assert (job.scene_class, job.source.name) == (name, "scenes.py")


def test_scene_class_may_be_spelt_with_a_dash_as_every_other_key(folder):
    """scene-class = "Spin" was passed over without a word (a job's keys take dashes or
    underscores): the file's first scene was asked for, or several refused (a trial)."""
    path = _scene_job(folder, SCENES, "Spin")
    path.write_text(path.read_text().replace("scene_class", "scene-class"))
    assert load_jobs(path, {})[0].scene_class == "Spin"


def test_a_scene_file_of_several_scenes_without_scene_class_is_said_first(folder, capsys):
    """A job's scene file holding two Scene classes, and no scene_class: found when its
    turn came ("choose one with -s NAME", the command line's words), after the jobs before
    it had run."""
    (folder / "ab.py").write_text("import hfrender as hf\n\nclass Base(hf.Scene):\n"
                                  "    pass\n\nclass A(Base):\n    pass\n\n"
                                  "class B(Base):\n    pass\n\ntry:\n"
                                  "    class C(hf.Scene):\n        pass\nexcept Exception:\n"
                                  "    pass\n\ndef variant():\n"
                                  "    class Tinted(A):  # made by a function: not a scene\n"
                                  "        pass\n    return Tinted\n")
    (folder / "jobs.toml").write_text(JOBS + '\n[[job]]\nname = "ab"\nscene = "ab.py"\n'
                                      'output = "out/ab.mp4"\n')
    assert main(["batch", str(folder / "jobs.toml"), "--quiet"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {folder / 'jobs.toml'}: job 'ab': {folder / 'ab.py'} has several "
        'scenes (A, B, C); choose one with scene_class = "A"\n')
    assert not (folder / "out").exists()  # nothing ran
    (folder / "jobs.toml").write_text(JOBS + '\n[[job]]\nname = "ab"\nscene = "ab.py"\n'
                                      'output = "out/ab.mp4"\nscene_class = "B"\n')
    assert main(["batch", str(folder / "jobs.toml"), "--quiet"]) == 0


def test_every_wrong_job_is_told_at_once_one_line_each(folder, capsys):
    """A jobs file's wrong jobs are told together (was: the first, then the next after
    fixing it); an fx job reading a wrong job's output is that job's error, and a
    [defaults] error every job meets is told once."""
    path = folder / "jobs.toml"
    text = path.read_text().replace("duration = 0.5", "duration = 0.5\nsamples = 0")
    text = text.replace("duration = 0.25", "duration = -1")
    path.write_text(text + '\n[[job]]\nname = "again"\ninput = "out/bar.mp4"\n'
                    'output = "out/again.mp4"\nmotion-blur = 2\n')
    assert main(["batch", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2, lines
    assert re.search(r"job 'bar': samples = 0 must be an integer from 1 to 4096", lines[0])
    assert re.search(r"job 'frames': duration = -1 must be a finite number > 0", lines[1])
    assert all(line.startswith("hfrender: error: ") for line in lines)
    assert not (folder / "out").exists()
    with pytest.raises(InputError) as told:  # the library's: each line, the first first
        load_jobs(path, {})
    assert len(told.value.lines) == 2 and str(told.value).splitlines() == told.value.lines
    path.write_text(text.replace("samples = 2", "samples = 2\nwidth = 32"))
    assert main(["batch", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"hfrender: error: {path}: [defaults]: unknown field 'width' for a "
                     "render or fx job; did you mean 'size'?"]
    path.write_text(text.replace("fps = 24", "fps = 5000").replace("samples = 0", "samples = 1")
                    .replace("duration = -1", "duration = 0.25"))
    assert main(["batch", str(path)]) == 2  # a [defaults] value out of range: once, with
    lines = capsys.readouterr().err.splitlines()  # the jobs it fails (was a line each)
    assert len(lines) == 1 and re.search(r"\[defaults\], for jobs 'bar' and 'frames': fps = "
                                         "5000 must be a finite number", lines[0]), lines


def test_many_wrong_jobs_are_counted_past_twenty_lines(folder, capsys):
    path = folder / "jobs.toml"
    path.write_text("".join(f'[[job]]\nname = "j{i}"\nscene = "none{i}.py"\noutput = '
                            f'"out/{i}.mp4"\n\n' for i in range(23)))
    assert main(["batch", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 21 and lines[-1] == "hfrender: error: and 3 more"
    assert [re.search(r"job '(j\d+)': scene file not found", x)[1] for x in lines[:20]] == \
        [f"j{i}" for i in range(20)]


def test_a_job_without_output_hides_no_other_jobs_error_and_a_made_depth_waits(folder,
                                                                               capsys):
    """A review's: a render job with no output made every later render job's error look
    like its own (their inputs, none, were "the wrong job's output"); an fx job whose depth
    pass an earlier job writes is checked once it is written, not refused before."""
    path = folder / "jobs.toml"
    text = path.read_text()
    path.write_text(text.replace('output = "out/bar.mp4"\n', "", 1)
                    .replace("duration = 0.25", "duration = 0.25\nsamples = 0"))
    assert main(["batch", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert [re.search(r"job '(\w+)': (\w+)", x).groups() for x in lines] == [
        ("bar", "output"), ("frames", "samples")], lines
    path.write_text(text + '\n[[job]]\nname = "focus"\ninput = "clip.mp4"\noutput = '
                    '"out/focus.mp4"\ndepth = "out/png/%03d.png"\nf-stop = 2\n'
                    "focus-distance = 1\n")
    assert [j.name for j in load_jobs(path, {})] == ["bar", "smooth", "frames", "focus"]


def test_every_conflict_between_jobs_is_told_at_once(folder, capsys):
    """Two jobs of one name and two of one output were told a pair a run (fix one, run, be
    told of the next: a trial): every pair now, one line each, before anything runs."""
    path = folder / "jobs.toml"
    path.write_text(path.read_text().replace('name = "frames"', 'name = "bar"').replace(
        'output = "out/smooth.mp4"', 'output = "out/bar.mp4"'))
    assert main(["batch", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"hfrender: error: {path}: two jobs are named 'bar'; give each its own name (the "
        "state file tells their outputs apart by it)",
        f"hfrender: error: {path}: jobs 'bar' and 'smooth' have the same output "
        f"({folder / 'out' / 'bar.mp4'})"]
    assert not (folder / "out").exists()


def test_a_users_picture_at_a_jobs_frame_is_told_before_any_job_runs(folder, capsys):
    """A user's picture at a name a render job's sequence takes made that job fail when its
    turn came, the jobs before it run (a README audit: every job is checked before any
    runs); and a flag before -q is a flag (--jitter -q: "'-q': not a valid value")."""
    from PIL import Image

    (folder / "out" / "png").mkdir(parents=True)
    Image.fromarray(np.full((8, 32, 3), 5, np.uint8)).save(folder / "out" / "png" / "003.png")
    assert main(["batch", str(folder / "jobs.toml"), "--jitter", "-q"]) == 2
    assert capsys.readouterr().err.startswith(
        f"hfrender: error: {folder / 'jobs.toml'}: job 'frames': output "
        f"{folder / 'out' / 'png' / '%03d.png'}: {folder / 'out' / 'png' / '003.png'} is there "
        "and hfrender did not write it")
    assert not (folder / "out" / "bar.mp4").exists()  # nothing ran


@pytest.mark.parametrize("flag, value", [("--motion-blur", "1000000000000"),
                                         ("--stride", "13"), ("--motion-blur", "13")])
def test_a_window_longer_than_an_fx_jobs_input_is_refused_before_any_job(folder, capsys, flag,
                                                                         value):
    """The clip has 12 frames: a window or stride past them was refused only when the fx
    job's turn came, after the render before it had written its output (a bad-input
    sweep)."""
    assert main(["batch", str(folder / "jobs.toml"), flag, value, "--quiet"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: on the command line, for job 'smooth': {flag} {value} is longer "
        "than the input (12 frames)\n")
    # the job's own, named as the file spells it
    jobs = folder / "jobs.toml"
    jobs.write_text(jobs.read_text().replace("motion-blur = 4", "motion-blur = 13"))
    assert main(["batch", str(jobs), "--quiet"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {jobs}: job 'smooth': motion-blur = 13 is longer than the input (12 "
        "frames)\n")
    assert not (folder / "out").exists()  # nothing ran
