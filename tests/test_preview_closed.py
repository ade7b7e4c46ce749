"""``--preview``: closing its window mid-render stops the render, and says why."""

from pathlib import Path

import pytest
from cli_render_helpers import x_display_fixture  # noqa: F401  (the fixture x_display)

from hfrender.cli import main

BAR = str(Path(__file__).parent / "data" / "bar.frag")
pytestmark = pytest.mark.usefixtures("gl_context", "x_display")


def test_closing_the_preview_window_stops_the_render_and_says_so(tmp_path, capsys, caplog,
                                                                  monkeypatch):
    """The window closed at the 20th look: the frames finished are kept as a Ctrl-C keeps
    them (exit 130), and a line says the window's closing stopped it (was: said at -v
    alone; "interrupted" as if Ctrl-C was pressed)."""
    from hfrender.renderer.preview import Preview

    looks, real_show = [], Preview.show

    def show(self):
        looks.append(1)
        return len(looks) < 20 and real_show(self)

    monkeypatch.setattr(Preview, "show", show)
    out = tmp_path / "p.mp4"
    with caplog.at_level("WARNING"):
        assert main(["render", BAR, "-o", str(out), "--preview", "--size", "32x8",
                     "--samples", "2", "--duration", "1", "--granularity", "2"]) == 130
    told = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert told == [("WARNING", "the preview window was closed: the render stops, as at a "
                                "Ctrl-C")], told
    err = capsys.readouterr().err.replace("\r", "\n").splitlines()
    assert [line for line in err if line.startswith("interrupted: ")], err
    assert len(looks) in (20, 21) and not out.exists()  # (21: the last frame shown at the end)
