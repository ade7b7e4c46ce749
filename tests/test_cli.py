import subprocess
import sys

import hfrender
from hfrender.cli import main


def test_info_reports_versions_backends_and_ffmpeg(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"hfrender {hfrender.__version__}  (Python ")
    assert "backend cpu: cpu (NumPy " in out
    assert "backend cuda: unavailable: " in out  # no GPU on CI: says why
    assert "ffmpeg: /" in out and "(version " in out


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "info" in capsys.readouterr().out


def test_console_script_module_entry_point():
    res = subprocess.run([sys.executable, "-m", "hfrender", "--version"],
                         capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == f"hfrender {hfrender.__version__}"
