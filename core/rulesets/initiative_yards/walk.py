"""initiative-yards' step policy: how every kind of move prices its steps and what happens on arrival.

`Walk` prices a walk, a crawl and a climb up stairs or a ladder, and on arrival
slips (slippery), falls off an edge (fall) or engages (engage); jumps.py
extends it for jumps and dragging.py prices a drag with it. It sits below the
parts (walking.py, jumps.py, dragging.py) and below part.py, whose `YardsRules.go`
takes one, so it reaches the ruleset through `WalkRules`, the few of the
ruleset's methods a step asks for, and imports nothing of the package but
board.py.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Protocol

from msgspec.structs import replace
from tabletrail.core.rulesets.initiative_yards.board import (
    CLIMBABLE,
    DRAGGING,
    SLIP_CHECKED,
    STEP_OFF,
    breaking_away,
    hostile,
    newly_in_reach,
    within_reach,
)
from tabletrail.ruleset_api import (
    XY,
    Batch,
    CheckRolled,
    Dice,
    EncounterState,
    Fighter,
    Pos,
    Refusal,
    Step,
    crawl_factor,
    end_alone,
    flat_step,
    fmt,
    rise,
    show,
    to_cu,
)
from tabletrail.ruleset_api import events as ev


class WalkRules(Protocol):
    """What a step asks of the ruleset it is priced for (`InitiativeYards` answers it; part.py's
    `YardsRules` extends it with what the families ask)."""

    @property
    def unit(self) -> str:
        """The length of one grid cell ("yd"), which a step's lengths are told in."""
        ...

    def rule(self, name: str) -> str:
        """The full catalogue id of one of the ruleset's rules, cited by a refusal or an event."""
        ...

    def change(self, b: Batch, f: Fighter, machine: str, trigger: str, rule: str, note: str = "") -> str:
        """A state machine's transition (a slip or a failed vault knocks down), recorded or refused."""
        ...

    def left(self, state: EncounterState, f: Fighter) -> int:
        """What is still unspent of this turn's move action, in centi-yards (a slip loses it)."""
        ...

    def initiative_check(self, b: Batch, dice: Dice, f: Fighter, rule: str, note: str) -> CheckRolled:
        """The Initiative check every attempt ends in (slippery, vault, leap, ledge), recorded."""
        ...

    def fall_down(
        self,
        b: Batch,
        fighter_id: str,
        cell: XY,
        from_z: int,
        cause: str,
        note: str,
        frm: Pos | None = None,
        said: str = "",
    ) -> str:
        """fall: straight down onto `cell`, prone, with its damage; why a move ends there."""
        ...

    def arrived(self, b: Batch, fighter_id: str, frm: Pos) -> str:
        """engage: what arriving where a fighter now stands does; why a move ends there, or ""."""
        ...


def slips(state: EncounterState, f: Fighter, step: Step) -> bool:
    """Does entering this step's cell call for a slippery check (slippery)?"""
    grid = state.grid
    x, y = step.to[0], step.to[1]
    if not (grid.has(x, y, "slippery") or grid.has(x, y, "unstable")):
        return False
    return not (state.settings["slippery_checks"] == "per-move" and SLIP_CHECKED in f.marks)


class Walk:
    """How a fighter's steps are priced and what happens where it arrives.

    Walking, crawling (prone: double cost) and climbing stairs and ladders
    (vertical yards cost like horizontal ones). Subclasses price jumps. Under
    diagonal = euclidean a step keeps its length exact (Step.root2: √2 a diagonal,
    2·√2 crawled) and the move is held against the move action exactly (core/board/units.py).
    """

    def __init__(
        self, rs: WalkRules, dice: Dice | None, *, tether: tuple[Fighter, ...] = (), mode: str = ""
    ) -> None:
        self.rs = rs
        self.unit = rs.unit
        self.dice = dice
        self.tether = tether
        self.mode = mode
        self.frm: Pos = (0, 0, 0)  # where the step last priced starts (engage compares both ends)

    # --- pricing ---------------------------------------------------------------

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        self.frm = frm
        rs, grid = self.rs, state.grid
        kind = grid.kind(*to)
        if grid.blocked(*to):
            raise Refusal(rs.rule("move"), f"{show(to)} is {kind.terrain}: nothing moves through it")
        high = grid.top[to[1]][to[0]] - frm[2]
        if grid.has(*to, "obstacle") and high > 0:  # along its top, from level or above, it is ground
            raise Refusal(
                rs.rule("vault"),
                f"{show(to)} is an obstacle {fmt(high)} yd high: vault it, climb on top (pull-up {f.id} "
                f"{show(to)}) or go round",
            )
        for other in state.at(*to):
            if hostile(f, other):
                raise Refusal(rs.rule("move"), f"{show(to)} is held by {other.id}, an enemy of {f.id}")
        prone = f.state("posture", "standing") == "prone"
        factor = self.crawl_factor(state, f)  # crawl: every yard crawled costs 2
        modes = ["crawl"] if prone else ([self.mode] if self.mode else [])
        step = flat_step(
            grid,
            frm,
            to,
            parity,
            diagonal=state.settings["diagonal"],
            version=state.rules_version,
            terrain_factor=factor,
        )
        dz = rise(frm, step.to)
        if dz:
            if any(grid.has(*c, t) for c in ((frm[0], frm[1]), to) for t in CLIMBABLE):
                # climb: stairs and ladders cost their vertical yards like horizontal ones.
                step = replace(step, cost=step.cost + abs(dz) * factor)
                modes.append("climb")
            elif abs(dz) > to_cu(state.settings["step_height"]):
                if dz > 0 or state.settings["step_off"] != "fall":
                    self.refuse_height(state, f, frm, to, dz)
                # fall: stepping off the edge; the fighter falls straight down once over the cell.
                step = replace(step, to=(to[0], to[1], frm[2]))
                modes.append(STEP_OFF)
        step = replace(step, mode="+".join(modes))
        self.keep_within(state, f, step)
        return step

    def crawl_factor(self, state: EncounterState, f: Fighter) -> int:
        """crawl: what a yard costs, 2 while prone; drag: a prone drag is "a move as normal" (a crawl)
        on "half their maximum movement", both halvings, unless the table halves only once (setting
        prone_drag = half: crawled yards cost 1 while dragging).

        The factor multiplies the exact length, which is then rounded once: under diagonal =
        euclidean a crawled diagonal is 2·√2 = 2.83 yd, not 2 x 1.41 = 2.82 (issue 36, 9a). Rounding
        the diagonal first would round twice, against the default ruling ("exact to 0.01 yd ...
        rounded once"), so it is no setting; an encounter begun before rules 0.3 keeps 2 x 1.41 = 2.82
        for its whole life (geometry.step_length reads the version its log began under)."""
        if DRAGGING in f.marks and state.settings["prone_drag"] == "half":
            return 1
        return crawl_factor(f)  # the crawl every ruleset shares (core/engine/crawling.py)

    def table_key(self, state: EncounterState, f: Fighter) -> Hashable | None:
        """What a price reads besides the map and the target cell's occupants (core/search/step_table.py).

        None while a step depends on where enemies stand: a tether to an engaging Reach,
        or an enemy whose Reach a step may enter (eventful compares the step's two ends).
        """
        if self.tether or any(hostile(f, o) for o in state.fighters):
            return None
        prone = f.state("posture", "standing") == "prone"
        return (
            state.settings["diagonal"],
            state.settings["step_height"],
            prone,
            self.crawl_factor(state, f),
            self.mode,
        )

    def keep_within(self, state: EncounterState, f: Fighter, step: Step) -> None:
        """engaged-actions (engaged_move = within-reach): every step stays within the engaging Reach."""
        rs = self.rs
        for foe in self.tether:
            inside, d, r = within_reach(state, f, step.to, foe)
            if not inside:
                raise Refusal(
                    rs.rule("engaged-actions"),
                    f"{show(step.to)} is {fmt(d)} yd from {foe.id}, out of the {fmt(r)} yd Reach that "
                    "engages them: an engaged fighter only shifts within it (engaged_move = within-reach)",
                )

    def refuse_height(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, dz: int) -> None:
        rs, grid = self.rs, state.grid
        if dz > 0 and grid.has(*to, "ledge"):
            raise Refusal(
                rs.rule("ledge"),
                f"{show(to)} is a ledge {fmt(dz)} yd above {show(frm)}: jump and pull up onto it "
                f"(pull-up {f.id} {show(to)})",
            )
        if dz > 0:
            raise Refusal(
                rs.rule("climb"),
                f"{show(frm)} to {show(to)} goes {fmt(dz)} yd up, more than the step height "
                f"{fmt(to_cu(state.settings['step_height']))} yd: only stairs and ladders are climbed by "
                f"walking; a ledge is jumped for (pull-up {f.id} {show(to)})",
            )
        if dz < 0 and grid.has(*to, "gap"):
            raise Refusal(
                rs.rule("leap"),
                f"{show(to)} is a gap {fmt(-dz)} yd deep: leap across it (leap {f.id} X,Y) or climb down",
            )
        raise Refusal(
            rs.rule("climb"),
            f"{show(frm)} to {show(to)} goes {fmt(abs(dz))} yd {'up' if dz > 0 else 'down'}, more than the "
            f"step height {fmt(to_cu(state.settings['step_height']))} yd: only stairs and ladders are "
            "climbed by walking",
        )

    # --- arriving --------------------------------------------------------------

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        return (
            STEP_OFF in step.mode
            or slips(state, f, step)
            or bool(newly_in_reach(state, f, self.frm, step.to))
            or bool(breaking_away(state, f, step.to))  # engage-break: leaving a prone foe's Reach
        )

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        return self.arrive(b, fighter_id, step)

    def arrive(self, b: Batch, fighter_id: str, step: Step) -> str:
        """A step off an edge falls; else slippery, then engage. Returns why the move ends."""
        rs = self.rs
        stops = []
        f = b.state.fighter(fighter_id)
        assert f is not None and self.dice is not None
        self.not_onto_anyone(b.state, f, step)
        if STEP_OFF in step.mode:
            cell = (step.to[0], step.to[1])
            drop = step.to[2] - b.state.grid.top[cell[1]][cell[0]]
            return rs.fall_down(
                b,
                f.id,
                cell,
                step.to[2],
                "fall",
                f"steps off the edge and falls {fmt(drop)} yd",
                frm=self.frm,
                said=f"stepped off at {show(cell)} and fell {fmt(drop)} yd",
            )
        if slips(b.state, f, step):
            rule = rs.rule("slippery")
            terrain = b.state.grid.kind(step.to[0], step.to[1]).terrain
            result = rs.initiative_check(b, self.dice, f, rule, f"{terrain} ground at {show(step.to)}")
            if SLIP_CHECKED not in f.marks:  # kept whatever the setting: a switch to per-move counts it
                b.emit(
                    ev.Marked(
                        fighter=f.id,
                        key=SLIP_CHECKED,
                        value=True,
                        rules=(rule,),
                        note="checked this move action",
                    )
                )
            if not result.passed:
                f = b.state.fighter(fighter_id)
                assert f is not None
                if f.state("posture", "standing") != "prone":
                    rs.change(b, f, "posture", "knock_down", rule, note="fails the check and drops prone")
                lost = rs.left(b.state, f)
                if lost:
                    b.emit(
                        ev.Spent(
                            fighter=f.id,
                            resource="movement",
                            amount=lost,
                            rules=(rule,),
                            note=f"the rest of the movement is lost: {fmt(lost)} yd",
                        )
                    )
                stops.append(f"slipped on {show(step.to)}: prone, the rest of the movement lost")
        stops.append(rs.arrived(b, fighter_id, self.frm))
        return "; ".join(x for x in stops if x)

    def not_onto_anyone(self, state: EncounterState, f: Fighter, step: Step) -> None:
        """move: a move passes friends but never ends on them, nor where the board ends it for it.

        A step off an edge ends the move on the cell straight below ("falls strait down"), and a
        step into an enemy's Reach ends it there (engage); both are known before any roll, so a move
        that would end so on a friend's cell is refused, as walking onto it is (`can_end`).
        """
        rs = self.rs
        others = [o.id for o in state.at(step.to[0], step.to[1]) if o.id != f.id]
        if not others:
            return
        if STEP_OFF in step.mode:
            why = "stepping off the edge there falls straight down onto it"
        else:
            foes = newly_in_reach(state, f, self.frm, step.to)
            if not foes:
                return
            names = ", ".join(o.id for o, _, _ in foes)
            why = (
                f"it comes within the Reach of {names} there, and engaging ends the move "
                f"({rs.rule('engage')})"
            )
        raise Refusal(
            rs.rule("move"), f"the move would end on {show(step.to)}, occupied by {', '.join(others)}: {why}"
        )

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        end_alone(state, f, self.rs.rule("move"))
