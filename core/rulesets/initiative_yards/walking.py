"""initiative-yards walking: the move action and the ground it crosses.

Moving up to Initiative yards (move), crawling while prone (crawl), walking
up and down stairs and ladders (climb) and slippery or unstable ground
(slippery), priced by walk.py's `Walk`; `Walking.go` walks the steps on what is left
of the move action, for every other kind of move too (jumps and dragging reach
it through the ruleset, and price with `Walk` too). Dropping prone and standing up
with the movement (prone-drop, prone-stand) are the ruleset's `after_posture`.
"""

from __future__ import annotations

from msgspec.structs import replace
from tabletrail.core.rulesets.initiative_yards.board import (
    DRAGGING,
    FELL,
    OBJECT,
    clearance,
)
from tabletrail.core.rulesets.initiative_yards.part import YardsPart
from tabletrail.core.rulesets.initiative_yards.walk import Walk
from tabletrail.ruleset_api import (
    XY,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Move,
    fmt,
    handles,
    path_cells,
    require,
    show,
    walk,
)
from tabletrail.ruleset_api import events as ev


class Walking(YardsPart):
    """The move action: walking, crawling, climbing stairs and ladders, and the ground underfoot."""

    # --- the reachable area --------------------------------------------------------

    def walker(self, state: EncounterState, f: Fighter) -> Walk | None:
        if OBJECT in f.tags:
            return None
        how, foes = clearance(state, f)
        if how == "held":
            return None
        return Walk(self.rs, None, tether=tuple(foes) if how == "tether" else ())

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        return self.rs.left(state, f)

    # --- moving ----------------------------------------------------------------------

    def go(
        self,
        b: Batch,
        f: Fighter,
        policy: Walk,
        cells: list[XY],
        dice: Dice,
        *,
        rule: str,
        what: str,
    ) -> str:
        """Walk the cells on what is left of this turn's move action; returns why it stopped early."""
        left = self.rs.left(b.state, f)
        require(
            left > 0 or FELL not in f.marks,
            self.rule("fall"),
            f"{f.id} fell at {show(tuple(f.marks.get(FELL) or (0, 0)))} and lost the rest of its movement "
            "this turn (fall_rest = lost: a fall ends the move action)",
        )
        require(
            left > 0,
            rule,
            f"{f.id} has no movement left this turn: {fmt(f.used('movement'))} of "
            f"{fmt(self.rs.max_move(b.state, f))} yd spent",
        )
        cited = {self.rule("move"), rule}
        if f.state("posture", "standing") == "prone":
            cited.add(self.rule("crawl"))
        if DRAGGING in f.marks:
            cited.add(self.rule("drag"))
        if policy.tether:
            cited.add(self.rule("engaged-actions"))
        first = len(b.events)
        _, stopped = walk(
            b,
            policy,
            f.id,
            cells,
            budget=left,
            budget_rule=rule,
            rules=tuple(sorted(cited)),
            what=what,
            dice=dice,
            carry_diagonals=True,  # move: one move action, however many commands share it
        )
        # climb: a move that climbed stairs or a ladder cites the rule that priced it.
        for i in range(first, len(b.events)):
            e = b.events[i]
            if isinstance(e, ev.Moved) and any("climb" in s.mode for s in e.steps):
                b.events[i] = replace(e, rules=tuple(sorted({*e.rules, self.rule("climb")})))
        return stopped

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        f, tether = self.rs.mover(b, cmd.fighter, "a move")
        cells = path_cells(b.state, f, cmd.path, self.rule("move"))
        prone = f.state("posture", "standing") == "prone"
        rule = self.rule("drag") if DRAGGING in f.marks else self.rule("crawl" if prone else "move")
        self.go(
            b,
            f,
            Walk(self.rs, dice, tether=tether),
            cells,
            dice,
            rule=rule,
            what="the crawl" if prone else "the move",
        )
