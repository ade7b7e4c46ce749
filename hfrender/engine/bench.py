"""``hfrender bench``: throughput, latency and memory over granularity x fusion workers.

Each cell renders the same frames (output discarded) and reports output frames per second
(drawing to the last frame written, set-up excluded), the mean latency from a frame's
first sub-frame drawn to the frame written, and the hyperframe pool's size. The best
throughput is marked, and ``auto`` granularity is measured beside the grid with the best
cell's number of workers (it is the granularity that is on trial).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hfrender.config import ConfigError, RenderConfig
from hfrender.logs import filtered
from hfrender.sizes import bytes_said


@dataclass
class Cell:
    granularity: int | str
    workers: int
    fps: float
    latency_ms: float
    memory_mb: float  # the pool's size in MiB (RenderStats.pool_mb); said by sizes.py
    used: int  # sub-frames per hyperframe actually used
    machine: str = ""  # the GL renderer that drew it (llvmpipe, or the GPU's name)


class _Discard:
    frames_written = 0

    def write(self, frame: Any) -> None:
        self.frames_written += 1

    def close(self) -> None:
        pass


def aligned_granularities(per_output: int, overlap: int, outputs: list[int]) -> list[int]:
    return [overlap + per_output * m for m in outputs]


def run_cell(scene: str | Path, config: RenderConfig, frames: int, scene_name: str | None,
             repeats: int = 1) -> Cell:
    from hfrender.engine.render import render

    best = None
    for _ in range(repeats):
        stats = render(scene, config, scene_name=scene_name, count=frames, writer=_Discard())
        fps = stats.frames_written / max(1e-9, stats.seconds - stats.setup_s)
        if best is None or fps > best.fps:
            best = Cell(config.granularity, config.workers, fps, stats.latency_ms,
                        stats.pool_mb, stats.granularity, str(stats.gl_renderer or ""))
    return best


def grid_plan(config: RenderConfig) -> Any:
    """The schedule's plan of one output frame: its sub-frames (``step``) and the halo
    carried (``overlap``), which granularities are made of."""
    from hfrender.engine.memory_fit import schedule_for

    return schedule_for(config).plan(1)


def run_grid(scene: str | Path, config: RenderConfig, frames: int, outputs: list[int],
             workers: list[int], scene_name: str | None = None, repeats: int = 1,
             progress: Callable[[int, int], None] | None = None,
             cells: list[Cell] | None = None) -> tuple[list[Cell], Cell, Any]:
    """The grid (granularities in whole output frames per hyperframe), the auto cell and
    the schedule's plan; ``progress(frames done, frames in all)`` after each cell. A warning
    the scene gives every cell is said once (was: once a cell, 11 times). ``cells``: the
    caller's list, filled as each cell is measured (what a Ctrl-C leaves measured)."""
    plan = grid_plan(config)
    runs = [(g, w) for g in aligned_granularities(plan.step, plan.overlap, outputs)
            for w in workers]
    cells = [] if cells is None else cells

    def cell(granularity: int | str, w: int) -> Cell:
        done = run_cell(scene, config.with_(granularity=granularity, workers=w), frames,
                        scene_name, repeats)
        if progress is not None:
            progress(frames * (len(cells) + 1), frames * (len(runs) + 1))
        return done

    with filtered(_Once):
        for g, w in runs:
            cells.append(cell(g, w))
        # auto granularity with the workers of the best cell: it is the granularity on trial
        auto = cell("auto", max(cells, key=lambda c: c.fps).workers)
    return cells, auto, plan


class _Once(logging.Filter):
    """Each message once through one handler (each handler its own: a record passes
    every handler's filter in turn)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple[int, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.levelno, record.getMessage())
        new = key not in self.seen
        self.seen.add(key)
        return new


def table(cells: list[Cell], auto: Cell | None, plan: Any) -> str:
    """The grid, the best marked, with each granularity's output frames per hyperframe
    (what --outputs gives) and its pool's size (as every size line: ``3.1 MB``), and
    auto's share of the best (None: the cells a Ctrl-C left, auto not measured)."""
    best = max(cells, key=lambda c: c.fps)
    lines = [f"{'granularity':>11} {'frames':>6} {'workers':>7} {'fps':>8} {'latency ms':>10} "
             f"{'pool':>9}"]
    for c in [*cells] + ([] if auto is None else [auto]):
        mark = " best" if c is best else ""
        name = f"auto={c.used}" if c is auto else str(c.granularity)
        per = max(1, (c.used - plan.overlap) // plan.step)
        lines.append(f"{name:>11} {per:>6} {c.workers:>7} {c.fps:8.1f} {c.latency_ms:10.1f} "
                     f"{bytes_said(c.memory_mb * 2**20):>9}{mark}")
    if auto is not None:
        lines.append(f"auto / best = {auto.fps / best.fps:.2f}")
    return "\n".join(lines)


def pyplot() -> Any:
    """matplotlib's pyplot (drawing to files), or one :class:`ConfigError` saying why not:
    not installed, or installed but failing to import (one built for another NumPy)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        if exc.name == "matplotlib":
            raise ConfigError("--plot needs matplotlib: pip install 'hfrender[plot]'") from None
        why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(f"--plot: matplotlib is installed but does not import ({why}): "
                          "pip install -U 'hfrender[plot]'") from None
    return plt


def plot(cells: list[Cell], auto: Cell, path: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for w in sorted({c.workers for c in cells}):
        row = [c for c in cells if c.workers == w]
        ax.plot([c.granularity for c in row], [c.fps for c in row], marker="o",
                label=f"{w} worker{'s' if w > 1 else ''}")
    ax.axhline(auto.fps, linestyle="--", color="gray", label=f"auto ({auto.used})")
    ax.set_xlabel("granularity (sub-frames per hyperframe)")
    ax.set_ylabel("output frames per second")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
