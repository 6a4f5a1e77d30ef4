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
  (core/doors.py `part_of_move`), its next walk goes on with what is left of
  the same Movement (no new action): opening a door is not stopping.
- A fighter's mode lives in `states["mode"]` (the `mode` graph in shared.py):
  walking, climbing, swimming, flying, hovering, gliding, falling.
- A fighter fills its 1 m space from where it stands up to `body_height`;
  two fighters share a space when those spans overlap (so a flyer may pass
  over a walker's head, a hoverer may not).
- Falls go through `core.falling.fall`; what they cost (the falling table,
  the time a fall takes) is in falls.py. The document lands fallers prone but
  never says how a prone fighter moves: by default it walks at the normal cost
  (`prone_move`; stand-first, or crawl by the shared `core.crawling`).
- One jump goes up or across, as written (`jump_up_and_across`; both counts the
  climb and the air crossed within the 2 m of maneuver).
- Every roll is a check (`core.dice.check`): `roll=N` enters it at the table;
  otherwise the seeded dice draw it. Opposed rolls, climbs, saves and escapes
  use the `check_formula` setting (house default 1d6); the falling table rolls
  a d6 and random movement a d8, as the document says.

Where each rule's code lives (rule ids are cited next to the code):

- here, `SpeedMeters`: the catalogue (rules, settings, stats), the turn's start,
  and walking (movement, maneuver, jump, stop);
- shared.py: the document's numbers, the graphs, the 3-D geometry, and the
  questions every rule asks (occupancy);
- modes.py: fly, special-jump, hover, swim, climb, teleport, glide;
- forces.py: forced, random, size, shove, push-pull, grab;
- falls.py: fall-table, fall-speed;
- steps.py: the step policies `walk` prices a Movement's steps with.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace
from tabletrail.core.rulesets.speed_meters.falls import Falls, fall_quarters, fall_rolls
from tabletrail.core.rulesets.speed_meters.forces import Forces
from tabletrail.core.rulesets.speed_meters.modes import Modes
from tabletrail.core.rulesets.speed_meters.shared import (
    BUMPS_PER_SKIP,
    MANEUVER_LIMIT,
    ON_THE_WAY,
    Shared,
    hover_height,
    ray,
    swimmable,
    water_bottom,
)
from tabletrail.core.rulesets.speed_meters.steps import _Walking
from tabletrail.core.rulesets.speed_meters.table_view import TableView
from tabletrail.ruleset_api import (
    DIAGONAL_RULES,
    EVERY_1,
    GM_RULING,
    Batch,
    CloseDoor,
    Command,
    Dice,
    EncounterState,
    EndTurn,
    Fighter,
    Move,
    OpenDoor,
    Refusal,
    Rule,
    Setting,
    Stat,
    fmt,
    handles,
    length_of,
    plural,
    require,
    show,
    walk,
)
from tabletrail.ruleset_api import events as ev

__all__ = ["SpeedMeters", "fall_quarters", "fall_rolls", "hover_height", "ray", "swimmable", "water_bottom"]


class SpeedMeters(Modes, Forces, Falls, Shared):
    parts = (TableView,)  # what the table view shows of its marks
    id = "speed-meters"
    title = "Speed per Movement action, 1 m spaces"
    document = "004_1955ec219bb4ca54.txt"
    unit = "m"
    takes_bumps = True  # fall-table: a Skill Feat reaction to any fall
    # every budget a Moved pays is a length (centi-units): forced, grapple and glide too
    centi_resources = ("movement", "maneuver", "forced", "grapple", "glide")
    # tabletrail/doors: a Movement is a whole action and its Speed, so a door that costs is paid in actions
    door_resource = "actions"
    rules = (
        Rule(
            "movement",
            "a Movement action moves up to Speed meters, horizontally or diagonally, "
            "at most 1 m up by jumping",
            "diagonal rule is a ruleset setting (default: every step costs 1); the document never "
            "says how a prone fighter moves: it walks its whole Speed at the normal cost, or stands "
            "first, or crawls at 2 m a meter (setting prone_move)",
        ),
        Rule(
            "occupancy",
            "pass through allies, never end in an occupied space, never pass enemies or solid obstacles",
            "a fighter fills its space up to body_height; spaces overlap in height (setting body_height); "
            "a fall or a glide that would come down on a fighter lands in the nearest free space "
            "(setting fall_onto_fighter)",
        ),
        Rule(
            "maneuver",
            "at most 2 m of a Movement may be jump/roll/slide maneuvers",
            "every step up (stairs aside) and every space crossed in the air is a jump",
        ),
        Rule(
            "stop",
            "once a Movement stops it can't resume; moving again takes a new action",
            "a door opened or closed on the way as part of the move (door_cost 0) is not stopping: the "
            "next walk goes on with what is left of the Movement; a door that costs an action "
            "(door_cost 1 or more) is an action of its own, after which walking is a new Movement",
        ),
        Rule("rough", "a rough space costs 2 m; a Speed-1 mover ignores this"),
        Rule(
            "swim",
            "3-D movement in water; water is rough unless adapted; attackers from dry ground have "
            "Advantage; underwater the swimmer holds breath",
            "adapted: the fighter tag 'aquatic'; Speed when no Swim speed; below the surface a "
            "swimmer is underwater; breath lasts breath_rounds of its turns, and the adapted "
            "breathe water (settings breath_rounds, aquatic_breathes)",
        ),
        Rule(
            "jump",
            "1 m up or 2 m across as part of any Movement",
            "a normal Movement can't end in the air; stepping off a ledge is refused or falls "
            "(setting ledge_drop); one jump goes up or across, not both, as written (setting "
            "jump_up_and_across: either, or both within the 2 m of maneuver)",
        ),
        Rule(
            "climb",
            "roll +Brawn against difficulty 1–3 (by surface) for each climbing move; failure falls; "
            "half Speed (min 1); non-climbing attackers have Advantage",
            "one roll per climbing Movement, before it, against the hardest hold on the way; "
            "failing on the ground just loses the Movement",
        ),
        Rule("fly", "Fly: any direction, may end airborne"),
        Rule(
            "hover",
            "Hover: 1 m above ground, ignoring land obstacles, hazards and rough terrain",
            "the hover rises with the ground at most hover_rise m a step, floats straight across a "
            "dip no wider than hover_span spaces (settings); landing is free",
        ),
        Rule(
            "glide",
            "Glide: moves 5 m across as it falls at turn start, no falling damage if still gliding "
            "on landing",
            "starting a glide is a Movement, off an edge or from the air, toward one of the 8 "
            "directions; it sinks glide_descent m a turn (setting)",
        ),
        Rule("special-jump", "Special jump: any direction, must land on a surface"),
        Rule(
            "teleport",
            "Teleport: any space in range in line of sight",
            "line of sight between eyes eye_height above each space (setting); walls and "
            "solid obstacles taller than the line block",
        ),
        Rule(
            "forced",
            "push ends farther and is never closer on the way; pull ends closer and is never farther; "
            "slide goes anywhere; moved toward a known hazard or trap, the target may save as a "
            "reaction to stop prone just short of it",
            "the Save is a check against save_target (setting); a drop of more than 1 m is a hazard "
            "(setting edge_is_hazard)",
        ),
        Rule(
            "random",
            "number the 8 neighbours, roll 1d8, move that way",
            "numbering is a setting (random_numbering)",
        ),
        Rule(
            "shove",
            "opposed +Brawn; 1 m per 2 points of margin; the shover stays put",
            "grappling needs the target within grapple_reach (setting); each is an action",
        ),
        Rule(
            "push-pull",
            "opposed +Brawn; 1 m per point of margin, the mover follows into each vacated space, "
            "at most Brawn spaces",
            "the mover follows on foot: it must be walking, and it stops where its own walk would",
        ),
        Rule(
            "grab",
            "opposed +Brawn; escape difficulty = the grabber's margin; sustained: each turn the grabber "
            "commits Action Dice equal to the target's Brawn or the grab ends; both are Immobilized",
            "Action Dice are the actions budget; the first commitment is made at once",
        ),
        Rule("size", "no shove, push, pull or grab against a larger size category"),
        Rule(
            "fall-table",
            "from 5 m, one d6 per 5 m fallen: 1 death, 2 permanent trauma, 3 trauma, 4 1d10 per 2 m, "
            "5 1d6 per 2 m, 6 prone unhurt; soft ground skips 1 roll, liquid 3; a Skill Feat reaction "
            "skips 1 roll per 2 Bumps",
            "the faller always takes the opt-outs it has; a fall under 5 m lands prone (setting "
            "short_fall_prone)",
        ),
        Rule(
            "fall-speed",
            "20 m of falling per turn; landing after 5/10/15/20 m leaves 3/4, 1/2, 1/4, none of the "
            "turn's actions",
            "between the marks the time rounds by fall_rounding; a fall outside the faller's turn "
            "costs its next turn (setting off_turn_fall); landing part-way through its own turn, at "
            "most the share of the total the text says remains is left (setting fall_mid_turn)",
        ),
    )
    settings = (
        Setting(
            "diagonal",
            EVERY_1,
            "cost of a diagonal step: every-1, alternating, euclidean, manhattan",
            DIAGONAL_RULES,
            "speed-meters/movement",
        ),
        Setting(
            "actions_per_turn",
            4,
            "actions a fighter has each turn (house default; the document "
            "counts a turn's actions in quarters)",
            (),
            "speed-meters/stop",
        ),
        Setting(
            "check_formula",
            "1d6",
            "dice the seeded source rolls for a check: climbing, opposed +Brawn, saves, escapes "
            "(house default; the falling table rolls a d6 and random movement a d8 whatever this says)",
        ),
        Setting(
            "fall_onto_fighter",
            "beside",
            "a fall or a glide that comes down on another fighter: beside (lands in the nearest free "
            "space, as a Movement can't end in an occupied one) or same-space (the two share it); "
            "house ruling: the document says nothing of falling onto someone",
            ("beside", "same-space"),
            "speed-meters/occupancy",
        ),
        Setting(
            "short_fall_prone",
            True,
            "whether a fall under 5 m (no roll on the falling table) lands the faller prone; house "
            "ruling: the document lands a faller prone only on the table's 6 and says nothing of "
            "shorter falls; no lands it on its feet",
            (),
            "speed-meters/fall-table",
        ),
        Setting(
            "stand_up_actions",
            1,
            "actions it takes to stand up from prone, and to drop prone on purpose (house ruling: the "
            "document lands fallers prone but does not say how they rise)",
            (),
            "speed-meters/movement",
        ),
        Setting(
            "prone_move",
            "walk",
            "how a prone fighter moves (house default 'walk': the document lands fallers prone and "
            "never says; it walks its whole Speed at the normal cost without standing); 'stand-first': "
            "a Movement while prone is refused until it stands up (stand-up, stand_up_actions); "
            "'crawl': every meter costs 2, as a crawl does",
            ("walk", "stand-first", "crawl"),
            "speed-meters/movement",
        ),
        Setting(
            "body_height",
            2,
            "meters a fighter fills above where it stands; two fighters whose spans overlap share a space",
            (),
            "speed-meters/occupancy",
        ),
        Setting(
            "ledge_drop",
            "refuse",
            "a walk that steps off a drop of more than 1 m and does not land: 'refuse' it, or let the "
            "fighter 'fall'",
            ("refuse", "fall"),
            "speed-meters/jump",
        ),
        Setting(
            "jump_up_and_across",
            "either",
            "one jump across the air that lands on ground higher than its take-off (a shelf 1 m up): "
            "'either' refuses it, as the text reads ('1 meter vertically or 2 meters horizontally'); "
            "'both' allows it, the climb and the spaces crossed counted together as maneuver meters "
            "within the 2 m (1 m across + 1 m up)",
            ("either", "both"),
            "speed-meters/jump",
        ),
        Setting(
            "breath_rounds",
            3,
            "turns a swimmer can hold its breath underwater (house default; the document is silent)",
            (),
            "speed-meters/swim",
        ),
        Setting(
            "aquatic_breathes",
            True,
            "fighters adapted to water (tag 'aquatic') breathe underwater and never hold their breath",
            (),
            "speed-meters/swim",
        ),
        Setting(
            "hover_span",
            1,
            "spaces of a dip (a cut, a trench) a hover floats straight across at the height it came with "
            "when the ground beyond is as high again; 0: it follows the ground down into every dip",
            (),
            "speed-meters/hover",
        ),
        Setting(
            "hover_rise",
            1,
            "meters the ground may rise in one step under a hover that rises with it (house default)",
            (),
            "speed-meters/hover",
        ),
        Setting(
            "glide_descent",
            1,
            "meters a glider sinks at each turn start while it moves across (house default)",
            (),
            "speed-meters/glide",
        ),
        Setting(
            "eye_height",
            1.5,
            "meters above its feet a fighter sees from, for line of sight (house default)",
            (),
            "speed-meters/teleport",
        ),
        Setting(
            "save_target",
            4,
            "the number a Save must reach to stop forced movement short of a hazard (house default)",
            (),
            "speed-meters/forced",
        ),
        Setting(
            "edge_is_hazard",
            True,
            "a drop of more than 1 m counts as a known hazard for forced movement's save",
            (),
            "speed-meters/forced",
        ),
        Setting(
            "random_numbering",
            "clockwise",
            "how the 8 neighbours are numbered for the 1d8: 'clockwise' 1 N, 2 NE ... 8 NW; "
            "'reading' 1 NW, 2 N, 3 NE, 4 W, 5 E, 6 SW, 7 S, 8 SE",
            ("clockwise", "reading"),
            "speed-meters/random",
        ),
        Setting(
            "grapple_reach",
            1,
            "meters within which a shove, push, pull or grab reaches its target (house default)",
            (),
            "speed-meters/shove",
        ),
        Setting(
            "fall_rounding",
            "down",
            "a fall between the 5 m marks takes the time of the mark 'down' (7 m as 5 m) or 'up' "
            "(7 m as 10 m); a fall under 5 m takes none",
            ("down", "up"),
            "speed-meters/fall-speed",
        ),
        Setting(
            "off_turn_fall",
            "next-turn",
            "a fall outside the faller's own turn takes its time (by its length) from the faller's "
            "'next-turn' (house default; several such falls before that turn take the longer one's "
            "time, as they overlap in it), or 'none'",
            ("next-turn", "none"),
            "speed-meters/fall-speed",
        ),
        Setting(
            "fall_mid_turn",
            "remaining",
            "a fall landing part-way through the faller's own turn: 'remaining' (house default: the "
            "text's 'this much of your turn remaining', 1/2 of the total Actions after 10 m, caps what is "
            "left, so actions already used count toward it) or 'taken' (the fall's share of the total "
            "comes off the actions left)",
            ("remaining", "taken"),
            "speed-meters/fall-speed",
        ),
    )
    stats = (
        Stat("speed", "meters per Movement action", length=True),
        Stat("actions", "actions per turn; the actions_per_turn setting when not given", default=0),
        Stat("brawn", "Brawn, added to climbing, grappling and escape rolls", default=0),
        Stat("swim", "Swim (n): meters per swimming Movement; Speed when not given", length=True, default=0),
        Stat(
            "climb",
            "Climb (n): meters per climbing Movement; half Speed (min 1) when not given",
            length=True,
            default=0,
        ),
        Stat("fly", "Fly (n): meters per flying Movement; none when not given", length=True, default=0),
        Stat("hover", "Hover (n): meters per hovering Movement; none when not given", length=True, default=0),
        Stat(
            "glide",
            "Glide (n): a fighter with it may glide; the glide moves the document's 5 m across at each "
            "turn start whatever n is",
            length=True,
            default=0,
        ),
        Stat(
            "jump", "Jump (n): meters per special-jump Movement; none when not given", length=True, default=0
        ),
        Stat(
            "teleport",
            "Teleport (n): the teleport's range in meters; none when not given",
            length=True,
            default=0,
        ),
    )
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
        left = self.actions(b.state, f) - f.used("actions")
        require(  # with none left, use_action says every action is used
            need <= left or left <= 0,
            self.rule("movement"),
            f"{doing} takes {plural(need, 'action')} (stand_up_actions), but {f.id} has {left} left",
        )
        for _ in range(need):
            self.use_action(b, f, self.rule("movement"), what)  # "a drop-prone action (2 actions left …)"

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        b.emit(
            ev.Refreshed(
                fighter=fighter_id,
                resources=("actions", "movement", "maneuver", "forced", "grapple", "glide"),
                rules=(self.rule("stop"),),
                note="a new turn brings new actions",
            )
        )
        f = b.state.fighter(fighter_id)
        assert f is not None
        if "fall_time" in f.marks:  # fall-speed: a fall outside its turn takes this turn's time
            b.emit(ev.Unmarked(fighter=f.id, key="fall_time", rules=(self.rule("fall-speed"),)))
            self.lose_time(b, f.id, int(f.marks["fall_time"]), "the fall it took before its turn")
        if self.mode(f) == "falling":  # fall-speed: 20 m more of a long fall
            self.drop(b, dice, f.id, rule=self.rule("fall-speed"), note="still falling as its turn starts")
        elif self.mode(f) == "gliding":
            self.glide_leg(b, dice, f.id)
        self.grab_upkeep(b, f.id)
        f = b.state.fighter(fighter_id)
        assert f is not None
        if "breath" in f.marks and self.underwater(b.state, f):  # swim: a held breath runs down
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
        """swim: a swimmer going under starts holding its breath; coming up, it breathes again.

        A piece the GM places (`place`) on the ground or in water takes the mode of where it now
        is: a climber set on open ground is on no surface any more (climb), nor is a faller or a
        glider still in the air; left in its old mode it could neither walk nor climb.

        grab: a batch that carried a grabber or its catch out of the other's reach ends the grab.
        """
        self.keep_given(b)
        self.forget_pauses(b)  # stop: a Movement goes on past a door only
        for event in list(b.events):
            if isinstance(event, ev.Placed) and event.how == "gm":
                self.set_down(b, event.fighter)
        if b.state.links and any(isinstance(e, (ev.Placed, ev.Moved)) for e in b.events):
            self.grabs_in_reach(b)  # grab: a fall or a glide that carries one out of reach ends the hold
        n = int(b.state.settings["breath_rounds"])
        gills = b.state.settings["aquatic_breathes"]
        for f in b.state.fighters:
            under = self.underwater(b.state, f) and not (gills and "aquatic" in f.tags)
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

    def set_down(self, b: Batch, fid: str) -> None:
        """The mode of a fighter the GM set on the ground follows where it is (recorded as an event)."""
        f = b.state.fighter(fid)
        if f is None or self.mode(f) in ("flying", "hovering") or self.above_ground(b.state, f) > 0:
            return
        self.settle_mode(b, fid, GM_RULING, "set down on the ground: its mode follows where it is")

    # --- the reachable area: ordinary walking -------------------------------------------------

    def walker(self, state: EncounterState, f: Fighter) -> _Walking | None:
        if not self.can_walk(state, f):
            return None
        return _Walking(self, self.stat(f, "speed"), jumps=False)

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        # Each Movement is a fresh Speed, if an action is left to start one.
        if not self.can_walk(state, f):
            return 0
        going = self.movement_going_on(state, f)  # stop: past a door, the same Movement's meters left
        if going:
            return int(going["left"])
        return self.with_given(f, self.stat(f, "speed")) if f.used("actions") < self.actions(state, f) else 0

    def further_budget(self, state: EncounterState, f: Fighter) -> tuple[int, str]:
        """movement: each action may be a Movement of a fresh Speed."""
        # the next walk takes an action of its own, unless it goes on past a door (stop)
        taken = 1 if self.movement_going_on(state, f) else 2
        if not self.can_walk(state, f) or f.used("actions") + taken > self.actions(state, f):
            return 0, ""
        return self.stat(f, "speed"), "a second Movement action"

    def door_budget(self, state: EncounterState, f: Fighter) -> int:
        return self.actions(state, f) - f.used("actions")

    def can_walk(self, state: EncounterState, f: Fighter) -> bool:
        return self.mode(f) == "walking" and not f.marks.get("dead") and self.partner(state, f.id) is None

    # --- movement: walking ------------------------------------------------------------

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        f = self.mover(b.state, cmd.fighter, ("walking",), "a Movement")
        cells = self.cells(b.state, f, cmd.path)
        going = self.movement_going_on(b.state, f)  # stop: a door on the way did not stop it
        if going:
            speed, budget, maneuvers = int(going["speed"]), int(going["left"]), int(going["maneuvers"])
            policy = _Walking(self, speed, jumps=True, maneuvers=maneuvers)
            policy.spent, policy.risen, parity = speed - budget, int(going["risen"]), int(going["parity"])
            b.emit(
                ev.Unmarked(
                    fighter=f.id,
                    key=ON_THE_WAY,
                    rules=(self.rule("stop"),),
                    note=f"{f.id} walks on past the door: the same Movement, {fmt(budget)} m of it left, "
                    "no new action",
                )
            )
        else:
            speed = budget = self.with_given(f, self.stat(f, "speed"))  # adjust: what the GM gave or took
            maneuvers = self.with_given(f, MANEUVER_LIMIT, "maneuver")
            self.begin_movement(b, f)
            policy, parity = _Walking(self, speed, jumps=True, maneuvers=maneuvers), 0
        taken, stopped = walk(
            b,
            policy,
            f.id,
            cells,
            budget=budget,
            budget_rule=self.rule("movement"),
            rules=(self.rule("movement"),) if not going else (self.rule("movement"), self.rule("stop")),
            what="the Movement",
            dice=dice,
            parity=parity,
        )
        if policy.maneuver:  # maneuver: what the jumps took of the 2 m
            b.emit(
                ev.Spent(
                    fighter=f.id,
                    resource="maneuver",
                    amount=policy.maneuver,
                    rules=(self.rule("maneuver"), self.rule("jump")),
                    note=f"{fmt(policy.maneuver)} m of this Movement were jumps (at most "
                    f"{fmt(maneuvers)} m may be maneuvers)",
                )
            )
        now = b.state.fighter(f.id)
        assert now is not None
        up = self.above_ground(b.state, now)
        if up > 0:  # jump: a normal Movement can't end in the air
            if b.state.settings["ledge_drop"] != "fall":
                raise Refusal(
                    self.rule("jump"),
                    f"a Movement can't end in the air: {show(now.pos)} is {fmt(up)} m above the ground "
                    "(a jump must land within 1 m below its take-off)",
                )
            # occupancy: "can't end a Movement in an occupied space": where the step off lands is
            # where this Movement ends, so nobody may be lying or standing there.
            x, y, _ = now.pos
            self.can_end(b.state, replace(now, pos=(x, y, b.state.grid.top[y][x])))
            self.drop(
                b, dice, f.id, rule=self.rule("jump"), bumps=cmd.bumps, note=f"steps off at {show(now.pos)}"
            )
        elif not stopped:
            self.pause_beside_door(
                b,
                f.id,
                speed=speed,
                left=budget - length_of(taken),  # the exact length, rounded once
                maneuvers=maneuvers - policy.maneuver,
                risen=policy.risen,
                parity=taken[-1].parity if taken else parity,
            )

    @handles(OpenDoor)
    def open_door(self, b: Batch, cmd: OpenDoor, dice: Dice) -> None:
        """stop: a door opened on the way, as part of the move, does not stop the Movement."""
        super().open_door(b, cmd, dice)
        self.door_on_the_way(b, cmd.fighter, "opening a door")

    @handles(CloseDoor)
    def close_door(self, b: Batch, cmd: CloseDoor, dice: Dice) -> None:
        """stop: nor does a door closed behind the fighter."""
        super().close_door(b, cmd, dice)
        self.door_on_the_way(b, cmd.fighter, "closing a door")
