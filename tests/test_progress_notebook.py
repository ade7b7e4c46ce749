"""hf.render(progress=True) in a Jupyter notebook shows its bar (an integrator's trial: rich
saw no terminal there, so a short render showed nothing); a pipe still gets no bar. No
notebook here: rich's detection is what is changed, IPython's display and ipywidgets'
Output stood in for."""

import sys
import types

import pytest

from hfrender import progress


class _Output:
    """ipywidgets' Output: what is printed inside it is shown in it."""

    def __init__(self):
        self.closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def clear_output(self, wait=False):
        pass

    def close(self):
        self.closed = True


@pytest.fixture
def notebook(monkeypatch):
    """A notebook as rich detects one, what it displays in ``shown``."""
    import rich.console

    shown = []
    display = types.ModuleType("IPython.display")
    display.display = shown.append
    ipython = types.ModuleType("IPython")
    ipython.display = display
    widgets = types.ModuleType("ipywidgets")
    widgets.Output = _Output
    widgets.__spec__ = types.SimpleNamespace(name="ipywidgets")  # (find_spec reads it)
    for name, module in (("IPython", ipython), ("IPython.display", display),
                         ("ipywidgets", widgets)):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(rich.console, "_is_jupyter", lambda: True)
    return shown


def test_a_notebook_shows_richs_bar_in_a_widget(notebook, capsys):
    update, finish = progress.progress_bar(False)
    update(3, 10)
    finish()
    widgets = [w for w in notebook if isinstance(w, _Output)]
    bars = [getattr(r, "text", "") for r in notebook if not isinstance(r, _Output)]
    assert len(widgets) == 1 and widgets[0].closed  # (transient: gone once done)
    assert any("rendering" in b and "3/10" in b for b in bars), bars
    assert capsys.readouterr().err == ""


def test_a_notebook_without_ipywidgets_has_a_plain_line(notebook, monkeypatch, capsys):
    monkeypatch.delitem(sys.modules, "ipywidgets")
    monkeypatch.setattr(progress, "_has_widgets", lambda: False)
    update, finish = progress.progress_bar(False)
    update(3, 10)
    update(10, 10)
    finish()
    assert capsys.readouterr().err == "\r3/10 frames\r10/10 frames\n"
    assert notebook == []  # (rich's own: a warning, "install ipywidgets", and nothing shown)


def test_a_pipe_still_has_no_bar(capsys):
    """Not a notebook, not a terminal (pytest's capture is a pipe's): the log's lines, none
    for a short run."""
    update, finish = progress.progress_bar(False)
    update(3, 10)
    update(10, 10)
    finish()
    assert capsys.readouterr().err == ""
    assert update.__qualname__.startswith("progress_lines")
