"""Warnings of what a Shadertoy shader (and each of its buffers) leaves unused or reads
unset, said once its programs have compiled (a shader refused is told in one line, the
error alone), before it is drawn."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from hfrender.errors import spelling
from hfrender.renderer.shadertoy import (
    SHADERTOY_INPUTS,
    channels_read,
    own_main,
    unset_inputs,
)
from hfrender.renderer.shadertoy_checks import colour_not_out
from hfrender.scene import ShaderScene

log = logging.getLogger(__name__)


def shader_notes(config: Any, scene: Any) -> None:
    """Warnings for what a fragment shader leaves unused: ``--msaa N`` (a shader colours
    every pixel once; more sub-frames smooth its motion, not its edges), and of the shader
    and each of its buffers (was: the shader's alone) a ``main()`` of its own beside
    mainImage (:func:`own_main`), the inputs it declares that hfrender does not set
    (``iChannel0``: they stay 0) and the channels it is given and never reads."""
    if not isinstance(scene, ShaderScene):
        return
    if isinstance(config.msaa, int) and config.msaa > 1:
        log.warning("%s: %s is a fragment shader, which colours each pixel once "
                    "(multisampling smooths the edges of geometry); ignored",
                    spelling().said("msaa", config.msaa),
                    Path(scene.source_path).name)
    for shader in [scene, *scene.buffers]:
        _pass_notes(shader, Path(shader.source_path).name)


def _pass_notes(shader: Any, name: str) -> None:
    """:func:`shader_notes`' warnings of one pass (the Image's or a buffer's)."""
    said = colour_not_out(shader.source)
    if said is not None:
        log.warning("%s:%s", name, said)
    line = own_main(shader.source)
    if line is not None:
        log.warning("%s:%d: defines main() as well as mainImage; hfrender supplies main() "
                    "(which calls mainImage), so this one is not used", name, line)
    buffers = set(shader.buffer_files())
    given = {f"iChannel{i}" for i in (*shader.channel_files(), *buffers)}
    code = f"{shader.common_source}\n{shader.source}"  # (was: the shader's alone, a trial)
    unset = [n for n in unset_inputs(code)
             if n not in given and not (given and n == "iChannelResolution")]
    if unset:  # Shadertoy's channels and sound, or another tool's (glslsandbox's time)
        why = (" (a line `// hfrender: iChannel0 = noise.png` in the shader gives a channel "
               "a picture, `= bufA.frag` a buffer; no sound)" if all(
                   n.startswith(("iChannel", "iSampleRate")) for n in unset) else "")
        log.warning("%s reads %s, which hfrender does not set%s: %s 0; it sets %s", name,
                    ", ".join(unset), why, "it stays" if len(unset) == 1 else "they stay",
                    ", ".join(SHADERTOY_INPUTS))
    unread = sorted(given - set(channels_read(code)))
    if unread:
        what = "a buffer" if {int(n[-1]) for n in unread} <= buffers else "a picture"
        log.warning("%s gives %s %s, which its code never reads", name, ", ".join(unread), what)
