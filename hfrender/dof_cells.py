"""Which classes of the fast depth of field share a layer (:func:`hfrender.dof_layers.make_plan`):
each side's classes (their disks' areas, ascending) in cells of equal width in log radius,
the narrowest cells that make at most the budget's layers, and a class far denser than its
neighbours (a plane among slanted surfaces) in a layer of its own.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# a class this many times denser than the median of its PEAK_WINDOW neighbours each side,
# and this share of the frame, gets a layer of its own
PEAK_RATIO, PEAK_SHARE, PEAK_WINDOW = 6.0, 1e-3, 4
# the narrowest cells are searched for in SEARCH_ROUNDS rounds of SEARCH_STEPS steps each,
# every round's steps counted at once (a bisection's forty rounds of one cost ~1.5 ms a frame)
SEARCH_ROUNDS, SEARCH_STEPS = 7, 64


def _log_radii(areas: np.ndarray) -> np.ndarray:
    """Each area's log radius, from the first's."""
    logr = 0.5 * np.log(areas.astype(np.float64))
    return logr - logr[0]


def _cells(log_radii: np.ndarray, step: float) -> np.ndarray:
    """The cell of ``step`` (> 0) in log radius that each class is in."""
    return np.floor(np.minimum(log_radii / step, 1e12))


def _starts(areas: np.ndarray, peak: np.ndarray, step: float) -> np.ndarray:
    """Where each layer of one side begins, in its areas (ascending): cells ``step`` wide in
    log radius (0: each area alone), and every peak alone, splitting the cell it is in."""
    start = np.ones(len(areas), bool)
    if len(areas) < 2:
        return start
    cell = _cells(_log_radii(areas), step) if step else np.arange(len(areas))
    start[1:] = (cell[1:] != cell[:-1]) | peak[1:] | peak[:-1]
    return start


def groups(areas: np.ndarray, start: np.ndarray) -> list[tuple[int, int]]:
    """(smallest, largest) area of each layer, from where each begins."""
    first = np.flatnonzero(start)
    last = np.append(first[1:] - 1, len(areas) - 1)[: len(first)]
    return [(int(areas[i]), int(areas[k])) for i, k in zip(first, last, strict=True)]


def _peaks(sides: list[tuple[np.ndarray, np.ndarray]], budget: int,
           width: np.ndarray, window: int = PEAK_WINDOW) -> list[np.ndarray]:
    """The classes far denser (pixels per unit of r^2) than their ``window`` neighbours
    each side: a plane in a scene of slanted surfaces. At most enough that each can have a
    layer of its own."""
    marks = [np.zeros(len(a), bool) for a, _ in sides]
    if sum(len(a) for a, _ in sides) <= budget:
        return marks
    total = sum(int(n.sum()) for _, n in sides)
    found = []
    for s, (areas, n) in enumerate(sides):
        density = n / width[areas]
        pad = np.pad(density, window, constant_values=np.nan)
        near = np.stack([pad[window + d: window + d + len(n)]
                         for d in range(-window, window + 1) if d])
        usual = _nan_median(near) if len(n) > 1 else np.zeros(len(n))
        spike = (density >= PEAK_RATIO * usual) & (n >= PEAK_SHARE * total)
        found += [(int(n[i]), s, int(i)) for i in np.flatnonzero(spike)]
    for _, s, i in sorted(found, reverse=True)[: max(0, (budget - 2) // 2)]:
        marks[s][i] = True
    return marks


def _nan_median(a: np.ndarray) -> np.ndarray:
    """``np.nanmedian(a, axis=0)`` where every column has a number (the same values: the
    middle one, or the mean of the middle two), without its per-call cost (~1 ms here)."""
    ordered = np.sort(a, axis=0)  # NaN last
    count = (~np.isnan(a)).sum(axis=0)
    cols = np.arange(a.shape[1])
    return (ordered[(count - 1) // 2, cols] + ordered[count // 2, cols]) / 2


def split(sides: list[tuple[np.ndarray, np.ndarray]], budget: int,
           width: np.ndarray, window: int = PEAK_WINDOW) -> list[np.ndarray]:
    """Where the layers of each side begin: the narrowest cells that make at most
    ``budget`` layers (the count is not monotone in the cells' width: the first of
    :data:`SEARCH_STEPS` widths that is few enough, refined between it and the one
    before, round by round). Small disks, far apart in log radius, stay alone."""
    peaks = _peaks(sides, budget, width, window)

    def starts(step: float) -> list[np.ndarray]:
        return [_starts(a, p, step) for (a, _), p in zip(sides, peaks, strict=True)]

    if sum(len(a) for a, _ in sides) <= budget:
        return starts(0.0)
    count = _counter(sides, peaks)
    lo, hi = 0.0, 1.0 + max(0.5 * np.log(a[-1] / a[0]) for a, _ in sides if len(a))
    for _ in range(SEARCH_ROUNDS):  # the first of the steps up to hi that is few enough
        steps = lo + (hi - lo) * np.arange(1, SEARCH_STEPS + 1) / SEARCH_STEPS
        few = count(steps) <= budget
        few[-1] = True  # hi: the one cell of each side, as few as any step makes
        k = int(np.argmax(few))
        lo, hi = (steps[k - 1] if k else lo), steps[k]
    return starts(hi)


def _counter(sides: list[tuple[np.ndarray, np.ndarray]],
             peaks: list[np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """How many layers :func:`_starts` makes of ``sides`` at each of some steps (> 0), its
    sums alone, with what does not depend on the step worked out once: the search's steps
    all at once, a round at a time."""
    fixed, parts = 0, []
    for (areas, _), peak in zip(sides, peaks, strict=True):
        if len(areas) < 2:
            fixed += len(areas)
            continue
        parts.append((_log_radii(areas), peak[1:] | peak[:-1]))
        fixed += 1

    def count(steps: np.ndarray) -> np.ndarray:
        total = np.full(len(steps), fixed)
        for rel, paired in parts:
            cell = _cells(rel[None, :], steps[:, None])
            total += np.count_nonzero((cell[:, 1:] != cell[:, :-1]) | paired, axis=1)
        return total

    return count
