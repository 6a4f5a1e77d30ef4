"""round-meters walking: the round's Movement, spent in pieces (round-budget, move-free, difficult).

Meters moved stay spent until the next round, cost no AP, and count double
on difficult terrain; the GM's rulings on difficult cells stand only where the
table allows them. `Walking`, a part of `RoundMeters`, moves a fighter;
`_Walking` prices the steps and pauses on a cell a held action watches.
"""

from __future__ import annotations

from collections.abc import Hashable

from msgspec.structs import replace
from tabletrail.core.rulesets.round_meters.marks import DIFFICULT_FACTOR, DIFFICULT_TAGS, SPRINTS
from tabletrail.core.rulesets.round_meters.part import Happened, RoundPart
from tabletrail.ruleset_api import (
    FORBID,
    TEST,
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
    exact_length,
    flat_step,
    fmt,
    handles,
    path_cells,
    root2_cu,
    rounded,
    show,
    walk,
)
from tabletrail.ruleset_api import events as ev


class Walking(RoundPart):
    """A move: a piece of the round's Movement, paid in meters only."""

    def walker(self, state: EncounterState, f: Fighter) -> _Walking:
        return _Walking(self, state)

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        return max(0, self.rs.meters_left(f))

    def settle(self, b: Batch, dice: Dice) -> None:
        """difficult: the GM's test and forbid rulings on cells only where the table allows them."""
        if b.state.settings.get("difficult_rulings") != "cost-only":
            return
        for e in b.events:
            if isinstance(e, ev.BoardMarked) and e.key in (FORBID, TEST):
                before = [list(x) for x in b.start.marks.get(e.key, ())]
                if any(list(x) not in before for x in e.value or ()):
                    raise Refusal(
                        self.rule("difficult"),
                        "this table plays difficult terrain by its cost alone (difficult_rulings = "
                        "'cost-only'): no GM test or forbid rulings on cells",
                    )

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        """round-budget, move-free, difficult: a piece of the round's Movement, paid in meters only."""
        f = self.rs.actor(b.state, cmd.fighter, self.rule("passes"))
        cells = self.cells(b.state, f, cmd.path)
        sprinted = int(f.marks.get(SPRINTS, {}).get("meters", 0))
        # hold: a held action waiting for this fighter to start moving interrupts before its first step.
        self.rs.fire(b, Happened("starts-move", f.id), dice)
        start = len(b.events)
        walk(
            b,
            _Walking(self, b.state, dice),
            f.id,
            cells,
            budget=self.rs.meters_left(f),
            budget_rule=self.rule("round-budget"),
            rules=(self.rule("round-budget"), self.rule("move-free")),
            what=f"{f.id}'s move (round {b.state.turn.round}: "
            f"Movement {fmt(self.rs.stat(f, 'movement'))} m"
            + (f" + {fmt(sprinted)} m sprinted" if sprinted else "")
            + ", spent meters stay spent until the next round)",
            dice=dice,
            # round-budget: "This distance may be divided across any of their turns": dividing it
            # never changes its price, so an alternating count of diagonals runs on all round.
            carry_diagonals=True,
        )
        self.explain_moves(b, start, f.id)

    def explain_moves(self, b: Batch, start: int, fighter_id: str) -> None:
        """Say on each Moved what it cost, what is left of the round, and that no AP was paid.

        round-budget: the meters moved and the round's Movement (Sprints included) are said as the
        document counts them. Lengths are exact (diagonal=euclidean: a diagonal is √2) and rounded
        once: what is left after a move is the exact remainder rounded, as the next move is held
        against it, and the meters moved are the Movement less that remainder."""
        allowed = self.rs.allowed(b.state, self.rs.fighter(b.state, fighter_id), "movement") or 0
        after = b.state.root2(fighter_id, "movement")  # the √2 part spent once every move is made
        moves = [
            i
            for i, e in enumerate(b.events[start:], start)
            if isinstance(e, ev.Moved) and e.fighter == fighter_id
        ]
        for i in reversed(moves):
            e = b.events[i]
            assert isinstance(e, ev.Moved)
            whole, root2 = exact_length(e.steps)
            before, after = after - root2, after - root2
            if e.note:
                continue
            cost = rounded(whole, root2)
            left = rounded(e.budget + root2_cu(before) - whole, -before - root2)
            rough = [show(s.to) for s in e.steps if self.difficult(b.state, s.to)]
            note = (
                f"{fmt(cost)} m of this round's Movement ({fmt(allowed - left)} m moved of {fmt(allowed)} m "
                f"this round, {fmt(left)} m left); no AP: normal movement is free"
            )
            if rough:
                note += f"; difficult terrain at {' '.join(rough)} costs 2 m a meter"
            b.events[i] = replace(e, note=note)

    def not_through_enemies(self, state: EncounterState, f: Fighter, cell: XY) -> None:
        """round-budget: the document is silent on others in the way; anyone may be passed unless the
        table rules that enemies block (fighters_in_the_way = enemies-block)."""
        if state.settings["fighters_in_the_way"] != "enemies-block":
            return
        foes = [o.id for o in state.at(cell[0], cell[1]) if o.side != f.side]
        if foes:
            raise Refusal(
                self.rule("round-budget"),
                f"{show(cell)} is held by {', '.join(foes)}, an enemy of {f.id}: this table's moves never "
                "pass an enemy (fighters_in_the_way = enemies-block)",
            )

    def difficult(self, state: EncounterState, cell: XY | Pos) -> bool:
        return any(state.grid.has(cell[0], cell[1], tag) for tag in DIFFICULT_TAGS)

    def cells(self, state: EncounterState, f: Fighter, path: tuple[tuple[int, ...], ...]) -> list[XY]:
        return path_cells(state, f, path, self.rule("round-budget"))


class _Walking:
    """How a step is priced under round-meters: the diagonal rule, doubled on difficult terrain."""

    def __init__(self, part: Walking, state: EncounterState, dice: Dice | None = None) -> None:
        self.part = part
        self.rs = part.rs
        self.unit = part.rs.unit
        self.grid = state.grid
        self.dice = dice  # a real move's: a held action it sets off may roll (the reachable area has none)

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        grid = state.grid
        if grid.blocked(*to):
            raise Refusal(
                self.rs.rule("round-budget"),
                f"{show(to)} is {grid.kind(*to).terrain}: a circumstance no move can pass",
            )
        self.part.not_through_enemies(state, f, to)
        # difficult: "Each meter moved through Difficult Terrain costs 2 meters of Movement."
        factor = DIFFICULT_FACTOR if self.part.difficult(state, to) else 1
        return flat_step(
            grid,
            frm,
            to,
            parity,
            diagonal=state.settings["diagonal"],
            version=state.rules_version,
            terrain_factor=factor,
        )

    def table_key(self, state: EncounterState, f: Fighter) -> Hashable:
        """What a price reads besides the map (core/search/step_table.py): the diagonal rule, and who may
        be passed (a step into an occupied cell is priced for its occupants, not for this setting)."""
        return state.settings["diagonal"], state.settings["fighters_in_the_way"]

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
        """round-budget: no move ends on another fighter, whatever fighters_in_the_way says of
        passing them; the refusal names the ruling in force."""
        try:
            end_alone(state, f, self.rs.rule("round-budget"))
        except Refusal as no:
            how = state.settings["fighters_in_the_way"]
            passed = "others may be passed" if how == "pass-anyone" else "friends may be passed"
            raise Refusal(
                no.rule, f"{no.reason} ({passed}, never ended on: fighters_in_the_way = {how})"
            ) from None
