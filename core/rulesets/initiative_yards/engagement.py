"""initiative-yards engagement: Reach, engaging, who may move while engaged, resolving.

Entering an enemy's Reach engages both (engage); while engaged only Strike,
Command and Manifest are allowed (engaged-actions); engagement ends only by
resolving a combat, and a standing fighter engaged only with prone ones moves
away freely (engage-break). `Engagement` lives here only to keep the ruleset
readable; `InitiativeYards` inherits it.
"""

from __future__ import annotations

from tabletrail.core.rulesets.initiative_yards.shared import ENGAGED, OBJECT, STRIKING, Shared, hostile
from tabletrail.events.commands.initiative_yards import Resolve
from tabletrail.ruleset_api import (
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Pos,
    Refusal,
    distance,
    fmt,
    handles,
    reach_blocked,
    require,
    show,
)
from tabletrail.ruleset_api import events as ev


class Engagement(Shared):
    """Reach and engagement: who is engaged with whom, and what that allows."""

    # --- reading the board ---------------------------------------------------------

    def reach_of(self, f: Fighter) -> int:
        return 0 if OBJECT in f.tags else self.stat(f, "reach")

    def engaged_with(self, state: EncounterState, fighter_id: str) -> list[Fighter]:
        return [state.fighter(o) for o in state.linked(ENGAGED, fighter_id)]  # type: ignore[misc]

    def within_reach(
        self, state: EncounterState, f: Fighter, at: Pos, other: Fighter
    ) -> tuple[bool, int, int]:
        """Is `other` within Reach of `f` standing at `at` (either one's Reach counts)?

        Returns (inside, horizontal distance, the Reach that counts). Height counts too:
        a foe more than a Reach above or below is out of it.
        """
        d = distance(state.settings["diagonal"], at, other.pos)
        r = max(self.reach_of(f), self.reach_of(other))
        inside = d <= r and abs(at[2] - other.pos[2]) <= r
        return inside and not reach_blocked(state, at, other.pos), d, r

    def newly_in_reach(
        self, state: EncounterState, f: Fighter, frm: Pos, to: Pos
    ) -> list[tuple[Fighter, int, int]]:
        """Enemies a step from `frm` to `to` brings within Reach (engage)."""
        out = []
        linked = set(state.linked(ENGAGED, f.id))
        for other in state.fighters:
            if not hostile(f, other) or other.id in linked:
                continue
            inside, d, r = self.within_reach(state, f, to, other)
            if inside and not self.within_reach(state, f, frm, other)[0]:
                out.append((other, d, r))
        return out

    # --- engaging and breaking away ------------------------------------------------

    def breaking_away(self, state: EncounterState, f: Fighter, at: Pos) -> list[Fighter]:
        """engage-break: the prone foes a standing fighter, engaged with them, is out of the Reach of at `at`.

        "fighters that are engaged with a prone fighter and not prone themselves can freely break the
        engagement during movements": the engagement is broken where the move leaves that Reach; a
        move that stays within it breaks nothing.
        """
        if f.state("posture", "standing") == "prone":
            return []
        return [
            o
            for o in self.engaged_with(state, f.id)
            if o.state("posture", "standing") == "prone" and not self.within_reach(state, f, at, o)[0]
        ]

    def arrived(self, b: Batch, fighter_id: str, frm: Pos) -> str:
        """engage: wherever a fighter arrives, by a step, a fall, a jump's landing or set down by a drag.

        "If a fighter moves into the Reach of an enemy, or an enemy becomes within their Reaching
        during a move; both fighters become engaged! … Prone fighters become engaged as normal."
        Enemies within Reach now and not from `frm`, where it came from, engage it. Returns why a
        move ends there ("" if none engaged).
        """
        f = b.state.fighter(fighter_id)
        assert f is not None
        for o in self.breaking_away(b.state, f, f.pos):
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
        foes = self.newly_in_reach(b.state, f, frm, f.pos)
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
                    self.change(b, who, "engagement", "engage", rule, note=why)

    def unlink(self, b: Batch, one: str, two: str, trigger: str, rule: str, note: str) -> None:
        """End one engaged pair; a fighter with no engagement left is free again."""
        a, c = sorted((one, two))
        b.emit(ev.Unlinked(kind=ENGAGED, a=a, b=c, rules=(rule,), note=note))
        for fid in (one, two):
            if not b.state.linked(ENGAGED, fid):
                who = b.state.fighter(fid)
                assert who is not None
                self.change(b, who, "engagement", trigger, rule, note=note)

    # --- who may move --------------------------------------------------------------

    def clearance(self, state: EncounterState, f: Fighter) -> tuple[str, list[Fighter]]:
        """May this fighter move, engaged as it is? Returns how, and the foes it is engaged with.

        "free": not engaged. engage-break: "break", a standing fighter engaged only with
        prone fighters breaks away as it moves. engaged-actions: "tether", the
        engaged_move setting lets it shift within their Reach; "held", Move is refused.
        """
        foes = self.engaged_with(state, f.id)
        if not foes:
            return "free", foes
        standing = f.state("posture", "standing") == "standing"
        if standing and all(o.state("posture", "standing") == "prone" for o in foes):
            return "break", foes
        return ("tether" if state.settings["engaged_move"] == "within-reach" else "held"), foes

    def mover(self, b: Batch, fighter_id: str, what: str) -> tuple[Fighter, tuple[Fighter, ...]]:
        """The acting fighter, cleared to move; also the foes it must stay within Reach of."""
        f = self.acting(b.state, fighter_id)
        require(OBJECT not in f.tags, self.rule("move"), f"{f.id} is a movable object: it is only dragged")
        how, foes = self.clearance(b.state, f)
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
        f = self.fighter(b.state, cmd.fighter)
        target = self.fighter(b.state, cmd.target)
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
