"""speed-meters: the movement chapter of document 004 (1 m spaces, Speed per Movement).

Rule ids are the catalogue's `speed-meters/<rule>`; each is cited next to the
code that enforces it. The chapter in the engine's terms:

- A Movement is an action. Walking (`move`), swimming, climbing, flying,
  hovering, the special jump and teleporting are each a Movement in one mode;
  gliding is started by a Movement and then moves by itself at turn start.
- Every Movement starts with a fresh Speed (stop), so nothing is in progress
  between two of them: meters the GM gives or takes with `adjust` (movement or
  maneuver) are kept in the mark `given` and belong to the fighter's next
  Movement, whatever its mode. The one exception is a door on the way: a walk
  that ends beside a door with meters left is marked `on-the-way`, and if the
  fighter's next acts are only doors used as part of the move
  (core/engine/doors.py `part_of_move`), its next walk goes on with what is left of
  the same Movement (no new action): opening a door is not stopping.
- A fighter's mode lives in `states["mode"]` (the `mode` graph in board.py):
  walking, climbing, swimming, flying, hovering, gliding, falling.
- A fighter fills its 1 m space from where it stands up to `body_height`;
  two fighters share a space when those spans overlap (so a flyer may pass
  over a walker's head, a hoverer may not).
- Falls go through `core.engine.falling.fall`; what they cost (the falling table,
  the time a fall takes) is in falls.py. The document lands fallers prone but
  never says how a prone fighter moves: by default it walks at the normal cost
  (`prone_move`; stand-first, or crawl by the shared `core.engine.crawling`).
- One jump goes up or across, as written (`jump_up_and_across`; both counts the
  climb and the air crossed within the 2 m of maneuver).
- Every roll is a check (`core.engine.dice.check`): `roll=N` enters it at the table;
  otherwise the seeded dice draw it. Opposed rolls, climbs, saves and escapes
  use the `check_formula` setting (house default 1d6); the falling table rolls
  a d6 and random movement a d8, as the document says.

The ruleset is one class made of parts, one part a family of the chapter's
rules, each with its own commands and the hooks it takes part in (a turn's
start and end, what follows a command, the walking budget, what the table
view shows); `SpeedMeters.parts` lists them in the order every hook runs. A
part knows no other part: what two families share is the ruleset's (below) or
a plain function. Where each rule's code lives (rule ids are cited next to
the code):

- walking.py, `Walking`: movement, maneuver, jump, stop (a door on the way);
- falls.py, `Falls`: fall-table, fall-speed;
- modes.py, `Modes`: fly, special-jump, hover, teleport, glide;
- climbing.py, `Climbing`: climb;
- forces.py, `Forces`: forced, random;
- grappling.py, `Grappling`: size, shove, push-pull, grab;
- swimming.py, `Swimming`: swim (breath, the swimmer's Advantage);
- steps.py: the step policies `walk` prices a Movement's steps with (rough);
- here, `SpeedMeters`: what the families share: occupancy (who may stand or
  pass where), a Movement's start (an action, fresh Speed: stop), the mode
  machine, the 3-D Movement along a planned path, every fall's way into
  falls.py (`drop`) and every force's into forces.py (`shift`); and the
  engine's hooks that are no part's (dead fighters, posture, doors, the drag
  ruler's next Movement);
- part.py: `SpeedPart`, the families' base, and `SpeedRules`, what they ask
  of the ruleset (the shared part of `SpeedMeters` and a few `Ruleset`
  methods), so that no part imports this package;
- catalogue.py: the rule ids, settings and stats;
- board.py: the questions about the board every family asks (pure);
- geometry.py: the 3-D geometry the rules price steps with (pure).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabletrail.core.rulesets.speed_meters.board import (
    GIVEN,
    MODE_RULE,
    TRIGGER,
    above_ground,
    actions_of,
    mode_of,
    others_at,
    partner,
)
from tabletrail.core.rulesets.speed_meters.catalogue import RULES, SETTINGS, STATS
from tabletrail.core.rulesets.speed_meters.climbing import Climbing
from tabletrail.core.rulesets.speed_meters.falls import BUMPS_PER_SKIP, Falls, fall_quarters, fall_rolls
from tabletrail.core.rulesets.speed_meters.forces import Forces
from tabletrail.core.rulesets.speed_meters.geometry import (
    JudgeFn,
    hover_height,
    least_cost,
    line3,
    ray,
    swimmable,
    water_bottom,
)
from tabletrail.core.rulesets.speed_meters.grappling import Grappling
from tabletrail.core.rulesets.speed_meters.modes import Modes
from tabletrail.core.rulesets.speed_meters.part import SpeedRules
from tabletrail.core.rulesets.speed_meters.steps import _Through
from tabletrail.core.rulesets.speed_meters.swimming import Swimming
from tabletrail.core.rulesets.speed_meters.walking import Walking, can_walk, movement_going_on
from tabletrail.ruleset_api import (
    GM_RULING,
    XY,
    Batch,
    CloseDoor,
    Command,
    Dice,
    EncounterState,
    EndTurn,
    Fighter,
    OpenDoor,
    Pos,
    Refusal,
    Ruleset,
    crawl_factor,
    fmt,
    handles,
    is_prone,
    path_cells,
    plural,
    require,
    show,
    step_blocked,
    to_cu,
    walk,
)
from tabletrail.ruleset_api import events as ev

__all__ = ["SpeedMeters", "fall_quarters", "fall_rolls", "hover_height", "ray", "swimmable", "water_bottom"]


class SpeedMeters(Ruleset):
    """speed-meters: one ruleset made of its families of rules (`parts`), and what they share."""

    # Every hook runs its parts in this order, which is the order of their events. A turn starts with
    # new actions (walking), then a fall under way goes on (falls), a glide moves (modes), a grab is
    # kept up (grappling) and a held breath runs down (swimming). After a command: the GM's meters are
    # kept and a Movement paused at a door forgotten (walking), a piece the GM set down takes its mode
    # (modes), a grab carried out of reach ends (grappling), breath is held or taken (swimming). Advantage:
    # against a climber (climbing), then against a swimmer (swimming).
    parts = (Walking, Falls, Modes, Climbing, Forces, Grappling, Swimming)

    id = "speed-meters"
    title = "Speed per Movement action, 1 m spaces"
    document = "004_1955ec219bb4ca54.txt"
    unit = "m"
    takes_bumps = True  # fall-table: a Skill Feat reaction to any fall
    # every budget a Moved pays is a length (centi-units): forced, grapple and glide too
    centi_resources = ("movement", "maneuver", "forced", "grapple", "glide")
    # tabletrail/doors: a Movement is a whole action and its Speed, so a door that costs is paid in actions
    door_resource = "actions"
    rules = RULES
    settings = SETTINGS
    stats = STATS
    posture_rules = ("speed-meters/movement", "speed-meters/movement")

    def decide(self, state: EncounterState, command: Command, dice: Dice) -> list[ev.Event]:
        """fall-table: "1 Instant death" is final; Bumps count from 0, never as extra rolls.

        A dead fighter takes none of the ruleset's commands (its turn still passes by
        end-turn); the GM's rulings and undo are no commands of the fighter's.
        """
        fid = getattr(command, "fighter", "")
        f = state.fighter(fid) if isinstance(fid, str) and fid else None
        if f is not None and f.marks.get("dead") and type(command) in self._handlers:
            require(
                isinstance(command, EndTurn),
                self.rule("fall-table"),
                f"{f.id} died in a fall (1 on the falling table, instant death): "
                "it takes no commands but the GM's rulings",
            )
        bumps = getattr(command, "bumps", 0)
        require(
            bumps >= 0,
            self.rule("fall-table"),
            f"bumps={bumps}: a Skill Feat's Bumps are 0 or more (each {BUMPS_PER_SKIP} skip a falling roll)",
        )
        return super().decide(state, command, dice)

    def check_settings(self, settings: dict[str, Any]) -> tuple[str, str] | None:
        """hover: a span or a rise counts from 0; so do the actions standing up takes."""
        for name in ("hover_span", "hover_rise", "stand_up_actions"):
            if settings[name] < 0:
                return name, f"must not be negative, got {settings[name]}"
        return None

    def after_posture(self, b: Batch, f: Fighter, trigger: str) -> None:
        """Dropping prone or standing up takes the actions the stand_up_actions setting says."""
        standing = trigger == "stand_up"
        doing, what = ("standing up", "a stand-up") if standing else ("dropping prone", "a drop-prone")
        need = int(b.state.settings["stand_up_actions"])
        left = actions_of(b.state, f) - f.used("actions")
        require(  # with none left, use_action says every action is used
            need <= left or left <= 0,
            self.rule("movement"),
            f"{doing} takes {plural(need, 'action')} (stand_up_actions), but {f.id} has {left} left",
        )
        for _ in range(need):
            self.use_action(b, f, self.rule("movement"), what)  # "a drop-prone action (2 actions left …)"

    # --- the drag ruler and doors: a Movement's budgets ----------------------------------------

    def further_budget(self, state: EncounterState, f: Fighter) -> tuple[int, str]:
        """movement: each action may be a Movement of a fresh Speed."""
        # the next walk takes an action of its own, unless it goes on past a door (stop)
        taken = 1 if movement_going_on(state, f) else 2
        if not can_walk(state, f) or f.used("actions") + taken > actions_of(state, f):
            return 0, ""
        return self.stat(f, "speed"), "a second Movement action"

    def door_budget(self, state: EncounterState, f: Fighter) -> int:
        """tabletrail/doors: a door that costs is paid in actions (`door_resource`)."""
        return actions_of(state, f) - f.used("actions")

    @handles(OpenDoor)
    def open_door(self, b: Batch, cmd: OpenDoor, dice: Dice) -> None:
        """stop: a door opened on the way, as part of the move, does not stop the Movement."""
        super().open_door(b, cmd, dice)
        self.part(Walking).door_on_the_way(b, cmd.fighter, "opening a door")

    @handles(CloseDoor)
    def close_door(self, b: Batch, cmd: CloseDoor, dice: Dice) -> None:
        """stop: nor does a door closed behind the fighter."""
        super().close_door(b, cmd, dice)
        self.part(Walking).door_on_the_way(b, cmd.fighter, "closing a door")

    # --- occupancy: who may stand or pass where ------------------------------------------------

    def not_solid(self, state: EncounterState, to: XY | Pos, *, obstacles: bool) -> None:
        """occupancy: walls block at every height; solid obstacles too, unless passed over (`obstacles`)."""
        grid = state.grid
        x, y = to[0], to[1]
        if grid.blocked(x, y) or (obstacles and grid.has(x, y, "solid")):
            raise Refusal(
                self.rule("occupancy"),
                f"{show(to)} is {grid.kind(x, y).terrain}: a solid obstacle blocks the way",
            )

    def above_floor(self, state: EncounterState, to: Pos, rule: str) -> None:
        """Nobody moves inside the ground or an obstacle: a position is at or above the cell's top."""
        floor = state.grid.top[to[1]][to[0]]
        if to[2] < floor:
            raise Refusal(
                rule,
                f"{show(to)} at {fmt(to[2])} m is inside the ground or an obstacle there "
                f"(top {fmt(floor)} m)",
            )

    def no_enemy(self, state: EncounterState, f: Fighter, pos: Pos) -> tuple[str, ...]:
        """occupancy: enemies block the way, allies may be passed through.

        Returns the rule to cite for the step: occupancy when it passes through an ally's space
        ("Can move through spaces occupied by allies" decided that the step is allowed).
        """
        others = others_at(state, f.id, pos)
        for other in others:
            if other.side != f.side:
                raise Refusal(
                    self.rule("occupancy"), f"{show(pos)} is held by {other.id}, an enemy of {f.id}"
                )
        return (self.rule("occupancy"),) if others else ()

    def can_end(self, state: EncounterState, f: Fighter, what: str = "the Movement") -> None:
        """occupancy: never end in an occupied space."""
        others = [o.id for o in others_at(state, f.id, f.pos)]
        if others:
            raise Refusal(
                self.rule("occupancy"), f"{what} would end on {show(f.pos)}, occupied by {', '.join(others)}"
            )

    def landing_space(self, state: EncounterState, fid: str, cell: XY, z: int) -> tuple[XY, str]:
        """Where a body coming down from `z` onto `cell` lands, and why, if someone is there.

        occupancy (house ruling, setting fall_onto_fighter; the document says nothing of falling onto
        someone): a fall or a glide never ends in an occupied space, as a Movement can't; it lands in
        the nearest free space, one not solid, lower than it comes down from (so never back where it
        was pushed from) and not across a wall from `cell` (nearest by straight distance, ties in
        reading order).
        """
        grid = state.grid

        def taken(c: XY) -> list[str]:
            return [o.id for o in others_at(state, fid, (c[0], c[1], grid.top[c[1]][c[0]]))]

        def free(c: XY, ring: int) -> bool:
            x, y = c
            return (
                grid.inside(x, y)
                and not (grid.blocked(x, y) or grid.has(x, y, "solid"))
                and grid.top[y][x] < z
                and not (ring == 1 and step_blocked(state, cell, c))
                and not taken(c)
            )

        who = taken(cell)
        if not who:
            return cell, ""
        if state.settings["fall_onto_fighter"] == "same-space":
            return cell, f"shares {show(cell)} with {', '.join(who)} (fall_onto_fighter = same-space)"
        x0, y0 = cell
        for ring in range(1, max(grid.width, grid.height)):
            near = [
                (x0 + dx, y0 + dy)
                for dy in range(-ring, ring + 1)
                for dx in range(-ring, ring + 1)
                if max(abs(dx), abs(dy)) == ring and free((x0 + dx, y0 + dy), ring)
            ]
            if near:
                spot = min(near, key=lambda c: ((c[0] - x0) ** 2 + (c[1] - y0) ** 2, c[1], c[0]))
                return spot, f"{show(cell)} is taken by {', '.join(who)}: lands in the nearest free space"
        return cell, ""

    # --- what every Movement shares: its start, its fighter, its mode ---------------------------

    def brawn(self, f: Fighter) -> int:
        """Brawn, added to climbing, grappling and escape rolls (climb, shove, push-pull, grab)."""
        return int(self.stat(f, "brawn"))

    def prone_factor(self, state: EncounterState, f: Fighter) -> int:
        """movement: what a walking step costs a prone fighter, as a multiple of its price standing.

        The document never says how a prone fighter moves (setting prone_move): 'walk' at the normal
        cost, 'crawl' at the shared crawl's 2 a meter, or 'stand-first', refused until it stands."""
        how = state.settings["prone_move"]
        if how == "walk" or not is_prone(f):
            return 1
        if how == "stand-first":
            raise Refusal(
                self.rule("movement"),
                f"{f.id} is prone: this table's fighters stand up before they move (prone_move = "
                f"stand-first): stand-up {f.id} first",
            )
        return crawl_factor(f)

    def set_mode(self, b: Batch, fid: str, dest: str, rule: str, note: str = "") -> None:
        """Move the fighter's mode machine to `dest` (nothing when it is there already)."""
        f = b.state.fighter(fid)
        assert f is not None
        if mode_of(f) == dest:
            return
        self.change(b, f, "mode", TRIGGER[dest], rule, note)
        # The facts a mode keeps go with it: a glide's heading, how far a fall has come and the
        # Bumps of the Skill Feat waiting for its landing.
        for key in {"gliding": ("glide",), "falling": ("fallen", "skill_feat")}.get(mode_of(f), ()):
            if key in f.marks:
                b.emit(ev.Unmarked(fighter=fid, key=key, rules=(rule,)))

    def settle_mode(self, b: Batch, fid: str, rule: str, note: str = "") -> None:
        """After a fighter comes down or appears somewhere: swimming in deep water, else walking."""
        f = b.state.fighter(fid)
        assert f is not None
        x, y, _ = f.pos
        self.set_mode(b, fid, "swimming" if swimmable(b.state.grid, x, y) else "walking", rule, note)

    def use_action(
        self, b: Batch, f: Fighter, rule: str, what: str, note: str = "", also: tuple[str, ...] = ()
    ) -> None:
        """Spend one of the turn's actions on `what` (`also`: other rules it applied); none left refuses."""
        total = actions_of(b.state, f)
        left = total - b.state.fighter(f.id).used("actions")  # type: ignore[union-attr]
        require(
            left > 0,
            rule,
            f"{f.id} has used all {total} actions this turn; "
            + (
                "a stopped Movement can't resume, and a new one needs an action"
                if rule == self.rule("stop")
                else f"{what} needs an action"
            ),
        )
        b.emit(
            ev.Spent(
                fighter=f.id,
                resource="actions",
                amount=1,
                rules=(rule, *also),
                note=note or f"{what} action ({plural(left - 1, 'action')} left after it)",
            )
        )

    def begin_movement(self, b: Batch, f: Fighter, what: str = "a Movement") -> None:
        """stop: every Movement is a new action with a fresh Speed and fresh maneuver meters."""
        stale = tuple(r for r in ("movement", "maneuver") if f.used(r))
        if stale:
            b.emit(
                ev.Refreshed(
                    fighter=f.id,
                    resources=stale,
                    rules=(self.rule("stop"),),
                    note="a new Movement starts with a fresh Speed and 2 m of maneuvers",
                )
            )
        given = f.marks.get(GIVEN)
        if given:  # adjust: what the GM gave (or took) since the last Movement is this one's
            for resource, amount in given.items():
                b.emit(
                    ev.Spent(
                        fighter=f.id,
                        resource=resource,
                        amount=-amount,
                        rules=(GM_RULING, self.rule("stop")),
                        note=f"this Movement {'has' if amount > 0 else 'loses'} the {fmt(abs(amount))} m of "
                        f"{resource} the GM {'gave' if amount > 0 else 'took'} since the last one",
                    )
                )
            b.emit(ev.Unmarked(fighter=f.id, key=GIVEN, rules=(GM_RULING,), note="the GM's meters are used"))
        self.use_action(b, f, self.rule("stop"), what)

    def mover(self, state: EncounterState, fid: str, modes: tuple[str, ...], what: str) -> Fighter:
        """The acting fighter, alive, not held, in a mode this kind of movement can start from."""
        f = self.acting(state, fid)
        held = partner(state, f.id)
        if held:
            grabber, grabbed = held
            raise Refusal(
                self.rule("grab"),
                f"{f.id} is {'grabbing ' + grabbed if f.id == grabber else 'grabbed by ' + grabber}: "
                "both are Immobilized while the grab lasts",
            )
        mode = mode_of(f)
        if mode not in modes:
            up = above_ground(state, f)
            where = f" {fmt(up)} m above the ground" if up > 0 else ""
            raise Refusal(
                self.rule(MODE_RULE[mode]),
                f"{f.id} is {mode}{where}: {what} can't start from {mode} (it can from {', '.join(modes)})",
            )
        return f

    def cells(self, state: EncounterState, f: Fighter, path: tuple[tuple[int, ...], ...]) -> list[XY]:
        """The spaces a command's waypoints lead through, step by step (movement)."""
        return path_cells(state, f, path, self.rule("movement"))

    # --- the 3-D Movements (modes, climbing, swimming): a planned path, walked with a mode's judge ---------

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

    # --- falls: every fall, whatever made it --------------------------------------------------

    def drop(self, b: Batch, dice: Dice, fid: str, *, rule: str, bumps: int = 0, note: str = "") -> None:
        """A fall from where the fighter is (a step off a ledge, a lost grip, a force over an edge, the
        GM's `fall`): the falls part decides what it costs (fall-table, fall-speed)."""
        self.part(Falls).drop(b, dice, fid, rule=rule, bumps=bumps, note=note)

    # --- forced movement: every force, whatever made it -----------------------------------------

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
        """A fighter moved by force (an effect, a random move, a shove, a push, a pull), checked step
        by step as forced movement is: the forces part moves it; returns the positions it passed."""
        return self.part(Forces).shift(
            b,
            dice,
            fid,
            cells,
            kind=kind,
            origin=origin,
            named=named,
            rule=rule,
            stop_early=stop_early,
            aware=aware,
            bumps=bumps,
            meant=meant,
        )


def _serves(rs: SpeedMeters) -> SpeedRules:
    """Never called: mypy checks here that `SpeedMeters` answers what its parts ask of it (part.py)."""
    return rs
