"""A second writer of a sequence is refused naming its output as it was typed: ``-o
f/####.png`` was said as ``-o f/%04d.png`` (a user's trial: "I never typed that")."""

import os

import pytest

import hfrender as hf
from hfrender.cli import main
from hfrender.io.output_lock import OutputBusy, output_lock

SMALL = ["--size", "8x4", "--duration", "0.2", "--samples", "1", "--quiet"]
BUSY = "another hfrender (pid {}) is writing it; wait for it to finish, or write elsewhere"


@pytest.mark.parametrize("typed", ["f/####.png", "f/%04d.png", "f/shot.##.exr"])
def test_the_command_names_the_output_as_typed(bar, capsys, typed):
    from hfrender.io.sequence_names import sequence_name

    with output_lock(sequence_name(typed)):  # a first render of it, writing
        assert main(["render", bar, "-o", typed, *SMALL]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {typed}: {BUSY.format(os.getpid())}\n")
    assert not os.path.exists("f")


def test_hf_render_names_it_as_given_too(bar):
    with output_lock("f/%04d.png"), pytest.raises(OutputBusy) as info:
        hf.render(bar, "f/####.png", size=(8, 4), samples=1, duration=0.2)
    assert str(info.value).startswith("output='f/####.png': another hfrender"), info.value
    with output_lock("f/%04d.png"), pytest.raises(OutputBusy) as info:  # the same, as printf
        hf.render(bar, "f/%04d.png", size=(8, 4), samples=1, duration=0.2)
    assert str(info.value).startswith("output='f/%04d.png': another hfrender"), info.value


def test_a_pattern_named_again_keeps_the_name_typed():
    """sequence_name of a pattern it made itself (the value handed on, named again) dropped
    the name typed for it: typed_output then said ``f/%04d.png``; one the user types as
    printf is named so (as above)."""
    from hfrender.io.sequence_names import sequence_name, typed_output

    made = sequence_name("g/shot.###.png")
    assert made == "g/shot.%03d.png"
    assert sequence_name(made) == "g/shot.%03d.png"  # (named again: the same pattern)
    assert typed_output("g/shot.%03d.png") == "g/shot.###.png"
    assert sequence_name("g/shot.%03d.png") == "g/shot.%03d.png"  # typed so now
    assert typed_output("g/shot.%03d.png") == "g/shot.%03d.png"
