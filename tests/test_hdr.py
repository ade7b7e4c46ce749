"""--hdr: float sub-frames of linear light, so light past white keeps its strength through
the blur and is clipped only in the finished frame (8-bit sub-frames clip it first). The
sample store and the engine's blocks keep the float light; stills and 10-bit videos get it."""

import json
import subprocess

import imageio.v3 as iio
import numpy as np
import pytest
from hdr_helpers import (
    BOKEH,
    SIZE,
    _scene,
)
from render_helpers import linear, render_frames

from hfrender.config import RenderConfig
from hfrender.engine import deep_output
from hfrender.engine.render import render
from hfrender.errors import InputError
from hfrender.io.exr_files import read_exr


def _exr(tmp_path, scene, name, **settings):
    """Frames (N, H, W, 3) float32 of an EXR render (16 samples over 360 degrees unless
    ``settings`` say otherwise), and its stats."""
    out = tmp_path / name
    out.mkdir()
    settings = {"samples": 16, "shutter": 360, **settings}
    config = RenderConfig(output=str(out / "%04d.exr"), size=SIZE, quiet=True, **settings)
    stats = render(str(scene), config)
    files = sorted(out.glob("*.exr"))
    return np.stack([read_exr(f).astype(np.float32) for f in files]), stats


@pytest.fixture
def coverage(tmp_path):
    """Each pixel's share of the shutter under the plane (an emissive-0 white plane: its
    pixels are exactly 1, so the blurred value is the share itself)."""
    frames, stats = _exr(tmp_path, _scene(tmp_path, 0.0, name="white"), "white")
    assert stats.hdr and stats.hdr_why == "an EXR output"
    assert frames.max() == 1.0 and 0 < frames[(frames > 0) & (frames < 1)].size
    return frames


def test_a_streak_keeps_the_light_of_a_lamp_past_white(tmp_path, coverage, caplog):
    lamp = _scene(tmp_path, 7.0)
    hdr, stats = _exr(tmp_path, lamp, "hdr")
    # emissive 7 on white: 8x white wherever the plane is, so 8x the share, past 1 too
    np.testing.assert_allclose(hdr, 8 * coverage, rtol=2e-3, atol=1e-4)
    assert hdr.max() == pytest.approx(8.0, rel=1e-3)
    assert ((hdr > 1.5) & (coverage < 0.5)).any()  # a faint part of the streak, now bright
    with caplog.at_level("WARNING", logger="hfrender.engine.deep_output"):
        clipped, stats = _exr(tmp_path, lamp, "clipped", hdr="off")
    assert not stats.hdr
    np.testing.assert_allclose(clipped, coverage, atol=2e-3)  # 8-bit: clipped to white first
    assert [r.getMessage() for r in caplog.records if "--hdr off" in r.getMessage()] == [
        f"--hdr off: -o {tmp_path / 'clipped' / '%04d.exr'} holds no light past white (8-bit "
        "sub-frames clip it before the blur); --hdr auto draws EXR in float"]


def test_the_finished_frame_is_clipped_only_after_the_blur(tmp_path, coverage):
    lamp = _scene(tmp_path, 7.0)
    frames, stats = render_frames(lamp, size=SIZE, samples=16, shutter=360)
    assert stats.hdr and stats.hdr_why == "self.lamp (a Plane) with emissive 7 reaches 8x white"
    want = np.rint(np.asarray(deep_output.finish(np.minimum(8 * coverage, 1), np.dtype(
        np.uint8)), np.float64))
    assert np.abs(frames.astype(int) - want).max() <= 1
    old, _ = render_frames(lamp, size=SIZE, samples=16, shutter=360, hdr="off")
    faint = (coverage > 0.05) & (coverage < 0.12)  # one or two of the 16 sub-frames
    assert faint.any()
    # the share times 8 (0.5-0.9 of white) against the share of white (0.06-0.12)
    assert (linear(frames[faint]) > 0.45).all() and (linear(old[faint]) < 0.15).all()


def test_multisampled_edges_average_the_float_light(tmp_path):
    one, _ = _exr(tmp_path, _scene(tmp_path, 0.0, name="white"), "white", msaa=4)
    eight, _ = _exr(tmp_path, _scene(tmp_path, 7.0), "lamp", msaa=4)
    edge = (one > 0.01) & (one < 0.99)
    assert edge.sum() > 20
    np.testing.assert_allclose(eight, 8 * one, rtol=2e-3, atol=1e-4)


def test_shader_scenes_draw_the_same_picture_in_float(tmp_path):
    shader = tmp_path / "ramp.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) {\n"
                      "    c = vec4(p.x / iResolution.x, p.y / iResolution.y, 0.5, 1.0);\n}\n")
    plain, stats = render_frames(shader, size=SIZE, samples=2, duration=0.1)
    assert not stats.hdr  # auto: a shader's colours are display values, never past white
    hdr, stats = render_frames(shader, size=SIZE, samples=2, duration=0.1, hdr="on")
    assert stats.hdr
    assert np.abs(hdr.astype(int) - plain.astype(int)).max() <= 1
    assert plain[..., 0].max() - plain[..., 0].min() > 200  # a ramp, not a flat colour


def test_a_shaders_values_past_1_are_light_past_white_with_hdr_on(tmp_path):
    """A trial: fragColor was clamped to 0..1 whatever --hdr said, so a bright bar's streak
    dimmed as it blurred. With --hdr on, 2.0 is light past white (the sRGB curve carried
    on: 4.95x); a bar 2 px wide moving 32 px over a 360 degree shutter spreads it to 0.31
    of white a pixel, where the clamped value gave 0.0625 (as --hdr off still does)."""
    shader = tmp_path / "bright.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) {\n"
                      "    float x = 8.0 + 32.0 * 30.0 * iTime;\n"
                      "    c = vec4(vec3(p.x >= x && p.x < x + 2.0 ? 2.0 : 0.0), 1.0);\n}\n")
    from render_helpers import linear

    settings = dict(size=(64, 4), samples=32, shutter=360, duration=1 / 30, antialias=False,
                    shutter_position="start")  # (x from 8 to 40: all in the picture)
    on, _ = render_frames(shader, hdr="on", **settings)
    off, _ = render_frames(shader, hdr="off", **settings)
    light = ((2.0 + 0.055) / 1.055) ** 2.4  # the value's light: 4.95x white
    streak = linear(on[0, 2, :, 0])
    assert streak.sum() == pytest.approx(2 * light, rel=0.02)  # every bit of its light
    assert linear(off[0, 2, :, 0]).sum() == pytest.approx(2.0, rel=0.02)  # white's, clamped
    assert streak.max() == pytest.approx(2 * light / 32, rel=0.1)


def test_a_transparent_float_render_over_black_is_the_opaque_render(tmp_path):
    """Straight alpha cannot hold more light than its coverage: a streak 8x white over 0.3
    of a pixel is written with its alpha raised to its (clipped) light, so the PNG laid
    over black gives the opaque render's pixels; divided, it had come out as the 8-bit
    render's, cut to white in each sub-frame."""
    def pngs(scene, name, **settings):
        out = tmp_path / name
        out.mkdir()
        config = RenderConfig(output=str(out / "%04d.png"), size=SIZE, samples=16,
                              shutter=360, quiet=True, **settings)
        stats = render(str(scene), config)
        return np.stack([iio.imread(f) for f in sorted(out.glob("*.png"))]), stats

    lamp = _scene(tmp_path, 7.0)
    clear = tmp_path / "clear.py"
    clear.write_text(lamp.read_text().replace("background = (0, 0, 0)", "background = None"))
    rgba, stats = pngs(clear, "rgba")
    assert stats.hdr and rgba.shape[-1] == 4
    opaque, _ = pngs(lamp, "opaque")
    over_black = linear(rgba[..., :3]) * (rgba[..., 3:] / 255.0)
    assert np.abs(over_black - linear(opaque)).max() < 0.01
    old, _ = pngs(clear, "old", hdr="off")
    faint = (old[..., 3] > 0) & (old[..., 3] < 40)  # one or two sub-frames of 16
    assert faint.any() and (rgba[..., 3][faint] > 100).all()  # 8x the light: 8x the alpha
    assert (rgba[..., 3] == 0).sum() == (old[..., 3] == 0).sum()  # nothing made of nothing


def test_a_sample_store_keeps_the_float_light_and_exposes_it_again(tmp_path, capsys):
    lamp = _scene(tmp_path, 7.0)
    store = tmp_path / "kept"
    frames, stats = render_frames(lamp, size=SIZE, samples=8, keep_samples=str(store))
    assert stats.hdr
    meta = json.loads((store / "store.json").read_text())
    assert meta["settings"]["hdr"] is True
    chunk = np.load(store / meta["chunks"][0]["file"])
    assert chunk["color"].dtype == np.float16
    assert chunk["color"][..., :3].max() == pytest.approx(8.0, rel=1e-3)
    import hfrender as hf

    assert meta["version"] == 2  # an hfrender reading only version 1 refuses it
    again = hf.SampleStore.open(store).expose(workers=1)
    from hfrender.cli import main

    assert main(["reexpose", str(store), "-o", str(tmp_path / "re.mp4")]) == 0
    assert " kept sub-frames, hdr; " in capsys.readouterr().out
    # into EXR the kept light stays past white: the render's own EXR, within a half float
    assert main(["reexpose", str(store), "-o", str(tmp_path / "re" / "%04d.exr")]) == 0
    exposed = np.stack([read_exr(f) for f in sorted((tmp_path / "re").glob("*.exr"))])
    direct, _ = _exr(tmp_path, lamp, "direct", samples=8, shutter=180)
    assert exposed.max() == pytest.approx(8.0, rel=1e-3)
    np.testing.assert_allclose(exposed.astype(np.float32), direct, rtol=2e-3, atol=2e-3)
    assert np.abs(again.astype(int) - frames.astype(int)).max() <= 1
    assert (again == 255).sum() > (frames == 255).sum() * 0.9
    # the library's float32 exposure keeps it too (was uint8 only: clipped at white)
    light = hf.SampleStore.open(store).expose(workers=1, dtype=np.float32)
    assert light.dtype == np.float32 and light.max() == pytest.approx(8.0, rel=1e-3)
    np.testing.assert_allclose(light, exposed.astype(np.float32), rtol=1e-3, atol=1e-3)
    codes16 = hf.SampleStore.open(store).expose(workers=1, dtype="uint16")
    assert codes16.dtype == np.uint16
    assert np.abs(codes16.astype(float) / 257 - again).max() <= 1


@pytest.mark.parametrize("bad", ["int8", np.float64, "rgb", 3])
def test_expose_dtype_is_checked_first(tmp_path, bad):
    from hfrender.engine.reexpose import SampleStore

    with pytest.raises(InputError, match=r"^dtype=.*: exposed frames are uint8, uint16, "
                                         r"float16, float32$"):
        SampleStore.__new__(SampleStore).expose(dtype=bad)


def test_finish_encodes_float_light_clipped_at_white(rng):
    light = rng.uniform(0, 3, (2, 5, 7, 4)).astype(np.float32)
    light[..., 3] = rng.uniform(0.2, 1, (2, 5, 7))
    rgb = deep_output.finish(light[..., :3].copy(), np.dtype(np.uint8))
    top = np.minimum(light[..., :3], 1.0)
    want = np.rint(255 * np.where(top <= 0.0031308, 12.92 * top,
                                  1.055 * top ** (1 / 2.4) - 0.055))
    assert rgb.dtype == np.uint8 and np.abs(rgb - want).max() <= 1
    rgba = deep_output.finish(light.copy(), np.dtype(np.uint16))
    # light past its coverage becomes coverage: alpha the larger of the two (at most 1)
    clipped = np.minimum(light[..., :3], 1.0)
    alpha = np.minimum(np.maximum(light[..., 3], clipped.max(axis=-1)), 1.0)
    straight = clipped / alpha[..., None]
    want16 = np.rint(65535 * np.where(straight <= 0.0031308, 12.92 * straight,
                                      1.055 * straight ** (1 / 2.4) - 0.055))
    assert rgba.dtype == np.uint16 and np.abs(rgba[..., :3] - want16).max() <= 2
    assert np.abs(rgba[..., 3] - np.rint(65535 * alpha)).max() <= 1
    assert (alpha > light[..., 3]).any() and (alpha == light[..., 3]).any()


@pytest.mark.parametrize("dof", ["depth", "lens"])
def test_a_bright_lamps_bokeh_keeps_its_light(tmp_path, dof):
    """Defocused, a lamp 50x white spreads its light over a disc: the disc's light adds up
    to the lamp's in focus (8-bit sub-frames clipped it to white before the spread)."""
    sharp, blurred = (tmp_path / "sharp.py", tmp_path / "blurred.py")
    sharp.write_text(BOKEH.format(focus=4.0))
    blurred.write_text(BOKEH.format(focus=0.5))  # a disc about 29 px across
    settings = dict(dof=dof, samples=32 if dof == "lens" else 1, shutter=360)
    focused, _ = _exr(tmp_path, sharp, "sharp", **settings)
    disc, _ = _exr(tmp_path, blurred, "disc", **settings)
    assert focused.max() == pytest.approx(50, rel=1e-2)
    lit = disc[0, ..., 0] > 0.01
    assert lit.sum() > 20 * (focused[0, ..., 0] > 0.01).sum()  # a disc, many times the lamp
    assert disc[0, ..., 0][lit].max() > 1.0  # still past white all over the disc
    # lens: each sub-frame rasterises the small lamp anew (a pixel more or less of it)
    np.testing.assert_allclose(disc[0].sum(), focused[0].sum(),
                               rtol=1e-3 if dof == "depth" else 5e-2)
    if dof == "depth":  # one level over the disc: the lamp's own pixels seen over the sky
        red = disc[0, ..., 0]  # were 1.3x the rest of it (1.56 against 1.20)
        assert red.max() < 1.001 * np.median(red[red > 0.5 * red.max()])
    clipped, _ = _exr(tmp_path, blurred, "clipped", hdr="off", **settings)
    assert clipped[0].sum() < focused[0].sum() / 40  # what the 8-bit sub-frames kept


def test_reconstruction_carries_the_float_light(tmp_path, coverage):
    lamp = _scene(tmp_path, 7.0)
    plain, _ = _exr(tmp_path, lamp, "plain")
    rebuilt, stats = _exr(tmp_path, lamp, "rebuilt", reconstruct="on")
    assert stats.reconstruct and stats.hdr
    assert rebuilt.max() == pytest.approx(8.0, rel=1e-2)
    np.testing.assert_allclose(rebuilt.sum(axis=(1, 2, 3)), plain.sum(axis=(1, 2, 3)),
                               rtol=0.05)


def test_a_surface_shaders_nan_and_inf_stay_out_of_the_float_light(tmp_path):
    (tmp_path / "broken.glsl").write_text(
        "vec3 shade(vec3 normal, vec3 world, vec3 color) {\n"
        "    float z = world.x - world.x;  // 0: 0/0 is NaN, 1/0 inf\n"
        "    return vec3(z / z, 1.0 / z, -1.0 / z);\n}\n")
    (tmp_path / "broken.py").write_text(
        "import hfrender as hf\n\nclass Broken(hf.Scene):\n    duration = 0.1\n"
        "    def setup(self):\n        self.add(hf.Cube(shader='broken.glsl'))\n"
        "        self.camera.position = (0, 0, 4)\n")
    frames, stats = _exr(tmp_path, tmp_path / "broken.py", "out", samples=2)
    assert stats.hdr and np.isfinite(frames).all()
    middle = frames[0, 27, 48]  # on the cube: NaN as black, inf as a half float's most
    assert tuple(middle) == (0.0, 65504.0, 0.0)


def test_skipped_slots_of_samples_auto_hold_no_stale_float(tmp_path, monkeypatch):
    """--samples auto leaves slots undrawn (weight 0): their float colour must not be
    whatever the memory held (bytes of 0xFF read as NaN)."""
    from hfrender.hyperframe import pool

    real = pool.HostStorage.allocate

    def dirty(self, n):
        arena = real(self, n)
        arena[...] = 0xFF
        return arena

    monkeypatch.setattr(pool.HostStorage, "allocate", dirty)
    lamp = _scene(tmp_path, 7.0)
    frames, stats = render_frames(lamp, size=SIZE, samples="auto", samples_range=(2, 16),
                                  shutter=360)
    assert stats.hdr and stats.subframes < 16 * len(frames)  # some slots were skipped
    assert frames.max() == 255 and np.isfinite(frames).all()


def test_float_blends_are_encoded_into_recycled_blocks(tmp_path, monkeypatch):
    """--hdr into 8 bits: each hyperframe's frames are encoded into a block the engine
    recycles (fresh pages each time cost more than the blend), not a new array."""
    from hfrender.engine import buffers

    given = []
    real = buffers.OutputBuffers.give

    def give(self, block):
        before = len(self._free)
        real(self, block)
        given.append((len(self._free) > before, self.dtype))

    monkeypatch.setattr(buffers.OutputBuffers, "give", give)
    lamp = _scene(tmp_path, 7.0)
    _, stats = render_frames(lamp, size=SIZE, samples=4, granularity=4,
                             fusion_process="off", duration=0.4)
    assert stats.hdr and len(given) >= 10
    assert given == [(True, np.dtype(np.uint8))] * len(given)  # every one taken back


@pytest.mark.parametrize("channels", [3, 4])
def test_the_device_encoding_gives_the_hosts_codes(rng, channels):
    """On a GPU float blends are encoded to 8 bits before they cross to the host; the same
    code (NumPy here) gives finish's codes bit for bit, RGBA made straight alike."""
    light = rng.uniform(-0.1, 3, (2, 9, 11, channels)).astype(np.float32)
    if channels == 4:
        light[..., 3] = rng.uniform(0, 1.2, (2, 9, 11))
        light[0, 0, :4, 3] = 0  # nothing there: colour 0
        light[..., :3] *= np.minimum(light[..., 3:], 1)  # premultiplied, as blended
    want = deep_output.finish(light.copy(), np.dtype(np.uint8))
    got = deep_output.encode8(light)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)
    assert (got[..., :3] == 255).any() and (got[..., :3] == 0).any()


def test_a_still_in_exr_is_the_renders_frame_in_linear_light(tmp_path, capsys):
    """Was: refused ("a still is written as PNG"). An EXR still is float16 linear light, its
    lamp past white, the pixels of the EXR sequence's frame 3; ``--bit-depth 32`` float32;
    a depth EXR does not have is one line."""
    from hfrender.cli import main

    lamp = _scene(tmp_path, 7.0)
    frames, _ = _exr(tmp_path, lamp, "seq", samples=4)
    common = ["--size", "96x54", "--samples", "4", "--shutter", "360", "-f", "3"]
    assert main(["still", str(lamp), "-o", str(tmp_path / "x.exr"), *common]) == 0
    assert "hdr (an EXR output)" in capsys.readouterr().out
    half = read_exr(tmp_path / "x.exr")
    assert half.dtype == np.float16 and half.max() > 7.0
    np.testing.assert_array_equal(half.astype(np.float32), frames[3])
    assert main(["still", str(lamp), "-o", str(tmp_path / "y.exr"), "--bit-depth", "32",
                 *common]) == 0
    full = read_exr(tmp_path / "y.exr")
    assert full.dtype == np.float32
    np.testing.assert_allclose(full, frames[3], rtol=1e-3)
    assert main(["still", str(lamp), "-o", str(tmp_path / "z.exr"), "--bit-depth", "8"]) == 2
    assert capsys.readouterr().err.strip() == (
        "hfrender: error: --bit-depth 8: EXR frames are 16 or 32 bits")
    assert not (tmp_path / "z.exr").exists()


def test_a_ten_bit_video_gets_ten_bits_of_a_float_render(tmp_path):
    """--pix-fmt yuv420p10le (and ProRes) were handed 8-bit RGB: grey patches 0.0012 apart
    came out on two 10-bit codes, 8 bits' steps (a colourist's trial). Now 16-bit frames:
    each patch its own code, Y = 64 + 876 v (limited range, grey: Y' is the sRGB value)."""
    import imageio_ffmpeg

    from hfrender.cli import main

    scene = tmp_path / "steps.py"
    scene.write_text(
        "import hfrender as hf\n\nclass Steps(hf.Scene):\n    duration = 0.1\n"
        "    background = (0, 0, 0)\n    ambient = 1.0\n\n    def setup(self):\n"
        "        for i in range(8):\n            v = 0.1 + 0.0012 * i\n"
        "            self.add(hf.Plane(position=(-1.75 + 0.5 * i, 0, 0), scale=(0.5, 2, 1),\n"
        "                              color=(v, v, v)))\n"
        "        self.camera.position = (0, 0, 4)\n")
    out = tmp_path / "s.mp4"
    assert main(["render", str(scene), "-o", str(out), "--size", "320x180", "--samples", "1",
                 "--hdr", "on", "--pix-fmt", "yuv420p10le", "--quiet"]) == 0
    raw = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-i", str(out),
                          "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-"],
                         capture_output=True, check=True).stdout
    y = np.frombuffer(raw, np.uint16)[:180 * 320].reshape(180, 320)
    seen = sorted({int(v) for v in y[90, 5:315]})
    # 36 mm at 50 mm, 4 m away: 2.88 m across; patches 1..6 are in the picture
    assert seen == [round(64 + 876 * (0.1 + 0.0012 * i)) for i in range(1, 7)]
