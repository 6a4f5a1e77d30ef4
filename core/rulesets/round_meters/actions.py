"""round-meters actions: an action pays its AP from the round's pool (passes).

The table's actions and their AP are the action_costs setting (`parse_costs`
reads it). `Actions`, a part of `RoundMeters`, takes one (`take-action`) and
records every action taken, a Sprint's and a held one's too (`act`, which the
ruleset offers the other families), after the held actions it triggers.
"""

from __future__ import annotations

from tabletrail.core.rulesets.round_meters.marks import ACTION
from tabletrail.core.rulesets.round_meters.part import Happened, RoundPart
from tabletrail.events.commands.round_meters import TakeAction
from tabletrail.ruleset_api import Batch, Dice, handles, require
from tabletrail.ruleset_api import events as ev


def parse_costs(text: str) -> dict[str, int]:
    """'shoot:2,reload:1' -> {'shoot': 2, 'reload': 1}; ValueError says what is wrong."""
    costs: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        kind, sep, ap = part.partition(":")
        kind = kind.strip()
        if not sep or not kind or " " in kind:
            raise ValueError(f"{part!r} is not KIND:AP (e.g. shoot:2)")
        if kind == "sprint":
            raise ValueError("sprint is the document's own action (1 AP); it can't be priced here")
        if not ap.strip().isdigit():
            raise ValueError(f"{part!r}: the AP of {kind} must be a whole number, got {ap.strip()!r}")
        costs[kind] = int(ap)
    return costs


class Actions(RoundPart):
    """Taking an action: its AP, its record, and the held actions waiting for it."""

    def act(
        self,
        b: Batch,
        dice: Dice,
        fighter_id: str,
        kind: str,
        target: str,
        ap: int,
        rule: str,
        note: str,
        *,
        held: bool = False,
    ) -> None:
        """Record one action: held triggers on it resolve first, then its AP (unless paid by a hold)."""
        self.rs.fire(b, Happened("takes-action", fighter_id, action=kind), dice)
        if not held:
            b.emit(ev.Spent(fighter=fighter_id, resource="ap", amount=ap, rules=(rule,), note=note))
        t = b.state.turn
        f = b.state.fighter(fighter_id)
        # hold, passes: a held action going off in the holder's own turn (after the hold, this turn's
        # action) must not make that turn one "without taking an action": keep that it acted.
        acted = held and f is not None and t.active == fighter_id and self.rs.acted(b.state, f)
        b.emit(
            ev.Marked(
                fighter=fighter_id,
                key=ACTION,
                value={
                    "kind": kind,
                    "target": target,
                    "ap": ap,
                    "round": t.round,
                    "pass": t.pass_no,
                    "held": held,
                    **({"turn_acted": True} if acted else {}),
                },
                rules=(rule,),
                note=note
                if held
                else f"{fighter_id} takes the action {kind}" + (f" at {target}" if target else ""),
            )
        )

    @handles(TakeAction)
    def take_action(self, b: Batch, cmd: TakeAction, dice: Dice) -> None:
        """passes: an action pays its AP from the round's pool; its test carries any sprint penalty."""
        rs = self.rs
        rule = self.rule("passes")
        f = rs.actor(b.state, cmd.fighter, rule)
        costs = rs.costs(b.state)
        require(
            cmd.kind in costs,
            rule,
            f"{cmd.kind!r} is not an action of this table (action_costs: {rs.priced(costs)}; "
            "a Sprint is the sprint command)",
        )
        cost, left = costs[cmd.kind], rs.ap_left(f)
        require(
            left >= cost,
            rule,
            f"{f.id} has {left} of {rs.ap(f)} AP left this round; {cmd.kind} costs {cost} AP",
        )
        target = rs.aim(b.state, cmd.target, rule) if cmd.target else ""
        self.act(
            b,
            dice,
            f.id,
            cmd.kind,
            target,
            cost,
            rule,
            f"{cmd.kind}" + (f" at {target}" if target else "") + f": {cost} AP ({left} → {left - cost} "
            f"of {rs.ap(f)})",
        )
        if cmd.test is not None:
            rs.test(b, dice, f.id, cmd.kind, rule, cmd.test)
