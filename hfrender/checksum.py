"""A file's sha256, read a MiB at a time (a segment, a model of a GB: never held whole in
memory): what a manifest keeps of its segments and a resumed render of a scene's files."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
