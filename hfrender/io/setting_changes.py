"""What changed between an interrupted run's settings and this run's, as the command line
says it (``f-stop 2 -> 2.8``): a refused ``--resume`` names each change by its flag."""

from __future__ import annotations

FILES = {"input": "input", "depth": "depth pass"}  # settings that identify a file
# settings kept under another name than their flag's (fx's, as FxSettings names them):
# (flag, whether the flag says the opposite) (was: "window 3 -> 4" for --motion-blur 4,
# "linear-light on -> off" for --gamma-space, "input-fps unset -> 25" for --fps 25; a trial)
FLAGS = {"window": ("motion-blur", False), "linear_light": ("gamma-space", True),
         "input_fps": ("fps", False)}


def differences(mine: dict, theirs: dict) -> list[str]:
    """What changed from ``mine`` to ``theirs``, each as the command line says it (a group
    of settings such as the lens by each of its own)."""
    mine, theirs = _flat(mine), _flat(theirs)
    out = []
    for k in sorted(set(mine) | set(theirs), key=lambda k: FLAGS.get(k, (k,))[0]):
        a, b = mine.get(k), theirs.get(k)
        if a == b:
            continue
        if k.endswith("_sha256") or k in FILES:  # a file's checksum, or its identity
            out.append(f"the {FILES.get(k, k.removesuffix('_sha256') + ' file')} changed")
            continue
        if k in ("scene_modules", "scene_files"):  # by their checksums
            a, b, what = a or {}, b or {}, "module" if k == "scene_modules" else "file"
            out += [f"the scene's {what} {m} "
                    f"{'changed' if m in a and m in b else 'is new' if m in b else 'is gone'}"
                    for m in sorted(set(a) | set(b)) if a.get(m) != b.get(m)]
            continue
        flag, opposite = FLAGS.get(k, (k.replace("_", "-"), False))
        if opposite:  # (each side: an older manifest may not have it, "unset")
            a, b = (not v if isinstance(v, bool) else v for v in (a, b))
        shown = (_shown(k, a), _shown(k, b))  # as given, unless that reads the same
        out.append(f"{flag} " + " -> ".join(  # (29.97, 29.970001)
            shown if shown[0] != shown[1] else (repr(a), repr(b))))
    return out


def _flat(settings: dict) -> dict:
    """``settings`` with the lens (a dict) replaced by its own entries."""
    out = {}
    for k, v in settings.items():
        out.update(v if k == "lens" and isinstance(v, dict) else {k: v})
    return out


def _shown(key: str, value: object) -> str:
    """A setting as it is given on the command line: unset, 64x36, 0:200, 30,12, 2.8, fast."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(
            v is None or isinstance(v, int) for v in value):
        a, b = ("" if v is None else v for v in value)
        sep = {"size": "x", "focus_pixel": ","}.get(key, ":")  # else a frame range
        return f"{a}{sep}{b}"
    if key == "depth_range" and isinstance(value, (list, tuple)):  # NEAR,FAR: 1,11
        return ",".join(f"{v:g}" for v in value)
    return str(value)
