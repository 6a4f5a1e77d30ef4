"""round-meters sprint: 1 AP, an Athletics test, +2 m per positive Hit, -5 to other tests (sprint).

Every test carries the sprint penalty in force until the round ends (`test`,
`modifiers`). `Sprinting` lives here only to keep the ruleset readable;
`RoundMeters` inherits it.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace
from tabletrail.core.rulesets.round_meters.actions import Actions
from tabletrail.core.rulesets.round_meters.shared import SPRINT_AP, SPRINT_METERS, SPRINT_PENALTY, SPRINTS
from tabletrail.events.commands.round_meters import RollTest, Sprint
from tabletrail.ruleset_api import (
    Batch,
    CheckRolled,
    Dice,
    EncounterState,
    Modifier,
    check,
    fmt,
    handles,
    plural,
    require,
)
from tabletrail.ruleset_api import events as ev


class Sprinting(Actions):
    """The Sprint, and the tests its penalty follows."""

    def modifiers(self, state: EncounterState, fighter_id: str, against: str | None = None) -> list[Modifier]:
        f = self.fighter(state, fighter_id)
        pen = self.penalty(f)
        if not pen:
            return []
        n = f.marks[SPRINTS]["sprints"]
        return [Modifier("tests", pen, self.rule("sprint"), f"{plural(n, 'Sprint')} this round, -5 each")]

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
    ) -> CheckRolled:
        """One test, carrying the sprint penalty in force; the check records it and says so."""
        f = b.state.fighter(fighter_id)
        assert f is not None
        parts = [f"{bonus_why} {bonus:+}"] if bonus else []
        pen = self.penalty(f) if penalised else 0
        if pen:
            parts.append(f"sprint penalty {pen} ({plural(f.marks[SPRINTS]['sprints'], 'Sprint')} this round)")
        elif penalised:
            parts.append("no sprint penalty this round")
        elif self.penalty(f):
            parts.append(
                f"the sprint penalty {self.penalty(f)} spares Sprint tests (sprint_penalty_on_sprints)"
            )
        result = check(
            b,
            dice,
            fighter=fighter_id,
            name=name,
            rule=rule,
            target=target,
            modifier=bonus + pen,
            note=f"{name} against {target}: " + ", ".join(parts or ["no modifier"]),
        )
        if pen and rule != self.rule("sprint"):
            b.events[-1] = replace(result, rules=(rule, self.rule("sprint")))
        return result

    @handles(Sprint)
    def sprint(self, b: Batch, cmd: Sprint, dice: Dice) -> None:
        """sprint: 1 AP, an Athletics test, +2 m this round per positive Hit, -5 to other tests."""
        rule = self.rule("sprint")
        f = self.actor(b.state, cmd.fighter, self.rule("passes"))
        left = self.ap_left(f)
        require(
            left >= SPRINT_AP,
            rule,
            f"{f.id} has {left} of {self.ap(f)} AP left this round; a Sprint costs {SPRINT_AP} AP",
        )
        self.act(
            b,
            dice,
            f.id,
            "sprint",
            "",
            SPRINT_AP,
            rule,
            f"Sprint, a Minor Action: {SPRINT_AP} AP ({left} → {left - SPRINT_AP} of {self.ap(f)})",
        )
        self.sprint_test(b, dice, f.id)

    def resolve_held(self, b: Batch, dice: Dice, fighter_id: str, held: dict[str, Any], note: str) -> None:
        """hold: a held Sprint resolves like any Sprint: its Athletics test, its meters, its penalty."""
        super().resolve_held(b, dice, fighter_id, held, note)
        if held["action"] == "sprint":
            self.sprint_test(b, dice, fighter_id)

    def sprint_test(self, b: Batch, dice: Dice, fighter_id: str) -> None:
        """sprint: the Athletics test, +2 m this round per positive Hit, and the cumulative penalty."""
        rule = self.rule("sprint")
        f = b.state.fighter(fighter_id)
        assert f is not None
        settings = b.state.settings
        threshold, step = int(settings["hit_threshold"]), int(settings["hit_step"])
        athletics = int(self.stat(f, "athletics"))
        result = self.test(
            b,
            dice,
            f.id,
            "Athletics",
            rule,
            threshold + step,
            bonus=athletics,
            bonus_why="athletics",
            penalised=bool(settings["sprint_penalty_on_sprints"]),
        )
        total = result.number + result.modifier
        hits = max(0, (total - threshold) // step)
        scored = (
            f"Athletics {total}: {plural(hits, 'positive Hit')}, one per full {step} above {threshold}"
            if hits
            else f"Athletics {total}: no positive Hit (one needs {threshold + step}), no extra Movement"
        )
        if hits:
            # sprint: "gain +2 meters of Movement for the current round": kept as negative spending
            # (the log's own form), said as the document counts it: the Movement allowed goes up,
            # the meters moved stay as they were.
            was = self.fighter(b.state, f.id)
            allowed, moved = self.allowed(b.state, was, "movement") or 0, self.spent_counted(b.state, was)
            gain = hits * SPRINT_METERS
            b.emit(
                ev.Spent(
                    fighter=f.id,
                    resource="movement",
                    amount=-gain,
                    rules=(rule, self.rule("round-budget")),
                    note=f"{scored}: gains {fmt(gain)} m of Movement ({fmt(allowed)} -> "
                    f"{fmt(allowed + gain)} this round; {fmt(moved.get('movement', 0))} m moved, "
                    f"{fmt(self.meters_left(was) + gain)} m left)",
                )
            )
        now = b.state.fighter(f.id)
        assert now is not None
        so_far = now.marks.get(SPRINTS, {})
        sprints = int(so_far.get("sprints", 0)) + 1
        meters = int(so_far.get("meters", 0)) + hits * SPRINT_METERS
        b.emit(
            ev.Marked(
                fighter=f.id,
                key=SPRINTS,
                value={"sprints": sprints, "penalty": SPRINT_PENALTY * sprints, "meters": meters},
                rules=(rule,),
                note=(f"{scored}; " if not hits else "") + f"{plural(sprints, 'Sprint')} this round: "
                f"{SPRINT_PENALTY * sprints} to {f.id}'s other tests "
                f"for the remainder of round {b.state.turn.round}",
            )
        )

    @handles(RollTest)
    def roll_test(self, b: Batch, cmd: RollTest, dice: Dice) -> None:
        """sprint: a test the GM calls for carries the fighter's sprint penalty this round."""
        f = self.fighter(b.state, cmd.fighter)
        athletic = cmd.skill.lower() == "athletics"
        self.test(
            b,
            dice,
            f.id,
            cmd.skill,
            self.rule("sprint"),
            cmd.target,
            bonus=int(self.stat(f, "athletics")) if athletic else 0,
            bonus_why="athletics",
        )
