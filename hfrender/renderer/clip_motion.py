"""Clip matrices and their rates of change: what the velocity plane is drawn from.

:func:`clip_matrices` gives ``proj @ view @ model`` of every object (then of each part of
its animated models) as the scene is now; :func:`clip_rates` takes their central
difference between two times, pairing the objects of the two times by identity where the
scene added or removed one between them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hfrender.scene.meshes import is_model, model_data
from hfrender.scene.model_morphs import matrix_count
from hfrender.scene.objects import world_matrices


def clip_matrices(objects: list, view: np.ndarray, proj: np.ndarray) -> np.ndarray:
    """``proj @ view @ model`` of every one of ``objects`` as it is now, (N, 4, 4) float64,
    then of each part of its animated models, in order; its morphed parts' weights as they
    are (not matrices): :meth:`SceneRenderer.clip_matrices`'s."""
    models = world_matrices(objects)  # (parents' frames in; one array: a particle's 2 us)
    parts, plain = [], []  # an animated model's parts: after; its morph weights: plain
    for obj, m in zip(objects, models, strict=True):
        if moves := part_matrices(obj):
            n = matrix_count(model_data(obj.geometry).parts)
            parts += [m @ c for c in moves[:n]] + moves[n:]
            plain += [False] * n + [True] * (len(moves) - n)
    rows = np.concatenate([models, np.stack(parts)]) if parts else models
    clips = (proj @ view) @ rows
    clips[len(models):][plain] = rows[len(models):][plain]
    return clips


def part_matrices(obj: Any) -> list[np.ndarray] | None:
    """An animated model's parts' matrices (:meth:`Mesh.part_matrices`), else None."""
    return obj.part_matrices() if is_model(obj.geometry) else None


def animated_parts(objects: list) -> dict[int, tuple[int, list[np.ndarray]]]:
    """Each animated model's parts' matrices as it is now, by the model's place among
    ``objects``, with where their rows start in :meth:`SceneRenderer.clip_matrices` (after
    every object's)."""
    found, at = {}, len(objects)
    for i, obj in enumerate(objects):
        moves = part_matrices(obj)
        if moves is not None:
            found[i], at = (at, moves), at + len(moves)
    return found


def clip_rates(before: np.ndarray, after: np.ndarray, dt: float,
               objects: tuple[list, list, list] | None = None) -> np.ndarray:
    """Central differences of :meth:`SceneRenderer.clip_matrices` taken ``dt`` seconds
    apart, in the order of the objects drawn now. ``objects``: the scene's objects
    before, after and now; where their counts differ (one added or removed between the
    two), each is paired with itself, and one missing at either time has no motion.
    Lists of one length pair by place (a scene that makes its objects afresh in every
    ``update`` keeps their order)."""
    if objects is None or len(objects[0]) == len(objects[1]) == len(objects[2]):
        n = min(len(before), len(after))
        return (after[:n] - before[:n]) / dt
    then, later, now = ({id(o): i for i, o in enumerate(objs)} for objs in objects)
    rates = np.zeros((len(now), 4, 4))
    for key, i in now.items():
        if key in then and key in later:
            rates[i] = (after[later[key]] - before[then[key]]) / dt
    return rates
