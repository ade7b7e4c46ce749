"""A compositor's renders through fx (a Blender user's trial): a frame still a render's
placeholder, a depth pass normalised to 0..1 with the near and far the user knows."""

import numpy as np

from hfrender.cli import main


def write_seq(folder, frames, pattern, first):
    import imageio.v3 as iio

    folder.mkdir(parents=True, exist_ok=True)
    for i, f in enumerate(frames):
        iio.imwrite(folder / (pattern % (first + i)), f)


def test_an_empty_placeholder_frame_is_refused_before_any_work(tmp_path, rng, capsys):
    """Blender's placeholders (empty files for frames still rendering) in a sequence: an EXR
    one was "Unable to open ... for read" after the frames before it were fused, a PNG one
    "damaged, or another format"; now one line naming the frame, before any work, footage
    or depth alike."""
    frames = rng.integers(0, 256, (5, 8, 12, 3), dtype=np.uint8)
    write_seq(tmp_path / "in", frames, "render_%04d.png", 1001)
    (tmp_path / "in" / "render_1004.png").write_bytes(b"")
    out = tmp_path / "out" / "%04d.png"
    source = str(tmp_path / "in" / "render_%04d.png")
    assert main(["fx", source, "-o", str(out), "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {source}: frame 1004 (render_1004.png) is an empty file (0 bytes: "
        "a render's placeholder for a frame not yet rendered, or a copy cut short); put the "
        "finished frame in its place\n")
    assert not (tmp_path / "out").exists()
    write_seq(tmp_path / "z", np.full((5, 8, 12), 2000, np.uint16), "z_%04d.png", 1001)
    (tmp_path / "z" / "z_1002.png").write_bytes(b"")
    write_seq(tmp_path / "in", frames[3:4], "render_%04d.png", 1004)
    assert main(["fx", source, "-o", str(out), "--depth", str(tmp_path / "z"),
                 "--depth-scale", "0.001", "--focus-distance", "2", "--f-stop", "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {tmp_path / 'z' / 'z_%04d.png'}: frame 1002 (z_1002.png) is an "
        "empty file (0 bytes: a render's placeholder for a frame not yet rendered, or a copy "
        "cut short); put the finished frame in its place\n")
