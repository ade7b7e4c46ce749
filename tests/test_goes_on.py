"""A failure that kept work says how to go on as its command goes on: a batch (which
refuses --resume) the same batch command, here and on Ray alike; reexpose (which has no
--resume: it starts over) the same command (were: "--resume" to both, a review)."""

import re
import time
from pathlib import Path
from types import SimpleNamespace

from store_helpers import write_store

from hfrender.cli import main
from hfrender.engine.batch_ray import _failed
from hfrender.engine.batch_run import failed
from hfrender.engine.batch_state import JobResult
from hfrender.io import segment_parts
from hfrender.io.join import JOIN_AGAIN
from hfrender.io.segment_parts import WRITE_AGAIN
from hfrender.io.writers import WriteFailed

JOIN = f"joining 2 segments into v.mp4 failed: disk full (the segments stay in w: {JOIN_AGAIN})"
NOT_KEPT = f"a segment of v.mp4 (seg_00000030.ts) holds 12 of 30: it is not kept; {WRITE_AGAIN}"


def _local(tmp_path: Path, exc: Exception) -> str:
    job = SimpleNamespace(name="v", output=tmp_path / "v.mp4")
    result = JobResult("v", "failed", output=str(job.output))
    failed(result, job, exc, time.time(), (0, 0), None)
    return result.error


def test_a_batch_says_its_own_way_on_here_and_on_ray(tmp_path):
    job = SimpleNamespace(name="v", output=tmp_path / "v.mp4")
    for line, way in ((JOIN, "w: running the batch again joins them)"),
                      (NOT_KEPT, "it is not kept; running the batch again writes it anew")):
        here, ray = _local(tmp_path, WriteFailed(line)), _failed(job, WriteFailed(line)).error
        assert here == ray == line.replace(line[line.index(way[:2]):], way), (here, ray)
        assert "--resume" not in ray


def test_reexpose_says_its_command_exposes_it_again(tmp_path, capsys, monkeypatch):
    store = write_store(tmp_path / "s.samples", frames=3)
    monkeypatch.setattr(segment_parts, "frames_in", lambda path: (1, ""))
    out = tmp_path / "o.mp4"
    assert main(["reexpose", str(store), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert re.fullmatch(rf"hfrender: error: a segment of {re.escape(str(out))} \(seg_00000000"
                        r"\.part-\d+-[0-9a-f]+\.ts\) holds 1 frames of the 3 written: it is "
                        r"not kept; run the same command again to expose it whole\n", err), err
    assert not out.exists()
