"""Doors on cell edges: a fighter beside one opens or closes it on its turn (tabletrail/doors).

A door is a small state machine (core/engine/machines.py DOOR: closed <-> open; a
locked door stays shut until the GM unlocks it; only the GM locks one, at any
time, with no fighter's turn or place needed). Its state is encounter state, changed only by a
DoorChanged event, so opening and closing are logged, explained, undone and
redone like any other batch. Whether a door stops a step or a sight line is
core/board/walls.py's question.

Who may use a door: the fighter whose turn it is, standing on one of the two
cells the door separates or on a cell touching the door's edge at one of its
ends (orthogonally or diagonally adjacent to the edge): the cells within one
king's step of both door cells.

What it costs is the ruleset's `door_cost` setting, paid from the budget the
ruleset names (`Ruleset.door_resource`). None of the four rule documents
speaks of doors, so the default is 0: free, as part of a move.

A door priced as part of a move (free, or paid from the move's own budget) is
used on the way: it does not stop the move, which goes on with what is left
(`part_of_move`). Where a move's budget outlives the command (a move action,
meters a round, AP a cycle) nothing more is needed; a ruleset whose every move
command is a new action (speed-meters' Movement) asks `part_of_move` to keep
the move going past the door.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from tabletrail.core.board.refusal import require
from tabletrail.core.board.units import to_cu
from tabletrail.core.board.walls import DOORS, door_named
from tabletrail.core.engine.machines import DOOR
from tabletrail.core.fold.batch import Batch
from tabletrail.events.types import DoorChanged, Spent

if TYPE_CHECKING:
    from tabletrail.core.board.state import EncounterState, Fighter

WORDS = {"open": "opens", "close": "closes", "lock": "locks", "unlock": "unlocks"}
# Locks: none of the four documents has keys or lockpicks, so only the GM locks or unlocks a door.
GM_TRIGGERS = ("lock", "unlock")


class DoorRules(Protocol):
    """What a door asks of the ruleset it is used under: core/engine/ruleset.py's `Ruleset` answers it.

    A protocol, not the class, because the `Ruleset` base uses this module (its door handlers and
    the `door_cost` setting) and sits above it.
    """

    @property
    def door_resource(self) -> str: ...
    @property
    def movement_resource(self) -> str: ...
    @property
    def centi_resources(self) -> tuple[str, ...]: ...
    def fighter(self, state: EncounterState, fighter_id: str) -> Fighter: ...
    def acting(self, state: EncounterState, fighter_id: str) -> Fighter: ...
    def door_budget(self, state: EncounterState, f: Fighter) -> int: ...
    def amount_label(self, resource: str, amount: int) -> str: ...


def part_of_move(rs: DoorRules, state: EncounterState) -> bool:
    """Is a door priced as part of a move, so that using one on the way does not stop it?

    Yes when it is free (door_cost 0: "free, as part of a move") or paid from the budget the
    fighter moves with; no when it costs something else (speed-meters' actions): then it is an
    action of its own, and the move before it has stopped.
    """
    return not state.settings.get("door_cost", 0) or rs.door_resource == rs.movement_resource


def is_beside(pos: tuple[int, ...], a: tuple[int, int], c: tuple[int, int]) -> bool:
    """Does a fighter at pos reach the door between cells a and c? (within a king's step of both)"""
    return all(max(abs(pos[0] - cell[0]), abs(pos[1] - cell[1])) <= 1 for cell in (a, c))


def doors_beside(state: EncounterState, fighter_id: str) -> list[tuple[str, str]]:
    """The doors a fighter could reach now, with their states: (name, state), in the scenario's order."""
    f = state.fighter(fighter_id)
    edges = state.grid.edges
    if f is None or edges is None:
        return []
    return [
        (name, state.doors.get(name, "closed"))
        for name, (a, c) in edges.names.items()
        if is_beside(f.pos, a, c)
    ]


def use(rs: DoorRules, b: Batch, fighter_id: str, text: str, trigger: str, by: str = "gm") -> None:
    """Open or close the door `text` names for the fighter, on its turn, beside it (tabletrail/doors).

    Locking and unlocking are the GM's (by=gm), cost nothing and need neither the fighter's turn
    nor its place: a key found, a lock picked, a door barred from the far side are the GM's to say.
    """
    gm = trigger in GM_TRIGGERS
    if gm:
        require(by == "gm", DOORS, f"only the GM may {trigger} a door (by=gm); {by} asked")
    f = rs.fighter(b.state, fighter_id) if gm else rs.acting(b.state, fighter_id)
    name, a, c = door_named(b.state, text)
    x, y = f.pos[0], f.pos[1]
    require(
        gm or is_beside(f.pos, a, c),
        DOORS,
        f"{f.id} at {x},{y} is not beside the door {name}: it must stand on {a[0]},{a[1]} or {c[0]},{c[1]} "
        "or on a cell touching the door's edge",
    )
    source = b.state.doors.get(name, "closed")
    reason = {
        ("open", "open"): f"the door {name} is already open",
        ("close", "closed"): f"the door {name} is already closed",
        ("open", "locked"): f"the door {name} is locked",
        ("close", "locked"): f"the door {name} is locked (and closed)",
        ("lock", "open"): f"the door {name} is open: close it first",
        ("lock", "locked"): f"the door {name} is already locked",
        ("unlock", "open"): f"the door {name} is not locked",
        ("unlock", "closed"): f"the door {name} is not locked",
    }.get((trigger, source), "")
    dest = DOOR.require(trigger, source, DOORS, reason)
    cost = b.state.settings.get("door_cost", 0) if trigger not in GM_TRIGGERS else 0
    if cost:
        resource = rs.door_resource
        amount = to_cu(cost) if resource in rs.centi_resources else int(cost)
        left = rs.door_budget(b.state, f)
        require(
            amount <= left,
            DOORS,
            f"to {trigger} the door {name} costs {rs.amount_label(resource, amount)} (door_cost), "
            f"but {f.id} has {rs.amount_label(resource, max(left, 0))} left",
        )
        b.emit(
            Spent(fighter=f.id, resource=resource, amount=amount, rules=(DOORS,), note=f"to {trigger} a door")
        )
    b.emit(
        DoorChanged(
            door=name,
            trigger=trigger,
            source=source,
            dest=dest,
            fighter=f.id,
            rules=(DOORS,),
            note=f"{f.id} {WORDS[trigger]} the door between {a[0]},{a[1]} and {c[0]},{c[1]}",
        )
    )
