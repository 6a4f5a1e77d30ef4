"""Zero gravity's plain pieces, below every ap-squares part that asks about gravity.

The `gravity` graph (one shared `transitions` Machine registered once at import),
the marks zero gravity leaves, the plain questions (which squares are weightless,
what a square touches, which way a push-off may go, where a drift carries a body)
and what other families ask of it (a body held by gravity again, the Defense a
parry meets). They live here, not in zero_g.py, so walking's steps, invade and
reflexive-leap can use them without importing a part module: the package's
imports run one way (zero_g.py's docstring says what the document leaves open).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from msgspec.structs import replace
from tabletrail.ruleset_api import (
    NEIGHBOURS,
    XY,
    Batch,
    EncounterState,
    Fighter,
    Graph,
    Grid,
    Modifier,
    Ruleset,
    fmt,
    forbidden,
    register,
    show,
    step_blocked,
)
from tabletrail.ruleset_api import events as ev

GROUNDED = "grounded"
DRIFTING = "drifting"
PUSHING_OFF = "pushing_off"
CRAWLING = "crawling"

GRAVITY = register(
    Graph(
        "gravity",
        [GROUNDED, DRIFTING, PUSHING_OFF, CRAWLING],
        [
            # Gravity fails under a body that holds on to nothing.
            {"trigger": "lose_footing", "source": GROUNDED, "dest": DRIFTING},
            # Grab a stable object: at once as gravity fails, or later from a drift.
            {"trigger": "grab", "source": [GROUNDED, DRIFTING], "dest": CRAWLING},
            # Let go of (or glance off) a stable object, drifting the way one chooses.
            {"trigger": "let_go", "source": [CRAWLING, DRIFTING], "dest": DRIFTING},
            # Twist the body to turn a drift (6 AP): still drifting.
            {"trigger": "twist", "source": DRIFTING, "dest": DRIFTING},
            {"trigger": "push_off", "source": [CRAWLING, DRIFTING], "dest": PUSHING_OFF},
            # Braking keeps the push-off until its speed is down to drift speed.
            {"trigger": "brake", "source": PUSHING_OFF, "dest": PUSHING_OFF},
            {"trigger": "slow_to_drift", "source": PUSHING_OFF, "dest": DRIFTING},
            {"trigger": "gravity_returns", "source": [DRIFTING, PUSHING_OFF, CRAWLING], "dest": GROUNDED},
        ],
        GROUNDED,
        {
            "lose_footing": "{f} loses its footing and drifts",
            "grab": "{f} grabs hold and crawls",
            "let_go": "{f} lets go and drifts",
            "twist": "{f} twists to turn its drift",
            "push_off": "{f} pushes off",
            "brake": "{f} brakes",
            "slow_to_drift": "{f} slows to a drift",
            "gravity_returns": "gravity holds {f} again",
        },
    )
)

ZERO_G = "zero-g"  # BoardMarked key: the weightless squares, sorted [[x, y], ...]
TRAJECTORY = "trajectory"  # Marked key on a drifting body: {"dir": "ne", "speed": 1}
OBJECT_TAG = "object"  # a fighter entry with this tag is a loose object, not a character
DRIFT_SPEED = 1  # squares a drift carries a body at the start of each of its turns

# The eight directions of a trajectory, in the order of geometry.NEIGHBOURS (N, then clockwise),
# so a 1d8 roll of k picks the k-th name.
DIRECTIONS: dict[str, XY] = dict(zip(("n", "ne", "e", "se", "s", "sw", "w", "nw"), NEIGHBOURS, strict=True))
ORTHOGONAL = ("n", "e", "s", "w")

# The document's numbers, in whole AP (or as stated).
TURN_DRIFT_AP = 6  # zero-g-drift: twisting to turn a drift
PUSH_OFF_AP = 6  # push-off
PUSH_OFF_SPEED = 3  # push-off: m per cycle before the Strength bonus
BRAKE_AP = 4  # push-off: each meter of speed broken
GRAB_AP = 4  # zero-g-grab
NO_DEXTERITY = "no dexterity"  # a Defense modifier that takes the Dexterity modifier away


def gravity(f: Fighter) -> str:
    """The body's state in the gravity graph."""
    return f.state(GRAVITY.name, GRAVITY.initial)


def is_object(f: Fighter) -> bool:
    return OBJECT_TAG in f.tags


def weightless(state: EncounterState) -> frozenset[XY]:
    """Every square where gravity is off (cells decoded from the log are lists, from a batch tuples)."""
    return frozenset((c[0], c[1]) for c in state.marks.get(ZERO_G, ()))


def rectangle(grid: Grid, a: tuple[int, ...], b: tuple[int, ...]) -> list[XY]:
    """The squares of the rectangle with corners a and b, row by row."""
    (x0, x1), (y0, y1) = sorted((a[0], b[0])), sorted((a[1], b[1]))
    return [(x, y) for y in range(y0, y1 + 1) for x in range(x0, x1 + 1)]


def cell_list(cells: Iterable[XY]) -> list[list[int]]:
    """Squares as the log keeps them: sorted [x, y] pairs."""
    return [[x, y] for x, y in sorted(set(cells))]


def is_stable(grid: Grid, x: int, y: int) -> bool:
    """A stable solid object one can hold, crawl along or push off (walls are stable)."""
    return grid.inside(x, y) and (grid.has(x, y, "stable") or grid.has(x, y, "wall"))


def stable_around(grid: Grid, at: XY) -> list[XY]:
    """The stable squares touching `at`, edge or corner.

    zero-g-drift ("not adjacent to any walls"): a thin wall on one of `at`'s edges (core/board/walls.py)
    is as solid as a wall square on that side, so the square beyond it counts as the surface.
    """
    found = [(at[0] + dx, at[1] + dy) for dx, dy in NEIGHBOURS if is_stable(grid, at[0] + dx, at[1] + dy)]
    edges = grid.edges
    if edges is not None:
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            beyond = (at[0] + dx, at[1] + dy)
            if beyond not in found and grid.inside(*beyond) and edges.walled(edges.number(at, beyond)):
                found.append(beyond)
    return found


def push_off_verdict(grid: Grid, at: XY, direction: str) -> str:
    """ "" when a push-off from `at` may go this way, else why not (with the squares involved).

    The surface pushed against is the side of the stable squares sharing an edge
    with `at`; a lone stable square touching only a corner counts when there is
    no such side. A direction pointing away from a surface is perpendicular or
    diagonal to it (allowed); one that runs along every surface is parallel, and
    one that points into any of them would push into the object (both refused).
    """
    sides = [s for s in stable_around(grid, at) if s[0] == at[0] or s[1] == at[1]]
    surfaces = sides or stable_around(grid, at)
    if not surfaces:
        return f"nothing stable and solid touches {show(at)}: there is nothing to push off"
    dx, dy = DIRECTIONS[direction]
    away = {s: dx * (at[0] - s[0]) + dy * (at[1] - s[1]) for s in surfaces}
    into = [s for s, v in away.items() if v < 0]
    if into:
        return f"{direction} from {show(at)} points into the stable object at {show(into[0])}"
    if all(v == 0 for v in away.values()):
        listed = ", ".join(show(s) for s in surfaces)
        return (
            f"{direction} from {show(at)} runs parallel to the surface of the stable object at {listed}; "
            "a push-off goes perpendicular or diagonal to it"
        )
    return ""


def push_off_directions(grid: Grid, at: XY) -> list[str]:
    """Every direction a push-off from `at` may take (empty when nothing stable touches it)."""
    return [d for d in DIRECTIONS if not push_off_verdict(grid, at, d)]


def drift_cells(state: EncounterState, body: Fighter, direction: str, speed: int) -> tuple[list[XY], str]:
    """The squares a drift or push-off carries `body` through this turn, and what stopped it early.

    A body stops in the last open square before the map's edge, a wall or solid
    object, a square the GM closed, or a square another body fills.
    """
    dx, dy = DIRECTIONS[direction]
    x, y = body.pos[0], body.pos[1]
    grid = state.grid
    cells: list[XY] = []
    for _ in range(speed):
        nx, ny = x + dx, y + dy
        if not grid.inside(nx, ny):
            return cells, f"the map's edge beyond {show((x, y))}"
        if grid.blocked(nx, ny) or grid.has(nx, ny, "solid"):
            return cells, f"the {grid.kind(nx, ny).terrain} at {show((nx, ny))}"
        wall = step_blocked(state, (x, y), (nx, ny))
        if wall:  # tabletrail/walls: a wall on the edge stops the drift before it
            return cells, wall
        if forbidden(state, nx, ny, body):
            return cells, f"{show((nx, ny))}, closed by a GM ruling"
        others = [o.id for o in state.at(nx, ny) if o.id != body.id]
        if others:
            return cells, f"{', '.join(others)} at {show((nx, ny))}"
        cells.append((nx, ny))
        x, y = nx, ny
    return cells, ""


def trajectory(mark: Mapping[str, Any] | None) -> tuple[str, int]:
    """(direction, speed) of a trajectory mark; ("", 0) when there is none."""
    if not mark:
        return "", 0
    return str(mark["dir"]), int(mark["speed"])


def trajectory_mark(
    fighter_id: str, direction: str, speed: int, rules: tuple[str, ...], note: str
) -> ev.Marked:
    """The fact of a body's trajectory: where it is carried and how fast (m per cycle)."""
    return ev.Marked(
        fighter=fighter_id, key=TRAJECTORY, value={"dir": direction, "speed": speed}, rules=rules, note=note
    )


def ap(cu: int) -> str:
    """AP for people: 200 -> '2 AP'."""
    return f"{fmt(cu)} AP"


def annotate(b: Batch, since: int, note: str) -> None:
    """Give the moves recorded since event `since` a note saying why they went that way."""
    if not note:
        return
    for i in range(since, len(b.events)):
        event = b.events[i]
        if isinstance(event, ev.Moved) and not event.note:
            b.events[i] = replace(event, note=note)


def shift(rs: Ruleset, b: Batch, fighter_id: str, trigger: str, rules: tuple[str, ...], note: str) -> str:
    """Move the gravity machine, citing every rule involved."""
    dest = rs.change(b, rs.fighter(b.state, fighter_id), GRAVITY.name, trigger, rules[0], note)
    if len(rules) > 1:
        b.events[-1] = replace(b.events[-1], rules=rules)
    return dest


def regain_gravity(rs: Ruleset, b: Batch, fighter_id: str, rule: str, why: str) -> None:
    """A body reaches a square with gravity (gravity-on, a crawl or a drift into one): held again."""
    body = rs.fighter(b.state, fighter_id)
    rules = (rule,) if is_object(body) else (rule, rs.rule("zero-g-penalties"))
    shift(
        rs,
        b,
        fighter_id,
        "gravity_returns",
        rules,
        f"{why}: {fighter_id} is held by gravity again"
        + ("" if is_object(body) else "; the zero-gravity penalties end"),
    )
    rs.unmark(b, body, TRAJECTORY, rule, "no more drift")


def zero_g_modifiers(rs: Ruleset, state: EncounterState, f: Fighter) -> list[Modifier]:
    """zero-g-penalties: the Defense and attack modifiers weightlessness puts on this character."""
    rule = rs.rule("zero-g-penalties")
    g = gravity(f)
    if g == GROUNDED or is_object(f) or state.settings["zero_g_penalties"] == "off":
        return []
    where = f"in zero gravity at {show(f.pos)}"
    out = [Modifier("defense", -1, rule, f"every character {where}: -1 Defense")]
    if g in (DRIFTING, PUSHING_OFF):
        how = "drifting" if g == DRIFTING else "moving from a push-off"
        dex = int(rs.stat(f, "dexterity"))
        out += [
            Modifier(
                "defense", NO_DEXTERITY, rule, f"{how}: Dexterity modifier {dex:+} not added to Defense"
            ),
            Modifier("ranged attack", -2, rule, f"{how}: -2 to ranged attack rolls"),
            Modifier("melee attack", -3, rule, f"{how}: -3 to melee attack rolls"),
        ]
    else:
        out += [
            Modifier("ranged attack", -1, rule, "crawling along a stable object: -1 to ranged attack rolls"),
            Modifier("melee attack", -2, rule, "crawling along a stable object: -2 to melee attack rolls"),
        ]
    return out


def defense(rs: Ruleset, state: EncounterState, f: Fighter) -> tuple[int, str, bool]:
    """Defense with Dexterity and the modifiers in force: (total, the sum in words, any applied?)."""
    base, dex = int(rs.stat(f, "defense")), int(rs.stat(f, "dexterity"))
    total, words, touched = base + dex, f"{base} + Dexterity {dex}", False
    for m in zero_g_modifiers(rs, state, f):
        if m.applies_to != "defense":
            continue
        touched = True
        if m.value == NO_DEXTERITY:
            total -= dex
            words += f" - Dexterity {dex} (drifting)"
        else:
            total += int(m.value)
            words += f" {int(m.value):+} (zero gravity)"
    return total, f"{words} = {total}", touched
