"""Every example runs as a test, and what it shows is checked."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import hfrender as hf

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_numpy_motion_blur_example(capsys):
    out = load("numpy_motion_blur").main()
    assert out.shape == (8, 48, 160, 3) and out.dtype == np.uint8
    # the dot moves 2 px per frame for 8 frames and is 4 px wide: a 2*7 + 4 = 18 px streak
    assert "-> 8 at 30 fps; dot streak in frame 0: 18 px" in capsys.readouterr().out


def test_torch_dlpack_example(capsys):
    torch = pytest.importorskip("torch", reason="torch is installed by the test command")
    out = load("torch_dlpack").main()
    assert isinstance(out, torch.Tensor) and tuple(out.shape) == (9, 36, 64, 3)
    assert "-> torch.Tensor (9, 36, 64, 3) torch.uint8" in capsys.readouterr().out


def test_torch_dlpack_example_without_torch_says_how_to_get_it(tmp_path):
    """Without torch: one line naming it and how to install it, exit status 1 (was: a
    traceback)."""
    import os
    import subprocess
    import sys

    (tmp_path / "torch.py").write_text("raise ImportError(\"No module named 'torch'\")\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run([sys.executable, str(EXAMPLES / "torch_dlpack.py")], env=env,
                         capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stdout) == (1, "")
    assert run.stderr == ("torch_dlpack.py needs torch, which does not import here (No module "
                          "named 'torch'): pip install torch\n")


def test_depth_pass_example(tmp_path, capsys):
    import imageio.v3 as iio

    mod = load("depth_pass")
    color, depth = mod.scene()
    out = mod.main(["-o", str(tmp_path / "dof.png")])
    post = depth == 2.0
    np.testing.assert_array_equal(out[post], color[post])  # in focus: untouched
    wall = (slice(0, 10), slice(150, 160))
    assert np.abs(out[wall].astype(int) - color[wall]).max() > 20  # wall is blurred
    assert "0.6 m, 2 m, 8 m: 23.9, 0.0, 7.7" in capsys.readouterr().out
    assert iio.imread(tmp_path / "dof.png").shape == (108, 384, 3)


def test_effects_demo_writes_gif_and_still(tmp_path, capsys):
    import imageio.v3 as iio

    mod = load("effects_demo")
    fused, sharp = mod.run(frames=2, width=64, height=36)
    assert fused.shape == sharp.shape == (2, 36, 64, 3)
    assert np.abs(fused - sharp).max() > 0.05  # the effects changed the picture
    # and into what the demo says: each output frame is the mean of its 8 sub-frames, each
    # defocused by its own depth (the pool, builder and windows change nothing)
    lens = mod.LENS
    for k in range(2):
        subs = [mod.render(t, 64, 36) for t in mod.sample_times(k)]
        want = np.mean([hf.depth_of_field(color, depth, focus_distance=lens.focus_distance,
                                          f_stop=lens.f_stop,
                                          focal_length_mm=lens.focal_length_mm,
                                          sensor_width_mm=lens.sensor_width_mm)
                        for color, depth in subs], axis=0)
        np.testing.assert_allclose(fused[k], want, rtol=1e-5, atol=1e-6)
    mod.main(["-o", str(tmp_path / "d.gif"), "--still", str(tmp_path / "d.png"),
              "--frames", "2", "--size", "64x36"])
    assert iio.imread(tmp_path / "d.gif", index=None).shape[:3] == (2, 36, 64)
    assert iio.imread(tmp_path / "d.png").shape == (36, 128, 3)
    assert "2 frames 64x36, 8 samples" in capsys.readouterr().out


def test_the_readme_scene_is_the_file_and_it_orbits(tmp_path):
    """The README's first scene is in scenes/ as printed there, and its ball goes round:
    right of the centre at t = 0 (x = 2), left at t = pi / 3 (x = -2)."""
    import imageio.v3 as iio

    from hfrender.cli import main

    root = EXAMPLES.parent
    readme = (root / "README.md").read_text()
    start = readme.index("```python\n# scenes/orbit.py\n") + len("```python\n")
    assert readme[start:readme.index("```", start)] == (root / "scenes" / "orbit.py").read_text()
    centres = []
    for t in (0.0, np.pi / 3):
        out = tmp_path / f"{t:.2f}.png"
        assert main(["still", str(root / "scenes" / "orbit.py"), "-t", str(t), "--size",
                     "96x54", "-o", str(out), "--quiet"]) == 0
        img = iio.imread(out).astype(int)
        ball = (img[..., 0] > 120) & (img[..., 0] > img[..., 2] + 60)  # orange on the dark
        assert ball.sum() > 20
        centres.append(np.argwhere(ball)[:, 1].mean())
    assert centres[0] > 96 * 0.65 and centres[1] < 96 * 0.35, centres


def test_the_readme_hyperframe_loop_runs_as_printed_and_makes_every_output():
    """The effects guide's loop (docs/effects.md, Hyperframes), at a small frame size, gives
    every output frame once, in order, as motion_blur makes them over the whole stream (the
    last, partly filled hyperframe too: without flush_remaining the last output was lost)."""
    root = EXAMPLES.parent
    readme = (root / "docs" / "effects.md").read_text()
    start = readme.index("```python\n# yours: stream") + len("```python\n")
    code = readme[start:readme.index("```", start)]
    assert "(720, 1280, 4), np.uint8, capacity=64" in code
    code = code.replace("(720, 1280, 4), np.uint8, capacity=64", "(6, 8, 4), np.uint8, capacity=9")
    rng = np.random.default_rng(37)
    frames = rng.integers(0, 256, (40, 6, 8, 4), dtype=np.uint8)
    window, stride = 4, 1
    made = {}
    scope = dict(hf=hf, np=np, window=window, stride=stride, fps=30.0, lens=None,
                 weights=np.full(window, 1 / window),
                 stream=[(f, np.full((6, 8), 2.0, np.float32)) for f in frames],
                 write=lambda k0, out: made.update({k0 + i: o.copy() for i, o in enumerate(out)}))
    exec(code, scope)  # noqa: S102 - the README's own code
    assert sorted(made) == list(range(40 - window + 1))
    expected = hf.motion_blur(frames, window, stride=stride, premultiplied=True)
    got = np.stack([made[k] for k in sorted(made)]).astype(int)
    assert np.abs(got - expected).max() <= 1  # (rounding of RGBA's alpha, a code value)


def test_the_readme_effects_block_runs_as_printed():
    """Copied from the README and run as it is (its names were undefined: NameError)."""
    readme = (EXAMPLES.parent / "README.md").read_text()
    start = readme.index("## The effects library\n\n```python\n") + len(
        "## The effects library\n\n```python\n")
    scope: dict = {}
    exec(readme[start:readme.index("```", start)], scope)  # noqa: S102 - the README's code
    assert scope["blurred"].shape == (6, 180, 320, 3) and scope["blurred"].dtype == np.uint8
    assert scope["tmix_like"].shape == (41, 180, 320, 3)
    focused, frame = scope["focused"], scope["frame"]
    assert focused.shape == frame.shape
    assert np.array_equal(focused[70:110, 110:210], frame[70:110, 110:210])  # in focus
    assert np.abs(focused[:40].astype(int) - frame[:40]).mean() > 10  # the 10 m wall: blurred
