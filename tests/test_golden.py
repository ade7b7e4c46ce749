"""The example scenes against golden frames: a few frames of each, small, with named
tolerances. ``pytest --regen-golden tests/test_golden.py`` rewrites tests/golden/*.npz
after an intended change; look at the renders first."""

from pathlib import Path

import imageio.v3 as iio
import pytest
from golden_frames import GAIN, Tolerance, assert_matches_golden
from render_helpers import render_golden

SCENES = Path(__file__).resolve().parents[1] / "scenes"
pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any render

# 96x54, 8 samples, a 180-degree shutter, lens DoF where the camera has an f-stop; the
# CPU backend, so that only the GL renderer can differ. Each reference is under 30 KB.
SETTINGS = {"size": (96, 54), "samples": 8, "backend": "cpu", "msaa": 4}  # a GPU's default
FRAMES = {  # output frames compared, spread over each animation (30 fps)
    "showcase.py": (10, 45, 80),
    "focus_pull.py": (0, 45, 89),  # the focus at the near object, halfway, the far one
    "propeller.py": (5, 23, 41),  # not multiples of 10/3 frames: the 3 blades turn 36 deg
    "plasma.frag": (0, 30, 75),
}
# llvmpipe renders these bit for bit the same from run to run (also with several fusion
# workers); the slack is for other llvmpipe builds (LLVM versions, vector widths): a few
# code values of shading in a few pixels. Real changes are larger or wider: one frame
# later, 10 degrees more shutter or the shutter opening a quarter frame earlier moves
# 0.28% to 60% of the pixels by more than 2 code values (test_a_real_change_fails below).
TOLERANCES = {
    "mesh": Tolerance(noise=2, fraction=0.001, max_abs=64),  # edges: few pixels, far off
    "shader": Tolerance(noise=2, fraction=0.001, max_abs=16),  # smooth: nothing far off
}


def tolerance(name):
    return TOLERANCES["shader" if name.endswith(".frag") else "mesh"]


def settings_of(name, **changes):
    return {**SETTINGS, "frames": FRAMES[name], **changes}


def render(name, shift=0, **changes):
    settings = settings_of(name, **changes)
    frames = list(settings.pop("frames"))
    # moved by ``shift`` frames; the last one the other way (it is the scene's last frame)
    frames = [k + shift for k in frames[:-1]] + [frames[-1] - shift] if shift else frames
    return render_golden(SCENES / name, frames, **settings)


@pytest.mark.parametrize("name", list(FRAMES))
def test_example_scene_matches_its_golden_frames(name, golden):
    frames, renderer = render(name)
    assert frames.shape == (3, 54, 96, 3)
    golden(Path(name).stem, frames, settings_of(name), tolerance(name), renderer)


@pytest.mark.parametrize("name, change", [
    ("showcase.py", {"shutter": 170.0}),
    ("propeller.py", {"shutter": 170.0}),
    ("plasma.frag", {"shutter": 170.0}),
    ("propeller.py", {"shutter_position": "start"}),  # the same frames a quarter frame early
    ("focus_pull.py", {"shift": 1}),  # one frame off: the focus has moved a little
])
def test_a_real_change_fails_the_comparison(name, change, tmp_path):
    shift = change.pop("shift", 0)
    frames, renderer = render(name, shift=shift, **change)
    stem = Path(name).stem
    png = tmp_path / f"{stem}.png"
    with pytest.raises(AssertionError, match=rf"^{stem}: \d+\.\d+% of the pixels differ by "
                                             rf"more than 2 code values .*reference \| result "
                                             rf"\| difference x{GAIN}: {png}$"):
        assert_matches_golden(stem, frames, settings_of(name), tolerance(name), renderer,
                              failures=tmp_path)
    assert iio.imread(png).shape == (3 * 54, 3 * 96, 3)  # a row a frame, three panels
