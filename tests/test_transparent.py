"""Transparent output: no background, alpha blended like light, straight alpha written."""

import re
import subprocess
import sys

import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np
import pytest

from hfrender.color import decode_table, straight_alpha
from hfrender.io.probe import probe

SCENE = '''
import hfrender as hf

class Slide(hf.Scene):
    duration = 0.2
    background = {background}
    def setup(self):
        # a plane facing the camera: one colour all over, so an edge's mix is easy to judge
        self.box = self.add(hf.Plane(scale=0.8, color=(0.9, 0.5, 0.1), emissive=0.5))
        self.camera.position = (0, 0, 4)
        self.camera.look_at((0, 0, 0))
    def update(self, t):
        self.box.position = (-1 + 8 * t, 0, 0)
'''
RUN = [sys.executable, "-m", "hfrender", "render", "--size", "64x36", "--quiet"]


@pytest.fixture
def scenes(tmp_path):
    out = {}
    for name, bg in (("clear", "None"), ("grey", "(0.4, 0.4, 0.4)")):
        out[name] = tmp_path / f"{name}.py"
        out[name].write_text(SCENE.format(background=bg))
    return out


def _render(scene, output, *flags):
    done = subprocess.run([*RUN, str(scene), "-o", str(output), *flags], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    return done


def _pngs(folder):
    return np.stack([iio.imread(f) for f in sorted(folder.glob("*.png"))])


def _lin(codes):
    return decode_table("uint8")[codes]


def test_background_none_gives_alpha_and_a_partial_moving_edge(scenes, tmp_path):
    _render(scenes["clear"], tmp_path / "a" / "%02d.png")
    frames = _pngs(tmp_path / "a")
    assert frames.shape == (6, 36, 64, 4)
    alpha = frames[..., 3]
    assert alpha[:, 0, :].max() == 0  # the top row is empty: transparent
    assert (alpha == 255).any(axis=(1, 2)).all()  # inside the box: opaque
    partial = (alpha > 0) & (alpha < 255)
    assert partial.sum(axis=(1, 2)).min() > 10  # the blurred edges: partly covered
    assert not frames[alpha == 0][:, :3].any()  # nothing where nothing is


def test_a_blurred_edge_composites_without_a_fringe(scenes, tmp_path):
    _render(scenes["clear"], tmp_path / "a" / "%02d.png")
    frames = _pngs(tmp_path / "a")
    a = frames[..., 3:4] / 255.0
    straight = _lin(frames[..., :3])
    box = _lin(np.array([np.median(frames[frames[..., 3] == 255][:, c]) for c in range(3)],
                        np.uint8))
    edge = (frames[..., 3] > 0) & (frames[..., 3] < 255)
    for backdrop in (np.zeros(3), np.ones(3)):  # over black, over white
        over = straight * a + backdrop * (1 - a)  # in linear light
        lo, hi = np.minimum(box, backdrop), np.maximum(box, backdrop)
        tol = 2 / 255  # a code value or two of rounding
        assert (over[edge] >= lo - tol).all() and (over[edge] <= hi + tol).all()


def test_transparent_flag_and_the_video_formats(scenes, tmp_path):
    _render(scenes["grey"], tmp_path / "g" / "%02d.png", "--transparent")
    png = _pngs(tmp_path / "g")
    assert png[:, 0, :, 3].max() == 0  # the grey background is left out
    _render(scenes["grey"], tmp_path / "g.mov", "--transparent")
    assert probe(str(tmp_path / "g.mov")).pix_fmt.startswith("yuva444p")
    _render(scenes["grey"], tmp_path / "g.webm", "--transparent")
    raw = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-c:v", "libvpx-vp9",
                          "-i", str(tmp_path / "g.webm"), "-f", "rawvideo", "-pix_fmt", "rgba",
                          "-"], capture_output=True, check=True).stdout
    webm = np.frombuffer(raw, np.uint8).reshape(-1, 36, 64, 4)
    assert webm.shape[0] == 6
    assert np.abs(webm[..., 3].astype(int) - png[..., 3]).mean() < 3  # VP9's alpha plane


@pytest.mark.parametrize("codec, out, fmt", [("ffv1", "g.mkv", "gbrap16le"),
                                             ("utvideo", "g.mkv", "gbrap"),
                                             ("png", "g.mov", "rgba")])
def test_lossless_codecs_with_alpha_keep_it_through_render_and_fx(scenes, tmp_path, codec,
                                                                 out, fmt):
    """FFV1, Ut Video and PNG in a .mov hold alpha: --transparent refused them, and fx
    composited alpha footage over black for them, saying to write .mov or .webm."""
    from hfrender.cli import main

    _render(scenes["grey"], tmp_path / "g" / "%02d.png", "--transparent")
    _render(scenes["grey"], tmp_path / out, "--transparent", "--codec", codec)
    assert probe(str(tmp_path / out)).pix_fmt.startswith(fmt)
    assert main(["fx", str(tmp_path / out), "--motion-blur", "1", "--codec", codec, "-o",
                 str(tmp_path / ("fx_" + out))]) == 0
    png = _pngs(tmp_path / "g")
    for made in (out, "fx_" + out):
        raw = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-i",
                              str(tmp_path / made), "-f", "rawvideo", "-pix_fmt", "rgba", "-"],
                             capture_output=True, check=True).stdout
        video = np.frombuffer(raw, np.uint8).reshape(-1, 36, 64, 4)
        assert video.shape[0] == 6 and png[..., 3].max() == 255 and png[..., 3].min() == 0
        assert np.abs(video[..., 3].astype(int) - png[..., 3]).max() <= 1  # lossless


@pytest.mark.parametrize("flags, stored, raw, dtype", [
    ((), "rgba", "rgba", np.uint8), (("--pix-fmt", "rgba64be"), "rgba64be", "rgba64le",
                                     np.uint16)])
def test_png_in_a_mov_keeps_alpha_as_the_png_sequence_does(scenes, tmp_path, flags, stored,
                                                           raw, dtype):
    """``--codec png --transparent`` into a .mov was refused ("keeps no alpha"): each frame
    is an RGBA PNG, 16-bit (rgba64be) where 16-bit frames are handed to it."""
    from hfrender.io.images import read_png

    depth = ("--bit-depth", "16") if dtype == np.uint16 else ()
    _render(scenes["clear"], tmp_path / "p" / "%02d.png", *depth)
    _render(scenes["clear"], tmp_path / "p.mov", "--codec", "png", "--transparent", *flags)
    assert probe(str(tmp_path / "p.mov")).pix_fmt.startswith(f"{stored}(pc, gbr/bt709/")
    out = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-i",
                          str(tmp_path / "p.mov"), "-f", "rawvideo", "-pix_fmt", raw, "-"],
                         capture_output=True, check=True).stdout
    video = np.frombuffer(out, dtype).reshape(-1, 36, 64, 4).astype(int)
    png = np.stack([read_png(f) for f in sorted((tmp_path / "p").glob("*.png"))]).astype(int)
    assert video.shape == png.shape == (6, 36, 64, 4)
    top = np.iinfo(dtype).max
    assert video[..., 3].min() == 0 and video[..., 3].max() == top  # clear and covered
    assert ((video[..., 3] > 0) & (video[..., 3] < top)).any()  # the blurred edge
    assert np.abs(video - png).max() <= 1  # every channel, as the sequence has it


def test_the_summary_says_the_output_keeps_alpha(scenes, tmp_path, capsys):
    """A transparent render or still said nothing of it: a scene's background None made
    one without a flag, unseen until the file was opened."""
    from hfrender.cli import main

    for scene, flags, said in ((scenes["clear"], [], True), (scenes["grey"], [], False),
                               (scenes["grey"], ["--transparent"], True)):
        assert main(["render", str(scene), "-o", str(tmp_path / "t" / "%02d.png"),
                     "--size", "32x18", *flags]) == 0
        line = capsys.readouterr().out
        assert re.search(r", dof off, hdr \(.* white\), transparent; rendered in [\d.]+ s "
                         if said else r", dof off, hdr \(.* white\); rendered in [\d.]+ s ",
                         line), line
    assert main(["still", str(scenes["clear"]), "-o", str(tmp_path / "s.png"), "--size",
                 "32x18"]) == 0
    line = capsys.readouterr().out
    assert line.startswith(f"wrote {tmp_path / 's.png'}: frame 0 (t=0.000 s), 8 samples "
                           "over 180 degrees, dof off, hdr (")
    assert line.rstrip().endswith("white), transparent"), line


def test_formats_without_alpha_and_shaders_are_refused(scenes, tmp_path):
    for out in ("a.mp4", "a.gif"):
        done = subprocess.run([*RUN, str(scenes["grey"]), "-o", str(tmp_path / out),
                               "--transparent"], capture_output=True, text=True)
        assert done.returncode == 2
        assert "keeps no alpha; write .mov (ProRes 4444), .webm (VP9), .mkv with --codec ffv1, " \
            ".mov or .mkv with --codec png, or a PNG sequence" in done.stderr
    for out, fmt, alpha in (("a.webm", "yuv420p", "yuva420p"),  # a pixel format with no
                            ("a.mov", "yuv422p10le", "yuva444p10le")):  # alpha: was dropped
        done = subprocess.run([*RUN, str(scenes["grey"]), "-o", str(tmp_path / out),
                               "--transparent", "--pix-fmt", fmt], capture_output=True,
                              text=True)
        assert done.returncode == 2 and done.stderr == (
            f"hfrender: error: --transparent: --pix-fmt {fmt} keeps no alpha; give one with "
            f"alpha ({alpha}), or leave --pix-fmt out\n")
        done = subprocess.run([*RUN, str(scenes["grey"]), "-o", str(tmp_path / out),
                               "--transparent", "--pix-fmt", alpha], capture_output=True,
                              text=True)  # the advice taken (was: "libx264 keeps no alpha")
        assert done.returncode == 0, done.stderr
    done = subprocess.run([*RUN, str(scenes["clear"]), "-o", str(tmp_path / "c.mp4")],
                          capture_output=True, text=True)  # no --transparent: the scene's
    assert done.returncode == 2 and not (tmp_path / "c.mp4").exists()
    assert done.stderr == (f"hfrender: error: clear.py has background = None (a transparent "
                           f"render): -o {tmp_path / 'c.mp4'} (libx264) keeps no alpha; write "
                           ".mov (ProRes 4444), .webm (VP9), .mkv with --codec ffv1, .mov or "
                           ".mkv with --codec png, or a PNG sequence (-o frames/%05d.png)\n")
    (tmp_path / "s.frag").write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1); }")
    done = subprocess.run([*RUN, str(tmp_path / "s.frag"), "-o", str(tmp_path / "s.mov"),
                           "--transparent"], capture_output=True, text=True)
    assert done.returncode == 2 and "no background to leave out" in done.stderr


def test_straight_alpha_gives_the_premultiplied_colour_back(rng):
    alpha = rng.integers(1, 256, (500,))
    colour = rng.random((500, 3))
    premult = colour * (alpha[:, None] / 255.0)
    enc = np.rint(np.where(premult <= 0.0031308, premult * 12.92,
                           1.055 * premult ** (1 / 2.4) - 0.055) * 255).astype(np.uint8)
    frames = np.concatenate([enc, alpha[:, None].astype(np.uint8)], axis=1)[None]
    out = straight_alpha(frames)[0]
    back = _lin(out[:, :3]) * (alpha[:, None] / 255.0)
    assert np.abs(back - _lin(enc)).max() < 2.5 / 255  # composites to what fusion made
    assert np.array_equal(out[:, 3], frames[0, :, 3])
    assert not straight_alpha(np.zeros((1, 4, 4, 4), np.uint8)).any()  # alpha 0: black


def test_premultiplied_argument_for_straight_alpha_callers(rng):
    import hfrender as hf

    red_clear = np.array([255, 0, 0, 0], np.uint8)
    white = np.array([255, 255, 255, 255], np.uint8)
    pair = np.stack([red_clear, white])[:, None, None, :]
    assert hf.motion_blur(pair, 2)[0, 0, 0].tolist() == [255, 188, 188, 128]
    assert hf.motion_blur(pair, 2, premultiplied=False)[0, 0, 0].tolist() == [255, 255, 255,
                                                                              128]
    # straight in, straight out: a colour at any alpha blended with itself is itself
    for dtype, top in ((np.uint8, 255), (np.uint16, 65535)):
        frames = rng.integers(0, top + 1, (3, 5, 6, 4)).astype(dtype)
        frames[..., 3] = rng.integers(top // 4, top + 1, (5, 6))[None]
        frames[1:] = frames[0]
        same = hf.motion_blur(frames, 3, premultiplied=False)[0]
        assert np.abs(same.astype(int) - frames[0].astype(int)).max() <= max(1, top // 255)
    with pytest.raises(hf.InputError, match="premultiplied=False is for RGBA frames; these "
                                            "have 3 channels"):
        hf.motion_blur(np.zeros((2, 4, 4, 3), np.uint8), 2, premultiplied=False)


def test_a_16_bit_render_keeps_depth_of_field(tmp_path):
    """16-bit PNG (sub-frames widened before fusion) is the 8-bit render, finer."""
    from hfrender.io.images import read_png

    scene = tmp_path / "dof.py"
    scene.write_text(SCENE.format(background="(0.4, 0.4, 0.4)").replace(
        "self.camera.look_at((0, 0, 0))", "self.camera.look_at((0, 0, 0))\n"
        "        self.camera.f_stop = 1.0\n        self.camera.focus_distance = 0.5"))
    for depth, flags in ((8, []), (16, ["--bit-depth", "16"])):
        _render(scene, tmp_path / f"b{depth}" / "%02d.png", "--dof", "depth", *flags)
    a8 = _pngs(tmp_path / "b8").astype(int)
    a16 = np.stack([read_png(f) for f in sorted((tmp_path / "b16").glob("*.png"))])
    assert a16.dtype == np.uint16
    assert np.abs(a16.astype(int) / 257 - a8).max() <= 1.01  # the same picture, defocused
    assert (a16 % 257 != 0).any()  # with the bits 8-bit has not


def test_an_odd_size_mov_of_a_scene_whose_background_is_none_is_prores_4444(scenes, tmp_path):
    """Its alpha makes it ProRes 4444, which takes an odd size: the output was refused as
    libx264's 4:2:0 ("needs an even width") before the scene said it was transparent."""
    from hfrender.io.probe import probe

    out = tmp_path / "odd.mov"
    _render(scenes["clear"], out, "--size", "65x37")
    info = probe(str(out))
    assert (info.size, info.pix_fmt.split("(")[0], info.count) == ((65, 37), "yuva444p12le", 6)
    done = subprocess.run([*RUN, str(scenes["grey"]), "-o", str(tmp_path / "g.mov"), "--size",
                           "65x37"], capture_output=True, text=True)  # opaque: 4:2:0 H.264
    assert done.returncode == 2 and "libx264 video in yuv420p needs an even width" in done.stderr


def test_a_misspelt_codec_is_told_before_what_alpha_needs(scenes, tmp_path):
    """``--transparent --codec prores_kss`` was "keeps no alpha"; the codec is the mistake."""
    done = subprocess.run([*RUN, str(scenes["grey"]), "-o", str(tmp_path / "a.mov"),
                           "--transparent", "--codec", "prores_kss"], capture_output=True,
                          text=True)
    assert done.returncode == 2 and done.stderr == (
        "hfrender: error: --codec prores_kss: this ffmpeg has no such encoder (did you mean "
        "prores_ks? hfrender info -v lists its video encoders)\n")
