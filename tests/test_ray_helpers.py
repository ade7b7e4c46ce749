"""The tests' own Ray start (ray_helpers.start_local): a raylet late to start on a loaded
machine made every Ray test of the session error; it is tried once more, after what the
first try started is ended."""

import pytest
from ray_helpers import start_local


class _Ray:
    def __init__(self, errors):
        self.errors, self.calls = list(errors), []

    def init(self, **kwargs):
        self.calls.append(("init", kwargs))
        if self.errors:
            raise self.errors.pop(0)

    def shutdown(self):
        self.calls.append(("shutdown", {}))


LATE = Exception("The current node timed out during startup. This could happen because "
                 "some of the raylet failed to startup or the GCS has become overloaded.")


def test_a_raylet_late_to_start_is_tried_once_more_after_its_processes_are_ended():
    ray, ended = _Ray([LATE]), []
    start_local(ray, lambda: ended.append(len(ray.calls)), num_cpus=2)
    assert ray.calls == [("init", {"num_cpus": 2}), ("shutdown", {}), ("init", {"num_cpus": 2})]
    assert ended == [2]  # after the shutdown, before the second try


@pytest.mark.parametrize("errors, raised, tries", [
    ([LATE, LATE], "timed out during startup", 2),  # once more only
    ([ValueError("bad address")], "^bad address$", 1)])  # another failure: at once
def test_a_start_that_fails_otherwise_or_twice_is_raised(errors, raised, tries):
    ray = _Ray(errors)
    with pytest.raises(Exception, match=raised):
        start_local(ray, lambda: None)
    assert [call for call, _ in ray.calls].count("init") == tries
