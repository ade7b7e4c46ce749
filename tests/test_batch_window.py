"""A batch's fx job's window (``motion-blur``, ``stride``) against its input's length,
checked before any job runs: a sequence's told by its files' names, an input an earlier
job makes left to its turn (docs/batch.md)."""
from pathlib import Path

import numpy as np
import pytest

from hfrender.cli import main
from hfrender.io.images import write_png8
from hfrender.io.probe import probe

pytestmark = pytest.mark.usefixtures("gl_context")

BAR = Path(__file__).parent / "data" / "bar.frag"


def test_a_window_longer_than_a_sequence_input_is_refused_before_any_job(tmp_path, rng,
                                                                        capsys):
    """A sequence of 3 PNGs: motion-blur = 4 is refused before the render before it runs,
    its length told by its files' names; 3 is taken."""
    (tmp_path / "seq").mkdir()
    for k in (1, 2, 3):
        write_png8(tmp_path / "seq" / f"{k:04d}.png",
                  rng.integers(0, 256, (8, 16, 3)).astype(np.uint8))
    (tmp_path / "bar.frag").write_text(BAR.read_text())
    jobs = tmp_path / "jobs.toml"
    for blur, code in ((4, 2), (3, 0)):
        jobs.write_text('[[job]]\nname = "bar"\nscene = "bar.frag"\noutput = "bar.mp4"\n'
                        'size = "16x8"\nduration = 0.1\n\n[[job]]\nname = "smooth"\n'
                        f'input = "seq/%04d.png"\noutput = "o/%04d.png"\nmotion-blur = {blur}\n')
        assert main(["batch", str(jobs), "--quiet"]) == code
        if code == 2:
            assert capsys.readouterr().err == (
                f"hfrender: error: {jobs}: job 'smooth': motion-blur = 4 is longer than the "
                "input (3 frames)\n")
            assert sorted(p.name for p in tmp_path.iterdir()) == ["bar.frag", "jobs.toml",
                                                                   "seq"]
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == [
        "0001.png", "0002.png", "0003.png"]


def test_an_input_an_earlier_job_makes_is_not_told_by_the_file_there_now(tmp_path):
    """clip.mp4 of 3 frames is there from an earlier run, but the render job before the fx
    job makes it again, of 6: motion-blur = 4 is taken, its input's length left to its
    turn (were the file there now told, it would be refused: 4 > 3)."""
    (tmp_path / "bar.frag").write_text(BAR.read_text())
    jobs = tmp_path / "jobs.toml"
    render = ('[defaults]\nfps = 30\n\n[[job]]\nname = "bar"\nscene = "bar.frag"\n'
              'output = "clip.mp4"\nsize = "16x8"\nduration = {}\n')
    jobs.write_text(render.format(0.1))
    assert main(["batch", str(jobs), "--quiet"]) == 0
    assert probe(tmp_path / "clip.mp4").count == 3
    jobs.write_text(render.format(0.2) + '\n[[job]]\nname = "smooth"\ninput = "clip.mp4"\n'
                    'output = "o/%04d.png"\nmotion-blur = 4\n')
    assert main(["batch", str(jobs), "--quiet"]) == 0
    assert probe(tmp_path / "clip.mp4").count == 6
    assert len(list((tmp_path / "o").glob("*.png"))) == 6
