"""GM rulings on cells, honoured by every ruleset's moves.

A GM may forbid crossing some cells, or require a test to cross them. The
ruling is recorded as a `BoardMarked` fact under a key of this module, and
`walk` consults it for every step, whatever the ruleset:

    BoardMarked(key="ruling:forbid", value=[[x, y, rule, why], ...])
    BoardMarked(key="ruling:forbid", value=[[x, y, rule, why, [name, ...]], ...])
    BoardMarked(key="ruling:test",   value=[[x, y, rule, why, target], ...])

`rule` is the id the ruling rests on (e.g. round-meters/difficult), cited by
the refusals and checks it causes. A forbid's fifth item, when there is one,
names who may cross anyway: fighter ids or tags (round-meters/difficult:
"impassable without suitable equipment or abilities").
"""

from __future__ import annotations

from typing import Any

from tabletrail.core.board.state import EncounterState, Fighter

FORBID = "ruling:forbid"
TEST = "ruling:test"


def exempted(entry: list[Any] | tuple[Any, ...]) -> tuple[str, ...]:
    """The fighter ids and tags a forbid ruling lets through (none on the older 4-item entries)."""
    return tuple(entry[4]) if len(entry) > 4 else ()


def lets_through(entry: list[Any] | tuple[Any, ...], f: Fighter | None) -> bool:
    """A fighter named by the ruling's exemptions, or carrying a tag it names, may cross."""
    names = exempted(entry)
    return f is not None and bool(names) and (f.id in names or any(t in names for t in f.tags))


def forbidden(state: EncounterState, x: int, y: int, f: Fighter | None = None) -> list[Any] | None:
    """The forbid ruling on this cell that holds for fighter `f`, as [x, y, rule, why, …], or None.

    Without a fighter, the ruling holds whatever its exemptions.
    """
    for entry in state.marks.get(FORBID, ()):
        if entry[0] == x and entry[1] == y:
            return None if lets_through(entry, f) else list(entry)
    return None


def forbidden_cells(state: EncounterState, f: Fighter) -> set[tuple[int, int]]:
    """Every cell a forbid ruling closes to this fighter."""
    return {(e[0], e[1]) for e in state.marks.get(FORBID, ()) if not lets_through(e, f)}


def test_required(state: EncounterState, x: int, y: int) -> list[Any] | None:
    """The test ruling on this cell, as [x, y, rule, why, target], or None."""
    for entry in state.marks.get(TEST, ()):
        if entry[0] == x and entry[1] == y:
            return list(entry)
    return None
