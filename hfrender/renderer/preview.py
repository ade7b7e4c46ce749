"""A live preview: finished frames shown in the GLFW window that owns the render context.

The writer's thread offers each frame once it is written (the latest one wins); the
render thread, which owns the GL context and the window, shows the newest between
sub-frames and polls the window's events. How many frames it catches while drawing is up
to the threads' timing (a short render can finish drawing before the encoder takes the
first frame); the last frame is always shown once the render ends.
"""

from __future__ import annotations

import threading

import numpy as np

from hfrender.color import linear_to_srgb, premultiply
from hfrender.renderer.contexts import GLContext
from hfrender.renderer.programs import compile_program, glsl

SHOW = """
#version 330 core
uniform sampler2D u_frame;
uniform vec2 u_size;
out vec4 f_color;
void main() {
    vec2 uv = gl_FragCoord.xy / u_size;
    f_color = vec4(texture(u_frame, vec2(uv.x, 1.0 - uv.y)).rgb, 1.0);  // rows top-down
}
"""


def displayable(frame: np.ndarray) -> np.ndarray:
    """A written frame as (H, W, 3) uint8 sRGB to show: 16-bit codes to 8, float linear
    light (EXR) encoded, a straight alpha (PNG, WebM, ProRes) over black (was: any but
    8-bit RGB an internal error, "data size mismatch", the output left unfinished)."""
    f = np.asarray(frame)
    if f.dtype.kind == "f":  # linear light, premultiplied alpha: over black as it is
        return np.rint(linear_to_srgb(f[..., :3]) * 255).astype(np.uint8)
    if f.dtype == np.uint16:
        f = (f >> 8).astype(np.uint8)
    if f.shape[-1] == 4:  # straight colour: premultiplied in linear light, over black
        f = premultiply(f)
    return np.ascontiguousarray(f[..., :3], dtype=np.uint8).copy()


class Preview:
    def __init__(self, glctx: GLContext, size: tuple[int, int]) -> None:
        if glctx.window is None:
            raise ValueError("the preview needs a GLFW window context")
        self.glctx, self.size = glctx, size
        ctx = glctx.ctx
        self.texture = ctx.texture(size, 3, dtype="f1")
        self.prog = compile_program(ctx, glsl("fullscreen.vert"), SHOW, None)
        self.vao = ctx.vertex_array(self.prog, [])
        self._lock = threading.Lock()
        self._latest: np.ndarray | None = None
        self.shown = 0

    def offer(self, frame: np.ndarray) -> None:
        """From any thread: the newest finished frame, as written (any of the outputs'),
        made 8-bit RGB to show."""
        shown = displayable(frame)
        with self._lock:
            self._latest = shown

    def show(self) -> bool:
        """From the render thread: draw the newest frame; False once the window is closed."""
        import glfw
        import moderngl

        window = self.glctx.window
        glfw.poll_events()
        if glfw.window_should_close(window):
            return False
        with self._lock:
            frame, self._latest = self._latest, None
        if frame is None:
            return True
        ctx = self.glctx.ctx
        self.texture.write(frame.tobytes())
        ctx.screen.use()
        fw, fh = glfw.get_framebuffer_size(window)
        ctx.viewport = (0, 0, fw, fh)
        ctx.disable(moderngl.DEPTH_TEST)
        self.texture.use(0)
        self.prog["u_frame"] = 0
        self.prog["u_size"] = (float(fw), float(fh))
        self.vao.render(moderngl.TRIANGLES, vertices=3)
        glfw.swap_buffers(window)
        self.shown += 1
        return True

    def release(self) -> None:
        for obj in (self.vao, self.prog, self.texture):
            obj.release()
