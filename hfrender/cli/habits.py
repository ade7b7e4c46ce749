"""Other tools' command-line habits, as their users type them into hfrender: ffmpeg's
flags (``-r 24``, ``-c:v``) and manim's (``-p``, ``--format gif``, ``-n``, a scene class
named after the file), each answered with hfrender's own way (was: "unrecognized
arguments" alone, or ``--fps`` for manim's ``-r 320,180``)."""

from __future__ import annotations

import re

# ffmpeg's own flags (-vcodec: argparse reads -v there)
FFMPEG_FLAGS = {"-r": "fps", "-t": "duration", "-c:v": "codec", "-pix_fmt": "pix-fmt",
                "-b:v": "bitrate", "-preset": "preset"}
# manim's, on a scene's command: what hfrender does instead
MANIM_FLAGS = {
    "-p": "--preview shows the frames as they are drawn (manim's -p opens the file after)",
    "--format": "the output's name chooses its format: -o out.gif (.mp4, .webm, .mov, "
                "frames/%05d.png)",
    "-n": "--frames START:END renders output frames START..END-1",
    "-a": "one scene a render: -s NAME, once for each",
    "--save_last_frame": "a frame alone is hfrender still FILE -f N",
    "-t": "a transparent background is --transparent",
}
# manim's quality flags past hfrender's presets (-ql, -qm, -qh), and -p joined to them (-pql)
MANIM_QUALITY = {"p": "--size 2560x1440 --fps 60", "k": "--size 3840x2160 --fps 60"}
QUALITY = re.compile(r"-(p?)q([lmhpk])(p?)")
IGNORED = re.compile(r"argument -q/--quiet: ignored explicit argument '(\w+)'")
NEEDS = {"-p": "preview", "-n": "frames", "-t": "transparent", "--format": "output"}  # the
# option a hint names, where the command has it (still has no --frames, bench no -o)
SIZE_FLAGS = ("--width", "--height", "--resolution", "--res")  # other tools' picture size
SCRIPT = re.compile(r".+\.(py|frag|glsl|fs)$")


def _manim(word: str, after: str, scene: bool) -> bool:
    """Whether ``word`` (followed by ``after``) is manim's flag rather than ffmpeg's:
    ``-r W,H``, or ``-t`` with no value."""
    return scene and (word == "-r" and re.fullmatch(r"\d+,\d+", after) is not None or
                      word == "-t" and after[:1] in ("", "-"))


STORE_FIXED = ("--frames", "--fps", "--size", "--duration", "--samples", "--start")  # reexpose


def ffmpeg_options(words: list[str], known: list[str], command: str) -> list[str]:
    """hfrender's options for the ffmpeg flags among ``words``, where ``command`` has them."""
    scene = command in ("render", "still", "bench")
    return [f"--{FFMPEG_FLAGS[w]}" for i, w in enumerate(words)
            if FFMPEG_FLAGS.get(w) in known and not _manim(w, "".join(words[i + 1 : i + 2]),
                                                           scene)]


def habit_hints(message: str, words: list[str], known: list[str], command: str,
                argv: list[str] | None = None) -> list[str]:
    """Hints for manim's habits among ``words`` (the unrecognized ones of ``command``,
    whose long options are ``known``) or in argparse's ``message`` itself; for fx's,
    ffmpeg's (:func:`fx_hints`; ``argv``: the command's own words)."""
    scene = command in ("render", "still", "bench")
    hints = fx_hints(message, words, argv or []) if command == "fx" else []
    for i, word in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else ""
        if word == "-r" and _manim(word, after, scene) and "size" in known:
            hints.append(f"manim's -r W,H is --size {after.replace(',', 'x')}")
        elif word in MANIM_FLAGS and scene and (word != "-t" or _manim(word, after, scene)) \
                and NEEDS.get(word, "output") in known:
            hints.append(MANIM_FLAGS[word])
    hints += _quality_hints(message, words, known, scene)
    fixed = [w for w in words if w.partition("=")[0] in STORE_FIXED]
    if command == "reexpose" and fixed:  # (was: "unrecognized arguments" alone, a trial)
        hints.append(f"{fixed[0].partition('=')[0]} is the render's: a re-exposure keeps the "
                     "store's frames, frame rate, size and sub-frames (render again with "
                     "--keep-samples to change them; cut a part of the output with ffmpeg)")
    size = _size_hint(words)
    if scene and size and "size" in known:
        hints.append(size)
    extra = [w for w in words if not w.startswith("-")]
    if scene and extra and words[0] == extra[0] and extra[0].isidentifier():
        hints.append(f"the scene class is chosen with -s {extra[0]}")
    if command == "" and (m := re.search(r"invalid choice: '([^']+)'", message)) and \
            SCRIPT.match(m.group(1)):
        hints.append(f"did you mean hfrender render {m.group(1)}?")
    if scene and message.startswith("argument -s/--scene: expected one argument"):
        hints.append("-s names the scene class (manim's -s, the last frame, is hfrender "
                     "still FILE -f N)")
    return hints


def _quality_hints(message: str, words: list[str], known: list[str], scene: bool) -> list[str]:
    """manim's quality flags among ``words``, or taken as ``-q`` with a value in argparse's
    ``message`` (``-qk``, ``-qlp``): hfrender's own (was: "unrecognized arguments: -pql"
    alone, and "argument -q/--quiet: ignored explicit argument 'k'" for -qk; a trial)."""
    m = IGNORED.match(message)
    flags = [*words, *([f"-q{m.group(1)}"] if m else [])]
    hints = []
    for flag in flags:
        q = QUALITY.fullmatch(flag)
        if not (scene and q and "size" in known) or q.group(1) and q.group(3):
            continue
        ours = MANIM_QUALITY.get(q.group(2), f"-q{q.group(2)}")
        hints.append(f"manim's {flag} is {ours} here" + (
            f"; {MANIM_FLAGS['-p']}" if (q.group(1) or q.group(3)) and "preview" in known
            else ""))
    return hints


def _size_hint(words: list[str]) -> str:
    """The picture's size as ``--size WxH``, for other tools' ``--width W --height H`` (or
    ``--resolution``) among ``words``; "" where none is there (was: "did you mean --size,
    --size?")."""
    given = {}
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name in SIZE_FLAGS:
            given[name] = value if eq else "".join(words[i + 1 : i + 2])
    if not given:
        return ""
    w, h = given.get("--width", "W"), given.get("--height", "H")
    size = re.sub(r"[,:]", "x", given.get("--resolution", given.get("--res", f"{w}x{h}")))
    return f"the picture's size is --size WxH: --size {size}"


def fx_hints(message: str, words: list[str], argv: list[str]) -> list[str]:
    """ffmpeg's (and render's) habits on fx, in its unrecognized ``words``, argparse's
    ``message`` or the command's words ``argv``: a filter (``-vf tmix=frames=4``), ``-i``,
    ``-y``, a shutter, a part of the clip (was: "unrecognized arguments" alone, and "argument
    -v/--verbose: ignored explicit argument 'f'" for -vf; a tmix user's trial)."""
    hints = []
    for i, word in enumerate(argv[:-1]):
        if word in ("-vf", "-filter:v", "-filter_complex"):
            hints.append(_filter_hint(word, argv[i + 1]))
    if "-i" in words:
        hints.append("the input is named alone, without -i: hfrender fx INPUT -o OUTPUT")
    if "-y" in words:
        hints.append("an existing output is replaced, once the new one is whole: no -y is "
                     "needed")
    names = {w.partition("=")[0] for w in words}
    if names & {"--shutter", "--shutter-angle"}:
        hints.append("fx's shutter is --motion-blur N --stride S, 360*N/S degrees "
                     "(--motion-blur 4 --stride 8: 180)")
    part = _part_hint(words)
    if part:
        hints.append(part)
    given = [w for i, w in enumerate(argv)  # (not an option's value, as far as it shows)
             if not w.startswith("-") and (i == 0 or not argv[i - 1].startswith("-"))]
    if "-o/--output" in message and "-o" not in argv and len(given) == 2:
        hints.append(f"the output is named with -o: -o {given[1]}")
    return hints


def _filter_hint(flag: str, graph: str) -> str:
    """What an ffmpeg filter graph given to fx is there: tmix's window, or no filters."""
    m = re.match(r"tmix=(?:frames=)?(\d+)", graph)
    if m is None:
        return "fx takes no ffmpeg filters: filter the footage with ffmpeg first, or after"
    return (f"ffmpeg's {flag} {graph} is --motion-blur {m.group(1)} --gamma-space (tmix "
            "blends code values; fx, without --gamma-space, linear light)")


def _part_hint(words: list[str]) -> str:
    """fx takes a whole clip: ``--frames A:B`` or ffmpeg's ``-ss``/``-t``/``-to`` among the
    unrecognized ``words`` are answered with the ffmpeg command that cuts that part."""
    frames = [w for i, w in enumerate(words) if words[i - 1:i] in (["--frames"], ["--frame"])]
    frames += [w.partition("=")[2] for w in words if w.startswith(("--frames=", "--frame="))]
    if frames and ":" in frames[0]:  # (--frames 10 alone: ffmpeg's count, render's error)
        a, _, b = frames[0].partition(":")
        trim = ":".join(x for x in (a and f"start_frame={a}", b and f"end_frame={b}") if x)
        return ("fx takes the whole clip: cut the part first (ffmpeg -i IN -vf "
                f"trim={trim or 'start_frame=0'} -c:v ffv1 part.mkv)")
    times = [f"{w} {words[i + 1]}" for i, w in enumerate(words[:-1])
             if w in ("-ss", "-t", "-to")]
    if times:
        return (f"fx takes the whole clip: cut the part first (ffmpeg {' '.join(times)} -i IN "
                "-c:v ffv1 part.mkv)")
    return ""


