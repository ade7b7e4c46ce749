"""One way of saying a size in bytes (hfrender/sizes.py): decimal units, the largest in
which it is 1 or more; one decimal under 100 of it, whole from 100 up. Four formatters
said the same bytes four ways ("0.3 MB", "307.2 KB", "100.0 MB", "0.00 GiB"). Every
expected text here is written out by hand from that rule."""

import pytest

from hfrender.sizes import bytes_said, range_said


@pytest.mark.parametrize("n, said", [
    (0, "0 B"),
    (7, "7 B"),
    (999, "999 B"),
    (1000, "1.0 KB"),
    (8192, "8.2 KB"),  # a 2-block PNG's least on a 4 KB-block disk
    (99_940, "99.9 KB"),
    (99_960, "100 KB"),  # 99.96 KB: 100.0 at one decimal, so whole
    (307_200, "307 KB"),  # was "307.2 KB" (disk_room) and "0.3 MB" (stopped)
    (999_400, "999 KB"),
    (999_600, "1.0 MB"),  # 999.6 KB would read "1000 KB": the next unit
    (1_234_567, "1.2 MB"),
    (147_456_000, "147 MB"),
    (18_874_368_000, "18.9 GB"),
    (99_960_000_000, "100 GB"),
    (2_500_000_000_000, "2.5 TB"),
    (5_000_000_000_000_000, "5000 TB"),  # the largest unit has no next
    (2.5e9, "2.5 GB"),  # a float count
])
def test_a_size_in_bytes_is_said_by_the_one_rule(n, said):
    assert bytes_said(n) == said


@pytest.mark.parametrize("low, high, said", [
    (23_040, 138_240, "23 to 138 KB"),  # a 640x360 PNG: plain to busy
    (207_360, 1_244_160, "0.2 to 1.2 MB"),  # 1920x1080
    (819, 4681, "0.8 to 4.7 KB"),
    (500, 900, "500 to 900 B"),
])
def test_a_range_is_said_in_its_highs_unit_and_decimals(low, high, said):
    assert range_said(low, high) == said
