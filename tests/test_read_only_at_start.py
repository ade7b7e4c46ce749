"""An output folder made read-only after the run's checks, before its work reached the
folder (a trial: ``chmod 555`` during the scene's setup()): one line naming the folder and
what to do (was: "cannot write .a.mp4.hfrender: Permission denied", a hidden name the user
never gave, and no word of the folder)."""

import errno
import os
from pathlib import Path

import pytest

import hfrender as hf
from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")
BAR = str(Path(__file__).parent / "data" / "bar.frag")
SMALL = ["--size", "32x8", "--samples", "2", "--duration", "0.2", "--quiet"]


@pytest.fixture
def read_only_after_setup(tmp_path, monkeypatch):
    """``tmp_path`` takes no new file or folder once the scene is set up (as a folder
    chmod 555'd then, the run not root's)."""
    from hfrender.engine import render_prepare

    shut, real_set_up = [], render_prepare.set_up
    real_mkdir, real_open = os.mkdir, os.open

    def set_up(*args, **kwargs):
        real_set_up(*args, **kwargs)
        shut.append(True)

    def inside(path):
        return shut and Path(os.fsdecode(path)).absolute().parent == tmp_path

    def mkdir(path, *args, **kwargs):
        if inside(path):
            raise PermissionError(errno.EACCES, "Permission denied", os.fsdecode(path))
        return real_mkdir(path, *args, **kwargs)

    def open_(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and inside(path) and not os.path.exists(path):
            raise PermissionError(errno.EACCES, "Permission denied", os.fsdecode(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(render_prepare, "set_up", set_up)
    monkeypatch.setattr(os, "mkdir", mkdir)
    monkeypatch.setattr(os, "open", open_)


WHAT_TO_DO = ("permission denied (made so after the run began: nothing was written); make "
              "the folder writable, or give {o} another folder, then {again}")


@pytest.mark.usefixtures("read_only_after_setup")
@pytest.mark.parametrize("name", ["a.mp4", "f_####.png", "f/####.png"])
def test_the_command_names_the_folder_and_what_to_do(tmp_path, capsys, name):
    typed = str(tmp_path / name)
    assert main(["render", BAR, "-o", typed, *SMALL]) in (1, 2)
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {typed}: cannot write in {tmp_path}: "
        + WHAT_TO_DO.format(o="-o", again="run the same command again") + "\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.usefixtures("read_only_after_setup")
def test_hf_render_says_it_in_its_keywords(tmp_path):
    out = str(tmp_path / "a.mp4")
    with pytest.raises(hf.HFRenderError) as info:
        hf.render(BAR, out, size=(32, 8), samples=2, duration=0.2)
    assert str(info.value) == (f"output={out!r}: cannot write in {tmp_path}: " +
                               WHAT_TO_DO.format(o="output", again="make the same call again"))
