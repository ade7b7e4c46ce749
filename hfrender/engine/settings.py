"""A render's settings as given (the command line's flags, the library's keywords) made
into its :class:`~hfrender.config.RenderConfig` and checked, one way for both: defaults,
then hfrender.toml, then what was given; a message names a setting as its user spelt it
(:func:`hfrender.errors.spelling`: ``--dof depth`` or ``dof='depth'``)."""

from __future__ import annotations

import logging
import math
import numbers
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from hfrender.config import (
    MAX_FRAMES,
    PRESETS,
    ConfigError,
    RenderConfig,
    nearest_frame,
    parse_fps,
    parse_range,
    parse_samples,
    parse_size,
)
from hfrender.engine.project_fit import fitted
from hfrender.engine.render_checks import auto_or_int, check_encoder, check_scene_path
from hfrender.errors import Spelling, about, spelling
from hfrender.frame_range import parse_frames
from hfrender.io.encoding import Encoding
from hfrender.io.sequence_names import check_output_name, home_path
from hfrender.numeric import whole_number
from hfrender.project_file import PROJECT_FILE, project_settings

log = logging.getLogger(__name__)

# what a render takes as given, by the names of RenderConfig (and -q's preset, "quality")
GIVEN = ("output", "fps", "duration", "samples", "samples_range", "shutter",
         "shutter_position", "shutter_curve", "dof", "reconstruct", "backend", "dof_method",
         "gl", "seed", "codec", "max_coc_px", "jitter", "msaa", "hdr", "preview", "quiet",
         "interop", "stats", "workers", "fusion_process", "schedule", "resume",
         "keep_samples", "transparent", "bit_depth", "crf", "preset", "bitrate", "pix_fmt",
         "frames", "size", "granularity", "quality", "audio", "audio_offset", "passes")


def _parsed(parse: Any, value: object) -> object:
    """Text parsed as the command line's (``"640x360"``, ``"auto"``); a value of Python's
    own (``(640, 360)``, ``8``) as it is, for RenderConfig to check."""
    return parse(value) if isinstance(value, str) else value


def render_config(given: dict[str, Any], command: str = "render") -> RenderConfig:
    """Defaults, then hfrender.toml, then ``given`` (None: not given), validated once; a
    message names a setting as :func:`~hfrender.errors.spelling` says (flags, or the API's
    keywords)."""
    spell = spelling()
    g = {k: given.get(k) for k in GIVEN}
    values = project_settings()
    if isinstance(values.get("output"), str):  # (output = "~/renders/a.mp4": no shell here)
        values["output"] = home_path(values["output"])
    project = set(values)
    if g["quality"]:  # -ql, -qm, -qh (the command's alone)
        (values["size"], values["fps"]) = PRESETS[g["quality"]]
    flags = {**g, "fps": _parsed(parse_fps, g["fps"]),
             "samples": _parsed(parse_samples, g["samples"]),
             "samples_range": _parsed(parse_range, g["samples_range"]),
             "msaa": int(g["msaa"]) if isinstance(g["msaa"], str) and g["msaa"].isdigit()
             else g["msaa"],
             **{k: g[k] or None for k in ("jitter", "preview", "quiet", "stats", "resume",
                                          "transparent")},
             "frames": _parsed(parse_frames, g["frames"]) if command == "render" else None,
             "size": _parsed(parse_size, g["size"]),
             **{k: _parsed(lambda v, k=k: auto_or_int(k, v), g[k])
                for k in ("workers", "granularity")}}
    del flags["quality"]
    values.update({k: v for k, v in flags.items() if v is not None})
    values = fitted(values, {k for k in project if flags.get(k) is None},  # (what fits)
                    lambda c: check_encoder(c.output, c.codec, c.size, c.fps,
                                            encoding=Encoding.of(c)),
                    named=str(Path.cwd() / PROJECT_FILE))  # (a bad codec there: named so)
    config = RenderConfig(**values)
    _depth_only(g, config, spell)
    if config.audio is None and config.audio_offset != 0:  # (else: no sound, unsaid)
        raise about(ConfigError, "audio_offset", config.audio_offset, (  # (flag: as typed)
            f" places the sound of {spell.form('audio', 'FILE')}: give it too, or leave "
            f"{spell.name('audio_offset')} out"), head=spell.said("audio_offset",
                                                                 config.audio_offset))
    shutter_in_frames(config.shutter)  # the flag's or hfrender.toml's (a review)
    if g["samples_range"] is not None and config.samples != "auto":
        raise ConfigError(f"{spell.said('samples_range', g['samples_range'])} applies only "
                          f"with {spell.said('samples', 'auto')} (a count per frame from its "
                          f"motion); {spell.name('samples')} is {config.samples}: give "
                          f"{spell.said('samples', 'auto')}, or leave "
                          f"{spell.name('samples_range')} out")  # (was: ignored unsaid)
    return config


def _depth_only(given: dict, config: RenderConfig, spell: Spelling) -> None:
    """dof_method and max_coc_px shape the depth mode's gather alone: given with another
    mode they would do nothing, and that is said rather than ignored (the cap is also kept
    with keep_samples, for reexpose's refocusing)."""
    named = [spell.name(k) for k in ("dof_method", "max_coc_px") if given[k] is not None
             and not (k == "max_coc_px" and config.keep_samples)]
    if named and config.dof != "depth":
        one = len(named) == 1
        raise ConfigError(f"{' and '.join(named)} {'applies' if one else 'apply'} only with "
                          f"{spell.said('dof', 'depth')} (the depth of field from each "
                          f"sub-frame's depth); {spell.name('dof')} is {config.dof}: give "
                          f"{spell.said('dof', 'depth')}, or leave {'it' if one else 'them'} "
                          "out")


def shutter_in_frames(shutter: float) -> None:
    """A warning for a shutter of 2 degrees or less: Blender's shutter is in frames (0.5 is
    its default), hfrender's in degrees (was: 0.5 degrees drawn, the motion blur all but
    gone without a word)."""
    if 0 < shutter <= 2:
        spell = spelling()
        log.warning("%s is in degrees: a shutter open %.2g%% of the frame, all but no motion "
                    "blur; Blender's shutter of %g frames is %s", spell.said("shutter", shutter),
                    shutter / 3.6, shutter, spell.said("shutter", shutter * 360))


def check_render(scene_file: str, config: RenderConfig, store: bool = True) -> None:
    """What a render to ``config.output`` refuses before any work: the output's name (was:
    -o out.mp4/ wrote out.mp4), the scene file, the encoder, then (``store``) the sample
    store's folder (:func:`check_store`)."""
    check_output_name(config.output)
    check_scene_path(scene_file)
    check_encoder(config.output, config.codec, config.size, config.fps,
                  encoding=Encoding.of(config))
    if config.passes:  # (was: on Ray, by a worker once the cluster had started)
        from hfrender.engine.passes import check_passes

        check_passes(config)
    if config.audio is not None:  # its file and its sound (was: no --audio at all)
        from hfrender.engine.render_output import render_sound
        from hfrender.io.probe import sound_seconds

        start, length = render_sound(config).start, sound_seconds(str(config.audio))
        if length is not None and start >= length:  # (was: a video without sound, unsaid)
            log.warning("%s: the video starts %.2f s into it, past its end (%.2f s): "
                        "nothing of it is heard", spelling().said("audio", str(config.audio)),
                        start, length)
    if store:
        check_store(config)


def check_store(config: RenderConfig) -> None:
    """The sample store's folder (``keep_samples``): refused where it cannot be one, a store
    there said to be replaced (last: once nothing else refuses the render)."""
    if config.keep_samples:  # the output's own path: said so (not "another hfrender")
        from hfrender.io.store_target import check_target, warn_replacing

        check_target(config.keep_samples, config.output)
        warn_replacing(config.keep_samples)


@contextmanager
def outputs_held(config: RenderConfig) -> Iterator[None]:
    """One writer of the output, and of the sample store, at a time."""
    from hfrender.io.output_lock import output_lock

    with ExitStack() as held:
        for path, key in ((config.output, "output"), (config.keep_samples, "keep_samples")):
            if path:  # (named as the caller names it: -o, or hf.render's output=)
                held.enter_context(output_lock(path, key=key))
        yield


def still_frame(file: str, scene_name: str | None, config: RenderConfig, t: float | None,
                frame: int | None, duration_given: bool = False) -> tuple[int, float | None]:
    """The frame of ``frame`` or ``t`` (a finite time >= 0 whose frame) that exists in the
    duration the render would have (``duration``, or hfrender.toml's, else the scene's);
    else one line that says which frames there are. A shader given no duration, a pure
    function of time, has every frame: its duration is stretched to the frame's (the second
    value; else None) (was: ``-t 10`` "past the end; a shader's default duration 4 s", a
    trial). ``duration_given``: given with the frame (not hfrender.toml's)."""
    from hfrender.scene import ShaderScene
    from hfrender.scene.loader import load_scene

    t, fps, spell = (0.0 if t is None else t), config.fps, spelling()
    given = config.duration is not None
    scene = None if given else load_scene(file, scene_name)
    seconds = config.duration if scene is None else scene.duration
    n = config.frame_count(seconds)  # (first: a scene's duration that is no number, one line)
    any_time = isinstance(scene, ShaderScene)
    source = ((f"{spell.said('duration', seconds)}" if duration_given
               else f"the duration {seconds:g} s of hfrender.toml") if given
              else "a shader" if any_time else f"the scene's duration {seconds:g} s")
    if any_time:
        n = MAX_FRAMES
    longer = "" if duration_given or any_time else \
        f" ({spell.name('duration')} makes it longer)"
    at = (lambda key, v: f"-{key[0]} {v}") if spell.flags else (lambda key, v: f"{key}={v}")
    if frame is not None:
        whole = whole_number(frame)  # (-f x: not one)
        frame = int(frame) if whole else frame  # (np.int64 too)
        if whole and 0 <= frame < n:
            return frame, _stretched(frame, scene, fps)
        where = ("not a frame's number (a whole number >= 0)" if not whole else
                 "before the start (frames are >= 0)" if frame < 0 else "past the end")
        raise about(ConfigError, "frame", frame, (  # (a command's flag: as typed)
            f": {where}; {source} at {fps:g} fps has frames 0..{n - 1}"
            f"{longer if whole and frame >= n else ''}"), head=at("frame", frame))
    real = isinstance(t, numbers.Real) and not isinstance(t, bool)  # (-t x: the text)
    t = float(t) if real else t  # (np.float32 too)
    k = nearest_frame(t, fps) if real and math.isfinite(t) else None  # as frame_count rounds
    if k is None:
        problem = "not a time (give seconds, a finite number >= 0)"
    elif t < 0:
        problem = "before the start (times are >= 0 s)"
    elif k >= n:
        problem = f"frame {k}, past the end"
    else:
        return k, _stretched(k, scene, fps)
    more = longer if k is not None and k >= n else ""
    said = f"{t:g}" if real else t
    raise about(ConfigError, "time", t, (  # (a command's flag: as typed, --time '', -t 1e309)
        f": {problem}; {source} at {fps:g} fps has frames 0..{n - 1} ({at('t', 0)} to "
        f"{_seconds((n - 1) / fps)}){more}"), head=at("t", said))


def _stretched(k: int, scene: object, fps: float) -> float | None:
    """The duration that holds frame ``k`` of a shader given no duration, where its own
    (4 s) does not; else None (the duration as it is)."""
    from hfrender.scene import ShaderScene

    if not isinstance(scene, ShaderScene) or k < nearest_frame(scene.duration, fps):
        return None
    return (k + 1) / fps


def _seconds(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".")
