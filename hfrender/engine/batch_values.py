"""A jobs file's values as its jobs take them: typed as each option wants, and a bad one
named as the file (or the command line after it) gave it, its key as spelt there and its
value as TOML spells it (``max-in-flight = 0``, ``hdr = true``; was Python's
``max_in_flight=0``, ``hdr = True``)."""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable
from typing import Any

from hfrender.config import ConfigError, parse_fps
from hfrender.disparity import DISPARITY_ONLY, NOT_WITH_DISPARITY
from hfrender.engine.batch_fields import OWN_KEYS, each_jobs_own
from hfrender.engine.batch_paths import option_name, spelt
from hfrender.errors import InputError, as_given, as_typed, nearest, toml_said
from hfrender.numeric import real_number

VECTORS_ONLY = ("shutter", "max_length")  # an fx job's keys for motion vectors alone


def typed(where: str, key: str, value: Any, want: Any, typed_there: bool = False) -> Any:
    """``value`` of the type ``want`` (ints are floats where a float is asked; a str is
    that word: ``"auto"``); else one line with the value as the file spells it (was
    Python's: ``hdr = True``). ``typed_there``: an option after the jobs file, typed by
    the command line (``cli.batch``), whose word for a number is left to the job's own
    check to refuse, naming the flag and what it takes (``--shutter x must be ...``)."""
    kinds = want if isinstance(want, tuple) else (want,)
    if typed_there and isinstance(value, str):
        return value
    for kind in kinds:
        if isinstance(kind, str) and value == kind:
            return value
        if kind is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value) if real_number(value) else value  # (10**400: the job's check
            #                                          says it, was an OverflowError)
        if isinstance(kind, type) and isinstance(value, kind) and not (
                kind is int and isinstance(value, bool)):
            return value
    names = " or ".join(k if isinstance(k, str) else
                        {int: "an integer", float: "a number", str: "a string",
                         bool: "true or false", list: "a list"}[k] for k in kinds)
    raise InputError(f"{where}: {key} = {toml_said(value)} must be {names}{spelt(key)}")


def file_fps(where: str, key: str, value: Any) -> Any:
    """A jobs file's frame rate ``key`` (:func:`hfrender.config.parse_fps`), a bad one
    named as the file spells it, at ``where``."""
    try:
        return parse_fps(value)
    except InputError as exc:
        raise ConfigError(f"{where}: {as_given(exc, lambda _: f'{key} = {toml_said(value)}')}"
                          ) from None


def job_said(taken: dict[str, tuple[int, str, Any]],
             overrides: dict) -> Callable[[str], str | None]:
    """A job's setting as given (:func:`hfrender.errors.as_given`): the key as the table it
    took it from spells it (:func:`~hfrender.engine.batch_paths.taken_from`) and the value
    as TOML does (``max-in-flight = 0``), or the option after the jobs file (``--fps 0``)."""
    said = {key: f"{raw} = {toml_said(value)}" for key, (_, raw, value) in taken.items()}
    typed = getattr(overrides, "typed", {})  # (Typed: the texts the command line gave)
    said.update({key: as_typed(f"--{key.replace('_', '-')}", typed.get(key, _typed_text(
        value))) for key, value in overrides.items()})
    return said.get


class Typed(dict):
    """The options given after the jobs file, by key, as taken (numbers), with ``typed``:
    each one's text as typed (``1e309``; was said as taken, ``--shutter inf``)."""

    def __init__(self) -> None:
        super().__init__()
        self.typed: dict[str, str] = {}


def _typed_text(value: Any) -> str:
    """An option's value after the jobs file as typed, near enough (``0`` for 0.0)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def fx_tables(tables: tuple[dict, dict, dict]) -> tuple[dict, ...]:
    """An fx job's ``[defaults]``, own table and options after the jobs file as it takes
    them: :func:`fx_defaults`, and the command line's ``--shutter`` (the renders') and
    ``--max-length`` for a job with motion vectors alone (was: refused, '--shutter 90
    applies only with vectors')."""
    defaults, entry, overrides = tables
    taken = fx_defaults(defaults, entry, overrides)
    vectors = any(t.get("vectors") is not None for t in (overrides, entry, taken))
    return (taken, entry, {k: v for k, v in overrides.items()
                           if vectors or k not in VECTORS_ONLY})


def fx_defaults(defaults: dict, entry: dict, overrides: dict) -> dict:
    """The jobs file's ``[defaults]`` as an fx job takes them: those that apply to it, each
    said of the job as the command line's, its own, else [defaults]': a job with motion
    vectors takes no motion-blur, stride or depth, and a job without takes no shutter (the
    renders') or max-length; a job without a depth pass none of a depth pass's options;
    and of those, the keys of its own depth kind: a metre job's lens and depth-scale not
    for a disparity job, max-blur and focus-disparity not for a metre job (was: forced on
    it, and refused, so one file could not hold both). A job's own key, or the command
    line's, that does not apply is refused."""
    from hfrender.engine.fx_settings import DEPTH_OPTIONS

    def given(key: str, tables: tuple = (defaults, entry, overrides)) -> Any:
        return next((v for t in reversed(tables) for k, v in t.items()
                     if option_name(k) == key), None)

    vectors = given("vectors") is not None
    left = {"motion_blur", "stride", "depth"} if vectors else set(VECTORS_ONLY)
    if given("depth", (entry, overrides) if vectors else (defaults, entry, overrides)) is None:
        left.update(DEPTH_OPTIONS)  # (a motion blur alone: was "[defaults], for job 'shot':
    kind = given("depth_kind", (entry, overrides) if "depth_kind" in left else  # depth-kind
                 (defaults, entry, overrides))  # disparity needs depth"; a wrong kind: as
    left.update({"disparity": NOT_WITH_DISPARITY, "distance": DISPARITY_ONLY}.get(
        "distance" if kind is None else kind if isinstance(kind, str) else "", ()))  # it is
    return {k: v for k, v in defaults.items() if option_name(k) not in left}


def numbers_checked(overrides: dict) -> None:
    """A word given after the jobs file for a number that no job's check refused (an fx
    job's lens option where no job has a depth pass, unused) is one line all the same (was
    "not a valid value" before every job's check; then, unsaid, a job run again)."""
    from hfrender.engine.batch import FX_OPTIONS, RENDER_OPTIONS

    for key, value in overrides.items():
        want = RENDER_OPTIONS.get(key, FX_OPTIONS.get(key))
        kinds = want if isinstance(want, tuple) else (want,)
        if isinstance(value, str) and value not in kinds and str not in kinds:
            number = "a whole number" if int in kinds else "a number"
            raise ConfigError(f"{as_typed('--' + key.replace('_', '-'), value)} must be "
                              f"{number}")


def codec_told(job: Any, given: tuple[dict, ...]) -> None:
    """A ``codec`` the job is given (``given``: [defaults], its table, the command line;
    hfrender.toml's is left out, as render leaves it) that its output, PNG or EXR files,
    never uses: warned of (was: unsaid)."""
    from hfrender.io.container_fit import codec_unused

    codec = job.options.get("codec") if any("codec" in t for t in given) else None
    if unused := codec_unused(str(job.output), codec, ("codec", "output")):
        logging.getLogger(__name__).warning("job %r: %s", job.name, unused)


def taken_by_some(overrides: dict, jobs: list[Any], options: dict[str, dict]) -> None:
    """An option after the jobs file that no job of it takes (``--motion-blur 3`` where
    every job is a render; ``options``: each kind's) is one line (was: left out without a
    word, a trial); ``--shutter`` or ``--max-length`` where no job takes it (no job with
    motion vectors, nor a render for shutter): fx's line (was: left out unsaid)."""
    from hfrender.engine.fx_settings import check_needs

    kinds = {job.kind for job in jobs}
    for key in overrides:
        takes = [kind for kind, known in options.items() if key in known]
        if takes and not kinds & set(takes):
            raise ConfigError(f"--{key.replace('_', '-')}: an option of {takes[0]} jobs, and "
                              f"the jobs file has none (its jobs: {', '.join(sorted(kinds))})")
    for key in VECTORS_ONLY:
        if key in overrides and not any(key in job.options for job in jobs):
            try:
                check_needs({key: overrides[key]}, lambda k: f"--{k.replace('_', '-')}")
            except InputError as exc:  # as typed (was: --max-length inf for 1e309)
                raise as_given(exc, job_said({}, overrides)) from None
    _lens_checked(overrides, jobs)


def _lens_checked(overrides: dict, jobs: list[Any]) -> None:
    """The lens options after the jobs file that no job takes (none reads a depth pass),
    checked all the same, as a lens of the others' defaults (was: ``--f-stop nan`` taken,
    unsaid); a word is :func:`numbers_checked`'s."""
    from hfrender.engine.fx_settings import LENS_OPTIONS, focal_under
    from hfrender.optics import Lens, check_focal_length

    depth = any(job.options.get("depth") is not None for job in jobs)
    unused = {} if depth else {k: overrides[k] for k in LENS_OPTIONS
                               if k in overrides and not isinstance(overrides[k], str)}
    if unused:
        try:  # a focal length past the focus its own fault, as fx says (was: the focus's)
            focal_under(unused.get("focus_distance"), unused.get("focal_length_mm"),
                        lambda k: f"--{k.replace('_', '-')}")
            check_focal_length(unused.get("focal_length_mm"))  # (the flag's cap: not Lens's)
            Lens(**{"focus_distance": math.inf, "f_stop": 2.8, **unused})
        except InputError as exc:
            raise as_given(exc, job_said({}, overrides)) from None


# a job's line about a value it shares with other jobs (the command line's, [defaults]',
# hfrender.toml's: :func:`hfrender.engine.batch_paths.blamed`)
_SHARED = re.compile(r"(?P<where>.+?), for job (?P<job>'[^']*'|\"[^\"]*\"): (?P<said>.*)")


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _alike(said: str) -> str:
    """A line about a value as a render job's and an fx job's say it alike: the value not
    quoted (``--backend '0'``) and "is not a backend; choose one of" as "must be one of"."""
    said = re.sub(r"^(-*[\w-]+ )'([^'\s]+)'", r"\1\2", said)
    return re.sub(r" is not an? [\w -]+?; choose one of ", " must be one of ", said)


def said_once(errors: list[InputError]) -> list[InputError]:
    """``errors`` with the lines of one shared value that say the same (the same place, the
    same words but the render's and the fx's: :func:`_alike`) said once, naming every job
    it fails (``on the command line, for jobs 'a' and 'b': --samples 0 must be ...``; was a
    line a job); where jobs refuse it otherwise (another fps, another codec's hint), a line
    each (was: the first job's for all). A line of one job is its own error, as raised."""
    shared: dict[tuple[str, str], tuple[int, list[str], list[InputError], str]] = {}
    out: list[InputError | None] = []
    for exc in errors:
        m = _SHARED.fullmatch(str(exc))
        if m is None:
            out.append(exc)
            continue
        key = (m["where"], _alike(m["said"]))
        if key in shared:
            shared[key][1].append(m["job"])
            shared[key][2].append(exc)
            continue
        shared[key] = (len(out), [m["job"]], [exc], m["said"])
        out.append(None)
    for (where, _), (at, jobs, excs, said) in shared.items():
        kinds = {type(e) for e in excs}  # (one: its own class, ConfigError, ...)
        kind = kinds.pop() if len(kinds) == 1 else InputError
        out[at] = excs[0] if len(excs) == 1 else kind(f"{where}, for jobs {_joined(jobs)}: "
                                                      f"{said}")
    return [e for e in out if e is not None]


def own_key_misspelt(where: str, entry: dict, options: set[str],
                     defaults: bool = False) -> None:
    """A job's own key misspelt (``scnee``, ``ouput``; not one of ``options``): named with
    the key meant, before that key's absence is told (was: "give either scene (a render)
    or input (an fx job)", "name is missing"); in ``[defaults]`` (``defaults``), whose it
    is too (was: the known options' list, without it)."""
    own = sorted({k for keys in OWN_KEYS.values() for k in keys})
    for raw in entry:
        if option_name(raw) in own or option_name(raw) in options:
            continue
        near = nearest(option_name(raw), [*own, *options])  # (an option's: its own line,
        if near and near[0] in own:  # later: 'sample' was told 'name', 'sizee' 'scene')
            whose = f" {each_jobs_own(near[0])}" if defaults else ""
            raise InputError(f"{where}: unknown field {raw!r}; did you mean {near[0]!r}?"
                             f"{whose}")
