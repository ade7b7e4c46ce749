"""A run killed (kill -9) while a segment's encoder was alive: the encoder (in a session of
its own) goes on until its pipe is drained, and wrote ``seg_00000030.part.ts`` still
after the run was reaped (7 of 10 kills). A ``--resume`` typed at once wrote that same
name: two processes wrote one file, and the resumed run renamed what was there as a
whole segment."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from hfrender.cli import main
from hfrender.io.writers import VideoWriter

ROOT = Path(__file__).resolve().parents[1]

# the killed run: segment 30's encoder is started late (LEFTOVER, told by a file "go"), and
# the run stops after writing 7 of that segment's frames into its pipe (MARK: "7 frames")
KILLED_RUN = """
import subprocess, sys, time
from pathlib import Path
import hfrender.engine.fx_output as out
import hfrender.io.writers as writers
out.SEGMENT_SECONDS = 0.5
mark, leftover = Path(sys.argv[1]), sys.argv[2]
class Popen(subprocess.Popen):
    def __init__(self, cmd, *args, **kwargs):
        if any("seg_00000030" in str(word) for word in cmd):
            cmd = [sys.executable, leftover, str(mark) + ".encoder", *cmd]
        super().__init__(cmd, *args, **kwargs)
subprocess.Popen = Popen
write = writers.VideoWriter.write
def stopping(self, frame):
    write(self, frame)
    if "seg_00000030" in self.path and self.frames_written == 7:
        mark.write_text("7 frames")
        time.sleep(60)
writers.VideoWriter.write = stopping
from hfrender.cli import main
sys.exit(main(sys.argv[3:]))
"""

# the encoder, held before its exec until told (its stdin, the run's pipe, held meanwhile)
LEFTOVER = """
import os, sys, time
from pathlib import Path
mark, cmd = Path(sys.argv[1]), sys.argv[2:]
mark.write_text(f"{os.getpid()} {cmd[-1]}")
end = time.time() + 60
while not mark.with_name("go").exists():
    if time.time() > end:
        sys.exit(1)
    time.sleep(0.01)
os.execv(cmd[0], cmd)
"""


def wait_for_text(path, start, proc, timeout=60):
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if path.exists() and path.read_text().startswith(start) and path.read_text():
            return path.read_text()
        time.sleep(0.01)
    raise AssertionError(f"{path} never said {start!r} (exit {proc.poll()})")


def ended(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
    except FileNotFoundError:
        return True


def killed_with_its_encoder(tmp_path, argv):
    """``argv`` run and killed (-9) with segment 30's encoder alive, 7 frames in its
    pipe: (the encoder's pid, the file it writes once told)."""
    for name, text in (("killed.py", KILLED_RUN), ("leftover.py", LEFTOVER)):
        (tmp_path / name).write_text(textwrap.dedent(text))
    mark = tmp_path / "mark"
    proc = subprocess.Popen([sys.executable, str(tmp_path / "killed.py"), str(mark),
                             str(tmp_path / "leftover.py"), *argv],
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    wait_for_text(mark, "7 frames", proc)
    pid, path = wait_for_text(tmp_path / "mark.encoder", "", proc).split(" ", 1)
    proc.kill()
    proc.wait()
    assert not ended(int(pid))  # alive after its run was reaped, the frames in its pipe
    return int(pid), path


def leftover_told_at_segment_30(tmp_path, monkeypatch, pid):
    """Once the resumed run's encoder of segment 30 has ended, and before that segment is
    kept, the killed run's encoder goes on (to its end): the paths the resumed run's
    encoders wrote."""
    close, wrote = VideoWriter.close, []

    def close_then_leftover(self):
        close(self)
        wrote.append(self.path)
        if "seg_00000030" in self.path and not (tmp_path / "go").exists():
            (tmp_path / "go").touch()
            end = time.time() + 30
            while not ended(pid) and time.time() < end:
                time.sleep(0.01)
            assert ended(pid)

    monkeypatch.setattr(VideoWriter, "close", close_then_leftover)
    return wrote


@pytest.mark.parametrize("command", ["fx", "render"])
def test_a_killed_runs_encoder_writes_no_file_the_resume_keeps(tmp_path, rng, monkeypatch,
                                                               request, command):
    """The killed run's encoder writes its own file, not the resumed run's segment, and the
    resumed output is the uninterrupted run's frames (was: the leftover truncated and
    rewrote seg_00000030.part.ts, which the resume kept as whole: 7 of its 15 frames)."""
    from render_helpers import decode_video

    if command == "fx":
        from fx_helpers import make_clip

        monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 0.5)
        clip, _ = make_clip(tmp_path, rng, n=60)  # 15-frame segments: 4 of them
        args = ["fx", str(clip), "--motion-blur", "4", "--quiet"]
    else:
        from resume_helpers import ARGS, scene

        request.getfixturevalue("gl_context")
        args = ["render", str(scene(tmp_path, 0.0)), *ARGS]  # 30-frame segments: 3
    whole, out = tmp_path / "whole.mp4", tmp_path / "crash.mp4"
    assert main([*args, "-o", str(whole)]) == 0
    pid, theirs = killed_with_its_encoder(tmp_path, [*args, "-o", str(out)])
    wrote = leftover_told_at_segment_30(tmp_path, monkeypatch, pid)
    assert main([*args, "-o", str(out), "--resume"]) == 0
    ours = [p for p in wrote if "seg_00000030" in p]
    assert len(ours) == 1 and Path(ours[0]).parent == Path(theirs).parent
    assert ours[0] != theirs  # one file, one writer
    a, b = decode_video(whole), decode_video(out)
    assert a.shape == b.shape == ((60, 36, 64, 3) if command == "fx" else (90, 36, 64, 3))
    np.testing.assert_array_equal(a, b)


def segmented(tmp_path, total=30):
    from hfrender.io.segments import Manifest, open_segmented

    out = tmp_path / "o.mp4"
    return out, open_segmented(str(out), 30, (64, 36), None, 15, Manifest({}, total, 15, 1), 0)


def test_a_resume_removes_the_segments_being_written_of_ended_runs_not_a_live_ones(tmp_path):
    """What a killed run's encoder wrote (under its run's tag) goes when the next run of the
    output opens its segments; a live process's, an older hfrender's ``.part`` and whole
    segments stay, and the work folder is hfrender's all along."""
    from hfrender.io.segments import work_dir
    from hfrender.io.work_names import check_work_names

    gone = subprocess.Popen(["true"])
    gone.wait()
    live = subprocess.Popen(["sleep", "30"])
    try:
        folder = work_dir(tmp_path / "o.mp4")
        folder.mkdir()
        names = {"dead": f"seg_00000030.part-{gone.pid}-0a1b2c3d.ts",
                 "live": f"seg_00000030.part-{live.pid}-0a1b2c3d.ts",
                 "mine": f"seg_00000015.part-{os.getpid()}-0a1b2c3d.ts",
                 "older": "seg_00000030.part.ts", "whole": "seg_00000000.ts"}
        for name in names.values():
            (folder / name).write_bytes(b"\x47" * 376)
        check_work_names(str(tmp_path / "o.mp4"))  # (was refused as not hfrender's)
        out, writer = segmented(tmp_path)
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            [names[k] for k in ("live", "mine", "older", "whole")] + ["manifest.json"])
    finally:
        live.kill()
        live.wait()


def test_a_segment_cut_short_before_it_is_kept_is_not_kept(tmp_path, rng, monkeypatch):
    """A segment whose file lost frames after its encoder ended (another writer of it, a
    full disk) is one line, removed, and not recorded (was: renamed and checksummed as
    whole); the next one is written."""
    from hfrender.io.writers import WriteFailed

    close = VideoWriter.close

    def close_then_cut(self):
        close(self)
        if "seg_00000000" in self.path:
            data = Path(self.path).read_bytes()
            Path(self.path).write_bytes(data[:len(data) // 2 // 188 * 188])

    monkeypatch.setattr(VideoWriter, "close", close_then_cut)
    out, writer = segmented(tmp_path)
    frames = rng.integers(0, 256, (15, 36, 64, 3), dtype=np.uint8)
    for frame in frames[:14]:
        writer.write(frame)
    with pytest.raises(WriteFailed) as e:
        writer.write(frames[14])
    said = str(e.value)
    assert said.startswith(f"a segment of {out} (seg_00000000.part-{os.getpid()}-")
    assert said.endswith(".ts) holds 7 frames of the 15 written: it is not kept; run again "
                         "with --resume to write it anew")
    assert writer.manifest.segments == [] and sorted(
        p.name for p in writer.folder.iterdir()) == ["manifest.json"]


def test_a_batch_job_whose_segment_is_cut_short_says_the_batch_goes_on(tmp_path, monkeypatch):
    """In a batch, which refuses --resume (a job's field and the command's option alike),
    the line said "run again with --resume to write it anew"; the same batch command again
    does, from the whole segments kept (the job resumed)."""
    import json

    (tmp_path / "bar.frag").write_text((ROOT / "tests" / "data" / "bar.frag").read_text())
    (tmp_path / "jobs.toml").write_text('[defaults]\nfps = 24\nsize = "32x8"\nsamples = 2\n\n'
                                        '[[job]]\nname = "bar"\nscene = "bar.frag"\n'
                                        'output = "out/bar.mp4"\nduration = 2.0\n')
    close = VideoWriter.close

    def close_then_cut(self):
        close(self)
        if "seg_00000024" in self.path:  # the second segment, the first kept
            data = Path(self.path).read_bytes()
            Path(self.path).write_bytes(data[:len(data) // 2 // 188 * 188])

    def batch():
        out = tmp_path / "s.json"
        code = main(["batch", str(tmp_path / "jobs.toml"), "--summary", str(out), "--quiet"])
        return code, json.loads(out.read_text())[0]

    monkeypatch.setattr(VideoWriter, "close", close_then_cut)
    code, first = batch()
    assert (code, first["status"], first["frames"]) == (1, "failed", 24)
    assert " written: it is not kept; running the batch again writes it anew; the frames " \
        "finished so far are in " in first["error"], first["error"]
    assert "--resume" not in first["error"]
    monkeypatch.setattr(VideoWriter, "close", close)
    code, again = batch()
    assert (code, again["status"], again["segments_reused"], again["frames"]) == (
        0, "resumed", 1, 48)
