"""Jobs run ahead on a pool, or by their caller when it comes first (backends/cpu/ahead.py)."""

from __future__ import annotations

import threading
import weakref
from concurrent.futures import CancelledError, ThreadPoolExecutor

import pytest

from hfrender.backends.cpu.ahead import Ahead


@pytest.fixture
def pool():
    with ThreadPoolExecutor(1, thread_name_prefix="test-ahead") as executor:
        yield executor


def _busy(pool: ThreadPoolExecutor) -> threading.Event:
    """Keep the pool's one thread busy until the returned event is set."""
    free = threading.Event()
    pool.submit(free.wait, 10)
    return free


def test_a_job_the_pool_has_not_started_runs_on_the_callers_thread_once(pool):
    free = _busy(pool)
    ahead, ran = Ahead(pool), []
    get = ahead.submit(lambda x: ran.append(threading.current_thread()) or x * 3, 7)
    assert get() == 21
    assert ran == [threading.current_thread()]
    free.set()
    pool.shutdown(wait=True)  # the pool's turn at the job comes, and finds it taken
    assert len(ran) == 1
    assert not ahead.jobs


def test_while_the_pool_runs_a_job_the_caller_runs_the_next_ones(pool):
    """Job 0 (on the pool) can only end once job 1 has run: without the caller taking
    job 1, job 0 would wait its whole timeout and see nothing."""
    ahead, started, go = Ahead(pool), threading.Event(), threading.Event()
    where = {}

    def first():
        started.set()
        where[0] = threading.current_thread()
        return go.wait(5)

    def second():
        where[1] = threading.current_thread()
        go.set()
        return "second"

    get0 = ahead.submit(first)
    assert started.wait(5)
    get1 = ahead.submit(second)
    assert get0() is True  # the event was set by job 1, run here
    assert where[1] is threading.current_thread()
    assert where[0] is not threading.current_thread()
    assert get1() == "second"
    assert not ahead.jobs


def test_each_job_runs_once_and_results_come_in_any_order_they_are_asked(pool, rng):
    ahead, counts = Ahead(pool), [0] * 40
    lock = threading.Lock()

    def job(i):
        with lock:
            counts[i] += 1
        return i * i

    gets = [ahead.submit(job, i) for i in range(40)]
    order = rng.permutation(40)
    assert [gets[i]() for i in order] == [int(i) * int(i) for i in order]
    pool.shutdown(wait=True)
    assert counts == [1] * 40
    assert not ahead.jobs


def test_a_failing_job_raises_to_its_caller_and_the_others_still_give_theirs(pool):
    free = _busy(pool)
    ahead = Ahead(pool)

    def fails():
        raise MemoryError("no room for this window")

    bad, good = ahead.submit(fails), ahead.submit(lambda: 5)
    free.set()
    with pytest.raises(MemoryError, match="no room for this window"):
        bad()
    assert good() == 5
    assert not ahead.jobs


def test_a_failed_caller_abandons_the_jobs_nobody_started(pool):
    """They never run, their arguments are let go at once, and asking for one says so; a
    job already running still ends and gives its result."""
    ahead, started, go, ran = Ahead(pool), threading.Event(), threading.Event(), []

    def first():
        started.set()
        go.wait(5)
        return "first"

    class Planes:  # stands for a window's fields
        pass

    running = ahead.submit(first)
    assert started.wait(5)
    planes = Planes()
    alive = weakref.ref(planes)
    queued = [ahead.submit(lambda p, i=i: ran.append(i), planes) for i in range(3)]
    del planes
    ahead.abandon()
    assert alive() is None  # the queued jobs' arguments are freed
    go.set()
    assert running() == "first"
    pool.shutdown(wait=True)
    assert ran == []
    with pytest.raises(CancelledError):
        queued[0]()


def test_a_pool_that_cannot_start_a_thread_leaves_the_job_to_its_caller():
    """Under `ulimit -v` no thread could start: the submit's RuntimeError was an internal
    error (a trial). The caller runs the job itself, as it does one the pool never took;
    elsewhere the engine takes such an error as out of memory (its hyperframe split)."""
    from hfrender.errors import out_of_memory

    class NoThreads:
        def submit(self, fn, *args):
            raise RuntimeError("can't start new thread")

    ahead, ran = Ahead(NoThreads()), []
    get = ahead.submit(lambda x: ran.append(threading.current_thread()) or x + 1, 41)
    assert get() == 42 and ran == [threading.current_thread()]
    assert out_of_memory(RuntimeError("can't start new thread"))
    assert not out_of_memory(RuntimeError("cannot schedule new futures after shutdown"))
    assert out_of_memory(MemoryError()) and not out_of_memory(ValueError("x"))
