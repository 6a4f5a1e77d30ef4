"""speed-meters swimming: the swim Movement, holding breath underwater, and a swimmer's exposure.

swim: "3-D movement in water; water is rough unless adapted; attackers from dry
ground have Advantage; underwater the swimmer holds breath". The swim is moved
by the ruleset's `through` along a planned 3-D path with this part's judge of
each step. A swimmer going under starts holding its breath, which runs down at
each of its turn starts until it comes up again (settings breath_rounds,
aquatic_breathes).
"""

from __future__ import annotations

from msgspec.structs import replace
from tabletrail.core.rulesets.speed_meters.board import (
    above_ground,
    attack_pairs,
    mode_of,
    underwater,
    with_given,
)
from tabletrail.core.rulesets.speed_meters.geometry import JudgeFn, step3, swimmable, water_bottom
from tabletrail.core.rulesets.speed_meters.part import SpeedPart
from tabletrail.events.commands.speed_meters import Swim
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
    flat_step,
    fmt,
    handles,
    plural,
    require,
    rise,
    show,
)
from tabletrail.ruleset_api import events as ev


class Swimming(SpeedPart):
    """The swim Movement; breath held underwater; Advantage against an unadapted swimmer."""

    @handles(Swim)
    def swim(self, b: Batch, cmd: Swim, dice: Dice) -> None:
        """swim: 3-D in deep water at the Swim speed (or Speed); water is rough unless adapted."""
        f = self.rs.mover(b.state, cmd.fighter, ("walking", "swimming"), "swimming")
        rule = self.rule("swim")
        grid = b.state.grid
        speed = with_given(f, self.rs.stat(f, "swim") or self.rs.stat(f, "speed"))

        def height(x: int, y: int, z: int) -> int:
            if swimmable(grid, x, y):
                return min(max(z, water_bottom(grid, x, y)), grid.top[y][x])
            return grid.top[y][x]

        plan, end = self.rs.plan(b.state, f, cmd.path, rule, height, speed)
        require(
            any(swimmable(grid, p[0], p[1]) for p in [f.pos, *plan, end]),
            rule,
            f"no space on the way from {show(f.pos)} to {show(end)} is deep water: that is a walk",
        )
        self.rs.begin_movement(b, f, "a swimming Movement")
        self.rs.set_mode(b, f.id, "swimming", rule)
        judge = self.swim_step(speed, "aquatic" in f.tags)
        self.rs.through(b, dice, f, plan, judge, budget=speed, rule=rule, what="the swim")
        now = b.state.fighter(f.id)
        assert now is not None
        if not swimmable(grid, now.pos[0], now.pos[1]):
            self.rs.set_mode(b, f.id, "walking", rule, "climbs out of the water")

    def swim_step(self, speed: int, adapted: bool) -> JudgeFn:
        def judge(
            state: EncounterState, f: Fighter, frm: Pos, to: Pos, parity: int, last: bool
        ) -> tuple[Step, tuple[str, ...]]:
            grid = state.grid
            x, y, z = to
            rs = self.rs
            rs.not_solid(state, to, obstacles=True)
            surface = grid.top[y][x]
            if not swimmable(grid, x, y):
                rs.above_floor(state, to, rs.rule("swim"))
                # Out of the water: only the last step, climbing out like a walker.
                require(
                    last,
                    rs.rule("swim"),
                    f"{show(to)} is not deep water: a swim may leave the water only with its last step",
                )
                require(
                    rise(frm, (x, y, surface)) <= CU,
                    rs.rule("movement"),
                    f"the bank at {show(to)} is {fmt(rise(frm, (x, y, surface)))} m above the swimmer; "
                    "a Movement goes at most 1 m up",
                )
                rough = grid.has(x, y, "rough") and speed != CU
                step = flat_step(
                    grid,
                    frm,
                    (x, y),
                    parity,
                    diagonal=state.settings["diagonal"],
                    version=state.rules_version,
                    terrain_factor=2 if rough else 1,
                )
                rs.no_enemy(state, f, step.to)
                # rough: a Speed-1 swimmer's step is priced by the rough rule's exception, so cited too
                cited = (rs.rule("swim"), rs.rule("rough")) if grid.has(x, y, "rough") else (rs.rule("swim"),)
                return replace(step, mode="swim"), cited
            bottom = water_bottom(grid, x, y)
            if not bottom <= z <= surface:
                raise Refusal(
                    rs.rule("swim"),
                    f"{show(to)} at {fmt(z)} m is out of the water there (surface {fmt(surface)} m, "
                    f"bottom {fmt(bottom)} m)",
                )
            rs.no_enemy(state, f, to)
            # swim + rough: water is rough terrain unless adapted; a Speed-1 swimmer ignores that.
            rough = not adapted and speed != CU
            step = step3(state, frm, to, parity, "swim", 2 if rough else 1)
            return step, ((rs.rule("swim"), rs.rule("rough")) if not adapted else (rs.rule("swim"),))

        return judge

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """swim: a held breath runs down at each of the swimmer's turn starts underwater."""
        f = b.state.fighter(fighter_id)
        assert f is not None
        if "breath" in f.marks and underwater(b.state, f):  # swim: a held breath runs down
            left = max(0, int(f.marks["breath"]) - 1)
            b.emit(
                ev.Marked(
                    fighter=f.id,
                    key="breath",
                    value=left,
                    rules=(self.rule("swim"),),
                    note=f"still underwater: {plural(left, 'turn')} of breath left"
                    if left
                    else "out of breath (what follows, drowning, the document leaves to the GM)",
                )
            )

    def settle(self, b: Batch, dice: Dice) -> None:
        """swim: a swimmer going under starts holding its breath; coming up, it breathes again."""
        n = int(b.state.settings["breath_rounds"])
        gills = b.state.settings["aquatic_breathes"]
        for f in b.state.fighters:
            under = underwater(b.state, f) and not (gills and "aquatic" in f.tags)
            if under and "breath" not in f.marks:
                b.emit(
                    ev.Marked(
                        fighter=f.id,
                        key="breath",
                        value=n,
                        rules=(self.rule("swim"),),
                        note=f"goes underwater holding its breath ({plural(n, 'turn')} of it)",
                    )
                )
            elif not under and "breath" in f.marks:
                b.emit(
                    ev.Unmarked(fighter=f.id, key="breath", rules=(self.rule("swim"),), note="breathes again")
                )

    # --- modifiers: Advantage against an unadapted swimmer ---------------------------------------

    def modifiers(self, state: EncounterState, fighter_id: str, against: str | None) -> list[Modifier]:
        """swim: attackers from dry ground have Advantage against a swimmer not adapted to water."""
        out: list[Modifier] = []
        for defender, attacker, applies in attack_pairs(state, fighter_id, against):
            if mode_of(defender) != "swimming" or "aquatic" in defender.tags:
                continue
            if attacker is None:
                why = f"{defender.id} swims unadapted: attackers on dry ground have Advantage"
            elif self.on_dry_ground(state, attacker):
                why = f"{defender.id} swims unadapted and {attacker.id} attacks from dry ground"
            else:
                continue
            out.append(Modifier(applies_to=applies, value="advantage", rule=self.rule("swim"), why=why))
        return out

    def on_dry_ground(self, state: EncounterState, f: Fighter) -> bool:
        x, y, _ = f.pos
        return mode_of(f) == "walking" and above_ground(state, f) == 0 and not state.grid.has(x, y, "water")
