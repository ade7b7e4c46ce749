"""A compositor's renders through fx (a Blender user's trial): a frame still a render's
placeholder, a depth pass normalised to 0..1 with the near and far the user knows."""

import itertools

import numpy as np
from fx_sequence_helpers import write_seq

from hfrender.cli import main


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


def test_a_depth_pass_normalised_to_0_1_takes_its_near_and_far(tmp_path, rng, capsys):
    """Blender's Map Range (near..far to 0..1) written as a 16-bit PNG: --depth-scale could
    not give its near (an offset), and its black, the nearest, was refused with a hint to
    read it as sky. --depth-range NEAR,FAR makes the metres: the frames the same as the pass
    in metres as a .npy (white near too, FAR < NEAR)."""
    import imageio.v3 as iio

    frames = rng.integers(0, 256, (3, 24, 32, 3), dtype=np.uint8)
    write_seq(tmp_path / "in", frames, "render_%04d.png", 1001)
    codes = rng.integers(0, 65536, (3, 24, 32), dtype=np.uint16)
    codes[:, :4, :4] = 0  # the nearest: black
    write_seq(tmp_path / "z", codes, "depth_%04d.png", 1001)
    source, z = str(tmp_path / "in" / "render_%04d.png"), str(tmp_path / "z")
    lens = ["--focus-distance", "3", "--f-stop", "1.4", "--focal-length-mm", "85"]
    assert main(["fx", source, "--depth", z, *lens, "-o", str(tmp_path / "o0" / "%04d.png")]) == 2
    assert capsys.readouterr().err.endswith(
        "(use inf for sky; hfrender fx --depth-zero-is-sky reads 0 as sky, --depth-range "
        "NEAR,FAR a pass normalised to 0..1)\n")
    for span, near, far in (("1,11", 1.0, 11.0), ("11,1", 11.0, 1.0)):
        metres = codes.astype(np.float32) * np.float32((far - near) / 65535) + np.float32(near)
        np.save(tmp_path / "z.npy", metres)
        got = {}
        for name, depth in (("range", ["--depth", z, "--depth-range", span]),
                            ("npy", ["--depth", str(tmp_path / "z.npy")])):
            out = tmp_path / f"{name}{near:g}"
            assert main(["fx", source, *depth, *lens, "-o", str(out / "%04d.png"), "-q"]) == 0
            got[name] = np.stack([iio.imread(out / f"{k}.png") for k in (1001, 1002, 1003)])
        np.testing.assert_array_equal(got["range"], got["npy"])
        assert np.abs(got["range"].astype(int) - frames).max() > 50  # defocused
    for bad, said in (("0,5", "--depth-range 0,5: give NEAR,FAR, two finite distances in "
                               "metres > 0 (the normalised pass's 0 and 1; FAR < NEAR where "
                               "white is near)"),
                      ("5", "--depth-range '5': give NEAR,FAR, the metres a depth pass "
                            "normalised to 0..1 maps its 0 and its 1 to (e.g. 0.5,20)"),
                      ("1,5 --depth-scale 0.001", "--depth-range and --depth-scale: give one "
                       "(the range gives the normalised pass's metres, its 0 NEAR)")):
        assert main(["fx", source, "--depth", z, *lens, "-o", str(tmp_path / "x" / "%04d.png"),
                     "--depth-range", *bad.split()]) == 2
        assert capsys.readouterr().err == f"hfrender: error: {said}\n"
    assert not (tmp_path / "x").exists()


def test_a_batch_job_takes_depth_range(tmp_path, rng, capsys):
    """The jobs file's ``depth-range = "NEAR,FAR"`` is the command's --depth-range: the same
    frames; a bad one named as the file spells it."""
    import imageio.v3 as iio

    write_seq(tmp_path / "in", rng.integers(0, 256, (2, 16, 20, 3), dtype=np.uint8),
              "r_%04d.png", 1)
    write_seq(tmp_path / "z", rng.integers(0, 65536, (2, 16, 20), dtype=np.uint16),
              "z_%04d.png", 1)
    lens = ["--focus-distance", "3", "--f-stop", "1.4", "--focal-length-mm", "85"]
    assert main(["fx", str(tmp_path / "in"), "--depth", str(tmp_path / "z"), *lens,
                 "--depth-range", "1,11", "-o", str(tmp_path / "cli" / "%04d.png"), "-q"]) == 0
    job = ('[[job]]\nname = "n"\ninput = "in"\noutput = "job/%04d.png"\ndepth = "z"\n'
           'depth-range = "{}"\nfocus-distance = 3\nf-stop = 1.4\nfocal-length-mm = 85\n')
    (tmp_path / "jobs.toml").write_text(job.format("0,11"))
    assert main(["batch", str(tmp_path / "jobs.toml"), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {tmp_path / 'jobs.toml'}: job 'n': depth-range = \"0,11\": give "
        "NEAR,FAR, two finite distances in metres > 0 (the normalised pass's 0 and 1; FAR < "
        "NEAR where white is near)\n")
    (tmp_path / "jobs.toml").write_text(job.format("1,11"))
    assert main(["batch", str(tmp_path / "jobs.toml"), "-q"]) == 0
    for k in (1, 2):
        np.testing.assert_array_equal(iio.imread(tmp_path / "job" / f"{k:04d}.png"),
                                      iio.imread(tmp_path / "cli" / f"{k:04d}.png"))


def test_sky_in_a_normalised_float_pass_stays_sky_whichever_way_its_range_runs(tmp_path):
    """A float pass (EXR, .npy) normalised to 0..1 keeps its sky at inf: with white near
    (FAR < NEAR) it came out -inf, refused as 'a value <= 0 (-inf)'."""
    from hfrender.io.depth_pass import open_depth

    rng = np.random.default_rng(5)
    norm = rng.random((2, 4, 6)).astype(np.float32)
    norm[:, 0, 0] = np.inf
    np.save(tmp_path / "z.npy", norm)
    for near, far in ((1.0, 11.0), (20.0, 0.5)):
        depth = open_depth(str(tmp_path / "z.npy"), (near, far))
        got = np.stack(list(itertools.islice(depth.frames, 2)))
        want = norm * np.float32((far - near) / 1.0) + np.float32(near)
        want[:, 0, 0] = np.inf
        np.testing.assert_array_equal(got, want)


def test_a_depth_range_of_one_distance_is_refused(tmp_path, capsys):
    """NEAR and FAR the same put every pixel at that distance, the pass unread (was: taken,
    no depth of field from it, unsaid); in the jobs file as the file spells it."""
    frames = np.random.default_rng(3).integers(0, 256, (2, 8, 10, 3), dtype=np.uint8)
    write_seq(tmp_path / "in", frames, "r_%04d.png", 1)
    write_seq(tmp_path / "z", np.full((2, 8, 10), 30000, np.uint16), "z_%04d.png", 1)
    lens = ["--focus-distance", "3", "--f-stop", "1.4"]
    assert main(["fx", str(tmp_path / "in"), "--depth", str(tmp_path / "z"), *lens,
                 "--depth-range", "5,5.0", "-o", str(tmp_path / "o" / "%04d.png")]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --depth-range 5,5.0: NEAR and FAR are the same distance, every "
        "pixel 5 m whatever the pass says; give the metres of its 0 and of its 1\n")
    job = ('[[job]]\nname = "n"\ninput = "in"\noutput = "job/%04d.png"\ndepth = "z"\n'
           'depth-range = "2,2"\nfocus-distance = 3\nf-stop = 1.4\n')
    (tmp_path / "jobs.toml").write_text(job)
    assert main(["batch", str(tmp_path / "jobs.toml"), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {tmp_path / 'jobs.toml'}: job 'n': depth-range = \"2,2\": NEAR and "
        "FAR are the same distance, every pixel 2 m whatever the pass says; give the metres "
        "of its 0 and of its 1\n")
    assert not (tmp_path / "o").exists() and not (tmp_path / "job").exists()
