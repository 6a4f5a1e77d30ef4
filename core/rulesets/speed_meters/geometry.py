"""speed-meters' 3-D geometry: the board a body moves through, in centi-units.

Pure helpers every family prices or checks its steps with: deep water and its bottom, the height a
hover keeps, the holds a climber finds, straight 3-D lines, a step in three dimensions under the
diagonal rule (movement), distances for teleport and forced movement, and the compass of the 8
directions (random, glide).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tabletrail.ruleset_api import (
    ALTERNATING,
    CU,
    EUCLIDEAN,
    EVERY_1,
    MANHATTAN,
    XY,
    EncounterState,
    Fighter,
    Grid,
    Pos,
    Step,
    fmt,
    hypot_cu,
    rounded,
    step_cost,
    step_length,
    to_cu,
)

HOVER_HEIGHT = CU  # hover: "just 1 meter above the ground"

# random, glide: the 8 directions by their compass names (row 0 is north).
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
