"""What ``hfrender reexpose`` says of an exposure a store cannot give (stores written
without GL: store_helpers)."""

import re

import pytest
from store_helpers import write_store

import hfrender as hf


def test_a_too_narrow_shutter_at_the_first_frame_names_the_spacing(tmp_path):
    kept = hf.SampleStore.open(write_store(tmp_path / "start.samples", position="start"))
    # 2 sub-frames over 180 degrees from the frame's time: at 45 and 135 degrees
    with pytest.raises(hf.InputError, match="^" + re.escape(
            "output frame 0: no kept sub-frame inside its shutter (from 0.000000 to 0.000046 "
            "s); the kept sub-frames around it lie 90 degrees apart (0.0042 and 0.0125 s): a "
            "shutter of 90 degrees or more holds one (or keep more --samples)") + "$"):
        kept.expose(shutter=0.5, position="start")  # (was: "from 0.0000 to 0.0000 s ...
    # the store has too few samples for so narrow a shutter", no figure)
    assert kept.expose(shutter=90, position="start").shape == (3, 8, 16, 3)
