"""What a stopped or failed render leaves, and how to go on: the lines the command and
``hf.render`` say alike (``the 11 frames finished so far are in ...``, ``; continue from
frame 48 ...``), in the caller's spelling (:func:`hfrender.errors.spelling`)."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hfrender.config import RenderConfig
from hfrender.errors import HFRenderError, first_line, pastable, spelling, system_refused
from hfrender.frame_range import n_frames
from hfrender.io.sequence_names import is_sequence, typed_output
from hfrender.io.store import partial_dir
from hfrender.scene.loader import SceneUpdateError, stopped_place
from hfrender.sizes import bytes_said


def failed_line(config: RenderConfig, stats: Any, exc: BaseException) -> BaseException | None:
    """A failed render's error (hfrender's own, or what the system says of a file) as one
    line that says what became of the frames made (``; the 11 frames finished so far are in
    ...``), for the command and for ``hf.render``; None where it has nothing to add."""
    if isinstance(exc, OSError):
        exc = system_refused(exc) or exc
        if not isinstance(exc, HFRenderError):
            return None
    refused = _folder_refused(config, stats, exc)
    if refused:
        return type(exc)(refused)
    unfinished = _unfinished_store(config)  # (unless the store's error names it)
    said = ((f"; {_kept(config, stats)}" if stats.partial else "")
            + ("" if spelling().on("resume") in str(exc)
               else _after_scene_error(config) if isinstance(exc, SceneUpdateError)
               else _kept_for_resume(config.output, bool(config.keep_samples)))
            + _lost(config.output, stats.lost_bytes, exc)
            + ("" if f"{config.keep_samples}.partial" in str(exc) else unfinished))
    return type(exc)(f"{first_line(exc)}{said}") if said else None


def _folder_refused(config: RenderConfig, stats: Any, exc: BaseException) -> str:
    """``-o a.mp4: cannot write in /tmp/ro: permission denied (made so after the run began:
    nothing was written); make the folder writable, or give -o another folder, then run
    the same command again`` where ``exc`` is the system's refusal as the run's work first
    reached the output's folder, which takes no file now (was: "cannot write
    .../.a.mp4.hfrender: Permission denied", a hidden name, a trial), else ``""``."""
    from hfrender.io.outputs import cannot_make, temporary

    if stats.partial or stats.lost_bytes or not _refusal(exc) or _kept_for_resume(
            config.output):
        return ""
    refused = cannot_make(Path(temporary(config.output)).parent)
    if refused is None:
        return ""
    said = spelling()
    again = "run the same command again" if said.flags else "make the same call again"
    return (f"{said.said('output', typed_output(config.output))}: cannot write in {refused} "
            "(made so after the run began: nothing was written); make the folder writable, "
            f"or give {said.name('output')} another folder, then {again}")


def _refusal(exc: BaseException | None) -> bool:
    """Whether ``exc``, or what caused it, is the system's refusal of a new file (no
    permission, a read-only file system), an ffmpeg's line saying so too."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) \
                or any(s in str(exc) for s in ("Permission denied", "Read-only file system")):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _lost(output: str, lost: int | None, exc: BaseException) -> str:
    """``; nothing is kept (a GIF is written in one piece: the next run starts over)`` where
    the failed writer of a one-piece ``output`` held ``lost`` bytes, not kept; on a full
    disk with ``, and it needs more than the 307 KB that fit in FOLDER`` (was: ffmpeg's
    "No space left on device" alone, a trial), else ``""``."""
    if lost is None:
        return ""
    suffix = Path(output).suffix.lower()
    kind = "a GIF" if suffix == ".gif" else f"a {suffix} video"
    room = (f", and it needs more than the {bytes_said(lost)} that fit in "
            f"{Path(output).absolute().parent}" if lost and "No space left on device"
            in str(exc) else "")
    return f"; nothing is kept ({kind} is written in one piece: the next run starts over){room}"


def interrupted_line(config: RenderConfig, stats: Any,
                     command: Callable[[int], str] | None = None,
                     exc: BaseException | None = None) -> str:
    """What Ctrl-C or SIGTERM left behind, and how to go on: the command's (``command``:
    its line to go on from frame N) or, with none, hf.render's (its keywords: ``the same
    call with resume=True``); where the interruption ``exc`` stopped the scene's own code,
    where that was (``interrupted in loop.py:9, update(t=1.967): ...``, was unsaid: a scene
    hanging at some t, a trial)."""
    line = _left_behind(config, stats, command)
    return placed(line, exc) if exc is not None else line


def placed(line: str, exc: BaseException, job: str | None = None) -> str:
    """``line`` (``interrupted: ...``) with where the Ctrl-C ``exc`` stopped the scene's own
    code, if it did: ``interrupted in loop.py:9, update(t=1.967): ...``, a batch's ``in job
    'loop' at loop.py:9, ...`` (``job``: the job whose scene it was)."""
    place = stopped_place(exc)
    where = f"job {job!r} at {place}" if job is not None else place
    return line.replace("interrupted", f"interrupted in {where}", 1) if place else line


def _left_behind(config: RenderConfig, stats: Any,
                 command: Callable[[int], str] | None) -> str:
    """:func:`interrupted_line`'s line, the scene's place left out."""
    from hfrender.io.segments import frames_in_segments

    kept = 0 if stats.partial or is_sequence(config.output) else frames_in_segments(config.output)
    if kept:  # a video's whole segments, but no partial one: a second Ctrl-C stopped its join
        return (f"interrupted: {n_frames(kept)} in whole segments {'is' if kept == 1 else 'are'}"
                f" kept for {spelling().on('resume')} (no partial video was joined)"
                f"{go_on(config, command)}")
    if not stats.partial:
        hidden = _hidden_frames(config.output) if is_sequence(config.output) else ""
        if hidden:  # its folder made read-only under the run: they stay where written
            return f"interrupted: {hidden[2:]}{go_on(config, command)}"
        unfinished, made = _unfinished_store(config), stats.frames_written
        if made:  # made, and not kept: their join was stopped
            return (f"interrupted: the {n_frames(made)} made {'is' if made == 1 else 'are'} "
                    "not kept (no whole segment was finished, and the partial video's join "
                    f"was stopped){unfinished}")
        return "interrupted before the first frame: " + (
            f"no frame was written{unfinished}" if unfinished else "nothing was written")
    return f"interrupted: {_kept(config, stats)}{_whole(config, stats)}{go_on(config, command)}"


def _whole(config: RenderConfig, stats: Any) -> str:
    """``; 160 of them in whole segments`` where a video's partial file holds frames of a
    segment not finished, which a resume makes again (was: "the 176 frames finished ...;
    continue from frame 160" unexplained, a trial), else ``""``."""
    from hfrender.io.resume import frames_kept, interrupted
    from hfrender.io.segments import resumable

    if is_sequence(config.output) or not resumable(config.output) or not interrupted(
            config.output):
        return ""
    whole = frames_kept(config.output)
    return f"; {whole} of them in whole segments" if 0 < whole < stats.frames_in_output else ""


def _kept(config: RenderConfig, stats: Any) -> str:
    return kept_apart(stats.frames_in_output, stats.partial, config.output)


def _unfinished_store(config: RenderConfig) -> str:
    """``; the unfinished sample store STORE.partial can go (...)`` where a stopped or failed
    render with --keep-samples left one (a store holds a whole render: none to go on from),
    else ``""``."""
    kept = config.keep_samples and partial_dir(Path(config.keep_samples))
    return (f"; the unfinished sample store {pastable(kept)} can go (a store holds a whole "
            "render)" if kept and kept.exists() else "")


def go_on(config: RenderConfig, command: Callable[[int], str] | None) -> str:
    """``; continue from frame N with: hfrender render ... --resume`` (``command(N)``; none:
    hf.render's, ``with the same call and resume=True``), or why there is nothing to go on
    from."""
    from hfrender.frame_range import start_of
    from hfrender.io.resume import frames_kept, interrupted
    from hfrender.io.segments import resumable

    sequence, resume = is_sequence(config.output), spelling().on("resume")
    unfinished = _unfinished_store(config)
    if not (resumable(config.output) or sequence):
        return unfinished  # a GIF is made whole each time: its frames are in the partial one
    if not interrupted(config.output):
        return ("" if sequence else "; no whole segment (about a second of video) was "
                f"finished, so {resume} has nothing to go on from") + unfinished
    first = start_of(config.frames) + frames_kept(config.output)  # (whole segments only)
    if command is None:  # (a store holds a whole render: resume=True refuses one)
        left = without_store(config.keep_samples) if config.keep_samples else ""
        return f"; continue from frame {first} with the same call and {resume}{left}"
    return command(first)


def without_store(store: str) -> str:
    """`` (without --keep-samples: a sample store holds a whole render; the unfinished
    STORE.partial can go)``, after the way to go on from a render kept with the sample
    store ``store`` (--resume refuses one: it holds a whole render), in the caller's
    spelling: the command's and hf.render's (were two copies)."""
    return (f" (without {spelling().name('keep_samples')}: a sample store holds a whole "
            f"render; the unfinished {pastable(partial_dir(Path(store)))} can go)")


def kept_apart(frames: int, partial: str, output: str, of: str = "") -> str:
    """What an interrupted or failed run kept: ``the 56 frames finished so far are in
    PARTIAL (OUTPUT is untouched)``, or ``(OUTPUT is not written)`` where there was none
    (a sequence's pattern names frames that may be there: untouched); PARTIAL as a shell
    takes it (:func:`hfrender.errors.pastable`: ``'out/####.png.partial/%04d.png'``).
    Where an earlier run's partial output held more frames, it stayed: ``the 41 frames
    finished so far are not kept: PARTIAL holds more, an earlier run's 49, and stays``
    (a video's: ``not joined into a partial video``, its whole segments kept). ``of``:
    whose, after the count (a batch's `` of job 'g'``)."""
    from hfrender.io.outputs import outweighs
    from hfrender.io.segments import resumable

    if not os.path.isabs(output):  # as the output was given: beside it, relative too
        partial = os.path.relpath(partial)
    fate = "is untouched" if is_sequence(output) or os.path.exists(output) else "is not written"
    if Path(partial).name.startswith("."):  # left where it was written (:func:`keep_partial`)
        fate += "; the next run of it writes there: move it elsewhere to keep it"
    are = "is" if frames == 1 else "are"
    held = outweighs(output, frames)
    if held is not None:
        how = "not joined into a partial video" if resumable(output) else "not kept"
        return (f"the {n_frames(frames)}{of} finished so far {are} {how}: {pastable(partial)} "
                f"holds more, an earlier run's {held}, and stays ({output} {fate})")
    return (f"the {n_frames(frames)}{of} finished so far {are} in {pastable(partial)} "
            f"({output} {fate})")


def _kept_for_resume(output: str, keeping: bool = False) -> str:
    """``; the 64 frames in whole segments are kept: ...`` where a failed run of a video
    ``output`` kept segments for ``--resume`` (was: a full disk's error said nothing of
    them), ``; the 6 finished frames are kept in '.../.f_####.png.partial': ...`` where a
    sequence's stay in its hidden folder (one made read-only under the run: were said
    nothing of, a trial), else ``""``; a render ``keeping`` a sample store is told to go on
    without it (--resume refuses a store: was told with it)."""
    from hfrender.io.resume import frames_kept
    from hfrender.io.segments import resumable

    said = spelling()  # (hf.render's: "the same call with resume=True")
    resume, same = said.on("resume"), "the same command" if said.flags else "the same call"
    goes_on = (f": {same} without {said.name('keep_samples')} and with {resume} goes on from"
               " them" if keeping else
               f": once that is mended, {same} with {resume} goes on from them")
    if is_sequence(output):  # (in its partial folder: said by the partial output's line)
        hidden = _hidden_frames(output)
        return f"{hidden}{goes_on}" if hidden else ""
    kept = frames_kept(output) if resumable(output) else 0
    return (f"; the {n_frames(kept)} in whole segments {'is' if kept == 1 else 'are'} kept"
            f"{goes_on}" if kept else "")


def _hidden_frames(output: str) -> str:
    """``; the 6 finished frames are kept in '.../.f_####.png.partial'`` where a sequence's
    finished frames stay in its hidden folder, else ``""``."""
    from hfrender.io.resume import frames_kept, kept_work

    folder = kept_work(output)
    kept = frames_kept(output) if folder is not None and folder.name[0] == "." else 0
    return (f"; the {kept} finished frame{'s are' if kept != 1 else ' is'} kept in "
            f"{pastable(folder)}" if kept else "")


def _after_scene_error(config: RenderConfig) -> str:
    """What to do after the scene's own error, where work is kept to go on from: ``; mend
    the scene, then run the same command again: it starts over (--resume goes on from frame
    30 only while the scene's files are unchanged)`` (mending the scene changes it, and
    --resume refuses a changed scene, and a sample store: without it; was: the segments
    "kept for --resume" and then "render again without --resume" in one line, read as
    contradictory; a sequence's said nothing of what next), else ``""``."""
    from hfrender.frame_range import start_of
    from hfrender.io.resume import frames_kept
    from hfrender.io.segments import resumable

    output = config.output
    kept = frames_kept(output) if is_sequence(output) or resumable(output) else 0
    if not kept:
        return ""
    said = spelling()
    again = "run the same command again" if said.flags else "make the same call again"
    hidden = _hidden_frames(output) if is_sequence(output) else ""
    store = f" without {said.name('keep_samples')}" if config.keep_samples else ""
    return (f"{hidden}; mend the scene, then {again}: it starts over ({said.on('resume')}"
            f"{store} goes on from frame {start_of(config.frames) + kept} only while the "
            "scene's files are unchanged)")
