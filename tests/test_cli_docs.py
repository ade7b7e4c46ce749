"""``hfrender docs``: the guides read in the terminal, as an installed wheel (no clone to
open ``docs/`` in) has them; every guide a message of hfrender's cites is there."""

import ast
import re
from pathlib import Path

import pytest

from hfrender.cli import main
from hfrender.cli.docs import find, sections

ROOT = Path(__file__).resolve().parents[1]
CITED = re.compile(r"hfrender docs (\w+) ([\w ]+?)(?=[)\];,.]|$)")  # "(... rendering groups)"


def _guide(name: str) -> list[str]:
    return (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8").splitlines()


def test_the_list_names_every_guide_by_its_title_and_its_sections(capsys):
    assert main(["docs"]) == 0
    out = capsys.readouterr().out.splitlines()
    for path in sorted((ROOT / "docs").glob("*.md")):
        title = path.read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
        assert f"{path.stem}: {title}" in out
    at = out.index("rendering: Rendering a scene")
    assert "    Easing and keyframes" in out[at:]  # a ## heading, under its guide
    assert "      Groups" in out[at:]  # a bullet that names its subject, one step in


def test_a_heading_runs_to_the_next_heading_as_high(capsys):
    assert main(["docs", "rendering", "easing"]) == 0  # the start of a title is enough
    out = capsys.readouterr().out.splitlines()
    lines = _guide("rendering")
    first = lines.index("## Easing and keyframes")
    last = next(i for i in range(first + 1, len(lines)) if lines[i].startswith("## "))
    assert out == lines[first:last][:len(out)] and len(out) >= last - first - 3  # (blanks)
    assert any(x.startswith("- **Rate functions**") for x in out)  # its bullets too
    assert not any(x.startswith("## 3D") for x in out)


def test_a_bullet_runs_to_the_next_line_at_the_margin(capsys):
    assert main(["docs", "RENDERING.md", "Groups"]) == 0  # any case, .md or not
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("- **Groups**: an object's `parent`")
    assert "  def setup(self):" in out  # its code block, indented under it
    assert all(line[:1] in ("", " ") for line in out[1:])


def test_a_heading_inside_a_code_block_is_not_a_section():
    lines = ["# T", "## Real", "```python", "## not a heading", "```", "- **Lead**: x", "  y",
             "", "after"]
    got = [(s.title, s.level, s.start, s.end) for s in sections(lines)]
    assert got == [("Real", 2, 1, 9), ("Lead", 3, 5, 8)]
    assert find(sections(lines), "lea").title == "Lead"
    assert find(sections(lines), "eal").title == "Real"  # inside a title, last
    assert find(sections(lines), "not") is None


@pytest.mark.parametrize("argv, said", [
    (["docs", "render"], "no guide 'render': hfrender's are batch, effects, footage, gpu, "
                         "performance, rendering (did you mean rendering?)"),
    (["docs", "rendering", "grups"], "rendering has no section 'grups' (did you mean "
                                     "'Groups'?); hfrender docs lists each guide's sections"),
])
def test_a_guide_or_section_not_there_is_one_line(argv, said, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"hfrender: error: {said}"]


def _messages() -> list[tuple[Path, str]]:
    """Every string constant in hfrender's code that is not a docstring."""
    found = []
    for py in (ROOT / "hfrender").rglob("*.py"):
        tree = ast.parse(py.read_bytes())
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                  ast.AsyncFunctionDef))
                and n.body and isinstance(n.body[0], ast.Expr)
                and isinstance(n.body[0].value, ast.Constant)}
        found += [(py, n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant)
                  and isinstance(n.value, str) and id(n) not in docs]
    return found


def test_every_section_hfrenders_messages_cite_is_found():
    cited = {c for _, text in _messages() for c in CITED.findall(text)}
    assert ("rendering", "groups") in cited
    for guide, words in sorted(cited):
        assert find(sections(_guide(guide)), words) is not None, (guide, words)


def test_no_message_cites_a_docs_file_a_wheel_has_not():
    """A wheel has the guides under hfrender/_docs, not docs/: a message points at them
    through ``hfrender docs`` (was: "docs/rendering.md, Groups")."""
    assert [(py.name, text) for py, text in _messages() if "docs/" in text] == []


def test_on_a_terminal_a_guide_goes_through_a_pager(monkeypatch, capsys):
    import pydoc
    import sys

    paged = []
    monkeypatch.setattr(pydoc, "pager", paged.append)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["docs", "rendering", "groups"]) == 0
    assert len(paged) == 1 and paged[0].startswith("- **Groups**")
    assert capsys.readouterr().out == ""


def _options(command: str) -> dict:
    """``hfrender COMMAND``'s options by each of their flags (the top level's: "")."""
    from hfrender.cli import build_parser

    parser = build_parser()
    if command:
        parser = parser._subparsers._group_actions[0].choices[command]
    return {flag: action for action in parser._actions for flag in action.option_strings}


def _fx_settings(*given: str):
    """fx's settings of a run given only what it needs (default: depth of field)."""
    from hfrender.cli import build_parser
    from hfrender.cli.fx import _settings

    given = given or ("--depth", "z.npy", "--focus-distance", "2", "--f-stop", "2")
    args = build_parser().parse_args(["fx", "in.mp4", "-o", "out.mp4", *given])
    args.words = []
    return _settings(args)


def _config():
    from hfrender.config import RenderConfig

    return RenderConfig()


def _codec(name: str, flag: str) -> str:
    from hfrender.io.ffmpeg import codec_params

    pix_fmt, params = codec_params(name, None)
    return pix_fmt if flag == "pix_fmt" else params[params.index(flag) + 1]


def _sequence_fps(tmp_path: Path) -> float:
    import imageio.v3 as iio
    import numpy as np

    from hfrender.io.footage import open_footage

    for k in range(2):
        iio.imwrite(tmp_path / f"{k:04d}.png", np.full((4, 6, 3), 40 * k, np.uint8))
    return open_footage(str(tmp_path / "%04d.png")).fps


@pytest.mark.parametrize("command, flag, said, actual", [
    ("render", "--output", "(default {})", lambda _: _config().output),
    ("render", "--fps", "({:g};", lambda _: _config().fps),
    ("render", "--size", "({}x{})", lambda _: _config().size),
    ("render", "--samples", "({})", lambda _: _config().samples),
    ("render", "--samples-range", "({}:{})", lambda _: _config().samples_range),
    ("render", "--shutter", "({:g})", lambda _: _config().shutter),
    ("render", "--shutter-position", "({})", lambda _: _config().shutter_position),
    ("render", "--shutter-curve", "({})", lambda _: _config().shutter_curve),
    ("render", "--audio-offset", "({:g};", lambda _: _config().audio_offset),
    ("render", "--gl", "({};", lambda _: __import__(
        "hfrender.renderer.contexts", fromlist=["x"]).resolve_name()),
    ("render", "--crf", "libx264/libx265 0-51, default {}", lambda _: _codec("libx264", "-crf")),
    ("render", "--crf", "libvpx-vp9 0-63, default {}", lambda _: _codec("libvpx-vp9", "-crf")),
    ("render", "--preset", "(libx264/libx265: {})", lambda _: _codec("libx264", "-preset")),
    ("render", "--pix-fmt", "(default {})", lambda _: _codec("libx264", "pix_fmt")),
    ("still", "--output", "({})", lambda _: _options("still")["-o"].default),
    ("bench", "--frames", "({})", lambda _: _options("bench")["--frames"].default),
    ("bench", "--outputs", "({})", lambda _: _options("bench")["--outputs"].default),
    ("bench", "--grid-workers", "({})", lambda _: _options("bench")["--grid-workers"].default),
    ("bench", "--repeats", "({};", lambda _: _options("bench")["--repeats"].default),
    ("fx", "--stride", "(default {}:", lambda _: _fx_settings().stride),
    ("fx", "--weights", "({})", lambda _: _fx_settings().weights),
    ("fx", "--shutter", "({:g})", lambda _: _fx_settings("--vectors", "v.exr").shutter),
    ("fx", "--depth-scale", "({:g};", lambda _: _fx_settings().depth_scale),
    ("fx", "--focal-length-mm", "({:g})", lambda _: _fx_settings().lens.focal_length_mm),
    ("fx", "--sensor-width-mm", "({:g})", lambda _: _fx_settings().lens.sensor_width_mm),
    ("fx", "--aperture-blades", "{} round (default)",
     lambda _: _fx_settings().lens.aperture_blades),
    ("fx", "--depth-kind", "{} (default:", lambda _: _fx_settings().depth_kind),
    ("fx", "--dof-method", "{}: depth layers", lambda _: _fx_settings().dof_method),
    ("fx", "--fps", "image sequence ({:g};", _sequence_fps),
    ("reexpose", "--dof-method", "({})", lambda _: _options("reexpose")["--dof-method"].default),
])
def test_a_default_the_help_states_is_the_one_used(command, flag, said, actual, tmp_path,
                                                    monkeypatch):
    """What ``hfrender COMMAND --help`` says an option is when it is not given is what the
    command uses (read from the settings the command makes, not from the help)."""
    monkeypatch.delenv("HFRENDER_GL", raising=False)
    value = actual(tmp_path)
    text = " ".join((_options(command)[flag].help or "").split())
    assert said.format(*(value if isinstance(value, tuple) else [value])) in text, text


def test_every_option_of_every_command_says_what_it_does():
    """Each option of each command has its line in --help (were bare: fx's --weights and
    -q, reexpose's --dof-method and -q)."""
    commands = ["", "info", "render", "still", "bench", "fx", "batch", "reexpose", "docs"]
    bare = [f"{c} {f}".strip() for c in commands for f, action in _options(c).items()
            if f.startswith("--") and not re.sub(r"\(.*?\)", "", action.help or "").strip()]
    assert bare == []
    # the top level's -v is the command's (was: "an error's traceback too" left out there)
    assert _options("")["-v"].help == _options("render")["-v"].help


def test_the_largest_shutter_the_help_states_is_the_one_taken():
    """render --help says how far --shutter goes (was: "above 360 windows overlap", the
    bound found only by trying; fx's --shutter stops at 720, render's does not)."""
    from hfrender.config import ConfigError, RenderConfig

    top = re.search(r"up to (\d+)", _options("render")["--shutter"].help)
    assert top is not None and RenderConfig(shutter=float(top.group(1))).shutter == 5760
    with pytest.raises(ConfigError, match="shutter=5761"):
        RenderConfig(shutter=5761.0)


@pytest.mark.parametrize("command", ["render", "still"])
def test_the_help_says_hfrender_toml_changes_its_defaults(command, capsys):
    """render and still --help stated defaults (out.mp4, 30 fps, 640x360) that an
    hfrender.toml in the current folder changes, unsaid there (docs/rendering.md said it)."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert text.endswith("The defaults stated above are hfrender's own: an hfrender.toml in "
                         "the current folder changes them (its [render] table, keys the long "
                         "options' names: fps = 24), and a flag given here overrides it."), \
        text[-300:]
    assert "defaults can live in `hfrender.toml` (`[render]` table) in the current" in \
        " ".join(_guide("rendering"))
