"""``python -m hfrender`` and the ``hfrender`` command."""

import atexit
import os
import signal
import sys

from hfrender.signals import STOPS


def run() -> None:
    """The command, a Ctrl-C while it loads included: one line and exit status 130, not a
    traceback from inside an import (loading the command line takes about 0.2 s)."""
    atexit.register(_held_at_the_end)  # (registered first: run last, after Ray's and all)
    try:
        from hfrender.cli import main
    except KeyboardInterrupt:
        print("hfrender: interrupted", file=sys.stderr)
        sys.exit(130)
    code = main()
    # done: a Ctrl-C or SIGTERM as the interpreter ends (its threads joined, files closed)
    # ends the process at once with main's status (was: 130, or "Exception ignored ...
    # KeyboardInterrupt", the output complete); not ignored: a hung ending still stops
    sys.stdout.flush()
    for signum in STOPS:
        signal.signal(signum, lambda *_: os._exit(code))
    sys.exit(code)


def _held_at_the_end() -> None:
    """Past every other exit step, SIGINT and SIGTERM are held until the process is gone:
    Python's own ending puts their default actions back, and one landing then killed a
    finished run (exit -2, its "done" printed)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, set(STOPS))


if __name__ == "__main__":
    run()
