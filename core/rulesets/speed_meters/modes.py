"""speed-meters modes: the Movements through the air, teleporting and gliding.

Flying (fly), the special jump (special-jump), hovering and landing (hover),
teleporting (teleport) and gliding (glide): each a Movement in one mode, the
air ones moved by the ruleset's `through` along a planned 3-D path with this
part's judge of each step (steps.py `_Through`). A glide moves by itself at
its glider's turn start, and a piece the GM sets down takes the mode of where
it now is. Climbing and swimming, the other modes, are climbing.py's and
swimming.py's."""

from __future__ import annotations

from msgspec.structs import replace
from tabletrail.core.rulesets.speed_meters.board import (
    MODES,
    above_ground,
    mode_of,
    others_at,
    with_given,
)
from tabletrail.core.rulesets.speed_meters.geometry import (
    COMPASS,
    JudgeFn,
    distance3,
    hover_height,
    level,
    sign,
    step3,
    swimmable,
    water_bottom,
)
from tabletrail.core.rulesets.speed_meters.part import SpeedPart
from tabletrail.events.commands.speed_meters import Fly, Glide, Hover, Land, Leap, Teleport
from tabletrail.ruleset_api import (
    CU,
    GM_RULING,
    WALLS,
    XY,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Heading,
    Pos,
    Refusal,
    Step,
    blockers,
    fmt,
    handles,
    require,
    show,
    sight_walls,
    step_blocked,
    to_cu,
)
from tabletrail.ruleset_api import events as ev

GLIDE_RATE = 5 * CU  # glide: "at a rate of 5 meters when your turn starts"
GLIDE = "glide"  # glide: the mark on a gliding fighter, [dx, dy]: where the glide carries it


class Modes(SpeedPart):
    """The Movements in the air, the teleport and the glide; the mode of a piece the GM sets down."""

    # --- fly, special jump, hover: Movements through the air --------------------------------

    def air_step(self, rule: str, mode: str) -> JudgeFn:
        """fly and special-jump: a step through the air in any direction, never into anything solid."""

        def judge(
            state: EncounterState, f: Fighter, frm: Pos, to: Pos, parity: int, last: bool
        ) -> tuple[Step, tuple[str, ...]]:
            self.rs.not_solid(state, to, obstacles=False)
            self.rs.above_floor(state, to, rule)
            self.rs.no_enemy(state, f, to)
            return step3(state, frm, to, parity, mode), (rule,)

        return judge

    @handles(Fly)
    def fly(self, b: Batch, cmd: Fly, dice: Dice) -> None:
        """fly: any direction, even straight up, and the Movement may end in the air."""
        f = self.rs.mover(
            b.state,
            cmd.fighter,
            ("walking", "flying", "hovering", "climbing", "swimming", "gliding"),
            "flying",
        )
        rule = self.rule("fly")
        speed = self.rs.stat(f, "fly")
        require(speed > 0, rule, f"{f.id} has no Fly speed (stat fly)")
        speed = with_given(f, speed)  # adjust: what the GM gave or took for this Movement
        plan, _ = self.rs.plan(b.state, f, cmd.path, rule, lambda x, y, z: z, speed)
        self.rs.begin_movement(b, f, "a flying Movement")
        self.rs.set_mode(b, f.id, "flying", rule)
        self.rs.through(
            b, dice, f, plan, self.air_step(rule, "fly"), budget=speed, rule=rule, what="the flight"
        )
        now = b.state.fighter(f.id)
        assert now is not None
        if above_ground(b.state, now) == 0:
            self.rs.settle_mode(b, f.id, rule, "lands")

    @handles(Leap)
    def leap(self, b: Batch, cmd: Leap, dice: Dice) -> None:
        """special-jump: any direction for the Movement, but it must come down on a surface."""
        f = self.rs.mover(b.state, cmd.fighter, ("walking",), "a special jump")
        rule = self.rule("special-jump")
        speed = self.rs.stat(f, "jump")
        require(speed > 0, rule, f"{f.id} has no special Jump speed (stat jump)")
        speed = with_given(f, speed)  # adjust: what the GM gave or took for this Movement
        grid = b.state.grid
        plan, end = self.rs.plan(b.state, f, cmd.path, rule, lambda x, y, z: grid.top[y][x], speed)
        floor = grid.top[end[1]][end[0]]
        require(
            end[2] == floor and not swimmable(grid, end[0], end[1]),
            rule,
            f"a special jump must land on a surface, not airborne: {show(end)} at {fmt(end[2])} m is "
            + (f"{fmt(end[2] - floor)} m above the ground" if end[2] != floor else "deep water"),
        )
        self.rs.begin_movement(b, f, "a special-jump Movement")
        stopped = self.rs.through(
            b, dice, f, plan, self.air_step(rule, "leap"), budget=speed, rule=rule, what="the jump"
        )
        now = b.state.fighter(f.id)
        assert now is not None
        if stopped and above_ground(b.state, now) > 0:
            self.rs.drop(b, dice, f.id, rule=rule, bumps=cmd.bumps, note="the jump was cut short in the air")

    @handles(Hover)
    def hover(self, b: Batch, cmd: Hover, dice: Dice) -> None:
        """hover: 1 m above the ground, over land obstacles, hazards and rough terrain alike."""
        f = self.rs.mover(b.state, cmd.fighter, ("walking", "hovering", "flying"), "hovering")
        rule = self.rule("hover")
        speed = self.rs.stat(f, "hover")
        require(speed > 0, rule, f"{f.id} has no Hover speed (stat hover)")
        speed = with_given(f, speed)  # adjust: what the GM gave or took for this Movement
        plan = self.hover_plan(b.state, f, self.rs.cells(b.state, f, cmd.path))
        self.rs.begin_movement(b, f, "a hovering Movement")
        self.rs.set_mode(b, f.id, "hovering", rule)
        self.rs.through(b, dice, f, plan, self.hover_step, budget=speed, rule=rule, what="the hover")

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
        self.rs.not_solid(state, to, obstacles=False)  # a wall is no land obstacle: it blocks a hover
        lift = z - max(frm[2], hover_height(grid, frm[0], frm[1]))
        most = to_cu(state.settings["hover_rise"])
        if lift > most:
            raise Refusal(
                self.rule("hover"),
                f"the ground at {show(to)} is {fmt(lift)} m higher than at {show(frm)}: a hover keeps 1 m "
                f"above the ground and rises with it at most {fmt(most)} m a step (setting hover_rise)",
            )
        self.rs.no_enemy(state, f, to)
        # Priced over the ground covered only: no extra for rough ground, nor for rising with it.
        return step3(state, level(frm, to), to, parity, "hover"), (self.rule("hover"),)

    @handles(Land)
    def land(self, b: Batch, cmd: Land, dice: Dice) -> None:
        """hover: a hovering fighter settles the last meter; flyers land by flying down."""
        f = self.rs.acting(b.state, cmd.fighter)
        mode = mode_of(f)
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
        self.rs.settle_mode(b, f.id, self.rule("hover"))

    # --- teleport ---------------------------------------------------------------------------

    @handles(Teleport)
    def teleport(self, b: Batch, cmd: Teleport, dice: Dice) -> None:
        """teleport: appear in any space within range that the teleporter can see."""
        f = self.rs.mover(b.state, cmd.fighter, tuple(m for m in MODES if m != "falling"), "a teleport")
        rule = self.rule("teleport")
        reach = self.rs.stat(f, "teleport")
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
            z <= ground or self.rs.stat(f, "fly") > 0,
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
        self.rs.can_end(b.state, replace(f, pos=dest), "the teleport")
        self.rs.begin_movement(b, f, "a teleport Movement")
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
            self.rs.set_mode(b, f.id, "flying", rule, "appears in the air, flying")
        else:
            self.rs.settle_mode(b, f.id, rule)

    # --- gliding ----------------------------------------------------------------------------

    @handles(Glide)
    def glide(self, b: Batch, cmd: Glide, dice: Dice) -> None:
        """glide: spread out off an edge or from the air; the glide itself moves at turn start."""
        f = self.rs.mover(b.state, cmd.fighter, ("walking", "flying", "hovering", "climbing"), "a glide")
        rule = self.rule("glide")
        require(self.rs.stat(f, "glide") > 0, rule, f"{f.id} has no Glide speed (stat glide)")
        rate = GLIDE_RATE  # glide: the document's rate, whatever number follows Glide
        grid = b.state.grid
        heading = (sign(cmd.toward[0] - f.pos[0]), sign(cmd.toward[1] - f.pos[1]))
        require(heading != (0, 0), rule, f"glide toward {show(cmd.toward)}: that is where {f.id} is")
        first = (f.pos[0] + heading[0], f.pos[1] + heading[1])
        if above_ground(b.state, f) <= 0:
            below = f.pos[2] - grid.top[first[1]][first[0]] if grid.inside(*first) else 0
            require(
                below > CU,
                rule,
                f"a glide starts in the air or off an edge: {show(first)} is {fmt(below)} m below {f.id}, "
                "not more than 1 m",
            )
        self.rs.begin_movement(b, f, "a Movement to start gliding")
        self.rs.set_mode(b, f.id, "gliding", rule)
        b.emit(
            ev.Marked(
                fighter=f.id,
                key=GLIDE,
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
            others = others_at(b.state, fid, (nx, ny, z))
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
        while steps and others_at(b.state, fid, steps[-1].to):
            ended = steps.pop().to
            names = ", ".join(o.id for o in others_at(b.state, fid, ended))
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
        (x, y), onto = self.rs.landing_space(b.state, fid, (x, y), z)  # occupancy: fall_onto_fighter
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
        self.rs.settle_mode(b, fid, rule, "lands from the glide")

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """glide: a glider moves across and sinks as its turn starts."""
        f = b.state.fighter(fighter_id)
        assert f is not None
        if mode_of(f) == "gliding":
            self.glide_leg(b, dice, f.id)

    def heading(self, state: EncounterState, f: Fighter) -> Heading | None:
        """glide: where the glide carries the fighter, for the board's arrow."""
        glide = f.marks.get(GLIDE)
        if isinstance(glide, list | tuple) and len(glide) == 2:
            return Heading(int(glide[0]), int(glide[1]), 0, "glides")
        return None

    # --- a piece the GM sets down --------------------------------------------------------------

    def settle(self, b: Batch, dice: Dice) -> None:
        """A piece the GM places (`place`) on the ground or in water takes the mode of where it now
        is: a climber set on open ground is on no surface any more (climb), nor is a faller or a
        glider still in the air; left in its old mode it could neither walk nor climb."""
        for event in list(b.events):
            if isinstance(event, ev.Placed) and event.how == "gm":
                self.set_down(b, event.fighter)

    def set_down(self, b: Batch, fid: str) -> None:
        """The mode of a fighter the GM set on the ground follows where it is (recorded as an event)."""
        f = b.state.fighter(fid)
        if f is None or mode_of(f) in ("flying", "hovering") or above_ground(b.state, f) > 0:
            return
        self.rs.settle_mode(b, fid, GM_RULING, "set down on the ground: its mode follows where it is")
