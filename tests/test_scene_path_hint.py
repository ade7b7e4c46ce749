"""A scene path with a typo names the nearest scene file beside it (a trial's jobs file:
``scene = "scenes/propellor.py"`` said "scene file not found" and no more)."""

import re

import pytest

from hfrender.engine.batch import load_jobs
from hfrender.errors import InputError


def test_a_misspelt_scene_file_is_offered_the_nearest_one(tmp_path):
    (tmp_path / "scenes").mkdir()
    (tmp_path / "scenes" / "propeller.py").write_text("import hfrender as hf\n")
    (tmp_path / "scenes" / "plasma.frag").write_text("void mainImage(out vec4 c, in vec2 p) {}\n")
    (tmp_path / "jobs.toml").write_text(
        '[[job]]\nname = "prop"\nscene = "scenes/propellor.py"\noutput = "p.mp4"\n'
        '[[job]]\nname = "far"\nscene = "scenes/nothing_like.py"\noutput = "f.mp4"\n')
    with pytest.raises(InputError) as said:
        load_jobs(tmp_path / "jobs.toml")
    lines = said.value.lines
    assert re.search(r"job 'prop': scene file not found: (.*)scenes/propellor\.py; did you "
                     r"mean \1scenes/propeller\.py\?$", lines[0]), lines
    assert lines[1].endswith("scene file not found: " + str(tmp_path / "scenes" /
                                                             "nothing_like.py")), lines
