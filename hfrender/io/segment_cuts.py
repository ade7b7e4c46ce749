"""Where a video's segments are cut (each its own encode, starting with a keyframe): a
render's and a Ray run's chunks, and what :class:`~hfrender.io.segments.SegmentedWriter`
writes, cut alike (pure)."""

from __future__ import annotations

# a segment of 1 or 2 frames has no B-frames, hence another decoding delay than the rest:
# the joined stream would have a gap; a shorter rest goes into the segment before it
MIN_SEGMENT = 8


def render_segment_frames(gop: int, fps: float) -> int:
    """Frames per segment (a keyframe each): whole hyperframes under a second, else 1 s's,
    at least MIN_SEGMENT (at 1 fps: 8 frames, not a segment a frame, a review)."""
    target = max(round(fps), MIN_SEGMENT)
    return gop * -(-target // gop) if gop < target else target


def segment_ranges(total: int, segment_frames: int, start: int = 0) -> list[tuple[int, int]]:
    """``(first, count)`` of the segments from frame ``start`` (a multiple of
    ``segment_frames``) on, as :class:`SegmentedWriter` cuts them: a rest shorter than
    ``MIN_SEGMENT`` joins the segment before it."""
    out, first = [], start
    while first < total:
        count = min(segment_frames, total - first)
        if 0 < total - first - count < MIN_SEGMENT:
            count = total - first
        out.append((first, count))
        first += count
    return out
