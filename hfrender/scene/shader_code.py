"""Faults of a shader file's code as written (an Image's, a buffer's, a common or surface
file's), found by their own line: a ``/*`` never closed, which hides all after it (was:
"is empty", or the compiler's "Unterminated comment" at a line of hfrender's code), and a
``{`` never closed, where the compiler fails after the file (in hfrender's code after the
shader's: was told at mainImage's line, "syntax error, unexpected '{'"), and a ``}`` too
many (was: "unexpected '}', expecting end of file", or at the next line's code, "unexpected
NEW_IDENTIFIER"); a character GLSL does not have, where the compiler fails at its line
(a no-break space or a '×' from a web page: was "syntax error, unexpected end of file");
and a ';' left off a line's end (was: told at the next line's code, where the compiler
stops)."""

from __future__ import annotations

import re
import unicodedata

from hfrender.scene.shader_lines import COMMENTS, blank_comments

UNCLOSED_COMMENT = ("this '/*' is never closed: all after it is a comment, to the file's "
                    "end; close it with '*/'")


# what to write for the characters a web page or word processor puts in code most often
ASCII_FOR = {"\u00a0": " ", "\u2009": " ", "\u00d7": "*", "\u2212": "-", "\u2013": "-",
             "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}
# the compiler's error past a ';' left off, at the code after it (Mesa's, NVIDIA's alike)
_WANTS_SEMICOLON = re.compile(r"unexpected (.+?), expecting (?:',' or )?';'")
_GOES_ON = ";{}[(,+-*/%=<>!&|^?:.\\"  # a line ending so is no statement's end (nor a '}')
# ... but for a number's '.' (``1.``) or a ``++``/``--``: those end one
_ENDS = re.compile(r"(?:(?<![\w.])\d+\.|\+\+|--)$")
_DEFINED = re.compile(r"^\s*#\s*define\s+(\w+)", re.MULTILINE)
_ONLY_A_NAME = re.compile(r"(\w+)\s*(?:\(.*\))?")
_IF = re.compile(r"\s*#\s*(?:if|ifdef|ifndef|elif|else|endif)\b")


def unclosed_comment(source: str) -> int | None:
    """The line of the ``/*`` no ``*/`` closes (one in a line comment opens none: ``//**``,
    ``// a/*.png``); None where there is none."""
    for m in COMMENTS.finditer(source):
        text = m.group()
        if text.startswith("/*") and (len(text) < 4 or not text.endswith("*/")):
            return source.count("\n", 0, m.start()) + 1
    return None


def unclosed_braces(source: str) -> list[int]:
    """The lines of the code's ``{`` (comments left out) that no ``}`` closes, the
    outermost first; none where each is closed."""
    code, opened = blank_comments(source), []
    for at, ch in enumerate(code):
        if ch == "{":
            opened.append(at)
        elif ch == "}" and opened:
            opened.pop()
    return [code.count("\n", 0, at) + 1 for at in opened]


def never_closed(source: str) -> str | None:
    """``LINE: this '{' is never closed`` of the innermost ``{`` no ``}`` closes (those
    around it named); None where each is closed."""
    *outer, line = unclosed_braces(source) or [None]
    if line is None:
        return None
    nor = (f" (nor the one{'s' * (len(outer) > 1)} on line{'s' * (len(outer) > 1)} "
           f"{', '.join(map(str, outer))})" if outer else "")
    return f"{line}: this '{{' is never closed{nor}; close it with '}}'"


def closed_too_soon(source: str, line: int) -> str | None:
    """``LINE: what is wrong`` where the compiler's first error, at ``line``, follows from a
    ``}`` too many in the code (comments left out; the file closes more than it opens):
    one there that closes no ``{``, or, that line outside any function, the ``}`` before it
    that closed the function (and the ``{`` it closed); None where neither."""
    code = blank_comments(source)
    more = code.count("}") - code.count("{")
    if more <= 0:
        return None
    ends = [at for at, ch in enumerate(code) if ch == "\n"] + [len(code)]
    start, end = (ends[line - 2] + 1 if line > 1 else 0), ends[min(line, len(ends)) - 1]
    opened: list[int] = []
    last = None  # (the '{', the '}') of the last outermost pair closed before ``line``
    for at, ch in enumerate(code[:end]):
        if ch == "{":
            opened.append(at)
        elif ch == "}" and not opened and at >= start:
            return f"{line}: this '}}' closes no '{{'; delete it"
        elif ch == "}" and opened:
            first = opened.pop()
            last = (first, at) if not opened and at < start else last
    if opened or last is None or code.count("{", start, end) or code.count("}", start, end):
        return None
    closed, opener = (code.count("\n", 0, at) + 1 for at in reversed(last))
    return (f"{line}: this line is outside any function: the '}}' on line {closed} closes "
            f"the '{{' on line {opener} (the file has {more} '}}' more than '{{'); delete the "
            "one too many")


def foreign_character(source: str, line: int) -> str | None:
    """``LINE: what is wrong`` where the compiler's first error, at ``line``, is at a
    character GLSL does not have (its code is ASCII) in the code there (comments left
    out: Mesa takes them there, and in an ``#if 0`` arm); None where there is none."""
    code = blank_comments(source).split("\n")
    text = code[line - 1] if 0 < line <= len(code) else ""
    column, ch = next(((at, ch) for at, ch in enumerate(text, 1) if ord(ch) > 127),
                      (0, ""))
    if not ch:
        return None
    name = unicodedata.name(ch, "").lower() or "a character with no name"
    instead = f"write {ASCII_FOR[ch]!r} instead" if ch in ASCII_FOR else \
        "type it again in ASCII"
    return (f"{line}: U+{ord(ch):04X} ({name}) at column {column} is no GLSL character: "
            "GLSL code is ASCII (a web page or word processor puts such characters in); "
            f"{instead}")


def no_semicolon(source: str, line: int, said: str, column: int | None) -> int | None:
    """The line that lacks a ';' at its end, where the compiler's first error (``said``, at
    ``line``, ``column``) wants one before the code that starts ``line`` (the column that
    code's: :func:`first_column`; None where the compiler names none, NVIDIA's) and the
    code line before it (blank lines, comments and directives, their continued lines too,
    passed over) ends a statement with none (:func:`_goes_on`); None where not so (one
    missing inside a line is at the compiler's own line), or where an ``#if`` lies
    between."""
    wants = _WANTS_SEMICOLON.search(said)
    code = blank_comments(source).split("\n")
    if wants is None or not 0 < line <= len(code):
        return None
    first, quoted = code[line - 1].strip(), re.fullmatch(r"'(.)'", wants.group(1))
    if not (first.startswith(quoted.group(1)) if quoted else re.match(r"\w", first)) or (
            column is not None and column != first_column(code[line - 1])):
        return None
    directives = _directive_lines(code)
    ended = next((at for at in range(line - 1, 0, -1)
                  if code[at - 1].strip() and at not in directives), None)
    if ended is None or _goes_on(code[:ended]) or any(
            _IF.match(text) for text in code[ended:line - 1]):
        return None  # (an #if between: which code the compiler saw is not known here)
    return None if column is None and _a_macro(code[ended - 1], code) else ended


def _a_macro(text: str, code: list[str]) -> bool:
    """Whether ``text``, a line of ``code`` (comments blanked), is only a name
    ``#define``d there, or a call of one: a macro that may be a header (``#define LOOP
    for (...)``), which goes on."""
    name = _ONLY_A_NAME.fullmatch(text.strip())
    return name is not None and name.group(1) in _DEFINED.findall("\n".join(code))


def first_column(text: str) -> int:
    """The column Mesa names for the first code of a line (``text``, comments blanked): it
    counts from 1 after its preprocessor made each run of blanks one, so 2 where the line
    starts with any (was: any column taken for the line's start)."""
    return 1 if text[:1] not in " \t\r\f\v" else 2


def _directive_lines(code: list[str]) -> set[int]:
    """The numbers of ``code``'s lines that are a directive's: those starting with '#' and
    each a '\\' at the end of one of them continues (a ``#define``'s body)."""
    lines: set[int] = set()
    for at, text in enumerate(code, 1):
        if text.lstrip().startswith("#") or (
                at - 1 in lines and code[at - 2].rstrip().endswith("\\")):
            lines.add(at)
    return lines


def _goes_on(code: list[str]) -> bool:
    """Whether the last of ``code``'s lines goes on into the next statement, so needs no
    ';': it ends in an operator (a binary '+' or '-', a member's '.': not a number's '.',
    ``1.``, nor ``++`` or ``--``, which end one), a bracket or a '\\' (continued), or is a
    header, ``else`` or ``do``, or the ')' of an ``if``, ``for`` or ``while``'s
    condition."""
    text = code[-1].rstrip()
    if _ENDS.search(text):
        return False
    if text[-1] in _GOES_ON or re.search(r"\b(?:else|do)$", text):
        return True
    if not text.endswith(")"):
        return False
    joined, depth = "\n".join(code).rstrip(), 0
    for at in range(len(joined) - 1, -1, -1):  # back to the '(' this ')' closes
        depth += {")": 1, "(": -1}.get(joined[at], 0)
        if depth == 0:
            return re.search(r"\b(?:if|for|while)\s*$", joined[:at]) is not None
    return False
