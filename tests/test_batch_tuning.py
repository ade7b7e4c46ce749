"""A batch's up-to-date jobs stay so when only how the work is spread changes (--workers,
--schedule, --fusion-process, --max-in-flight, --gl, --interop): the output is the same
bytes (a trial compared them), and ``hfrender batch jobs.toml --workers 1`` (a busy
machine) made every finished job again. The granularity is not one: its hyperframes place
a video's keyframes (the same pixels drawn, other bytes encoded)."""

import json

import pytest
from batch_helpers import make_folder

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")


def _statuses(folder, *extra):
    out = folder / "s.json"
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "-q", *extra]) == 0
    return [r["status"] for r in json.loads(out.read_text())]


def test_options_of_how_the_work_is_spread_leave_finished_jobs_up_to_date(tmp_path):
    folder = make_folder(tmp_path)
    assert _statuses(folder) == ["done"] * 3
    for tuning in (["--workers", "1"], ["--schedule", "motion"], ["--fusion-process", "off"],
                   ["--max-in-flight", "3"]):
        assert _statuses(folder, *tuning) == ["up-to-date"] * 3, tuning
    assert _statuses(folder, "--granularity", "4") == ["done", "up-to-date", "done"]
    assert _statuses(folder, "--samples", "3") == ["done", "up-to-date", "done"]
