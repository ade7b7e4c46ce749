"""`hfrender render --preview`: a window (on a virtual X display) showing the newest
frame, any output as 8-bit RGB; without a display, or with Ray, one clear line."""

import re

import numpy as np
import pytest
from cli_render_helpers import (
    BAR,
    video_info,
    x_display_fixture,  # noqa: F401  (the fixture x_display)
)

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test


def test_preview_draws_the_newest_offered_frame(x_display, gl_context, monkeypatch):
    import threading

    import glfw

    from hfrender.renderer.preview import Preview

    glctx = gl_context("glfw", size=(8, 4), visible=True)
    ctx = glctx.ctx
    copy = ctx.simple_framebuffer((8, 4), components=3)
    on_screen = []  # the window's pixels as each frame is presented, rows top-down
    real_swap = glfw.swap_buffers

    def swap(window):  # (ctx.screen.read() itself sets GL_INVALID_OPERATION on a window)
        ctx.copy_framebuffer(copy, ctx.screen)
        on_screen.append(np.frombuffer(copy.read(components=3), np.uint8).reshape(4, 8, 3))
        on_screen[-1] = on_screen[-1][::-1]
        real_swap(window)

    monkeypatch.setattr(glfw, "swap_buffers", swap)
    preview = Preview(glctx, (8, 4))
    try:
        assert preview.show() and preview.shown == 0 and on_screen == []  # nothing offered
        old = np.full((4, 8, 3), 10, np.uint8)
        new = np.arange(96, dtype=np.uint8).reshape(4, 8, 3) * 2
        preview.offer(old)
        preview.offer(new)  # the latest wins
        want, new[:] = new.copy(), 0  # offer copied it: the caller's buffer may be reused
        assert preview.show() and preview.shown == 1
        np.testing.assert_array_equal(on_screen[-1], want)
        assert preview.show() and preview.shown == 1  # each offer is drawn once
        other = threading.Thread(target=preview.offer, args=(old,))  # the writer's thread
        other.start()
        other.join()
        assert preview.show() and preview.shown == 2
        np.testing.assert_array_equal(on_screen[-1], old)
        glfw.set_window_should_close(glctx.window, True)  # the user closed the window
        preview.offer(want)
        assert not preview.show() and preview.shown == 2 and len(on_screen) == 2
    finally:
        preview.release()
        copy.release()
        glctx.release()  # before the display goes


def test_preview_window_is_offered_every_frame_and_shows_the_last(tmp_path, x_display, capsys,
                                                                   monkeypatch):
    """Frames reach the preview from the writer's thread after ffmpeg took them, and the
    render thread draws the newest between sub-frames: how many it catches while drawing
    depends on the machine (a tiny render can finish drawing before ffmpeg takes the first
    frame). What does not: every frame is offered, the window is looked at between every
    two sub-frames, and the last frame stays on screen."""
    from hfrender.renderer.preview import Preview

    offered, drawn, looks = [], [], []
    real_offer, real_show = Preview.offer, Preview.show

    def offer(self, frame):
        offered.append(np.array(frame))
        real_offer(self, frame)

    def show(self):
        looks.append(self.shown)
        ok = real_show(self)
        if self.shown > looks[-1]:
            drawn.append(np.frombuffer(self.texture.read(), np.uint8).reshape(32, 96, 3))
        return ok

    monkeypatch.setattr(Preview, "offer", offer)
    monkeypatch.setattr(Preview, "show", show)
    out = tmp_path / "p.mp4"
    assert main(["render", BAR, "-o", str(out), "--preview", "--size", "96x32",
                 "--duration", "0.5", "--granularity", "8"]) == 0
    text = capsys.readouterr().out
    shown = int(re.search(r"preview showed (\d+) frames?", text).group(1))
    assert video_info(out) == ((96, 32), 15)
    assert len(offered) == 15 and len(looks) >= 15 * 8  # 8 samples a frame: 120 sub-frames
    assert 1 <= shown == len(drawn) <= 15
    np.testing.assert_array_equal(drawn[-1], offered[-1])  # the last frame stays on screen
    assert all(any(np.array_equal(d, o) for o in offered) for d in drawn)


@pytest.mark.parametrize("n, said", [(1, "1 frame"), (2, "2 frames")])
def test_the_summary_counts_the_previews_frames_in_words(capsys, n, said):
    """Was: "preview showed 1 frames" (a trial)."""
    from hfrender.cli.commands import _summary
    from hfrender.config import RenderConfig
    from hfrender.engine.render_stats import RenderStats

    stats = RenderStats(output="o.mp4", frames_written=n, preview_frames=n, seconds=1.0,
                        gl_renderer="llvmpipe", backend="cpu")
    assert _summary(RenderConfig(output="o.mp4", preview=True, size=(8, 4), samples=1),
                    stats) == 0
    assert capsys.readouterr().out == (
        f"wrote o.mp4: {said} 8x4 at 30 fps, 1 sample (no motion blur), dof off; rendered "
        f"in 1.0 s ({n:.1f} frames/s) on llvmpipe, fusion cpu; preview showed {said}\n")


def test_preview_without_a_display_is_one_clear_line(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["render", BAR, "-o", str(tmp_path / "p.mp4"), "--preview"]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(r"hfrender: error: --preview needs a window: GLFW could not start "
                        r"\(.*DISPLAY.*\).*; render without --preview \(and hfrender.toml's "
                        r"preview = true\)\n", err), err
    assert "--gl egl" not in err  # was: "or use the headless context (--gl egl)", given or not
    assert not (tmp_path / "p.mp4").exists()


@pytest.mark.parametrize("output, flags", [
    ("t/%04d.png", ["--transparent"]),
    ("d/%04d.png", ["--bit-depth", "16"]),
    ("e/%04d.exr", []),
])
def test_preview_shows_any_output_as_8_bit_rgb(tmp_path, x_display, output, flags):
    """--preview with a transparent, 16-bit or EXR output was an internal error ("data size
    mismatch": the window's texture is 8-bit RGB), its finished frames left hidden."""
    from hfrender.renderer.preview import Preview

    drawn, real_show = [], Preview.show

    def show(self):
        before = self.shown
        ok = real_show(self)
        if self.shown > before:
            drawn.append(np.frombuffer(self.texture.read(), np.uint8).reshape(8, 32, 3))
        return ok

    scene = tmp_path / "ball.py"  # a mesh scene: --transparent takes it
    scene.write_text("import hfrender as hf\n\nclass Ball(hf.Scene):\n    duration = 0.1\n"
                     "    background = None\n\n    def setup(self):\n"
                     "        self.add(hf.Sphere(radius=1.2, color=(1, 1, 1)))\n"
                     "        self.camera.position = (0, 0, 4)\n")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(Preview, "show", show)
        assert main(["render", str(scene), "-o", str(tmp_path / output), "--preview",
                     "--size", "32x8", "--samples", "1", "--quiet", *flags]) == 0
    assert len(list((tmp_path / output).parent.glob("0*"))) == 3 and drawn
    assert drawn[-1].max() > 100 and drawn[-1][0, 0].max() == 0  # the ball, black around


def test_displayable_makes_every_written_frame_8_bit_rgb():
    from hfrender.renderer.preview import displayable

    rgba = np.zeros((1, 2, 4), np.uint8)
    rgba[0, 0] = (255, 0, 0, 255)
    rgba[0, 1] = (255, 255, 255, 0)  # transparent: over black
    np.testing.assert_array_equal(displayable(rgba), [[[255, 0, 0], [0, 0, 0]]])
    np.testing.assert_array_equal(displayable(np.full((1, 1, 3), 0x8080, np.uint16)),
                                  [[[128, 128, 128]]])
    half = displayable(np.full((1, 1, 4), 0.5, np.float32))  # linear 0.5: sRGB 188
    np.testing.assert_array_equal(half, [[[188, 188, 188]]])


def test_preview_with_ray_is_refused_before_ray_starts(tmp_path, capsys):
    """Was: a local Ray started (7.6 s), then the workers refused the window (or, with a
    display, the render ran with no preview at all)."""
    assert main(["render", BAR, "-o", str(tmp_path / "r.mp4"), "--preview", "--ray"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --preview with --ray: the frames are drawn on Ray's workers, not in "
        "a window here; render without --ray to watch it\n")


def test_hfrender_tomls_preview_does_not_stop_a_render_on_ray(tmp_path, monkeypatch, capsys):
    """A project file's preview = true refused every --ray render, with no way to turn it
    off (a review): it is for the renders here; --preview itself is refused with --ray."""
    import hfrender.cli.commands as commands

    monkeypatch.chdir(tmp_path)
    (tmp_path / "hfrender.toml").write_text("[render]\npreview = true\n")
    seen = {}
    monkeypatch.setattr(commands, "_render_on_ray",
                        lambda args, config: seen.update(preview=config.preview) or 0)
    assert main(["render", BAR, "-o", "r.mp4", "--ray"]) == 0 and seen == {"preview": False}
