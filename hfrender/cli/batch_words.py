"""The words after ``hfrender batch JOBS.toml``: the batch's own options, and the render's
and fx's given to every job (each value as typed too: :class:`Typed`)."""

from __future__ import annotations

from hfrender.config import ConfigError, parse_fps
from hfrender.engine.batch_fields import NOT_IN_A_BATCH
from hfrender.engine.batch_values import Typed
from hfrender.errors import as_given, as_typed, nearest

OWN = ("--summary", "--quiet", "--ray", "--dry-run")
SHORT = {"-o": "output", "-s": "scene"}


def overrides_of(words: list[str]) -> tuple[dict, dict]:
    """(the batch's own options, overrides for every job) from the words after the file:
    ``--samples 4 --jitter --size 320x180`` (a flag without a value is true)."""
    from hfrender.engine.batch import FX_OPTIONS, RENDER_OPTIONS, option_name

    own: dict = {}
    found = Typed()  # (each value as typed too: --shutter 1e309)
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("-v", "--verbose"):  # hfrender's own, after the file as before it
            own["verbose"], i = True, i + 1
            continue
        if word == "-q":  # --quiet, as the commands take it
            own["quiet"], i = True, i + 1
            continue
        if word == "--dry-run":  # a flag: what a run would do, said (cli.batch_dry)
            own["dry_run"], i = True, i + 1
            continue
        if word.startswith("--dry-run="):
            raise ConfigError(f"{word}: --dry-run takes no value (--dry-run alone)")
        if word in SHORT:  # render's and fx's -o and -s: each job's own
            raise ConfigError(f"{word}: {NOT_IN_A_BATCH[SHORT[word]]}")
        if not word.startswith("--"):
            raise ConfigError(f"{word!r}: options after the jobs file are --name value")
        name, _, value = word[2:].partition("=")
        key = option_name(name)
        if word == "--quiet":  # a flag: the next word is never its value
            own["quiet"], i = True, i + 1
            continue
        if not value and (i + 1 >= len(words) or words[i + 1].startswith("--")
                          or words[i + 1] in ("-v", "-q")  # --ray -v: two flags
                          or (name == "ray" and words[i + 1].startswith("-"))):
            value = None
        elif not value:
            value, i = words[i + 1], i + 1
        i += 1
        if f"--{name}" in OWN:
            own[key] = True if value is None else value
            continue
        want = RENDER_OPTIONS.get(key, FX_OPTIONS.get(key))
        if key in NOT_IN_A_BATCH:
            raise ConfigError(f"--{name}: {NOT_IN_A_BATCH[key]}")
        if want is None:
            known = [k.replace("_", "-") for k in (*RENDER_OPTIONS, *FX_OPTIONS)]
            near = nearest(name, known)
            hint = f"; did you mean --{near[0]}?" if near else ""
            raise ConfigError(f"--{name}: not an option of hfrender render or fx{hint}")
        try:
            found[key] = parse_fps(value) if key == "fps" and value is not None else \
                _parse(name, value, want)
            if value is not None:
                found.typed[key] = value
        except ConfigError as exc:  # named as typed, --fps 1/0 (was: fps='1/0')
            said = as_typed(f"--{name}", value or "")
            raise as_given(exc, lambda _, said=said: said) from None
    return own, found


def _parse(name: str, text: str | None, want: object) -> object:
    kinds = want if isinstance(want, tuple) else (want,)
    if text is None:
        if bool in kinds:
            return True
        raise ConfigError(f"--{name} needs a value")
    for kind in kinds:
        if isinstance(kind, str) and text == kind:
            return text
        try:
            if kind is bool and text.lower() in ("true", "false"):
                return text.lower() == "true"
            if kind in (int, float):
                return kind(text)
            if kind is str:
                return text
        except ValueError:
            continue
    if int in kinds or float in kinds:  # a word for a number: the job's own check says
        return text  # what the option takes (was "--shutter 'x': not a valid value")
    raise ConfigError(f"--{name} {text!r}: not a valid value")
