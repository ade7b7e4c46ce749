"""An output folder made read-only under a run (a trial: ``chmod 555`` after the first
frames, the render run as another user): what the run made stays where it was written, and
the last line says where. Were: a GIF whose every frame was made, and a stopped GIF or
sequence, left in a hidden ``.g.gif.partial.gif`` or ``.f_####.png.partial/`` after "the
unfinished output could not be kept (Permission denied)" and "the 6 frames made are not
kept (no whole segment was finished, and the partial video's join was stopped)": wrong,
and the hidden GIF was then written over by the next run unsaid."""

import errno
import os
from pathlib import Path

import pytest
from render_helpers import stop_at

from hfrender.cli import main
from hfrender.io import outputs
from hfrender.io.probe import probe

pytestmark = pytest.mark.usefixtures("gl_context")
ORBIT = str(Path(__file__).parents[1] / "scenes" / "orbit.py")
SMALL = ["--size", "32x18", "--samples", "1", "--duration", "0.4", "--quiet"]  # 12 frames


def _read_only(monkeypatch, folder: Path) -> None:
    """No rename into ``folder`` (as in a folder made read-only: its hidden work, made
    before, is written on)."""
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if Path(dst).absolute().parent == folder:
            raise PermissionError(errno.EACCES, "Permission denied", str(src), None, str(dst))
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(outputs.os, "replace", replace)


def _stop_after(monkeypatch, n: int) -> None:
    from hfrender.renderer.renderer import SceneRenderer

    stop_at(monkeypatch, SceneRenderer, "read_into", n)


def test_a_whole_gif_that_cannot_be_put_in_place_says_where_it_is(tmp_path, capsys,
                                                                  monkeypatch):
    out, hidden = tmp_path / "g.gif", tmp_path / ".g.gif.partial.gif"
    _read_only(monkeypatch, tmp_path)
    assert main(["render", ORBIT, "-o", str(out), *SMALL]) == 1
    err = capsys.readouterr().err
    assert err == (f"hfrender: error: cannot put {out} in place: Permission denied; the 12 "
                   f"frames finished so far are in {hidden} ({out} is not written; the next "
                   "run of it writes there: move it elsewhere to keep it)\n"), err
    assert probe(str(hidden)).count == 12
    assert sorted(p.name for p in tmp_path.iterdir()) == [hidden.name]


def test_a_stopped_gif_in_a_read_only_folder_says_where_its_frames_are(tmp_path, capsys,
                                                                       monkeypatch):
    out, hidden = tmp_path / "g.gif", tmp_path / ".g.gif.partial.gif"
    _read_only(monkeypatch, tmp_path)
    _stop_after(monkeypatch, 6)
    argv = ["render", ORBIT, "-o", str(out), *SMALL]
    monkeypatch.setattr("sys.argv", ["hfrender", *argv])  # (the command offered is its own)
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "warning" not in err and "not kept" not in err, err
    kept = probe(str(hidden)).count
    assert 1 <= kept < 12
    assert err.endswith(f"interrupted: the {kept} frames finished so far are in {hidden} "
                        f"({out} is not written; the next run of it writes there: move it "
                        "elsewhere to keep it)\n"), err


def test_a_stopped_sequence_in_a_read_only_folder_goes_on_from_its_hidden_frames(
        tmp_path, capsys, monkeypatch):
    out, hidden = tmp_path / "f_%04d.png", tmp_path / ".f_####.png.partial"
    _read_only(monkeypatch, tmp_path)
    _stop_after(monkeypatch, 6)
    argv = ["render", ORBIT, "-o", str(out), *SMALL]
    monkeypatch.setattr("sys.argv", ["hfrender", *argv])  # (the command offered is its own)
    assert main(argv) == 130
    err = capsys.readouterr().err
    kept = len(list(hidden.glob("f_*.png")))
    assert 1 <= kept < 12
    assert "warning" not in err and "not kept" not in err, err
    assert err.endswith(f"interrupted: the {kept} finished frames are kept in '{hidden}'; "
                        f"continue from frame {kept} with: hfrender render {ORBIT} -o {out} "
                        f"{' '.join(SMALL)} --resume\n"), err
    monkeypatch.undo()
    assert main(["render", ORBIT, "-o", str(out), *SMALL, "--resume"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"f_{k:04d}.png" for k in range(12)]


@pytest.mark.parametrize("name", ["g.gif", "f_%04d.png"])
def test_a_batch_job_in_a_read_only_folder_says_where_its_frames_are(tmp_path, capsys,
                                                                     monkeypatch, name):
    """(was: "[1/1] g: failed: cannot put .../g.gif in place: Permission denied", and the
    whole GIF hidden, unnamed)"""
    out = tmp_path / "out"
    out.mkdir()
    hidden = out / (".g.gif.partial.gif" if name == "g.gif" else ".f_####.png.partial")
    jobs = tmp_path / "jobs.toml"
    jobs.write_text(f'[[job]]\nname = "j"\nscene = "{ORBIT}"\noutput = "out/{name}"\n'
                    'size = "32x18"\nsamples = 1\nduration = 0.4\n')
    _read_only(monkeypatch, out)
    assert main(["batch", str(jobs), "--quiet"]) == 1
    err = capsys.readouterr().err
    where = (f"{hidden} (the next run of it writes there: move it elsewhere to keep it)"
             if name == "g.gif" else f"'{hidden}/f_%04d.png'")
    assert f"Permission denied; the frames finished so far are in {where} (" in err, err
    assert len(list(hidden.glob("f_*.png"))) == 12 or probe(str(hidden)).count == 12
