"""speed-meters climbing: the climbing Movement and the Advantage against a climber.

climb: "roll +Brawn against difficulty 1–3 (by surface) for each climbing move;
failure falls; half Speed (min 1); non-climbing attackers have Advantage". One
roll per climbing Movement, before it, against the hardest hold on the way
(geometry.py `grip`); the climb is moved by the ruleset's `through` along a
planned 3-D path with this part's judge of each step.
"""

from __future__ import annotations

from tabletrail.core.rulesets.speed_meters.board import above_ground, attack_pairs, mode_of, with_given
from tabletrail.core.rulesets.speed_meters.geometry import grip, step3
from tabletrail.core.rulesets.speed_meters.part import SpeedPart
from tabletrail.events.commands.speed_meters import Climb
from tabletrail.ruleset_api import (
    CU,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Modifier,
    Pos,
    Refusal,
    Step,
    check,
    fmt,
    half_down,
    handles,
    require,
    show,
)


class Climbing(SpeedPart):
    """The climbing Movement: a roll against the hardest hold, then up to half Speed; its Advantage."""

    @handles(Climb)
    def climb(self, b: Batch, cmd: Climb, dice: Dice) -> None:
        """climb: a roll +Brawn against the surface's difficulty, then up to half Speed (min 1)."""
        f = self.rs.mover(b.state, cmd.fighter, ("walking", "climbing", "swimming"), "climbing")
        rule = self.rule("climb")
        grid = b.state.grid
        budget = with_given(f, self.rs.stat(f, "climb") or max(CU, half_down(self.rs.stat(f, "speed"))))
        plan, _ = self.rs.plan(b.state, f, cmd.path, rule, lambda x, y, z: z, budget)
        holds = [grip(grid, p) for p in plan if p[2] > grid.top[p[1]][p[0]]]
        if not holds and above_ground(b.state, f) > 0:
            # climb: a climber at the lip climbs on over the top from the hold it is on.
            holds = [grip(grid, f.pos)]
        require(
            bool(holds),
            rule,
            f"the path never leaves the ground from {show(f.pos)}: that is a walk, not a climb",
        )
        # The roll decides whether the climber makes a climb it could make, never one it couldn't:
        # the path is walked first on a scratch batch, so a path too long or through rock is refused
        # before anything is rolled.
        self.rs.through(
            Batch(b.state), Dice(), f, plan, self.climb_step, budget=budget, rule=rule, what="the climb"
        )
        difficulty = max(h for h in holds if h is not None) if any(h is not None for h in holds) else 1
        self.rs.begin_movement(b, f, "a climbing Movement")
        roll = check(
            b,
            dice,
            fighter=f.id,
            name="climb",
            rule=rule,
            target=difficulty,
            modifier=self.rs.brawn(f),
            note=f"roll +Brawn against difficulty {difficulty}, the hardest hold on the way; failure falls",
        )
        if not roll.passed:
            if above_ground(b.state, f) > 0:
                self.rs.drop(b, dice, f.id, rule=rule, bumps=cmd.bumps, note="loses its grip")
            return
        self.rs.set_mode(b, f.id, "climbing", rule)
        self.rs.through(b, dice, f, plan, self.climb_step, budget=budget, rule=rule, what="the climb")
        now = b.state.fighter(f.id)
        assert now is not None
        if above_ground(b.state, now) == 0:
            self.rs.settle_mode(b, f.id, rule, "stands on solid ground again")

    def climb_step(
        self, state: EncounterState, f: Fighter, frm: Pos, to: Pos, parity: int, last: bool
    ) -> tuple[Step, tuple[str, ...]]:
        grid = state.grid
        x, y, z = to
        self.rs.not_solid(state, to, obstacles=True)
        self.rs.above_floor(state, to, self.rule("climb"))
        if z > grid.top[y][x] and grip(grid, to) is None:
            raise Refusal(
                self.rule("climb"),
                f"nothing to hold at {show(to)}, {fmt(z)} m up: "
                "no climbable surface beside it reaches that high",
            )
        self.rs.no_enemy(state, f, to)
        return step3(state, frm, to, parity, "climb"), (self.rule("climb"),)

    def modifiers(self, state: EncounterState, fighter_id: str, against: str | None) -> list[Modifier]:
        """climb: "non-climbing attackers have Advantage" against a climber."""
        out: list[Modifier] = []
        for defender, attacker, applies in attack_pairs(state, fighter_id, against):
            if mode_of(defender) == "climbing" and (attacker is None or mode_of(attacker) != "climbing"):
                who = f"{attacker.id} is not" if attacker else "attackers who are not"
                why = f"{defender.id} is climbing and {who} climbing: Advantage"
                out.append(Modifier(applies_to=applies, value="advantage", rule=self.rule("climb"), why=why))
        return out
