"""Shadertoy's passes: a shader's code with its own lines (:class:`ShaderPass`: the Image
tab's, the scene, and each Buffer tab's), and the buffers a shader reads (``// hfrender:
iChannel0 = bufA.frag``): each a pass drawn at the same sub-frame time as the Image, before
the passes that read it. Feedback (a buffer reading its own previous frame, itself or
through others) is refused: each sub-frame is a pure function of its time."""

from __future__ import annotations

from pathlib import Path

from hfrender.errors import InputError
from hfrender.scene.shader_lines import common_code, shader_lines
from hfrender.scene.sources import SHADER_SUFFIXES

FEEDBACK = ("hfrender draws each sub-frame as a pure function of its time, and what a "
            "buffer keeps from its previous frames is not one; compute that state from "
            "iTime in the pass itself (a trail left by motion is hfrender's motion blur)")


class ShaderPass:
    """A shader's code (``source``, of the file ``source_path``) and its own lines
    (:mod:`~hfrender.scene.shader_lines`): its channels' pictures and buffers, its common
    file's code (``common_source``) and ``antialias``."""

    def __init__(self, source: str, path: str) -> None:
        self.source = source
        self.source_path = path
        channels, self.antialias, self._common = shader_lines(source, path)
        self._channels = {i: c for i, c in channels.items() if not is_shader(c[0])}
        self._buffers = {i: c for i, c in channels.items() if is_shader(c[0])}
        # the common file's code (``// hfrender: common = FILE``), placed before the shader's
        self.common_source = common_code(self._common, path) if self._common else ""

    def channel_files(self) -> dict[int, tuple[Path, int]]:
        """The pictures its lines ``// hfrender: iChannel0 = noise.png`` give its channels
        (a path from the shader's folder, quotes allowed): channel -> (path, line)."""
        return dict(self._channels)

    def buffer_files(self) -> dict[int, tuple[Path, int]]:
        """The shaders its lines ``// hfrender: iChannel0 = bufA.frag`` give its channels
        (shadertoy.com's Buffer tabs): channel -> (path, line)."""
        return dict(self._buffers)

    def channel_line(self, channel: int) -> str:
        """Where its channel's file is given, as errors about that file begin (one form for
        a picture's and a buffer's, from the scene, the renderer or a batch's check): its
        line, with the path as written, from the shader's folder (one given whole, outside
        it: whole)."""
        path, line = {**self._channels, **self._buffers}[channel]
        folder = Path(self.source_path).parent  # (was: ValueError, an internal error, for
        value = path.relative_to(folder) if path.is_relative_to(folder) else path  # one
        return f"{self.source_path}:{line}: hfrender: iChannel{channel} = {value}"  # outside)

    def common_file(self) -> tuple[Path, int] | None:
        """The file its line ``// hfrender: common = common.glsl`` names (shadertoy.com's
        Common tab: code placed before the shader's), with that line; None without one."""
        return self._common


def is_shader(path: Path) -> bool:
    """Whether a channel's file is a shader (a buffer's), not a picture."""
    return path.suffix.lower() in SHADER_SUFFIXES


def buffer_passes(image: ShaderPass) -> list[ShaderPass]:
    """The buffers ``image`` reads, and those they read, each read once, in the order they
    are drawn (each after the buffers it reads). A missing file, and a buffer that reads
    itself or a buffer that reads it (feedback), are an error at the line that names it."""
    done: dict[Path, ShaderPass] = {}

    def visit(reader: ShaderPass, stack: list[Path]) -> None:
        for channel, (path, _line) in sorted(reader.buffer_files().items()):
            where = reader.channel_line(channel)
            key = path.resolve()
            if key in stack:
                raise InputError(f"{where}: {_feedback(stack[stack.index(key):])}")
            if key not in done:
                if not path.is_file():
                    raise InputError(f"{where}: no such file (a path from the shader's "
                                     "folder)")
                buffer = ShaderPass(_text(path), str(path))
                visit(buffer, [*stack, key])
                done[key] = buffer

    visit(image, [Path(image.source_path).resolve()])
    return list(done.values())


def _feedback(cycle: list[Path]) -> str:
    """Why the buffers of ``cycle`` (each read by the one after it, the last read by the
    first) are not drawn."""
    if len(cycle) == 1:
        what = f"{cycle[0].name} reads itself, its own previous frame (feedback)"
    else:
        shown = " -> ".join(p.name for p in [*cycle, cycle[0]])
        what = (f"a cycle, {shown} (each reads the next): feedback, a buffer reading its "
                "own previous frame through others")
    return f"{what}; {FEEDBACK}"


def _text(path: Path) -> str:
    from hfrender.scene.loader import shader_text  # (loader imports this module's scene)

    return shader_text(path)
