"""Files that ship with hfrender: the top-level ``shaders/`` and ``docs/`` folders.

In a wheel they are ``hfrender/_shaders`` and ``hfrender/_docs`` (force-included by the
build; the guides without their pictures); in an editable install or a source checkout
they are ``shaders/`` and ``docs/`` beside the package.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _shipped(name: str) -> Path:
    for candidate in (_PACKAGE / f"_{name}", _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"hfrender's {name} folder is missing (looked in {_PACKAGE / f'_{name}'} and "
        f"{_PACKAGE.parent / name}); reinstall hfrender"
    )


def shader_dir() -> Path:
    """The folder holding ``glsl/`` and ``cuda/``."""
    return _shipped("shaders")


def docs_dir() -> Path:
    """The folder holding the guides (``rendering.md``, ``effects.md`` ...)."""
    return _shipped("docs")


def shader_path(relative: str) -> Path:
    """Path of one shader file, e.g. ``shader_path("cuda/fuse.cu")``."""
    path = shader_dir() / relative
    if not path.is_file():
        raise FileNotFoundError(f"shader {relative!r} not found in {shader_dir()}")
    return path
