"""Files that ship with hfrender: the top-level ``shaders/`` folder.

In a wheel it is ``hfrender/_shaders`` (force-included by the build); in an editable
install or a source checkout it is ``shaders/`` beside the package.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def shader_dir() -> Path:
    """The folder holding ``glsl/`` and ``cuda/``."""
    for candidate in (_PACKAGE / "_shaders", _PACKAGE.parent / "shaders"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"hfrender's shaders folder is missing (looked in {_PACKAGE / '_shaders'} and "
        f"{_PACKAGE.parent / 'shaders'}); reinstall hfrender"
    )


def shader_path(relative: str) -> Path:
    """Path of one shader file, e.g. ``shader_path("cuda/fuse.cu")``."""
    path = shader_dir() / relative
    if not path.is_file():
        raise FileNotFoundError(f"shader {relative!r} not found in {shader_dir()}")
    return path
