"""A glTF file's skins (for :mod:`hfrender.scene.meshes`): read from its JSON and buffers
(trimesh reads none of them) by :mod:`~hfrender.scene.model_animation`'s accessor reader,
and played by linear blend skinning as the glTF 2.0 spec says (3.7.3, "Skins"):

    vertex' = sum_i w_i * (jointWorld_i(t) * inverseBind_i) * vertex

in the model's frame (the skinned mesh node's own transform is not used), normals by each
vertex's blended matrix's inverse transpose (its cofactors), renormalised. A vertex follows
its influences of every set of ``JOINTS_n`` and ``WEIGHTS_n`` (4 a set: 8 with
``JOINTS_1``), the weights scaled to sum 1 as three.js and Blender scale them (all 0: its
first weighed 1, as three.js does, said once a file). A set's joints without its weights
(or the reverse), a NaN or negative weight, a weighed joint past the skin's, or one whose
inverse bind matrix holds NaN or has no inverse, is refused in one line naming the file,
the mesh, the primitive and what is wrong. A skinned Part keeps its vertices as trimesh
placed them (not drawn so: at ``time`` None it is posed at its joints' rest transforms, as
viewers show it) and its :class:`Skinning`: the renderer poses it in its vertex shader
(:mod:`hfrender.renderer.skinning`, the same maths), :func:`posed` here the reference (and
the way of a part the shader cannot take)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.scene.model_animation import accessor
from hfrender.scene.model_files import ModelError
from hfrender.scene.model_morphs import read_morph, shaped
from hfrender.scene.model_parts import Part, _cofactor, source_rows

_SET = re.compile(r"(JOINTS|WEIGHTS)_(\d+)$")  # a primitive's sets of 4 influences


@dataclass(frozen=True, eq=False)
class Skinning:
    """A skinned part's joints and its vertices' influences, in the glTF primitive's own
    frame (its rows as the Part's vertices)."""

    joints: tuple[int, ...]  # the glTF node of each joint
    inverse_binds: np.ndarray  # (J, 4, 4)
    influences: np.ndarray  # (V, 4 n) int64: each vertex's joints (n sets), rows of ``joints``
    weights: np.ndarray  # (V, 4 n): their weights, summing to 1
    positions: np.ndarray  # (V, 4): the primitive's positions, w 1
    normals: np.ndarray | None  # (V, 3): its normals (None: shaded flat)
    # its node's rest transform mirrors: the Part's faces were turned for it, and a pose
    # (which leaves that transform out) turns them back
    mirrored: bool = False
    used: np.ndarray | None = None  # the joints (rows of ``joints``) a vertex weighs; None: all


def blended(skinning: Skinning, matrices: np.ndarray) -> np.ndarray:
    """Each vertex's matrix (V, 4, 4): its influences' ``matrices`` (one a joint) by
    weight."""
    return np.einsum("vi,vikl->vkl", skinning.weights, matrices[skinning.influences])


def facing(skinning: Skinning, matrices: np.ndarray) -> int:
    """How the joints' ``matrices`` (J, 4, 4) turn the part's faces: 1 where every joint
    its vertices weigh keeps their winding, -1 where every one mirrors it (a negative
    determinant: a joint scaled -1 in x), 0 where some do and some do not (its faces can
    face either way: drawn from both sides)."""
    used = slice(None) if skinning.used is None else skinning.used
    turns = np.linalg.det(matrices[used, :3, :3])
    return 1 if (turns > 0).all() else -1 if (turns < 0).all() else 0


def posed(part: Part, matrices: np.ndarray | None, rates: np.ndarray | None,
          shape: tuple | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """A skinned or morphed ``part``'s vertices at its joints' ``matrices`` (J, 4, 4, the
    model's frame; unskinned: None) and ``shape``: its morph weights (K,), their rates (K,
    or None) and its clip matrix now (a skinned part's: the Mesh's, else its own), the
    targets first (:func:`~hfrender.scene.model_morphs.shaped`); where ``rates`` (J, 4, 4:
    d/dt of the joints' clip matrices) and the weights' rates are given, each vertex's
    clip-space rate (V, 4) float32 (its velocity, a morphed unskinned part's less its own
    matrix's motion: its u_clip_rate's; else None)."""
    skin, morph = part.skin, part.morph
    if skin is not None:
        positions, normals = skin.positions, skin.normals
    else:  # (morphed alone: its vertices as placed, its node transform in)
        positions = np.column_stack([part.vertices["position"], np.ones(len(part.vertices))])
        normals = morph.base_normals
    if morph is not None:
        positions, normals = shaped(morph, positions, normals, shape[0])
    vertices = part.vertices.copy()
    each = None if skin is None else blended(skin, matrices)
    vertices["position"] = positions[:, :3] if each is None else np.einsum(
        "vkl,vl->vk", each[:, :3], positions)
    if normals is not None:
        if each is not None:  # (its inverse transpose, less 1/det: a joint's scale of
            normals = np.einsum(  # (2, 1, 1) tips them as it should; was: each[:, :3, :3])
                "vkl,vl->vk", _cofactor(each[:, :3, :3]), normals)
        vertices["normal"] = normals / np.maximum(
            np.linalg.norm(normals, axis=1, keepdims=True), 1e-30)
    if (skin is not None and rates is None) or (morph is not None and shape[1] is None):
        return vertices, None
    rate = np.zeros((len(positions), 4)) if skin is None else np.einsum(
        "vkl,vl->vk", blended(skin, rates), positions)
    if morph is not None:  # the targets' sweep: its clip matrix x sum_k dw_k/dt * delta_k
        sweep = np.einsum("k,kvl->vl", shape[1], morph.positions)
        rate += sweep @ shape[2][:, :3].T if each is None else np.einsum(
            "kl,vlm,vm->vk", shape[2], each[:, :, :3], sweep)
    return vertices, rate.astype(np.float32)


def influence_sets(shown: Path, at: dict, where: str) -> int:
    """How many sets of 4 influences (``JOINTS_n`` with ``WEIGHTS_n``) a primitive's
    attributes ``at`` hold; a set's joints without its weights (or the reverse) refused in
    one line naming the file ``shown`` and the primitive (``where``; was: drawn unskinned,
    unsaid)."""
    found = {(m[1], int(m[2])) for m in map(_SET.match, at) if m}
    sets = 1 + max((n for _, n in found), default=-1)
    for n in range(sets):
        have = [f"{k}_{n}" for k in ("JOINTS", "WEIGHTS") if (k, n) in found]
        if len(have) < 2:
            gone = " or ".join(f"{k}_{n}" for k in ("JOINTS", "WEIGHTS") if (k, n) not in found)
            raise ModelError(f"{shown}: {where} has {have[0] if have else f'set {sets - 1}'} "
                             f"but no {gone}: a skinned primitive's joints and weights come "
                             "in pairs (JOINTS_n with WEIGHTS_n)")
    return sets


def broken_binds(inverse: np.ndarray) -> tuple[int, str] | None:
    """The first of the inverse bind matrices ``inverse`` (J, 4, 4) that cannot bind, and
    why: one holding NaN or infinity, or one of no inverse (its 3x3's determinant 0, or
    below 1e-9 of its longest row's cube: a joint of no size when bound); else None."""
    m = inverse[:, :3, :3]
    with np.errstate(invalid="ignore", over="ignore"):
        det = np.linalg.det(np.nan_to_num(m))
        flat = ~(np.abs(det) > 1e-9 * np.linalg.norm(np.nan_to_num(m), axis=2).max(1) ** 3)
    for k in range(len(inverse)):
        if not np.isfinite(inverse[k]).all():
            return k, "holds nan or infinity"
        if flat[k]:
            return k, (f"has no inverse (a determinant of {det[k]:.3g}: its joint of no size "
                       "when bound)")
    return None


def skin_starts(parts: tuple[Part, ...] | list[Part]) -> dict[int, int]:
    """Where each skinned part's joint matrices start in :meth:`Mesh.part_matrices`
    (after one matrix a part), by the part's place."""
    starts, at = {}, len(parts)
    for k, p in enumerate(parts):
        if p.skin is not None:
            starts[k], at = at, at + len(p.skin.joints)
    return starts


class Skins:
    """A glTF file's skins and morph targets, put on its parts (:meth:`attach`); what of
    them it cannot play, one line each in :attr:`said` (to be warned once)."""

    def __init__(self, shown: Path, path: Path, header: dict, buffers: dict[int, bytes]
                 ) -> None:
        self.shown, self.path, self.header = shown, path, header
        self.buffers = buffers  # the file's, shared with read_animations (read once)
        self.read: dict[int, tuple[tuple[int, ...], np.ndarray]] = {}
        # vertices whose weights are all 0, by WEIGHTS_0 accessor (a mesh two nodes
        # show is attached twice: its vertices counted once)
        self.unweighed: dict[int, int] = {}
        self._said: list[str] = []

    def attach(self, made: Part, mesh: Any, node: int | None, frame: np.ndarray) -> Part:
        """``made`` (trimesh's geometry ``mesh`` at glTF node ``node``, placed by ``frame``)
        with its skin where the node has one and a primitive of its mesh has ``JOINTS_n``
        and ``WEIGHTS_n``, its morph targets where that primitive has ``targets`` (found by
        its positions: trimesh keeps their rows); else as it is."""
        nodes = self.header.get("nodes", ())
        if node is None or "mesh" not in nodes[node]:
            return made
        spec = nodes[node]
        if "skin" in spec:
            index = spec["skin"]
            skin_name = self.header["skins"][index].get("name") or f"#{index}"
            what = f"skin {skin_name!r}"
        else:
            mesh_name = self.header["meshes"][spec["mesh"]].get("name") or f"#{spec['mesh']}"
            what = f"mesh {mesh_name!r}'s morph targets"
        try:
            return self._attach(made, mesh, node, frame[:3, :3], what)
        except ModelError:  # (said already, in one line)
            raise
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, OSError) as exc:
            raise ModelError(f"{self.shown}: cannot read its {what}: "
                             f"{type(exc).__name__}: {exc}") from None

    def _attach(self, made: Part, mesh: Any, node: int, frame: np.ndarray, what: str
                ) -> Part:
        spec = self.header["nodes"][node]
        skinned = "skin" in spec

        def played(prim: dict) -> bool:
            at = prim.get("attributes", {})
            return bool(prim.get("targets")) or (skinned and any(map(_SET.match, at)))

        vertices = np.asarray(mesh.vertices, np.float64)
        mesh_spec = self.header["meshes"][spec["mesh"]]
        primitives = [(k, p) for k, p in enumerate(mesh_spec["primitives"]) if played(p)]
        named = mesh_spec.get("name") or f"#{spec['mesh']}"
        for k, prim in primitives:
            at = prim["attributes"]
            if not np.array_equal(self._get(at["POSITION"]), vertices):
                continue
            where = f"primitive {k} of its mesh {named!r}" + f" ({what})" * skinned
            rows = source_rows(mesh)
            rows = np.arange(len(vertices)) if rows is None else rows
            normals = np.asarray(mesh.vertex_normals, np.float64)[rows] if made.smooth \
                else None
            sets = influence_sets(self.shown, at, where) if skinned else 0
            skin = self._skinning(at, sets, self._skin(spec["skin"], what), vertices, rows,
                                  normals, where) if sets else None
            if skin is not None and np.linalg.det(frame) < 0:
                skin = replace(skin, mirrored=True)
            morph = read_morph(self._get, prim, rows, node, self.header,
                               None if skin else frame,
                               None if skin or normals is None else normals @ _cofactor(
                                   frame).T)
            return replace(made, node=None if skin else made.node, skin=skin, morph=morph)
        if primitives:
            self._say(f"{self.shown}: a part of its {what} is drawn in its rest pose: "
                      "its vertices are not the file's (trimesh changed them)")
        return made

    def _skinning(self, at: dict, sets: int, skin: tuple[tuple[int, ...], np.ndarray],
                  vertices: np.ndarray, rows: np.ndarray, normals: np.ndarray | None,
                  where: str) -> Skinning:
        """A primitive's (its ``at``tributes, ``sets`` of influences) Skinning of ``skin``
        (:meth:`_skin`'s); a weighed joint's broken inverse bind matrix refused in one
        line."""
        joints, inverse = skin
        influences, weights = self._influences(at, sets, len(vertices), len(joints), where)
        used = np.unique(influences[weights > 0.0])
        if bad := broken_binds(inverse[used]):
            at_joint, why = used[bad[0]], bad[1]
            node = self.header["nodes"][joints[at_joint]].get("name") or f"#{joints[at_joint]}"
            raise ModelError(f"{self.shown}: {where}: the inverse bind matrix of joint "
                             f"{at_joint} (node {node!r}) {why}; re-export it with the "
                             "armature in its rest pose")
        influences, weights = influences[rows], weights[rows]
        return Skinning(joints, inverse, influences, weights,
                        np.column_stack([vertices[rows], np.ones(len(rows))]), normals,
                        used=np.unique(influences[weights > 0.0]))

    def _skin(self, index: int, what: str) -> tuple[tuple[int, ...], np.ndarray]:
        """Skin ``index``'s joints and inverse bind matrices (none: identities); a count
        of matrices other than of joints, or a joint at a node the file has not, refused in
        one line."""
        if index not in self.read:
            skin = self.header["skins"][index]
            joints = tuple(int(j) for j in skin["joints"])
            if "inverseBindMatrices" not in skin:
                inverse = np.tile(np.eye(4), (len(joints), 1, 1))
            else:
                inverse = self._get(skin["inverseBindMatrices"]).reshape(-1, 4, 4)
                inverse = inverse.transpose(0, 2, 1)  # (glTF's matrices: column-major)
            if len(inverse) != len(joints) or not joints:
                raise ModelError(f"{self.shown}: its {what} has {len(joints)} joints "
                                 f"and {len(inverse)} inverseBindMatrices: a skin needs one "
                                 "matrix a joint")
            nodes = len(self.header.get("nodes", ()))
            if gone := [k for k, j in enumerate(joints) if not 0 <= j < nodes]:
                raise ModelError(f"{self.shown}: its {what} has joint {gone[0]} at node "
                                 f"{joints[gone[0]]}, but the file has {nodes} nodes (0 to "
                                 f"{nodes - 1})")
            self.read[index] = (joints, inverse)
        return self.read[index]

    def _influences(self, at: dict, sets: int, count: int, joints: int, where: str
                    ) -> tuple[np.ndarray, np.ndarray]:
        """A primitive's ``sets`` of JOINTS_n and WEIGHTS_n side by side (V, 4 x sets),
        its weights scaled to sum 1; a NaN or negative weight, or a joint past the skin's
        with a weight, refused in one line."""
        influences = np.hstack([self._get(at[f"JOINTS_{n}"]) for n in range(sets)])
        weights = np.hstack([self._get(at[f"WEIGHTS_{n}"]) for n in range(sets)])
        if influences.shape != (count, 4 * sets) or weights.shape != (count, 4 * sets):
            raise ValueError(f"JOINTS_n {influences.shape} and WEIGHTS_n {weights.shape} "
                             f"for {count} vertices (each VEC4, one a vertex)")
        if (wrong := ~(weights >= 0.0)).any():  # (NaN too)
            vertex, column = (int(i[0]) for i in np.nonzero(wrong))
            raise ModelError(f"{self.shown}: {where}: vertex {vertex} has weight "
                             f"{weights[vertex, column]} (WEIGHTS_{column // 4}): weights "
                             "are numbers of 0 or more")
        influences = influences.astype(np.int64)
        total = weights.sum(axis=1, keepdims=True)
        if (unweighed := total[:, 0] <= 0).any():  # (three.js's answer: its first influence
            weights[unweighed, 0], total[unweighed] = 1.0, 1.0  # weighed 1; was: at origin)
            self.unweighed[at["WEIGHTS_0"]] = int(unweighed.sum())  # (once an accessor)
        weighed = weights > 0.0
        if (bad := ((influences >= joints) | (influences < 0)) & weighed).any():
            raise ModelError(f"{self.shown}: {where}: a vertex follows joint "
                             f"{int(influences[bad][0])}, but the skin has {joints} "
                             f"joint{'s' * (joints != 1)} (0 to {joints - 1})")
        influences = np.where(weighed, influences, 0)  # (an unweighed one: any joint)
        return influences, weights / total

    def _get(self, index: int) -> np.ndarray:
        return accessor(self.path, self.header, index, self.buffers)

    def _say(self, line: str) -> None:
        if line not in self._said:
            self._said.append(line)

    @property
    def said(self) -> list[str]:
        """What of the file's skins it cannot play as written, one line each."""
        n = sum(self.unweighed.values())
        many = ("vertices", "have", "each follows") if n > 1 else ("vertex", "has", "it follows")
        return self._said + [f"{self.shown}: {n} {many[0]} of its skins {many[1]} all their "
                             f"weights 0 (glTF asks for a sum of 1): {many[2]} its first "
                             "joint alone, as three.js draws it"] * (n > 0)
