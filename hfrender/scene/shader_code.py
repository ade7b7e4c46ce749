"""Faults of a shader file's code as written (an Image's, a buffer's, a common or surface
file's), found by their own line: a ``/*`` never closed, which hides all after it (was:
"is empty", or the compiler's "Unterminated comment" at a line of hfrender's code)."""

from __future__ import annotations

from hfrender.scene.shader_lines import COMMENTS

UNCLOSED_COMMENT = ("this '/*' is never closed: all after it is a comment, to the file's "
                    "end; close it with '*/'")


def unclosed_comment(source: str) -> int | None:
    """The line of the ``/*`` no ``*/`` closes (one in a line comment opens none: ``//**``,
    ``// a/*.png``); None where there is none."""
    for m in COMMENTS.finditer(source):
        text = m.group()
        if text.startswith("/*") and (len(text) < 4 or not text.endswith("*/")):
            return source.count("\n", 0, m.start()) + 1
    return None

