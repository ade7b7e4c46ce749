"""A batch loads each render job's scene anew: the scene loaded before is let go (its class,
its module and all the module holds), not kept by hfrender's checks for the rest of the
batch (a trial: 40 objects and about 0.1 MB a job, growing with every job)."""

from __future__ import annotations

import gc
import weakref

import pytest

from hfrender.scene import checks
from hfrender.scene.loader import load_scene

SCENE = """
import hfrender as hf

BIG = bytearray(1 << 20)  # what a scene module holds: a table, a texture


class Kept(hf.Scene):
    duration = 1.0

    def setup(self):
        self.ball = self.add(hf.Sphere(radius=0.5))
        self.speed = 2.0

    def update(self, t):
        self.ball.position = (self.speed * t, 0, 0)
"""


def test_a_scene_loaded_again_lets_the_one_before_go(tmp_path):
    path = tmp_path / "kept.py"
    path.write_text(SCENE)
    first = load_scene(path)
    first.setup()
    first.update(0.5)  # its settings checked: the checks' caches asked about its class
    assert checks.scene_misspelling(type(first), "durration") == "duration"
    assert "duration" in checks.settable_names(type(first))
    gone = weakref.ref(type(first))
    del first
    second = load_scene(path)  # the next job's: its module replaces the first's
    second.setup()
    gc.collect()
    assert gone() is None, [type(r).__name__ for r in gc.get_referrers(gone())]
    assert type(second).__name__ == "Kept"
    assert checks.scene_misspelling(type(second), "durration") == "duration"


def test_scene_files_are_imported_one_thread_at_a_time(tmp_path, monkeypatch):
    """Two threads loading scenes (two hf.render calls) take turns: the modules and the
    import path are the process's (was: the second thread's import ran inside the first's,
    and a module both forgot raised KeyError, a review)."""
    import sys
    import threading
    import types

    from hfrender.scene import loader

    gate = types.ModuleType("hf_test_gate")
    gate.a_in, gate.go, gate.b_ran = threading.Event(), threading.Event(), threading.Event()
    monkeypatch.setitem(sys.modules, "hf_test_gate", gate)
    body = "import hfrender as hf\n\n\nclass S(hf.Scene):\n    pass\n"
    (tmp_path / "a.py").write_text("import hf_test_gate as g\ng.a_in.set()\ng.go.wait(10)\n"
                                   + body)
    (tmp_path / "b.py").write_text("import hf_test_gate as g\ng.b_ran.set()\n" + body)
    first = threading.Thread(target=loader._import, args=(tmp_path / "a.py",))
    second = threading.Thread(target=loader._import, args=(tmp_path / "b.py",))
    first.start()
    assert gate.a_in.wait(10)
    second.start()
    ran_inside = gate.b_ran.wait(0.5)  # while a.py is still being imported
    gate.go.set()
    first.join(10)
    second.join(10)
    assert not ran_inside and gate.b_ran.is_set()


def test_a_wait_for_another_threads_import_ends_in_one_line(tmp_path, monkeypatch):
    """A scene file that, at its top, renders another scene from a thread and waits for it
    would wait for itself: the waiting import is refused after IMPORT_WAIT_S in one line
    (was: waited for ever without a word, a review)."""
    import sys
    import threading
    import types

    from hfrender.scene import loader

    gate = types.ModuleType("hf_test_gate2")
    gate.a_in, gate.go = threading.Event(), threading.Event()
    monkeypatch.setitem(sys.modules, "hf_test_gate2", gate)
    monkeypatch.setattr(loader, "IMPORT_WAIT_S", 0.3)
    body = "import hfrender as hf\n\n\nclass S(hf.Scene):\n    pass\n"
    (tmp_path / "a.py").write_text("import hf_test_gate2 as g\ng.a_in.set()\ng.go.wait(10)\n"
                                   + body)
    (tmp_path / "b.py").write_text(body)
    first = threading.Thread(target=loader._import, args=(tmp_path / "a.py",))
    first.start()
    try:
        assert gate.a_in.wait(10)
        with pytest.raises(loader.SceneError) as info:
            loader._import(tmp_path / "b.py")
    finally:
        gate.go.set()
        first.join(10)
    assert str(info.value) == (
        f"{tmp_path / 'b.py'}: another thread has been importing a scene file for 0.3 s; a "
        "scene file that renders a scene from a thread at its top waits for itself: put that "
        "under if __name__ == '__main__':")
