"""A depth sequence paired with the footage: by frame number (from its first number, a
longer pass too), one frame of a sequence given for all said, a path that gives none said
why, a one-frame pass's plane filled once."""

import itertools

import numpy as np
import pytest
from depth_files_helpers import (
    LENS,
    outputs,
    scene,
)

from hfrender.cli import main
from hfrender.io.depth_pass import open_depth
from hfrender.io.images import encode_png16
from hfrender.io.probe import FootageError


def test_a_depth_reader_fills_a_plane_with_a_one_frame_pass_once():
    """A static pass's plane is written once (the pool's planes keep it); a pass of many
    frames writes each."""
    from hfrender.io.depth_pass import DepthPass, DepthReader

    one = np.full((2, 3), 4.0, np.float32)
    plane = np.zeros((2, 3), np.float32)
    static = DepthReader(DepthPass("d", 1, (3, 2), itertools.repeat(one), one, static=True))
    static.into(plane, 0)
    assert (plane == 4.0).all()
    plane[0, 0] = 7.0  # (nothing else writes a plane: this shows it is not written again)
    static.into(plane, 1)
    assert plane[0, 0] == 7.0
    frames = [one, one * 2, one * 3]
    moving = DepthReader(DepthPass("d", 3, (3, 2), iter(frames), one))
    for i, want in enumerate(frames):
        moving.into(plane, i)
        np.testing.assert_array_equal(plane, want)
    with pytest.raises(FootageError, match="the depth pass ends at frame 3, the footage goes"):
        moving.into(plane, 3)


def test_a_depth_sequence_is_paired_with_the_footage_by_frame_number(tmp_path, rng, capsys,
                                                                    caplog):
    """A compositor's trial: footage shot.1001-1003 with depth z.0999-1004 took z.0999 for
    1001 (by place), and z.1003-1005 was taken silently too. Now each frame takes the depth
    of its number; a frame with none is one line."""
    import shutil

    seq, depth = scene(tmp_path, rng)
    shot = tmp_path / "shot"
    shot.mkdir()
    for i, f in enumerate(sorted(seq.iterdir())):
        shutil.copy(f, shot / f"shot.{1001 + i}.png")
    dseq = tmp_path / "z"
    dseq.mkdir()
    wrong = np.full_like(depth[0], 0.6)  # a depth nobody should read: another blur
    for number in range(999, 1005):
        d = depth[number - 1001] if 1001 <= number <= 1003 else wrong
        (dseq / f"z.{number}.png").write_bytes(  # millimetres, as a compositor saves them
            encode_png16(np.stack([np.rint(d * 1000).astype(np.uint16)] * 3, axis=-1)))
    got = tmp_path / "got" / "%02d.png"
    assert main(["fx", str(shot / "shot.%04d.png"), "-o", str(got), "--depth",
                 str(dseq / "z.%04d.png"), "--depth-scale", "0.001", *LENS]) == 0
    np.testing.assert_array_equal(outputs(got.parent), outputs(tmp_path / "want"))
    for number in (999, 1000):
        (dseq / f"z.{number}.png").unlink()
    (dseq / "z.1001.png").unlink()  # z.1002-1004: 1001 has none (they overlap: refused)
    assert main(["fx", str(shot / "shot.%04d.png"), "-o", str(tmp_path / "bad" / "%02d.png"),
                 "--depth", str(dseq / "z.%04d.png"), "--depth-scale", "0.001", *LENS]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: depth {dseq / 'z.%04d.png'} holds frames 1002..1004, the footage "
        "1001..1003: each frame takes the depth frame of its number\n")
    # numbers apart from the footage's altogether (depth 2001..): in order, said
    apart = tmp_path / "apart"
    apart.mkdir()
    for i, d in enumerate(depth):
        (apart / f"z.{2001 + i}.png").write_bytes(
            encode_png16(np.stack([np.rint(d * 1000).astype(np.uint16)] * 3, axis=-1)))
    with caplog.at_level("WARNING"):
        assert main(["fx", str(shot / "shot.%04d.png"), "-o", str(tmp_path / "order" /
                     "%02d.png"), "--depth", str(apart / "z.%04d.png"), "--depth-scale",
                     "0.001", *LENS]) == 0
    np.testing.assert_array_equal(outputs(tmp_path / "order"), outputs(tmp_path / "want"))
    assert ("holds frames 2001..2003, the footage 1001..1003: none of the same number, so "
            "they pair in order (the footage's first with z.2001.png)") in caplog.text


@pytest.mark.parametrize("given, said", [
    ("nope/%04d.exr", "depth {tmp}/nope/%04d.exr: not found"),  # (each was the formats'
    ("nope", "depth {tmp}/nope: not found"),  # list, as if the one given were none of them)
    ("gone.mp4", "depth {tmp}/gone.mp4: not found"),  # (was "a video is not read as depth")
    ("z/%04d.png", "depth {tmp}/z/%04d.png: {tmp}/z holds no .png images (it holds .exr)"),
    ("z.mp4", "depth {tmp}/z.mp4: a video is not read as depth (8-bit, compressed: its steps "
              "would show); export the pass as a 16-bit PNG or EXR sequence, or a .npy"),
    ("z.tiff", "depth {tmp}/z.tiff: .tiff is no depth format; use a .npy or .npz file, or a "
               "16-bit PNG / EXR sequence"),  # (a review: "z holds no .tiff images")
])
def test_a_depth_path_that_gives_none_says_why(tmp_path, given, said):
    (tmp_path / "z").mkdir()
    (tmp_path / "z" / "0001.exr").write_bytes(b"")
    (tmp_path / "z.mp4").write_bytes(b"")
    (tmp_path / "z.tiff").write_bytes(b"")
    with pytest.raises(FootageError) as err:
        open_depth(str(tmp_path / given))
    assert str(err.value) == said.format(tmp=tmp_path)


def test_one_frame_of_a_depth_sequence_given_for_all_is_said(tmp_path, caplog):
    """``--depth zexr/1001.exr``, meant as ``zexr/%04d.exr``: every frame took frame 1001's
    depth without a word, even with -v (a compositor's trial)."""
    (tmp_path / "z").mkdir()
    grey = np.stack([np.full((4, 6), 2000, np.uint16)] * 3, axis=-1)
    for k in (1001, 1002, 1003):
        (tmp_path / "z" / f"{k}.png").write_bytes(encode_png16(grey))
    (tmp_path / "plate.png").write_bytes(encode_png16(grey))
    with caplog.at_level("WARNING"):
        one = open_depth(str(tmp_path / "z" / "1002.png"))
        plate = open_depth(str(tmp_path / "plate.png"))  # a plate alone: as it was
    assert one.static and plate.static
    assert [r.getMessage() for r in caplog.records] == [
        f"depth {tmp_path / 'z' / '1002.png'} is one frame of a sequence ({tmp_path / 'z'} "
        f"holds 3 like it): every frame takes it; for each its own, give "
        f"{tmp_path / 'z' / '%04d.png'}"]


def test_a_depth_sequence_longer_than_the_footage_from_its_first_number_pairs_by_number(
        tmp_path, rng):
    """A compositor's trial: footage 0000-0002 with depth 0000-0004 was refused ("has 5
    frames, the footage 3: one depth frame per frame is needed") while footage 0001-0002
    with the same depth was paired by number."""
    seq, depth = scene(tmp_path, rng)
    dseq = tmp_path / "z"
    dseq.mkdir()
    wrong = np.full_like(depth[0], 0.6)  # frames past the footage's: never read
    for number, d in enumerate([*depth, wrong, wrong]):
        (dseq / f"{number:04d}.png").write_bytes(
            encode_png16(np.stack([np.rint(d * 1000).astype(np.uint16)] * 3, axis=-1)))
    got = tmp_path / "got" / "%02d.png"
    assert main(["fx", str(seq / "%04d.png"), "-o", str(got), "--depth",
                 str(dseq / "%04d.png"), "--depth-scale", "0.001", *LENS]) == 0
    np.testing.assert_array_equal(outputs(got.parent), outputs(tmp_path / "want"))
