"""initiative-yards jumps: onto a ledge, over an obstacle, across a gap.

Jumping and pulling up onto a ledge (ledge, from the document's Climbing),
vaulting an obstacle (vault) and leaping a gap (leap): each costs movement
like a move and ends in an Initiative check, whose failure falls (the
ruleset's `fall_down`, falls.py) or lands prone. `_PullUp` and `_Jump` price
them, extending walk.py's `Walk`; `Jumps` is that family as a part of the
ruleset.
"""

from __future__ import annotations

from msgspec.structs import replace
from tabletrail.core.rulesets.initiative_yards.part import YardsPart
from tabletrail.core.rulesets.initiative_yards.walk import Walk, WalkRules
from tabletrail.events.commands.initiative_yards import Leap, PullUp, Vault
from tabletrail.ruleset_api import (
    ALTERNATING,
    XY,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Grid,
    Pos,
    Step,
    exact_length,
    flat_step,
    fmt,
    half_down,
    handles,
    line,
    require,
    rise,
    rounded,
    show,
    sign,
    to_cu,
    waypoint,
)


class Jumps(YardsPart):
    """The jump and pull, the vault and the leap."""

    @handles(PullUp)
    def pull_up(self, b: Batch, cmd: PullUp, dice: Dice) -> None:
        rule = self.rule("ledge")
        f, tether = self.rs.mover(b, cmd.fighter, "a jump and pull")
        self.not_prone(f, "ledge", "jumping for a ledge")
        to = waypoint(b.state, cmd.to, rule)
        require(
            max(abs(to[0] - f.pos[0]), abs(to[1] - f.pos[1])) == 1,
            rule,
            f"{show(to)} is not next to {f.id} at {show(f.pos)}: jump for a ledge from beside it",
        )
        grid = b.state.grid
        # ledge: "any ledge": every cell higher than the fighter that can be stood on (a map ledge,
        # a roof's edge, the rim of a gap, the top of an obstacle: vault speaks of spending "the
        # movement to climb up on top of the piece of terrain"); walls are not stood on.
        require(
            not grid.blocked(*to), rule, f"{show(to)} is {grid.kind(*to).terrain}: nothing to pull up onto"
        )
        here = [o.id for o in b.state.at(*to)]
        require(not here, rule, f"{', '.join(here)} is on the ledge at {show(to)}")
        h = grid.top[to[1]][to[0]] - f.pos[2]
        require(h > 0, rule, f"{show(to)} is not above {f.id}: no ledge to pull up onto, walk there")
        height = self.rs.stat(f, "height")
        require(
            2 * h <= 3 * height,
            rule,
            f"ledge {fmt(h)} yd > 1.5 x own height {fmt(height)} yd = {fmt(3 * height // 2)} yd",
        )
        policy = _PullUp(self.rs, dice, tether=tether, base=f.pos)
        self.rs.go(b, f, policy, [to], dice, rule=rule, what="the jump and pull")

    @handles(Vault)
    def vault(self, b: Batch, cmd: Vault, dice: Dice) -> None:
        rule = self.rule("vault")
        f, tether = self.rs.mover(b, cmd.fighter, "a vault")
        self.not_prone(f, "vault", "vaulting")
        land = waypoint(b.state, cmd.to, rule)
        over = line((f.pos[0], f.pos[1]), land)[:-1]
        grid = b.state.grid
        require(bool(over), rule, f"nothing lies between {show(f.pos)} and {show(land)} to vault")
        height = self.rs.stat(f, "height")
        level = to_cu(b.state.settings["step_height"])
        for c in over:
            require(vaultable(grid, c, f.pos[2], level), rule, f"{show(c)} on the way is nothing to vault")
            h = grid.top[c[1]][c[0]] - f.pos[2]
            require(
                2 * h < height,
                rule,
                f"obstacle {fmt(h)} yd at {show(c)} is not lower than half of own height "
                f"{fmt(height)} yd ({fmt(half_down(height))} yd)",
            )
        self.landing(b.state, f, land, rule, "a vault")
        policy = _Jump(self.rs, dice, "vault", over, land, f.pos, tether=tether)
        self.rs.go(b, f, policy, [*over, land], dice, rule=rule, what="the vault")

    @handles(Leap)
    def leap(self, b: Batch, cmd: Leap, dice: Dice) -> None:
        rule = self.rule("leap")
        f, tether = self.rs.mover(b, cmd.fighter, "a leap")
        self.not_prone(f, "leap", "leaping")
        land = waypoint(b.state, cmd.to, rule)
        grid = b.state.grid
        require(not grid.has(f.pos[0], f.pos[1], "gap"), rule, f"{f.id} is in the gap: leap from its edge")
        over = line((f.pos[0], f.pos[1]), land)[:-1]
        require(bool(over), rule, f"no gap lies between {show(f.pos)} and {show(land)} to leap")
        parity, here = 0, f.pos
        level = to_cu(b.state.settings["step_height"])
        spans: list[Step] = []
        for c in over:
            require(
                in_gap(grid, c, f.pos[2], level),
                rule,
                f"{show(c)} on the way is not part of the gap: land there first",
            )
            step = flat_step(
                grid, here, c, parity, diagonal=b.state.settings["diagonal"], version=b.state.rules_version
            )
            spans.append(step)
            parity, here = step.parity, step.to
        # leap: "half the fighter's maximum movement"; drag: a move while dragging is at "half their
        # maximum movement", so a leap in a dragging move action is at most a quarter of Initiative.
        # The gap is measured exactly (a euclidean diagonal is √2) and compared in integers.
        most = self.rs.max_move(b.state, f)
        whole, root2 = exact_length(spans)
        width = rounded(whole, root2)
        require(
            sign(2 * whole - most, 2 * root2) <= 0,
            rule,
            f"gap {fmt(width)} yd > half of max movement {fmt(half_down(most))} yd",
        )
        self.landing(b.state, f, land, rule, "a leap")
        policy = _Jump(self.rs, dice, "leap", over, land, f.pos, tether=tether, width=width)
        self.rs.go(b, f, policy, [*over, land], dice, rule=rule, what="the leap")

    def not_prone(self, f: Fighter, rule: str, what: str) -> None:
        """ledge, vault, leap: a prone fighter can only crawl, so it jumps for nothing."""
        require(
            f.state("posture", "standing") != "prone",
            self.rule(rule),
            f"{f.id} is prone and can only crawl: stand up before {what}",
        )

    def landing(self, state: EncounterState, f: Fighter, land: XY, rule: str, what: str) -> None:
        """Where a vault or a leap comes down: open ground, level with the take-off."""
        grid = state.grid
        kind = grid.kind(*land)
        for tag in ("obstacle", "gap"):
            require(
                not grid.has(*land, tag), rule, f"{what} can't land on {show(land)}: it is {kind.terrain}"
            )
        require(not grid.blocked(*land), rule, f"{what} can't land on {show(land)}: it is {kind.terrain}")
        here = [o.id for o in state.at(*land) if o.id != f.id]
        require(not here, rule, f"{what} can't land on {show(land)}: {', '.join(here)} is there")
        drop = grid.top[land[1]][land[0]] - f.pos[2]
        level = to_cu(state.settings["step_height"])
        require(
            abs(drop) <= level,
            rule,
            f"{what} lands level, but {show(land)} is {fmt(abs(drop))} yd "
            f"{'higher' if drop > 0 else 'lower'} than {show(f.pos)}",
        )


def vaultable(grid: Grid, cell: XY, takeoff: int, level: int) -> bool:
    """vault: "vault over anything less than half height": a cell drawn as an `obstacle`, or any
    open cell raised more than `level` (step_height) above the take-off, such as a crate or a low
    wall drawn as raised ground or a ledge (how high it may be is vault's other test)."""
    x, y = cell
    return grid.has(x, y, "obstacle") or (not grid.blocked(x, y) and grid.top[y][x] - takeoff > level)


def in_gap(grid: Grid, cell: XY, takeoff: int, level: int) -> bool:
    """leap: "jump from on ledge over to another over a gap": a cell drawn as a `gap`, or any open
    cell more than `level` (step_height) below the take-off, such as the street between two roofs."""
    x, y = cell
    return grid.has(x, y, "gap") or (not grid.blocked(x, y) and takeoff - grid.top[y][x] > level)


class _Jump(Walk):
    """A vault or a leap: airborne over `over`, a check on landing (vault, leap)."""

    def __init__(
        self,
        rs: WalkRules,
        dice: Dice,
        kind: str,
        over: list[XY],
        land: XY,
        takeoff: Pos,
        *,
        tether: tuple[Fighter, ...] = (),
        width: int = 0,
    ) -> None:
        super().__init__(rs, dice, tether=tether, mode=kind)
        self.kind = kind
        self.over = over
        self.land = land
        self.takeoff = takeoff
        self.width = width

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        if to not in self.over:
            step = super().price(state, f, frm, to, parity)
            self.frm = self.takeoff  # engage: the landing is compared with where the jump began
            return step
        self.frm = frm
        step = flat_step(
            state.grid,
            frm,
            to,
            parity,
            diagonal=state.settings["diagonal"],
            version=state.rules_version,
            mode=self.kind,
        )
        cost = step.cost
        if self.kind == "vault" and to == self.over[0] and state.settings["vault_cost"] == "climb":
            cost += max(0, state.grid.top[to[1]][to[0]] - self.takeoff[2])  # vault: paying to climb it
        return replace(step, to=(to[0], to[1], self.takeoff[2]), cost=cost)  # in the air, at take-off height

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        return (step.to[0], step.to[1]) == self.land

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        if (step.to[0], step.to[1]) != self.land:
            return ""  # nothing happens in mid-air
        rs = self.rs
        rule = rs.rule(self.kind)
        f = b.state.fighter(fighter_id)
        assert f is not None and self.dice is not None
        what = (
            f"vaulting {len(self.over)} yd of obstacle"
            if self.kind == "vault"
            else f"leaping a {fmt(self.width)} yd gap"
        )
        result = rs.initiative_check(b, self.dice, f, rule, f"{what} to {show(self.land)}")
        if not result.passed:
            if self.kind == "leap":
                # leap: a miss falls to the ground in the middle of the gap.
                middle = self.over[(len(self.over) - 1) // 2]
                return rs.fall_down(
                    b,
                    f.id,
                    middle,
                    self.takeoff[2],
                    "leap",
                    f"misses the leap and falls at {show(middle)}",
                    frm=self.takeoff,
                    said=f"missed the leap: fell into the gap at {show(middle)}",
                )
            # vault: a failed vault lands prone on the far side.
            rs.change(b, f, "posture", "knock_down", rule, note="fails the check and lands prone")
        return self.arrive(b, fighter_id, step)


class _PullUp(Walk):
    """Jump and pull up onto a ledge: costs its height, then a check or a fall (ledge)."""

    def __init__(self, rs: WalkRules, dice: Dice, *, tether: tuple[Fighter, ...], base: Pos) -> None:
        super().__init__(rs, dice, tether=tether, mode="pull-up")
        self.base = base

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        self.frm = frm
        step = flat_step(
            state.grid,
            frm,
            to,
            parity,
            diagonal=state.settings["diagonal"],
            version=state.rules_version,
            mode="pull-up",
        )
        # ledge: "they spend movement moving vertically equal to the height of the ledge": the height
        # only, so a pull-up from a corner is no diagonal paid for: the alternating count stays.
        paid = parity if state.settings["diagonal"] == ALTERNATING else step.parity
        step = replace(step, cost=rise(frm, step.to), parity=paid, root2=0)
        self.keep_within(state, f, step)
        return step

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        return True

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        rs = self.rs
        rule = rs.rule("ledge")
        f = b.state.fighter(fighter_id)
        assert f is not None and self.dice is not None
        h = step.to[2] - self.base[2]
        result = rs.initiative_check(
            b, self.dice, f, rule, f"pulling up a {fmt(h)} yd ledge at {show(step.to)}"
        )
        if result.passed:
            return self.arrive(b, fighter_id, step)
        top = step.to[2] if b.state.settings["ledge_fall"] == "top" else self.base[2]
        base = (self.base[0], self.base[1])
        return rs.fall_down(
            b,
            f.id,
            base,
            top,
            "ledge",
            f"fails to pull up and falls from {fmt(top)} yd to {show(base)}",
            said=f"fell from the ledge at {show(step.to)}",
        )
