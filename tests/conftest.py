import zlib

import numpy as np
import pytest


def pytest_report_header(config):
    """What the render tests run on: the GL renderer, and the CUDA device or why none."""
    lines = []
    try:
        from hfrender.render.contexts import create_context

        glctx = create_context("egl", size=(8, 8))
        lines.append(f"hfrender GL (egl): {glctx.renderer}")
        glctx.release()
    except Exception as exc:  # noqa: BLE001 - a header, not a test
        lines.append(f"hfrender GL (egl): unavailable: {exc}")
    try:
        from hfrender.backends import load

        lines.append(f"hfrender CUDA: {load('cuda').describe()}")
    except Exception as exc:  # noqa: BLE001
        lines.append(f"hfrender CUDA: none ({exc})")
    return lines


@pytest.fixture
def rng(request):
    """A generator seeded from the test's own id: fresh per case, reproducible."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def srgb_encode(x):
    """Reference sRGB encoding (IEC 61966-2-1), written out independently of hfrender."""
    x = np.clip(np.asarray(x, np.float64), 0, 1)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def srgb_decode(v):
    v = np.asarray(v, np.float64)
    return np.where(v <= 0.04045, v / 12.92, np.power((v + 0.055) / 1.055, 2.4))


def reference_blur(frames, weights, stride, linear_light):
    """Dense float64 reference of motion_blur: decode, weighted sum, encode, round."""
    frames = np.asarray(frames)
    w = np.asarray(weights, np.float64)
    w = w / w.sum()
    n, window = len(frames), len(w)
    m = (n - window) // stride + 1
    idx = np.arange(m)[:, None] * stride + np.arange(window)
    if frames.dtype.kind == "f":
        return np.einsum("kj...,j->k...", frames.astype(np.float64)[idx], w)
    top = np.iinfo(frames.dtype).max
    v = frames.astype(np.float64) / top
    if linear_light:
        lin = srgb_decode(v)
        if frames.shape[-1] == 4:
            lin[..., 3] = v[..., 3]
        mix = np.einsum("kj...,j->k...", lin[idx], w)
        enc = srgb_encode(mix)
        if frames.shape[-1] == 4:
            enc[..., 3] = np.clip(mix[..., 3], 0, 1)
        return np.floor(enc * top + 0.5)
    if np.all(w == w[0]):  # box: exact integers, halves round up
        total = frames.astype(np.int64)[idx].sum(axis=1)
        return ((2 * total + window) // (2 * window)).astype(np.float64)
    return np.floor(np.einsum("kj...,j->k...", frames.astype(np.float64)[idx], w) + 0.5)
