"""A manim user's font: given by its family's name as manim takes it (font="DejaVu Sans":
"font file not found" with the font installed)."""

import shutil
import sys
from pathlib import Path

import pytest
from PIL import ImageFont

import hfrender as hf
from hfrender.errors import InputError
from hfrender.scene.loader import load_scene
from hfrender.scene.sources import asset_files

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


@pytest.mark.skipif(not DEJAVU.is_file() or not sys.platform.startswith("linux"),
                    reason="DejaVu and Linux's font folders")
def test_a_font_given_by_its_family_name_is_found(tmp_path, monkeypatch):
    """manim's font="DejaVu Sans" is the installed DejaVuSans.ttf (and "Noto Sans" a
    NotoSans-Regular.ttf): was "font file not found" with the font installed."""
    fonts = tmp_path / "share" / "fonts" / "mine"
    fonts.mkdir(parents=True)
    shutil.copy(DEJAVU, fonts / "NotoSans-Regular.ttf")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fonted.py").write_text(
        "import hfrender as hf\n\nclass Fonted(hf.Scene):\n    def setup(self):\n"
        "        self.add(hf.Text('Hi', font='DejaVu Sans'))\n"
        "        self.add(hf.Text('Hi', font='Noto Sans'))\n")
    scene = load_scene(str(tmp_path / "fonted.py"))
    scene.setup()
    assert {DEJAVU.resolve(), (fonts / "NotoSans-Regular.ttf").resolve()} <= set(asset_files(scene))
    dejavu_cap = -ImageFont.truetype(DEJAVU, 128).getbbox("H", anchor="ls")[1]
    assert [word.raster().cap for word in scene.objects] == [dejavu_cap, dejavu_cap]
    assert hf.Text("Hi").raster().cap != dejavu_cap  # (Pillow's own font: another cap)


def test_a_width_word_goes_with_the_family_and_a_files_suffix_is_no_family():
    """"DejaVu Sans Condensed Bold" is DejaVuSansCondensed-Bold.ttf (was looked for as
    DejaVuSans-CondensedBold alone, a review); "My Font.ttc" is a file's name (was told as
    MyFont.ttc, a family)."""
    from hfrender.scene.glyphs import family_files

    assert family_files(Path("DejaVu Sans Condensed Bold")) == [
        "DejaVuSans-CondensedBold", "DejaVuSansCondensed-Bold", "DejaVuSansCondensedBold"]
    assert family_files(Path("Noto Sans")) == ["NotoSans", "NotoSans-Regular"]
    assert family_files(Path("My Font.ttc")) == [] == family_files(Path("Sans"))
    assert family_files(Path("Mr. Dafoe")) == ["Mr.Dafoe", "Mr.Dafoe-Regular"]  # (a dot: no
    # file's suffix, a family's name still)


def test_a_family_name_not_installed_says_font_takes_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as caught:
        hf.Text("Hi", font="Comic Sans MS")
    here = Path(__file__).resolve().parent
    assert str(caught.value) == (
        f"Text.font='Comic Sans MS': font file not found (looked for {here / 'Comic Sans MS'} "
        f"and {tmp_path.resolve() / 'Comic Sans MS'}, and by that name and as ComicSansMS "
        "or ComicSansMS-Regular in the system's font folders); font= takes a font file, or "
        "a family's name as its file is named: a .ttf or .otf beside the scene, or an "
        "installed one's file name (on Linux fc-list lists them: font='DejaVuSans.ttf')")
