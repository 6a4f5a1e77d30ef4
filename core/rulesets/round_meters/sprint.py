"""round-meters sprint: 1 AP, an Athletics test, +2 m per positive Hit, -5 to other tests (sprint).

`Sprinting`, a part of `RoundMeters`: the Sprint, and every test, which carries
the sprint penalty in force until the round ends (`test`, `modifiers`); the
ruleset offers `test` and `sprint_test` to the other families (an action's
test, a held Sprint resolving).
"""

from __future__ import annotations

from msgspec.structs import replace
from tabletrail.core.rulesets.round_meters.marks import SPRINT_AP, SPRINT_METERS, SPRINT_PENALTY, SPRINTS
from tabletrail.core.rulesets.round_meters.part import RoundPart
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


class Sprinting(RoundPart):
    """The Sprint, and the tests its penalty follows."""

    def modifiers(self, state: EncounterState, fighter_id: str, against: str | None = None) -> list[Modifier]:
        """sprint: the cumulative penalty to the fighter's other tests this round."""
        f = self.rs.fighter(state, fighter_id)
        pen = self.rs.penalty(f)
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
        pen = self.rs.penalty(f) if penalised else 0
        if pen:
            parts.append(f"sprint penalty {pen} ({plural(f.marks[SPRINTS]['sprints'], 'Sprint')} this round)")
        elif penalised:
            parts.append("no sprint penalty this round")
        elif self.rs.penalty(f):
            parts.append(
                f"the sprint penalty {self.rs.penalty(f)} spares Sprint tests (sprint_penalty_on_sprints)"
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
        f = self.rs.actor(b.state, cmd.fighter, self.rule("passes"))
        left = self.rs.ap_left(f)
        require(
            left >= SPRINT_AP,
            rule,
            f"{f.id} has {left} of {self.rs.ap(f)} AP left this round; a Sprint costs {SPRINT_AP} AP",
        )
        self.rs.act(
            b,
            dice,
            f.id,
            "sprint",
            "",
            SPRINT_AP,
            rule,
            f"Sprint, a Minor Action: {SPRINT_AP} AP ({left} → {left - SPRINT_AP} of {self.rs.ap(f)})",
        )
        self.sprint_test(b, dice, f.id)

    def sprint_test(self, b: Batch, dice: Dice, fighter_id: str) -> None:
        """sprint: the Athletics test, +2 m this round per positive Hit, and the cumulative penalty."""
        rule = self.rule("sprint")
        f = b.state.fighter(fighter_id)
        assert f is not None
        settings = b.state.settings
        threshold, step = int(settings["hit_threshold"]), int(settings["hit_step"])
        athletics = int(self.rs.stat(f, "athletics"))
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
            was = self.rs.fighter(b.state, f.id)
            allowed = self.rs.allowed(b.state, was, "movement") or 0
            moved = self.rs.spent_counted(b.state, was)
            gain = hits * SPRINT_METERS
            b.emit(
                ev.Spent(
                    fighter=f.id,
                    resource="movement",
                    amount=-gain,
                    rules=(rule, self.rule("round-budget")),
                    note=f"{scored}: gains {fmt(gain)} m of Movement ({fmt(allowed)} -> "
                    f"{fmt(allowed + gain)} this round; {fmt(moved.get('movement', 0))} m moved, "
                    f"{fmt(self.rs.meters_left(was) + gain)} m left)",
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
        f = self.rs.fighter(b.state, cmd.fighter)
        athletic = cmd.skill.lower() == "athletics"
        self.test(
            b,
            dice,
            f.id,
            cmd.skill,
            self.rule("sprint"),
            cmd.target,
            bonus=int(self.rs.stat(f, "athletics")) if athletic else 0,
            bonus_why="athletics",
        )
