"""Zero gravity at the ground scale: the pieces the ap-squares ruleset decides with.

Document 002 ("Movement in Zero Gravity") puts every character and loose object
in one of four conditions: held by gravity, drifting, carried by a push-off, or
crawling along a stable solid object. That is the `gravity` graph (zero_g_base.py),
one shared `transitions` Machine registered once at import. Where gravity is off is
an encounter-wide fact (`BoardMarked` under `ZERO_G`); a body's trajectory is a
fact on the body (`Marked` under `TRAJECTORY`).

Zero gravity has three pieces: plain questions (which squares are weightless, what
a square touches, which way a push-off may go, where a drift carries a body) and
what other families ask of it (a body held by gravity again, the Defense a parry
meets), both in zero_g_base.py so the other parts need not import this one; and,
here, `ZeroGravity`, the part of the ap-squares ruleset that decides the
zero-g commands with them (zero-g-drift, push-off, zero-g-grab, zero-g-penalties;
the rule ids are cited next to the code). It is the zero gravity family of the
ap-squares package, one of `ApSquares.parts`.

Where the document is silent:
- gravity is lost and restored by the GM over a rectangle (`gravity-off`,
  `gravity-on`); `gravity-off grab=…` lists who spends 4 AP to grab hold at once
  (the table asks them); everyone else in the rectangle, and those who can't grab,
  start drifting on a trajectory drawn by a check (1d8 by default).
- a drift or push-off carries a body at the start of its own turn, through open
  squares only: it stops before a wall, a solid object, a GM-closed square or another
  body, and a push-off that stops that way is back to drift speed. A loose object is
  in the turn order like everyone; its turn is only its drift and ends by itself.
- a push-off carries the body from its next turn on; a push-off at 1 m per cycle is a
  drift in a chosen direction. Next to a stable object a character may also let go and
  drift the way it chooses (`let-go`, no AP), and a drifter next to one may grab it
  later for the same 4 AP (`grab-hold`).
- walking or crawling prone onto a weightless square is refused; a crawl or drift that
  reaches a square with gravity ends there, held again. Prone means nothing in zero g.
"""

from __future__ import annotations

from collections.abc import Mapping

from msgspec.structs import replace
from tabletrail.core.rulesets.ap_squares.hooks import ApPart
from tabletrail.core.rulesets.ap_squares.zero_g_base import (
    BRAKE_AP,
    DIRECTIONS,
    DRIFT_SPEED,
    DRIFTING,
    GRAB_AP,
    GROUNDED,
    ORTHOGONAL,
    PUSH_OFF_AP,
    PUSH_OFF_SPEED,
    PUSHING_OFF,
    TRAJECTORY,
    TURN_DRIFT_AP,
    ZERO_G,
    annotate,
    ap,
    cell_list,
    drift_cells,
    gravity,
    is_object,
    push_off_verdict,
    rectangle,
    regain_gravity,
    shift,
    stable_around,
    trajectory,
    trajectory_mark,
    weightless,
    zero_g_modifiers,
)
from tabletrail.core.rulesets.ap_squares.zero_g_base import (
    push_off_directions as push_off_directions,  # named here too: tests ask zero_g.py for it
)
from tabletrail.events.commands.ap_squares import (
    Brake,
    GrabHold,
    GravityOff,
    GravityOn,
    LetGo,
    PushOff,
    TurnDrift,
)
from tabletrail.ruleset_api import (
    CU,
    EVERY_1,
    XY,
    Batch,
    Dice,
    EncounterState,
    Fighter,
    Heading,
    Modifier,
    Pos,
    Ruleset,
    Step,
    check,
    flat_step,
    handles,
    plural,
    require,
    show,
    walk,
)
from tabletrail.ruleset_api import events as ev


class ZeroGravity(ApPart):
    """zero-g-drift, push-off, zero-g-grab, zero-g-penalties: the GM's gravity, the moves of a body
    without it, the drift at the start of its turn, the penalties and the heading it is carried on."""

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """zero-g-drift / push-off: at the start of its turn a body drifts or keeps its momentum."""
        self.drift(b, fighter_id, dice)

    def heading(self, state: EncounterState, f: Fighter) -> Heading | None:
        """zero-g-drift: the table view draws a drifting body's trajectory as an arrow."""
        mark = f.marks.get(TRAJECTORY)
        if isinstance(mark, Mapping) and "dir" in mark and "speed" in mark:
            name, speed = trajectory(mark)
            if name in DIRECTIONS:
                dx, dy = DIRECTIONS[name]
                return Heading(dx, dy, speed, f"drifts {name} at {speed} a turn")
        return None

    def penalties_now(self, state: EncounterState, fighter_id: str) -> str:
        """The zero-g penalties in force, in words, for the notes that start them."""
        mods = zero_g_modifiers(self.rs, state, self.rs.fighter(state, fighter_id))
        words = [
            f"{m.applies_to} {m.value:+}" if isinstance(m.value, int) else f"{m.applies_to}: {m.value}"
            for m in mods
        ]
        return f"penalties: {', '.join(words)}" if words else "no penalties reported"

    def region(self, state: EncounterState, a: tuple[int, ...], z: tuple[int, ...], rule: str) -> list[XY]:
        grid = state.grid
        for c in (a, z):
            require(grid.inside(c[0], c[1]), rule, f"{show(c)} is off the {grid.width}x{grid.height} map")
        return rectangle(grid, a, z)

    def draw_direction(self, b: Batch, dice: Dice, fighter_id: str) -> str:
        """zero-g-drift: the trajectory is a check on 1d8 (or 1d4), numbered N then clockwise."""
        rule = self.rule("zero-g-drift")
        sides = int(b.state.settings["drift_directions"])
        names = list(DIRECTIONS) if sides == 8 else list(ORTHOGONAL)
        roll = check(
            b,
            dice,
            fighter=fighter_id,
            name="drift trajectory",
            rule=rule,
            formula=f"1d{sides}",
            note=f"1d{sides}: " + ", ".join(f"{i} {d}" for i, d in enumerate(names, start=1)),
        )
        require(
            1 <= roll.number <= sides,
            rule,
            f"a 1d{sides} roll is 1 to {sides}; the table entered {roll.number}",
        )
        return names[roll.number - 1]

    def start_drift(self, b: Batch, dice: Dice, fighter_id: str, why: str) -> None:
        """Gravity fails under a body that holds nothing: it drifts along a random trajectory."""
        drift = self.rule("zero-g-drift")
        direction = self.draw_direction(b, dice, fighter_id)
        body = self.rs.fighter(b.state, fighter_id)
        rules = (drift,) if is_object(body) else (drift, self.rule("zero-g-penalties"))
        shift(self.rs, b, fighter_id, "lose_footing", rules, f"{why}: {fighter_id} drifts")
        b.emit(
            trajectory_mark(
                fighter_id,
                direction,
                DRIFT_SPEED,
                (drift,),
                f"trajectory {direction} at {DRIFT_SPEED} square per turn, drawn as gravity failed"
                + ("" if is_object(body) else f"; {self.penalties_now(b.state, fighter_id)}"),
            )
        )

    def grab_problem(self, state: EncounterState, f: Fighter) -> str:
        """Why the fighter can't grab a stable object now ("" when it can)."""
        here = (f.pos[0], f.pos[1])
        if not stable_around(state.grid, here):
            return f"no stable solid object touches {show(here)}"
        left = self.rs.ap_left(state, f.id)
        if left < GRAB_AP * CU:
            return f"{f.id} has {ap(left)} left and grabbing hold costs {GRAB_AP} AP"
        return ""

    @handles(GravityOff)
    def gravity_off(self, b: Batch, cmd: GravityOff, dice: Dice) -> None:
        drift, grab = self.rule("zero-g-drift"), self.rule("zero-g-grab")
        self.rs.gm_only(cmd, drift, "turn gravity off")
        area = self.region(b.state, cmd.corner, cmd.opposite, drift)
        before = weightless(b.state)
        new = {c for c in area if c not in before}
        span = f"{show(cmd.corner)}-{show(cmd.opposite)}"
        require(bool(new), drift, f"gravity is already off over all {len(area)} squares of {span}")
        bodies = [f for f in b.state.fighters if (f.pos[0], f.pos[1]) in new and gravity(f) == GROUNDED]
        losing = {f.id for f in bodies if not is_object(f)}
        for fid in cmd.grab:
            self.rs.fighter(b.state, fid)
            require(
                fid in losing,
                grab,
                f"{fid} is not a character losing gravity in {span}: only they can grab hold as it fails",
            )
        b.emit(
            ev.BoardMarked(
                key=ZERO_G,
                value=cell_list(before | new),
                rules=(drift,),
                note=f"gravity fails over {span}: {plural(len(new), 'more weightless square')}",
            )
        )
        for f in bodies:
            if is_object(f):
                self.start_drift(b, dice, f.id, f"{f.id} is a loose object")
                continue
            if f.id not in cmd.grab:
                self.start_drift(b, dice, f.id, f"{f.id} does not grab hold")
                continue
            problem = self.grab_problem(b.state, f)
            if problem:
                self.start_drift(b, dice, f.id, f"{problem}, so {f.id} can't grab hold")
                continue
            self.rs.pay(b, f.id, GRAB_AP, grab, "grabbing a stable object as gravity fails")
            stable = stable_around(b.state.grid, (f.pos[0], f.pos[1]))[0]
            shift(
                self.rs,
                b,
                f.id,
                "grab",
                (grab, self.rule("zero-g-penalties")),
                f"{f.id} grabs the stable object at {show(stable)} as gravity fails and may crawl along it",
            )
            self.note_penalties(b, f.id)

    def note_penalties(self, b: Batch, fighter_id: str) -> None:
        """Append the penalties now in force to the note of the state change just recorded."""
        last = b.events[-1]
        b.events[-1] = replace(last, note=f"{last.note}; {self.penalties_now(b.state, fighter_id)}")

    @handles(GravityOn)
    def gravity_on(self, b: Batch, cmd: GravityOn, dice: Dice) -> None:
        drift = self.rule("zero-g-drift")
        self.rs.gm_only(cmd, drift, "turn gravity on")
        area = self.region(b.state, cmd.corner, cmd.opposite, drift)
        before = weightless(b.state)
        back = {c for c in area if c in before}
        span = f"{show(cmd.corner)}-{show(cmd.opposite)}"
        require(bool(back), drift, f"gravity already holds all {len(area)} squares of {span}")
        rest = before - back
        b.emit(
            ev.BoardMarked(
                key=ZERO_G,
                value=cell_list(rest) if rest else None,
                rules=(drift,),
                note=f"gravity returns over {span}: {plural(len(back), 'square')}",
            )
        )
        for f in b.state.fighters:
            if (f.pos[0], f.pos[1]) in back and gravity(f) != GROUNDED:
                regain_gravity(self.rs, b, f.id, drift, f"gravity returns at {show(f.pos)}")

    def drift(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """zero-g-drift / push-off: carry a drifting or pushed-off body along its trajectory."""
        body = self.rs.fighter(b.state, fighter_id)
        state_now = gravity(body)
        direction, speed = trajectory(body.marks.get(TRAJECTORY))
        if state_now not in (DRIFTING, PUSHING_OFF) or not direction:
            return
        rule = self.rule("zero-g-drift") if state_now == DRIFTING else self.rule("push-off")
        cells, bump = drift_cells(b.state, body, direction, speed)
        if cells:
            since = len(b.events)
            walk(b, Carried(self.rs, rule), fighter_id, cells, budget=speed * CU, budget_rule=rule,
                 rules=(rule,), resource="momentum", what="the drift", dice=dice)  # fmt: skip
            carried = "drifts" if state_now == DRIFTING else "keeps its push-off momentum,"
            annotate(
                b,
                since,
                f"{fighter_id} {carried} {direction} at {speed} m per cycle"
                + (f"; stopped by {bump}" if bump else ""),
            )
        if bump and gravity(self.rs.fighter(b.state, fighter_id)) == PUSHING_OFF:
            shift(
                self.rs,
                b,
                fighter_id,
                "slow_to_drift",
                (self.rule("push-off"), self.rule("zero-g-drift")),
                f"{fighter_id} is stopped by {bump}: its push-off momentum of {speed} m per cycle is spent",
            )
            b.emit(
                trajectory_mark(
                    fighter_id,
                    direction,
                    DRIFT_SPEED,
                    (self.rule("push-off"),),
                    f"back to drift speed {DRIFT_SPEED}, still heading {direction}",
                )
            )
        elif bump and not cells:
            # Nothing moved, so no Moved event says why: the trajectory, unchanged, says it.
            b.emit(
                trajectory_mark(
                    fighter_id,
                    direction,
                    speed,
                    (rule,),
                    f"{fighter_id} stays at {show(body.pos)}: {bump} blocks its drift {direction}",
                )
            )

    def zero_g_actor(self, b: Batch, fighter_id: str) -> Fighter:
        """The acting character, who must be in zero gravity for a zero-g move."""
        f = self.rs.acting(b.state, fighter_id)
        require(not is_object(f), self.rule("zero-g-drift"), f"{f.id} is a loose object: it does not act")
        require(
            gravity(f) != GROUNDED,
            self.rule("zero-g-drift"),
            f"gravity holds {f.id} at {show(f.pos)}: this is a move for zero gravity",
        )
        return f

    def on_course(self, f: Fighter) -> None:
        """push-off: "direction can't change until back to drift speed": no new push-off, turn, grab
        or letting go while a push-off carries the body faster than a drift."""
        direction, speed = trajectory(f.marks.get(TRAJECTORY))
        require(
            gravity(f) != PUSHING_OFF,
            self.rule("push-off"),
            f"{f.id} is carried {direction} at {speed} m per cycle by a push-off: its direction can't change "
            f"until braked to drift speed {DRIFT_SPEED} m ({speed - DRIFT_SPEED} x {BRAKE_AP} AP)",
        )

    @handles(PushOff)
    def push_off(self, b: Batch, cmd: PushOff, dice: Dice) -> None:
        rule = self.rule("push-off")
        f = self.zero_g_actor(b, cmd.fighter)
        self.on_course(f)
        here = (f.pos[0], f.pos[1])
        verdict = push_off_verdict(b.state.grid, here, cmd.direction)
        require(not verdict, rule, verdict)
        written = int(self.rs.stat(f, "strength_bonus"))
        # push-off: "plus their Strength attribute bonus"; a negative one counts unless the table says
        # a bonus is never a penalty (setting negative_strength_bonus).
        zeroed = written < 0 and b.state.settings["negative_strength_bonus"] == "zero"
        bonus = 0 if zeroed else written
        top = PUSH_OFF_SPEED + bonus
        require(
            1 <= cmd.speed <= top,
            rule,
            f"a push-off reaches 1 to {PUSH_OFF_SPEED} + Strength bonus {bonus} = {top} m per cycle"
            + (f" ({f.id}'s {written} counts as 0: negative_strength_bonus = zero)" if zeroed else "")
            + f", not {cmd.speed}",
        )
        self.rs.pay(b, f.id, PUSH_OFF_AP, rule, f"a push-off {cmd.direction} at {cmd.speed} m per cycle")
        fast = cmd.speed > DRIFT_SPEED
        shift(
            self.rs,
            b,
            f.id,
            "push_off" if fast else "let_go",
            (rule, self.rule("zero-g-penalties")),
            f"{f.id} pushes off from {show(here)} heading {cmd.direction} at {cmd.speed} m per cycle"
            + ("" if fast else " (drift speed: it drifts)"),
        )
        self.note_penalties(b, f.id)
        b.emit(
            trajectory_mark(
                f.id,
                cmd.direction,
                cmd.speed,
                (rule,),
                f"{cmd.speed} m per cycle {cmd.direction}, carried at the start of each of its turns",
            )
        )

    @handles(Brake)
    def brake(self, b: Batch, cmd: Brake, dice: Dice) -> None:
        rule = self.rule("push-off")
        f = self.zero_g_actor(b, cmd.fighter)
        direction, speed = trajectory(f.marks.get(TRAJECTORY))
        require(
            gravity(f) == PUSHING_OFF,
            rule,
            f"{f.id} is {gravity(f).replace('_', ' ')}, not carried by a push-off: there is no push-off "
            "speed to break",
        )
        self.rs.pay(b, f.id, BRAKE_AP, rule, f"braking 1 m of speed ({speed} -> {speed - 1} m per cycle)")
        slower = speed - 1
        drifting = slower <= DRIFT_SPEED
        shift(
            self.rs,
            b,
            f.id,
            "slow_to_drift" if drifting else "brake",
            (rule,),
            f"{f.id} slows to {slower} m per cycle"
            + (": drift speed, its direction may change again" if drifting else ""),
        )
        b.emit(trajectory_mark(f.id, direction, slower, (rule,), f"{slower} m per cycle {direction}"))

    @handles(TurnDrift)
    def turn_drift(self, b: Batch, cmd: TurnDrift, dice: Dice) -> None:
        rule = self.rule("zero-g-drift")
        f = self.zero_g_actor(b, cmd.fighter)
        self.on_course(f)
        direction, speed = trajectory(f.marks.get(TRAJECTORY))
        require(
            gravity(f) == DRIFTING, rule, f"{f.id} is {gravity(f)}, not drifting: there is no drift to turn"
        )
        require(cmd.direction != direction, rule, f"{f.id} already drifts {direction}")
        self.rs.pay(
            b, f.id, TURN_DRIFT_AP, rule, f"twisting to turn the drift from {direction} to {cmd.direction}"
        )
        shift(
            self.rs,
            b,
            f.id,
            "twist",
            (rule,),
            f"{f.id} twists: its drift turns from {direction} to {cmd.direction}",
        )
        b.emit(
            trajectory_mark(
                f.id,
                cmd.direction,
                speed,
                (rule,),
                f"{speed} m per cycle {cmd.direction}: turning never speeds a drift up",
            )
        )

    @handles(GrabHold)
    def grab_hold(self, b: Batch, cmd: GrabHold, dice: Dice) -> None:
        """A drifting character next to a stable object grabs it for the same 4 AP as when gravity fails."""
        rule = self.rule("zero-g-grab")
        f = self.zero_g_actor(b, cmd.fighter)
        self.on_course(f)
        require(gravity(f) == DRIFTING, rule, f"{f.id} already holds a stable object")
        here = (f.pos[0], f.pos[1])
        stable = stable_around(b.state.grid, here)
        require(bool(stable), rule, f"no stable solid object touches {show(here)}: nothing to grab")
        self.rs.pay(b, f.id, GRAB_AP, rule, f"grabbing the stable object at {show(stable[0])}")
        shift(
            self.rs,
            b,
            f.id,
            "grab",
            (rule, self.rule("zero-g-penalties")),
            f"{f.id} grabs the stable object at {show(stable[0])} and stops drifting",
        )
        self.note_penalties(b, f.id)
        b.emit(ev.Unmarked(fighter=f.id, key=TRAJECTORY, rules=(rule,), note="holding on: no more drift"))

    @handles(LetGo)
    def let_go(self, b: Batch, cmd: LetGo, dice: Dice) -> None:
        """Next to a stable object a character may begin drifting the way it chooses, at drift speed."""
        rule = self.rule("zero-g-drift")
        f = self.zero_g_actor(b, cmd.fighter)
        self.on_course(f)
        here = (f.pos[0], f.pos[1])
        require(
            bool(stable_around(b.state.grid, here)),
            rule,
            f"no stable solid object touches {show(here)}: "
            f"only turn-drift ({TURN_DRIFT_AP} AP) changes a drift",
        )
        shift(
            self.rs,
            b,
            f.id,
            "let_go",
            (rule, self.rule("zero-g-penalties")),
            f"{f.id} lets go at {show(here)} and drifts {cmd.direction} at {DRIFT_SPEED} m per cycle",
        )
        self.note_penalties(b, f.id)
        b.emit(
            trajectory_mark(
                f.id,
                cmd.direction,
                DRIFT_SPEED,
                (rule,),
                f"a chosen direction, {cmd.direction}, at drift speed",
            )
        )

    # --- modifiers ---------------------------------------------------------------------------

    def modifiers(self, state: EncounterState, fighter_id: str, against: str | None = None) -> list[Modifier]:
        """The fighter's own modifiers; with `against`, also the Defense modifiers of that opponent."""
        out = zero_g_modifiers(self.rs, state, self.rs.fighter(state, fighter_id))
        if against:
            for m in zero_g_modifiers(self.rs, state, self.rs.fighter(state, against)):
                if m.applies_to == "defense":
                    out.append(Modifier(f"defense of {against}", m.value, m.rule, m.why, ("against",)))
        return out


class Carried:
    """A drift or push-off: momentum, not AP, pays; a square a step, whatever the diagonal rule."""

    def __init__(self, rs: Ruleset, rule: str) -> None:
        self.rs = rs
        self.rule = rule
        self.unit = "m of momentum"

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        return flat_step(
            state.grid, frm, to, parity, diagonal=EVERY_1, version=state.rules_version, mode="drift"
        )

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        return (step.to[0], step.to[1]) not in weightless(state)

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        cell = (step.to[0], step.to[1])
        regain_gravity(self.rs, b, fighter_id, self.rule, f"{fighter_id} drifts into {show(cell)}")
        return f"back under gravity at {show(cell)}: the drift ends"

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        """Drift squares were chosen open before the drift began."""
