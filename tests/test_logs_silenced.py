"""hfrender.logs.silenced: a scene's second setup() and its looks at other times say nothing;
calls of it in two threads at once (hf.still in each) leave the process's streams and
warnings as they were."""

import sys
import threading
import warnings

from hfrender.logs import silenced


def test_silenced_says_nothing_and_puts_back_what_it_replaced(capsys):
    out, err, filters = sys.stdout, sys.stderr, list(warnings.filters)
    with silenced():
        print("unsaid")
        print("unsaid", file=sys.stderr)
        warnings.warn("unsaid", stacklevel=1)
    assert (sys.stdout, sys.stderr, warnings.filters) == (out, err, filters)
    print("said")
    assert capsys.readouterr() == ("said\n", "")


def test_two_threads_overlapping_leave_the_streams_and_warnings_as_they_were():
    """A enters, B enters, A leaves, B leaves (was: B put back what it found, A's sink: every
    later print of the process went nowhere, and every warning was ignored)."""
    out, err, filters = sys.stdout, sys.stderr, list(warnings.filters)
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

    def first():
        with silenced():
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def second():
        a_in.wait(5)
        with silenced():
            b_in.set()
            a_out.wait(5)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sys.stdout is out and sys.stderr is err
    assert warnings.filters == filters
