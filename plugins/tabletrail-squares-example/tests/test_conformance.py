"""squares-example runs tabletrail's conformance kit: declared whole, examples run, random play holds."""

from __future__ import annotations

from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from tabletrail.testing import check_declaration, check_examples, conformance_machine

SCENARIO = (Path(__file__).resolve().parent.parent / "scenarios" / "bog.toml").read_text(encoding="utf-8")
FIGHTERS = ("ana", "bo", "cy")
cells = st.tuples(st.integers(0, 9), st.integers(0, 5)).map(lambda c: f"{c[0]},{c[1]}")
texts = st.one_of(
    st.builds("move {} {}".format, st.sampled_from(FIGHTERS), cells),
    st.builds("barge {} {}".format, st.sampled_from(FIGHTERS), st.sampled_from(FIGHTERS)),
)


def test_the_plugin_is_installed_and_declared_whole():
    rs = check_declaration("squares-example")
    assert rs.title == "A Speed in squares, one Movement a turn"


def test_every_example_runs():
    check_examples("squares-example", SCENARIO)


SquaresMachine = conformance_machine(SCENARIO, texts, name="SquaresMachine")
TestRandomPlay = SquaresMachine.TestCase
TestRandomPlay.settings = settings(max_examples=25, stateful_step_count=15, deadline=None)
