"""Another library's warning with a traceback (trimesh without scipy: "unable to use sparse
matrix, falling back!" and its 12-line traceback, while a scene exports a model with its
normals, as docs/rendering.md's trimesh paragraph says to) is one line on the command
line: the library, its words and the exception's; -v keeps the traceback."""

import logging
import subprocess
import sys

import pytest

from hfrender.cli.common import PLAIN, VERBOSE, Said

FALLING_BACK = "unable to use sparse matrix, falling back!"


INSTALLED = "/usr/lib/python3/dist-packages/trimesh/geometry.py"  # (a package's file)


def formatted(name, verbose=False, exc=None, where=INSTALLED):
    """A warning of logger ``name`` from the file ``where`` with ``exc``'s traceback, as the
    command line's handler writes it (:class:`hfrender.cli.common.Said`, set up by
    ``main``)."""
    try:
        raise exc or ModuleNotFoundError("No module named 'scipy'")
    except Exception:  # noqa: BLE001 - any, as a library logs it
        record = logging.getLogger(name).makeRecord(name, logging.WARNING, where, 323,
                                                    FALLING_BACK, (), sys.exc_info())
    return Said(VERBOSE if verbose else PLAIN).format(record)


def test_another_librarys_traceback_is_one_line():
    assert formatted("trimesh.util") == (f"hfrender: warning: trimesh: {FALLING_BACK} "
                                         "(ModuleNotFoundError: No module named 'scipy')")
    # the exception's kind named (a KeyError's words alone were "('scipy')"), its first line
    assert formatted("trimesh.util", exc=KeyError("scipy")) == (
        f"hfrender: warning: trimesh: {FALLING_BACK} (KeyError: 'scipy')")
    assert formatted("trimesh.util", exc=ValueError("one\ntwo")) == (
        f"hfrender: warning: trimesh: {FALLING_BACK} (ValueError: one)")
    assert formatted("trimesh.util", exc=RuntimeError()) == (
        f"hfrender: warning: trimesh: {FALLING_BACK} (RuntimeError)")


def test_the_standard_librarys_traceback_is_one_line():
    """A thread pool's warning (concurrent.futures, in the standard library's folder, not a
    site-packages one) is a library's too."""
    import sysconfig

    where = sysconfig.get_paths()["stdlib"] + "/concurrent/futures/thread.py"
    assert formatted("concurrent.futures", where=where, exc=RuntimeError("gone")) == (
        f"hfrender: warning: concurrent: {FALLING_BACK} (RuntimeError: gone)")


def test_a_users_own_warning_keeps_its_traceback():
    """A scene's or script's own logger (root, __main__, the scene's module) is not a
    library's: its traceback is the user's to read."""
    for name in ("root", "__main__", "my_scene"):
        said = formatted(name, where="/home/me/shots/my_scene.py").splitlines()
        assert said[:2] == [f"hfrender: warning: {FALLING_BACK}",
                            "Traceback (most recent call last):"], name


def test_verbose_and_hfrenders_own_keep_the_traceback():
    said = formatted("trimesh.util", verbose=True).splitlines()
    assert said[:2] == [f"WARNING trimesh.util: {FALLING_BACK}",
                        "Traceback (most recent call last):"]
    assert said[-1] == "ModuleNotFoundError: No module named 'scipy'"
    said = formatted("hfrender.engine.batch").splitlines()  # (a failed job's, asked for)
    assert said[:2] == [f"hfrender: warning: {FALLING_BACK}",
                        "Traceback (most recent call last):"]


BALL = '''
import hfrender as hf
import trimesh


class Ball(hf.Scene):
    def setup(self):  # the docs' way: a mesh made in code, written once with its normals
        trimesh.creation.icosphere(subdivisions=1).export("ball.glb", include_normals=True)
        self.add(hf.Mesh.load("ball.glb"))
'''
SCIPY_HIDDEN = ("import sys; sys.modules['scipy'] = None; from hfrender.cli import main; "
                "sys.exit(main(['still', 'ball_scene.py', '-o', 'o.png', '--size', '16x8']))")


def test_trimesh_without_scipy_exporting_normals_is_one_line(tmp_path):
    """scipy hidden (None in sys.modules: the same wherever it is installed)."""
    pytest.importorskip("trimesh")
    (tmp_path / "ball_scene.py").write_text(BALL)
    res = subprocess.run([sys.executable, "-c", SCIPY_HIDDEN], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert (res.returncode, res.stderr) == (0, f"hfrender: warning: trimesh: {FALLING_BACK} "
                                               "(ModuleNotFoundError: No module named "
                                               "'scipy.sparse'; 'scipy' is not a package)\n")
    assert (tmp_path / "o.png").is_file() and (tmp_path / "ball.glb").is_file()
