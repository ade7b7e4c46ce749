"""hfrender from Python: ``hf.render(scene, "out.mp4", samples=16)`` and
``hf.still(scene, t=1.5)``, the work of ``hfrender render`` and ``hfrender still`` with
the settings made as theirs are (:func:`hfrender.engine.settings.render_config`: defaults,
then hfrender.toml, then the keywords, the commands' long options spelt with underscores),
a bad value refused in the same line naming it as given (``samples=0``).

``scene``: a scene file (``str`` or ``Path``: .py, or a shader .frag/.glsl/.fs), or a
:class:`~hfrender.Scene` subclass defined at the top of a .py file: its file is loaded
afresh, as the command loads it, and the class taken by its name.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from hfrender.errors import (
    KEYWORD,
    HFRenderError,
    InputError,
    InputTypeError,
    as_given,
    meant,
    spelt,
    units_note,
)
from hfrender.numeric import a_number, number_said, real_number, whole_number

if TYPE_CHECKING:
    import numpy as np

    from hfrender.config import RenderConfig
    from hfrender.engine.render_stats import RenderStats

# what only a video render takes (``hfrender still`` has none of these either)
VIDEO_ONLY = ("schedule", "codec", "stats", "preview", "resume", "frames", "keep_samples",
              "crf", "preset", "bitrate", "pix_fmt", "audio", "audio_offset")
SOUND = ("audio", "audio_offset")  # (were taken by hf.still without a word)
_OWN = {"render": ("output", "scene_class", "progress"), "still": ("t", "frame", "scene_class")}
_inside = threading.local()  # a call running in this thread (its scene being loaded)


def _in_keywords(call: Callable) -> Callable:
    """``call`` with every line it makes naming a setting as its caller gave it, a keyword
    (``give samples=1``, ``lower duration or fps``; were the command's ``--samples 1``)."""
    @functools.wraps(call)
    def spelt_call(*args: Any, **kwargs: Any) -> Any:
        with spelt(KEYWORD):
            return call(*args, **kwargs)
    return spelt_call


@_in_keywords
def render(scene: Any, output: str | os.PathLike | None = None, *, scene_class: str | None = None,
           progress: bool | None = False, **options: Any) -> RenderStats:
    """Render ``scene`` into ``output`` (a video, .mp4 .mov .mkv .webm .gif, or an image
    sequence, ``frames/%05d.png``; None: hfrender.toml's, else out.mp4), as ``hfrender render
    SCENE -o OUTPUT`` does, and give back what it did (``frames_written``, ``seconds``,
    ``output``, ...). ``options``: the command's long options with underscores
    (``size=(640, 360)`` or ``"640x360"``, ``fps=24``, ``samples=16``, ``shutter=270``,
    ``dof="depth"``, ``hdr="on"``, ``transparent=True``, ...). ``progress=True``: the
    command's progress bar, in a Jupyter notebook too (default, False or None: nothing
    printed; None is every switch's default, as ``transparent=None`` is)."""
    from hfrender.engine.render import RenderJob
    from hfrender.engine.settings import check_render, outputs_held
    from hfrender.io.container_fit import codec_warned
    from hfrender.progress import progress_bar
    from hfrender.validate import flag

    progress = progress is not None and flag(progress, "progress", True)  # (was: "abc" taken as
    # True; None refused, where transparent=None, stats=None were taken as not given)
    file, name = _scene_file(scene, scene_class, "render")
    given = {**options, "output": None if output is None else _output(output),
             "quiet": not progress}
    if "keep_samples" in options:  # (was: "~/shot.samples" made a folder named "~" here)
        given["keep_samples"] = _home(options["keep_samples"])
    config = _config(given, "render", options)
    check_render(file, config)
    codec_warned(config.output, options.get("codec"))  # (the call's, not the project's)
    with _once("render"), _letting_go(), outputs_held(config):
        bar, finish = progress_bar(config.quiet)
        job = RenderJob(file, config, scene_name=name, progress=bar)
        try:
            return job.prepare().run()
        except KeyboardInterrupt as exc:  # the command's line: what is kept, how to go on
            from hfrender.engine.stopped import interrupted_line

            _noted(exc, interrupted_line(config, job.stats, exc=exc))
            raise
        except (HFRenderError, OSError) as exc:  # the command's line: what is kept, and where
            from hfrender.engine.stopped import failed_line

            said = failed_line(config, job.stats, exc)
            if said is None:
                raise
            raise said from exc
        finally:
            finish()


@_in_keywords
def still(scene: Any, t: float = 0.0, *, frame: int | None = None,
          scene_class: str | None = None, **options: Any) -> np.ndarray:
    """The output frame of ``scene`` at ``t`` seconds (or the frame numbered ``frame``) as
    ``hfrender still`` makes it, its pixels those of the PNG it writes: an array (height,
    width, 3) of uint8 sRGB, (height, width, 4) with straight alpha where transparent
    (``transparent=True``, or the scene's background None), uint16 with ``bit_depth=16``.
    ``options``: as :func:`render`'s, less a video's own (``codec``, ``frames``, ``audio``: a
    still has no sound, ...)."""
    from hfrender.engine.render import RenderJob
    from hfrender.engine.settings import check_scene_path, still_frame
    from hfrender.io.writers import MemoryWriter
    from hfrender.signals import stop_at_once

    file, name = _scene_file(scene, scene_class, "still")
    if frame is not None and t != 0.0:
        raise InputError(f"t={t!r} and frame={frame!r}: give one of them")
    if not real_number(t):  # (a Decimal: taken, as a float; was refused)
        raise (InputError if a_number(t) else InputTypeError)(
            f"t={number_said(t)}: not a time (give seconds, a finite number >= 0)")
    t = float(t)
    if frame is not None and not whole_number(frame):
        raise InputTypeError(f"frame={frame!r}: give an output frame's number, an integer >= 0")
    full = _config({**options, "output": "still.png"}, "still", options)
    check_scene_path(file)
    with _once("still"), _letting_go():
        k, seconds = still_frame(file, name, full, t, frame,
                                 duration_given=options.get("duration") is not None)
        config = full.with_(preview=False, resume=False, quiet=True, frames=None,
                            **({} if seconds is None else {"duration": seconds}))
        picture = MemoryWriter()
        job = RenderJob(file, config, scene_name=name, first_frame=k, count=1,
                        writer=picture).prepare()
        with stop_at_once():  # the first Ctrl-C stops the one picture's work, as the command's
            job.run()
    return picture.frames[0]


def _noted(exc: BaseException, line: str) -> None:
    """``line`` under ``exc``'s traceback: a note (Python 3.11 on); before 3.11, which has
    no notes, its message (``KeyboardInterrupt: interrupted: ...``)."""
    add_note = getattr(exc, "add_note", None)
    if callable(add_note):
        add_note(line)
    else:
        exc.args = (*exc.args, line)


def _output(output: Any) -> Any:
    """``output`` as ``-o`` takes it: ``~`` expanded, ``frames/####.png`` as ``%04d`` (what
    is no path: as it is, for the settings' own check to name)."""
    from hfrender.io.sequence_names import sequence_name

    path = _home(output)
    return sequence_name(path) if isinstance(path, str) else path


def _home(path: Any) -> Any:
    """A path as the command line takes it where no shell expanded it: ``~`` the home
    folder (what is no path, or empty: as it is, for the settings' own check to name)."""
    from hfrender.io.sequence_names import home_path

    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        return path
    return home_path(os.fspath(path))


def _config(given: dict, command: str, options: dict) -> RenderConfig:
    """The settings of ``given`` as the command makes them; a keyword it does not take is a
    TypeError as Python's own (with the one meant), a bad value named as given."""
    from hfrender.config import FLAGS
    from hfrender.engine.settings import GIVEN, render_config
    from hfrender.validate import flag

    takes = [k for k in GIVEN if k not in ("quiet", "quality", "output")
             and (command == "render" or k not in VIDEO_ONLY)]
    for key in options:
        if key not in takes:
            raise TypeError(f"hf.{command}() got an unexpected keyword argument {key!r}"
                            f"{_meant(key, takes, command)}")
        if key in FLAGS and options[key] is not None:  # True or False, as linear_light=
            flag(options[key], key, True)  # (were: "" and 0 read as not given, "no" said "must be
            #                           true or false", a file's words)
    given, options = _plain(given), _plain(options)
    try:
        return render_config(given, command)
    except InputError as exc:
        said = as_given(exc, lambda k: f"{k}={_given(options[k])}" if k in options else None)
        if said is exc:
            raise
        raise said from None


def _given(value: Any) -> str:
    """A keyword's value as its line says it: its repr, an int past float's range by its
    length (:func:`~hfrender.numeric.number_said`; was its 401 digits)."""
    return number_said(value) if whole_number(value) else repr(value)


def _plain(value: Any) -> Any:
    """``value`` with NumPy's numbers (a 0-d array's, a tensor's) as Python's, in a dict,
    tuple or list too: the settings are checked as Python's and kept as JSON (was: duration=
    np.int64(2) "Object of type int64 is not JSON serializable" once the render began,
    shutter=np.int64(180) refused as no angle > 0)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if type(value) in (tuple, list):  # (a named tuple: as it is)
        return type(value)(_plain(v) for v in value)
    item = getattr(value, "item", None)
    return item() if callable(item) and getattr(value, "ndim", None) == 0 else value


# the commands' options the calls do not take, and what to do instead
_COMMAND_ONLY = {"ray": "Ray runs the command's segments: hfrender render FILE --ray [ADDRESS]",
                 "compare": "the frame without effects beside it is the command's: hfrender "
                            "still FILE --compare (or call hf.still twice, the second with "
                            "dof='off', samples=1)"}


def _meant(key: str, takes: list[str], command: str) -> str:
    """``; did you mean samples?`` for ``sample``, ``size`` for ``width``; a video's option
    given to a still, or ``quiet``, said so (``frames``: still's own ``frame`` offered
    first); else nothing."""
    if key == "quiet":
        return f"; hf.{command}() prints nothing unless asked (progress=True, render's)"
    if key in _COMMAND_ONLY:
        return f"; {_COMMAND_ONLY[key]}"
    own = [*takes, *_OWN[command]]
    near = [k.replace("-", "_") for k in meant(key.replace("_", "-"),
                                               [k.replace("_", "-") for k in own])]
    if command == "still" and key in VIDEO_ONLY:  # (frames: still's own frame, not a render)
        if near and near[0] in _OWN["still"]:
            return f"; did you mean {near[0]}? ({key} is a video render's, hf.render)"
        return f"; {key} is a video render's (hf.render){': a still has no sound' * (key in SOUND)}"
    return f"; did you mean {near[0]}?{units_note(key, near[0])}" if near else ""


def _scene_file(scene: Any, scene_class: str | None, command: str) -> tuple[str, str | None]:
    """(the scene file, the class's name or None) of ``scene``: a path, or a Scene subclass
    defined at the top of a .py file."""
    from hfrender.scene import Scene

    if scene_class is not None and not isinstance(scene_class, str):  # (was: re's TypeError)
        raise InputTypeError(f"hf.{command}(): scene_class={scene_class!r} must be the name "
                             "of a Scene class in the file (a str: 'Orbit')")
    if isinstance(scene, (str, os.PathLike)):
        return os.fspath(scene), scene_class
    if isinstance(scene, Scene):
        raise InputTypeError(f"hf.{command}(): give the class {type(scene).__name__}, not an "
                             "instance of it: hfrender makes the scene from its file, as the "
                             "command does")
    if not (inspect.isclass(scene) and issubclass(scene, Scene)):
        raise InputTypeError(f"hf.{command}(): scene={scene!r} is neither a scene file (a str "
                             "or Path: .py, .frag) nor a Scene subclass")
    if scene_class is not None:
        raise InputError(f"hf.{command}(): scene_class={scene_class!r} with the class "
                         f"{scene.__name__}: give one of them")
    file = _source_file(scene)
    if file is None or not Path(file).is_file() or Path(file).suffix.lower() != ".py":
        raise InputError(f"hf.{command}(): the class {scene.__name__} has no .py file (made in "
                         "a notebook or a REPL, it is read from no file); hfrender loads a "
                         "scene from its file: save the class in one (scene.py) and give "
                         "that, or the class imported from it")
    if scene.__qualname__ != scene.__name__:
        raise InputError(f"hf.{command}(): the class {scene.__qualname__} is defined inside "
                         f"{scene.__qualname__.rsplit('.', 1)[0]}; hfrender loads a scene "
                         "class from the top of its file: define it there")
    return file, scene.__name__


def _source_file(cls: type) -> str | None:
    """The file ``cls`` was defined in: inspect's (its module's), else its own methods' (its
    module forgotten: a scene's folder's modules are, as each scene there is loaded)."""
    try:
        return inspect.getsourcefile(cls)
    except (TypeError, OSError):
        pass
    for value in vars(cls).values():
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is not None:
            return code.co_filename
    return None


@contextmanager
def _letting_go() -> Iterator[None]:
    """An error (a Ctrl-C) raised on with its traceback's hfrender frames emptied of their
    locals: a notebook keeps the last traceback (``sys.last_traceback``), and with those
    locals the render's hyperframe pool (was: 640 MB at 1280x720 held after a Ctrl-C, till
    the next error). The traceback's lines are kept, and so are the locals of the user's
    own frames (a scene's ``update`` that raised, for ``%debug``)."""
    try:
        yield
    except BaseException as exc:
        seen: set[int] = set()
        todo: list[BaseException | None] = [exc]
        while todo:
            one = todo.pop()
            if one is not None and id(one) not in seen:
                seen.add(id(one))
                _clear_own_frames(one.__traceback__)
                todo += [one.__cause__, one.__context__]
        raise


_PACKAGE = os.path.dirname(__file__) + os.sep  # (as its modules name their code)


def _clear_own_frames(tb: TracebackType | None) -> None:
    """The locals of ``tb``'s frames in hfrender's package let go (one still running, the
    call's own, is left: Python refuses to clear it)."""
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(_PACKAGE):
            with suppress(RuntimeError):
                tb.tb_frame.clear()
        tb = tb.tb_next


class _once:
    """A call of this thread, refused inside another (a scene file whose top calls
    hf.render runs it again as it is loaded)."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __enter__(self) -> None:
        if getattr(_inside, "command", None):
            raise InputError(f"hf.{self.command}() inside hf.{_inside.command}(): the scene's "
                             f"file calls it as it is loaded; put the call under "
                             "if __name__ == \"__main__\": (a scene file is loaded as a "
                             "module of its own)")
        _inside.command = self.command

    def __exit__(self, *exc: object) -> None:
        _inside.command = None
