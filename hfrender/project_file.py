"""The project file: ``hfrender.toml``'s ``[render]`` table, read and checked.

Its settings sit between the defaults and the command line's flags (:mod:`hfrender.config`);
each is checked alone and a bad one is named as the file spells it (key and TOML value).
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

from hfrender.config import (
    PRESETS,
    ConfigError,
    RenderConfig,
    parse_fps,
    parse_range,
    parse_size,
)
from hfrender.errors import InputError, InputErrors, as_given, toml_said, unknown_key
from hfrender.frame_range import parse_frames
from hfrender.io.sequence_names import check_output_name

PROJECT_FILE = "hfrender.toml"
PER_RUN = {"resume", "keep_samples"}  # one run's settings, refused here


class ConfigErrors(InputErrors, ConfigError):
    """Several bad keys of hfrender.toml, one line each (a :class:`ConfigError` too)."""


def project_settings(folder: Path | None = None, raw: bool = False) -> dict[str, Any]:
    """The ``[render]`` table of ``hfrender.toml`` in ``folder`` (default: here), if any,
    checked; ``raw``: its values as the file gives them (a batch's jobs type their own)."""
    path = (folder or Path.cwd()) / PROJECT_FILE
    if not path.is_file():
        return {}
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads(path.read_text())
    except Exception as exc:
        raise ConfigError(f"{path}: {exc}") from None
    others = sorted(set(data) - {"render"})
    if others:
        raise ConfigError(f"{path}: unknown table or key {others[0]!r}; hfrender.toml holds a "
                          "[render] table of render settings")
    table: dict = {}  # keys as the long options spell them too (pix-fmt), as batch takes them
    spelt: dict[str, str] = {}
    for key, value in data.get("render", {}).items():
        name = key.replace("-", "_")
        if name in table:
            raise ConfigError(f"{path}: [render] {spelt[name]} and {key} are one setting; "
                              "give it once")
        table[name], spelt[name] = value, key
    known = {f.name for f in fields(RenderConfig)}
    unknown = sorted(set(table) - known)
    if "quality" in unknown:  # (was: "did you mean quality -> quiet?", a trial)
        raise ConfigError(f"{path}: [render] quality: the presets -ql, -qm, -qh are the "
                          "command line's (a size and a frame rate); in hfrender.toml give "
                          f"size and fps (-ql is size = \"{PRESETS['l'][0][0]}x"
                          f"{PRESETS['l'][0][1]}\", fps = {PRESETS['l'][1]:g})")
    if unknown:  # each its line, as a jobs file says it, in the file's order
        names = sorted(k.replace("_", "-") for k in known - PER_RUN)
        raise ConfigErrors([ConfigError(unknown_key(f"{path}: [render]", spelt[u], names))
                            for u in table if u in unknown])
    per_run = sorted(set(table) & PER_RUN)
    if per_run:  # a project file's keep_samples replaced one store with every shot's
        raise ConfigError(f"{path}: [render] {per_run[0]} belongs to one run, not to every "
                          "render of the project: give it on the command line")
    given = dict(table)
    _check_table(path, table, {k: f"{spelt[k]} = {toml_said(v)}" for k, v in given.items()})
    return given if raw else table


def _check_table(path: Path, table: dict, said: dict[str, str]) -> None:
    """hfrender.toml's ``[render]`` settings, each parsed (in place) and checked alone (flags
    may change what goes with it), a bad one named as the file's, ``said`` (its key as
    spelt there and its value as TOML spells it; was the setting's, ``max_in_flight=0``,
    ``hdr=True``), not as a flag the user never gave."""
    parsers = {"size": parse_size, "samples_range": parse_range, "frames": parse_frames,
               "fps": parse_fps}
    if isinstance(table.get("output"), str):  # (was told as "-o o2.mp4/", a flag not given)
        try:
            check_output_name(table["output"], named=lambda v: f"output = {toml_said(v)}")
        except InputError as exc:
            raise ConfigError(f"{path}: [render] {exc}") from None
    for key in set(table) & set(parsers):
        try:
            table[key] = parsers[key](table[key])
        except (InputError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{path}: [render] {as_given(exc, said.get)}") from None
    for key, value in table.items():
        try:
            RenderConfig(**{key: value})
        except (InputError, TypeError) as exc:  # the encoder settings' errors too
            raise ConfigError(f"{path}: [render] {as_given(exc, said.get)}") from None
