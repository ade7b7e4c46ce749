"""A batch of 40 animations overnight had each job's progress alone, no word of the whole:
each job's line (or bar) now ends with the batch's, ``the batch: 1234/9876 frames, about
3h10m left``, in frames (the jobs' as told before they run), the time left at the frames a
second rendered so far in the batch, none until meaningful (the per-run rule)."""

import re
import types

import pytest
from batch_helpers import make_folder

from hfrender.cli import main
from hfrender.engine.batch_progress import BatchTally


def _ended(status, frames=0):
    return types.SimpleNamespace(status=status, frames=frames)


def test_the_batchs_part_counts_frames_up_to_date_as_done_failed_as_nothing():
    now = [0.0]
    tally = BatchTally([None, 20, 5], clock=lambda: now[0])
    assert tally.text() == ""  # a job's frames not known yet
    tally.ended(0, _ended("up-to-date", 10))  # (its frames: from its result)
    assert tally.text() == "the batch: 10/35 frames"
    now[0] = 1.0
    tally.told(1, 0, 20)
    now[0] = 11.0
    tally.told(1, 1, 20)  # the first frame, 10 s of start-up with it
    now[0] = 21.0
    tally.told(1, 5, 20)
    assert tally.text() == "the batch: 15/35 frames"  # (not yet: 10 s since that frame)
    now[0] = 41.0
    tally.told(1, 11, 20)  # 10 frames in the 30 s since the first
    assert tally.text() == "the batch: 21/35 frames, about 42s left"
    tally.ended(1, _ended("failed"))  # nothing of it, done or to do
    assert tally.text() == "the batch: 10/15 frames, about 15s left"
    tally.told(2, 2, 5)  # a resumed job's kept frames: done, not made in this batch
    now[0] = 44.0
    tally.told(2, 3, 5)
    assert tally.text() == "the batch: 13/15 frames, about 6s left"
    tally.ended(2, _ended("resumed", 5))
    assert tally.text() == "the batch: 15/15 frames"


@pytest.mark.usefixtures("gl_context")
def test_each_jobs_line_in_a_log_says_the_batchs(tmp_path, capsys, monkeypatch):
    from hfrender import progress

    def every_frame(quiet, label, more=None):  # a line at each frame, not every 30 s
        return progress.progress_lines(label, every=0.0, stamp=lambda: "12:00:00",
                                       more=more), lambda: None

    monkeypatch.setattr("hfrender.cli.batch.progress_bar", every_frame)
    folder = make_folder(tmp_path)  # bar.frag 12 frames, smooth (fx) 12, frames 6
    assert main(["batch", str(folder / "jobs.toml")]) == 0
    lines = [ln for ln in capsys.readouterr().err.splitlines() if " frames (" in ln]
    firsts = {ln.split(":")[0]: ln for ln in reversed(lines)}
    assert "; the batch" not in firsts["[1/3] bar"]  # the fx job's frames: told as it starts
    said = [re.search(r"; the batch: (\d+)/(\d+) frames", ln) for ln in lines]
    assert [m.groups() for m in said if m][-1] == ("29", "30"), lines  # 12 + 12 + 5 of 6
    assert main(["batch", str(folder / "jobs.toml"), "--samples", "2"]) == 0  # again:
    lines = [ln for ln in capsys.readouterr().err.splitlines() if " frames (" in ln]
    assert all("; the batch: " in ln for ln in lines), lines  # the last run's count
