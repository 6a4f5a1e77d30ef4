"""How a character's own steps are priced (walk, crawl, zero-g-crawl), below the parts using it.

`Stepping` is the step policy of a character moving on its own: walking.py's part
hands it out, the ruleset's `mover` returns it, invade's `travel` walks with it and
the parts' view of the ruleset (hooks.py: `ApRules`) names it. It reads invade's
ban on a second attempt, so that mark and `occupants` live here too, under both
walking.py and invasion.py: the package's imports run one way.
"""

from __future__ import annotations

from collections.abc import Hashable

from tabletrail.core.rulesets.ap_squares.zero_g_base import (
    GROUNDED,
    gravity,
    is_object,
    regain_gravity,
    stable_around,
    weightless,
)
from tabletrail.ruleset_api import (
    XY,
    Batch,
    EncounterState,
    Fighter,
    Pos,
    Refusal,
    Ruleset,
    Step,
    flat_step,
    require,
    show,
)

# The document's numbers, in whole AP.
WALK_AP = 1  # walk: a square walked
CRAWL_AP = 2  # crawl and zero-g-crawl: a square crawled

BLOCKED = "blocked"  # Marked on an invader: squares it was blocked from this cycle, [[x, y], ...]


def occupants(state: EncounterState, cell: XY, fighter_id: str) -> list[Fighter]:
    """The characters (not loose objects) in a square, other than `fighter_id`."""
    return [o for o in state.at(cell[0], cell[1]) if o.id != fighter_id and not is_object(o)]


class Stepping:
    """How a character's own steps are priced: walk (1 AP), crawl or zero-g crawl (2 AP) a square."""

    def __init__(self, rs: Ruleset, mode: str, rule: str, per_square: int) -> None:
        self.rs = rs
        self.mode = mode
        self.rule = rule
        self.per_square = per_square
        self.unit = "AP"
        self.resume = 0  # diagonals already taken by the move this walk resumes (an invasion's wait)

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        grid, rs = state.grid, self.rs
        if self.resume:  # the first step only: walk carries the parity on from there
            parity, self.resume = parity + self.resume, 0
        x, y = to
        require(grid.inside(x, y), self.rule, f"{show(to)} is off the {grid.width}x{grid.height} map")
        require(
            not grid.blocked(x, y) and not grid.has(x, y, "solid"),
            self.rule,
            f"{show(to)} is {grid.kind(x, y).terrain}: walls and solid objects can't be entered",
        )
        loose = [o.id for o in state.at(x, y) if o.id != f.id and is_object(o)]
        require(not loose, self.rule, f"the loose object {', '.join(loose)} fills {show(to)}")
        afloat = to in weightless(state)
        if self.mode == "zero-g crawl":
            # zero-g-crawl: any direction, as long as the square touches a stable solid object.
            require(
                not afloat or bool(stable_around(grid, to)),
                self.rule,
                f"{show(to)} touches no stable solid object: a zero-gravity crawl keeps next to one",
            )
        else:
            require(
                not afloat,
                rs.rule("zero-g-crawl"),
                f"{show(to)} is weightless: nobody walks or crawls on the floor there; in zero gravity one "
                "crawls along stable objects, drifts or pushes off",
            )
        # invade: a blocked invader may not try the same square again this cycle.
        blocked = {(c[0], c[1]) for c in f.marks.get(BLOCKED, ())}
        if to in blocked and occupants(state, to, f.id):
            raise Refusal(
                rs.rule("invade"),
                f"{f.id} was body-blocked out of {show(to)} earlier this cycle (cycle {state.turn.round}): "
                "no second attempt until the next cycle",
            )
        return flat_step(
            grid,
            frm,
            to,
            parity,
            diagonal=state.settings["diagonal"],
            version=state.rules_version,
            terrain_factor=self.per_square,
            mode=self.mode,
        )

    def table_key(self, state: EncounterState, f: Fighter) -> Hashable | None:
        """What a price reads besides the map and the target square's occupants (core/search/step_table.py).

        A walker resuming an invasion's move starts at another parity: its prices are not kept.
        """
        if self.resume:
            return None
        return state.settings["diagonal"], self.mode, self.rule, self.per_square, weightless(state)

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        """An occupied square (an invasion), or a zero-g crawl reaching a square with gravity."""
        cell = (step.to[0], step.to[1])
        if occupants(state, cell, f.id):
            return True
        return self.mode == "zero-g crawl" and cell not in weightless(state)

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        cell = (step.to[0], step.to[1])
        f = b.state.fighter(fighter_id)
        assert f is not None
        if self.mode == "zero-g crawl" and cell not in weightless(b.state) and gravity(f) != GROUNDED:
            regain_gravity(self.rs, b, fighter_id, self.rule, f"{fighter_id} crawls out onto {show(cell)}")
            return f"back under gravity at {show(cell)}: the crawl ends"
        return ""

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        """invade: two characters may share a square, so any square reached may be the end."""

    def cites(self, step: Step) -> tuple[str, ...]:
        return (self.rule,)
