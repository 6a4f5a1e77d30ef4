"""speed-meters modes: the 3-D Movements and the Advantage they expose a body to.

Flying (fly), the special jump (special-jump), hovering (hover) and landing,
swimming (swim), climbing (climb), teleporting (teleport) and gliding (glide):
each a Movement in one mode, moved through `core.movement.walk` by the step
policy in steps.py. `Modes` lives here only to keep the ruleset readable;
`SpeedMeters` inherits it.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec.structs import replace
from tabletrail.core.rulesets.speed_meters.falls import Falls
from tabletrail.core.rulesets.speed_meters.shared import (
    COMPASS,
    GLIDE_RATE,
    MODES,
    JudgeFn,
    distance3,
    grip,
    hover_height,
    least_cost,
    level,
    line3,
    sign,
    step3,
    swimmable,
    water_bottom,
)
from tabletrail.core.rulesets.speed_meters.steps import _Through
from tabletrail.events.commands.speed_meters import Climb, Fly, Glide, Hover, Land, Leap, Swim, Teleport
from tabletrail.ruleset_api import (
    CU,
    WALLS,
    XY,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Modifier,
    Pos,
    Refusal,
    Step,
    blockers,
    check,
    flat_step,
    fmt,
    half_down,
    handles,
    require,
    rise,
    show,
    sight_walls,
    step_blocked,
    to_cu,
    walk,
)
from tabletrail.ruleset_api import events as ev


class Modes(Falls):
    """The Movements in a mode other than walking, and the climb and swim Advantage."""

    # --- modes and special movement: 3-D Movements through `walk` ----------------------------

    def plan(
        self,
        state: EncounterState,
        f: Fighter,
        path: tuple[tuple[int, ...], ...],
        rule: str,
        height: Callable[[int, int, int], int],
        budget: int,
    ) -> tuple[list[Pos], Pos]:
        """Waypoints (x,y or x,y,z in meters) joined by straight 3-D lines; `height` fills a missing z.

        Returns the positions and where the last waypoint is. The positions stop at the first
        one that even the cheapest pricing (`least_cost`) puts past `budget`: `walk` refuses the
        Movement there or sooner, so nothing is lost, and a mistyped height of a billion meters
        is not a billion positions.
        """
        here = f.pos
        out: list[Pos] = []
        least = 0
        for wp in path:
            require(
                state.grid.inside(wp[0], wp[1]),
                rule,
                f"{show(wp)} is off the {state.grid.width}x{state.grid.height} map",
            )
            z = to_cu(wp[2]) if len(wp) > 2 else height(wp[0], wp[1], here[2])
            target = (wp[0], wp[1], z)
            if target != here:
                for pos in line3(here, target) if least <= budget else ():
                    least += least_cost(out[-1] if out else f.pos, pos)
                    out.append(pos)
                    if least > budget:
                        break
                here = target
        require(bool(out), rule, f"{f.id} is already at {show(f.pos)}, {fmt(f.pos[2])} m up")
        return out, here

    def through(
        self,
        b: Batch,
        dice: Dice,
        f: Fighter,
        plan: list[Pos],
        judge: JudgeFn,
        *,
        budget: int,
        rule: str,
        what: str,
    ) -> str:
        """Walk a planned 3-D path with a mode's judge; returns why it stopped early, if it did."""
        _, stopped = walk(
            b,
            _Through(self, plan, judge, what),
            f.id,
            [(p[0], p[1]) for p in plan],
            budget=budget,
            budget_rule=rule,
            rules=(rule,),
            what=what,
            dice=dice,
        )
        return stopped

    def air_step(self, rule: str, mode: str) -> JudgeFn:
        """fly and special-jump: a step through the air in any direction, never into anything solid."""

        def judge(
            state: EncounterState, f: Fighter, frm: Pos, to: Pos, parity: int, last: bool
        ) -> tuple[Step, tuple[str, ...]]:
            self.not_solid(state, to, obstacles=False)
            self.above_floor(state, to, rule)
            self.no_enemy(state, f, to)
            return step3(state, frm, to, parity, mode), (rule,)

        return judge

    @handles(Fly)
    def fly(self, b: Batch, cmd: Fly, dice: Dice) -> None:
        """fly: any direction, even straight up, and the Movement may end in the air."""
        f = self.mover(
            b.state,
            cmd.fighter,
            ("walking", "flying", "hovering", "climbing", "swimming", "gliding"),
            "flying",
        )
        rule = self.rule("fly")
        speed = self.stat(f, "fly")
        require(speed > 0, rule, f"{f.id} has no Fly speed (stat fly)")
        speed = self.with_given(f, speed)  # adjust: what the GM gave or took for this Movement
        plan, _ = self.plan(b.state, f, cmd.path, rule, lambda x, y, z: z, speed)
        self.begin_movement(b, f, "a flying Movement")
        self.set_mode(b, f.id, "flying", rule)
        self.through(b, dice, f, plan, self.air_step(rule, "fly"), budget=speed, rule=rule, what="the flight")
        now = b.state.fighter(f.id)
        assert now is not None
        if self.above_ground(b.state, now) == 0:
            self.settle_mode(b, f.id, rule, "lands")

    @handles(Leap)
    def leap(self, b: Batch, cmd: Leap, dice: Dice) -> None:
        """special-jump: any direction for the Movement, but it must come down on a surface."""
        f = self.mover(b.state, cmd.fighter, ("walking",), "a special jump")
        rule = self.rule("special-jump")
        speed = self.stat(f, "jump")
        require(speed > 0, rule, f"{f.id} has no special Jump speed (stat jump)")
        speed = self.with_given(f, speed)  # adjust: what the GM gave or took for this Movement
        grid = b.state.grid
        plan, end = self.plan(b.state, f, cmd.path, rule, lambda x, y, z: grid.top[y][x], speed)
        floor = grid.top[end[1]][end[0]]
        require(
            end[2] == floor and not swimmable(grid, end[0], end[1]),
            rule,
            f"a special jump must land on a surface, not airborne: {show(end)} at {fmt(end[2])} m is "
            + (f"{fmt(end[2] - floor)} m above the ground" if end[2] != floor else "deep water"),
        )
        self.begin_movement(b, f, "a special-jump Movement")
        stopped = self.through(
            b, dice, f, plan, self.air_step(rule, "leap"), budget=speed, rule=rule, what="the jump"
        )
        now = b.state.fighter(f.id)
        assert now is not None
        if stopped and self.above_ground(b.state, now) > 0:
            self.drop(b, dice, f.id, rule=rule, bumps=cmd.bumps, note="the jump was cut short in the air")

    @handles(Hover)
    def hover(self, b: Batch, cmd: Hover, dice: Dice) -> None:
        """hover: 1 m above the ground, over land obstacles, hazards and rough terrain alike."""
        f = self.mover(b.state, cmd.fighter, ("walking", "hovering", "flying"), "hovering")
        rule = self.rule("hover")
        speed = self.stat(f, "hover")
        require(speed > 0, rule, f"{f.id} has no Hover speed (stat hover)")
        speed = self.with_given(f, speed)  # adjust: what the GM gave or took for this Movement
        plan = self.hover_plan(b.state, f, self.cells(b.state, f, cmd.path))
        self.begin_movement(b, f, "a hovering Movement")
        self.set_mode(b, f.id, "hovering", rule)
        self.through(b, dice, f, plan, self.hover_step, budget=speed, rule=rule, what="the hover")

    def hover_plan(self, state: EncounterState, f: Fighter, cells: list[XY]) -> list[Pos]:
        """hover: 1 m above the ground, and straight across a dip no wider than `hover_span`.

        "You float just 1 meter above the ground, avoiding land-based obstacles, hazards":
        over a cut or trench whose far side is as high again within hover_span spaces, the
        hover keeps the height it came with instead of sinking into it (a setting).
        """
        grid = state.grid
        span = int(state.settings["hover_span"])
        natural = [hover_height(grid, x, y) for x, y in cells]
        carried = max(f.pos[2], hover_height(grid, f.pos[0], f.pos[1]))
        plan: list[Pos] = []
        for i, (x, y) in enumerate(cells):
            z = natural[i]
            if z < carried and any(h >= carried for h in natural[i + 1 : i + 1 + span]):
                z = carried  # across the dip at the height it came with
            plan.append((x, y, z))
            carried = z
        return plan

    def hover_step(
        self, state: EncounterState, f: Fighter, frm: Pos, to: Pos, parity: int, last: bool
    ) -> tuple[Step, tuple[str, ...]]:
        grid = state.grid
        x, y, z = to
        self.not_solid(state, to, obstacles=False)  # a wall is no land obstacle: it blocks a hover
        lift = z - max(frm[2], hover_height(grid, frm[0], frm[1]))
        most = to_cu(state.settings["hover_rise"])
        if lift > most:
            raise Refusal(
                self.rule("hover"),
                f"the ground at {show(to)} is {fmt(lift)} m higher than at {show(frm)}: a hover keeps 1 m "
                f"above the ground and rises with it at most {fmt(most)} m a step (setting hover_rise)",
            )
        self.no_enemy(state, f, to)
        # Priced over the ground covered only: no extra for rough ground, nor for rising with it.
        return step3(state, level(frm, to), to, parity, "hover"), (self.rule("hover"),)

    @handles(Land)
    def land(self, b: Batch, cmd: Land, dice: Dice) -> None:
        """hover: a hovering fighter settles the last meter; flyers land by flying down."""
        f = self.acting(b.state, cmd.fighter)
        mode = self.mode(f)
        require(
            mode == "hovering",
            self.rule("hover"),
            f"{f.id} is {mode}, not hovering: only a hover settles down by landing"
            + (" (a flyer lands by flying down to the ground)" if mode == "flying" else ""),
        )
        x, y, z = f.pos
        top = b.state.grid.top[y][x]
        require(
            top <= z,
            self.rule("hover"),
            f"{f.id} hovers {fmt(z)} m up inside the {b.state.grid.kind(x, y).terrain} at {show(f.pos)}, "
            f"whose top is {fmt(top)} m: landing settles down, so hover off it first",
        )
        b.emit(
            ev.Placed(
                fighter=f.id,
                to=(x, y, top),
                how="land",
                rules=(self.rule("hover"),),
                note="settles the last 1 m onto the ground (free)",
            )
        )
        self.settle_mode(b, f.id, self.rule("hover"))

    @handles(Swim)
    def swim(self, b: Batch, cmd: Swim, dice: Dice) -> None:
        """swim: 3-D in deep water at the Swim speed (or Speed); water is rough unless adapted."""
        f = self.mover(b.state, cmd.fighter, ("walking", "swimming"), "swimming")
        rule = self.rule("swim")
        grid = b.state.grid
        speed = self.with_given(f, self.stat(f, "swim") or self.stat(f, "speed"))

        def height(x: int, y: int, z: int) -> int:
            if swimmable(grid, x, y):
                return min(max(z, water_bottom(grid, x, y)), grid.top[y][x])
            return grid.top[y][x]

        plan, end = self.plan(b.state, f, cmd.path, rule, height, speed)
        require(
            any(swimmable(grid, p[0], p[1]) for p in [f.pos, *plan, end]),
            rule,
            f"no space on the way from {show(f.pos)} to {show(end)} is deep water: that is a walk",
        )
        self.begin_movement(b, f, "a swimming Movement")
        self.set_mode(b, f.id, "swimming", rule)
        judge = self.swim_step(speed, "aquatic" in f.tags)
        self.through(b, dice, f, plan, judge, budget=speed, rule=rule, what="the swim")
        now = b.state.fighter(f.id)
        assert now is not None
        if not swimmable(grid, now.pos[0], now.pos[1]):
            self.set_mode(b, f.id, "walking", rule, "climbs out of the water")

    def swim_step(self, speed: int, adapted: bool) -> JudgeFn:
        def judge(
            state: EncounterState, f: Fighter, frm: Pos, to: Pos, parity: int, last: bool
        ) -> tuple[Step, tuple[str, ...]]:
            grid = state.grid
            x, y, z = to
            rs = self
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

    @handles(Climb)
    def climb(self, b: Batch, cmd: Climb, dice: Dice) -> None:
        """climb: a roll +Brawn against the surface's difficulty, then up to half Speed (min 1)."""
        f = self.mover(b.state, cmd.fighter, ("walking", "climbing", "swimming"), "climbing")
        rule = self.rule("climb")
        grid = b.state.grid
        budget = self.with_given(f, self.stat(f, "climb") or max(CU, half_down(self.stat(f, "speed"))))
        plan, _ = self.plan(b.state, f, cmd.path, rule, lambda x, y, z: z, budget)
        holds = [grip(grid, p) for p in plan if p[2] > grid.top[p[1]][p[0]]]
        if not holds and self.above_ground(b.state, f) > 0:
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
        self.through(
            Batch(b.state), Dice(), f, plan, self.climb_step, budget=budget, rule=rule, what="the climb"
        )
        difficulty = max(h for h in holds if h is not None) if any(h is not None for h in holds) else 1
        self.begin_movement(b, f, "a climbing Movement")
        roll = check(
            b,
            dice,
            fighter=f.id,
            name="climb",
            rule=rule,
            target=difficulty,
            modifier=self.brawn(f),
            note=f"roll +Brawn against difficulty {difficulty}, the hardest hold on the way; failure falls",
        )
        if not roll.passed:
            if self.above_ground(b.state, f) > 0:
                self.drop(b, dice, f.id, rule=rule, bumps=cmd.bumps, note="loses its grip")
            return
        self.set_mode(b, f.id, "climbing", rule)
        self.through(b, dice, f, plan, self.climb_step, budget=budget, rule=rule, what="the climb")
        now = b.state.fighter(f.id)
        assert now is not None
        if self.above_ground(b.state, now) == 0:
            self.settle_mode(b, f.id, rule, "stands on solid ground again")

    def climb_step(
        self, state: EncounterState, f: Fighter, frm: Pos, to: Pos, parity: int, last: bool
    ) -> tuple[Step, tuple[str, ...]]:
        grid = state.grid
        x, y, z = to
        self.not_solid(state, to, obstacles=True)
        self.above_floor(state, to, self.rule("climb"))
        if z > grid.top[y][x] and grip(grid, to) is None:
            raise Refusal(
                self.rule("climb"),
                f"nothing to hold at {show(to)}, {fmt(z)} m up: "
                "no climbable surface beside it reaches that high",
            )
        self.no_enemy(state, f, to)
        return step3(state, frm, to, parity, "climb"), (self.rule("climb"),)

    @handles(Teleport)
    def teleport(self, b: Batch, cmd: Teleport, dice: Dice) -> None:
        """teleport: appear in any space within range that the teleporter can see."""
        f = self.mover(b.state, cmd.fighter, tuple(m for m in MODES if m != "falling"), "a teleport")
        rule = self.rule("teleport")
        reach = self.stat(f, "teleport")
        require(reach > 0, rule, f"{f.id} has no Teleport range (stat teleport)")
        grid = b.state.grid
        x, y = cmd.to[0], cmd.to[1]
        require(grid.inside(x, y), rule, f"{show(cmd.to)} is off the {grid.width}x{grid.height} map")
        require(
            not (grid.blocked(x, y) or grid.has(x, y, "solid")),
            rule,
            f"{show(cmd.to)} is {grid.kind(x, y).terrain}: there is no space to appear in",
        )
        ground = grid.top[y][x]
        z = to_cu(cmd.to[2]) if len(cmd.to) > 2 else ground
        floor = water_bottom(grid, x, y) if swimmable(grid, x, y) else ground
        require(z >= floor, rule, f"{show(cmd.to)} at {fmt(z)} m is inside the ground there ({fmt(floor)} m)")
        require(
            z <= ground or self.stat(f, "fly") > 0,
            rule,
            f"{show(cmd.to)} at {fmt(z)} m is {fmt(z - ground)} m above the ground "
            f"and {f.id} can't fly to stay up",
        )
        dest = (x, y, z)
        require(
            dest != f.pos,
            rule,
            f"{f.id} is already at {show(dest)}, {fmt(z)} m up: a teleport appears elsewhere",
        )
        far = distance3(b.state.settings["diagonal"], f.pos, dest)
        require(
            far <= reach, rule, f"{show(dest)} is {fmt(far)} m away, beyond the {fmt(reach)} m teleport range"
        )
        walls = blockers(grid, f.pos, dest, to_cu(b.state.settings["eye_height"]))
        if walls:
            wall = walls[0]
            raise Refusal(
                rule,
                f"{show(dest)} is out of {f.id}'s line of sight: {show(wall)} ({grid.kind(*wall).terrain}) "
                "blocks it",
            )
        edges = sight_walls(grid, b.state.doors, f.pos, dest)
        require(
            not edges, WALLS, f"{show(dest)} is out of {f.id}'s line of sight: {edges[0] if edges else ''}"
        )
        self.can_end(b.state, replace(f, pos=dest), "the teleport")
        self.begin_movement(b, f, "a teleport Movement")
        b.emit(
            ev.Placed(
                fighter=f.id,
                to=dest,
                how="teleport",
                rules=(rule,),
                note=f"{fmt(far)} m of its {fmt(reach)} m range, in line of sight",
            )
        )
        if z > ground:
            self.set_mode(b, f.id, "flying", rule, "appears in the air, flying")
        else:
            self.settle_mode(b, f.id, rule)

    # --- gliding -------------------------------------------------------------------------

    @handles(Glide)
    def glide(self, b: Batch, cmd: Glide, dice: Dice) -> None:
        """glide: spread out off an edge or from the air; the glide itself moves at turn start."""
        f = self.mover(b.state, cmd.fighter, ("walking", "flying", "hovering", "climbing"), "a glide")
        rule = self.rule("glide")
        require(self.stat(f, "glide") > 0, rule, f"{f.id} has no Glide speed (stat glide)")
        rate = GLIDE_RATE  # glide: the document's rate, whatever number follows Glide
        grid = b.state.grid
        heading = (sign(cmd.toward[0] - f.pos[0]), sign(cmd.toward[1] - f.pos[1]))
        require(heading != (0, 0), rule, f"glide toward {show(cmd.toward)}: that is where {f.id} is")
        first = (f.pos[0] + heading[0], f.pos[1] + heading[1])
        if self.above_ground(b.state, f) <= 0:
            below = f.pos[2] - grid.top[first[1]][first[0]] if grid.inside(*first) else 0
            require(
                below > CU,
                rule,
                f"a glide starts in the air or off an edge: {show(first)} is {fmt(below)} m below {f.id}, "
                "not more than 1 m",
            )
        self.begin_movement(b, f, "a Movement to start gliding")
        self.set_mode(b, f.id, "gliding", rule)
        b.emit(
            ev.Marked(
                fighter=f.id,
                key="glide",
                value=[heading[0], heading[1]],
                rules=(rule,),
                note=f"glides {COMPASS[heading]}: {fmt(rate)} m across at each of its turn starts, sinking "
                f"{fmt(to_cu(b.state.settings['glide_descent']))} m",
            )
        )

    def glide_leg(self, b: Batch, dice: Dice, fid: str) -> None:
        """glide: at turn start up to 5 m across ("a rate of 5 meters"), then sink; landing does no harm."""
        f = b.state.fighter(fid)
        assert f is not None
        rule = self.rule("glide")
        grid = b.state.grid
        dx, dy = (int(v) for v in f.marks.get("glide", (0, 0)))
        rate = GLIDE_RATE
        x, y, z = f.pos
        steps: list[Step] = []
        spent, parity, why, passed = 0, 0, "", False
        while (dx, dy) != (0, 0):
            nx, ny = x + dx, y + dy
            if not grid.inside(nx, ny) or grid.blocked(nx, ny) or grid.top[ny][nx] > z:
                why = f"{show((nx, ny))} blocks the glide" if grid.inside(nx, ny) else "the map's edge"
                break
            # occupancy: "Can move through spaces occupied by allies ... Cannot move through spaces
            # occupied by enemies": the glide is the glider's own movement.
            others = self.others_at(b.state, fid, (nx, ny, z))
            foes = [o.id for o in others if o.side != f.side]
            if foes:
                why = f"{show((nx, ny))} is held by {', '.join(foes)}, an enemy of {fid}"
                break
            wall = step_blocked(b.state, (x, y), (nx, ny))
            if wall:  # tabletrail/walls
                why = f"{wall} blocks the glide"
                break
            step = step3(b.state, (x, y, z), (nx, ny, z), parity, "glide")
            if spent + step.cost > rate:
                break
            spent, parity, x, y = spent + step.cost, step.parity, nx, ny
            steps.append(step)
            passed = passed or bool(others)
        # occupancy: "can't end a Movement in an occupied space": the leg ends short of allies.
        while steps and self.others_at(b.state, fid, steps[-1].to):
            ended = steps.pop().to
            names = ", ".join(o.id for o in self.others_at(b.state, fid, ended))
            why = f"{show(ended)} is occupied by {names}: the glide can't end there"
            x, y = (steps[-1].to[0], steps[-1].to[1]) if steps else (f.pos[0], f.pos[1])
        if steps:
            cited = (rule, self.rule("occupancy")) if passed or why.endswith("end there") else (rule,)
            b.emit(
                ev.Moved(
                    fighter=fid, steps=tuple(steps), resource="glide", budget=rate, stopped=why, rules=cited
                )
            )
        floor = grid.top[y][x]
        sink = to_cu(b.state.settings["glide_descent"])
        if z - sink > floor:
            b.emit(
                ev.Placed(
                    fighter=fid, to=(x, y, z - sink), how="glide", rules=(rule,), note=f"sinks {fmt(sink)} m"
                )
            )
            return
        (x, y), onto = self.landing_space(b.state, fid, (x, y), z)  # occupancy: fall_onto_fighter
        floor = grid.top[y][x]
        b.emit(
            ev.Placed(
                fighter=fid,
                to=(x, y, floor),
                how="glide",
                rules=(rule, self.rule("occupancy")) if onto else (rule,),
                note=f"reaches the ground from {fmt(z - floor)} m still gliding: no falling damage"
                + (f" ({onto})" if onto else ""),
            )
        )
        self.settle_mode(b, fid, rule, "lands from the glide")

    # --- modifiers: Advantage the chapter grants ----------------------------------------------

    def modifiers(self, state: EncounterState, fighter_id: str, against: str | None = None) -> list[Modifier]:
        """Advantage against climbers (for non-climbing attackers) and swimmers (from dry ground)."""
        f = state.fighter(fighter_id)
        if f is None:
            return []
        other = state.fighter(against) if against else None
        out: list[Modifier] = []
        for defender, attacker, applies in ((f, other, "attack against"), (other, f, "attack")):
            if defender is None or (applies == "attack" and attacker is None):
                continue
            reason = self.exposed(state, defender, attacker)
            if reason:
                rule, why = reason
                out.append(Modifier(applies_to=applies, value="advantage", rule=rule, why=why))
        return out

    def exposed(
        self, state: EncounterState, defender: Fighter, attacker: Fighter | None
    ) -> tuple[str, str] | None:
        """Why an attack on `defender` (by `attacker`, or by anyone fitting) has Advantage, if it does."""
        mode = self.mode(defender)
        if mode == "climbing" and (attacker is None or self.mode(attacker) != "climbing"):
            who = f"{attacker.id} is not" if attacker else "attackers who are not"
            return self.rule("climb"), f"{defender.id} is climbing and {who} climbing: Advantage"
        if mode == "swimming" and "aquatic" not in defender.tags:
            if attacker is None:
                return self.rule(
                    "swim"
                ), f"{defender.id} swims unadapted: attackers on dry ground have Advantage"
            if self.on_dry_ground(state, attacker):
                return self.rule(
                    "swim"
                ), f"{defender.id} swims unadapted and {attacker.id} attacks from dry ground"
        return None

    def on_dry_ground(self, state: EncounterState, f: Fighter) -> bool:
        x, y, _ = f.pos
        return (
            self.mode(f) == "walking"
            and self.above_ground(state, f) == 0
            and not state.grid.has(x, y, "water")
        )
