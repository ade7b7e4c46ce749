"""benchmarks/gpu_check.sh runs once on a GPU lent for a few minutes: a typo in it, or a
flag a benchmark no longer takes, would cost that run. Checked here on the CPU: the script
parses, every option it passes a benchmark is one the benchmark takes, and a section stops
at its limit and the deadline skips the rest."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu_check.sh"


def _commands() -> list[tuple[str, list[str]]]:
    """(benchmark, the options it is given) for each ``benchmarks/X.py`` the script runs."""
    text = SCRIPT.read_text().replace("\\\n", " ")
    return [(m.group(1), re.findall(r"(?<!\S)(--[a-z0-9-]+)", m.group(2)))
            for m in re.finditer(r"benchmarks/(\w+\.py)([^\n]*)", text)]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_script_parses():
    out = subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_every_option_it_passes_is_one_the_benchmark_takes():
    commands = _commands()
    names = {name for name, _ in commands}
    assert {"dof.py", "quality.py", "gpu_fusion.py"} <= names, names
    for name, options in commands:
        helped = subprocess.run([sys.executable, str(ROOT / "benchmarks" / name), "--help"],
                                capture_output=True, text=True, cwd=ROOT)
        assert helped.returncode == 0, (name, helped.stderr[-500:])
        taken = set(re.findall(r"(?<![\w-])(--[a-z0-9-]+)(?![\w-])", helped.stdout))
        for option in options:
            assert option in taken, f"benchmarks/{name} takes no {option}"
    assert ("dof.py", ["--backend", "--runs", "--exact-1080"]) in commands
    assert {"gpu_interop_probe.py", "dof_cuda_profile.py"} <= names, names


def _sections(tmp_path, setup: str, calls: str) -> dict[str, str]:
    """The script's ``section`` run by a driver (``setup``: its variables, the deadline;
    ``calls``: section lines) in ``tmp_path``: {log name: its text}."""
    body = re.search(r"^section\(\) \{.*?^\}", SCRIPT.read_text(), re.S | re.M).group(0)
    driver = f"OUT={tmp_path}\n{setup}\n{body}\n{calls}"
    out = subprocess.run(["bash", "-c", driver], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return {p.name: p.read_text() for p in tmp_path.glob("*.log")}


needs_bash = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("timeout") is None,
                                reason="needs bash and timeout")


@needs_bash
def test_a_section_stops_at_its_limit_and_the_deadline_skips_the_rest(tmp_path):
    logs = _sections(tmp_path, "deadline=$((SECONDS + 16))", """
section 30 a.log bash -c 'echo quick'
section 3 b.log bash -c 'echo slow; sleep 20; echo never'
section 30 c.log bash -c 'echo rest'
""")
    assert logs["a.log"] == "quick\n"
    assert logs["b.log"] == "slow\n(stopped after 3 s: the section's limit)\n"
    assert logs["c.log"] == "(skipped: the deadline is reached)\n", logs["c.log"]


@needs_bash
def test_gpu_check_skip_leaves_the_named_sections_out_and_a_log_gathers_its_sections(tmp_path):
    logs = _sections(tmp_path, 'GPU_CHECK_SKIP="quality fusion"\ndeadline=$((SECONDS + 60))', """
section 30 quality.log bash -c 'echo measured'
section 30 render.log bash -c 'echo on'
section 30 render.log bash -c 'echo off'
section 30 fusion.log bash -c 'echo measured'
section 30 qual.log bash -c 'echo measured'
""")
    assert logs == {"quality.log": "(skipped: GPU_CHECK_SKIP)\n",
                    "fusion.log": "(skipped: GPU_CHECK_SKIP)\n",
                    "render.log": "on\noff\n", "qual.log": "measured\n"}
