"""``python -m hfrender`` and the ``hfrender`` command."""

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
    # changes nothing (was: 130, or "Exception ignored ... KeyboardInterrupt", exit 0 said)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(code)


if __name__ == "__main__":
    run()
