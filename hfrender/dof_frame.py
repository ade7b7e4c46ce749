"""The fast depth of field's loop over one frame (:mod:`hfrender.dof_layers` is its plan
and FFT maths): each layer blurred by its disks over the boxes around its pixels (FFTs per
box), scattered into the sums of the pixels by their roles, gathered where a pixel sees
past its edge, and, once every layer has scattered, gathered where far light of larger
disks may fill a pixel's shortfall (how much of its disk that light fills); then the
composite. Driven through a backend's ``ops`` (``hfrender/backends/cpu/dof_fast.py``,
``hfrender/backends/cuda/dof.py``, the window path ``hfrender/backends/cpu/dof_window.py``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from hfrender.dof_boxes import layer_boxes
from hfrender.dof_fft import Window, window
from hfrender.dof_layers import Layer, Plan, disk_tables, frame_plan

LOOKAHEAD = 4  # FFT jobs (a window's scatter, and its gather) that may run ahead of the
#                adding of their sums: two to four windows
GATHER_BOTH = 64  # layers of smaller disks gather with both (each pixel by its share);
#                   larger ones with the disk between them


def defocus_layers(ops: Any, xp: Any, r2: Any, depth: Any, focus_distance: float,
                   max_d2: int, blades: int = 0, planned: tuple[Plan, Any] | None = None
                   ) -> Any:
    """The fast defocus of one frame, driven through ``ops`` (a backend's classes, field
    building, accumulation and compositing; see ``hfrender/backends/cpu/dof_fast.py``).
    Each layer's FFTs cover its own window: a band of a slanted floor costs a band. Frames
    that share one plan (the CUDA backend's, ``backends/cuda/dof_plans.py``): ``r2`` and
    ``depth`` (F, H, W), and the plan and class keys ``planned`` already."""
    h, w = (int(s) for s in r2.shape[-2:])
    plan, keys = planned or frame_plan(xp, r2, depth, focus_distance, max_d2, blades,
                                       ops.classes)
    ops.start(plan, keys)
    spans = ops.spans(len(plan.layers))  # where each layer's pixels are (dof_boxes.Spans)
    return blur_layers(ops, plan, disk_tables(max_d2, blades)[0], (h, w), xp.add,
                       lambda j, reach: layer_boxes(spans, j, reach))


def blur_layers(ops: Any, plan: Plan, offsets: np.ndarray, size: tuple[int, int], add: Any,
                boxes: Any) -> Any:
    """Every layer blurred by its disk over each of its ``boxes(j, reach)`` (FFTs per box),
    scattered, gathered where a pixel sees past its edge, composited: the loop that
    :func:`defocus_layers` and the window path (``backends/cpu/dof_window.py``) share.
    Once every layer has scattered, the pixels whose shortfall the far light may fill
    (``ops.open_spans``) gather how much of their disks it fills (:func:`_gathers`).

    A window's FFTs alone go to ``ops.later`` (the CPU's run on a thread of their own, up
    to :data:`LOOKAHEAD` jobs ahead: a few long calls that leave the interpreter to this
    thread) while the next windows' fields are made here; their light is cleaned
    (``ops.ready``) and added here in the loop's own order, so the picture is the one a
    single thread makes, bit for bit."""
    h, w = size
    pending: deque[Callable[[], None]] = deque()

    def queue(jobs: list[Callable[[], None]]) -> None:
        pending.extend(jobs)
        while len(pending) > LOOKAHEAD:
            pending.popleft()()

    for j in plan.order():
        layer = plan.layers[j]
        disks = _disks(layer)
        reach = _reach(offsets, layer.hi)
        for box in boxes(j, reach):
            win = window(box, reach, h, w)
            fields = ops.fields(j, win, disks)
            spread = ops.later(_spread, ops, fields, disks, win, layer.side, add)
            queue([lambda j=j, win=win, spread=spread, side=layer.side:
                   ops.scatter(j, ops.splatted(j, ops.ready(spread()), win, side), win)]
                  + _gathers(ops, plan, j, box, offsets, h, w))
    while pending:
        pending.popleft()()
    wanted = ops.open_spans(len(plan.layers)) if plan.big.any() else None
    for j in plan.order():
        if wanted is not None and plan.big[:, j].any():  # far light of larger disks to it
            reach = _reach(offsets, max(_gather_disks(plan.layers[j])))
            for box in layer_boxes(wanted, j, reach):
                queue(_gathers(ops, plan, j, box, offsets, h, w, opened=True))
    while pending:
        pending.popleft()()
    return ops.finish()


def _spread(ops: Any, fields: list[Any], disks: list[int], win: Window, side: int,
            add: Any) -> Any:
    """A window's light spread by its disks (for ``ops.ready``): the FFTs of its fields,
    times the disks' spectra, summed, transformed back."""
    scatter = None
    for f, area in zip(ops.split(fields, win.inner), disks, strict=True):  # highlights apart
        part = ops.forward(f, win.inner)
        part *= ops.spectrum(area, win.shape, side)
        scatter = part if scatter is None else add(scatter, part, out=scatter)
    return ops.inverse(scatter, win)


def _disks(layer: Layer) -> list[int]:
    """The layer's disks: one, or its smallest and its largest."""
    return [layer.lo] if layer.hi == layer.lo else [layer.lo, layer.hi]


def _gather_disks(layer: Layer) -> list[int]:
    """The disks a layer's pixels gather with: both of the layer's (by each pixel's share),
    one between them for large disks."""
    return _disks(layer) if layer.lo < GATHER_BOTH else [layer.mid]


def _gathers(ops: Any, plan: Plan, j: int, box: tuple[int, int, int, int],
             offsets: np.ndarray, h: int, w: int, opened: bool = False
             ) -> list[Callable[[], None]]:
    """What layer j's pixels in ``box`` gather with their own disks
    (:func:`_gather_disks`), and what adds it to the sums later: what they see behind them
    (``Plan.seen``: pixels in focus, or behind with smaller disks; ``ops.seen_window``),
    each weighing 1 / the disk's area, as the exact gather counts them behind a defocused
    pixel before the focus plane (their mean fills what its disk sees past its edge); or
    (``opened``) how much of their disks the far layers of larger disks fill (``Plan.big``;
    ``ops.open_window``, a weight alone): their scatter (``ROLE_FAR``) fills what a pixel's
    disk sees past its surface at most that much. Over the part of the box within reach of
    those pixels (``ops.seen_box``, ``ops.open_box``: a floor band crossed by a post in
    focus transforms a post's width, not the frame's)."""
    layer = plan.layers[j]
    disks = _gather_disks(layer)
    reach = _reach(offsets, max(disks))
    win = window(box, reach, h, w)
    if opened:
        around, source_of, add = ops.open_box(win, j), ops.open_window, ops.gather_open
    else:
        around = ops.seen_box(win, j) if plan.sees(j) else None
        source_of, add = ops.seen_window, ops.gather
    part = None if around is None else _near(box, around, reach)
    if part is None:
        return []
    part_win = win if part == box else window(part, reach, h, w)
    rows = max(0, around[0] - part_win.y0), min(part_win.y1, around[1]) - part_win.y0
    return [_gather(ops, j, part_win, (source_of(part_win, j), rows), disks, layer.side, add,
                    now=opened)]


def _gather(ops: Any, j: int, win: Window, source: tuple[Any, tuple[int, int]],
            disks: list[int], side: int, add: Callable[..., None], now: bool = False
            ) -> Callable[[], None]:
    """Start :func:`_gathered` of ``source`` over ``win`` (``ops.later``; ``now``: here,
    once every layer has scattered and there is nothing to overlap it with: 1.5 ms of a
    64 px call's 5.5 in handing over to the FFT thread): what adds its light to layer j's
    pixels' sums (``add``: ``ops.gather`` or ``ops.gather_open``)."""
    if now:
        light = _gathered(ops, source, disks, win, side)
        spread: Callable[[], Any] = lambda: light  # noqa: E731
    else:
        spread = ops.later(_gathered, ops, source, disks, win, side)

    def settle() -> None:
        for d, light in enumerate(spread()):
            add(j, ops.ready(light, win.inner), win, d, len(disks))

    return settle


def _gathered(ops: Any, source: tuple[Any, tuple[int, int]], disks: list[int], win: Window,
              side: int) -> list[Any]:
    """The ``source``'s light ((C + 1, *win.shape) or a weight alone (1, *win.shape), zero
    outside its rows) summed over each of ``disks`` around every pixel of the window, over
    the disk's area."""
    spectrum = ops.forward(*source)
    out = []
    for area in disks:
        product = spectrum * np.float32(1.0 / area)  # a new array: the inverse uses it up
        product *= ops.spectrum(area, win.shape, side)
        out.append(ops.inverse(product, win))
    return out


def _near(box: tuple[int, int, int, int], around: tuple[int, int, int, int],
          reach: int) -> tuple[int, int, int, int] | None:
    """The part of ``box`` (y0, y1, x0, x1) within ``reach`` of the box ``around`` (``None``:
    none of it)."""
    y0, y1 = max(box[0], around[0] - reach), min(box[1], around[1] + reach)
    x0, x1 = max(box[2], around[2] - reach), min(box[3], around[3] + reach)
    return (y0, y1, x0, x1) if y0 < y1 and x0 < x1 else None


def _reach(offsets: np.ndarray, area: int) -> int:
    return int(np.abs(offsets[:area]).max())

