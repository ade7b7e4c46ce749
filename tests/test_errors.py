"""Bad input is its own exception type; the command line tells it apart from a bug."""

import os
import pickle

import numpy as np
import pytest

import hfrender as hf
import hfrender.cli
from hfrender.cli import main
from hfrender.cli.options import flag_said
from hfrender.config import ConfigError
from hfrender.engine.batch_values import job_said
from hfrender.errors import FLAG, KEYWORD, TOML, HFRenderError, InputError, InputTypeError, as_given
from hfrender.io.footage import FootageError
from hfrender.io.writers import WriterError
from hfrender.renderer.contexts import ContextUnavailable
from hfrender.scene.loader import SceneError
from hfrender.shutter_curve import vector_shutter


def frames(rng, n=4):
    return rng.random((n, 8, 8, 3), dtype=np.float32)


def test_bad_value_is_an_input_error_and_a_value_error(rng):
    with pytest.raises(InputError, match=r"^window=0 must be an integer \[1, 4\]$") as info:
        hf.motion_blur(frames(rng), window=0)
    assert isinstance(info.value, ValueError) and isinstance(info.value, HFRenderError)
    with pytest.raises(ValueError, match=r"^backend='gpu' is not a backend; choose one of "):
        hf.motion_blur(frames(rng), window=2, backend="gpu")
    with pytest.raises(InputError, match=r"^focus_distance=0\.01 must be a distance in metres"):
        hf.depth_of_field(frames(rng, 1)[0], np.ones((8, 8)), focus_distance=0.01, f_stop=2.8)


def test_bad_dtype_is_an_input_type_error_and_a_type_error(rng):
    with pytest.raises(InputTypeError,
                       match=r"^frames has dtype int32; allowed: uint8, uint16, float32$") as info:
        hf.motion_blur(frames(rng).astype(np.int32), window=2)
    assert isinstance(info.value, TypeError) and isinstance(info.value, InputError)
    with pytest.raises(TypeError, match=r"^dtype=float64 must be uint8 or uint16$"):
        hf.from_linear(frames(rng), dtype=np.float64)
    with pytest.raises(InputTypeError, match=r"^add\(\) takes a Plane, Cube, Sphere or other "
                       r"Object3D, or a PointLight or SpotLight; got str$"):
        hf.Scene().add("ball")


def test_a_dtype_argument_is_said_as_given(rng):
    """(was: from_linear's dtype=None said as NumPy's default, "dtype=float64 must be ...";
    a pool's dtype='nope' NumPy's bare "data type 'nope' not understood")"""
    linear = hf.to_linear(frames(rng))
    with pytest.raises(InputTypeError, match=r"^dtype=None must be uint8 or uint16$"):
        hf.from_linear(linear, dtype=None)
    with pytest.raises(InputTypeError, match=r"^dtype='nope' must be uint8, uint16 or float32 "
                                             r"\(what the fusion takes\)$"):
        hf.HyperFramePool((4, 4, 3), "nope")
    with pytest.raises(InputTypeError, match=r"^dtype=None must be uint8, uint16 or float32"):
        hf.HyperFramePool((4, 4, 3), None)
    assert hf.from_linear(linear, "uint16").dtype == np.uint16  # a name NumPy knows serves
    assert hf.HyperFramePool((4, 4, 3), "float32", capacity=2).dtype == np.float32


def test_one_error_is_said_as_each_caller_spelt_it_and_pickles():
    """One line about a setting (errors.about), one object, said three ways through the one
    errors.as_given: the library's keyword, the flag as typed, a jobs file's key and value;
    each said again after pickle (as a Ray task's error comes back) and said anew after."""
    with pytest.raises(InputError) as caught:
        vector_shutter(800)
    exc = pickle.loads(pickle.dumps(caught.value))
    rest = " must be degrees in (0, 720] (180: half a frame's motion, 360: all of it)"
    flag = lambda key: flag_said(["fx", "--shutter", "800.0"], key)  # noqa: E731
    toml = job_said({"shutter": (1, "shutter", 800)}, {})  # (its key as the file spelt it)
    said = [as_given(exc, given) for given in (None, flag, toml)]
    assert said[0] is exc  # nothing typed: the library's own line, the same object
    for one, head in zip(said, ("shutter=800", "--shutter 800.0", "shutter = 800"),
                         strict=True):
        again = pickle.loads(pickle.dumps(one))
        assert (type(again), str(again)) == (InputError, head + rest)
        assert str(as_given(again, toml)) == "shutter = 800" + rest


def test_a_line_naming_a_setting_mid_line_is_said_through_the_same_call(rng):
    """A vector over 100 diagonals: its line names max_length mid-line, said by the library,
    fx and a jobs file each its way (errors.as_given, as an about line), after pickle too."""
    velocity = np.zeros((8, 8, 2), np.float32)
    velocity[2, 5] = (1e6, 0.0)
    with pytest.raises(InputError) as caught:
        hf.vector_blur(frames(rng, 1)[0], velocity, backend="cpu")
    exc = pickle.loads(pickle.dumps(caught.value))
    head = ("velocity at row 2, column 5 is 1e+06 px a frame, over 100 frame diagonals "
            "(1131 px): not a motion; give ")
    assert [str(as_given(exc, spell=spell)) for spell in (KEYWORD, FLAG, TOML)] == [
        head + "max_length=PX to clamp such vectors",
        head + "--max-length PX to clamp such vectors",
        head + "max-length = PX to clamp such vectors"]


def test_input_errors_are_exported_at_the_top():
    assert hf.InputError is InputError and hf.InputTypeError is InputTypeError


@pytest.mark.parametrize("cls", [ConfigError, SceneError, FootageError, WriterError])
def test_the_user_facing_errors_are_input_errors(cls):
    assert issubclass(cls, InputError) and issubclass(cls, ValueError)


def test_unusable_gl_is_not_an_input_error():
    assert not issubclass(ContextUnavailable, InputError)


def _stderr_lines(capsys):
    return capsys.readouterr().err.strip().splitlines()


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    code = main(["fx", str(tmp_path / "in.mp4"), "-o", str(tmp_path / "out.mp4"),
                 "--motion-blur", "0"])
    assert (code, _stderr_lines(capsys)) == (
        2, ["hfrender: error: --motion-blur 0 must be a whole number of frames >= 1 (the window)"])


def test_cli_unreadable_input_is_one_line_and_exit_2(tmp_path, capsys):
    missing = tmp_path / "in.mp4"
    code = main(["fx", str(missing), "-o", str(tmp_path / "out.mp4"), "--motion-blur", "2"])
    assert (code, _stderr_lines(capsys)) == (2, [f"hfrender: error: input not found: {missing}"])


def test_cli_piped_input_is_told_to_be_a_file(tmp_path, capsys):
    """A pipe (``cat x.mp4 | hfrender fx /dev/stdin``, or ``-``) was "input not found"."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for given in (str(fifo), "-"):
        code = main(["fx", given, "-o", str(tmp_path / "out.mp4"), "--motion-blur", "2"])
        assert (code, _stderr_lines(capsys)) == (2, [
            f"hfrender: error: input {given}: footage is read from a file, not a pipe or "
            "device (it is probed before it is decoded); save it to a file first"])
    assert not (tmp_path / "out.mp4").exists()


@pytest.mark.parametrize("command", [["render", "scene.py"], ["still", "scene.py"],
                                     ["fx", "in.mp4", "--motion-blur", "2"]])
def test_an_empty_output_path_is_said_so(tmp_path, capsys, command):
    """``-o ''`` was "is a folder" (the current one, as pathlib has it); a still's names a
    picture (was "a file (out.mp4) or frames", neither of which a still writes)."""
    with pytest.raises(SystemExit) as exit_:
        main([*command, "-o", ""])
    err = capsys.readouterr().err.strip().splitlines()
    named = ("the picture (still.png, or still.exr)" if command[0] == "still" else
             "a file (out.mp4) or frames (frames/%05d.png)")
    assert exit_.value.code == 2 and err == [
        f"hfrender: error: argument -o/--output: '' is an empty path; name "
        f"{named} (see hfrender {command[0]} --help)"]


def test_cli_verbose_bad_input_also_prints_the_traceback(tmp_path, capsys):
    missing = tmp_path / "in.mp4"
    code = main(["-v", "fx", str(missing), "-o", str(tmp_path / "out.mp4"),
                 "--motion-blur", "2"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback (most recent call last):" in err
    assert f"FootageError: input not found: {missing}" in err
    assert err.strip().splitlines()[-1] == f"hfrender: error: input not found: {missing}"


def test_cli_bug_prints_the_traceback_and_says_it_is_a_bug(monkeypatch, capsys):
    def broken_context(*args, **kwargs):
        raise ValueError("boom")  # a plain ValueError inside hfrender: a bug, not bad input

    monkeypatch.setattr("hfrender.renderer.contexts.create_context", broken_context)
    assert main(["info"]) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last):" in err
    assert "in broken_context" in err
    assert err.strip().splitlines()[-1] == (
        "hfrender: internal error: ValueError: boom — this is a bug in hfrender; please "
        "report it with the command and the traceback above")
    assert "hfrender: error:" not in err


def test_cli_own_failure_that_is_not_bad_input_is_one_line_and_exit_1(monkeypatch, capsys):
    class Failure(HFRenderError):
        """One of hfrender's own errors that is not the user's input."""

    def failing(args):
        raise Failure("fusing hyperframe 3 failed: the device was lost\n(details)")

    monkeypatch.setattr(hfrender.cli, "cmd_info", failing)
    assert main(["info"]) == 1
    assert _stderr_lines(capsys) == [
        "hfrender: error: fusing hyperframe 3 failed: the device was lost"]


def test_cli_unusable_gl_context_is_exit_2(monkeypatch, capsys):
    def no_gl(args):
        raise ContextUnavailable("--preview needs a window: no display")

    monkeypatch.setattr(hfrender.cli, "cmd_info", no_gl)
    assert main(["info"]) == 2
    assert _stderr_lines(capsys) == ["hfrender: error: --preview needs a window: no display"]
