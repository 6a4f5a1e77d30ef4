"""round-meters actions: an action pays its AP from the round's pool (passes).

The table's actions and their AP are the action_costs setting; `act` records
one, after the held actions it triggers. `Actions` lives here only to keep
the ruleset readable; `RoundMeters` inherits it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tabletrail.core.rulesets.round_meters.hold import Happened, Holding
from tabletrail.core.rulesets.round_meters.shared import ACTION
from tabletrail.events.commands.round_meters import TakeAction
from tabletrail.ruleset_api import Batch, Dice, handles, require
from tabletrail.ruleset_api import events as ev


class Actions(Holding):
    """Taking an action: its AP, its record, and the held actions waiting for it."""

    if TYPE_CHECKING:  # a test with the sprint penalty in force: sprint.py, a subclass RoundMeters inherits

        def test(
            self,
            b: Batch,
            dice: Dice,
            fighter_id: str,
            name: str,
            rule: str,
            target: int,
            *,
            bonus: int = 0,
            bonus_why: str = "",
            penalised: bool = True,
        ) -> ev.CheckRolled: ...

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
        self.fire(b, Happened("takes-action", fighter_id, action=kind), dice)
        if not held:
            b.emit(ev.Spent(fighter=fighter_id, resource="ap", amount=ap, rules=(rule,), note=note))
        t = b.state.turn
        f = b.state.fighter(fighter_id)
        # hold, passes: a held action going off in the holder's own turn (after the hold, this turn's
        # action) must not make that turn one "without taking an action": keep that it acted.
        acted = held and f is not None and t.active == fighter_id and self.acted(b.state, f)
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

    def resolve_held(self, b: Batch, dice: Dice, fighter_id: str, held: dict[str, Any], note: str) -> None:
        """hold: the held action is taken now, its AP paid when it was held."""
        rule = self.rule("hold")
        self.act(b, dice, fighter_id, held["action"], held["target"], int(held["ap"]), rule, note, held=True)

    @handles(TakeAction)
    def take_action(self, b: Batch, cmd: TakeAction, dice: Dice) -> None:
        """passes: an action pays its AP from the round's pool; its test carries any sprint penalty."""
        rule = self.rule("passes")
        f = self.actor(b.state, cmd.fighter, rule)
        costs = self.costs(b.state)
        require(
            cmd.kind in costs,
            rule,
            f"{cmd.kind!r} is not an action of this table (action_costs: {self.priced(costs)}; "
            "a Sprint is the sprint command)",
        )
        cost, left = costs[cmd.kind], self.ap_left(f)
        require(
            left >= cost,
            rule,
            f"{f.id} has {left} of {self.ap(f)} AP left this round; {cmd.kind} costs {cost} AP",
        )
        target = self.aim(b.state, cmd.target, rule) if cmd.target else ""
        self.act(
            b,
            dice,
            f.id,
            cmd.kind,
            target,
            cost,
            rule,
            f"{cmd.kind}" + (f" at {target}" if target else "") + f": {cost} AP ({left} → {left - cost} "
            f"of {self.ap(f)})",
        )
        if cmd.test is not None:
            self.test(b, dice, f.id, cmd.kind, rule, cmd.test)
