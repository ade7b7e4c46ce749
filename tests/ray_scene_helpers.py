"""The Ray tests' scenes: ``slow_scene`` (a cube that sleeps each update) and
``dying_scene`` (its worker dies once mid-chunk), for the renders, retries and batches on Ray."""

import textwrap


def slow_scene(tmp_path, sleep):
    path = tmp_path / "slow.py"
    path.write_text(textwrap.dedent(f"""
        import math, time
        import hfrender as hf

        class Slow(hf.Scene):
            duration = 3.0
            def setup(self):
                self.box = self.add(hf.Cube(color="orange"))
            def update(self, t):
                time.sleep({sleep})
                self.box.position = (math.sin(3 * t), 0, 0)
    """))
    return path


def dying_scene(tmp_path):
    """A scene whose worker dies (``os._exit``, as a SIGKILL or the OOM killer would end it)
    mid-chunk, once: at t = 1.5 s the first time (a mark file says it has died), on a
    worker (its own copy of the folder) only. Only the chunk of 1-2 s reaches it (was: any
    t >= 1.5, so a loaded machine that began the chunk of 2-3 s before the other had died
    lost two workers)."""
    path = slow_scene(tmp_path, 0.0)
    mark = tmp_path / "died"
    path.write_text(path.read_text().replace(
        "time.sleep(0.0)",
        f"import os\n        if 1.5 <= t < 1.9 and not os.path.exists({str(mark)!r}) and "
        f"not __file__.startswith({str(tmp_path)!r}):  # on a worker only\n"
        f"            open({str(mark)!r}, 'w').close()\n"
        "            os._exit(1)"))
    return path, mark
