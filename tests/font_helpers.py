"""The late-font scene of the tests of files a scene reads after setup(): its Text in
one.ttf, in another font once update(t) gives it (--resume and Ray must see it changed)."""

import shutil
from pathlib import Path

import pytest

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
MONO = DEJAVU.with_name("DejaVuSansMono.ttf")
FONTS = """import time
import hfrender as hf

class Fonts(hf.Scene):
    duration = 3.0

    def setup(self):
        self.word = self.add(hf.Text("Hg", font="one.ttf", height=1.0))
        self.camera.position = (0, 0, 4)

    def update(self, t):
        time.sleep(SLEEP)
        self.word.font = LATE if WHEN else "one.ttf"
"""
REFUSED = ("hfrender: error: --resume: the settings changed since the interrupted render "
           "(the scene's file two.ttf changed); render without --resume to start over\n")


def late_font_scene(folder, late="'two.ttf'", when="t >= 1", sleep=0):
    """``folder``/fonts.py (its Text in one.ttf, in ``late`` when ``when``; each update
    sleeping ``sleep`` s), one.ttf and two.ttf beside it alike."""
    if not (DEJAVU.is_file() and MONO.is_file()):
        pytest.skip("no DejaVu fonts on this machine")
    folder.mkdir(exist_ok=True)
    shutil.copy(DEJAVU, folder / "one.ttf")
    shutil.copy(DEJAVU, folder / "two.ttf")
    path = folder / "fonts.py"
    path.write_text(FONTS.replace("SLEEP", str(sleep)).replace("LATE", late)
                    .replace("WHEN", when))
    return path
