"""Objects a scene holds but never added (:func:`say_unadded`, one of
:func:`~hfrender.scene.ready.first_look`'s checks, once ``update(t)`` has run): made in
``setup()`` (or given to a Group by ``update(t)``) and kept under a name of the scene's
(``self.ball``, ``self.balls[2]``), or in a Group kept so (``self.row``,
``self.g.children[1]``), they are not drawn."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from hfrender.scene import Scene, checks
from hfrender.scene.lamps import Lamp, lamps_of
from hfrender.scene.loader import SceneError
from hfrender.scene.nodes import Group
from hfrender.scene.objects import Object3D

log = logging.getLogger(__name__)


def _members(where: str, group: Group) -> Iterator[tuple[str, object]]:
    """(where, object) of each object and lamp in ``group`` and the groups in it."""
    for i, child in enumerate(group.children):
        at = f"{where}.children[{i}]"
        yield from _members(at, child) if isinstance(child, Group) else [(at, child)]


def unadded(scene: Scene) -> list[tuple[str, str]]:
    """(where, kind) of the scene's attributes (``self.ball``, ``self.balls[2]``) holding
    objects never added: they are not drawn (a trial: ``self.ball = hf.Sphere()`` rendered
    the background alone, without a word); a Group held whose objects none was added is
    one (``self.row``, a Group), and of one with some added, each not added by where it lies
    (``self.g.children[1]``; was: unsaid, not drawn)."""
    added = {id(o) for o in [*scene.objects, *lamps_of(scene)]}
    lost: dict[int, tuple[str, str]] = {}
    for where, held in checks.held(scene):
        if not isinstance(held, Group):
            if isinstance(held, Object3D | Lamp) and id(held) not in added:
                lost.setdefault(id(held), (where, type(held).__name__))
            continue
        members = list(_members(where, held))
        if members and not any(id(o) in added for _, o in members):
            lost.setdefault(id(held), (where, "Group"))
            continue
        for at, obj in members:
            if isinstance(obj, Object3D | Lamp) and id(obj) not in added:
                lost.setdefault(id(obj), (at, type(obj).__name__))
    return list(lost.values())


def say_unadded(scene: Scene) -> None:
    """A warning naming objects made but never added, or that the scene has none."""
    lost, name = unadded(scene), type(scene).__name__
    if lost:
        said = checks.listed([f"{where} (a {kind})" for where, kind in lost])
        lamp = {kind for _, kind in lost} <= {c.__name__ for c in Lamp.__subclasses__()}
        fix = lost[0][0].split(".children[")[0]  # (a group's object: the group added)
        log.warning("%s: %s never added, so %s: self.add(%s) in setup() %s", name, said,
                    "lighting nothing" if lamp else "not drawn", fix,
                    "switches it on" if lamp else "draws it")
    elif not scene.objects:
        log.warning("%s: setup() added no object: the frames show the background alone "
                    "(self.add(hf.Sphere(...)) adds one)", name)


def refuse_construct(scene: Scene) -> None:
    """A scene with manim's ``construct()`` that has no object once ``setup()`` and the
    first ``update(t)`` ran (a manim user's first try: hfrender never calls construct())
    refused in one line saying what hfrender wants instead (was: warned of, then the
    background rendered, exit 0); one making its objects in ``update(t)`` beside a helper
    named ``construct`` is drawn (was: refused straight after setup(), a review)."""
    if not callable(getattr(scene, "construct", None)) or scene.objects:
        return
    raise SceneError(f"{scene.source_path or type(scene).__name__}: {type(scene).__name__} "
                     "has manim's construct(), which hfrender never calls, and its setup() "
                     "added no object: the frames would show the background alone. hfrender "
                     "draws what setup() adds, once (self.ball = self.add(hf.Sphere())), and "
                     "update(t) sets it from t alone (self.ball.position = (t, 0, 0)): move "
                     "construct()'s objects into setup() and its animations into update(t) "
                     "(hfrender docs rendering scenes)")
