"""``python -m hfrender`` and the ``hfrender`` command."""

import os
import signal
import sys


def run() -> None:
    """The command, a Ctrl-C while it loads included: one line and exit status 130, not a
    traceback from inside an import (loading the command line takes about 0.2 s)."""
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
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: os._exit(code))
    sys.exit(code)


if __name__ == "__main__":
    run()
