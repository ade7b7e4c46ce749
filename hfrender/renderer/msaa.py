"""How many coverage samples per pixel a sub-frame is drawn with (``--msaa``): what the
context offers, and what ``auto`` means on it (none on a software rasteriser, which shades
every sample)."""

from __future__ import annotations

from functools import partial
from typing import Any

from hfrender.errors import InputError, Spelling, saying, spelling

SOFTWARE = ("llvmpipe", "softpipe", "swrast", "swiftshader", "lavapipe",
            "microsoft basic render", "apple software renderer", "gdi generic")
AUTO_MSAA = 4  # samples per pixel of msaa="auto" on a GPU


def most_samples(ctx: Any) -> int:
    """The most samples per pixel the context offers for what the renderer makes: float
    colour textures as well as renderbuffers (a GPU may offer fewer for textures)."""
    most = int(getattr(ctx, "max_samples", 1) or 1)
    info = getattr(ctx, "info", {}) or {}
    for key in ("GL_MAX_COLOR_TEXTURE_SAMPLES", "GL_MAX_FRAMEBUFFER_SAMPLES"):
        if info.get(key):
            most = min(most, int(info[key]))
    return max(1, most)


def msaa_samples(ctx: Any, msaa: int | str) -> int:
    """The samples per pixel ``msaa`` means on this context ("auto": :data:`AUTO_MSAA` on a
    GPU, 1 on a software rasteriser, which shades every sample), or one line saying how
    many the context offers."""
    most = most_samples(ctx)
    if msaa == "auto":
        renderer = str(ctx.info.get("GL_RENDERER", "")).lower()
        return 1 if any(name in renderer for name in SOFTWARE) else min(AUTO_MSAA, most)
    if msaa > most:  # (was "msaa=16: ...; give --msaa 4", the same words to every caller)
        renderer = ctx.info.get("GL_RENDERER", "this OpenGL")
        raise saying(InputError, partial(_too_many, msaa, most, renderer), spelling())
    return int(msaa)


def _too_many(msaa: int, most: int, renderer: str, spell: Spelling) -> str:
    """The line refusing more samples than the context offers, its settings as ``spell``
    names them (``--msaa 16``, ``msaa=16``, ``msaa = 16``)."""
    return (f"{spell.given and spell.given('msaa') or spell.said('msaa', msaa)}: {renderer} "
            f"offers at most {most} samples per pixel (hfrender info says so); give "
            f"{spell.said('msaa', most)} or less")
