"""Line of sight on the grid.

Sight runs along the straight segment between two eyes: each eye sits at the
centre of its cell, `eye` centi-units above where the fighter stands. A cell
the segment passes through (its open square, so grazing a corner does not
count) blocks the sight when it is a wall or another blocking cell of any
height, or when its top (ground plus obstacle) rises above the segment where
the segment crosses it. The two end cells never block. Walls on cell edges, and doors that are not
open, block every segment that touches them (core/board/walls.py `sight_walls`).

Symmetric by construction: the segment from A to B is the segment from B to A,
and every test below depends only on the set of its points, so A sees B
exactly when B sees A. All arithmetic is exact (fractions of a cell), so the
answer is the same on every machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from tabletrail.core.board.geometry import XY, Grid, Pos
from tabletrail.core.board.units import CU
from tabletrail.core.board.walls import sight_walls

if TYPE_CHECKING:  # `fractions` costs a CLI command ~4 ms to import; only a sight check needs it
    from fractions import Fraction

    Span = tuple[Fraction, Fraction]


def crossing(a: XY, b: XY, cell: XY) -> Span | None:
    """Where (as fractions of the way from a to b) the centre-to-centre segment is inside `cell`.

    None when it never enters the cell's open square.
    """
    from fractions import Fraction

    lo, hi = Fraction(0), Fraction(1)
    for axis in (0, 1):
        d = b[axis] - a[axis]
        offset = cell[axis] - a[axis]
        if d == 0:
            if offset != 0:
                return None
            continue
        t1, t2 = Fraction(2 * offset - 1, 2 * d), Fraction(2 * offset + 1, 2 * d)
        if t1 > t2:
            t1, t2 = t2, t1
        lo, hi = max(lo, t1), min(hi, t2)
    return (lo, hi) if lo < hi else None


def blockers(grid: Grid, a: Pos, b: Pos, eye: int = CU) -> list[XY]:
    """Every cell that blocks the sight line between a and b, nearest to a first."""
    (ax, ay, az), (bx, by, bz) = a, b
    za, zb = az + eye, bz + eye
    found: list[tuple[Fraction, XY]] = []
    for y in range(min(ay, by), max(ay, by) + 1):
        for x in range(min(ax, bx), max(ax, bx) + 1):
            if (x, y) in ((ax, ay), (bx, by)):
                continue
            span = crossing((ax, ay), (bx, by), (x, y))
            if span is None:
                continue
            lo, hi = span
            if grid.blocked(x, y):
                found.append((lo, (x, y)))
                continue
            # The lowest point of the segment over this cell is at one end of the span.
            lowest = min(za + (zb - za) * lo, za + (zb - za) * hi)
            if lowest < grid.top[y][x]:
                found.append((lo, (x, y)))
    return [cell for _, cell in sorted(found)]


def sees(grid: Grid, a: Pos, b: Pos, eye: int = CU, doors: Mapping[str, str] | None = None) -> bool:
    """Does an eye at a see an eye at b? Always equal to sees(grid, b, a, eye, doors).

    `doors`: the doors' states (EncounterState.doors); without it every door is closed.
    """
    return not blockers(grid, a, b, eye) and not sight_walls(grid, doors or {}, a, b)
