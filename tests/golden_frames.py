"""Golden frames: small ``.npz`` references of renders in tests/golden/, compared with
named tolerances (manim's frames_comparison does the same). ``pytest --regen-golden``
rewrites them; a failed comparison writes reference | result | amplified difference as a
PNG into tests/golden/failures/ (ignored by git) and names it in the message."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

GOLDEN = Path(__file__).parent / "golden"
FAILURES = GOLDEN / "failures"
GAIN = 8  # the difference image shows |result - reference| x 8


@dataclass(frozen=True)
class Tolerance:
    """How far a render may be from its reference and still match.

    noise : a channel at most this many code values off counts as equal
    fraction : the share of pixels that may differ by more than ``noise``
    max_abs : no channel of any pixel may be further off than this
    """

    noise: int
    fraction: float
    max_abs: int


@dataclass(frozen=True)
class Difference:
    max_abs: int  # code values, the largest of any channel
    fraction: float  # of the pixels, those off by more than the tolerance's noise

    def within(self, tol: Tolerance) -> bool:
        return self.max_abs <= tol.max_abs and self.fraction <= tol.fraction


def difference(reference: np.ndarray, result: np.ndarray, tol: Tolerance) -> Difference:
    d = np.abs(result.astype(np.int16) - reference.astype(np.int16)).max(axis=-1)
    return Difference(int(d.max()), float((d > tol.noise).mean()))


def difference_image(reference: np.ndarray, result: np.ndarray) -> np.ndarray:
    """One row per frame: reference | result | |difference| x GAIN (full brightness: 32
    code values off or more)."""
    d = np.abs(result.astype(np.int16) - reference.astype(np.int16))
    amplified = np.minimum(d * GAIN, 255).astype(np.uint8)
    return np.concatenate([np.concatenate(row, axis=1)
                           for row in zip(reference, result, amplified, strict=True)],
                          axis=0)


def renderer_family(renderer: str) -> str:
    """'llvmpipe' of 'llvmpipe (LLVM 15.0.6, 256 bits) (OpenGL 4.5 ...)'."""
    return renderer.split(" (")[0].strip()


def save(path: Path, frames: np.ndarray, settings: dict, renderer: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = json.dumps({"settings": settings, "renderer": renderer}, sort_keys=True)
    np.savez_compressed(path, frames=frames, meta=np.array(meta))


def load(path: Path) -> tuple[np.ndarray, dict, str]:
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        return data["frames"], meta["settings"], meta["renderer"]


def assert_matches_golden(name: str, frames: np.ndarray, settings: dict, tol: Tolerance,
                          renderer: str, *, regen: bool = False,
                          failures: Path = FAILURES) -> None:
    """``frames`` match tests/golden/``name``.npz within ``tol`` (with ``regen``: become it).

    ``settings`` (JSON values) are what the frames were rendered with: a reference made
    with others is stale. References belong to the renderer family that made them
    (llvmpipe here): on another GL renderer the comparison is skipped.
    """
    settings = json.loads(json.dumps(settings))  # tuples as lists, as stored
    path = GOLDEN / f"{name}.npz"
    if regen:
        save(path, frames, settings, renderer)
        return
    if not path.exists():
        raise AssertionError(f"no golden frames {path}: make them with pytest --regen-golden")
    ref, ref_settings, ref_renderer = load(path)
    if renderer_family(ref_renderer) != renderer_family(renderer):
        pytest.skip(f"{path.name} was rendered by {ref_renderer}, this is {renderer}: "
                    "run pytest --regen-golden to compare against this renderer's own")
    if ref_settings != settings:
        raise AssertionError(f"{path} was rendered with {ref_settings}, the test renders "
                             f"{settings}: run pytest --regen-golden")
    if ref.shape != frames.shape:
        raise AssertionError(f"{name}: frames {frames.shape}, the reference {ref.shape}")
    diff = difference(ref, frames, tol)
    if not diff.within(tol):
        import imageio.v3 as iio

        failures.mkdir(parents=True, exist_ok=True)
        png = failures / f"{name}.png"
        iio.imwrite(png, difference_image(ref, frames))
        raise AssertionError(
            f"{name}: {diff.fraction:.3%} of the pixels differ by more than {tol.noise} code "
            f"values (allowed: {tol.fraction:.3%}), by at most {diff.max_abs} (allowed: "
            f"{tol.max_abs}); reference | result | difference x{GAIN}: {png}")
