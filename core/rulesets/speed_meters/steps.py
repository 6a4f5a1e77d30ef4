"""speed-meters step policies: how `core.engine.movement.walk` prices each step.

`_Walking` prices a walking fighter's steps (movement, occupancy, maneuver,
jump, rough), for the walking part's Movements and a grappler following on
foot (push-pull); `_Through` prices a 3-D Movement along a planned path with
a mode's judge (modes.py, swimming.py). Both are given the ruleset, whose
questions (occupancy, a prone body's price) they ask.
"""

from __future__ import annotations

from collections.abc import Hashable

from msgspec.structs import replace
from tabletrail.core.rulesets.speed_meters.board import others_at
from tabletrail.core.rulesets.speed_meters.geometry import JudgeFn, swimmable
from tabletrail.core.rulesets.speed_meters.part import SpeedRules
from tabletrail.ruleset_api import (
    CU,
    XY,
    EncounterState,
    Fighter,
    Pos,
    QuietSteps,
    Refusal,
    Step,
    exact_length,
    flat_step,
    fmt,
    fmt_exact,
    is_prone,
    rounded,
    show,
    sign,
)

MANEUVER_LIMIT = 2 * CU  # maneuver: "for no more than 2 meters of the movement"
JUMP_UP = CU  # jump: "1 meter vertically"
JUMP_ACROSS = 2  # jump: "or 2 meters horizontally" (spaces of air)


class _Walking(QuietSteps):
    """How a walking fighter's steps are priced under speed-meters.

    `jumps` (a real Movement): spaces with no footing within 1 m below are
    crossed in the air and counted, with steps up, as maneuver meters. The
    reachable area uses `jumps=False`: it needs prices that depend only on the
    step, so it leaves out jumps across and the 2 m cap (over-approximating
    only where a path would take more than 2 m of jumps).
    """

    # A step's price reads only its two cells' legend entries (Speed, posture and the diagonal rule are in
    # the table key; occupants are priced apart), and whether a move may end on an empty cell reads only
    # that cell: the reachable area may price and judge a window in bulk (core/search/step_table.py).
    prices_read_two_cells = True
    ends_read_one_cell = True

    def __init__(
        self, rs: SpeedRules, speed: int, *, jumps: bool = False, maneuvers: int = MANEUVER_LIMIT
    ) -> None:
        self.rs = rs
        self.speed = speed
        self.maneuvers = maneuvers  # maneuver: 2 m, and what the GM gave or took (adjust)
        self.unit = rs.unit
        self.jumps = jumps
        self.spent = 0  # this Movement's cost so far: its whole part, and its √2 part (core/board/units.py)
        self.spent_root2 = 0
        self.maneuver = 0  # maneuver: meters of jumps so far (their exact length rounded once)
        self.jumped = (0, 0)  # ... exact: whole and √2 parts (a euclidean diagonal jump, core/board/units.py)
        self.across = 0  # jump: spaces crossed in the air in the jump under way
        self.risen = 0  # movement: meters gone up by jumping in this Movement (at most 1 in all)
        self._cites: tuple[str, ...] = ()

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        grid = state.grid
        rs = self.rs
        # occupancy: walls and solid obstacles are never passed.
        if grid.blocked(*to) or grid.has(*to, "solid"):
            raise Refusal(
                rs.rule("occupancy"),
                f"{show(to)} is {grid.kind(*to).terrain}: a solid obstacle blocks the way",
            )
        crawl = rs.prone_factor(state, f)  # movement: a prone fighter (setting prone_move)
        takeoff = frm[2]
        in_air = takeoff > grid.top[frm[1]][frm[0]]  # mid-jump: frm is above its own ground
        ground = grid.top[to[1]][to[0]]
        cites = [rs.rule("movement")]
        if takeoff - ground > CU:
            # jump: no footing within 1 m below, so this space is crossed in the air.
            if not self.jumps:
                raise Refusal(
                    rs.rule("movement"),
                    f"{show(to)} is {fmt(takeoff - ground)} m lower than {show(frm)}: "
                    "stepping off would be a fall",
                )
            step = flat_step(
                grid,
                frm,
                to,
                parity,
                diagonal=state.settings["diagonal"],
                version=state.rules_version,
                mode="jump",
            )
            step = replace(step, to=(to[0], to[1], takeoff))
            self.across += 1
            if self.across > JUMP_ACROSS:
                raise Refusal(
                    rs.rule("jump"),
                    f"a jump goes at most {JUMP_ACROSS} m across: "
                    f"{show(to)} is space {self.across} in the air "
                    f"with no footing within 1 m below the {fmt(takeoff)} m take-off",
                )
            cites.append(rs.rule("jump"))
        else:
            up = ground - takeoff
            if in_air and up > 0 and state.settings["jump_up_and_across"] != "both":
                raise Refusal(
                    rs.rule("jump"),
                    f"a jump goes 1 m up or 2 m across, not both (jump_up_and_across = either; 'both' "
                    f"counts the climb and the air crossed within the 2 m of maneuver): "
                    f"{show(to)} is {fmt(up)} m above the take-off",
                )
            if up > JUMP_UP:
                raise Refusal(
                    rs.rule("movement"),
                    f"{show(to)} is {fmt(up)} m higher than {show(frm)}; "
                    "a Movement goes at most 1 m up, by jumping",
                )
            if grid.has(*to, "deep") or swimmable(grid, *to):
                raise Refusal(rs.rule("swim"), f"{show(to)} is deep water: getting in is a swim, not a walk")
            # rough: 2 m a space, unless the mover's Speed is 1 (the rule's own exception, cited too).
            rough = grid.has(*to, "rough") and self.speed != CU
            step = flat_step(
                grid,
                frm,
                to,
                parity,
                diagonal=state.settings["diagonal"],
                version=state.rules_version,
                terrain_factor=2 if rough else 1,
            )
            if grid.has(*to, "rough"):
                cites.append(rs.rule("rough"))
            self.across = 0
            if up > 0 and not grid.has(*to, "stairs"):
                step = replace(step, mode="jump")  # movement, jump: up only by jumping
                cites.append(rs.rule("jump"))
                self.risen += up
                # movement: "only 1 meter vertically by jumping" is the Movement's meter, not each
                # step's; going down is not limited by it. (The reachable area prices single steps.)
                if self.jumps and self.risen > JUMP_UP:
                    raise Refusal(
                        rs.rule("movement"),
                        f"{show(to)} would make {fmt(self.risen)} m up by jumping in this Movement: "
                        "a Movement goes only 1 meter vertically by jumping (a new Movement may go up again)",
                    )
        if crawl > 1:  # prone_move = crawl: the step costs the crawl's multiple of its price
            step = replace(step, cost=step.cost * crawl, mode=step.mode or "crawl")
        cites.extend(rs.no_enemy(state, f, step.to))  # occupancy: cited when passing an ally
        whole, root2 = exact_length((step,))
        self.spent, self.spent_root2 = self.spent + whole, self.spent_root2 + root2
        if step.mode == "jump" and self.jumps:
            self.jumped = (self.jumped[0] + whole, self.jumped[1] + root2)
            self.maneuver = rounded(*self.jumped)
            # maneuver: a Movement over budget is refused for that first (by walk).
            over = sign(self.jumped[0] - self.maneuvers, self.jumped[1]) > 0  # exact, in integers
            if over and sign(self.spent - self.speed, self.spent_root2) <= 0:
                raise Refusal(
                    rs.rule("maneuver"),
                    f"jumps in this Movement come to {fmt_exact(*self.jumped, self.maneuvers)} m by "
                    f"{show(to)}; at most {fmt(self.maneuvers)} m of a Movement may be jumps, rolls or "
                    "slides",
                )
            cites.append(rs.rule("maneuver"))
        self._cites = tuple(cites)
        return step

    def cites(self, step: Step) -> tuple[str, ...]:
        return self._cites

    def table_key(self, state: EncounterState, f: Fighter) -> Hashable | None:
        """What a price reads besides the map and the target cell's occupants (core/search/step_table.py).

        A real Movement (`jumps`) counts its jumps as it goes: its prices are never kept. Of the
        mover's Speed a price reads only whether it is 1 (rough's exception), so fighters of other
        Speeds share one table (issue 29: no cliff when more fighters than tables are kept).
        """
        prone = state.settings["prone_move"] if is_prone(f) else ""  # movement: setting prone_move
        return None if self.jumps else (state.settings["diagonal"], self.speed == CU, prone)

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        self.rs.can_end(state, f)


class _Through(QuietSteps):
    """A Movement along 3-D positions planned in advance (swim, climb, fly, hover, special jump).

    `walk` hands the policy one (x, y) cell at a time, in order; the policy
    knows the height planned for each and asks the mode's judge to price it.
    """

    def __init__(self, rs: SpeedRules, plan: list[Pos], judge: JudgeFn, what: str) -> None:
        self.rs = rs
        self.unit = rs.unit
        self.plan = plan
        self.judge = judge
        self.what = what
        self.i = 0
        self._cites: tuple[str, ...] = ()

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        pos = self.plan[self.i]
        assert (pos[0], pos[1]) == tuple(to), f"{to} is not the planned {pos}"
        self.i += 1
        step, self._cites = self.judge(state, f, frm, pos, parity, self.i == len(self.plan))
        # occupancy: a step through an ally's space cites the row that allows it (enemies were refused)
        if others_at(state, f.id, step.to) and self.rs.rule("occupancy") not in self._cites:
            self._cites = (*self._cites, self.rs.rule("occupancy"))
        return step

    def cites(self, step: Step) -> tuple[str, ...]:
        return self._cites

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        self.rs.can_end(state, f, self.what)
