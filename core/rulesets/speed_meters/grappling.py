"""speed-meters grappling: moving or holding another fighter by main force.

Shoving (shove), pushing and pulling (push-pull) and grabbing (grab: grab,
escape, release), each an action of opposed +Brawn rolls against a fighter
within grapple reach, never one of a larger size category (size). A shove
and a push drive the target away as forced movement does (the ruleset's
`shift`); a grab holds both fighters Immobilized, is kept up at each of the
grabber's turn starts, and ends once they are carried out of each other's
reach.
"""

from __future__ import annotations

from msgspec.structs import replace
from tabletrail.core.rulesets.speed_meters.board import actions_of, mode_of, others_at, partner
from tabletrail.core.rulesets.speed_meters.geometry import ray, sign
from tabletrail.core.rulesets.speed_meters.part import SpeedPart
from tabletrail.core.rulesets.speed_meters.steps import _Walking
from tabletrail.events.commands.speed_meters import Escape, Grab, Pull, Push, Release, Shove
from tabletrail.ruleset_api import (
    CU,
    SIZES,
    WALLS,
    XY,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Graph,
    Pos,
    Refusal,
    Step,
    check,
    fmt,
    handles,
    reach_blocked,
    register,
    require,
    show,
    to_cu,
)
from tabletrail.ruleset_api import events as ev

GRAB = register(
    Graph(
        "grab",
        ["free", "grabbing", "grabbed"],
        [
            {"trigger": "seize", "source": "free", "dest": "grabbing"},
            {"trigger": "be_seized", "source": "free", "dest": "grabbed"},
            {"trigger": "let_go", "source": ["grabbing", "grabbed"], "dest": "free"},
        ],
        "free",
        {"seize": "{f} grabs hold", "be_seized": "{f} is grabbed", "let_go": "{f} is free of the grab"},
    )
)


def _too_far(state: EncounterState, a: Fighter, t: Fighter) -> str:
    """How far t is beyond a's grapple reach ("" when within it), across and up or down."""
    reach = to_cu(state.settings["grapple_reach"])
    gap = max(abs(a.pos[0] - t.pos[0]), abs(a.pos[1] - t.pos[1])) * CU
    rise = abs(a.pos[2] - t.pos[2])
    if gap <= reach and rise <= reach:
        return ""
    return f"{fmt(gap)} m across and {fmt(rise)} m up or down, reach {fmt(reach)} m"


class Grappling(SpeedPart):
    """Shove, push, pull and grab: opposed +Brawn against a fighter in reach, never a larger one."""

    def grapple(self, b: Batch, attacker: str, target: str, rule: str, verb: str) -> tuple[Fighter, Fighter]:
        """The checks every grappling action shares: turn, reach, size."""
        a = self.rs.acting(b.state, attacker)
        t = self.rs.fighter(b.state, target)
        require(a.id != t.id, rule, f"{a.id} can't {verb} itself")
        # size: never against a larger size category.
        if SIZES.index(t.size) > SIZES.index(a.size):
            raise Refusal(
                self.rule("size"),
                f"{a.id} is {a.size} and {t.id} is {t.size}: "
                f"no creature can {verb} one of a larger size category",
            )
        far = _too_far(b.state, a, t)
        require(not far, rule, f"{t.id} is out of reach: {far}")
        wall = reach_blocked(b.state, a.pos, t.pos)
        require(not wall, WALLS, f"{a.id} can't {verb} {t.id} through {wall}")
        return a, t

    def contest(self, b: Batch, dice: Dice, a: Fighter, t: Fighter, name: str, rule: str) -> int:
        """Attacker and defender both roll +Brawn; the attacker's margin (may be 0 or less)."""
        ra = check(
            b,
            dice,
            fighter=a.id,
            name=f"{name} (attacker)",
            rule=rule,
            modifier=self.rs.brawn(a),
            note=f"{a.id} rolls +Brawn",
        )
        rt = check(
            b,
            dice,
            fighter=t.id,
            name=f"{name} (defender)",
            rule=rule,
            modifier=self.rs.brawn(t),
            note=f"{t.id} rolls +Brawn",
        )
        return (ra.number + ra.modifier) - (rt.number + rt.modifier)

    def away(self, a: Fighter, t: Fighter, rule: str) -> XY:
        d = (sign(t.pos[0] - a.pos[0]), sign(t.pos[1] - a.pos[1]))
        require(
            d != (0, 0), rule, f"{t.id} is straight above or below {a.id}: there is no way to move it away"
        )
        return d

    @handles(Shove)
    def shove(self, b: Batch, cmd: Shove, dice: Dice) -> None:
        """shove: opposed +Brawn; the target goes 1 m per 2 points of margin, the shover stays."""
        rule = self.rule("shove")
        a, t = self.grapple(b, cmd.fighter, cmd.target, rule, "shove")
        dx, dy = self.away(a, t, rule)
        margin = self.contest(b, dice, a, t, "shove", rule)
        meters = max(margin, 0) // 2
        self.rs.use_action(
            b,
            a,
            rule,
            "a shove",
            f"a shove: margin {margin}, so {meters} m (1 m per 2 points)",
            (self.rule("size"),),
        )
        cells = ray(b.state.grid, (t.pos[0], t.pos[1]), (dx, dy), meters)
        if cells:
            self.drive_away(b, dice, a, t, cells, rule, cmd.bumps, meters)

    def drive_away(
        self,
        b: Batch,
        dice: Dice,
        a: Fighter,
        t: Fighter,
        cells: list[XY],
        rule: str,
        bumps: int,
        meters: int,
    ) -> list[Pos]:
        """Shove and push alike: the target is driven `meters` away from the attacker along `cells`
        (cut at the map's edge), and may save short of a hazard it knows of (forced)."""
        return self.rs.shift(
            b,
            dice,
            t.id,
            cells,
            kind="push",
            origin=a.pos,
            named=a.id,
            rule=rule,
            stop_early=True,
            aware=True,
            bumps=bumps,
            meant=meters * CU,
        )

    @handles(Push)
    def push(self, b: Batch, cmd: Push, dice: Dice) -> None:
        """push-pull: 1 m per point of margin, at most Brawn spaces; the pusher follows into each space."""
        rule = self.rule("push-pull")
        a, t = self.grapple(b, cmd.fighter, cmd.target, rule, "push")
        self.on_its_feet(b.state, a, rule)
        dx, dy = self.away(a, t, rule)
        meters = self.push_pull_meters(b, dice, a, t, rule, "push")
        cells = ray(b.state.grid, (t.pos[0], t.pos[1]), (dx, dy), meters)
        if not cells:
            return
        passed = self.drive_away(b, dice, a, t, cells, rule, cmd.bumps, meters)
        vacated = [(p[0], p[1]) for p in [t.pos, *passed[:-1]]]
        self.follow(b, a.id, vacated[: len(passed)], rule, f"follows {t.id} into each space it leaves")

    @handles(Pull)
    def pull(self, b: Batch, cmd: Pull, dice: Dice) -> None:
        """push-pull: the puller steps back, 1 m per point of margin, at most Brawn; the target follows."""
        rule = self.rule("push-pull")
        a, t = self.grapple(b, cmd.fighter, cmd.target, rule, "pull")
        self.on_its_feet(b.state, a, rule)
        dx, dy = self.away(t, a, rule)
        meters = self.push_pull_meters(b, dice, a, t, rule, "pull")
        back = ray(b.state.grid, (a.pos[0], a.pos[1]), (dx, dy), meters)
        route = self.follow(b, a.id, back, rule, f"steps back pulling {t.id}", meters * CU)
        if not route:
            return  # no room to step back: the action is spent, nobody moves
        now = b.state.fighter(a.id)
        assert now is not None
        trail = [(p[0], p[1]) for p in [a.pos, *route[:-1]]]
        self.rs.shift(
            b,
            dice,
            t.id,
            trail,
            kind="pull",
            origin=now.pos,
            named=a.id,
            rule=rule,
            stop_early=True,
            aware=True,
            bumps=cmd.bumps,
        )

    def on_its_feet(self, state: EncounterState, a: Fighter, rule: str) -> None:
        """push-pull: the mover follows on foot, so it must be walking and not held in a grab."""
        held = partner(state, a.id)
        if held:
            raise Refusal(
                self.rule("grab"), f"{a.id} is in a grab ({held[0]} grabbing {held[1]}): Immobilized"
            )
        require(
            mode_of(a) == "walking",
            rule,
            f"{a.id} is {mode_of(a)}: a push or pull follows on foot, so the mover must be walking",
        )

    def push_pull_meters(self, b: Batch, dice: Dice, a: Fighter, t: Fighter, rule: str, verb: str) -> int:
        margin = self.contest(b, dice, a, t, verb, rule)
        cap = self.rs.brawn(a)
        meters = min(max(margin, 0), cap)
        self.rs.use_action(
            b,
            a,
            rule,
            f"a {verb}",
            f"a {verb}: margin {margin}, so {meters} m (1 m a point, at most Brawn {cap})",
            (self.rule("size"),),
        )
        return meters

    def follow(
        self, b: Batch, fid: str, cells: list[XY], rule: str, note: str, meant: int | None = None
    ) -> list[Pos]:
        """push-pull: the grappler walks itself along `cells` as far as its feet allow; returns where it went.

        Each step is priced by the walking policy (walls, enemies, 1 m up, no
        drops) and must not end on anyone; the first step it can't take ends it,
        and the move records why (with no steps when it could not take one).
        meant: the distance the rule gave (default: the cells given), its budget.
        """
        f = b.state.fighter(fid)
        assert f is not None
        feet = _Walking(self.rs, self.rs.stat(f, "speed"), jumps=False)
        here, parity = f.pos, 0
        steps: list[Step] = []
        why = ""
        for cell in cells:
            if not b.state.grid.inside(*cell):
                why = f"{show(cell)} is off the map"
                break
            try:
                step = feet.price(b.state, f, here, cell, parity)
            except Refusal as no:
                why = no.reason
                break
            others = others_at(b.state, fid, step.to)
            if others:
                why = f"{show(cell)} is occupied by {', '.join(o.id for o in others)}"
                break
            steps.append(replace(step, mode="follow"))
            here, parity = step.to, step.parity
        if steps or why:  # cut short before the first step: recorded all the same, with why
            b.emit(
                ev.Moved(
                    fighter=fid,
                    steps=tuple(steps),
                    resource="grapple",
                    budget=len(cells) * CU if meant is None else meant,
                    stopped=why,
                    rules=(rule,),
                    note=note,
                )
            )
        return [s.to for s in steps]

    @handles(Grab)
    def grab(self, b: Batch, cmd: Grab, dice: Dice) -> None:
        """grab: opposed +Brawn; on a win both are Immobilized and escaping needs the margin."""
        rule = self.rule("grab")
        a, t = self.grapple(b, cmd.fighter, cmd.target, rule, "grab")
        GRAB.require("seize", a.state("grab", "free"), rule, f"{a.id} is already in a grab")
        GRAB.require("be_seized", t.state("grab", "free"), rule, f"{t.id} is already in a grab")
        margin = self.contest(b, dice, a, t, "grab", rule)
        self.rs.use_action(
            b,
            a,
            rule,
            "a grab",
            f"a grab: margin {margin}" + ("" if margin > 0 else ": no hold"),
            (self.rule("size"),),
        )
        if margin <= 0:
            return
        b.emit(ev.Linked(kind="grab", a=a.id, b=t.id, rules=(rule,), note=f"{a.id} grabs {t.id}"))
        self.rs.change(b, b.state.fighter(a.id), "grab", "seize", rule)  # type: ignore[arg-type]
        self.rs.change(b, b.state.fighter(t.id), "grab", "be_seized", rule)  # type: ignore[arg-type]
        b.emit(
            ev.Marked(
                fighter=t.id,
                key="escape",
                value=margin,
                rules=(rule,),
                note=f"the Difficulty to escape is {margin}, what the grabber's roll had left",
            )
        )
        self.grab_upkeep(b, a.id)

    def grab_upkeep(self, b: Batch, fid: str) -> None:
        """grab: the grabber commits Action Dice equal to the target's Brawn, or the hold ends."""
        f = b.state.fighter(fid)
        assert f is not None
        held = partner(b.state, fid)
        if not held or held[0] != fid:
            return
        target = b.state.fighter(held[1])
        assert target is not None
        need = self.rs.brawn(target)
        left = actions_of(b.state, f) - f.used("actions")
        if left >= need:
            if need:
                b.emit(
                    ev.Spent(
                        fighter=fid,
                        resource="actions",
                        amount=need,
                        rules=(self.rule("grab"),),
                        note=f"commits {need} Action Dice to hold {target.id} (its Brawn); "
                        f"{left - need} left",
                    )
                )
            return
        self.release_grab(
            b, fid, target.id, f"{fid} has {left} Action Dice, not the {need} the grab needs: it ends"
        )

    def grabs_in_reach(self, b: Batch) -> None:
        """grab: a hold needs its two fighters within grapple reach of each other.

        "Both grabber and grabbee are Immobilized during the grab": neither moves itself, but a fall
        an effect makes (the GM's `fall`), a glide's leg at turn start or the GM's hand can still
        carry one away; once out of reach (or behind a wall) there is no hold left, so it ends there.
        """
        for kind, grabber, grabbed in b.state.links:
            if kind != "grab":
                continue
            a, t = b.state.fighter(grabber), b.state.fighter(grabbed)
            assert a is not None and t is not None
            why = reach_blocked(b.state, a.pos, t.pos) or _too_far(b.state, a, t)
            if not why:
                continue
            self.release_grab(
                b, grabber, grabbed, f"{grabbed} is out of {grabber}'s reach ({why}): the grab ends"
            )

    def release_grab(self, b: Batch, grabber: str, grabbed: str, note: str) -> None:
        rule = self.rule("grab")
        b.emit(ev.Unlinked(kind="grab", a=grabber, b=grabbed, rules=(rule,), note=note))
        for fid in (grabber, grabbed):
            self.rs.change(b, b.state.fighter(fid), "grab", "let_go", rule)  # type: ignore[arg-type]
        b.emit(ev.Unmarked(fighter=grabbed, key="escape", rules=(rule,)))

    @handles(Escape)
    def escape(self, b: Batch, cmd: Escape, dice: Dice) -> None:
        """grab: the grabbed fighter rolls +Brawn against the escape difficulty (an action)."""
        rule = self.rule("grab")
        f = self.rs.acting(b.state, cmd.fighter)
        held = partner(b.state, f.id)
        require(held is not None and held[1] == f.id, rule, f"{f.id} is not grabbed")
        assert held is not None
        difficulty = int(f.marks.get("escape", 0))
        self.rs.use_action(b, f, rule, "an escape")
        roll = check(
            b,
            dice,
            fighter=f.id,
            name="escape",
            rule=rule,
            target=difficulty,
            modifier=self.rs.brawn(f),
            note=f"roll +Brawn against the escape Difficulty {difficulty}",
        )
        if roll.passed:
            self.release_grab(b, held[0], f.id, f"{f.id} breaks free")

    @handles(Release)
    def release(self, b: Batch, cmd: Release, dice: Dice) -> None:
        """grab: the grabber lets go (no action)."""
        f = self.rs.fighter(b.state, cmd.fighter)
        held = partner(b.state, f.id)
        require(held is not None and held[0] == f.id, self.rule("grab"), f"{f.id} is not grabbing anyone")
        assert held is not None
        self.release_grab(b, f.id, held[1], f"{f.id} lets go of {held[1]}")

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """grab: "each turn the grabber commits Action Dice equal to the target's Brawn or the grab ends"."""
        self.grab_upkeep(b, fighter_id)

    def settle(self, b: Batch, dice: Dice) -> None:
        """grab: a batch that carried a grabber or its catch out of the other's reach ends the grab."""
        if b.state.links and any(isinstance(e, (ev.Placed, ev.Moved)) for e in b.events):
            self.grabs_in_reach(b)  # a fall or a glide that carries one out of reach ends the hold
