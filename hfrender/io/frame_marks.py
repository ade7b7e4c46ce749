"""The marks in the header of every image file hfrender writes: that it is hfrender's (a
PNG's ``tEXt`` "Software", an EXR's ``software`` attribute), so that an older render's
frames are told from the user's own files; and, for a sequence's frame, which sequence it
is (a digest of the pattern's file name), so that a pattern of another width in the same
folder is another sequence (``shot_%d.png`` removed ``shot_%03d.png``'s frames 100 and on
as its own, a trial)."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
EXR_MAGIC = b"\x76\x2f\x31\x01"
SOFTWARE = "hfrender"
MARK_BYTES = 4096  # where the marks are looked for: the header, before any pixel data
PNG_MARK = b"Software\0" + SOFTWARE.encode()  # a tEXt chunk's keyword and text
EXR_MARK = b"software\0string\0" + struct.pack("<i", len(SOFTWARE)) + SOFTWARE.encode()
SEQUENCE_KEY = "hfrender sequence"  # a PNG tEXt keyword; an EXR attribute's name:
EXR_SEQUENCE = "hfrenderSequence"


def sequence_id(pattern: str) -> str:
    """The mark of the sequence of ``pattern`` (its file name: ``f_%04d.png``)."""
    return hashlib.sha1(Path(pattern).name.encode("utf-8", "surrogateescape")
                        ).hexdigest()[:16]


def _head(path: str | Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(MARK_BYTES)
    except OSError:
        return b""


def _png_texts(head: bytes) -> list[bytes]:
    """The ``tEXt`` chunks' data before a PNG's pixels."""
    texts: list[bytes] = []
    pos = len(PNG_MAGIC) if head.startswith(PNG_MAGIC) else len(head)
    while pos + 8 <= len(head):
        size, kind = struct.unpack(">I4s", head[pos:pos + 8])
        if kind in (b"IDAT", b"IEND"):
            break
        if kind == b"tEXt":
            texts.append(head[pos + 8:pos + 8 + size])
        pos += 12 + size
    return texts


def marks(path: str | Path) -> tuple[bool, str | None]:
    """The file at ``path``'s marks, its header read once: whether it is hfrender's (a PNG
    whose ``tEXt`` chunk ``Software``, before its pixels, is exactly ``hfrender``, or an EXR
    whose ``software`` attribute is: not a file that merely mentions hfrender), and its
    sequence mark (:func:`sequence_id`; None where it has none: not a sequence's frame, or
    one written before frames carried it)."""
    head = _head(path)
    if head.startswith(EXR_MAGIC):
        key = EXR_SEQUENCE.encode() + b"\0string\0" + struct.pack("<i", 16)
        at = head.find(key)
        return EXR_MARK in head, (head[at + len(key):at + len(key) + 16].decode(
            "ascii", "replace") if at >= 0 else None)
    texts, lead = _png_texts(head), SEQUENCE_KEY.encode() + b"\0"
    sequence = [t[len(lead):].decode("ascii", "replace") for t in texts if t.startswith(lead)]
    return PNG_MARK in texts, (sequence[0] if sequence else None)


def written_by_hfrender(path: str | Path) -> bool:
    """Whether the image file at ``path`` is hfrender's (:func:`marks`)."""
    return marks(path)[0]


def sequence_of(path: str | Path) -> str | None:
    """The sequence mark of the frame at ``path`` (:func:`marks`)."""
    return marks(path)[1]


def png_sequence_chunk(sequence: str) -> bytes:
    """The ``tEXt`` data of a frame's sequence mark."""
    return SEQUENCE_KEY.encode() + b"\0" + sequence.encode("ascii")


# a GIF's mark: a GIF89a comment extension, "hfrender", before its first frame (ffmpeg's GIF
# muxer writes no comment; a GIF at an output without it is the user's, and is refused)
GIF_MARK = b"\x21\xfe" + bytes([len(SOFTWARE)]) + SOFTWARE.encode() + b"\x00"
GIF_MAGIC = (b"GIF87a", b"GIF89a")


def mark_gif(path: str | Path, chunk: int = 1 << 20) -> None:
    """The GIF at ``path`` given :data:`GIF_MARK` after its header and global colour table,
    in place (the rest moved up, its last chunk first; its pictures unchanged): was none,
    and a user's GIF at an output was replaced without a word (a trial)."""
    if not Path(path).is_file():
        return
    with open(path, "r+b") as fh:
        head = fh.read(13)
        if len(head) < 13 or head[:6] not in GIF_MAGIC:
            return
        start = 13 + ((3 << ((head[10] & 7) + 1)) if head[10] & 0x80 else 0)
        at = fh.seek(0, 2)
        fh.write(bytes(len(GIF_MARK)))  # the room the mark takes
        while at > start:
            n = min(chunk, at - start)
            at -= n
            fh.seek(at)
            data = fh.read(n)
            fh.seek(at + len(GIF_MARK))
            fh.write(data)
        fh.seek(start)
        fh.write(GIF_MARK)
        fh.seek(0)
        fh.write(b"GIF89a")  # (comments are GIF89a's)
