"""speed-meters, what every rule of the chapter shares.

The document's own numbers, the `mode` and `grab` graphs, the 3-D geometry
the rules price steps with, and `Shared`: the small questions about the board
(occupancy: who stands where, how high a body reaches) and the start of a
Movement (stop: an action, fresh Speed) that walking, the modes, falls and
forced movement all ask. The rules themselves live in the sibling modules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from tabletrail.ruleset_api import (
    ALTERNATING,
    CU,
    DOORS,
    EUCLIDEAN,
    EVERY_1,
    GM_RULING,
    MANHATTAN,
    NEIGHBOURS,
    XY,
    Batch,
    EncounterState,
    Fighter,
    Graph,
    Grid,
    Pos,
    Refusal,
    Ruleset,
    Step,
    crawl_factor,
    doors_beside,
    fmt,
    hypot_cu,
    is_prone,
    part_of_move,
    path_cells,
    plural,
    register,
    require,
    rounded,
    show,
    step_blocked,
    step_cost,
    step_length,
    to_cu,
)
from tabletrail.ruleset_api import events as ev

# --- the document's own numbers ---------------------------------------------------

GIVEN = "given"  # adjust: meters the GM gave (negative: took) for the next Movement, by resource
# stop: a walking Movement that ended beside a door with meters left, which a door used on the way
# keeps going: {"at", "turn", "actions", "movement", "maneuver" (the fighter as it ended), "speed",
# "left", "maneuvers" (what is left of the 2 m), "risen", "parity", "door" (one was used since)}
ON_THE_WAY = "on-the-way"
MANEUVER_LIMIT = 2 * CU  # maneuver: "for no more than 2 meters of the movement"
JUMP_UP = CU  # jump: "1 meter vertically"
JUMP_ACROSS = 2  # jump: "or 2 meters horizontally" (spaces of air)
HOVER_HEIGHT = CU  # hover: "just 1 meter above the ground"
GLIDE_RATE = 5 * CU  # glide: "at a rate of 5 meters when your turn starts"
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
        {
            "land": "{f} is on its feet again",
            "climb": "{f} starts climbing",
            "swim": "{f} swims",
            "fly": "{f} takes to the air",
            "hover": "{f} hovers",
            "glide": "{f} glides",
            "fall": "{f} falls",
        },
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
        {"seize": "{f} grabs hold", "be_seized": "{f} is grabbed", "let_go": "{f} is free of the grab"},
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
    root2 = 0
    if to[2] == frm[2]:  # level: the flat step, exact (a euclidean diagonal keeps its √2 part)
        whole, root2, parity = step_length(
            state.settings["diagonal"], dx, dy, parity, version=state.rules_version
        )
        cost = whole * factor
    else:
        cost, parity = cost3(state.settings["diagonal"], dx, dy, to[2] - frm[2], parity)
        cost *= factor
    return Step(
        to=to,
        cost=rounded(cost, root2 * factor),
        terrain=state.grid.kind(to[0], to[1]).terrain,
        diagonal=bool(dx and dy),
        parity=parity,
        mode=mode,
        root2=root2 * factor,
    )


def level(frm: Pos, to: Pos) -> Pos:
    """`frm` lifted or lowered to `to`'s height: pricing from it counts only the ground covered."""
    return (frm[0], frm[1], to[2])


JudgeFn = Callable[[EncounterState, Fighter, Pos, Pos, int, bool], tuple[Step, tuple[str, ...]]]


class Shared(Ruleset):
    """The questions and bookkeeping every speed-meters rule asks of the board; `SpeedMeters` inherits it."""

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

    def no_enemy(self, state: EncounterState, f: Fighter, pos: Pos) -> tuple[str, ...]:
        """occupancy: enemies block the way, allies may be passed through.

        Returns the rule to cite for the step: occupancy when it passes through an ally's space
        ("Can move through spaces occupied by allies" decided that the step is allowed).
        """
        others = self.others_at(state, f.id, pos)
        for other in others:
            if other.side != f.side:
                raise Refusal(
                    self.rule("occupancy"), f"{show(pos)} is held by {other.id}, an enemy of {f.id}"
                )
        return (self.rule("occupancy"),) if others else ()

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

    def can_end(self, state: EncounterState, f: Fighter, what: str = "the Movement") -> None:
        """occupancy: never end in an occupied space."""
        others = [o.id for o in self.others_at(state, f.id, f.pos)]
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
            return [o.id for o in self.others_at(state, fid, (c[0], c[1], grid.top[c[1]][c[0]]))]

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
        # The facts a mode keeps go with it: a glide's heading, how far a fall has come and the
        # Bumps of the Skill Feat waiting for its landing.
        for key in {"gliding": ("glide",), "falling": ("fallen", "skill_feat")}.get(self.mode(f), ()):
            if key in f.marks:
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
                note=note or f"{what} action ({plural(left - 1, 'action')} left after it)",
            )
        )

    def given(self, f: Fighter, resource: str = "movement") -> int:
        """adjust: meters the GM gave (negative: took) for the fighter's next Movement (mark GIVEN)."""
        return int(f.marks.get(GIVEN, {}).get(resource, 0))

    def with_given(self, f: Fighter, base: int, resource: str = "movement") -> int:
        """A Movement's budget: its base (Speed, a mode's speed, 2 m of maneuvers) and the GM's meters."""
        return max(0, base + self.given(f, resource))

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

    # --- stop: a door on the way is not stopping ----------------------------------------------

    def pause_beside_door(
        self, b: Batch, fid: str, *, speed: int, left: int, maneuvers: int, risen: int, parity: int
    ) -> None:
        """stop: a walking Movement ending beside a door, with meters left, may be going on.

        "May stop moving at any point … Once you stop moving, however, you can't start moving again
        as part of the same Action": opening a door priced as part of a move (core/doors.py,
        `part_of_move`) is not stopping, so if the fighter's next act is that door, its next walk
        is this Movement going on with what is left (`movement_going_on`).
        """
        f = self.fighter(b.state, fid)
        if left <= 0 or not part_of_move(self, b.state) or not doors_beside(b.state, fid):
            return
        if self.mode(f) != "walking" or self.above_ground(b.state, f) != 0:
            return
        b.emit(
            ev.Marked(
                fighter=fid,
                key=ON_THE_WAY,
                value={
                    **self._as_it_stands(b.state, f),
                    "speed": speed,
                    "left": left,
                    "maneuvers": max(0, maneuvers),
                    "risen": risen,
                    "parity": parity,
                    "door": False,
                },
                rules=(self.rule("stop"),),
                note=f"{fid} is beside a door with {fmt(left)} m of this Movement left: using the door "
                "on the way does not stop the Movement",
            )
        )

    def _as_it_stands(self, state: EncounterState, f: Fighter) -> dict[str, Any]:
        """What must not change for a Movement to be going on: where the fighter is, its turn, what
        it has spent."""
        return {
            "at": list(f.pos),
            "turn": [state.turn.round, state.turn.index],
            "actions": f.used("actions"),
            "movement": f.used("movement"),
            "maneuver": f.used("maneuver"),
        }

    def paused(self, state: EncounterState, f: Fighter) -> dict[str, Any] | None:
        """stop: the fighter's Movement that ended beside a door, if it has done nothing since
        (a door used on the way aside)."""
        mark = f.marks.get(ON_THE_WAY)
        if not mark or self.mode(f) != "walking":
            return None
        now = self._as_it_stands(state, f)
        return mark if all(mark[k] == v for k, v in now.items()) else None

    def movement_going_on(self, state: EncounterState, f: Fighter) -> dict[str, Any] | None:
        """stop: the Movement a walk goes on with: it ended beside a door, and the fighter's acts since
        are only doors used on the way."""
        mark = self.paused(state, f)
        return mark if mark and mark["door"] else None

    def door_on_the_way(self, b: Batch, fid: str, what: str) -> None:
        """stop: a door used on the way keeps the fighter's Movement going (it is not stopping)."""
        f = self.fighter(b.state, fid)
        mark = self.paused(b.state, f)
        if mark is None or not part_of_move(self, b.state):
            return
        b.emit(
            ev.Marked(
                fighter=fid,
                key=ON_THE_WAY,
                value={**mark, **self._as_it_stands(b.state, f), "door": True},
                rules=(self.rule("stop"), DOORS),
                note=f"{what} on the way is not stopping: {fid}'s next walk goes on with the "
                f"{fmt(int(mark['left']))} m left of this Movement",
            )
        )

    def forget_pauses(self, b: Batch) -> None:
        """stop: a Movement is going on only until the fighter does something else than use a door."""
        self.forget_marks(
            b,
            ON_THE_WAY,
            self.paused,
            self.rule("stop"),
            "{fighter} has done something else: its Movement has stopped",
        )

    def keep_given(self, b: Batch) -> None:
        """adjust: meters the GM gives (or takes) between two Movements, when none is in progress,
        are kept for the next Movement, which starts with a fresh Speed (stop) and would wipe them."""
        for event in list(b.events):
            if not isinstance(event, ev.RulingMade) or event.kind not in (
                "adjust-movement",
                "adjust-maneuver",
            ):
                continue
            f = b.state.fighter(event.detail["fighter"])
            assert f is not None
            resource, amount = event.detail["resource"], int(event.detail["amount"])
            given = {**f.marks.get(GIVEN, {})}
            given[resource] = given.get(resource, 0) + amount
            given = {k: v for k, v in given.items() if v}
            if given:
                b.emit(
                    ev.Marked(
                        fighter=f.id,
                        key=GIVEN,
                        value=given,
                        rules=(GM_RULING,),
                        note=f"{f.id}'s next Movement has them: each Movement starts with a fresh Speed",
                    )
                )
            else:
                b.emit(ev.Unmarked(fighter=f.id, key=GIVEN, rules=(GM_RULING,), note="nothing given is left"))

    def mover(self, state: EncounterState, fid: str, modes: tuple[str, ...], what: str) -> Fighter:
        """The acting fighter, alive, not held, in a mode this kind of movement can start from."""
        f = self.acting(state, fid)
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

    def cells(self, state: EncounterState, f: Fighter, path: tuple[tuple[int, ...], ...]) -> list[XY]:
        return path_cells(state, f, path, self.rule("movement"))
