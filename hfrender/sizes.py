"""How every line hfrender prints says a size in bytes: a file's, a disk's, a store's, and
memory's (``--stats``, ``hfrender info``, the memory refusals of engine/memory_fit.py, fx,
the pool and the GL buffers, what ``--ray`` sends at most); one rule for all (was: four
ways, ``0.3 MB`` and ``307.2 KB`` for the same 300 KiB, ``100.0 MB``, MiB said as MB; and
the memory lines' own GiB, ``1.79e+04 GiB``, ``0 MiB``), ``hfrender bench``'s pool column
too (was ``pool MiB``, its figures 3.0 for a 3.1 MB pool).

The rule: decimal units (1 KB = 1000 bytes, as disks and ``df -H`` count), the largest of
B, KB, MB, GB, TB in which the size is 1 or more; one decimal under 100 of it, whole from
100 up (three figures at most): ``512 B``, ``8.2 KB``, ``307 KB``, ``1.2 MB``, ``18.9 GB``.
A figure that rounds to 1000 is said in the next unit (999.6 KB: ``1.0 MB``). Bytes are
whole. Used by every layer (renderer, hyperframe, io, engine, cli), so it imports nothing
of hfrender."""

from __future__ import annotations

UNITS = ("B", "KB", "MB", "GB", "TB")


def _unit(n: float) -> tuple[float, str, int]:
    """(bytes in the unit, its name, decimals) that ``n`` bytes are said in."""
    size, k = abs(n), 0
    while k < len(UNITS) - 1 and size >= 1000 ** (k + 1):
        k += 1
    while True:
        scale = 1000.0 ** k
        decimals = 0 if k == 0 or round(size / scale, 1) >= 100 else 1
        if k == len(UNITS) - 1 or round(size / scale, decimals) < 1000:
            return scale, UNITS[k], decimals
        k += 1


def bytes_said(n: float) -> str:
    """``n`` bytes by the rule (module docstring): ``307 KB``, ``1.2 MB``, ``18.9 GB``."""
    scale, unit, decimals = _unit(n)
    return f"{n / scale:.{decimals}f} {unit}"


def range_said(low: float, high: float) -> str:
    """``low`` to ``high`` bytes in ``high``'s unit and decimals: ``0.2 to 1.2 MB``,
    ``23 to 138 KB``."""
    scale, unit, decimals = _unit(high)
    return f"{low / scale:.{decimals}f} to {high / scale:.{decimals}f} {unit}"
