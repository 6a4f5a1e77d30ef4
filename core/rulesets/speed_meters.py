"""speed-meters: the movement chapter of document 004 (1 m spaces, Speed per Movement).

Rule ids are the catalogue's `speed-meters/<rule>`; each is cited next to the
code that enforces it. The chapter in the engine's terms:

- A Movement is an action. Walking (`move`), swimming, climbing, flying,
  hovering, the special jump and teleporting are each a Movement in one mode;
  gliding is started by a Movement and then moves by itself at turn start.
- A fighter's mode lives in `states["mode"]` (the `mode` graph below):
  walking, climbing, swimming, flying, hovering, gliding, falling.
- A fighter fills its 1 m space from where it stands up to `body_height`;
  two fighters share a space when those spans overlap (so a flyer may pass
  over a walker's head, a hoverer may not).
- Falls go through `core.falling.fall`; what they cost (the falling table,
  the time a fall takes) is here.
- Every roll is a check (`core.dice.check`): `roll=N` enters it at the table;
  otherwise the seeded dice draw it. Opposed rolls, climbs, saves and escapes
  use the `check_formula` setting (house default 1d6); the falling table rolls
  a d6 and random movement a d8, as the document says.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from msgspec.structs import replace
from tabletrail.core.batch import Batch
from tabletrail.core.dice import Dice, check
from tabletrail.core.falling import fall, landing_height
from tabletrail.core.geometry import (
    ALTERNATING,
    EUCLIDEAN,
    EVERY_1,
    MANHATTAN,
    NEIGHBOURS,
    XY,
    Grid,
    Pos,
    expand,
    hypot_cu,
    show,
    step_cost,
)
from tabletrail.core.machines import Graph, register
from tabletrail.core.movement import QuietSteps, flat_step, rise, walk
from tabletrail.core.refusal import Refusal, require
from tabletrail.core.ruleset import Modifier, Rule, Ruleset, Setting, Stat, handles
from tabletrail.core.sight import blockers
from tabletrail.core.state import EncounterState, Fighter
from tabletrail.core.units import CU, fmt, half_down, to_cu
from tabletrail.events import types as ev
from tabletrail.events.commands import Command, Move
from tabletrail.events.commands.speed_meters import (
    Climb,
    Escape,
    Fall,
    Fly,
    Force,
    Glide,
    Grab,
    Hover,
    Land,
    Leap,
    Pull,
    Push,
    RandomMove,
    Release,
    Shove,
    Swim,
    Teleport,
)
from tabletrail.events.scenario import SIZES
from tabletrail.events.types import Step

# --- the document's own numbers ---------------------------------------------------

MANEUVER_LIMIT = 2 * CU  # maneuver: "for no more than 2 meters of the movement"
JUMP_UP = CU  # jump: "1 meter vertically"
JUMP_ACROSS = 2  # jump: "or 2 meters horizontally" (spaces of air)
HOVER_HEIGHT = CU  # hover: "just 1 meter above the ground"
FALL_ROLL_EVERY = 5 * CU  # fall-table: "for every 5 meters a character falls, roll a d6"
FALL_DAMAGE_EVERY = 2 * CU  # fall-table: "for every 2 meters you fell"
FALL_PER_TURN = 20 * CU  # fall-speed: "a total distance of 20 meters" a turn
SOFT_SKIPS, LIQUID_SKIPS, BUMPS_PER_SKIP = 1, 3, 2  # fall-table: opt-outs
DICE_PER_CHECK = 99  # the most dice one check's formula holds (core.dice): longer falls roll in parts

# --- state machines: one shared graph each, registered once ---------------------------

MODES = ("walking", "climbing", "swimming", "flying", "hovering", "gliding", "falling")
TRIGGER = {
    "walking": "land",
    "climbing": "climb",
    "swimming": "swim",
    "flying": "fly",
    "hovering": "hover",
    "gliding": "glide",
    "falling": "fall",
}
MODE = register(
    Graph(
        "mode",
        list(MODES),
        [
            {"trigger": "land", "source": [m for m in MODES if m != "walking"], "dest": "walking"},
            {"trigger": "climb", "source": ["walking", "swimming", "flying", "hovering"], "dest": "climbing"},
            {
                "trigger": "swim",
                "source": ["walking", "falling", "flying", "hovering", "gliding", "climbing"],
                "dest": "swimming",
            },
            {"trigger": "fly", "source": [m for m in MODES if m != "flying"], "dest": "flying"},
            {"trigger": "hover", "source": ["walking", "flying", "gliding", "falling"], "dest": "hovering"},
            {
                "trigger": "glide",
                "source": ["walking", "climbing", "flying", "hovering", "falling"],
                "dest": "gliding",
            },
            {
                "trigger": "fall",
                "source": ["walking", "climbing", "swimming", "flying", "hovering", "gliding"],
                "dest": "falling",
            },
        ],
        "walking",
    )
)
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
    )
)
MODE_RULE = {
    "walking": "movement",
    "climbing": "climb",
    "swimming": "swim",
    "flying": "fly",
    "hovering": "hover",
    "gliding": "glide",
    "falling": "fall-speed",
}

# random: the 8 neighbours numbered for the 1d8, by the `random_numbering` setting.
COMPASS = {
    (0, -1): "N",
    (1, -1): "NE",
    (1, 0): "E",
    (1, 1): "SE",
    (0, 1): "S",
    (-1, 1): "SW",
    (-1, 0): "W",
    (-1, -1): "NW",
}
NUMBERINGS: dict[str, tuple[XY, ...]] = {
    "clockwise": NEIGHBOURS,  # 1 N, 2 NE, 3 E, 4 SE, 5 S, 6 SW, 7 W, 8 NW (row 0 is north)
    "reading": ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)),  # NW N NE W E SW S SE
}

FALL_TABLE = {
    1: "instant death",
    2: "a Permanent Trauma of the GM's choosing",
    3: "a Trauma of the GM's choosing",
    4: "1d10 damage for every 2 m fallen",
    5: "1d6 damage for every 2 m fallen",
    6: "lands prone with no ill effect",
}


# --- geometry the rules share -------------------------------------------------------------


def sign(n: int) -> int:
    return (n > 0) - (n < 0)


def swimmable(grid: Grid, x: int, y: int) -> bool:
    """Water deep enough to swim in: deep water, or water with a depth below its surface."""
    return grid.has(x, y, "water") and (grid.has(x, y, "deep") or grid.kind(x, y).depth > 0)


def water_bottom(grid: Grid, x: int, y: int) -> int:
    """The lowest a swimmer goes in this cell: the surface less the water's depth."""
    return grid.top[y][x] - to_cu(grid.kind(x, y).depth)


def hover_height(grid: Grid, x: int, y: int) -> int:
    """1 m above the ground; a land obstacle standing there does not lift the hoverer."""
    base = to_cu(grid.kind(x, y).ground) if grid.has(x, y, "obstacle") else grid.top[y][x]
    return base + HOVER_HEIGHT


def grip(grid: Grid, pos: Pos) -> int | None:
    """The easiest climbing difficulty within reach at this height, or None with nothing to hold.

    A climbable cell (`climb` 1-3, or tagged climbable: difficulty 1) offers a
    face from its ground up to its top; a wall's face goes as high as its
    `height`, or without end when none is given.
    """
    x, y, z = pos
    best: int | None = None
    for nx, ny in grid.neighbours(x, y):
        kind = grid.kind(nx, ny)
        level = kind.climb or (1 if grid.has(nx, ny, "climbable") else 0)
        if not level:
            continue
        face = (to_cu(kind.ground) + to_cu(kind.height)) if kind.height or not grid.blocked(nx, ny) else None
        if face is None or z <= face:
            best = level if best is None else min(best, level)
    return best


def line3(a: Pos, b: Pos) -> Iterator[Pos]:
    """Positions from a to b (b included), each at most one space and 1 m from the last, one by one."""
    dx, dy, dz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    n = max(abs(dx), abs(dy), -(-abs(dz) // CU))

    def part(i: int, d: int) -> int:
        return sign(d) * ((2 * i * abs(d) + n) // (2 * n))

    return ((a[0] + part(i, dx), a[1] + part(i, dy), a[2] + part(i, dz)) for i in range(1, n + 1))


def ray(grid: Grid, start: XY, d: XY, meters: int) -> list[XY]:
    """The spaces `meters` steps from start along d, cut at the first one off the map.

    Forced moves stop at the map's edge anyway; cutting there keeps a mistyped distance or
    table roll (random meters=…, a shove's margin) from listing millions of spaces.
    """
    out: list[XY] = []
    x, y = start
    for _ in range(max(meters, 0)):
        x, y = x + d[0], y + d[1]
        out.append((x, y))
        if not grid.inside(x, y):
            break
    return out


def least_cost(frm: Pos, to: Pos) -> int:
    """The least any diagonal rule charges for a step: its largest component (a space is 1 m)."""
    return max(abs(to[0] - frm[0]) * CU, abs(to[1] - frm[1]) * CU, abs(to[2] - frm[2]))


def cost3(rule: str, dx: int, dy: int, dz: int, parity: int) -> tuple[int, int]:
    """A step in three dimensions under the diagonal rule; dz in centi-units (at most 1 m)."""
    if dz == 0:
        return step_cost(rule, dx, dy, parity)
    if dx == 0 and dy == 0:
        return abs(dz), parity
    if rule == EVERY_1:
        return CU, parity + 1
    if rule == ALTERNATING:
        return (2 * CU if parity % 2 else CU), parity + 1
    if rule == EUCLIDEAN:
        return hypot_cu(dx * CU, dy * CU, dz), parity + 1
    if rule == MANHATTAN:
        return (abs(dx) + abs(dy)) * CU + abs(dz), parity + 1
    raise ValueError(f"unknown diagonal rule {rule!r}")


def distance3(rule: str, a: Pos, b: Pos) -> int:
    """Distance between two positions under the diagonal rule, in centi-units."""
    dx, dy, dz = abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2])
    if rule == EUCLIDEAN:
        return hypot_cu(dx * CU, dy * CU, dz)
    if rule == MANHATTAN:
        return (dx + dy) * CU + dz
    flat = (max(dx, dy) + min(dx, dy) // 2) * CU if rule == ALTERNATING else max(dx, dy) * CU
    return max(flat, dz) + (min(flat, dz) // 2 if rule == ALTERNATING else 0)


def apart(a: Pos, b: Pos) -> int:
    """Squared straight-line distance in centi-units²: exact, for 'farther' and 'closer'."""
    return ((a[0] - b[0]) * CU) ** 2 + ((a[1] - b[1]) * CU) ** 2 + (a[2] - b[2]) ** 2


def meters_apart(a: Pos, b: Pos) -> str:
    return fmt(hypot_cu((a[0] - b[0]) * CU, (a[1] - b[1]) * CU, a[2] - b[2]))


def step3(state: EncounterState, frm: Pos, to: Pos, parity: int, mode: str, factor: int = 1) -> Step:
    """A priced step between two positions: the diagonal rule in 3-D, then a terrain factor."""
    dx, dy = to[0] - frm[0], to[1] - frm[1]
    cost, parity = cost3(state.settings["diagonal"], dx, dy, to[2] - frm[2], parity)
    return Step(
        to=to,
        cost=cost * factor,
        terrain=state.grid.kind(to[0], to[1]).terrain,
        diagonal=bool(dx and dy),
        parity=parity,
        mode=mode,
    )


def level(frm: Pos, to: Pos) -> Pos:
    """`frm` lifted or lowered to `to`'s height: pricing from it counts only the ground covered."""
    return (frm[0], frm[1], to[2])


JudgeFn = Callable[[EncounterState, Fighter, Pos, Pos, int, bool], tuple[Step, tuple[str, ...]]]


class SpeedMeters(Ruleset):
    id = "speed-meters"
    title = "Speed per Movement action, 1 m spaces"
    document = "004_1955ec219bb4ca54.txt"
    unit = "m"
    rules = (
        Rule(
            "movement",
            "a Movement action moves up to Speed meters, horizontally or diagonally, "
            "at most 1 m up by jumping",
            "diagonal rule is a ruleset setting (default: every step costs 1)",
        ),
        Rule(
            "occupancy",
            "pass through allies, never end in an occupied space, never pass enemies or solid obstacles",
            "a fighter fills its space up to body_height; spaces overlap in height (setting body_height)",
        ),
        Rule(
            "maneuver",
            "at most 2 m of a Movement may be jump/roll/slide maneuvers",
            "every step up (stairs aside) and every space crossed in the air is a jump",
        ),
        Rule("stop", "once a Movement stops it can't resume; moving again takes a new action"),
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
            "(setting ledge_drop)",
        ),
        Rule(
            "climb",
            "roll +Brawn against difficulty 1-3 (by surface) for each climbing move; failure falls; "
            "half Speed (min 1); non-climbing attackers have Advantage",
            "one roll per climbing Movement, before it, against the hardest hold on the way; "
            "failing on the ground just loses the Movement",
        ),
        Rule("fly", "Fly: any direction, may end airborne"),
        Rule(
            "hover",
            "Hover: 1 m above ground, ignoring land obstacles, hazards and rough terrain",
            "the hover rises at most 1 m a step with the ground; landing is free",
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
            "the faller always takes the opt-outs it has",
        ),
        Rule(
            "fall-speed",
            "20 m of falling per turn; landing after 5/10/15/20 m leaves 3/4, 1/2, 1/4, none of the "
            "turn's actions",
            "between the marks the time rounds by fall_rounding; a fall outside the faller's turn "
            "costs its next turn (setting off_turn_fall)",
        ),
    )
    settings = (
        Setting(
            "diagonal",
            EVERY_1,
            "cost of a diagonal step: every-1, alternating, euclidean, manhattan",
            ("every-1", "alternating", "euclidean", "manhattan"),
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
            "stand_up_actions",
            1,
            "actions it takes to stand up from prone, and to drop prone on purpose (house ruling: the "
            "document lands fallers prone but does not say how they rise)",
            (),
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
            "a fall outside the faller's own turn takes its time from the faller's 'next-turn', or 'none'",
            ("next-turn", "none"),
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
            "Glide (n): meters across at each turn start while gliding (the document's rate is 5)",
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
        """fall-table: Bumps count from 0; a negative count must not turn into extra rolls."""
        bumps = getattr(command, "bumps", 0)
        require(
            bumps >= 0,
            self.rule("fall-table"),
            f"bumps={bumps}: a Skill Feat's Bumps are 0 or more (each {BUMPS_PER_SKIP} skip a falling roll)",
        )
        return super().decide(state, command, dice)

    def after_posture(self, b: Batch, f: Fighter, trigger: str) -> None:
        """Dropping prone or standing up takes the actions the stand_up_actions setting says."""
        what = "standing up" if trigger == "stand_up" else "dropping prone"
        for _ in range(int(b.state.settings["stand_up_actions"])):
            self.use_action(b, f, self.rule("movement"), what)

    # --- small questions about the board --------------------------------------------------

    def actions(self, state: EncounterState, f: Fighter) -> int:
        return int(f.stats.get("actions") or state.settings["actions_per_turn"])

    def brawn(self, f: Fighter) -> int:
        return int(self.stat(f, "brawn"))

    def mode(self, f: Fighter) -> str:
        return f.state("mode", "walking")

    def body(self, state: EncounterState) -> int:
        return to_cu(state.settings["body_height"])

    def others_at(self, state: EncounterState, fid: str, pos: Pos) -> list[Fighter]:
        """occupancy: the fighters whose bodies would overlap one standing at pos."""
        body = self.body(state)
        return [
            o
            for o in state.fighters
            if o.id != fid and o.pos[0] == pos[0] and o.pos[1] == pos[1] and abs(o.pos[2] - pos[2]) < body
        ]

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

    def no_enemy(self, state: EncounterState, f: Fighter, pos: Pos) -> None:
        """occupancy: enemies block the way, allies may be passed through."""
        for other in self.others_at(state, f.id, pos):
            if other.side != f.side:
                raise Refusal(
                    self.rule("occupancy"), f"{show(pos)} is held by {other.id}, an enemy of {f.id}"
                )

    def can_end(self, state: EncounterState, f: Fighter, what: str = "the Movement") -> None:
        """occupancy: never end in an occupied space."""
        others = [o.id for o in self.others_at(state, f.id, f.pos)]
        if others:
            raise Refusal(
                self.rule("occupancy"), f"{what} would end on {show(f.pos)}, occupied by {', '.join(others)}"
            )

    def above_ground(self, state: EncounterState, f: Fighter) -> int:
        """How far the fighter is above what it would land on (0 on the ground; negative underwater)."""
        return f.pos[2] - state.grid.top[f.pos[1]][f.pos[0]]

    def underwater(self, state: EncounterState, f: Fighter) -> bool:
        return swimmable(state.grid, f.pos[0], f.pos[1]) and f.pos[2] < state.grid.top[f.pos[1]][f.pos[0]]

    def partner(self, state: EncounterState, fid: str) -> tuple[str, str] | None:
        """grab: (grabber, grabbed) of the grab this fighter is in, if any."""
        for kind, a, b in state.links:
            if kind == "grab" and fid in (a, b):
                return a, b
        return None

    def set_mode(self, b: Batch, fid: str, dest: str, rule: str, note: str = "") -> None:
        """Move the fighter's mode machine to `dest` (nothing when it is there already)."""
        f = b.state.fighter(fid)
        assert f is not None
        if self.mode(f) == dest:
            return
        self.change(b, f, "mode", TRIGGER[dest], rule, note)
        # The facts a mode keeps go with it: a glide's heading, how far a fall has come.
        key = {"gliding": "glide", "falling": "fallen"}.get(self.mode(f))
        if key and key in f.marks:
            b.emit(ev.Unmarked(fighter=fid, key=key, rules=(rule,)))

    def settle_mode(self, b: Batch, fid: str, rule: str, note: str = "") -> None:
        """After a fighter comes down or appears somewhere: swimming in deep water, else walking."""
        f = b.state.fighter(fid)
        assert f is not None
        x, y, _ = f.pos
        self.set_mode(b, fid, "swimming" if swimmable(b.state.grid, x, y) else "walking", rule, note)

    # --- actions and the start of a Movement -------------------------------------------------

    def use_action(
        self, b: Batch, f: Fighter, rule: str, what: str, note: str = "", also: tuple[str, ...] = ()
    ) -> None:
        """Spend one of the turn's actions on `what` (`also`: other rules it applied); none left refuses."""
        total = self.actions(b.state, f)
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
                note=note or f"{what} action ({left - 1} action(s) left after it)",
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
        self.use_action(b, f, self.rule("stop"), what)

    def mover(self, state: EncounterState, fid: str, modes: tuple[str, ...], what: str) -> Fighter:
        """The acting fighter, alive, not held, in a mode this kind of movement can start from."""
        f = self.acting(state, fid)
        require(not f.marks.get("dead"), self.rule("fall-table"), f"{f.id} died in a fall")
        held = self.partner(state, f.id)
        if held:
            grabber, grabbed = held
            raise Refusal(
                self.rule("grab"),
                f"{f.id} is {'grabbing ' + grabbed if f.id == grabber else 'grabbed by ' + grabber}: "
                "both are Immobilized while the grab lasts",
            )
        mode = self.mode(f)
        if mode not in modes:
            up = self.above_ground(state, f)
            where = f" {fmt(up)} m above the ground" if up > 0 else ""
            raise Refusal(
                self.rule(MODE_RULE[mode]),
                f"{f.id} is {mode}{where}: {what} can't start from {mode} (it can from {', '.join(modes)})",
            )
        return f

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
                    note=f"still underwater: {left} turn(s) of breath left"
                    if left
                    else "out of breath (what follows, drowning, the document leaves to the GM)",
                )
            )

    def settle(self, b: Batch, dice: Dice) -> None:
        """swim: a swimmer going under starts holding its breath; coming up, it breathes again."""
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
                        note=f"goes underwater holding its breath ({n} turn(s) of it)",
                    )
                )
            elif not under and "breath" in f.marks:
                b.emit(
                    ev.Unmarked(fighter=f.id, key="breath", rules=(self.rule("swim"),), note="breathes again")
                )

    # --- the reachable area: ordinary walking -------------------------------------------------

    def walker(self, state: EncounterState, f: Fighter) -> _Walking | None:
        if not self.can_walk(state, f):
            return None
        return _Walking(self, self.stat(f, "speed"), jumps=False)

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        # Each Movement is a fresh Speed, if an action is left to start one.
        if not self.can_walk(state, f):
            return 0
        return self.stat(f, "speed") if f.used("actions") < self.actions(state, f) else 0

    def can_walk(self, state: EncounterState, f: Fighter) -> bool:
        return self.mode(f) == "walking" and not f.marks.get("dead") and self.partner(state, f.id) is None

    # --- movement: walking ------------------------------------------------------------

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        f = self.mover(b.state, cmd.fighter, ("walking",), "a Movement")
        cells = self.cells(b.state, f, cmd.path)
        speed = self.stat(f, "speed")
        self.begin_movement(b, f)
        policy = _Walking(self, speed, jumps=True)
        walk(
            b,
            policy,
            f.id,
            cells,
            budget=speed,
            budget_rule=self.rule("movement"),
            rules=(self.rule("movement"),),
            what="the Movement",
            dice=dice,
        )
        if policy.maneuver:  # maneuver: what the jumps took of the 2 m
            b.emit(
                ev.Spent(
                    fighter=f.id,
                    resource="maneuver",
                    amount=policy.maneuver,
                    rules=(self.rule("maneuver"), self.rule("jump")),
                    note=f"{fmt(policy.maneuver)} m of this Movement were jumps (at most "
                    f"{fmt(MANEUVER_LIMIT)} m may be maneuvers)",
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
            self.drop(b, dice, f.id, rule=self.rule("jump"), note=f"steps off at {show(now.pos)}")

    def cells(self, state: EncounterState, f: Fighter, path: tuple[tuple[int, ...], ...]) -> list[XY]:
        waypoints: list[XY] = []
        for wp in path:
            require(
                state.grid.inside(wp[0], wp[1]),
                self.rule("movement"),
                f"{show(wp)} is off the {state.grid.width}x{state.grid.height} map",
            )
            waypoints.append((wp[0], wp[1]))
        cells = expand((f.pos[0], f.pos[1]), waypoints)
        require(bool(cells), self.rule("movement"), f"{f.id} is already at {show(f.pos)}")
        return cells

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
            self.drop(b, dice, f.id, rule=rule, note="the jump was cut short in the air")

    @handles(Hover)
    def hover(self, b: Batch, cmd: Hover, dice: Dice) -> None:
        """hover: 1 m above the ground, over land obstacles, hazards and rough terrain alike."""
        f = self.mover(b.state, cmd.fighter, ("walking", "hovering", "flying"), "hovering")
        rule = self.rule("hover")
        speed = self.stat(f, "hover")
        require(speed > 0, rule, f"{f.id} has no Hover speed (stat hover)")
        grid = b.state.grid
        plan = [(x, y, hover_height(grid, x, y)) for x, y in self.cells(b.state, f, cmd.path)]
        self.begin_movement(b, f, "a hovering Movement")
        self.set_mode(b, f.id, "hovering", rule)
        self.through(b, dice, f, plan, self.hover_step, budget=speed, rule=rule, what="the hover")

    def hover_step(
        self, state: EncounterState, f: Fighter, frm: Pos, to: Pos, parity: int, last: bool
    ) -> tuple[Step, tuple[str, ...]]:
        grid = state.grid
        x, y, z = to
        self.not_solid(state, to, obstacles=False)  # a wall is no land obstacle: it blocks a hover
        lift = (z - HOVER_HEIGHT) - (hover_height(grid, frm[0], frm[1]) - HOVER_HEIGHT)
        if lift > CU:
            raise Refusal(
                self.rule("hover"),
                f"the ground at {show(to)} is {fmt(lift)} m higher than at {show(frm)}: a hover keeps 1 m "
                "above the ground and rises with it at most 1 m a step",
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
        x, y, _ = f.pos
        b.emit(
            ev.Placed(
                fighter=f.id,
                to=(x, y, b.state.grid.top[y][x]),
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
        speed = self.stat(f, "swim") or self.stat(f, "speed")

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
                    terrain_factor=2 if rough else 1,
                )
                rs.no_enemy(state, f, step.to)
                cited = (rs.rule("swim"), rs.rule("rough")) if rough else (rs.rule("swim"),)
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
            return step, ((rs.rule("swim"), rs.rule("rough")) if rough else (rs.rule("swim"),))

        return judge

    @handles(Climb)
    def climb(self, b: Batch, cmd: Climb, dice: Dice) -> None:
        """climb: a roll +Brawn against the surface's difficulty, then up to half Speed (min 1)."""
        f = self.mover(b.state, cmd.fighter, ("walking", "climbing", "swimming"), "climbing")
        rule = self.rule("climb")
        grid = b.state.grid
        budget = self.stat(f, "climb") or max(CU, half_down(self.stat(f, "speed")))
        plan, _ = self.plan(b.state, f, cmd.path, rule, lambda x, y, z: z, budget)
        holds = [grip(grid, p) for p in plan if p[2] > grid.top[p[1]][p[0]]]
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
        rate = self.stat(f, "glide")
        require(rate > 0, rule, f"{f.id} has no Glide speed (stat glide)")
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
        """glide: at turn start, up to the Glide speed across, then sink; landing so does no harm."""
        f = b.state.fighter(fid)
        assert f is not None
        rule = self.rule("glide")
        grid = b.state.grid
        dx, dy = (int(v) for v in f.marks.get("glide", (0, 0)))
        rate = self.stat(f, "glide")
        x, y, z = f.pos
        steps: list[Step] = []
        spent, parity, why = 0, 0, ""
        while (dx, dy) != (0, 0):
            nx, ny = x + dx, y + dy
            if not grid.inside(nx, ny) or grid.blocked(nx, ny) or grid.top[ny][nx] > z:
                why = f"{show((nx, ny))} blocks the glide" if grid.inside(nx, ny) else "the map's edge"
                break
            if self.others_at(b.state, fid, (nx, ny, z)):
                why = f"{show((nx, ny))} is occupied"
                break
            step = step3(b.state, (x, y, z), (nx, ny, z), parity, "glide")
            if spent + step.cost > rate:
                break
            spent, parity, x, y = spent + step.cost, step.parity, nx, ny
            steps.append(step)
        if steps:
            b.emit(
                ev.Moved(
                    fighter=fid, steps=tuple(steps), resource="glide", budget=rate, stopped=why, rules=(rule,)
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
        b.emit(
            ev.Placed(
                fighter=fid,
                to=(x, y, floor),
                how="glide",
                rules=(rule,),
                note=f"reaches the ground from {fmt(z - floor)} m still gliding: no falling damage",
            )
        )
        self.settle_mode(b, fid, rule, "lands from the glide")

    # --- falling ---------------------------------------------------------------------------

    @handles(Fall)
    def fall_command(self, b: Batch, cmd: Fall, dice: Dice) -> None:
        """An effect drops an airborne or climbing fighter (a GM command)."""
        f = self.fighter(b.state, cmd.fighter)
        up = self.above_ground(b.state, f)
        require(
            up > 0,
            self.rule("fall-table"),
            f"{f.id} is not above the ground at {show(f.pos)} ({fmt(max(up, 0))} m): "
            "there is nowhere to fall",
        )
        self.drop(
            b, dice, f.id, rule=self.rule("fall-table"), bumps=cmd.bumps, note=cmd.why or "made to fall"
        )

    def drop(self, b: Batch, dice: Dice, fid: str, *, rule: str, bumps: int = 0, note: str = "") -> None:
        """A fall from where the fighter is: at most 20 m of it this turn, the rest at its next turn.

        fall-speed: the time it takes comes off the turn's actions; fall-table:
        landing from 5 m or more rolls on the falling table.
        """
        f = b.state.fighter(fid)
        assert f is not None
        x, y, z = f.pos
        height = z - landing_height(b, (x, y))
        if height <= 0:
            if self.mode(f) == "falling":
                self.settle_mode(b, fid, rule, "already on the ground")
            return
        self.set_mode(b, fid, "falling", rule, note)
        before = int(f.marks.get("fallen", 0))
        if height > FALL_PER_TURN:
            b.emit(
                ev.Placed(
                    fighter=fid,
                    to=(x, y, z - FALL_PER_TURN),
                    how="fall",
                    rules=(rule, self.rule("fall-speed")),
                    note=f"falls {fmt(FALL_PER_TURN)} m, a whole turn's fall; "
                    f"{fmt(height - FALL_PER_TURN)} m still below",
                )
            )
            b.emit(
                ev.Marked(
                    fighter=fid, key="fallen", value=before + FALL_PER_TURN, rules=(self.rule("fall-speed"),)
                )
            )
            self.fall_time(b, fid, FALL_PER_TURN)
            return
        total = before + height
        tags = b.state.grid.tags[y][x]
        rolls, skipped, why = fall_rolls(total, tags, bumps)
        fall(
            b,
            fid,
            (x, y),
            rules=(rule, self.rule("fall-table")) if rolls else (rule,),
            note=f"falls {fmt(height)} m"
            + (f" ({fmt(total)} m in all)" if before else "")
            + (f"; {why}" if why else ""),
            from_z=z,
        )
        self.settle_mode(b, fid, rule, "lands")
        self.fall_table(b, dice, fid, total, rolls - skipped)
        self.fall_time(b, fid, height)

    def fall_table(self, b: Batch, dice: Dice, fid: str, fallen: int, rolls: int) -> None:
        """fall-table: one d6 per 5 m fallen (after opt-outs), each read off the document's chart."""
        rule = self.rule("fall-table")
        dice_count = fallen // FALL_DAMAGE_EVERY
        for i in range(rolls):
            roll = check(
                b,
                dice,
                fighter=fid,
                name="falling table",
                rule=rule,
                formula="1d6",
                note=f"roll {i + 1} of {rolls} for a {fmt(fallen)} m fall: "
                + ", ".join(f"{k} {v}" for k, v in FALL_TABLE.items()),
            )
            require(1 <= roll.number <= 6, rule, f"a d6 shows 1 to 6, not {roll.number}")
            f = b.state.fighter(fid)
            assert f is not None
            result = FALL_TABLE[roll.number]
            if roll.number == 1:
                b.emit(ev.Marked(fighter=fid, key="dead", value=True, rules=(rule,), note=f"1: {result}"))
                return
            if roll.number in (2, 3):
                key = "permanent_trauma" if roll.number == 2 else "trauma"
                count = int(f.marks.get(key, 0)) + 1
                b.emit(
                    ev.Marked(
                        fighter=fid, key=key, value=count, rules=(rule,), note=f"{roll.number}: {result}"
                    )
                )
            elif roll.number in (4, 5):
                sides = 10 if roll.number == 4 else 6
                parts = [DICE_PER_CHECK] * (dice_count // DICE_PER_CHECK)
                parts += [dice_count % DICE_PER_CHECK] if dice_count % DICE_PER_CHECK else []
                total = 0
                for n, count in enumerate(parts, start=1):
                    hurt = check(
                        b,
                        dice,
                        fighter=fid,
                        name="fall damage",
                        rule=rule,
                        formula=f"{count}d{sides}",
                        note=f"{roll.number}: {dice_count}d{sides}, "
                        f"1d{sides} for each 2 m of the {fmt(fallen)} m"
                        + (f" (part {n} of {len(parts)}: {count}d{sides})" if len(parts) > 1 else ""),
                    )
                    require(
                        count <= hurt.number <= count * sides,
                        rule,
                        f"{count}d{sides} makes {count} to {count * sides}, not {hurt.number}",
                    )
                    total += hurt.number
                b.emit(
                    ev.Damaged(
                        fighter=fid,
                        amount=total,
                        cause="fall",
                        rules=(rule,),
                        note=f"{dice_count}d{sides} = {total} for a {fmt(fallen)} m fall",
                    )
                )

    def fall_time(self, b: Batch, fid: str, fallen: int) -> None:
        """fall-speed: the share of a turn a fall of this length takes."""
        quarters = fall_quarters(fallen, b.state.settings["fall_rounding"])
        if not quarters:
            return
        if b.state.turn.active == fid:
            self.lose_time(b, fid, quarters, f"a {fmt(fallen)} m fall")
        elif b.state.settings["off_turn_fall"] == "next-turn":
            f = b.state.fighter(fid)
            assert f is not None
            already = int(f.marks.get("fall_time", 0))
            b.emit(
                ev.Marked(
                    fighter=fid,
                    key="fall_time",
                    value=max(already, quarters),
                    rules=(self.rule("fall-speed"),),
                    note=f"a {fmt(fallen)} m fall outside its turn takes {quarters}/4 of its next turn",
                )
            )

    def lose_time(self, b: Batch, fid: str, quarters: int, what: str) -> None:
        """fall-speed: leave (4 - quarters)/4 of the turn's actions, rounded down; the board shows it."""
        f = b.state.fighter(fid)
        assert f is not None
        total = self.actions(b.state, f)
        keep = total * (4 - quarters) // 4
        left = total - f.used("actions")
        if left > keep:
            b.emit(
                ev.Spent(
                    fighter=fid,
                    resource="actions",
                    amount=left - keep,
                    rules=(self.rule("fall-speed"),),
                    note=f"{what} takes {quarters}/4 of the turn: {keep} of {total} actions remain",
                )
            )

    # --- forced and random movement ---------------------------------------------------------

    @handles(Force)
    def force(self, b: Batch, cmd: Force, dice: Dice) -> None:
        """forced: an effect pushes, pulls or slides a fighter along a path the GM gives."""
        rule = self.rule("forced")
        f = self.fighter(b.state, cmd.fighter)
        require(
            cmd.kind in ("push", "pull", "slide"),
            rule,
            f"forced movement is push, pull or slide, not {cmd.kind!r}",
        )
        origin: Pos | None = None
        named = ""
        if cmd.source:
            src = self.fighter(b.state, cmd.source)
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
        cells = self.cells(b.state, f, cmd.path)
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
        f = self.fighter(b.state, cmd.fighter)
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
        )

    def carried(self, state: EncounterState, f: Fighter, x: int, y: int, z: int) -> int:
        """The height a forced move carries a fighter to over (x, y), by its mode."""
        grid = state.grid
        mode = self.mode(f)
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
    ) -> list[Pos]:
        """forced: move a fighter by force, checked step by step; returns the positions it passed.

        stop_early: a blocked step ends the movement there (a rolled distance);
        otherwise it refuses the command (a path the GM gave).
        """
        forced = self.rule("forced")
        state = b.state
        grid = state.grid
        f = state.fighter(fid)
        assert f is not None
        held = self.partner(state, fid)
        if held:
            raise Refusal(
                self.rule("grab"), f"{fid} is held in a grab ({held[0]} grabbing {held[1]}): Immobilized"
            )
        mode = self.mode(f)
        grounded = mode in ("walking", "swimming")
        here = f.pos
        start_apart = apart(origin, here) if origin else 0
        last_apart = start_apart
        steps: list[Step] = []
        passed: list[Pos] = []
        parity, why, over_edge, saved = 0, "", False, False

        def flush(stopped: str = "") -> None:
            if steps:
                b.emit(
                    ev.Moved(
                        fighter=fid,
                        steps=tuple(steps),
                        resource="forced",
                        budget=len(cells) * CU,
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
                others = [o.id for o in self.others_at(b.state, fid, (x, y, z))]
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
                    self.change(
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
            self.can_end(b.state, now, f"the {kind}")
        now = b.state.fighter(fid)
        assert now is not None
        torn = (
            mode == "climbing"
            and bool(passed)
            and self.above_ground(b.state, now) > 0
            and grip(grid, now.pos) is None
        )
        if over_edge or torn:
            self.drop(
                b,
                dice,
                fid,
                rule=rule,
                bumps=bumps,
                note="forced over the edge" if over_edge else "torn from its hold",
            )
        elif passed and (grounded or self.above_ground(b.state, now) == 0):
            self.settle_mode(b, fid, rule)  # into or out of deep water, or set down on a surface
        return passed

    # --- grappling --------------------------------------------------------------------------

    def grapple(self, b: Batch, attacker: str, target: str, rule: str, verb: str) -> tuple[Fighter, Fighter]:
        """The checks every grappling action shares: turn, reach, size."""
        a = self.acting(b.state, attacker)
        t = self.fighter(b.state, target)
        require(a.id != t.id, rule, f"{a.id} can't {verb} itself")
        require(not a.marks.get("dead"), self.rule("fall-table"), f"{a.id} died in a fall")
        # size: never against a larger size category.
        if SIZES.index(t.size) > SIZES.index(a.size):
            raise Refusal(
                self.rule("size"),
                f"{a.id} is {a.size} and {t.id} is {t.size}: "
                f"no creature can {verb} one of a larger size category",
            )
        reach = to_cu(b.state.settings["grapple_reach"])
        gap = max(abs(a.pos[0] - t.pos[0]), abs(a.pos[1] - t.pos[1])) * CU
        rise_ = abs(a.pos[2] - t.pos[2])
        require(
            gap <= reach and rise_ <= reach,
            rule,
            f"{t.id} is out of reach: {fmt(gap)} m across and {fmt(rise_)} m up or down, "
            f"reach {fmt(reach)} m",
        )
        return a, t

    def contest(self, b: Batch, dice: Dice, a: Fighter, t: Fighter, name: str, rule: str) -> int:
        """Attacker and defender both roll +Brawn; the attacker's margin (may be 0 or less)."""
        ra = check(
            b,
            dice,
            fighter=a.id,
            name=f"{name} (attacker)",
            rule=rule,
            modifier=self.brawn(a),
            note=f"{a.id} rolls +Brawn",
        )
        rt = check(
            b,
            dice,
            fighter=t.id,
            name=f"{name} (defender)",
            rule=rule,
            modifier=self.brawn(t),
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
        self.use_action(
            b,
            a,
            rule,
            "a shove",
            f"a shove: margin {margin}, so {meters} m (1 m per 2 points)",
            (self.rule("size"),),
        )
        cells = ray(b.state.grid, (t.pos[0], t.pos[1]), (dx, dy), meters)
        if cells:
            self.shift(
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
                bumps=cmd.bumps,
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
        passed = self.shift(
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
            bumps=cmd.bumps,
        )
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
        route = self.follow(b, a.id, back, rule, f"steps back pulling {t.id}")
        if not route:
            return  # no room to step back: the action is spent, nobody moves
        now = b.state.fighter(a.id)
        assert now is not None
        trail = [(p[0], p[1]) for p in [a.pos, *route[:-1]]]
        self.shift(
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
        held = self.partner(state, a.id)
        if held:
            raise Refusal(
                self.rule("grab"), f"{a.id} is in a grab ({held[0]} grabbing {held[1]}): Immobilized"
            )
        require(
            self.mode(a) == "walking",
            rule,
            f"{a.id} is {self.mode(a)}: a push or pull follows on foot, so the mover must be walking",
        )

    def push_pull_meters(self, b: Batch, dice: Dice, a: Fighter, t: Fighter, rule: str, verb: str) -> int:
        margin = self.contest(b, dice, a, t, verb, rule)
        cap = self.brawn(a)
        meters = min(max(margin, 0), cap)
        self.use_action(
            b,
            a,
            rule,
            f"a {verb}",
            f"a {verb}: margin {margin}, so {meters} m (1 m a point, at most Brawn {cap})",
            (self.rule("size"),),
        )
        return meters

    def follow(self, b: Batch, fid: str, cells: list[XY], rule: str, note: str) -> list[Pos]:
        """push-pull: the grappler walks itself along `cells` as far as its feet allow; returns where it went.

        Each step is priced by the walking policy (walls, enemies, 1 m up, no
        drops) and must not end on anyone; the first step it can't take ends it.
        """
        f = b.state.fighter(fid)
        assert f is not None
        feet = _Walking(self, self.stat(f, "speed"), jumps=False)
        here, parity = f.pos, 0
        steps: list[Step] = []
        for cell in cells:
            if not b.state.grid.inside(*cell):
                break
            try:
                step = feet.price(b.state, f, here, cell, parity)
            except Refusal:
                break
            if self.others_at(b.state, fid, step.to):
                break
            steps.append(replace(step, mode="follow"))
            here, parity = step.to, step.parity
        if steps:
            b.emit(
                ev.Moved(
                    fighter=fid,
                    steps=tuple(steps),
                    resource="grapple",
                    budget=len(cells) * CU,
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
        self.use_action(
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
        self.change(b, b.state.fighter(a.id), "grab", "seize", rule)  # type: ignore[arg-type]
        self.change(b, b.state.fighter(t.id), "grab", "be_seized", rule)  # type: ignore[arg-type]
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
        held = self.partner(b.state, fid)
        if not held or held[0] != fid:
            return
        target = b.state.fighter(held[1])
        assert target is not None
        need = self.brawn(target)
        left = self.actions(b.state, f) - f.used("actions")
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

    def release_grab(self, b: Batch, grabber: str, grabbed: str, note: str) -> None:
        rule = self.rule("grab")
        b.emit(ev.Unlinked(kind="grab", a=grabber, b=grabbed, rules=(rule,), note=note))
        for fid in (grabber, grabbed):
            self.change(b, b.state.fighter(fid), "grab", "let_go", rule)  # type: ignore[arg-type]
        b.emit(ev.Unmarked(fighter=grabbed, key="escape", rules=(rule,)))

    @handles(Escape)
    def escape(self, b: Batch, cmd: Escape, dice: Dice) -> None:
        """grab: the grabbed fighter rolls +Brawn against the escape difficulty (an action)."""
        rule = self.rule("grab")
        f = self.acting(b.state, cmd.fighter)
        held = self.partner(b.state, f.id)
        require(held is not None and held[1] == f.id, rule, f"{f.id} is not grabbed")
        assert held is not None
        difficulty = int(f.marks.get("escape", 0))
        self.use_action(b, f, rule, "an escape")
        roll = check(
            b,
            dice,
            fighter=f.id,
            name="escape",
            rule=rule,
            target=difficulty,
            modifier=self.brawn(f),
            note=f"roll +Brawn against the escape Difficulty {difficulty}",
        )
        if roll.passed:
            self.release_grab(b, held[0], f.id, f"{f.id} breaks free")

    @handles(Release)
    def release(self, b: Batch, cmd: Release, dice: Dice) -> None:
        """grab: the grabber lets go (no action)."""
        f = self.fighter(b.state, cmd.fighter)
        held = self.partner(b.state, f.id)
        require(held is not None and held[0] == f.id, self.rule("grab"), f"{f.id} is not grabbing anyone")
        assert held is not None
        self.release_grab(b, f.id, held[1], f"{f.id} lets go of {held[1]}")

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


def fall_rolls(fallen: int, tags: frozenset[str], bumps: int) -> tuple[int, int, str]:
    """fall-table: (rolls owed, rolls opted out of, why) for a fall of `fallen` centi-units."""
    rolls = fallen // FALL_ROLL_EVERY
    if not rolls:
        return 0, 0, ""
    outs = []
    if "soft" in tags:
        outs.append((SOFT_SKIPS, "soft ground"))
    if "liquid" in tags:
        outs.append((LIQUID_SKIPS, "liquid"))
    if bumps // BUMPS_PER_SKIP:
        outs.append((bumps // BUMPS_PER_SKIP, f"a Skill Feat with {bumps} Bumps"))
    skipped = min(rolls, sum(n for n, _ in outs))
    why = f"{rolls} roll(s) on the falling table"
    if skipped:
        why += f", {skipped} opted out of (" + ", ".join(f"{w} {n}" for n, w in outs) + ")"
    return rolls, skipped, why


def fall_quarters(fallen: int, rounding: str) -> int:
    """fall-speed: quarters of a turn a fall takes: 5 m 1/4, 10 m 1/2, 15 m 3/4, 20 m all."""
    mark = FALL_PER_TURN // 4
    if fallen < mark:
        return 0
    quarters = fallen // mark if rounding == "down" else -(-fallen // mark)
    return min(4, quarters)


class _Walking(QuietSteps):
    """How a walking fighter's steps are priced under speed-meters.

    `jumps` (a real Movement): spaces with no footing within 1 m below are
    crossed in the air and counted, with steps up, as maneuver meters. The
    reachable area uses `jumps=False`: it needs prices that depend only on the
    step, so it leaves out jumps across and the 2 m cap (over-approximating
    only where a path would take more than 2 m of jumps).
    """

    def __init__(self, rs: SpeedMeters, speed: int, *, jumps: bool = False) -> None:
        self.rs = rs
        self.speed = speed
        self.unit = rs.unit
        self.jumps = jumps
        self.spent = 0  # this Movement's cost so far
        self.maneuver = 0  # maneuver: meters of jumps so far
        self.across = 0  # jump: spaces crossed in the air in the jump under way
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
            step = flat_step(grid, frm, to, parity, diagonal=state.settings["diagonal"], mode="jump")
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
            if in_air and up > 0:
                raise Refusal(
                    rs.rule("jump"),
                    f"a jump goes 1 m up or 2 m across, not both: "
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
            # rough: 2 m a space, unless the mover's Speed is 1.
            rough = grid.has(*to, "rough") and self.speed != CU
            step = flat_step(
                grid, frm, to, parity, diagonal=state.settings["diagonal"], terrain_factor=2 if rough else 1
            )
            if rough:
                cites.append(rs.rule("rough"))
            self.across = 0
            if up > 0 and not grid.has(*to, "stairs"):
                step = replace(step, mode="jump")  # movement, jump: up only by jumping
                cites.append(rs.rule("jump"))
        rs.no_enemy(state, f, step.to)
        self.spent += step.cost
        if step.mode == "jump" and self.jumps:
            self.maneuver += step.cost
            # maneuver: a Movement over budget is refused for that first (by walk).
            if self.maneuver > MANEUVER_LIMIT and self.spent <= self.speed:
                raise Refusal(
                    rs.rule("maneuver"),
                    f"jumps in this Movement come to {fmt(self.maneuver)} m by {show(to)}; at most "
                    f"{fmt(MANEUVER_LIMIT)} m of a Movement may be jumps, rolls or slides",
                )
            cites.append(rs.rule("maneuver"))
        self._cites = tuple(cites)
        return step

    def cites(self, step: Step) -> tuple[str, ...]:
        return self._cites

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        self.rs.can_end(state, f)


class _Through(QuietSteps):
    """A Movement along 3-D positions planned in advance (swim, climb, fly, hover, special jump).

    `walk` hands the policy one (x, y) cell at a time, in order; the policy
    knows the height planned for each and asks the mode's judge to price it.
    """

    def __init__(self, rs: SpeedMeters, plan: list[Pos], judge: JudgeFn, what: str) -> None:
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
        return step

    def cites(self, step: Step) -> tuple[str, ...]:
        return self._cites

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        self.rs.can_end(state, f, self.what)
