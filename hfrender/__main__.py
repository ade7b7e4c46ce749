"""``python -m hfrender`` and the ``hfrender`` command."""

import sys


def run() -> None:
    """The command, a Ctrl-C while it loads included: one line and exit status 130, not a
    traceback from inside an import (loading the command line takes about 0.2 s)."""
    try:
        from hfrender.cli import main
    except KeyboardInterrupt:
        print("hfrender: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(main())


if __name__ == "__main__":
    run()
