"""``hfrender fx --vectors``: each frame blurred along the motion vectors of EXR frames
(hfrender's and Nuke's forward.u / forward.v with v up, Blender's Vector pass), Z from the
same files; what is refused, in one line."""

import re

import numpy as np
import pytest

import hfrender as hf
from hfrender.cli import main

OpenEXR = pytest.importorskip("OpenEXR")
from hfrender.io.exr_files import read_exr  # noqa: E402

W, H = 96, 54
# a card 4 m away moving 10.8 m/s right and 5.4 m/s up: 12 and 6 px a frame at 30 fps
# (96 * 50 / 36 px of focal length: 3.6 m/s is 4 px a frame)
SLIDE = """
import hfrender as hf

class Slide(hf.Scene):
    duration = 0.1
    def setup(self):
        self.card = self.add(hf.Plane(scale=1.0, color=(0.8, 0.8, 0.8)))
        self.camera.position = (0, 0, 0)
        self.camera.look_at((0, 0, -1))
    def update(self, t):
        self.card.position = (10.8 * t - 0.5, 5.4 * t - 0.25, -4.0)
"""


def write_exr(path, planes):
    """An EXR of float32 ``planes`` (name -> (H, W))."""
    header = {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}
    with OpenEXR.File(header, {k: np.ascontiguousarray(v, np.float32)
                               for k, v in planes.items()}) as f:
        f.write(str(path))


def psnr(a, b):
    a, b = (np.clip(np.asarray(x, np.float64), 0, 1) for x in (a, b))
    return 10 * np.log10(1 / np.mean((a - b) ** 2))


def test_render_passes_then_fx_vectors_is_close_to_the_blurred_render(tmp_path, capsys):
    """render --passes depth,velocity (one sample: sharp) then fx --vectors on the same
    files: 42.4 dB from the 180-degree render of 32 sub-frames (the sharp frame: 28.9 dB)."""
    path = tmp_path / "slide.py"
    path.write_text(SLIDE)
    hf.render(path, str(tmp_path / "sharp" / "%04d.exr"), size=(W, H), samples=1,
              passes="depth,velocity")
    hf.render(path, str(tmp_path / "ref" / "%04d.exr"), size=(W, H), samples=32)
    capsys.readouterr()
    assert main(["fx", str(tmp_path / "sharp" / "%04d.exr"), "--vectors",
                 str(tmp_path / "sharp" / "%04d.exr"), "-o",
                 str(tmp_path / "out" / "%04d.exr")]) == 0
    said = capsys.readouterr().out
    assert said == (f"wrote {tmp_path / 'out' / '0000.exr'} .. 0002.exr: 3 frames at 30 fps from "
                    "3 at 30 fps\n")
    for k in range(3):
        sharp, ref, out = (read_exr(tmp_path / d / f"{k:04d}.exr")
                           for d in ("sharp", "ref", "out"))
        assert psnr(out, ref) > 40 and psnr(sharp, ref) < 30
        assert abs(out.sum() - sharp.sum()) / sharp.sum() < 1e-3  # energy


def square_exr(tmp_path, name, planes):
    """A grey frame with a bright square (rows 20..27, columns 28..35), and ``planes`` on
    the square (0 elsewhere) beside it."""
    rgb = np.full((48, 64), 0.2, np.float32)
    rgb[20:28, 28:36] = 1.0
    extra = {}
    for k, value in planes.items():
        extra[k] = np.zeros((48, 64), np.float32)
        extra[k][20:28, 28:36] = value
    write_exr(tmp_path / name, {"R": rgb, "G": rgb, "B": rgb, **extra})
    return tmp_path / name


@pytest.mark.parametrize("planes", [
    {"forward.u": 7.0, "forward.v": 7.0},  # Nuke: v up
    {f"ViewLayer.Vector.{c}": -7.0 for c in "XYZW"},  # Blender: both against the motion, y up
], ids=["nuke", "blender"])
def test_a_square_moving_up_right_streaks_up_right(tmp_path, planes):
    src = square_exr(tmp_path, "in.exr", planes)
    assert main(["fx", str(src), "--vectors", str(src), "-o", str(tmp_path / "o" / "%04d.exr"),
                 "-q"]) == 0
    out = read_exr(tmp_path / "o" / "0000.exr")[..., 0]
    want = hf.vector_blur(read_exr(src), np.broadcast_to(
        np.where((read_exr(src)[..., :1] > 0.5), np.float32([7, -7]), np.float32(0)),
        (48, 64, 2)), backend="cpu")[..., 0]  # x right, y down
    np.testing.assert_allclose(out, want, atol=1e-6)
    assert out[18, 36] > 0.23 and out[18, 27] == pytest.approx(0.2)  # up-right, not up-left


def test_a_vectors_folder_with_previews_is_read_as_its_exr_frames(tmp_path):
    """``--vectors FOLDER`` whose EXRs have a PNG and a JPEG preview beside them: fx's look
    at its inputs refused the folder as three sequences (a review: only the pass itself
    was taught that vectors are EXR); now the run is the EXR file's own."""
    import imageio.v3 as iio

    src = square_exr(tmp_path, "in.exr", {"forward.u": 7.0, "forward.v": 7.0})
    (tmp_path / "v").mkdir()
    square_exr(tmp_path / "v", "v.0001.exr", {"forward.u": 7.0, "forward.v": 7.0})
    for kind in ("png", "jpg"):
        iio.imwrite(tmp_path / "v" / f"v.0001.{kind}", np.zeros((12, 16, 3), np.uint8))
    for vectors, out in ((tmp_path / "v", "o"), (src, "want")):
        assert main(["fx", str(src), "--vectors", str(vectors), "-o",
                     str(tmp_path / out / "%04d.exr"), "-q"]) == 0
    np.testing.assert_array_equal(read_exr(tmp_path / "o" / "0000.exr"),
                                  read_exr(tmp_path / "want" / "0000.exr"))
    assert read_exr(tmp_path / "o" / "0000.exr")[18, 36, 0] > 0.23  # streaked up-right


def test_max_length_clamps_the_vectors_as_the_library(tmp_path):
    """fx --vectors --max-length 3: the square's 7,7 px vectors (9.9 px) cut to 3 px, the
    frame hf.vector_blur(max_length=3) makes (was: no such flag); unclamped, another."""
    src = square_exr(tmp_path, "in.exr", {"forward.u": 7.0, "forward.v": 7.0})
    assert main(["fx", str(src), "--vectors", str(src), "--max-length", "3", "-o",
                 str(tmp_path / "o" / "%04d.exr"), "-q"]) == 0
    out = read_exr(tmp_path / "o" / "0000.exr")[..., 0]
    vel = np.broadcast_to(np.where((read_exr(src)[..., :1] > 0.5), np.float32([7, -7]),
                                   np.float32(0)), (48, 64, 2))
    want = hf.vector_blur(read_exr(src), vel, backend="cpu", max_length=3)[..., 0]
    np.testing.assert_allclose(out, want, atol=1e-6)
    free = hf.vector_blur(read_exr(src), vel, backend="cpu")[..., 0]
    assert np.abs(free - want).max() > 0.1 and out[16, 38] == pytest.approx(0.2)


def test_z_beside_the_vectors_orders_the_streaks(tmp_path):
    """A still post nearer than the moving square: kept sharp with the file's Z."""
    rgb = np.full((48, 64), 0.2, np.float32)
    rgb[20:28, 28:36] = 1.0
    rgb[:, 37] = 0.5
    u = np.zeros((48, 64), np.float32)
    u[20:28, 28:36] = 10
    z = np.full((48, 64), 10.0, np.float32)
    z[20:28, 28:36], z[:, 37] = 2.0, 1.0
    write_exr(tmp_path / "in.exr", {"R": rgb, "G": rgb, "B": rgb, "Z": z, "forward.u": u,
                                    "forward.v": u * 0})
    assert main(["fx", str(tmp_path / "in.exr"), "--vectors", str(tmp_path / "in.exr"), "-o",
                 str(tmp_path / "o" / "%04d.exr"), "-q"]) == 0
    out = read_exr(tmp_path / "o" / "0000.exr")
    np.testing.assert_array_equal(out[:, 37], read_exr(tmp_path / "in.exr")[:, 37])
    assert out[23, 36, 0] < 0.9  # the streak's end, left of the post


@pytest.mark.parametrize("args, message", [
    (["--vectors", "{plain}"], r"{plain}: no motion vectors: neither forward.u and forward.v "
     r"\(Nuke; hfrender render --passes velocity\) nor Vector.X/Y/Z/W \(Blender's Vector "
     r"pass\) among its channels B, G, R"),
    (["--vectors", "{half}"], r"{half}: no motion vectors: neither forward.u and forward.v "
     r"\(Nuke; hfrender render --passes velocity\) nor Vector.X/Y/Z/W \(Blender's Vector "
     r"pass\) among its channels B, G, R, forward.u"),
    (["--vectors", "{vec}", "--motion-blur", "3"], r"--vectors and --motion-blur: give one "
     r"\(--vectors blurs each frame along its own motion vectors, Z from their files; the "
     r"other in a run of its own\)"),
    (["--vectors", "{vec}", "--shutter", "0"], r"--shutter 0 must be degrees in \(0, 720\] \(180: "
     r"half a frame's motion, 360: all of it\)"),
    (["--motion-blur", "2", "--shutter", "90"], r"--shutter 90 applies only with --vectors "
     r"\(motion blur from motion vectors\); fx's frame-blending shutter is --motion-blur N "
     r"and --stride S, 360\*N/S degrees \(--motion-blur 4 and --stride 8: 180\)"),
    (["--vectors", "{missing}"], r"--vectors {missing}: no such file or EXR sequence \(give "
     r"the frames holding the motion vectors, e.g. frames/%04d.exr\)"),
])
def test_bad_vectors_are_one_line(tmp_path, capsys, args, message):
    rgb = np.full((48, 64), 0.2, np.float32)
    write_exr(tmp_path / "plain.exr", {"R": rgb, "G": rgb, "B": rgb})
    write_exr(tmp_path / "half.exr", {"R": rgb, "G": rgb, "B": rgb, "forward.u": rgb})
    vec = square_exr(tmp_path, "vec.exr", {"forward.u": 1.0, "forward.v": 0.0})
    names = {"plain": tmp_path / "plain.exr", "half": tmp_path / "half.exr", "vec": vec,
             "missing": tmp_path / "nope.exr"}
    before = set(tmp_path.iterdir())
    code = main(["fx", str(vec), *[a.format(**names) for a in args], "-o",
                 str(tmp_path / "o" / "%04d.exr")])
    err = capsys.readouterr().err
    want = message.format(**{k: re.escape(str(v)) for k, v in names.items()})
    assert code == 2 and re.fullmatch(rf"hfrender: error: {want}\n", err), err
    assert set(tmp_path.iterdir()) == before  # nothing written


@pytest.mark.parametrize("extra, said", [
    ({}, []),  # hfrender's own EXRs: the colour, Z and the vectors, all read
    ({"Normal.X": 1.0}, ["in.exr holds Normal.X besides its colour: the output's EXRs hold "
                         "the colour alone"]),  # one really dropped: named alone
], ids=["all-read", "one-dropped"])
def test_the_channels_vectors_reads_are_not_said_to_be_dropped(tmp_path, caplog, extra, said):
    """fx --vectors on an EXR holding its own Z, forward.u, forward.v warned that they were
    dropped (they are what --vectors read); channels it does not read are still named."""
    src = square_exr(tmp_path, "in.exr", {"forward.u": 7.0, "forward.v": 7.0, **extra})
    planes = {c.name: np.asarray(c.pixels) for c in OpenEXR.File(str(src)).channels().values()}
    write_exr(src, {**planes, "Z": np.where(planes["forward.u"] > 0, 3.0, 8.0)})
    with caplog.at_level("WARNING"):
        assert main(["fx", str(src), "--vectors", str(src), "-o",
                     str(tmp_path / "o" / "%04d.exr"), "-q"]) == 0
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == said


def test_a_later_vectors_file_of_another_size_is_one_line(tmp_path, capsys):
    """Only the first file's size was checked: a later one of another size stopped the run
    with 'internal error: ValueError: could not broadcast ...'; now one line naming it."""
    rgb = np.full((48, 64), 0.2, np.float32)
    for k in range(3):
        write_exr(tmp_path / f"f{k:04d}.exr", {"R": rgb, "G": rgb, "B": rgb})
        h = 40 if k == 1 else 48
        write_exr(tmp_path / f"v{k:04d}.exr", {"forward.u": np.ones((h, 64)),
                                               "forward.v": np.zeros((h, 64))})
    code = main(["fx", str(tmp_path / "f%04d.exr"), "--vectors", str(tmp_path / "v%04d.exr"),
                 "-o", str(tmp_path / "o" / "%04d.exr")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"hfrender: error: --vectors {tmp_path / 'v0001.exr'}: "
                                        "64x40, but the footage is 64x48; "), err
    assert err.count("\n") == 1


@pytest.mark.parametrize("z0, z1, message", [
    (5.0, None, "{f1}: no Z, though 0000.exr has one: give every --vectors file its Z, or "
     "none"),
    (0.0, 0.0, "{f0}: its Z has 3072 value(s) NaN or <= 0, the first 0.0 at row 0, column 0; "
     "Z must be a distance > 0 from the camera (inf for sky), not 1/Z"),
    (5.0, np.nan, "{f1}: its Z has 3072 value(s) NaN or <= 0, the first nan at row 0, column 0; "
     "Z must be a distance > 0 from the camera (inf for sky), not 1/Z"),
], ids=["missing", "zero", "nan"])
def test_a_bad_z_beside_the_vectors_is_one_line_naming_its_file(tmp_path, capsys, z0, z1,
                                                                  message):
    """The vectors' Z went into the fusion unchecked: a later file without one, a 0 (Nuke's
    1/Z sky) or a NaN stopped the run with 'depth contains 3072 NaN value(s)' / 'depth has
    3072 value(s) <= 0' (no --depth given, no file named); now one line naming the file."""
    for k, z in enumerate((z0, z1)):
        planes = {"forward.u": np.ones((48, 64)), "forward.v": np.zeros((48, 64))}
        rgb = np.full((48, 64), 0.2, np.float32)
        write_exr(tmp_path / f"{k:04d}.exr", {"R": rgb, "G": rgb, "B": rgb, **planes, **(
            {} if z is None else {"Z": np.full((48, 64), z)})})
    code = main(["fx", str(tmp_path / "%04d.exr"), "--vectors", str(tmp_path / "%04d.exr"),
                 "-o", str(tmp_path / "o" / "%04d.exr")])
    err = capsys.readouterr().err
    want = message.format(f0=tmp_path / "0000.exr", f1=tmp_path / "0001.exr")
    assert code == 2 and err.split("\n")[0].split("; the 1 frame")[0] == \
        f"hfrender: error: {want}", err
    assert err.count("\n") == 1


@pytest.mark.parametrize("flags, tail", [
    ([], "1e+07 px a frame, over 100 frame diagonals (8000 px): not a motion; give "
     "--max-length PX to clamp such vectors"),
    (["--max-length", "1e9"], "1e+07 px a frame; clamped to --max-length 1e+09 it is still "
     "over 100 frame diagonals (8000 px): not a motion; give a --max-length of at most 8000"),
], ids=["unclamped", "clamped"])
def test_a_vector_over_100_diagonals_names_the_flag(tmp_path, capsys, flags, tail):
    """fx names --max-length, as its other lines name their flags (was the library's
    'give max_length= to clamp such vectors', Python's spelling, to a shell)."""
    src = square_exr(tmp_path, "in.exr", {"forward.u": 1e7, "forward.v": 0.0})
    assert main(["fx", str(src), "--vectors", str(src), *flags, "-o",
                 str(tmp_path / "o" / "%04d.exr"), "-q"]) == 2
    assert capsys.readouterr().err == ("hfrender: error: velocity of frame 0 at row 20, "
                                       f"column 28 is {tail}\n")


def test_a_bad_vector_late_in_a_sequence_names_its_footage_frame(tmp_path, capsys):
    """A vector over 100 diagonals in footage frame 5 (file 1006 of 1001..1008), fused in
    a hyperframe that starts at frame 4: the line says frame 5, as fx's depth lines count
    (was: frame 1, counted from its hyperframe's first frame)."""
    rgb = np.full((16, 24), 0.3, np.float32)
    (tmp_path / "v").mkdir()
    for i in range(8):
        u = np.zeros((16, 24), np.float32)
        u[4, 7] = 1e7 if i == 5 else 2.0
        write_exr(tmp_path / "v" / f"{1001 + i}.exr",
                  {"R": rgb, "G": rgb, "B": rgb, "forward.u": u, "forward.v": 0 * u})
    src = str(tmp_path / "v" / "%04d.exr")
    assert main(["fx", src, "--vectors", src, "-o", str(tmp_path / "o" / "%04d.exr"),
                 "-q"]) == 2
    err = capsys.readouterr().err
    assert err.split("; the ")[0] == (
        "hfrender: error: velocity of frame 5 at row 4, column 7 is 1e+07 px a frame, over "
        "100 frame diagonals (2884 px): not a motion; give --max-length PX to clamp such "
        "vectors"), err
