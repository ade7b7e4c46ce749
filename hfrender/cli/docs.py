"""``hfrender docs``: the guides that ship with hfrender, read in the terminal (an installed
wheel has no clone whose ``docs/`` a message could point at): the list of guides with their
sections, a whole guide, or one section of it (``hfrender docs rendering groups``)."""

from __future__ import annotations

import argparse
import pydoc
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from hfrender.errors import InputError, nearest
from hfrender.resources import docs_dir

HEADING = re.compile(r"^(#{2,3}) +(.+?) *$")
LEAD = re.compile(r"^- \*\*(.+?)\*\*")  # a bullet that names its subject: "- **Groups**: ..."


@dataclass(frozen=True)
class Section:
    title: str
    level: int  # a heading's (2, 3); a bullet's: one more than the heading it is under
    start: int  # its first line
    end: int  # past its last line


def add_parser(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser("docs", help="read hfrender's guides here (hfrender docs rendering "
                       "groups)", description="With no GUIDE: the guides and their sections. "
                       "With one: the guide, or only its section whose title has WORDS "
                       "(its start is enough: hfrender docs rendering easing).")
    d.add_argument("guide", nargs="?", metavar="GUIDE", help="rendering, effects, footage, ...")
    d.add_argument("title", nargs="*", metavar="WORDS", help="a section's title, or its start")
    d.set_defaults(func=cmd_docs)


def cmd_docs(args: argparse.Namespace) -> int:
    guides = {p.stem: p for p in sorted(docs_dir().glob("*.md"))}
    if not args.guide:
        for name, path in guides.items():
            lines = path.read_text(encoding="utf-8").splitlines()
            print(f"{name}: {lines[0].lstrip('# ')}")
            for part in sections(lines):
                print(f"{' ' * (2 * part.level)}{part.title}")
        print(f"(in {docs_dir()}; hfrender docs GUIDE [WORDS] prints one)")
        return 0
    path = guides.get(Path(args.guide).stem.lower())
    if path is None:
        guess = nearest(Path(args.guide).stem, guides)
        raise InputError(f"no guide {args.guide!r}: hfrender's are {', '.join(guides)}"
                         + (f" (did you mean {guess[0]}?)" if guess else ""))
    lines = path.read_text(encoding="utf-8").splitlines()
    if not args.title:
        _show("\n".join(lines))
        return 0
    words = " ".join(args.title)
    part = find(sections(lines), words)
    if part is None:
        guess = nearest(words, [s.title for s in sections(lines)])
        raise InputError(f"{path.stem} has no section {words!r}"
                         + (f" (did you mean {guess[0]!r}?)" if guess else "")
                         + "; hfrender docs lists each guide's sections")
    _show("\n".join(lines[part.start:part.end]).rstrip())
    return 0


def _show(text: str) -> None:
    """On a terminal through a pager ($PAGER, else less or more, as ``git help`` and
    ``pydoc`` do: a guide is some 1,000 lines); piped or redirected, as it is."""
    if sys.stdout.isatty():
        pydoc.pager(text)
    else:
        print(text)


def sections(lines: list[str]) -> list[Section]:
    """The ``##`` and ``###`` headings (to the next heading as high) and the bullets at the
    margin that name their subject in bold (to the next line at the margin), in order;
    nothing inside a code block."""
    found: list[Section] = []
    marks = list(_marks(lines))
    under = 1  # the level of the last heading
    for k, (i, level, title) in enumerate(marks):
        if level:
            end = next((j for j, lv, _ in marks[k + 1:] if 0 < lv <= level), len(lines))
            under = level
        else:
            end = next((j for j in range(i + 1, len(lines))
                        if lines[j][:1] not in ("", " ")), len(lines))
        found.append(Section(title, level or under + 1, i, end))
    return found


def _marks(lines: list[str]):
    """(line, heading level or 0 for a bullet, title) of each section's first line."""
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        heading, lead = HEADING.match(line), LEAD.match(line)
        if heading:
            yield i, len(heading.group(1)), heading.group(2).replace("`", "")
        elif lead:
            yield i, 0, lead.group(1).replace("`", "")


def find(parts: list[Section], words: str) -> Section | None:
    """The section titled ``words`` (any case), else the first whose title starts with them,
    else the first that has them."""
    want = " ".join(words.lower().split())
    for test in (str.__eq__, str.startswith, str.__contains__):
        for part in parts:
            if test(part.title.lower(), want):
                return part
    return None
