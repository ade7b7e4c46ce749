"""A glTF file's morph targets (for :mod:`hfrender.scene.meshes`): a primitive's ``targets``
(``POSITION`` and ``NORMAL`` deltas), read by :class:`~hfrender.scene.model_skins.Skins`
with its accessor reader, played as the glTF 2.0 spec says (3.7.2.2, "Morph Targets"):

    position = base + sum_k w_k(t) * positionDelta_k
    normal = normalize(base + sum_k w_k(t) * normalDelta_k)

before skinning, at the weights of the mesh's node at a Mesh's ``time`` (its ``weights``
channel, sampled as :mod:`~hfrender.scene.model_animation` samples any: N weights a key;
no channel: the node's ``weights``, else the mesh's, else 0). A target may hold either
delta alone; deltas in sparse accessors (Blender's shape keys) are read as the spec says
(:func:`~hfrender.scene.model_animation.accessor`). ``TANGENT`` deltas are not read
(hfrender draws no tangents): targets of them alone leave the part unmorphed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hfrender.scene.model_animation import weight_row_count
from hfrender.scene.model_parts import _cofactor


@dataclass(frozen=True, eq=False)
class Morph:
    """A morphed part's targets, in the frame of its base (a skinned part's: the glTF
    primitive's, :class:`~hfrender.scene.model_skins.Skinning`'s; else the model's, its node
    transform in), rows as the Part's vertices."""

    node: int  # the glTF node whose weights shape it
    defaults: np.ndarray  # (K,): its weights where no channel gives them
    positions: np.ndarray  # (K, V, 3): each target's position deltas
    normals: np.ndarray | None  # (K, V, 3): its normal deltas (None: its normals kept)
    base_normals: np.ndarray | None  # (V, 3): the base's normals, not normalised (skinned:
    # None, its Skinning's)


def read_morph(get: Callable[[int], np.ndarray], prim: dict, rows: np.ndarray, node: int,
               header: dict, frame: np.ndarray | None, normals: np.ndarray | None
               ) -> Morph | None:
    """Primitive ``prim``'s targets (None: it has none, or none that moves what is drawn:
    ``TANGENT`` deltas alone) at its vertices' ``rows``, read by
    ``get`` (an accessor's rows); ``frame``: the 3x3 its positions are placed by and
    ``normals`` its base normals placed (None: a skinned part, in the primitive's frame)."""
    targets = prim.get("targets") or []
    if not targets:
        return None
    count = len(rows)
    spec = header["nodes"][node]
    defaults = spec.get("weights", header["meshes"][spec["mesh"]].get("weights"))
    defaults = np.zeros(len(targets)) if defaults is None else np.asarray(defaults, float)
    if len(defaults) != len(targets):
        raise ValueError(f"{len(defaults)} default weights for {len(targets)} targets")

    def deltas(name: str, place: np.ndarray | None) -> np.ndarray:
        found = np.zeros((len(targets), count, 3))
        for k, target in enumerate(targets):
            if name in target:
                found[k] = get(target[name])[:, :3][rows]
        return found if place is None else found @ place.T

    moved = normals is not None or frame is None
    turn = None if frame is None else _cofactor(frame)
    normal = deltas("NORMAL", turn) if moved and any("NORMAL" in t for t in targets) else None
    if normal is None and not any("POSITION" in t for t in targets):
        return None  # (TANGENT deltas alone, or NORMAL ones of a part shaded flat: was a
    # Morph of zero deltas, posed each draw for nothing)
    return Morph(node, defaults, deltas("POSITION", frame), normal, normals)


def shaped(morph: Morph, positions: np.ndarray, normals: np.ndarray | None,
           weights: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The base ``positions`` (V, 4, w 1) and ``normals`` (V, 3 or None) moved by the
    targets at ``weights`` (K,): the spec's sums (normals not yet normalised)."""
    moved = positions.copy()
    moved[:, :3] += np.einsum("k,kvl->vl", weights, morph.positions)
    if normals is not None and morph.normals is not None:
        normals = normals + np.einsum("k,kvl->vl", weights, morph.normals)
    return moved, normals


def weights_of(rows: list | np.ndarray, count: int) -> np.ndarray:
    """The ``count`` weights :func:`~hfrender.scene.model_animation.weight_rows` made
    ``rows`` of (or their rates)."""
    return np.asarray(rows, np.float64).reshape(-1)[:count]


def morph_rows(parts: tuple | list) -> dict[int, tuple[int, int]]:
    """Where each morphed part's weights (:func:`~hfrender.scene.model_animation.
    weight_rows`) lie in :meth:`Mesh.part_matrices` (after its parts' and joints'
    matrices), by the part's place: (first row, count of targets)."""
    at, found = matrix_count(parts), {}
    for k, p in enumerate(parts):
        if p.morph is not None:
            count = len(p.morph.defaults)
            found[k], at = (at, count), at + weight_row_count(count)
    return found


def matrix_count(parts: tuple | list) -> int:
    """How many of :meth:`Mesh.part_matrices` are matrices: a part's each and its skinned
    parts' joints' (its morphed parts' weights after)."""
    return len(parts) + sum(len(p.skin.joints) for p in parts if p.skin is not None)
