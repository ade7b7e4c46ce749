"""The size to suggest where an encoder's chroma planes refuse the one asked for (641x359
for 4:2:0 H.264): the nearest that fits, at the common aspect ratio the asked one is near
where there is one (640x360, 16:9; was 640x358, a ratio no one asks for)."""

from __future__ import annotations

from math import gcd

NEAR_PX = 2  # how far a side may move to reach a common ratio (each side)
NEAR_RATIO = 0.01  # how near the asked ratio a common one is (relative)
COMMON = 16  # a common ratio: whole numbers up to 16 (16:9, 4:3, 1:1, 3:2, 8:5, 7:3, 9:16)


def _nearest(n: int, step: int) -> int:
    """The multiple of ``step`` nearest ``n`` (of two as near, the smaller), at least
    ``step``."""
    down = n - n % step
    return max(step, down if n - down <= step // 2 else down + step)


def _ratio(w: int, h: int) -> str | None:
    """``w:h`` in lowest terms where both are at most :data:`COMMON` (``16:9``), else None."""
    g = gcd(w, h)
    return f"{w // g}:{h // g}" if max(w, h) // g <= COMMON else None


def fitting_size(size: tuple[int, int],
                 steps: tuple[int, int]) -> tuple[tuple[int, int], str | None]:
    """The size nearest ``size`` whose sides are multiples of ``steps``: at a common ratio
    (:func:`_ratio`) within :data:`NEAR_RATIO` of the asked one, each side within
    :data:`NEAR_PX` (or a step) of it, where one is; else each side to its nearest multiple.
    The ratio is returned where it decided the size (None where the nearest is chosen)."""
    (w, h), (sw, sh) = size, steps
    plain = (_nearest(w, sw), _nearest(h, sh))
    reach, asked = max(NEAR_PX, sw, sh), w / h
    near = [(abs(W - w) + abs(H - h), W, H) for W in _around(w, sw, reach)
            for H in _around(h, sh, reach)
            if _ratio(W, H) and abs(W / H - asked) <= NEAR_RATIO * asked]
    if not near:
        return plain, None
    _, W, H = min(near)
    return (W, H), None if (W, H) == plain else _ratio(W, H)


def _around(n: int, step: int, reach: int) -> range:
    """The multiples of ``step`` within ``reach`` of ``n`` (none below ``step``)."""
    low = max(step, n - reach + (-(n - reach)) % step)
    return range(low, n + reach + 1, step)
