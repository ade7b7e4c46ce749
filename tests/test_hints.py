"""Hints that point the right way: every refusal is one line whose advice can be followed."""

import ctypes.util
from pathlib import Path

import numpy as np
import pytest

import hfrender as hf
from hfrender import validate
from hfrender.cli import main
from hfrender.errors import InputError
from hfrender.io.depth_pass import open_depth
from hfrender.io.footage import FootageError
from hfrender.io.writers import WriterError, check_output, ffmpeg_encoders

DATA = Path(__file__).parent / "data"
BAR = str(DATA / "bar.frag")  # a shader scene: 4 s, the default duration


def error_line(capsys):
    """The one line that the command printed on stderr (and nothing on stdout)."""
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def png_sequence(folder, n=3, size=(16, 8)):
    import imageio.v3 as iio

    folder.mkdir()
    w, h = size
    for i in range(n):
        iio.imwrite(folder / f"{i:03d}.png", np.full((h, w, 3), 40 * i, np.uint8))
    return str(folder / "%03d.png")


# 1. an odd size: the hint is a size that exists (never 0) ------------------------------------

def odd_size_message(size):
    with pytest.raises(WriterError) as info:
        check_output("out.mp4", size)
    return str(info.value)


def test_odd_size_hint_rounds_down():
    assert odd_size_message((641, 361)) == ("size 641x361: libx264 video in yuv420p needs an "
                                            "even width and height; use 640x360, or --pix-fmt "
                                            "yuv444p, or write a PNG sequence (-o "
                                            "frames/%05d.png)")


@pytest.mark.parametrize(("size", "hint"), [((1, 1), "2x2"), ((1, 360), "2x360"),
                                            ((641, 1), "640x2")])
def test_odd_size_hint_is_never_below_2(size, hint):
    assert odd_size_message(size) == (f"size {size[0]}x{size[1]}: libx264 video in yuv420p "
                                      f"needs an even width and height; use {hint}, or "
                                      "--pix-fmt yuv444p, or write a PNG sequence (-o "
                                      "frames/%05d.png)")


def test_render_size_1x1_suggests_2x2(tmp_path, capsys):
    assert main(["render", BAR, "-o", str(tmp_path / "x.mp4"), "--size", "1x1"]) == 2
    assert error_line(capsys) == ("hfrender: error: size 1x1: libx264 video in yuv420p needs "
                                  "an even width and height; use 2x2, or --pix-fmt yuv444p, or "
                                  "write a PNG sequence (-o frames/%05d.png)")


# 2. fx has no --size: its hint for odd footage is one fx can follow ----------------------------

@pytest.mark.parametrize("out, extra", [("o.mp4", ["--pix-fmt", "yuv444p"]), ("o.webm", []),
                                        ("o.mov", ["--codec", "prores_ks", "--pix-fmt",
                                                   "yuv444p10le"])])
def test_an_odd_size_is_taken_where_the_output_has_no_half_chroma(tmp_path, out, extra):
    """4:4:4 H.264, VP9 (it rounds its chroma up) and ProRes 4444 take 15x9 footage whole
    (ProRes 422 needs an even width: tests/test_player_outputs.py)."""
    import imageio_ffmpeg

    seq = png_sequence(tmp_path / "odd", size=(15, 9))
    assert main(["fx", seq, "-o", str(tmp_path / out), "--motion-blur", "2", "--quiet",
                 *extra]) == 0
    meta = imageio_ffmpeg.read_frames(str(tmp_path / out))
    assert next(meta)["size"] == (15, 9) and len(list(meta)) >= 1


def test_fx_odd_footage_hint_needs_no_size_option(tmp_path, capsys):
    seq = png_sequence(tmp_path / "odd", size=(15, 9))
    assert main(["fx", seq, "-o", str(tmp_path / "o.mp4"), "--motion-blur", "2"]) == 2
    assert error_line(capsys) == ("hfrender: error: size 15x9: libx264 video in yuv420p needs "
                                  "an even width and height; crop or pad the footage to an "
                                  "even size, or --pix-fmt yuv444p, or write a PNG sequence "
                                  "(-o out/%05d.png)")


# 3. an encoder that this ffmpeg lists but that cannot start here -----------------------------

def test_render_encoder_that_cannot_start_is_one_line_before_rendering(tmp_path, capsys):
    if "h264_vaapi" not in ffmpeg_encoders():
        pytest.skip("this ffmpeg has no h264_vaapi")
    out = tmp_path / "x.mp4"
    # VAAPI takes hardware frames only: it never starts on raw frames from a pipe
    assert main(["render", BAR, "--codec", "h264_vaapi", "-o", str(out), "--size", "64x36",
                 "--duration", "0.1"]) == 2
    line = error_line(capsys)
    assert line.startswith("hfrender: error: --codec h264_vaapi: the encoder does not start "
                           "on this machine: ")
    assert "(leave --codec out for the output's default encoder)" in line
    assert ".hfrender" not in line and "seg_" not in line  # no internal segment path
    assert not out.exists() and not (tmp_path / ".x.mp4.hfrender").exists()


def test_nvenc_without_a_driver_names_the_driver(tmp_path, capsys):
    if "h264_nvenc" not in ffmpeg_encoders() or ctypes.util.find_library("cuda"):
        pytest.skip("needs an ffmpeg with h264_nvenc on a machine without the CUDA driver")
    assert main(["render", BAR, "--codec", "h264_nvenc", "-o", str(tmp_path / "x.mp4"),
                 "--size", "64x36", "--duration", "0.1"]) == 2
    assert error_line(capsys) == ("hfrender: error: --codec h264_nvenc: the encoder does not "
                                  "start on this machine: Cannot load libcuda.so.1 (leave "
                                  "--codec out for the output's default encoder)")


def test_fx_encoder_that_cannot_start_is_one_line(tmp_path, capsys):
    if "h264_vaapi" not in ffmpeg_encoders():
        pytest.skip("this ffmpeg has no h264_vaapi")
    seq = png_sequence(tmp_path / "seq")
    assert main(["fx", seq, "-o", str(tmp_path / "o.mp4"), "--motion-blur", "2", "--codec",
                 "h264_vaapi"]) == 2
    assert error_line(capsys).startswith("hfrender: error: --codec h264_vaapi: the encoder "
                                         "does not start on this machine: ")
    assert not list(tmp_path.glob(".o.mp4*"))


# 4. still: -t checked against the frames that exist, --quiet, no video options ---------------

@pytest.mark.parametrize(("argv", "line"), [
    (["-t", "nan"], "-t nan: not a time (give seconds, a finite number >= 0); a shader at 30 "
     "fps has frames 0..9999999 (-t 0 to 333333.3)"),  # any time: a pure function of time
    (["-t", "inf"], "-t inf: not a time (give seconds, a finite number >= 0); a shader at 30 "
     "fps has frames 0..9999999 (-t 0 to 333333.3)"),
    (["-t", "-5", "--duration", "0.3"], "-t -5: before the start (times are >= 0 s); "
     "--duration 0.3 at 30 fps has frames 0..8 (-t 0 to 0.267)"),
    (["-t", "0.3", "--duration", "0.3"], "-t 0.3: frame 9, past the end; --duration 0.3 at "
     "30 fps has frames 0..8 (-t 0 to 0.267)"),
    (["-t", "100", "--duration", "4"], "-t 100: frame 3000, past the end; --duration 4 at "
     "30 fps has frames 0..119 (-t 0 to 3.967)"),
    (["-t", "3.99", "--fps", "10", "--duration", "4"], "-t 3.99: frame 40, past the end; "
     "--duration 4 at 10 fps has frames 0..39 (-t 0 to 3.9)"),
    (["-t", "1e6"], "-t 1e6: frame 30000000, past the end; a shader at 30 fps has frames "
     "0..9999999 (-t 0 to 333333.3)"),
])
def test_still_time_must_be_a_frame_that_exists(tmp_path, capsys, argv, line):
    out = tmp_path / "s.png"
    assert main(["still", BAR, *argv, "-o", str(out), "--size", "16x8"]) == 2
    assert error_line(capsys) == f"hfrender: error: {line}"
    assert not out.exists()


@pytest.mark.usefixtures("gl_context")
def test_still_quiet_prints_nothing(tmp_path, capsys):
    out = tmp_path / "s.png"
    assert main(["still", BAR, "-t", "0.1", "-o", str(out), "--size", "16x8", "--samples", "2",
                 "--quiet"]) == 0
    assert out.is_file()
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("option", [["--resume"], ["--codec", "libx264"], ["--preview"],
                                    ["--stats"], ["--schedule", "fifo"]])
def test_still_does_not_offer_video_options(tmp_path, capsys, option):
    with pytest.raises(SystemExit) as info:
        main(["still", BAR, *option, "-o", str(tmp_path / "s.png")])
    assert info.value.code == 2
    assert f"unrecognized arguments: {' '.join(option)}" in capsys.readouterr().err


def test_render_keeps_the_video_options():
    from hfrender.cli import build_parser

    args = build_parser().parse_args(["render", BAR, "--resume", "--codec", "libx264",
                                      "--preview", "--stats", "--schedule", "fifo"])
    assert args.resume and args.codec == "libx264" and args.preview and args.stats


# 5. depth files and depth values -------------------------------------------------------------

def test_text_file_named_npy_is_not_a_numpy_file(tmp_path, capsys):
    fake = tmp_path / "depth.npy"
    fake.write_text("1.0 2.0 3.0\n")
    with pytest.raises(FootageError) as info:
        open_depth(str(fake))
    assert str(info.value) == (f"{fake}: not a NumPy .npy/.npz file (it starts with "
                               "b'1.0 2.0 '); write depth with numpy.save or numpy.savez")
    seq = png_sequence(tmp_path / "seq")
    assert main(["fx", seq, "-o", str(tmp_path / "o" / "%03d.png"), "--depth", str(fake),
                 "--focus-distance", "1", "--f-stop", "2"]) == 2
    assert error_line(capsys) == (f"hfrender: error: {fake}: not a NumPy .npy/.npz file (it "
                                  "starts with b'1.0 2.0 '); write depth with numpy.save or "
                                  "numpy.savez")


@pytest.mark.parametrize(("make", "why"), [
    (lambda p: p.write_bytes(b""), "it is empty"),
    (lambda p: np.save(p, np.array([{"a": 1}], dtype=object), allow_pickle=True),
     "it holds Python objects, not numbers"),
    (lambda p: p.write_bytes(np.lib.format.magic(1, 0) + b"\x10\x00{'descr'"),
     "ValueError: "),
])
def test_damaged_npy_is_one_line(tmp_path, make, why):
    path = tmp_path / "d.npy"
    make(path)
    with pytest.raises(FootageError, match=rf"^{path}: not a NumPy \.npy/\.npz file \({why}"):
        open_depth(str(path))


def test_npz_without_arrays_and_text_depth(tmp_path):
    np.savez(tmp_path / "empty.npz")
    with pytest.raises(FootageError, match=r"empty\.npz: not a NumPy \.npy/\.npz file \(the "
                       r"archive holds no array\)"):
        open_depth(str(tmp_path / "empty.npz"))
    np.save(tmp_path / "s.npy", np.array([[["far"]]]))
    with pytest.raises(FootageError, match=r"s\.npy: depth has dtype <U3; it must be numeric"):
        open_depth(str(tmp_path / "s.npy"))


def test_depth_frame_names_the_frame_and_the_pixel():
    d = np.full((8, 16), 2.0, np.float32)
    assert validate.depth_frame(d, 12) is not None
    d[5, 3] = np.nan
    with pytest.raises(InputError) as info:
        validate.depth_frame(d, 12)
    assert str(info.value) == ("depth frame 12 has a NaN at row 5, column 3; depth must be a "
                               "distance > 0 (use inf for sky)")
    d[6, 1] = np.nan
    d[0, 0] = -1.0  # NaN is told first: it is the likelier mistake
    with pytest.raises(InputError, match=r"^depth frame 7 has 2 NaNs, the first at row 5, "
                       r"column 3;"):
        validate.depth_frame(d, 7)
    d = np.full((8, 16, 1), np.inf, np.float32)  # sky is fine, and (H, W, 1) too
    assert validate.depth_frame(d, 0).shape == (8, 16)
    d[2, 9, 0] = 0.0
    with pytest.raises(InputError) as info:
        validate.depth_frame(d, 0)
    assert str(info.value) == ("depth frame 0 has a value <= 0 (0) at row 2, column 9; depth "
                               "must be a distance > 0 (use inf for sky; hfrender fx "
                               "--depth-zero-is-sky reads 0 as sky, --depth-range "
                               "NEAR,FAR a pass normalised to 0..1)")
    d[2, 9, 0] = -0.5  # no sensor writes that: no hint of the option
    with pytest.raises(InputError) as info:
        validate.depth_frame(d, 0)
    assert str(info.value).endswith("depth must be a distance > 0 (use inf for sky)")


def test_fx_nan_depth_names_the_frame_and_pixel(tmp_path, capsys):
    seq = png_sequence(tmp_path / "seq")
    depth = np.full((3, 8, 16), 2.0, np.float32)
    depth[2, 5, 3] = np.nan
    np.save(tmp_path / "d.npy", depth)
    assert main(["fx", seq, "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
                 str(tmp_path / "d.npy"), "--focus-distance", "1", "--f-stop", "2",
                 "--quiet"]) == 2
    assert error_line(capsys) == (  # (an .npy checked whole: before any frame is written)
        f"hfrender: error: depth frame 2 ({tmp_path / 'd.npy'}) has a NaN at row 5, column 3; "
        "depth must be a distance > 0 (use inf for sky)")
    assert not (tmp_path / "o").exists()


# 6. lens options without --depth are refused, not ignored -------------------------------------

@pytest.mark.parametrize(("flags", "line"), [
    (["--focus-distance", "2"], "--focus-distance applies only with --depth DEPTH (depth of "
     "field from a depth pass): give --depth, or leave it out"),
    (["--f-stop", "2", "--focal-length-mm", "35", "--sensor-width-mm", "24", "--max-coc-px",
      "9", "--depth-scale", "0.001"],
     "--f-stop, --focal-length-mm, --sensor-width-mm, --max-coc-px and --depth-scale apply "
     "only with --depth DEPTH (depth of field from a depth pass): give --depth, or leave them "
     "out"),
])
def test_fx_lens_options_need_depth(tmp_path, capsys, flags, line):
    """With --motion-blur or without (there it said "nothing to do")."""
    seq = png_sequence(tmp_path / "seq")
    for blur in (["--motion-blur", "2"], []):
        assert main(["fx", seq, "-o", str(tmp_path / "o" / "%03d.png"), *blur, *flags]) == 2
        assert error_line(capsys) == f"hfrender: error: {line}"
        assert not (tmp_path / "o").exists()


def test_fx_lens_defaults_still_apply(tmp_path, monkeypatch):
    import hfrender.engine.fx as fx

    seen = {}

    class Stop(BaseException):  # not an Exception: main() does not catch it
        pass

    def fake_job(source, output, settings, progress):
        seen["s"] = settings
        raise Stop

    monkeypatch.setattr(fx, "FxJob", fake_job)
    np.save(tmp_path / "d.npy", np.ones((3, 8, 16), np.float32))
    with pytest.raises(Stop):
        main(["fx", "in.mp4", "-o", "o.mp4", "--depth", str(tmp_path / "d.npy"),
              "--focus-distance", "2", "--f-stop", "2.8"])
    s = seen["s"]
    assert s.depth_scale == 1.0
    assert (s.lens.focal_length_mm, s.lens.sensor_width_mm) == (50.0, 36.0)


# 7. dir(hf): the public names only ------------------------------------------------------------

def test_dir_lists_only_public_names_and_submodules():
    names = dir(hf)
    assert set(hf.__all__) <= set(names)
    assert {"effects", "engine", "io", "scene", "validate"} <= set(names)
    for helper in ("Any", "TYPE_CHECKING", "importlib", "logging", "annotations", "_HOME"):
        assert helper not in names
    assert all(not n.startswith("_") or n == "__version__" for n in names)
    for helper in ("Any", "TYPE_CHECKING", "importlib", "logging"):
        with pytest.raises(AttributeError):
            getattr(hf, helper)
    assert hf.motion_blur is hf.effects.motion_blur  # lazy loading still works


def test_every_lazy_public_name_is_imported_for_type_checkers():
    """The names hfrender loads on first use are the ones its ``if TYPE_CHECKING:`` block
    imports, each from its home (was: hf.render, hf.SampleStore and hf.StoreError missing
    there, unknown to a type checker or an IDE)."""
    import ast
    import importlib

    tree = ast.parse(Path(hf.__file__).read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If)
                 and getattr(n.test, "id", None) == "TYPE_CHECKING")
    imported = {a.asname or a.name: node.module for node in block.body for a in node.names}
    assert sorted(imported) == sorted(hf._HOME)
    for name, module in imported.items():  # the very object hf.NAME loads
        assert getattr(importlib.import_module(module), name) is getattr(hf, name), name


@pytest.mark.parametrize("size, extra, said", [
    ((15, 8), ["--pix-fmt", "yuv422p"], "needs an even width; use 14x8, or --pix-fmt yuv444p"),
    ((15, 9), ["--codec", "png", "-o", "o.mov"], None),  # RGB: any size
])
def test_what_an_odd_size_needs_follows_the_pixel_format(tmp_path, capsys, size, extra, said):
    out = ["-o", str(tmp_path / "o.mp4")] if "-o" not in extra else []
    extra = [str(tmp_path / e) if e.startswith("o.") else e for e in extra]
    code = main(["render", BAR, *out, *extra, "--size", "{}x{}".format(*size), "--duration",
                 "0.1", "--samples", "1", "--quiet"])
    if said is None:
        assert code == 0
    else:
        assert code == 2 and said in error_line(capsys)


def test_odd_size_names_the_encoders_own_pixel_format():
    """DNxHD takes no yuv420p: its message names the 4:2:2 it is written in (was
    'dnxhd video in yuv420p ... even width and height')."""
    with pytest.raises(WriterError) as info:
        check_output("out.mov", (161, 90), "dnxhd")
    assert str(info.value) == ("size 161x90: dnxhd video in yuv422p needs an even width; "
                               "use 160x90, or --pix-fmt yuv444p10le, or write a PNG sequence "
                               "(-o frames/%05d.png)")
    assert check_output("out.mov", (160, 91), "dnxhd") == "dnxhd"  # 4:2:2: odd height taken
