"""speed-meters forces: movement a fighter does not choose (forced, random).

An effect pushes, pulls or slides a fighter along a path the GM gives (forced),
or sends it a rolled way (random); either is checked step by step by `shift`,
with which the grappling part's shove, push and pull also drive their target
(through the ruleset's `shift`): a push ends farther and is never closer on
the way, a pull the reverse, and a target moved toward a hazard it knows of
may save short of it, prone.
"""

from __future__ import annotations

from tabletrail.core.rulesets.speed_meters.board import above_ground, mode_of, others_at, partner
from tabletrail.core.rulesets.speed_meters.geometry import (
    COMPASS,
    apart,
    grip,
    hover_height,
    level,
    meters_apart,
    ray,
    step3,
    swimmable,
    water_bottom,
)
from tabletrail.core.rulesets.speed_meters.part import SpeedPart
from tabletrail.events.commands.speed_meters import Force, RandomMove
from tabletrail.ruleset_api import (
    CU,
    NEIGHBOURS,
    WALLS,
    XY,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Pos,
    Refusal,
    Step,
    check,
    fmt,
    handles,
    require,
    show,
    step_blocked,
    to_cu,
)
from tabletrail.ruleset_api import events as ev

NUMBERINGS: dict[str, tuple[XY, ...]] = {
    "clockwise": NEIGHBOURS,  # 1 N, 2 NE, 3 E, 4 SE, 5 S, 6 SW, 7 W, 8 NW (row 0 is north)
    "reading": ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)),  # NW N NE W E SW S SE
}


class Forces(SpeedPart):
    """Forced and random movement: the GM's effects, and the step-by-step move every force makes."""

    @handles(Force)
    def force(self, b: Batch, cmd: Force, dice: Dice) -> None:
        """forced: an effect pushes, pulls or slides a fighter along a path the GM gives."""
        rule = self.rule("forced")
        self.rs.gm_only(cmd, rule, "move a creature by an outside force")
        f = self.rs.fighter(b.state, cmd.fighter)
        require(
            cmd.kind in ("push", "pull", "slide"),
            rule,
            f"forced movement is push, pull or slide, not {cmd.kind!r}",
        )
        origin: Pos | None = None
        named = ""
        if cmd.source:
            src = self.rs.fighter(b.state, cmd.source)
            require(
                src.id != f.id,
                rule,
                f"{f.id} can't be the source of its own {cmd.kind}: give another fighter or origin=X,Y",
            )
            origin, named = src.pos, cmd.source
        elif cmd.origin:
            require(
                b.state.grid.inside(cmd.origin[0], cmd.origin[1]),
                rule,
                f"origin {show(cmd.origin)} is off the map",
            )
            ox, oy = cmd.origin[0], cmd.origin[1]
            oz = to_cu(cmd.origin[2]) if len(cmd.origin) > 2 else b.state.grid.top[oy][ox]
            origin, named = (ox, oy, oz), show(cmd.origin)
        require(
            cmd.kind == "slide" or origin is not None,
            rule,
            f"a {cmd.kind} needs where the force comes from: source=FIGHTER or origin=X,Y",
        )
        cells = self.rs.cells(b.state, f, cmd.path)
        self.shift(
            b,
            dice,
            f.id,
            cells,
            kind=cmd.kind,
            origin=origin,
            named=named,
            rule=rule,
            stop_early=False,
            aware=cmd.aware,
            bumps=cmd.bumps,
        )

    @handles(RandomMove)
    def random_move(self, b: Batch, cmd: RandomMove, dice: Dice) -> None:
        """random: 1d8 picks one of the 8 numbered neighbours; the fighter moves that way."""
        rule = self.rule("random")
        self.rs.gm_only(cmd, rule, "send a creature in a random direction")
        f = self.rs.fighter(b.state, cmd.fighter)
        require(cmd.meters >= 1, rule, f"a random move goes at least 1 m, not {cmd.meters}")
        numbering = NUMBERINGS[b.state.settings["random_numbering"]]
        legend = ", ".join(f"{i} {COMPASS[d]}" for i, d in enumerate(numbering, start=1))
        roll = check(
            b,
            dice,
            fighter=f.id,
            name="random direction",
            rule=rule,
            formula="1d8",
            note=f"1d8 for the direction ({legend})",
        )
        require(1 <= roll.number <= 8, rule, f"a d8 shows 1 to 8, not {roll.number}")
        dx, dy = numbering[roll.number - 1]
        cells = ray(b.state.grid, (f.pos[0], f.pos[1]), (dx, dy), cmd.meters)
        self.shift(
            b,
            dice,
            f.id,
            cells,
            kind="slide",
            origin=None,
            named="",
            rule=rule,
            stop_early=True,
            aware=cmd.aware,
            bumps=cmd.bumps,
            meant=cmd.meters * CU,
        )

    def carried(self, state: EncounterState, f: Fighter, x: int, y: int, z: int) -> int:
        """The height a forced move carries a fighter to over (x, y), by its mode."""
        grid = state.grid
        mode = mode_of(f)
        if mode == "hovering":
            return hover_height(grid, x, y)
        if mode == "swimming" and swimmable(grid, x, y):
            return min(max(z, water_bottom(grid, x, y)), grid.top[y][x])
        if mode in ("flying", "gliding", "falling", "climbing"):
            return z
        return grid.top[y][x]

    def shift(
        self,
        b: Batch,
        dice: Dice,
        fid: str,
        cells: list[XY],
        *,
        kind: str,
        origin: Pos | None,
        named: str,
        rule: str,
        stop_early: bool,
        aware: bool,
        bumps: int,
        meant: int | None = None,
    ) -> list[Pos]:
        """forced: move a fighter by force, checked step by step; returns the positions it passed.

        stop_early: a blocked step ends the movement there (a rolled distance);
        otherwise it refuses the command (a path the GM gave). meant: the distance
        the rule gave, in centi-units (default: the cells given), recorded as the
        move's budget so a move cut short says how far it was to go.
        """
        forced = self.rule("forced")
        state = b.state
        grid = state.grid
        f = state.fighter(fid)
        assert f is not None
        held = partner(state, fid)
        if held:
            raise Refusal(
                self.rule("grab"), f"{fid} is held in a grab ({held[0]} grabbing {held[1]}): Immobilized"
            )
        mode = mode_of(f)
        grounded = mode in ("walking", "swimming")
        here = f.pos
        start_apart = apart(origin, here) if origin else 0
        last_apart = start_apart
        steps: list[Step] = []
        passed: list[Pos] = []
        parity, why, over_edge, saved = 0, "", False, False

        def flush(stopped: str = "") -> None:
            """Record the steps taken so far; a move stopped before its first step is recorded too,
            with no steps, so the log says how far the force meant to drive it and what stopped it."""
            if steps or (stopped and not saved):
                b.emit(
                    ev.Moved(
                        fighter=fid,
                        steps=tuple(steps),
                        resource="forced",
                        budget=len(cells) * CU if meant is None else meant,
                        stopped=stopped,
                        rules=(rule,) if rule == forced else (rule, forced),
                        note=f"{kind}" + (f" from {named}" if named else ""),
                    )
                )
                steps.clear()

        for x, y in cells:
            blocked = ""
            z = here[2]
            if not grid.inside(x, y):
                blocked = f"{show((x, y))} is off the map"
            elif wall := step_blocked(b.state, here, (x, y)):  # tabletrail/walls stops it at the edge
                blocked = wall
                if not stop_early:
                    raise Refusal(
                        WALLS, f"the {kind} of {fid} can't go from {show(here)} to {show((x, y))}: {wall}"
                    )
            else:
                z = self.carried(b.state, f, x, y, here[2])
                wet = mode == "swimming" and swimmable(grid, x, y)
                if (
                    grid.blocked(x, y)
                    or (grounded and grid.has(x, y, "solid"))
                    or (not grounded and not wet and z < grid.top[y][x])
                ):
                    blocked = f"{show((x, y))} is {grid.kind(x, y).terrain}: a solid obstacle"
                elif grounded and z - here[2] > CU:
                    rise_m = fmt(z - here[2])
                    blocked = f"{show((x, y))} is {rise_m} m higher: forced movement lifts no one over 1 m"
            edge = not blocked and grounded and here[2] - z > CU
            if edge:
                z = here[2]  # over the edge: in the air above the drop, then it falls
            if not blocked:
                others = [o.id for o in others_at(b.state, fid, (x, y, z))]
                if others:
                    blocked = f"{show((x, y))} is occupied by {', '.join(others)}"
            if blocked:
                if not stop_early:
                    raise Refusal(forced, f"the {kind} of {fid} can't go on: {blocked}")
                why = blocked
                break
            pos = (x, y, z)
            now_apart = apart(origin, pos) if origin else 0
            if kind == "push" and origin and now_apart < last_apart:
                raise Refusal(
                    forced,
                    f"a push may never bring {fid} closer to {named}: "
                    f"{show(pos)} is {meters_apart(origin, pos)} m "
                    f"from it, after {meters_apart(origin, here)} m",
                )
            if kind == "pull" and origin and now_apart > last_apart:
                raise Refusal(
                    forced,
                    f"a pull may never take {fid} farther from {named}: "
                    f"{show(pos)} is {meters_apart(origin, pos)} m "
                    f"from it, after {meters_apart(origin, here)} m",
                )
            hazard = (grounded or mode == "climbing") and (
                grid.has(x, y, "hazard")
                or grid.has(x, y, "trap")
                or (edge and b.state.settings["edge_is_hazard"])
            )
            if hazard and aware:
                flush()
                what = (
                    "drop" if edge and not (grid.has(x, y, "hazard") or grid.has(x, y, "trap")) else "hazard"
                )
                save = check(
                    b,
                    dice,
                    fighter=fid,
                    name="save",
                    rule=forced,
                    target=int(b.state.settings["save_target"]),
                    note=f"moved toward the {what} at {show((x, y))} it knows of: a Save as a reaction stops "
                    "it just short, prone",
                )
                if save.passed:
                    now = b.state.fighter(fid)
                    assert now is not None
                    self.rs.change(
                        b,
                        now,
                        "posture",
                        "knock_down",
                        forced,
                        f"stops just short of the {what} at {show((x, y))}, prone",
                    )
                    why, saved = f"saved short of the {what} at {show((x, y))}", True
                    break
            step = step3(b.state, level(here, pos), pos, parity, kind)  # meters across, whatever the rise
            steps.append(step)
            parity = step.parity
            passed.append(pos)
            here, last_apart = pos, now_apart
            if edge:
                over_edge, why = True, f"over the edge at {show((x, y))}"
                break
        flush(why)
        if origin and not stop_early and not saved:
            if kind == "push" and last_apart <= start_apart:
                raise Refusal(
                    forced,
                    f"a push must end farther from {named} than it started: "
                    f"{meters_apart(origin, here)} m is not "
                    f"more than {meters_apart(origin, f.pos)} m",
                )
            if kind == "pull" and last_apart >= start_apart:
                raise Refusal(
                    forced,
                    f"a pull must end closer to {named} than it started: "
                    f"{meters_apart(origin, here)} m is not "
                    f"less than {meters_apart(origin, f.pos)} m",
                )
        if not stop_early:
            now = b.state.fighter(fid)
            assert now is not None
            self.rs.can_end(b.state, now, f"the {kind}")
        now = b.state.fighter(fid)
        assert now is not None
        torn = (
            mode == "climbing"
            and bool(passed)
            and above_ground(b.state, now) > 0
            and grip(grid, now.pos) is None
        )
        if over_edge or torn:
            self.rs.drop(
                b,
                dice,
                fid,
                rule=rule,
                bumps=bumps,
                note="forced over the edge" if over_edge else "torn from its hold",
            )
        elif passed and (grounded or above_ground(b.state, now) == 0):
            self.rs.settle_mode(b, fid, rule)  # into or out of deep water, or set down on a surface
        return passed
