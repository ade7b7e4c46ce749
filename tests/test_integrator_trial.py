"""An integrator's trial of the effects library: what a pipeline importing hfrender met."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hfrender as hf


def test_exact_dof_of_light_near_float32_max_warns_nothing():
    """A frame of light near float32's top (the exact gather takes it) gave NumPy's
    'overflow encountered in scalar multiply' from inside the library (the cap on what a
    pixel sees past its edge, 4x the frame's level, overflowed to inf)."""
    h, w = 48, 64
    frame = np.full((h, w, 3), 3e38, np.float32)
    depth = np.full((h, w), 5.0, np.float32)
    depth[:, :20] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = hf.depth_of_field(frame, depth, focus_distance=5.0, f_stop=1.4,
                                focal_length_mm=100, method="exact")
    assert np.isfinite(out).all()
    assert out.min() == pytest.approx(3e38, rel=1e-4)
