"""3D models from files: ``hf.Mesh.load(path)`` (glTF 2.0 ``.glb``/``.gltf``, OBJ, STL, PLY).

Files are read with trimesh (``pip install 'hfrender[models]'``), once per process while a
Mesh holds them or they are among the last read (cached by resolved path and modification
time), into :class:`ModelData` (:mod:`~hfrender.scene.model_data` reads them): parts of
triangles with interleaved vertices (position, normal, UV, linear RGBA colour), each part
with at most one base-colour texture and one emission (a glTF material's light of its own,
a uniform of its draw: parts are drawn one call each, and a material's emission is the
same over it), times its emissive texture where it has one (sRGB, at the part's UVs). glTF
node transforms are baked into the vertices (the parts in
:mod:`~hfrender.scene.model_parts`); a glTF's node animations
(:mod:`~hfrender.scene.model_animation`) move each part by its node's animated world
matrix times the baked rest one's inverse, at the Mesh's ``time``
(:meth:`Mesh.part_matrices`); base colour factors multiply the vertex colours. Colour
conventions follow the formats: glTF vertex colours and factors are linear, PLY/OBJ vertex
colours are display (sRGB) values, textures are sRGB.
Normals come from the file where it has them (smooth shading); where it has none the
renderer shades each triangle flat.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import InputError
from hfrender.scene import checks
from hfrender.scene.model_cameras import CameraPose, find, played
from hfrender.scene.model_data import ModelData, read_model
from hfrender.scene.model_files import ModelError
from hfrender.scene.model_parts import VERTEX, Part
from hfrender.scene.objects import _CHECKS, Object3D

__all__ = ["VERTEX", "Mesh", "ModelData", "ModelError", "Part", "load_model", "model_data"]

log = logging.getLogger(__name__)
FORMATS = (".glb", ".gltf", ".obj", ".stl", ".ply")
PREFIX = "model:"  # geometry names of loaded models start with it


# every model a Mesh holds (the renderer finds it by its geometry name), and the last read
# held for the next scene (a batch's jobs, a second setup()) up to RECENT_BYTES in all, the
# last one always (was: every model read, to the process's end: a batch of many models ran
# out of memory)
_CACHE: weakref.WeakValueDictionary[str, ModelData] = weakref.WeakValueDictionary()
_RECENT: OrderedDict[str, ModelData] = OrderedDict()
RECENT_BYTES = 1 << 30
_LOCK = threading.Lock()
_STILL_SAID: set[str] = set()  # models without animations given a time: said once
READING_S = [0.0]  # seconds this process spent reading model files (not again: cached)


def _keep(model: ModelData) -> None:
    """``model`` the most recent read, the oldest let go past :data:`RECENT_BYTES`."""
    _RECENT[model.key] = model
    _RECENT.move_to_end(model.key)
    total = sum(m.nbytes for m in _RECENT.values())
    while len(_RECENT) > 1 and total > RECENT_BYTES:
        total -= _RECENT.popitem(last=False)[1].nbytes


def model_data(geometry: str) -> ModelData:
    """The loaded model named by a geometry name (``Mesh.geometry``)."""
    return _CACHE[geometry]


def is_model(geometry: str) -> bool:
    return geometry.startswith(PREFIX)


def scene_models(objects: Iterable[Any]) -> dict[str, list[int]]:
    """The model files of ``objects`` (a scene's) as loaded: each path's [size, time in ns]
    then (what a batch records beside a job's output: ``engine/batch_state.py``)."""
    found = {}
    for obj in objects:
        model = getattr(obj, "_model", None)
        if model is not None and model.key.startswith(PREFIX):
            path, _, stamp = model.key[len(PREFIX):].rpartition("@")
            mtime, _, size = stamp.partition(":")
            found[path] = [int(size), int(mtime)]
    return found


def load_model(path: str | Path, shown: str | Path | None = None) -> ModelData:
    """The model in ``path``, read once per process (again only after the file changed);
    its errors name it as ``shown`` (as the scene gave it), else as ``path``."""
    p = Path(path)
    said = Path(shown) if shown is not None else p
    if p.is_dir():  # (was: "unsupported model format '(no suffix)'")
        raise ModelError(f"{said}: a folder, not a model file: give a model file's path "
                         f"(one of {', '.join(FORMATS)})")
    if p.suffix.lower() not in FORMATS:
        raise ModelError(f"{said}: unsupported model format {p.suffix or '(no suffix)'!r}; "
                         f"use one of {', '.join(FORMATS)}")
    try:
        stat = (resolved := p.resolve(strict=True)).stat()
    except OSError:
        raise ModelError(f"{said}: model file not found") from None
    if not resolved.is_file():
        raise ModelError(f"{said}: not a file")
    key = f"{PREFIX}{resolved}@{stat.st_mtime_ns}:{stat.st_size}"
    with _LOCK:
        model = _CACHE.get(key)
        if model is None or not _unchanged(model.files):  # (was: a texture or .mtl changed
            # since, its model file not, drawn as it was)
            start = time.perf_counter()
            model = _CACHE[key] = read_model(said, resolved, key)
            READING_S[0] += time.perf_counter() - start
        _keep(model)
        return model


def _unchanged(files: tuple[tuple[Path, int, int], ...]) -> bool:
    """Whether each of a model's other files is still as it was read."""
    for path, mtime, size in files:
        try:
            stat = path.stat()
        except OSError:
            return False
        if (stat.st_mtime_ns, stat.st_size) != (mtime, size):
            return False
    return True


@dataclass(eq=False)
class Mesh(Object3D):
    """A model loaded from a file: make it with ``hf.Mesh.load(path, **placement)``.

    Placed like the built-in objects (``position``, ``rotation``, ``scale``, ``emissive``,
    ``shader``, ``opacity``); ``color`` tints the model's own colours (white: as in the file;
    not its glTF materials' emission, which is light of its own).
    """

    color: tuple = (1.0, 1.0, 1.0)
    time: float | None = None  # seconds into its glTF's animation; None: the rest pose
    animation: str | None = None  # which of the file's animations (None: its first)

    @classmethod
    def value_checks(cls) -> dict:
        return _MESH_CHECKS

    def __setattr__(self, name: str, value: object) -> None:
        if name == "position" and isinstance(value, (str, os.PathLike)) and \
                "rotation" not in self.__dict__:  # hf.Mesh("a.glb"), not m.position = "1, 2"
            raise ModelError(f"hf.Mesh({str(value)!r}): a model is loaded with "
                             f"hf.Mesh.load({str(value)!r})")
        if name == "animation" and "_model" in self.__dict__:
            self._which(_animation(self._label(name), value))
        super().__setattr__(name, value)
        if name == "time" and value is not None and "_model" in self.__dict__:
            _still_said(self._loaded())

    def _which(self, name: object) -> int:
        """The index of animation ``name`` in the file (None: the first), else one line
        naming the ones it has."""
        model = self._loaded()
        names = model.animations.names if model.animations is not None else ()
        if name is None:
            return 0
        if name in names:
            return names.index(name)
        have = (f"its animations: {', '.join(repr(n) for n in names)}" if names
                else "it has no animations")
        raise ModelError(f"Mesh.animation={checks.shown(name)}: {model.path.name} has no "
                         f"animation of that name; {have}")

    @property
    def animations(self) -> tuple[str, ...]:
        """The names of the file's animations (a glTF's, in its order; unnamed: '#0')."""
        found = self._loaded().animations
        return () if found is None else found.names

    @property
    def duration(self) -> float:
        """Seconds to the last key of its :attr:`animation` (0: none). Past it the last
        pose holds (glTF's clamping); ``mesh.time = t % mesh.duration`` loops."""
        found = self._loaded().animations
        return 0.0 if found is None else found.duration(self._which(self.animation))

    def part_matrices(self) -> list[np.ndarray] | None:
        """Each part's matrix at :attr:`time` in the model's frame (its node's animated
        world matrix x its baked rest one's inverse; ``time`` None: the identity), then
        each skinned part's joint matrices (:func:`~hfrender.scene.model_skins.skin_starts`),
        then each morphed part's weights (:func:`~hfrender.scene.model_morphs.morph_rows`),
        or None: a file without animations, skins or morph targets, drawn as read. A skinned
        or morphed part is posed at ``time`` None too: its joints at their nodes' rest
        transforms, its weights at their defaults (as three.js and Blender show it)."""
        found, parts = self._loaded().animations, self._loaded().parts
        if found is None:
            return None
        try:
            return found.pose(parts, None if self.time is None else self._which(
                self.animation), 0.0 if self.time is None else self.time)
        except InputError as exc:  # (it names a node: the file too)
            raise ModelError(f"{self._loaded().path.name}: {exc}") from None

    @property
    def cameras(self) -> tuple[str, ...]:
        """The names of the file's cameras (a glTF's camera nodes; unnamed: '#3')."""
        return tuple(c.name for c in self._loaded().cameras)

    def camera_at(self, name: str | None = None) -> CameraPose:
        """The file's camera ``name`` (None: its first) at :attr:`time` (None: at rest) of
        the :attr:`animation` that moves it (:func:`~hfrender.scene.model_cameras.played`),
        in the scene: its node's world matrix through the Mesh's :meth:`world_matrix`.
        What ``self.camera.follow(mesh)`` puts the scene's camera at."""
        model = self._loaded()
        camera, found = find(model.cameras, name, model.path.name), model.animations
        at = camera.rest if found is None or self.time is None else found.world(
            camera.node, played(found, camera.node, self._which(self.animation)), self.time)
        return camera.pose(self.world_matrix() @ at, model.path.name)

    @classmethod
    def load(cls, path: str | Path, **placement: Any) -> Mesh:
        """The model in ``path`` (``.glb .gltf .obj .stl .ply``); a relative path is
        looked for beside the calling script first, then in the current folder."""
        if type(path).__module__.partition(".")[0] == "trimesh":  # a mesh made in code
            raise ModelError(f"Mesh.load({path!r}): a trimesh object, not a file: hfrender "
                             "reads models from files (the scene's files, as a batch, "
                             "--resume and Ray follow them); write it once beside the scene "
                             "and load that: mesh.export('assets/model.glb'), then "
                             "hf.Mesh.load('assets/model.glb')")
        if not isinstance(path, (str, os.PathLike)) or not str(path).strip():  # (and '')
            raise ModelError(f"Mesh.load({path!r}): give the model file's path (a str or "
                             "Path), e.g. hf.Mesh.load('assets/toy.glb')")
        p = Path(path).expanduser()  # ~/models/x.glb, as a shell would (was: not found)
        looked = [p.resolve()]
        if not p.is_absolute():
            caller = Path(sys._getframe(1).f_code.co_filename).parent
            looked = [(caller / p).resolve(), (Path.cwd() / p).resolve()]
            if (caller / p).exists():
                p = caller / p
        try:
            obj = cls.unjoined(**placement)  # joins a group once its model is read
        except TypeError as exc:  # a misspelt placement: said of load, as it was called
            raise TypeError(str(exc).replace("__init__()", "load()")) from None
        if not p.exists() and p.suffix.lower() in (*FORMATS, ""):  # where it was looked for
            places = list(dict.fromkeys(str(x) for x in looked))
            raise ModelError(f"{path}: model file not found (" + (
                f"neither {places[0]} nor {places[1]} exists)" if len(places) > 1
                else f"{places[0]} does not exist)"))
        obj._model = load_model(p, path)
        obj.animation = obj.animation  # (a name not in the file: refused now)
        obj._whole()
        return obj

    def _loaded(self) -> ModelData:
        """The model read from the file; a Mesh made without :meth:`load` has none. (Not a
        public name: a subclass's own field ``model`` stays its own.)"""
        model = getattr(self, "_model", None)
        if model is None:
            raise ModelError("this Mesh has no model: make it with hf.Mesh.load(path)")
        if _CACHE.get(model.key) is None:  # a copy's (pickled, deep-copied) whose Mesh of
            with _LOCK:  # origin is gone: found by its geometry name again (was: KeyError)
                _CACHE.setdefault(model.key, model)
        return model

    def by_place(self) -> str:
        """A model named by its file in messages (``the Mesh far.glb``)."""
        return f"the {type(self).__name__} {self._loaded().path.name}"

    @property
    def geometry(self) -> str:  # type: ignore[override]
        return self._loaded().key

    @property
    def bounds(self) -> np.ndarray:
        """(2, 3): the model's min and max corners in its own units (before placing)."""
        return self._loaded().bounds.copy()

    @property
    def triangles(self) -> int:
        return self._loaded().triangles


def _time(what: str, value: object) -> float | None:
    return None if value is None else checks.finite(
        what, value, meaning="seconds into the file's animation, or None: its rest pose")


def _animation(what: str, value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ModelError(f"{what}={checks.shown(value)} must be an animation's name (a str; "
                     "mesh.animations lists them), or None for the file's first")


_MESH_CHECKS = {**_CHECKS, "time": _time, "animation": _animation}


def _still_said(model: ModelData) -> None:
    """Said once a file: a ``time`` given to a model with no animations (was: unsaid)."""
    if not (model.animations and model.animations.names) and model.key not in _STILL_SAID:
        _STILL_SAID.add(model.key)
        log.warning("%s has no animations (hfrender plays a glTF's node animations): its "
                    "Mesh.time moves nothing, and its duration is 0", model.path.name)
