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
