"""A failed, damaged or late-stopped render leaves the last good output whole: a user's file
where the partial output would go, a damaged manifest, a failure while finalising, a
Ctrl-C after the last frame or while the output is put in place."""

import os
import re
import signal
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from render_helpers import decode_video as decoded
from resume_helpers import ARGS, scene

from hfrender.cli import main
from hfrender.io.segments import work_dir

pytestmark = pytest.mark.usefixtures("gl_context")  # glGetError after each test


def test_a_file_where_the_partial_output_would_go_is_never_written_over(tmp_path, capsys):
    """A user's NAME.partial.mp4 (or one of ours they changed) is not hfrender's to replace
    or remove: the render is refused before any work, in one line; the file is untouched."""
    path = scene(tmp_path, 0.0)
    out = tmp_path / "mine.mp4"
    theirs = tmp_path / "mine.partial.mp4"
    theirs.write_bytes(b"MY PRECIOUS")
    assert main(["render", str(path), "-o", str(out), *ARGS]) == 2
    err = capsys.readouterr().err
    assert err == (f"hfrender: error: -o {out}: {theirs} exists and is not a partial output "
                   "this hfrender wrote, but an interrupted run would keep its frames there: "
                   "move it, or write to another name (an older hfrender's partial output can "
                   "be deleted)\n")
    assert theirs.read_bytes() == b"MY PRECIOUS" and not out.exists()
    from hfrender.io import outputs

    outputs.mark_partial(theirs)  # ours, then changed by hand: theirs again
    theirs.write_bytes(b"MY PRECIOUS, edited")
    outputs.remove_partial(str(out))
    assert theirs.read_bytes() == b"MY PRECIOUS, edited"
    assert main(["render", str(path), "-o", str(out), *ARGS]) == 2


def test_a_failed_render_leaves_the_last_good_render(tmp_path, capsys):
    good = scene(tmp_path, 0.0)
    keep = tmp_path / "keep.mp4"
    assert main(["render", str(good), "-o", str(keep), *ARGS]) == 0
    before = keep.read_bytes()
    bad = tmp_path / "bad.py"
    bad.write_text(good.read_text().replace("time.sleep(0.0)",
                                            "assert t < 0.6, 'the scene broke'"))
    capsys.readouterr()
    assert main(["render", str(bad), "-o", str(keep), *ARGS]) == 1
    err = capsys.readouterr().err
    partial = tmp_path / "keep.partial.mp4"
    assert keep.read_bytes() == before  # not replaced by a shorter video
    n = len(decoded(partial))
    assert 1 <= n < 90
    assert err.startswith("hfrender: error: scene error in update(t)") and \
        err.rstrip().endswith(f"bad.py:14); the {n} frames finished so far are in "
                              f"{partial} ({keep} is untouched)"), err
    assert len(err.strip().splitlines()) == 1


def test_damaged_manifest_is_one_clear_line(tmp_path, capsys):
    path = scene(tmp_path, 0.0)
    out = tmp_path / "d.mp4"
    folder = work_dir(out)
    folder.mkdir()
    (folder / "manifest.json").write_text('{"settings": {')
    assert main(["render", str(path), "-o", str(out), *ARGS, "--resume"]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(r"hfrender: error: --resume: .*manifest.json is damaged \(.*\); render "
                        r"without --resume to start over\n", err), err


def _failing_scene(tmp_path):
    path = tmp_path / "late.py"
    path.write_text(textwrap.dedent("""
        import hfrender as hf

        class Late(hf.Scene):
            duration = 1.0
            def setup(self):
                self.add(hf.Cube())
            def update(self, t):
                if t > 0.5:
                    raise RuntimeError("late")
    """))
    return path


def test_a_relative_sequence_keeps_its_partial_frames_beside_it(tmp_path, monkeypatch,
                                                                 capsys):
    from hfrender.io.writers import PngSequenceWriter

    monkeypatch.chdir(tmp_path)
    with PngSequenceWriter(str(tmp_path / "%04d.png"), (4, 2)) as w:  # an older render's
        w.write(np.full((2, 4, 3), 7, np.uint8))
    older = (tmp_path / "0000.png").read_bytes()
    args = ["--size", "32x18", "--samples", "1", "--quiet"]
    assert main(["render", str(_failing_scene(tmp_path)), "-o", "%04d.png", *args]) == 1
    partial = tmp_path / "####.png.partial"
    # named as the output was: relative (was: absolute beside a relative output)
    assert "are in '####.png.partial/%04d.png' (%04d.png is untouched)" in capsys.readouterr().err
    assert sorted(p.name for p in partial.iterdir())[:2] == ["0000.png", "0001.png"]
    assert (tmp_path / "0000.png").read_bytes() == older  # untouched
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())  # nothing hidden left
    assert main(["render", str(scene(tmp_path, 0.0)), "-o", "%04d.png", *args,
                 "--duration", "0.2"]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.png")) == [f"{i:04d}.png" for i in range(6)]
    assert not partial.exists()  # the older partial frames are gone once the output is whole


def test_a_failure_while_finalising_leaves_nothing_hidden(tmp_path, monkeypatch):
    from hfrender.io import writers

    real = writers.VideoWriter.close

    def broken_close(self):
        real(self)
        raise writers.WriteFailed("ffmpeg could not finish (simulated)")

    monkeypatch.setattr(writers.VideoWriter, "close", broken_close)
    out = tmp_path / "x.gif"
    assert main(["render", str(scene(tmp_path, 0.0)), "-o", str(out), "--size", "32x18",
                 "--samples", "1", "--duration", "0.1", "--quiet"]) == 1
    assert not out.exists() and not (tmp_path / ".x.gif.partial.gif").exists()


@pytest.mark.parametrize("kind", ["render mp4", "render png", "fx mp4"])
def test_a_ctrl_c_after_the_last_frame_was_handed_over_leaves_the_output_whole(
        tmp_path, monkeypatch, capsys, kind):
    """Ctrl-C while the last frames are fused and written: "stopping after the work in
    progress" means the rest of the output, which is put in place, said so, exit 0 (a
    batch records the job as done, then stops). Was: the output thrown away, and "nothing
    was written"."""
    from render_helpers import ctrl_c_before_the_last_frame

    cmd, ext = kind.split()
    src = tmp_path / "src.mp4"
    if cmd == "fx":
        assert main(["render", "scenes/orbit.py", "-o", str(src), "--size", "64x36",
                     "--duration", "1", "--samples", "1", "--quiet"]) == 0
    out = tmp_path / ("o.mp4" if ext == "mp4" else "o_%03d.png")
    args = (["render", "scenes/orbit.py", "--duration", "1", *ARGS] if cmd == "render" else
            ["fx", str(src), "--motion-blur", "3", "--quiet"])
    seen = ctrl_c_before_the_last_frame(monkeypatch)
    assert main([*args, "-o", str(out)]) == 0
    assert seen and seen[0] is KeyboardInterrupt
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["stopping after the work in progress (Ctrl-C again to stop at once)",
                   f"hfrender: the interruption came after the last frame was made: {out} "
                   "is complete"]
    frames = sorted(tmp_path.glob("o_*.png")) if ext == "png" else decoded(out)
    assert len(frames) == 30
    assert sorted(p.name for p in tmp_path.iterdir()) == (
        sorted(["o.mp4", "src.mp4"][: 2 if cmd == "fx" else 1]) if ext == "mp4"
        else [f"o_{i:03d}.png" for i in range(30)])


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_batch_whose_last_job_ends_through_a_late_ctrl_c_is_done(tmp_path, monkeypatch,
                                                                   capsys, jobs):
    """The Ctrl-C lands as the batch's last job writes its last frames: the job is done,
    and so is the batch, exit 0 (was: 130, "run the same command again"); with a job
    after it, the batch stops there, 130, the next one "not run"."""
    import json

    from render_helpers import ctrl_c_before_the_last_frame

    scene = Path("scenes/orbit.py").resolve()
    text = "".join(f'[[job]]\nname = "j{i}"\nscene = "{scene}"\noutput = "o{i}.mp4"\n'
                   f'size = "64x36"\nsamples = 1\nduration = 1.0\n\n' for i in range(jobs))
    (tmp_path / "jobs.toml").write_text(text)
    seen = ctrl_c_before_the_last_frame(monkeypatch)
    summary = tmp_path / "s.json"
    code = main(["batch", str(tmp_path / "jobs.toml"), "--quiet", "--summary", str(summary)])
    assert seen and seen[0] is KeyboardInterrupt
    statuses = [r["status"] for r in json.loads(summary.read_text())]
    assert (code, statuses) == ((0, ["done"]) if jobs == 1 else (130, ["done", "not run"]))
    assert len(decoded(tmp_path / "o0.mp4")) == 30


@pytest.mark.parametrize("ext", ["mp4", "png", "fx"])
def test_a_ctrl_c_while_the_output_is_put_in_place_waits_for_it(tmp_path, monkeypatch,
                                                                capsys, ext):
    """Ctrl-C during the join of the segments (a video) or the move of the frames (a
    sequence): held until that step ends, then told; the output is whole, exit 0 (was:
    "interrupted before the first frame: nothing was written", exit 130, with the whole
    video in place)."""
    import hfrender.io.outputs as outputs
    import hfrender.io.segments as segments

    src = tmp_path / "src.mp4"
    if ext == "fx":
        assert main(["render", "scenes/orbit.py", "-o", str(src), "--size", "64x36",
                     "--duration", "1", "--samples", "1", "--quiet"]) == 0
    steps = {"png": [(outputs, "commit")], "mp4": [(segments.SegmentedWriter, "close")],
             "fx": [(outputs, "commit"), (segments.SegmentedWriter, "close")]}[ext]
    def midway(real):
        def interrupted_midway(*args, **kwargs):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)  # the handler would run here, mid-step
            return real(*args, **kwargs)
        return interrupted_midway

    for owner, name in steps:  # fx writes a clip this short in one piece: either step
        monkeypatch.setattr(owner, name, midway(getattr(owner, name)))
    out = tmp_path / ("o_%03d.png" if ext == "png" else "o.mp4")
    assert main((["fx", str(src), "--motion-blur", "2", "--quiet"] if ext == "fx" else
                 ["render", "scenes/orbit.py", "--duration", "1", *ARGS]) + ["-o", str(out)]) == 0
    assert capsys.readouterr().err.strip().splitlines() == [
        "stopping after the work in progress (Ctrl-C again to stop at once)",
        f"hfrender: the interruption came after the last frame was made: {out} is complete"]
    frames = sorted(tmp_path.glob("o_*.png")) if ext == "png" else decoded(out)
    assert len(frames) == 30
