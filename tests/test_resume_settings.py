"""--resume and the interrupted run's settings: changed ones refused and named as the command
line spells them, compared as the manifest keeps them; starting over says what it
discards."""

import json
import signal
import sys
from pathlib import Path

import pytest
from render_helpers import decode_video as decoded
from resume_helpers import ARGS, scene, start, wait_for_segments

from hfrender.cli import main
from hfrender.io.segments import work_dir

pytestmark = pytest.mark.usefixtures("gl_context")  # glGetError after each test


def killed_after_a_segment(tmp_path):
    """(scene, output) of a render killed (-9) once it has kept a whole segment."""
    path = scene(tmp_path, 0.004)
    out = tmp_path / "c.mp4"
    proc = start(path, out)
    wait_for_segments(out, 1, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return path, out


def test_resume_refuses_changed_settings(tmp_path, capsys):
    path, out = killed_after_a_segment(tmp_path)
    code = main(["render", str(path), "-o", str(out), "--size", "64x36", "--samples", "4",
                 "--granularity", "12", "--quiet", "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and "--resume: the settings changed since the interrupted render " \
                         "(samples 2 -> 4); render without --resume to start over" in err
    assert not out.exists()
    code = main(["render", str(path), "-o", str(out), *ARGS, "--hdr", "on", "--resume"])
    assert code == 2 and "(hdr auto -> on)" in capsys.readouterr().err  # float sub-frames
    assert main(["render", str(path), "-o", str(tmp_path / "none.mp4"), "--resume"]) == 2
    assert "--resume: nothing to resume for" in capsys.readouterr().err
    assert main(["render", str(path), "-o", str(tmp_path / "none.mp4"), *ARGS]) == 0
    assert main(["render", str(path), "-o", str(tmp_path / "none.mp4"), "--resume"]) == 2
    assert capsys.readouterr().err.strip().endswith(  # a finished one: said so
        f"--resume: nothing to resume for {tmp_path / 'none.mp4'} ({tmp_path / 'none.mp4'} is "
        "there, and no run of it was interrupted); render without --resume to make it again")


def test_starting_over_says_what_the_interrupted_run_had_finished(tmp_path, caplog):
    """Without --resume, an interrupted run's segments go: a warning counts their frames
    (a plain re-run used to discard them without a word)."""
    path, out = killed_after_a_segment(tmp_path)
    kept = sum(s["count"] for s in json.loads((work_dir(out) / "manifest.json").read_text())
               ["segments"])
    assert kept >= 12
    with caplog.at_level("WARNING", logger="hfrender.io.segments"):
        assert main(["render", str(path), "-o", str(out), *ARGS[:-1], "--duration", "0.2",
                     "--quiet"]) == 0
    said = [r.getMessage() for r in caplog.records if r.name == "hfrender.io.segments"]
    assert said == [f"starting {out} over: an interrupted run's {kept} finished frames there "
                    f"(.c.mp4.hfrender) are discarded (a run goes on from them only with the "
                    f"same settings: render's and fx's --resume, a batch's same job)"]
    assert not work_dir(out).exists() and len(decoded(out)) == 6
    caplog.clear()
    with caplog.at_level("WARNING", logger="hfrender.io.segments"):  # nothing kept: no word
        assert main(["render", str(path), "-o", str(out), *ARGS, "--duration", "0.2"]) == 0
    assert not [r for r in caplog.records if r.name == "hfrender.io.segments"]
    from hfrender.io.outputs import mark_partial

    partial = tmp_path / "c.partial.mp4"  # an interrupted run's frames to watch (a trial:
    partial.write_bytes(out.read_bytes())  # removed by the next whole run without a word)
    mark_partial(partial)  # (as an older hfrender did: its frames not recorded, but counted)
    caplog.clear()
    with caplog.at_level("WARNING", logger="hfrender.io.segments"):
        assert main(["render", str(path), "-o", str(out), *ARGS, "--duration", "0.2"]) == 0
    assert [r.getMessage() for r in caplog.records if r.name == "hfrender.io.segments"] == [
        f"starting {out} over: c.partial.mp4, an interrupted run's 6 frames to watch, stays "
        "until this run is complete or stops with as many (move it elsewhere to keep it)"]
    assert not partial.exists()
    gif, partial = tmp_path / "c.gif", tmp_path / "c.partial.gif"  # a GIF is not resumed:
    partial.write_bytes(b"GIF89a interrupted")  # its partial one, the only copy, went
    mark_partial(partial)  # unsaid (a trial); its frames cannot be counted: it goes either way
    caplog.clear()
    with caplog.at_level("WARNING", logger="hfrender.io.segments"):
        assert main(["render", str(path), "-o", str(gif), *ARGS, "--duration", "0.2"]) == 0
    assert [r.getMessage() for r in caplog.records if r.name == "hfrender.io.segments"] == [
        f"starting {gif} over: c.partial.gif, an interrupted run's frames to watch, goes once "
        "this run is complete or stops with frames of its own (move it elsewhere to keep it)"]
    assert gif.exists() and not partial.exists()


def test_changed_settings_are_shown_as_they_are_given_on_the_command_line():
    from hfrender.io.segments import Manifest

    old = {"size": [64, 36], "crf": None, "f_stop": 2.0, "dof_method": "fast", "jitter": False,
           "frames": [10, 80], "samples": 2, "same": "x", "fps": 29.97, "range": [10, None]}
    new = {"size": [32, 18], "crf": 30, "f_stop": 2.8, "dof_method": "exact", "jitter": True,
           "frames": None, "samples": 2, "same": "x", "fps": 29.970001, "range": [12, None]}
    assert Manifest(old, 10, 5, 5).differences(new) == [
        "crf unset -> 30", "dof-method fast -> exact", "f-stop 2 -> 2.8",
        "fps 29.97 -> 29.970001", "frames 10:80 -> unset", "jitter off -> on", "range 10: -> 12:",
        "size 64x36 -> 32x18"]
    # fx's lens is a group of settings: each of its own is named as its flag is (not a dict)
    lens = {"focus_distance": 2.0, "f_stop": 2.0, "max_coc_px": None, "aperture_blades": 0}
    fx = Manifest({"window": 1, "lens": lens}, 10, 5, 0)
    assert fx.differences({"window": 1, "lens": {**lens, "focus_distance": 3.5,
                                                 "aperture_blades": 6}}) == [
        "aperture-blades 0 -> 6", "focus-distance 2 -> 3.5"]
    assert fx.differences({"window": 1, "lens": None}) == [
        "aperture-blades 0 -> unset", "f-stop 2 -> unset", "focus-distance 2 -> unset"]
    # a file's checksum or identity is said changed, not shown as two hashes or a dict's
    # entries (an fx input's size beside its depth's, both named "size")
    files = Manifest({"scene_sha256": "a" * 64, "input": {"path": "a.mp4", "size": 1},
                      "depth": "d" * 64, "size": [64, 36]}, 10, 5, 0)
    assert files.differences({"scene_sha256": "b" * 64, "input": {"path": "a.mp4", "size": 2},
                              "depth": "e" * 64, "size": [64, 36]}) == [
        "the depth pass changed", "the input changed", "the scene file changed"]


def test_continue_with_resume_is_offered_only_where_a_segment_was_kept(tmp_path, monkeypatch):
    """Stopped inside its first segment, a render keeps its frames in NAME.partial.mp4 and
    no work folder: --resume would find nothing, so it is not offered."""
    import argparse

    from hfrender.cli import commands
    from hfrender.config import RenderConfig

    out = tmp_path / "o.mp4"
    monkeypatch.setattr(sys, "argv", ["hfrender", "render", "s.py", "-o", str(out)])
    config, args = RenderConfig(output=str(out)), argparse.Namespace(file="s.py")
    assert commands._again(args, config) == ("; no whole segment (about a second of video) "
                                             "was finished, so --resume has nothing to go on "
                                             "from")
    seq = RenderConfig(output=str(tmp_path / "f" / "%04d.png"))
    assert commands._again(args, seq) == ""  # no frame was kept
    (tmp_path / "f" / "####.png.partial").mkdir(parents=True)
    (tmp_path / "f" / "####.png.partial" / "manifest.json").write_text("{}")
    for k in range(2):
        (tmp_path / "f" / "####.png.partial" / f"{k:04d}.png").write_bytes(b"frame")
    assert commands._again(args, seq) == f"; continue from frame 2 with: hfrender render " \
        f"s.py -o {out} --resume"  # (this test's argv names the video: its words come back)
    from hfrender.engine.stopped import go_on
    from hfrender.errors import KEYWORD, spelt

    with spelt(KEYWORD):  # hf.render's, the command's sentence in its keywords
        assert go_on(RenderConfig(output=seq.output, keep_samples="k.samples"), None) == (
            "; continue from frame 2 with the same call and resume=True (without keep_samples:"
            " a sample store holds a whole render; the unfinished k.samples.partial can go)")
    work_dir(out).mkdir()
    (work_dir(out) / "manifest.json").write_text('{"segments": [{"count": 30}, {"count": 8}]}')
    again = commands._again(args, config)
    assert again == f"; continue from frame 38 with: hfrender render s.py -o {out} --resume"
    for keep in (["--keep-samples", "k.samples"], ["--keep-samples=k.samples"],
                 ["--keep-samples=a", "--keep-samples", "k.samples/"]):
        # --resume refuses a store (it holds a whole render): the command offered leaves it
        monkeypatch.setattr(sys, "argv", ["hfrender", "render", "s.py", "-o", str(out), *keep,
                                          "--samples", "4"])
        assert commands._again(args, config) == (
            f"; continue from frame 38 with: hfrender render s.py -o {out} --samples 4 "
            "--resume (without "
            "--keep-samples: a sample store holds a whole render; the unfinished "
            "k.samples.partial can go)")
    monkeypatch.setattr(sys, "argv", ["hfrender", "render", "my shot.py", "-o", str(out)])
    assert commands._again(args, config) == (  # to be pasted as it is
        f"; continue from frame 38 with: hfrender render 'my shot.py' -o {out} --resume")


def test_resume_compares_settings_as_the_manifest_keeps_them(tmp_path):
    """Settings with a tuple (fx's --focus-pixel) or inf (a focus at infinity) match the
    manifest's JSON (a list; Infinity) when nothing changed; a changed one is still named."""
    from hfrender.errors import InputError
    from hfrender.io.resume import resume_from
    from hfrender.io.segments import Manifest, work_dir

    out = tmp_path / "o.mp4"
    settings = {"focus_pixel": (30, 12), "lens": {"focus_distance": float("inf")}, "window": 1}
    folder = work_dir(out)
    folder.mkdir()
    Manifest(settings, 10, 5, 0).save(folder)
    start, manifest = resume_from(str(out), settings, "fx")
    assert start == 0 and manifest.settings["focus_pixel"] == [30, 12]
    with pytest.raises(InputError, match=r"\(focus-pixel 30,12 -> 31,12\); fx without"):
        resume_from(str(out), {**settings, "focus_pixel": (31, 12)}, "fx")


def test_a_focus_pixels_stand_in_focus_is_not_a_setting():
    """With --focus-pixel the lens's focus distance is each frame's own: what an output
    depends on leaves the stand-in out, so a refused --resume names the focus as given
    (was: "focus-distance inf -> 2" beside the focus pixel)."""
    import hfrender as hf
    from hfrender.engine.fx_settings import FxSettings
    from hfrender.io.segments import Manifest

    lens = hf.Lens(float("inf"), 2.0)
    pixel = FxSettings(depth="d.npy", lens=lens, focus_pixel=(30, 12)).output_settings()
    assert pixel["lens"]["focus_distance"] is None and pixel["lens"]["f_stop"] == 2.0
    assert "workers" not in pixel and "resume" not in pixel
    distance = FxSettings(depth="d.npy", lens=hf.Lens(2.0, 2.0)).output_settings()
    assert Manifest(pixel, 10, 5, 0).differences(distance) == [
        "focus-distance unset -> 2", "focus-pixel 30,12 -> unset"]


def test_a_ray_run_keeps_its_segments_with_tuple_settings(tmp_path):
    """fx --ray (and batch jobs on Ray) find an interrupted run's segments through
    whole_segments: settings holding a tuple (--focus-pixel) are compared as the manifest
    keeps them (was: a list against a tuple, every segment made again)."""
    import hashlib

    from hfrender.engine.cluster_segments import keep_segment, whole_segments
    from hfrender.io.segments import work_dir

    out = str(tmp_path / "o.mp4")
    settings = {"focus_pixel": (30, 12), "lens": {"focus_distance": float("inf")}}
    manifest = whole_segments(out, settings, 20, 10, 0, ".mp4")
    data = b"segment bytes"
    keep_segment(manifest, work_dir(out), {"first": 0, "count": 10, "data": data,
                                           "sha256": hashlib.sha256(data).hexdigest()}, "s0.mp4")
    again = whole_segments(out, settings, 20, 10, 0, ".mp4")
    assert [seg["file"] for seg in again.segments] == ["s0.mp4"]
    # an older hfrender's .mkv segments are made again, not joined with .mp4 ones
    assert whole_segments(out, settings, 20, 10, 0, ".mkv").segments == []
    other = whole_segments(out, {**settings, "focus_pixel": (31, 12)}, 20, 10, 0, ".mp4")
    assert other.segments == [] and not (work_dir(out) / "s0.mp4").exists()


def test_a_sequence_started_over_says_what_it_discards(tmp_path, caplog):
    """A run without --resume (or on Ray) where an interrupted run kept frames: a crashed
    run's hidden folder goes, said with its count; a stopped run's partial folder stays
    until this run replaces it; the new run's manifest is what --resume then finds."""
    from hfrender.io import resume
    from hfrender.io.outputs import partial_name, temporary
    from hfrender.io.segments import Manifest

    out = str(tmp_path / "seq" / "f_%04d.png")
    hidden, shown = Path(temporary(out)).parent, Path(partial_name(out)).parent
    for folder, n in ((hidden, 3), (shown, 5)):
        folder.mkdir(parents=True)
        Manifest({"samples": n}, 10, 1, 0).save(folder)
        for k in range(n):
            (folder / f"f_{k:04d}.png").write_bytes(b"frame")
    assert resume.kept_work(out) == hidden  # a crash's frames are the later ones
    with caplog.at_level("WARNING", logger="hfrender.io.resume"):
        resume.begin_sequence(out, temporary(out), Manifest({"samples": 8}, 10, 1, 0))
    assert [r.getMessage() for r in caplog.records] == [
        f"starting {out} over: an interrupted run's 3 finished frames in '{hidden}' are "
        "discarded (a run goes on from them only with the same settings: render's and "
        "fx's --resume, a batch's same job)"]  # (was: "and --resume", which batch refuses)
    assert sorted(f.name for f in hidden.iterdir()) == ["manifest.json"]
    assert len(list(shown.glob("f_*.png"))) == 5
    assert resume.resume_from(out, {"samples": 8}, "render") == (0, Manifest.load(hidden))


def test_resume_takes_defaults_given_by_name_as_left_out(tmp_path, capsys):
    """--crf 18, --preset medium, --pix-fmt yuv420p, --codec libx264 and --frames : are what
    an .mp4 gets without them: --resume refused them as changed settings (a trial); a
    value the encoder would not get is still one."""
    path, out = killed_after_a_segment(tmp_path)
    code = main(["render", str(path), "-o", str(out), *ARGS, "--crf", "20", "--resume"])
    assert code == 2 and "(crf 18 -> 20)" in capsys.readouterr().err
    assert main(["render", str(path), "-o", str(out), *ARGS[:-1], "--crf", "18", "--preset",
                 "medium", "--pix-fmt", "yuv420p", "--codec", "libx264", "--frames", ":",
                 "--resume"]) == 0
    assert "resumed at frame " in capsys.readouterr().out
    assert decoded(out).shape[0] == 90


def test_a_ray_runs_own_gl_and_backend_are_not_told_as_changes(tmp_path):
    """A local --resume of segments made on Ray with other samples listed "backend auto ->
    cpu; gl-renderer ray -> llvmpipe", which the user never changed, before the change."""
    from hfrender.errors import InputError
    from hfrender.io.resume import _matching
    from hfrender.io.segments import Manifest

    kept = {"backend": "auto", "gl_renderer": "ray", "samples": 64, "fps": 30.0}
    Manifest(kept, 30, 30, 64).save(tmp_path)
    here = {"backend": "cpu", "gl_renderer": "llvmpipe", "samples": 32, "fps": 30.0}
    with pytest.raises(InputError) as err:
        _matching("o.mp4", tmp_path, here, "render")
    assert str(err.value) == ("--resume: the settings changed since the interrupted render "
                              "(samples 64 -> 32); render without --resume to start over")


def test_fx_settings_changed_are_named_as_fxs_flags():
    """fx's refused --resume named its settings' own names: "window 3 -> 4" for
    --motion-blur 4, "linear-light on -> off" for --gamma-space, "input-fps unset -> 25" for
    --fps 25 (a trial); each is named as its flag is."""
    from hfrender.engine.fx_settings import FxSettings
    from hfrender.io.segments import Manifest

    kept = Manifest(FxSettings(window=3).output_settings(), 10, 5, 0)
    assert kept.differences(FxSettings(window=4).output_settings()) == [
        "motion-blur 3 -> 4"]
    assert kept.differences(FxSettings(window=3, linear_light=False).output_settings()) == [
        "gamma-space off -> on"]
    assert kept.differences(FxSettings(window=3, input_fps=25.0).output_settings()) == [
        "fps unset -> 25"]
    older = {k: v for k, v in FxSettings(window=3).output_settings().items()  # (a review:
             if k != "linear_light"}  # "gamma-space unset -> on" for a run with it off)
    assert Manifest(older, 10, 5, 0).differences(FxSettings(window=3).output_settings()) == [
        "gamma-space unset -> off"]
    assert kept.differences(FxSettings(window=3, stride=3, weights="triangle")
                            .output_settings()) == ["stride 1 -> 3", "weights box -> triangle"]


def test_a_changed_depth_range_refuses_resume_as_the_command_line_spells_it(tmp_path):
    """fx --depth-range is in what an output depends on: a resume of another is refused,
    the range named as typed (was: 'depth-range [1.0, 11.0] -> [2.0, 11.0]'); the same
    range resumes."""
    import hfrender as hf
    from hfrender.engine.fx_settings import FxSettings
    from hfrender.errors import InputError
    from hfrender.io.resume import resume_from
    from hfrender.io.segments import Manifest, work_dir

    def settings(span):
        return FxSettings(depth="d.png", lens=hf.Lens(2.0, 2.0),
                          depth_range=span).output_settings()

    out = tmp_path / "o.mp4"
    folder = work_dir(out)
    folder.mkdir()
    Manifest(settings((1, 11)), 10, 5, 0).save(folder)
    assert resume_from(str(out), settings((1.0, 11.0)), "fx")[0] == 0
    with pytest.raises(InputError, match=r"\(depth-range 1,11 -> 2,11.5\); fx without"):
        resume_from(str(out), settings((2, 11.5)), "fx")
    assert Manifest(settings(None), 10, 5, 0).differences(settings((0.5, 20))) == [
        "depth-range unset -> 0.5,20"]
