"""initiative-yards engagement: engaging, who may move while engaged, resolving.

Entering an enemy's Reach engages both (engage); while engaged only Strike,
Command and Manifest are allowed (engaged-actions); engagement ends only by
resolving a combat, and a standing fighter engaged only with prone ones moves
away freely (engage-break). `Engagement` is that family as a part; the other
families reach `arrived` and `mover` through the ruleset, and read Reach
with board.py's functions.
"""

from __future__ import annotations

from tabletrail.core.rulesets.initiative_yards.board import (
    ENGAGED,
    OBJECT,
    STRIKING,
    breaking_away,
    clearance,
    newly_in_reach,
)
from tabletrail.core.rulesets.initiative_yards.part import YardsPart
from tabletrail.events.commands.initiative_yards import Resolve
from tabletrail.ruleset_api import (
    Batch,
    Dice,
    Fighter,
    Pos,
    Refusal,
    fmt,
    handles,
    require,
    show,
)
from tabletrail.ruleset_api import events as ev


class Engagement(YardsPart):
    """Reach and engagement: engaging on arrival, what being engaged allows, resolving a Strike."""

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """engage-break: a Strike is resolved before its striker's next turn, or it lapses."""
        f = b.state.fighter(fighter_id)
        assert f is not None
        if STRIKING in f.marks:
            self.rs.unmark(
                b,
                f,
                STRIKING,
                self.rule("engage-break"),
                f"the Strike at {f.marks[STRIKING]} was never resolved: it lapses",
            )

    # --- engaging and breaking away ------------------------------------------------

    def arrived(self, b: Batch, fighter_id: str, frm: Pos) -> str:
        """engage: wherever a fighter arrives, by a step, a fall, a jump's landing or set down by a drag.

        "If a fighter moves into the Reach of an enemy, or an enemy becomes within their Reaching
        during a move; both fighters become engaged! … Prone fighters become engaged as normal."
        Enemies within Reach now and not from `frm`, where it came from, engage it. Returns why a
        move ends there ("" if none engaged).
        """
        f = b.state.fighter(fighter_id)
        assert f is not None
        for o in breaking_away(b.state, f, f.pos):
            self.unlink(
                b,
                f.id,
                o.id,
                "break_away",
                self.rule("engage-break"),
                f"{f.id} is standing and {o.id} is prone: {f.id} leaves its Reach at {show(f.pos)} and "
                "breaks away freely",
            )
        f = b.state.fighter(fighter_id)
        assert f is not None
        foes = newly_in_reach(b.state, f, frm, f.pos)
        if not foes:
            return ""
        self.engage(b, f, foes)
        return f"engaged with {', '.join(o.id for o, _, _ in foes)}: the move ends here"

    def engage(self, b: Batch, f: Fighter, foes: list[tuple[Fighter, int, int]]) -> None:
        """engage: link the pair and put both in the ENGAGEMENT graph's engaged state."""
        rule = self.rule("engage")
        for other, d, r in foes:
            a, c = sorted((f.id, other.id))
            why = (
                f"{f.id} at {show(b.state.fighter(f.id).pos)} is {fmt(d)} yd from {other.id}, "  # type: ignore[union-attr]
                f"within a Reach of {fmt(r)} yd: both are engaged"
            )
            b.emit(ev.Linked(kind=ENGAGED, a=a, b=c, rules=(rule,), note=why))
            for fid in (f.id, other.id):
                who = b.state.fighter(fid)
                assert who is not None
                if who.state("engagement", "free") == "free":
                    self.rs.change(b, who, "engagement", "engage", rule, note=why)

    def unlink(self, b: Batch, one: str, two: str, trigger: str, rule: str, note: str) -> None:
        """End one engaged pair; a fighter with no engagement left is free again."""
        a, c = sorted((one, two))
        b.emit(ev.Unlinked(kind=ENGAGED, a=a, b=c, rules=(rule,), note=note))
        for fid in (one, two):
            if not b.state.linked(ENGAGED, fid):
                who = b.state.fighter(fid)
                assert who is not None
                self.rs.change(b, who, "engagement", trigger, rule, note=note)

    # --- who may move --------------------------------------------------------------

    def mover(self, b: Batch, fighter_id: str, what: str) -> tuple[Fighter, tuple[Fighter, ...]]:
        """The acting fighter, cleared to move; also the foes it must stay within Reach of."""
        f = self.rs.acting(b.state, fighter_id)
        require(OBJECT not in f.tags, self.rule("move"), f"{f.id} is a movable object: it is only dragged")
        how, foes = clearance(b.state, f)
        if how == "break":
            # engage-break: free to move; the engagement breaks where the move leaves the prone
            # foe's Reach (arrived), not before.
            return f, ()
        if how == "held":
            upright = [o.id for o in foes if o.state("posture", "standing") != "prone"]
            why = (
                f"{f.id} is prone"
                if f.state("posture", "standing") == "prone"
                else f"{', '.join(upright)} {'is' if len(upright) == 1 else 'are'} not prone"
            )
            raise Refusal(
                self.rule("engaged-actions"),
                f"{f.id} is engaged with {', '.join(o.id for o in foes)}: while engaged only Strike, "
                f"Command and Manifest are allowed, so {what} is refused; a combat must be resolved "
                f"first ({why}, so {self.rule('engage-break')} does not free it)",
            )
        return f, tuple(foes) if how == "tether" else ()

    # --- resolving a combat --------------------------------------------------------

    @handles(Resolve)
    def resolve(self, b: Batch, cmd: Resolve, dice: Dice) -> None:
        rule = self.rule("engage-break")
        f = self.rs.fighter(b.state, cmd.fighter)
        target = self.rs.fighter(b.state, cmd.target)
        require(
            target.id in b.state.linked(ENGAGED, f.id),
            rule,
            f"{f.id} and {target.id} are not engaged: there is no combat between them to resolve",
        )
        require(
            f.marks.get(STRIKING) == target.id,
            rule,
            f"engagement ends only by resolving a combat, and {f.id} has made no Strike at {target.id} "
            f"to resolve (act {f.id} strike target={target.id})",
        )
        outcome = cmd.outcome.strip()
        require(bool(outcome), rule, "say what the Strike's outcome was (outcome=...)")
        require(cmd.damage >= 0, rule, f"damage must not be negative, got {cmd.damage}")
        note = f"the table resolved {f.id}'s Strike at {target.id}: {outcome}"
        b.emit(ev.Unmarked(fighter=f.id, key=STRIKING, rules=(rule,), note=note))
        if cmd.damage:
            b.emit(ev.Damaged(fighter=target.id, amount=cmd.damage, cause="strike", rules=(rule,), note=note))
        self.unlink(b, f.id, target.id, "resolve", rule, note + "; their engagement ends")
