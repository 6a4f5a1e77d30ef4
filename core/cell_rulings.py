"""GM rulings on cells, honoured by every ruleset's moves.

A GM may forbid crossing some cells, or require a test to cross them. The
ruling is recorded as a `BoardMarked` fact under a key of this module, and
`walk` consults it for every step, whatever the ruleset:

    BoardMarked(key="ruling:forbid", value=[[x, y, rule, why], ...])
    BoardMarked(key="ruling:test",   value=[[x, y, rule, why, target], ...])

`rule` is the id the ruling rests on (e.g. round-meters/difficult), cited by
the refusals and checks it causes.
"""

from __future__ import annotations

from typing import Any

from tabletrail.core.state import EncounterState

FORBID = "ruling:forbid"
TEST = "ruling:test"


def forbidden(state: EncounterState, x: int, y: int) -> list[Any] | None:
    """The forbid ruling on this cell, as [x, y, rule, why], or None."""
    for entry in state.marks.get(FORBID, ()):
        if entry[0] == x and entry[1] == y:
            return list(entry)
    return None


def test_required(state: EncounterState, x: int, y: int) -> list[Any] | None:
    """The test ruling on this cell, as [x, y, rule, why, target], or None."""
    for entry in state.marks.get(TEST, ()):
        if entry[0] == x and entry[1] == y:
            return list(entry)
    return None
