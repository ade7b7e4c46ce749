"""hfrender.toml's ``[render]`` defaults as one output takes them: a project's encoder
settings (``crf``, ``pix_fmt``, ...) and ``bit_depth`` are each meant for some outputs, and
one that this output refuses is left out (said at -v), not refused in the words of a flag
the user never gave (a trial: a project's ``crf = 12`` refused every EXR render; a review:
every GIF, and ``bit_depth = 8`` every EXR). The command line's own are refused as ever.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from hfrender.config import ConfigError
from hfrender.errors import FLAG, HFRenderError, as_given, spelt, toml_said

log = logging.getLogger(__name__)

# what an output says of a setting it does not take at all (not of a bad value)
NOT_TAKEN = ("no quality settings", "no presets", "no CRF", "presets are", "is a video",
             "is a GIF", "cannot hold it", "frames are", "keeps no alpha", " takes ")
# the settings a project may give that only some outputs take, as their flags are spelt
FLAGS = {"codec": "--codec", "crf": "--crf", "preset": "--preset", "bitrate": "--bitrate",
         "pix_fmt": "--pix-fmt", "bit_depth": "--bit-depth", "passes": "--passes"}


def fitted(values: dict, from_project: set[str],
           probe: Callable[[Any], None] | None = None, named: str | None = None) -> dict:
    """``values`` (a render's settings) less those of ``from_project`` (hfrender.toml's,
    given by no flag) that its output refuses, one at a time, as its refusal names them;
    ``probe(config)``: a further check (the command's: the encoder started into the
    output's container, which may refuse the codec). ``named``: the file's path, where a
    bad value of its own (``codec = "nope"``, no encoder this ffmpeg has) is refused here,
    named as the file gives it (was: as ``--codec nope``, a flag never given; else it is
    refused later as it is: a batch names a job's keys itself)."""
    values = dict(values)
    theirs = [k for k in FLAGS if k in from_project and k in values]
    while theirs:
        exc = _refusal(values, probe)
        said = None if exc is None else str(exc).splitlines()[0]
        if not said or " with --" in said:  # (two at odds, --crf with --bitrate: the
            break  # project's own mistake, refused as it is)
        head = said.split(": ")[0]  # what it refuses, before why (which may name another)
        key = next((k for k in theirs if f"{FLAGS[k]} " in head), None)
        if key is None or not any(w in said for w in NOT_TAKEN):  # none of these, or a bad
            _own(exc, theirs, values, named)  # value (codec = "nope"): refused
            break
        log.info("hfrender.toml's %s = %r left out: %s", key, values.pop(key), said)
        theirs.remove(key)
    return values


def _own(exc: BaseException | None, theirs: list[str], values: dict,
         named: str | None) -> None:
    """``exc``, a refusal of the project's own setting (one of ``theirs``) in ``values``,
    raised as the file at ``named`` gives it (``hfrender.toml: [render] codec = "nope":
    ...``); other refusals, or without ``named``: nothing (refused later, as they are)."""
    if named is None or exc is None:
        return
    said = as_given(exc, lambda k: f"{k.replace('_', '-')} = {toml_said(values[k])}"
                    if k in theirs else None)
    if said is not exc:  # (an error of no one of theirs: as it is)
        raise ConfigError(f"{named}: [render] {said}") from None


def _refusal(values: dict, probe: Callable[[Any], None] | None) -> BaseException | None:
    """What the output's checks refuse of ``values``, else None."""
    from hfrender.config import RenderConfig
    from hfrender.engine.deep_output import output_dtype
    from hfrender.engine.passes import check_passes
    from hfrender.io.encoding import Encoding, check_encoding
    from hfrender.io.writers import check_output

    try:  # told by the flags (:data:`FLAGS`), whoever renders (hf.render's: keywords)
        with spelt(FLAG):
            config: Any = RenderConfig(**values)
            output_dtype(config.output, config.bit_depth, False, config.codec, config.transparent)
            check_encoding(config.output, config.codec, Encoding.of(config))
            check_output(config.output, config.size, config.codec, alpha=config.transparent,
                         pix_fmt=config.pix_fmt)
            check_passes(config)
            if probe is not None:
                probe(config)
    except (HFRenderError, TypeError, ValueError) as exc:  # (a value of a wrong type: the
        return exc  # job's own check tells it)
    return None


def fitted_table(project: dict, output: str, given: dict, transparent: bool) -> dict:
    """A batch job's share of hfrender.toml's table (as the file spells it): those of its
    settings the job's ``output`` refuses left out, unless the job, ``[defaults]`` or the
    command line gives them (``given``, underscored names: their values, which the output is
    checked with: a job's own ``codec``, a trial), as :func:`fitted`."""
    mine = {k.replace("-", "_"): k for k in project}
    values = {k: project[raw] for k, raw in mine.items() if k in FLAGS}
    if not values:
        return project
    theirs = {k: v for k, v in given.items() if k in FLAGS}  # (told by the job's own check)
    kept = fitted({**values, **theirs, "output": output, "transparent": transparent},
                  set(values) - set(given))
    return {raw: v for raw, v in project.items()
            if raw.replace("-", "_") not in FLAGS or raw.replace("-", "_") in kept}
