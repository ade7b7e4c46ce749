"""The README and the guides in docs/ link to files and headings that exist (the README was
split into guides: a link left pointing at a heading that moved opens the page's top)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s#]*)(?:#([^)\s]+))?\)")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings (lower case, punctuation out, spaces to -)."""
    heads = [line.lstrip("#").strip() for line in page.read_text().splitlines()
             if line.startswith("#") and not line.startswith("#!")]
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in heads}


def broken(page: Path) -> list[str]:
    """The links of ``page`` to a missing file or heading."""
    out = []
    for target, anchor in LINK.findall(page.read_text()):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path = page.parent / target if target else page
        if not path.exists():
            out.append(f"{target} (no such file)")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            out.append(f"{target}#{anchor} (no such heading)")
    return out


def test_the_guides_exist_and_the_readme_lists_them():
    readme = (ROOT / "README.md").read_text()
    guides = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert guides == ["batch.md", "effects.md", "footage.md", "gpu.md", "performance.md",
                      "rendering.md"]
    assert all(f"](docs/{g})" in readme for g in guides)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_of_the_docs_leads_somewhere(page):
    assert broken(page) == []


def test_a_broken_link_is_found(tmp_path):
    (tmp_path / "a.md").write_text("# One\n\n## Two: `x`\n")
    page = tmp_path / "b.md"
    page.write_text("[ok](a.md#two-x) [top](a.md) [gone](c.md) [moved](a.md#three) "
                    "[here](#b) [web](https://example.com/x)\n\n# B\n")
    assert broken(page) == ["c.md (no such file)", "a.md#three (no such heading)"]


def test_every_module_path_the_text_names_is_there():
    """A path such as ``hfrender/renderer/models.py`` in a guide, a benchmark's notes, a
    shader's or a module's comment names a file that exists (was, after the renderer's
    package was renamed: ``hfrender/render/instances.py`` in mesh.vert and RESULTS.md)."""
    texts = [*PAGES, *(ROOT / "benchmarks").glob("*.*"), *(ROOT / "shaders").rglob("*.*"),
             *(ROOT / "hfrender").rglob("*.py")]
    named = {m for p in texts if p.suffix in (".md", ".py", ".vert", ".frag", ".glsl", ".cu",
                                              ".cuh", ".h")
             for m in re.findall(r"\bhfrender/[\w/]+\.py\b", p.read_text(errors="replace"))}
    assert len(named) > 20  # (the pattern finds them)
    assert sorted(m for m in named if not (ROOT / m).is_file()) == []
