"""What the commands share: exit codes, SIGTERM as an interruption, the progress bar."""

from __future__ import annotations

import sys

EXIT_USAGE, EXIT_FAILED, EXIT_SIGINT, EXIT_SIGTERM = 2, 1, 130, 143


class Terminated(KeyboardInterrupt):
    """SIGTERM: stop like Ctrl-C (finish what was drawn, finalise), exit 143."""


def on_sigterm(signum, frame):  # noqa: ANN001 - signal handler signature
    raise Terminated()


def progress_bar(quiet: bool):
    if quiet:
        return None, lambda: None
    try:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )
    except ImportError:  # without rich: a plain line instead
        shown = [False]

        def plain(done: int, total: int) -> None:
            shown[0] = True
            print(f"\r{done}/{total} frames", end="", file=sys.stderr, flush=True)

        def end() -> None:
            if shown[0]:
                print(file=sys.stderr)
                shown[0] = False
        return plain, end
    bar = Progress(TextColumn("rendering"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                   transient=True, redirect_stdout=False)
    task = bar.add_task("render", total=None, rate="")
    state = {"t0": None}

    def update(done: int, total: int) -> None:
        import time

        now = time.perf_counter()
        if state["t0"] is None:
            state["t0"] = now
            bar.start()
        rate = done / (now - state["t0"]) if now > state["t0"] else 0.0
        bar.update(task, completed=done, total=total, rate=f"{rate:.1f} fps")

    def stop() -> None:
        if state["t0"] is not None:
            bar.stop()  # shows the cursor again, also after an error
            state["t0"] = None

    return update, stop


