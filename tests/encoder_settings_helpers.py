"""The encoder-settings tests' shared pieces: ``pix_fmt`` (a video's pixel format, probed)
and the test shader ``BAR`` in the tests' ``DATA`` folder."""

from pathlib import Path

from hfrender.io.probe import probe

DATA = Path(__file__).parent / "data"


BAR = str(DATA / "bar.frag")


def pix_fmt(path):
    """The pixel format of a video, by probing (without ffmpeg's "(tv, progressive)")."""
    return probe(str(path)).pix_fmt.split("(")[0]
