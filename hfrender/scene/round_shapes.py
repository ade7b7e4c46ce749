"""The geometry of the cylinder, the cone and the torus (:mod:`hfrender.scene.objects`):
unit shapes about the y axis, centred at the origin, made by turning a profile about y,
and their levels of detail by their size on the picture, as the sphere's.

Unit shapes (a model matrix scales them to an object's size): a cylinder of radius 1 from
y = -0.5 to 0.5; a cone of base radius 1 at y = -0.5, its apex at y = 0.5; a torus whose
outer radius is 1, its tube ``b`` of it (``"torus:0.2308"``; the ring through the tube's
centre 1 - b). Curved surfaces have smooth normals, caps flat ones (their own vertices).
The faces wind as the sphere's (clockwise seen from outside), which
:func:`hfrender.renderer.translucent.outside` relies on.
"""

from __future__ import annotations

import math

import numpy as np

ROUND = ("cylinder", "cone", "torus")
# the levels: segments around the axis (a torus's tube half as many). The full 256 keep a
# 1080p close-up's outline smooth: an N-gon of radius r px errs by r pi^2 / (2 N^2), 0.04
# px for a radius of 540 px (the picture's half height); the sphere's 64 err 0.65 px there
SEGMENTS = (8, 16, 32, 64, 128, 256)
OUTLINE_PX = 0.025  # how far a coarser level's outline may stray from the circle (the
# sphere's rule, measured: objects.sphere_geometry)


def outline_scale(n: int) -> float:
    """How much larger a coarse level's circle of ``n`` segments is drawn, so its outline,
    an N-gon, covers the circle's area (an inscribed one falls short all round)."""
    return math.sqrt(math.pi / (n / 2 * math.sin(2 * math.pi / n)))


def level(radius_px: float, segments: tuple[int, ...], outline_px: float) -> int:
    """The fewest of ``segments`` whose outline keeps within ``outline_px`` of a circle of
    ``radius_px`` pixels (N >= pi sqrt(r / (2 e))), the last where none does."""
    return int(levels_of(np.array([radius_px], np.float64), segments, outline_px)[0])


def levels_of(radius_px: np.ndarray, segments: tuple[int, ...], outline_px: float
              ) -> np.ndarray:
    """:func:`level` of each of ``radius_px``, in one pass (a sub-frame's objects: was a
    call each, 1.5 us; NumPy's square root is rounded as math's)."""
    need = math.pi * np.sqrt(np.maximum(radius_px, 0.0) / (2 * outline_px))
    short = sum((~(n >= need)).astype(np.intp) for n in segments)  # too few (NaN: all)
    return np.asarray(segments)[np.minimum(short, len(segments) - 1)]


def tube_reach(kind: str) -> float:
    """How much a round shape ``kind``'s circle is widened to pick its level: a torus's
    tube, of half the segments, asks as much as a circle of 4 tubes' radius."""
    return max(1.0, 4.0 * tube(kind)) if kind.startswith("torus") else 1.0


def round_named(kind: str, n: int) -> str:
    """The geometry of round shape ``kind`` at ``n`` segments (the full one: ``kind``)."""
    return kind if n == SEGMENTS[-1] else f"{kind}:{n}"


def tube(kind: str) -> float:
    """A torus geometry's tube, its share of the outer radius (``"torus:0.25:16"``: 0.25)."""
    return float(kind.split(":")[1])


def round_level(kind: str, radius_px: float, outline_px: float = OUTLINE_PX) -> str:
    """The geometry drawn for a round shape ``kind`` (``"cylinder"``, ``"torus:0.3"``)
    whose circle about its axis is ``radius_px`` on the picture: a coarser level
    (``"cylinder:16"``, ``"torus:0.3:16"``) while its outline keeps within ``outline_px``,
    else ``kind`` itself, the full one (a torus's circle widened: :func:`tube_reach`)."""
    return round_named(kind, level(radius_px * tube_reach(kind), SEGMENTS, outline_px))


def half_extents(kind: str) -> tuple[float, float, float]:
    """How far the unit shape ``kind`` reaches along x, y and z (its box's half)."""
    return (1.0, tube(kind) if kind.startswith("torus") else 0.5, 1.0)


def round_mesh(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (V, 6) float32 position + normal, indices int32) of a round geometry."""
    parts = kind.split(":")
    n = int(parts[-1]) if len(parts) > (2 if parts[0] == "torus" else 1) else SEGMENTS[-1]
    k = 1.0 if n == SEGMENTS[-1] else outline_scale(n)
    if parts[0] == "cylinder":
        return _joined([_revolve([(0, .5), (k, .5)], [(0, 1)] * 2, n),
                        _revolve([(k, .5), (k, -.5)], [(1, 0)] * 2, n),
                        _revolve([(k, -.5), (0, -.5)], [(0, -1)] * 2, n)])
    if parts[0] == "cone":  # its side's normal (h, r) / |(h, r)|, of a unit radius and height
        # in rings 1.25x wider from the apex down: a band's faces, trapezoids, blend their
        # normals across a face as a rectangle's; as one band, a 64-segment side was lit up
        # to 0.006 off the formula, 0.0008 in these 15 (measured: tests/test_round_shapes)
        side = [(k * t, 0.5 - t) for t in (0.0, *(0.8 ** np.arange(14, -1, -1)))]
        return _joined([_revolve(side, [(math.sqrt(.5), math.sqrt(.5))] * 16, n, apex=True),
                        _revolve([(k, -.5), (0, -.5)], [(0, -1)] * 2, n)])
    if parts[0] == "torus":
        b = tube(kind)
        m = max(n // 2, 8)
        v = np.linspace(0.0, 2 * math.pi, m + 1)  # from its top, outward, down, in, up
        kt = 1.0 if n == SEGMENTS[-1] else outline_scale(m)
        profile = np.stack([np.maximum(k * (1 - b) + kt * b * np.sin(v), 0.0),  # (the
                            kt * b * np.cos(v)], 1)  # coarse one's, past the axis: on it)
        return _joined([_revolve(profile, np.stack([np.sin(v), np.cos(v)], 1), n)])
    raise ValueError(f"unknown geometry {kind!r}")


def _revolve(profile: list | np.ndarray, normals: list | np.ndarray, n: int,
             apex: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The surface of the (radius, y) points of ``profile`` turned about y in ``n``
    segments, with its (radial, y) ``normals``; its rows from top to bottom as the
    sphere's, so its faces wind as the sphere's. ``apex``: the first row's normals turned
    half a segment back, to the middle of the one face each meets (a cone's tip)."""
    p, nrm = np.asarray(profile, np.float64), np.asarray(normals, np.float64)
    nrm = nrm / np.linalg.norm(nrm, axis=1, keepdims=True)
    ph = np.linspace(0.0, 2 * math.pi, n + 1)[None, :]
    turn = np.zeros((len(p), 1))
    if apex:
        turn[0] = -math.pi / n
    cos, sin, rows = np.cos(ph), np.sin(ph), len(p)
    where = np.stack(np.broadcast_arrays(p[:, :1] * cos, p[:, 1:] + 0 * ph, p[:, :1] * sin), -1)
    facing = np.stack(np.broadcast_arrays(nrm[:, :1] * np.cos(ph + turn), nrm[:, 1:] + 0 * ph,
                                          nrm[:, :1] * np.sin(ph + turn)), -1)
    v = np.concatenate([where.reshape(-1, 3), facing.reshape(-1, 3)], axis=1)
    return v, grid(rows, n)


def grid(rows: int, n: int) -> np.ndarray:
    """The triangles' indices of ``rows`` rows of ``n + 1`` vertices each (a sphere's or a
    turned profile's, from top to bottom), two a quad between neighbouring rows, wound
    clockwise seen from outside."""
    i, j = np.meshgrid(np.arange(rows - 1), np.arange(n), indexing="ij")
    a = (i * (n + 1) + j).ravel()
    b, c, d = a + n + 1, a + 1, a + n + 2
    return np.stack([a, b, c, c, b, d], 1).ravel()


def _joined(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """One mesh of ``parts`` (vertices, indices), each part's indices moved past the ones
    before it."""
    verts, idx, base = [], [], 0
    for v, i in parts:
        verts.append(v)
        idx.append(i + base)
        base += len(v)
    return np.concatenate(verts).astype(np.float32), np.concatenate(idx).astype(np.int32)


def support(kind: str, rows: np.ndarray) -> np.ndarray:
    """The farthest each of ``rows`` (directions in the unit shape's frame, (3, 3): a model
    matrix's rows) reaches over the unit shape ``kind``: row i of a matrix M gives how far
    M's shape reaches along the world's axis i, exactly (a turned cylinder's box)."""
    ring = np.hypot(rows[:, 0], rows[:, 2])  # a unit circle about y, seen along a row
    up = rows[:, 1]
    if kind == "cylinder":
        return ring + 0.5 * np.abs(up)
    if kind == "cone":  # its base circle at -0.5, or its apex at 0.5
        return np.maximum(ring - 0.5 * up, 0.5 * up)
    b = tube(kind)  # a torus: its ring's circle widened by the tube all round
    return (1 - b) * ring + b * np.linalg.norm(rows, axis=1)
