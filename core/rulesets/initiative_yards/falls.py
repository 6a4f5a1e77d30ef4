"""initiative-yards falling: straight down, prone, 1 damage per whole yard past own height (fall).

A failed jump-and-pull, a missed leap and a step off an edge end in `fall_down`, which the
other families reach through the ruleset. `Falls` is that family as a part of the ruleset.
"""

from __future__ import annotations

from tabletrail.core.rulesets.initiative_yards.board import FELL
from tabletrail.core.rulesets.initiative_yards.part import YardsPart
from tabletrail.ruleset_api import CU, XY, Batch, Pos, fall, fmt, show
from tabletrail.ruleset_api import events as ev


def fall_damage(fallen: int, height: int) -> int:
    """fall: one point for every whole yard fallen past the faller's own height."""
    return max(0, fallen - height) // CU


class Falls(YardsPart):
    """What a fall costs: the faller lands prone and takes damage past its own height."""

    def fall_down(
        self,
        b: Batch,
        fighter_id: str,
        cell: XY,
        from_z: int,
        cause: str,
        note: str,
        frm: Pos | None = None,
        said: str = "",
    ) -> str:
        """fall: straight down onto `cell`, prone, 1 damage per whole yard past own height.

        engage: landing within an enemy's Reach engages, as any arrival does (`frm`: where the
        faller came from, by default where it stands as it falls). Returns why a move ends:
        `said` (what made it fall), then the engagement, if any.
        """
        rules = tuple(dict.fromkeys((self.rule(cause), self.rule("fall"))))
        came = b.state.fighter(fighter_id)
        assert came is not None
        frm = frm or came.pos
        fallen = fall(b, fighter_id, cell, rules=rules, note=note, from_z=from_z)
        f = b.state.fighter(fighter_id)
        assert f is not None
        height = self.rs.stat(f, "height")
        damage = fall_damage(fallen, height)
        if damage:
            b.emit(
                ev.Damaged(
                    fighter=fighter_id,
                    amount=damage,
                    cause="fall",
                    rules=(self.rule("fall"),),
                    note=f"fell {fmt(fallen)} yd, {fmt(fallen - height)} yd past own height "
                    f"{fmt(height)} yd: {damage} damage (1 per whole yard)",
                )
            )
        self.rest_after_fall(b, fighter_id, cell)
        return "; ".join(x for x in (said, self.rs.arrived(b, fighter_id, frm)) if x)

    def rest_after_fall(self, b: Batch, fighter_id: str, cell: XY) -> None:
        """fall: "falls strait down and drops prone", and no more: unlike slippery ground, the text
        never takes the rest of the movement, so by default the faller keeps it, to crawl on with
        (setting fall_rest = keep); a table that rules it lost sets fall_rest = lost."""
        if b.state.settings["fall_rest"] != "lost":
            return
        f = self.rs.fighter(b.state, fighter_id)
        lost = self.rs.left(b.state, f)
        if not lost:
            return
        rule = self.rule("fall")
        b.emit(
            ev.Spent(
                fighter=fighter_id,
                resource="movement",
                amount=lost,
                rules=(rule,),
                note=f"the fall ends the move action: the rest of the movement, {fmt(lost)} yd, is lost "
                "(fall_rest = lost)",
            )
        )
        b.emit(
            ev.Marked(
                fighter=fighter_id,
                key=FELL,
                value=[cell[0], cell[1]],
                rules=(rule,),
                note=f"{fighter_id} fell at {show(cell)}: no more movement this turn (fall_rest = lost)",
            )
        )
