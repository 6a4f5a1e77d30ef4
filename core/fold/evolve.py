"""The fold of the encounter state by facts: the Decider's `evolve`.

evolve holds no rules. It writes what the event says happened (the machine
state the event recorded, the position the move reached, the budget it spent)
and nothing else, so it is fast and replay is a plain fold. It is domain code:
`core/fold/batch.py` folds each fact as a handler emits it, and the projections
(board view, timeline, audit) are built on the states it returns.

Most facts are about one fighter (`FIGHTER`: the fighter in, the changed fighter
out, found and put back by one `_on_fighter`); the others change the board (`BOARD`).
`APPLY` dispatches both by event type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from operator import attrgetter
from typing import Any

from msgspec.structs import replace
from tabletrail.core.board.corrections import FIRST
from tabletrail.core.board.geometry import Grid
from tabletrail.core.board.state import EncounterState, Fighter, Turn
from tabletrail.core.board.units import root2_cu, to_cu
from tabletrail.events import types as ev


def initial_state(started: ev.EncounterStarted) -> EncounterState:
    sc = started.scenario
    grid = Grid.of(sc)
    fighters = []
    for spec in sc.fighters:
        x, y = spec.at[0], spec.at[1]
        z = to_cu(spec.at[2]) if len(spec.at) == 3 else grid.top[y][x]
        fighters.append(
            Fighter(
                id=spec.id,
                name=spec.name,
                side=spec.side,
                pos=(x, y, z),
                size=spec.size,
                stats=dict(spec.stats),
                states={},
                spent={},
                marks={},
                tags=spec.tags,
            )
        )
    order = sc.initiative or tuple(f.id for f in sc.fighters)
    return EncounterState(
        scenario=sc,
        grid=grid,
        settings=dict(started.settings),
        fighters=tuple(fighters),
        turn=Turn(order=order),
        doors={d.at: d.state for d in sc.door_list()},
        rules_version=started.rules_version or FIRST,  # the fact line 1 records: "" is the first version
    )


_cost = attrgetter("cost")
_root2 = attrgetter("root2")


# Facts about one fighter: each returns the fighter as the fact leaves it (the same one if unchanged).


def _moved(f: Fighter, e: ev.Moved) -> Fighter:
    spent = f.spent.copy()
    spent[e.resource] = spent.get(e.resource, 0) + sum(map(_cost, e.steps))
    return replace(f, pos=e.steps[-1].to, spent=spent)


def _placed(f: Fighter, e: ev.Placed) -> Fighter:
    return replace(f, pos=e.to)


def _state(f: Fighter, e: ev.StateChanged) -> Fighter:
    if f.states.get(e.machine) == e.dest:
        return f  # already there: nothing to copy
    states = f.states.copy()
    states[e.machine] = e.dest
    return replace(f, states=states)


def _damaged(f: Fighter, e: ev.Damaged) -> Fighter:
    return replace(f, damage=f.damage + e.amount)


def _spent(f: Fighter, e: ev.Spent) -> Fighter:
    spent = f.spent.copy()
    spent[e.resource] = spent.get(e.resource, 0) + e.amount
    return replace(f, spent=spent)


def _refreshed(f: Fighter, e: ev.Refreshed) -> Fighter:
    gone = f.spent.keys() & e.resources  # a C set operation: most budgets a Refreshed names are not spent
    if not gone:
        return f  # nothing spent that starts over: nothing to copy
    spent = f.spent.copy()  # the others keep their order, as the log's snapshots encode them
    for key in gone:
        del spent[key]
    return replace(f, spent=spent)


def _marked(f: Fighter, e: ev.Marked) -> Fighter:
    marks = f.marks.copy()
    marks[e.key] = e.value
    return replace(f, marks=marks)


def _unmarked(f: Fighter, e: ev.Unmarked) -> Fighter:
    if e.key not in f.marks:
        return f
    return replace(f, marks={k: v for k, v in f.marks.items() if k != e.key})


# Facts about the board.


def _linked(s: EncounterState, e: ev.Linked) -> EncounterState:
    link = (e.kind, e.a, e.b)
    return s if link in s.links else replace(s, links=(*s.links, link))


def _unlinked(s: EncounterState, e: ev.Unlinked) -> EncounterState:
    gone = {(e.kind, e.a, e.b), (e.kind, e.b, e.a)}
    return replace(s, links=tuple(link for link in s.links if link not in gone))


def _check(s: EncounterState, e: ev.CheckRolled) -> EncounterState:
    return replace(s, dice=s.dice + len(e.dice)) if e.source == "seeded" else s


def _board_marked(s: EncounterState, e: ev.BoardMarked) -> EncounterState:
    if e.value is None:
        return replace(s, marks={k: v for k, v in s.marks.items() if k != e.key})
    return replace(s, marks={**s.marks, e.key: e.value})


def _turn_started(s: EncounterState, e: ev.TurnStarted) -> EncounterState:
    order = s.turn.order
    index = order.index(e.fighter) if e.fighter in order else s.turn.index
    return replace(s, turn=Turn(order=order, index=index, round=e.round, pass_no=e.pass_no))


def _round_started(s: EncounterState, e: ev.RoundStarted) -> EncounterState:
    return replace(s, turn=replace(s.turn, round=e.round, pass_no=1))


def _pass_started(s: EncounterState, e: ev.PassStarted) -> EncounterState:
    return replace(s, turn=replace(s.turn, pass_no=e.pass_no))


def _order_changed(s: EncounterState, e: ev.OrderChanged) -> EncounterState:
    return replace(s, turn=replace(s.turn, order=e.order, index=e.index))


def _setting_changed(s: EncounterState, e: ev.SettingChanged) -> EncounterState:
    return replace(s, settings={**s.settings, e.key: e.value})


def _door(s: EncounterState, e: ev.DoorChanged) -> EncounterState:
    return replace(s, doors={**s.doors, e.door: e.dest})


def _joined(s: EncounterState, e: ev.FighterJoined) -> EncounterState:
    """A newcomer stands where the ruling put it, with nothing spent and every machine at its start."""
    f = Fighter(
        id=e.fighter,
        name=e.name,
        side=e.side,
        pos=e.pos,
        size=e.size,
        stats=dict(e.stats),
        states={},
        spent={},
        marks={},
        tags=e.tags,
    )
    return replace(s, fighters=(*s.fighters, f))


def _left(s: EncounterState, e: ev.FighterLeft) -> EncounterState:
    """The fighter is off the board, its exact budgets with it (the order changes by its own event)."""
    s.index_of(e.fighter)  # an unknown fighter is a KeyError, as for every fighter's fact
    roots = {k: v for k, v in s.roots.items() if k != e.fighter} if e.fighter in s.roots else s.roots
    return replace(s, fighters=tuple(f for f in s.fighters if f.id != e.fighter), roots=roots)


def no_change(s: EncounterState, e: ev.Event) -> EncounterState:
    """The fold of a fact that changes nothing on the board (a replay need not call it)."""
    return s


FIGHTER: dict[type, Callable[[Fighter, Any], Fighter]] = {
    ev.Moved: _moved,
    ev.Placed: _placed,
    ev.StateChanged: _state,
    ev.Damaged: _damaged,
    ev.Spent: _spent,
    ev.Refreshed: _refreshed,
    ev.Marked: _marked,
    ev.Unmarked: _unmarked,
}
BOARD: dict[type, Callable[[EncounterState, Any], EncounterState]] = {
    ev.Linked: _linked,
    ev.Unlinked: _unlinked,
    ev.CheckRolled: _check,
    ev.BoardMarked: _board_marked,
    ev.DoorChanged: _door,
    ev.TurnStarted: _turn_started,
    ev.TurnEnded: no_change,
    ev.RoundStarted: _round_started,
    ev.PassStarted: _pass_started,
    ev.OrderChanged: _order_changed,
    ev.SettingChanged: _setting_changed,
    ev.CommandIssued: no_change,
    ev.RulingMade: no_change,
    ev.FighterJoined: _joined,
    ev.FighterLeft: _left,
}


def _on_fighter(change: Callable[[Fighter, Any], Fighter], s: EncounterState, e: Any) -> EncounterState:
    """A fighter's fact on the board: the fighter found, changed, and put back in one pass.

    The state with that fighter replaced; every other fighter is shared, not copied.
    An unknown fighter is a KeyError.
    """
    fid = e.fighter
    fighters = s.fighters
    for i, f in enumerate(fighters):
        if f.id == fid:
            new = change(f, e)
            if new is f:
                return s
            changed = list(fighters)  # a list copy and one tuple: cheaper than slicing and unpacking
            changed[i] = new
            return replace(s, fighters=tuple(changed))
    raise KeyError(f"no fighter {fid!r}")


def _walked(s: EncounterState, e: ev.Moved) -> EncounterState:
    if not e.steps:  # a forced move stopped before its first step: recorded, and nothing changes
        if not e.stopped:
            raise ValueError(f"a move of {e.fighter} with no steps must say what stopped it")
        return s
    root2 = sum(map(_root2, e.steps))
    if not root2:  # whole centi-units: the recorded costs add up
        return _on_fighter(_moved, s, e)
    # Steps with a √2 part (exact euclidean lengths): the exact sums are kept (EncounterState.roots)
    # and the spent amount is their total rounded once; each recorded cost is rounded, for display.
    f = s.fighter(e.fighter)
    if f is None:
        raise KeyError(f"no fighter {e.fighter!r}")
    whole, before = s.used_exact(f, e.resource)
    whole += sum(map(_cost, e.steps)) - sum(root2_cu(step.root2) for step in e.steps)
    spent = {**f.spent, e.resource: whole + root2_cu(before + root2)}
    roots = {**s.roots, f.id: {**s.roots.get(f.id, {}), e.resource: before + root2}}
    moved = replace(f, pos=e.steps[-1].to, spent=spent)
    return replace(s.with_fighter(moved), roots=roots)


def _refreshed_roots(s: EncounterState, e: ev.Refreshed) -> EncounterState:
    """Refreshed, and the √2 parts of the budgets that start over gone with them."""
    s = _on_fighter(_refreshed, s, e)
    kept = s.roots.get(e.fighter)
    if not kept or kept.keys().isdisjoint(e.resources):
        return s
    left = {k: v for k, v in kept.items() if k not in e.resources}
    others = {k: v for k, v in s.roots.items() if k != e.fighter}
    return replace(s, roots={**others, e.fighter: left} if left else others)


# The fold of each event type, one call for the board's dispatch (projections/timeline.py): a
# fighter's fact goes through `_on_fighter` as a partial, which calls in C, not through a wrapper.
APPLY: dict[type, Callable[[EncounterState, Any], EncounterState]] = {
    **{kind: partial(_on_fighter, change) for kind, change in FIGHTER.items()},
    ev.Moved: _walked,
    ev.Refreshed: _refreshed_roots,
    **BOARD,
}


def fighter_alone(s: EncounterState, e: Any) -> bool:
    """Whether the fold of a fighter's fact (a kind in `FIGHTER`) is that fighter's change and nothing more.

    True for all but a move with no steps or a √2 part (`_walked` reads or checks the board)
    and a Refreshed of a fighter whose exact budgets the board keeps (`_refreshed_roots`).
    A replay folds such facts into the fighter alone and puts the board together once a
    batch (projections/timeline.py `Timeline.extend`).
    """
    kind = type(e)
    if kind is ev.Moved:
        return bool(e.steps) and not sum(map(_root2, e.steps))
    if kind is ev.Refreshed:
        return e.fighter not in s.roots
    return True


def evolve(state: EncounterState, event: ev.Event) -> EncounterState:
    """Apply one fact. Undo, redo and abandon are the timeline's business, not the board's."""
    return APPLY[type(event)](state, event)


def fold(state: EncounterState, events: Iterable[ev.Event]) -> EncounterState:
    for event in events:
        state = APPLY[type(event)](state, event)
    return state
