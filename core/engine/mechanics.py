"""Mechanics a ruleset reuses rather than writes again: difficult terrain and a simple forced move.

(Falling is `core/engine/falling.fall`, prone the engine's POSTURE machine with `Ruleset.posture_rules`,
the walk `core/engine/movement.walk`: `tabletrail.ruleset_api` names them all.)
"""

from __future__ import annotations

from tabletrail.core.board.geometry import XY, Pos, show
from tabletrail.core.board.state import EncounterState
from tabletrail.core.board.units import CU
from tabletrail.core.board.walls import step_blocked
from tabletrail.core.fold.batch import Batch
from tabletrail.events.types import Moved, Step

DIFFICULT = ("difficult",)  # the shared tag of terrain that costs more to cross (rough, difficult, water)


def difficult(state: EncounterState, cell: XY | Pos, tags: tuple[str, ...] = DIFFICULT) -> bool:
    """Is this cell difficult terrain: does it carry any of `tags` (its terrain's or its own)?"""
    return any(state.grid.has(cell[0], cell[1], tag) for tag in tags)


def away(origin: XY | Pos, target: XY | Pos, cells: int) -> list[XY]:
    """The `cells` squares straight away from `origin` through `target`, first the nearest.

    The direction is the king's step from origin towards target (a push from the north-west goes
    south-east); a target on the origin's own square goes nowhere.
    """
    dx = (target[0] > origin[0]) - (target[0] < origin[0])
    dy = (target[1] > origin[1]) - (target[1] < origin[1])
    if not (dx or dy):
        return []
    return [(target[0] + dx * n, target[1] + dy * n) for n in range(1, cells + 1)]


def forced_move(
    b: Batch, fighter_id: str, cells: list[XY], *, rules: tuple[str, ...], note: str = ""
) -> tuple[list[Pos], str]:
    """Move a fighter by force along `cells` (a push, a shove), one square at a time, spending no budget.

    The move stops before the first square it can't enter: off the map, across a wall or a shut
    door, into a solid cell, or onto another fighter. It is recorded as one `Moved` with resource
    "forced" and as budget the distance meant, so a move cut short says how far it was to go and
    what stopped it (a move stopped before its first square is recorded too). Returns the
    positions passed and why it stopped ("" when it went the whole way).
    """
    state = b.state
    f = state.fighter(fighter_id)
    assert f is not None, fighter_id
    here, why = f.pos, ""
    steps: list[Step] = []
    for x, y in cells:
        if not state.grid.inside(x, y):
            why = f"{show((x, y))} is off the map"
        elif wall := step_blocked(state, here, (x, y)):
            why = wall
        elif state.grid.blocked(x, y):
            why = f"{show((x, y))} is solid"
        elif others := [o.id for o in state.at(x, y) if o.id != fighter_id]:
            why = f"{show((x, y))} is taken by {', '.join(others)}"
        if why:
            break
        to = (x, y, state.grid.top[y][x])
        diagonal = x != here[0] and y != here[1]
        steps.append(Step(to=to, cost=CU, terrain=state.grid.kind(x, y).terrain, diagonal=diagonal))
        here = to
    if steps or why:
        budget = len(cells) * CU
        b.emit(Moved(fighter=fighter_id, steps=tuple(steps), resource="forced", budget=budget, stopped=why,
                     rules=rules, note=note))  # fmt: skip
    return [s.to for s in steps], why
