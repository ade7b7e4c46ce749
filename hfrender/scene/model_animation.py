"""A glTF file's node animations (for :mod:`hfrender.scene.meshes`): read from its JSON and
buffers (trimesh reads none of them), sampled at a time as the glTF 2.0 spec says.

Channels on nodes' ``translation``, ``rotation`` and ``scale`` are played, interpolated
``LINEAR`` (rotations by slerp), ``STEP`` or ``CUBICSPLINE`` (Hermite, from the in-tangent,
value, out-tangent triplets), rotations normalised after; before the first key the first
holds, past the last the last (glTF's clamping). Skins are played by
:mod:`~hfrender.scene.model_skins` and morph targets by
:mod:`~hfrender.scene.model_morphs` (their joints' matrices and weights:
:meth:`Animations.pose`; a ``weights`` channel's N weights a key). A part's matrix at a
time is its node's animated world matrix times the inverse of its rest one (its vertices
have the rest one baked in)."""

from __future__ import annotations

import base64
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

import numpy as np

from hfrender.errors import InputError
from hfrender.scene.model_files import ModelError

_COMPONENTS = {5120: "i1", 5121: "u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
_NORMALISED = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
PATHS = ("translation", "rotation", "scale")
READ = (*PATHS, "weights")  # the channels read (weights: model_morphs')
KEPT = 8  # times whose part matrices an Animations keeps (Animations.pose)
# guards every Animations' _kept and _rest: a model (and its Animations) is shared by the
# threads that draw it (was: two posing one file at once, a KeyError or RuntimeError in
# _kept's pop); held for a look-up or a store, never while a pose is found
_KEEPING = threading.Lock()
_REST = {"translation": (0.0, 0.0, 0.0), "rotation": (0.0, 0.0, 0.0, 1.0),
         "scale": (1.0, 1.0, 1.0)}


@dataclass(frozen=True, eq=False)
class Channel:
    """One node's one property over time: ``values`` (K, n), or (K, 3, n) of CUBICSPLINE
    (in-tangent, value, out-tangent) at the K ``times``."""

    node: int
    path: str
    times: np.ndarray
    values: np.ndarray
    interpolation: str


@dataclass(frozen=True, eq=False)
class Animations:
    """A file's animations, by name in the file's order, and its node tree."""

    names: tuple[str, ...]
    channels: tuple[tuple[Channel, ...], ...]  # each animation's
    nodes: tuple[dict, ...]  # the file's nodes (their rest TRS or matrix)
    parents: dict[int, int]
    moved: frozenset[int]  # the nodes any animation moves
    _rest: dict = field(default_factory=dict, repr=False)  # pose(): rest matrices inverted
    _kept: dict = field(default_factory=dict, repr=False)  # pose(): its last KEPT answers

    def duration(self, which: int) -> float:
        """Seconds from 0 to animation ``which``'s last key (none: 0)."""
        return max((float(c.times[-1]) for c in self._channels(which)), default=0.0)

    def _channels(self, which: int | None) -> tuple[Channel, ...]:
        """Animation ``which``'s channels (None, or a file of skins or morph targets and no
        animations: none)."""
        return () if which is None or not self.channels else self.channels[which]

    def lineage(self, node: int | None) -> Iterator[int]:
        """``node``, then its parents to the root (a broken file's cycle ended)."""
        seen = set()
        while node is not None and node not in seen:
            seen.add(node)
            yield node
            node = self.parents.get(node)

    def carrier(self, node: int) -> int | None:
        """The nearest of ``node`` and its parents that an animation moves (its parts move
        with that one's frame), or None."""
        return next((n for n in self.lineage(node) if n in self.moved), None)

    def world(self, node: int, which: int | None, t: float) -> np.ndarray:
        """``node``'s world matrix at ``t`` in animation ``which`` (None: at rest)."""
        return self._world(node, self._posed(which, t), {})

    def _posed(self, which: int | None, t: float) -> dict[tuple[int, str], np.ndarray]:
        """Each channel's value at ``t`` by (node, path), sampled once (None: at rest)."""
        return {(c.node, c.path): sample(c, t) for c in self._channels(which)}

    def _world(self, node: int, posed: dict, worlds: dict[int, np.ndarray]) -> np.ndarray:
        """``node``'s world matrix with the values ``posed``, ``worlds`` those found so far
        (a parent's found once for all its children)."""
        chain, seen = [], set()
        while node is not None and node not in worlds and node not in seen:
            seen.add(node)
            chain.append(node)
            node = self.parents.get(node)
        m = worlds.get(node, np.eye(4)) if node is not None else np.eye(4)
        for n in reversed(chain):
            m = worlds[n] = m @ _local(self.nodes[n], {p: posed[(n, p)] for p in PATHS
                                                      if (n, p) in posed})
        return m

    def pose(self, parts: tuple, which: int | None, t: float) -> list[np.ndarray]:
        """:meth:`Mesh.part_matrices` of ``parts`` (:class:`~hfrender.scene.model_parts.
        Part`) at ``t`` in animation ``which`` (None: at rest): each part's matrix (its
        carrier's animated world matrix x its rest one's inverse; a part no animation moves,
        or at rest: the identity), then each skinned part's joints' (a joint node's animated
        world matrix x its inverse bind matrix: glTF's joint matrix, the skinned mesh node's
        own transform not used), then each morphed part's weights (:func:`weight_rows`).
        The channels are sampled once and each node's matrix found once, for the parts and
        the joints together (was: every channel sampled again for each node, 1.7 s a call
        for 300 animated nodes; then again for the joints); the last few times asked are
        kept (a sub-frame asks at its time more than once: its draw, its velocity's rows)."""
        key = (id(parts), which, float(t))
        with _KEEPING:
            kept = self._kept.get(key)
        if kept is not None:
            return list(kept)
        posed, worlds = self._posed(which, t), {}
        found: dict[int | None, np.ndarray] = {None: np.eye(4)}
        for node in () if which is None else (p.node for p in parts):
            if node not in found:
                with _KEEPING:
                    rest = self._rest.get(node)
                if rest is None:  # its rest world matrix inverted: found once
                    rest = self._unbaked(node)
                    with _KEEPING:
                        self._rest[node] = rest
                found[node] = self._world(node, posed, worlds) @ rest
        out = [found.get(p.node, found[None]) for p in parts]
        out += [self._world(j, posed, worlds) @ inverse for p in parts if p.skin is not None
                for j, inverse in zip(p.skin.joints, p.skin.inverse_binds, strict=True)]
        out += [row for p in parts if p.morph is not None
                for row in weight_rows(posed.get((p.morph.node, "weights"),
                                                  p.morph.defaults))]
        with _KEEPING:
            if len(self._kept) >= KEPT:
                self._kept.pop(next(iter(self._kept)))
            self._kept[key] = out
        return list(out)

    def check_weights(self, shown: Path, parts: tuple | list) -> None:
        """Each morphed part's (:class:`~hfrender.scene.model_morphs.Morph`) ``weights``
        channels: one of another count of weights a key than its mesh's targets refused in
        one line naming the file ``shown`` and the node (was: only once drawn at a time)."""
        for morph in (p.morph for p in parts if p.morph is not None):
            for c in (c for found in self.channels for c in found):
                if (c.node, c.path) == (morph.node, "weights") and \
                        c.values.shape[-1] != len(morph.defaults):
                    name = self.nodes[morph.node].get("name") or f"#{morph.node}"
                    raise ModelError(
                        f"{shown}: its node {name!r} is given {c.values.shape[-1]} morph "
                        f"weights a key by its animation, but its mesh has "
                        f"{len(morph.defaults)} morph targets: a weights channel needs one "
                        "weight a target")

    def _unbaked(self, node: int) -> np.ndarray:
        """The inverse of ``node``'s rest world matrix (its parts' vertices have it baked
        in); one of no size (a scale of 0) refused in one line (was: numpy's 'Singular
        matrix')."""
        try:
            return np.linalg.inv(self._world(node, {}, {}))
        except np.linalg.LinAlgError:
            name = self.nodes[node].get("name") or f"#{node}"
            raise InputError(f"its node {name!r} has no size in its rest pose (a scale of 0: "
                             "its parts are stored flat in it), so its animation cannot move "
                             "them; export it at a frame where it has a size") from None


def _local(node: dict, posed: dict) -> np.ndarray:
    """A node's local matrix: its ``matrix``, or T x R x S (``posed`` overriding them)."""
    if "matrix" in node and not posed:
        return np.array(node["matrix"], np.float64).reshape(4, 4).T
    t, r, s = (np.asarray(posed.get(p, node.get(p, _REST[p])), np.float64) for p in PATHS)
    m = np.eye(4)
    m[:3, :3] = quaternion_matrix(r) * s
    m[:3, 3] = t
    return m


def quaternion_matrix(q: np.ndarray) -> np.ndarray:
    """The rotation of a glTF quaternion (x, y, z, w), normalised."""
    x, y, z, w = np.asarray(q, np.float64) / (np.linalg.norm(q) or 1.0)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def slerp(a: np.ndarray, b: np.ndarray, u: float) -> np.ndarray:
    """Spherical interpolation of unit quaternions, the shorter way round."""
    dot = float(np.dot(a, b))
    if dot < 0.0:
        b, dot = -b, -dot
    if dot > 0.9995:  # nearly the same: a straight line, normalised
        q = a + u * (b - a)
        return q / np.linalg.norm(q)
    theta = math.acos(min(dot, 1.0))
    return (math.sin((1 - u) * theta) * a + math.sin(u * theta) * b) / math.sin(theta)


def sample(channel: Channel, t: float) -> np.ndarray:
    """``channel``'s value at ``t`` (clamped to its first and last keys)."""
    times, values, kind = channel.times, channel.values, channel.interpolation
    cubic = kind == "CUBICSPLINE"
    if t <= times[0] or len(times) == 1:
        value = values[0, 1] if cubic else values[0]
    elif t >= times[-1]:
        value = values[-1, 1] if cubic else values[-1]
    else:
        k = int(np.searchsorted(times, t, side="right")) - 1
        span = float(times[k + 1] - times[k])
        u = (t - float(times[k])) / span
        if kind == "STEP":
            value = values[k]
        elif cubic:
            value = hermite(values[k, 1], span * values[k, 2], values[k + 1, 1],
                            span * values[k + 1, 0], u)
        elif channel.path == "rotation":
            value = slerp(values[k], values[k + 1], u)
        else:
            value = values[k] + u * (values[k + 1] - values[k])
    if channel.path == "rotation":
        value = value / (np.linalg.norm(value) or 1.0)
    return np.asarray(value, np.float64)


def hermite(p0: np.ndarray, m0: np.ndarray, p1: np.ndarray, m1: np.ndarray,
            u: float) -> np.ndarray:
    """The cubic Hermite spline of the glTF spec (Appendix C) at ``u`` in 0..1."""
    u2, u3 = u * u, u * u * u
    return ((2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * m0 + (-2 * u3 + 3 * u2) * p1
            + (u3 - u2) * m1)


def read_animations(shown: Path, path: Path, header: dict, buffers: dict[int, bytes]
                    ) -> Animations | None:
    """The node animations of the glTF file ``path`` (its JSON ``header``), or None where
    it has none (a file of skins or morph targets without any: none named, for its rest
    pose: :meth:`Animations.pose` at None); a broken one refused in one line naming the
    file. ``buffers``: the file's buffers read so far, shared with its skins' reader."""
    found = [a for a in header.get("animations", ()) if isinstance(a, dict)]
    if not found and not header.get("skins") and not any(
            p.get("targets") for m in header.get("meshes", ()) for p in m.get("primitives", ())):
        return None
    names, channels = [], []
    try:
        for i, anim in enumerate(found):
            names.append(str(anim.get("name") or f"#{i}"))
            channels.append(tuple(_channel(path, header, anim, c, buffers)
                                  for c in anim.get("channels", ())
                                  if c.get("target", {}).get("path") in READ
                                  and "node" in c.get("target", {})))
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, OSError) as exc:
        raise InputError(f"{shown}: cannot read its animation {names[-1]!r}: "
                         f"{type(exc).__name__}: {exc}") from None
    nodes = tuple(header.get("nodes", ()))
    return Animations(tuple(names), tuple(channels), nodes, parents_of(nodes),
                      frozenset(c.node for a in channels for c in a if c.path in PATHS))


def weight_rows(weights: np.ndarray) -> list[np.ndarray]:
    """A morphed part's ``weights`` as rows of :meth:`Mesh.part_matrices`: 16 a 4 x 4 (the
    rest 0), not matrices (:meth:`SceneRenderer.clip_matrices` leaves them as they are)."""
    padded = np.zeros(weight_row_count(len(weights)) * 16)
    padded[:len(weights)] = weights
    return list(padded.reshape(-1, 4, 4))


def weight_row_count(count: int) -> int:
    """How many rows (4 x 4) :func:`weight_rows` makes of ``count`` weights."""
    return -(-count // 16)


def parents_of(nodes: tuple[dict, ...]) -> dict[int, int]:
    """Each glTF node's parent, by index (a root has none)."""
    return {c: i for i, n in enumerate(nodes) for c in n.get("children", ())}


def _channel(path: Path, header: dict, anim: dict, channel: dict,
             buffers: dict[int, bytes]) -> Channel:
    sampler = anim["samplers"][channel["sampler"]]
    kind = sampler.get("interpolation", "LINEAR")
    if kind not in ("LINEAR", "STEP", "CUBICSPLINE"):
        raise ValueError(f"interpolation {kind!r} is not LINEAR, STEP or CUBICSPLINE")
    times = accessor(path, header, sampler["input"], buffers)[:, 0]
    values = accessor(path, header, sampler["output"], buffers)
    if channel["target"]["path"] == "weights" and len(times):  # N weights a key, in a row
        values = values.reshape(len(times) * (3 if kind == "CUBICSPLINE" else 1), -1)
    if kind == "CUBICSPLINE":
        values = values.reshape(len(times), 3, values.shape[1])
    if len(times) == 0 or len(values) != len(times):
        raise ValueError(f"{len(times)} key times for {len(values)} values")
    return Channel(int(channel["target"]["node"]), channel["target"]["path"], times,
                   values, kind)


def accessor(path: Path, header: dict, index: int, buffers: dict[int, bytes]) -> np.ndarray:
    """Accessor ``index`` as (count, width) float64: its bufferView's offsets and stride
    (none: zeros), its sparse rows put in (was: left out, a wrong pose unsaid), normalised
    integers as the spec maps them."""
    acc = header["accessors"][index]
    kind, width, count = acc["componentType"], _WIDTH[acc["type"]], int(acc["count"])
    out = (_rows(path, header, acc, kind, width, count, buffers).astype(np.float64)
           if "bufferView" in acc else np.zeros((count, width)))
    if sparse := acc.get("sparse"):
        n, where, values = int(sparse["count"]), sparse["indices"], sparse["values"]
        rows = _rows(path, header, where, where["componentType"], 1, n, buffers)[:, 0]
        out[rows.astype(np.int64)] = _rows(path, header, values, kind, width, n, buffers)
    if acc.get("normalized") and kind in _NORMALISED:
        out = np.maximum(out / _NORMALISED[kind], -1.0)
    return out


def _rows(path: Path, header: dict, at: dict, kind: int, width: int, count: int,
          buffers: dict[int, bytes]) -> np.ndarray:
    """``count`` rows of ``width`` components of type ``kind`` where ``at`` (an accessor,
    or a sparse one's indices or values) places them: its bufferView and byteOffset."""
    dtype = np.dtype(_COMPONENTS[kind])
    view = header["bufferViews"][at["bufferView"]]
    data = buffer_bytes(path, header, view["buffer"], buffers)
    start = int(view.get("byteOffset", 0)) + int(at.get("byteOffset", 0))
    stride = int(view.get("byteStride") or dtype.itemsize * width)
    return np.ndarray((count, width), dtype, data, start, (stride, dtype.itemsize))


def buffer_bytes(path: Path, header: dict, index: int, buffers: dict[int, bytes]) -> bytes:
    """Buffer ``index`` of the file: a .glb's binary chunk, a data URI, or a file beside."""
    if index not in buffers:
        uri = header["buffers"][index].get("uri")
        if uri is None:
            data = path.read_bytes()  # a .glb: its chunk after the JSON one
            start = 20 + int.from_bytes(data[12:16], "little")
            size = int.from_bytes(data[start:start + 4], "little")
            buffers[index] = data[start + 8:start + 8 + size]
        elif uri.startswith("data:"):
            buffers[index] = base64.b64decode(uri.partition(",")[2])
        else:
            buffers[index] = (path.parent / unquote(uri)).read_bytes()
    return buffers[index]


def not_played(shown: Path, header: dict) -> str | None:
    """One line of what of the file's animation hfrender does not play
    (KHR_animation_pointer channels, its lights' motion: was unsaid; skins and morph
    targets are played, their default weights too), or None.
    A camera's motion is not among them: ``camera.follow(mesh)`` plays it
    (:mod:`~hfrender.scene.model_cameras`)."""
    said = []
    targets = [c.get("target", {}) for a in header.get("animations", ())
               for c in a.get("channels", ())]
    if pointers := sum(t.get("path") == "pointer" for t in targets):
        said.append(f"its KHR_animation_pointer channels ({pointers}: materials', cameras' "
                    "and lights' values, drawn as the file sets them)")
    nodes = header.get("nodes", ())
    staged = sorted({repr(nodes[t["node"]].get("name") or f"#{t['node']}") for t in targets
                     if t.get("path") in PATHS and isinstance(t.get("node"), int)
                     and t["node"] < len(nodes) and _stage(nodes[t["node"]])})
    if staged:
        said.append(f"its lights' motion (node {', '.join(staged)}: the scene's lights are "
                    "hfrender's own)")
    if not said:
        return None
    listed = ", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0]
    return (f"{shown}: {listed} not played: hfrender plays node animations (translation, "
            "rotation, scale), skins and morph targets alone; drawn in their rest pose")


def _stage(node: dict) -> bool:
    """Whether a glTF node is a light (KHR_lights_punctual)."""
    return "KHR_lights_punctual" in node.get("extensions", {})
