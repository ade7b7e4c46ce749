"""A jobs file's fields a batch does not know (:mod:`.batch`): why, where it is a run's
option a batch does not take, else the one meant among a job's (its own keys, told too)."""

from __future__ import annotations

from hfrender.errors import unknown_key

# options of render or fx a batch does not take, and why (a misspelling's hint misled)
NOT_IN_A_BATCH = {
    "resume": "a batch goes on by itself: run the same batch command again (finished jobs "
              "are skipped, a half-done one resumes)",
    "keep_samples": "a batch keeps no samples: render that job alone with hfrender render "
                    "... --keep-samples",
    "preview": "a batch shows no window: render that job alone with hfrender render ... "
               "--preview",
    "stats": "a batch's table and --summary FILE give each job's figures",
    "output": "each job's output is in the jobs file (output = ...)",
    "scene": "each job's scene is in the jobs file (scene = ...)"}


def unknown_field(where: str, raw: str, kind: str, known: dict) -> str:
    """A job's field it does not take: why, where it is a run's option a batch does not
    take (was: "did you mean 'preset'?" for preview); else the one meant, else every one."""
    why = NOT_IN_A_BATCH.get(raw.replace("-", "_"))
    if why is not None:
        return f"{where}: {raw!r} is not a job's field: {why}"
    names = sorted([*(k.replace("_", "-") for k in known), *OWN_KEYS.get(kind, ())])  # the
    # options dashed as their flags, own keys as documented (scene_class: the hint's too)
    return unknown_key(where, raw, names, f" for {_a(kind)} job")  # (hfrender.toml's too)


def each_jobs_own(key: str) -> str:
    """What a job's own key in [defaults] is told (``output is each job's own; ...``)."""
    return f"{key} is each job's own; give it in every [[job]]"


# a job's own keys, by kind: among the known ones told (was: a list without output)
OWN_KEYS = {"render": ("name", "scene", "scene_class", "output"),
            "fx": ("name", "input", "output")}


def _a(kind: str) -> str:
    """``a render``, ``an fx`` (was: "a fx", a trial)."""
    return f"an {kind}" if kind.startswith("fx") else f"a {kind}"
