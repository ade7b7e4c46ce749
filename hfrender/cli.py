"""The ``hfrender`` command: parses, resolves, dispatches. No rendering logic lives here."""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Sequence

import hfrender
from hfrender.backends import BACKENDS, load
from hfrender.errors import BackendUnavailable


def cmd_info(args: argparse.Namespace) -> int:
    """What this machine offers hfrender: versions, fusion backends, the video encoder."""
    import numpy as np

    print(f"hfrender {hfrender.__version__}  (Python {platform.python_version()}, "
          f"NumPy {np.__version__}, {platform.machine()})")
    for name in BACKENDS:
        try:
            print(f"backend {name}: {load(name).describe()}")
        except BackendUnavailable as exc:
            print(f"backend {name}: unavailable: {exc}")
    try:
        import imageio_ffmpeg

        print(f"ffmpeg: {imageio_ffmpeg.get_ffmpeg_exe()} "
              f"(version {imageio_ffmpeg.get_ffmpeg_version()})")
    except Exception as exc:  # noqa: BLE001 - report any failure to find the binary
        print(f"ffmpeg: unavailable: {exc}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hfrender",
        description="Physically based motion blur and depth of field, fused in hyperframes.",
    )
    parser.add_argument("--version", action="version", version=f"hfrender {hfrender.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    info = sub.add_parser("info", help="show versions, fusion backends and the ffmpeg binary")
    info.set_defaults(func=cmd_info)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
