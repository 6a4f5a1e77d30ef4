"""round-meters walking: the round's Movement, spent in pieces (round-budget, move-free, difficult).

Meters moved stay spent until the next round, cost no AP, and count double
on difficult terrain. `_Walking` prices the steps and pauses on a cell a held
action watches. `Walking` lives here only to keep the ruleset readable;
`RoundMeters` inherits it.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

from msgspec.structs import replace
from tabletrail.core.rulesets.round_meters.hold import Happened, Holding
from tabletrail.core.rulesets.round_meters.shared import (
    DIFFICULT_FACTOR,
    DIFFICULT_TAGS,
    SPRINT_AP,
    SPRINT_METERS,
    SPRINTS,
)
from tabletrail.ruleset_api import (
    XY,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Move,
    Pos,
    Refusal,
    Step,
    end_alone,
    flat_step,
    fmt,
    handles,
    path_cells,
    show,
    walk,
)
from tabletrail.ruleset_api import events as ev

if TYPE_CHECKING:
    from tabletrail.core.rulesets.round_meters import RoundMeters


class Walking(Holding):
    """A move: a piece of the round's Movement, paid in meters only."""

    def walker(self, state: EncounterState, f: Fighter) -> _Walking:
        return _Walking(self, state)

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        return max(0, self.meters_left(f))

    def further_budget(self, state: EncounterState, f: Fighter) -> tuple[int, str]:
        """sprint: 1 AP buys +2 m of Movement per positive Hit; the ruler shows one Hit's worth."""
        if self.ap_left(f) < SPRINT_AP:
            return 0, ""
        return SPRINT_METERS, f"a Sprint ({SPRINT_AP} AP) with one positive Hit"

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        """round-budget, move-free, difficult: a piece of the round's Movement, paid in meters only."""
        f = self.actor(b.state, cmd.fighter, self.rule("passes"))
        cells = self.cells(b.state, f, cmd.path)
        sprinted = int(f.marks.get(SPRINTS, {}).get("meters", 0))
        # hold: a held action waiting for this fighter to start moving interrupts before its first step.
        self.fire(b, Happened("starts-move", f.id), dice)
        start = len(b.events)
        walk(
            b,
            _Walking(self, b.state, dice),
            f.id,
            cells,
            budget=self.meters_left(f),
            budget_rule=self.rule("round-budget"),
            rules=(self.rule("round-budget"), self.rule("move-free")),
            what=f"{f.id}'s move (round {b.state.turn.round}: Movement {fmt(self.stat(f, 'movement'))} m"
            + (f" + {fmt(sprinted)} m sprinted" if sprinted else "")
            + ", spent meters stay spent until the next round)",
            dice=dice,
            # round-budget: "This distance may be divided across any of their turns": dividing it
            # never changes its price, so an alternating count of diagonals runs on all round.
            carry_diagonals=True,
        )
        self.explain_moves(b, start, f.id)

    def explain_moves(self, b: Batch, start: int, fighter_id: str) -> None:
        """Say on each Moved what it cost, what is left of the round, and that no AP was paid."""
        for i in range(start, len(b.events)):
            e = b.events[i]
            if not isinstance(e, ev.Moved) or e.fighter != fighter_id or e.note:
                continue
            cost = sum(s.cost for s in e.steps)
            rough = [show(s.to) for s in e.steps if self.difficult(b.state, s.to)]
            note = (
                f"{fmt(cost)} m of this round's Movement ({fmt(e.budget)} → {fmt(e.budget - cost)} m left); "
                "no AP: normal movement is free"
            )
            if rough:
                note += f"; difficult terrain at {' '.join(rough)} costs 2 m a meter"
            b.events[i] = replace(e, note=note)

    def difficult(self, state: EncounterState, cell: XY | Pos) -> bool:
        return any(state.grid.has(cell[0], cell[1], tag) for tag in DIFFICULT_TAGS)

    def cells(self, state: EncounterState, f: Fighter, path: tuple[tuple[int, ...], ...]) -> list[XY]:
        return path_cells(state, f, path, self.rule("round-budget"))


class _Walking:
    """How a step is priced under round-meters: the diagonal rule, doubled on difficult terrain."""

    def __init__(self, rs: RoundMeters, state: EncounterState, dice: Dice | None = None) -> None:
        self.rs = rs
        self.unit = rs.unit
        self.grid = state.grid
        self.dice = dice  # a real move's: a held action it sets off may roll (the reachable area has none)

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        grid = state.grid
        if grid.blocked(*to):
            raise Refusal(
                self.rs.rule("round-budget"),
                f"{show(to)} is {grid.kind(*to).terrain}: a circumstance no move can pass",
            )
        # difficult: "Each meter moved through Difficult Terrain costs 2 meters of Movement."
        factor = DIFFICULT_FACTOR if self.rs.difficult(state, to) else 1
        return flat_step(grid, frm, to, parity, diagonal=state.settings["diagonal"], terrain_factor=factor)

    def table_key(self, state: EncounterState, f: Fighter) -> Hashable:
        """What a price reads besides the map (core/step_table.py): the diagonal rule."""
        return state.settings["diagonal"]

    def cites(self, step: Step) -> tuple[str, ...]:
        """walk adds these to the Moved event: difficult, when this step paid double."""
        x, y = step.to[0], step.to[1]
        return (self.rs.rule("difficult"),) if any(self.grid.has(x, y, t) for t in DIFFICULT_TAGS) else ()

    def test_modifier(self, state: EncounterState, fighter_id: str) -> tuple[int, str, tuple[str, ...]]:
        """sprint: a test the GM requires on a cell carries the sprint penalty too, and cites it."""
        f = state.fighter(fighter_id)
        pen = self.rs.penalty(f) if f is not None else 0
        if not pen:
            return 0, "", ()
        return pen, f"sprint penalty {pen} this round", (self.rs.rule("sprint"),)

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        """A cell some held action watches: the walk pauses there so the held action can interrupt."""
        return bool(self.rs.watching(state, Happened("enters", f.id, (step.to[0], step.to[1]))))

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        assert self.dice is not None
        self.rs.fire(b, Happened("enters", fighter_id, (step.to[0], step.to[1])), self.dice)
        return ""  # the held action does not stop the move by itself

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        end_alone(state, f, self.rs.rule("round-budget"))
