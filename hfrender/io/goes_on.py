"""How each command goes on from a failure that kept work: the one table of the words that
put its own way in place of render's and fx's ``--resume`` (a batch refuses --resume and
goes on by itself; reexpose has none: run again, it starts over and exposes the whole store)."""

from __future__ import annotations

from hfrender.io.join import JOIN_AGAIN
from hfrender.io.segment_parts import WRITE_AGAIN

GOES_ON: dict[str, dict[str, str]] = {
    "render": {},  # (and fx: their own words, "--resume", or hf.render's resume=True)
    "batch": {JOIN_AGAIN: "running the batch again joins them",
              WRITE_AGAIN: "running the batch again writes it anew"},
    "reexpose": {JOIN_AGAIN: "the same command exposes it again",
                 WRITE_AGAIN: "run the same command again to expose it whole"},
}


def goes_on(line: str, command: str) -> str:
    """``line`` (an error's) with its way on said as ``command`` goes on (:data:`GOES_ON`)."""
    for said, way in GOES_ON[command].items():
        line = line.replace(said, way)
    return line
