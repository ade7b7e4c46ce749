"""Which modules of the user's own a scene's load reads afresh: those scenes imported (a
``common.py`` edited between two renders is read again), not the caller's (its
``__main__``, the ``settings.py`` it imported before), and none of another folder under
the name of one beside the scene (each scene its own folder's ``common``)."""

from __future__ import annotations

import os
import sys
import types
import weakref
from pathlib import Path

from hfrender.scene.sources import users_file

# the folders of the scenes loaded in this process (on sys.path resolved, so their modules'
# files are named under them as they are); their modules of the user's own (not hfrender's
# or a library's, should those sit there too) are read afresh at every load, but for the
# caller's (_CALLERS)
_scene_folders: set[Path] = set()
# the modules of the caller's own in a scene's folder, there when hfrender first loaded a
# scene of that folder (a script's __main__, the settings.py it imports): the caller's,
# never forgotten (was: forgotten at every load, and `import __main__` failed after)
_CALLERS: weakref.WeakValueDictionary[str, types.ModuleType] = weakref.WeakValueDictionary()
# the user's modules of another folder set aside while scenes of a folder with its own of
# their names are loaded (:func:`_callers_for`)
_ASIDE: dict[str, types.ModuleType] = {}


def forget_scene_modules(folder: Path) -> None:
    """Forgets the modules of the user's own in the scenes' folders (``folder`` one of
    them now) that scenes loaded, at their top or later (in ``setup()``): those there when
    hfrender first saw their folder are the caller's, kept (:data:`_CALLERS`)."""
    before = tuple(os.path.join(str(f), "") for f in _scene_folders)  # "/a/b/": a prefix
    _scene_folders.add(folder)
    inside = tuple(os.path.join(str(f), "") for f in _scene_folders)
    main = sys.modules.get("__main__")
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not (isinstance(file, str) and file.startswith(inside) and users_file(file)):
            continue
        if module is main or not file.startswith(before):  # a folder new: all the caller's
            _CALLERS[name] = module
        elif _CALLERS.get(name) is not module:
            sys.modules.pop(name, None)
    _callers_for(folder, main)


def _callers_for(folder: Path, main: object) -> None:
    """The caller's modules as a scene of ``folder`` finds them: one of the user's own from
    elsewhere whose name a module beside this scene has (``common``, a ``common.py`` here
    too) set aside, so that the scene reads its own (was: the caller's, a review; whichever
    folder's scene came first); set back once a scene is loaded from a folder without one
    of that name, or from its own. Kept here meanwhile (``from common import X`` holds no
    module: it was read again)."""
    here = os.path.join(str(folder), "")
    mine = _beside(folder)
    for name, module in list(_ASIDE.items()):
        if name.partition(".")[0] not in mine or module.__file__.startswith(here):
            sys.modules[name] = _CALLERS[name] = _ASIDE.pop(name)  # (not one to forget)
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if name.partition(".")[0] in mine and module is not main and isinstance(file, str) \
                and not file.startswith(here) and users_file(file):
            _ASIDE[name] = sys.modules.pop(name)


def _beside(folder: Path) -> set[str]:
    """The modules a scene in ``folder`` imports from it by name: its files' and packages'
    (a folder's entries listed once, only its folders looked into: frames rendered beside
    the scene cost no look each)."""
    try:
        with os.scandir(folder) as entries:
            return {e.name[:-3] if e.name.endswith(".py") else e.name for e in entries
                    if e.name.endswith(".py") or e.is_dir() and
                    os.path.isfile(os.path.join(e.path, "__init__.py"))}
    except OSError:
        return set()
