"""The grid: cells, terrain, heights, paths and distances.

Positions are (x, y, z): x the column, y the row (row 0 is the top line of the
map), z a height in centi-units. Every number is an integer, so a path costs
the same on every machine and an audit can be checked by hand.
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Iterator
from functools import lru_cache
from math import isqrt
from typing import Any

from tabletrail.core.board.corrections import version_key
from tabletrail.core.board.edges import Edges
from tabletrail.core.board.units import CU, root2_cu, to_cu
from tabletrail.events.scenario_spec import CellKind, Scenario
from tabletrail.events.types import Pos as Pos  # one position type, the events' (x, y, z in centi-units)

XY = tuple[int, int]

# Diagonal rules, a setting of every ruleset.
EVERY_1 = "every-1"  # a diagonal step costs 1, like a straight one
ALTERNATING = "alternating"  # diagonals cost 1, 2, 1, 2… within one move
# true length between cell centres: a diagonal is √2, kept exact along a path (a count of √2 parts,
# core/board/units.py) and rounded once, to 0.01, for display: three diagonals 4.24, not 3 x 1.41 = 4.23.
# So since rules 0.3: an encounter begun under an older version keeps each diagonal at 1.41, added,
# for its whole life (step_length reads the version its log began under, EncounterState.rules_version).
EUCLIDEAN = "euclidean"
EXACT_SINCE = "0.3"  # the correction of that name in core/board/corrections.py
MANHATTAN = "manhattan"  # a diagonal step costs 2
DIAGONAL_RULES = (EVERY_1, ALTERNATING, EUCLIDEAN, MANHATTAN)

NEIGHBOURS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))  # N, then clockwise


class Grid:
    """The map of one scenario as compact arrays, decoded once per scenario. Never changes.

    Every cell is stored as the index of its legend entry (`codes`: one byte a cell,
    row-major); what a cell is (kind, tags, heights, blocked) is looked up per legend
    entry. A 1000x1000 map is a megabyte of codes and one row of heights per map row
    (`top[y][x]`, read on every step, pointing at a few shared ints), not millions of
    Python objects. Build it with `Grid.of(scenario)`, which hands back the grid
    already decoded for that scenario (a log's map is decoded once per open).
    """

    __slots__ = ("width", "height", "codes", "entries", "top", "tables", "edges", "_tags", "_blocked")

    def __init__(self, scenario: Scenario) -> None:
        rows = scenario.rows
        self.width = len(rows[0])
        self.height = len(rows)
        chars = list(scenario.legend)
        self.entries: tuple[CellKind, ...] = tuple(scenario.legend[ch] for ch in chars)
        self._tags = tuple(k.all_tags for k in self.entries)
        self._blocked = tuple("wall" in t or ("solid" in t and "obstacle" not in t) for t in self._tags)
        text = "".join(rows)
        if len(chars) <= 256:
            code: dict[str, str | int | None] = {ch: chr(i) for i, ch in enumerate(chars)}
            self.codes: bytes | array[int] = text.translate(str.maketrans(code)).encode("latin-1")
        else:
            index = {ch: i for i, ch in enumerate(chars)}
            self.codes = array("H", map(index.__getitem__, text))
        # Where a fighter stands on the cell: the ground, or the top of an obstacle.
        tops = [to_cu(k.ground) + to_cu(k.height) for k in self.entries]
        w = self.width
        self.top: tuple[tuple[int, ...], ...] = tuple(  # shared ints: a pointer a cell, read fastest
            tuple(map(tops.__getitem__, self.codes[y * w : (y + 1) * w])) for y in range(self.height)
        )
        # step prices kept for the reachable area: core/search/step_table.py's, which alone reads them (a
        # layer above the grid, so they are plain objects here)
        self.tables: dict[Hashable, object] = {}
        # Walls and doors on cell edges (core/board/walls.py), None on a map without them.
        self.edges: Edges | None = Edges.of(scenario, self.width, self.height)

    @classmethod
    def of(cls, scenario: Scenario) -> Grid:
        """The grid of a scenario, decoded once: the same scenario object gets the same grid."""
        kept = _DECODED.get(id(scenario))
        if kept is not None and kept[0] is scenario:
            return kept[1]
        grid = cls(scenario)
        while len(_DECODED) >= _DECODED_KEPT:
            del _DECODED[next(iter(_DECODED))]
        _DECODED[id(scenario)] = (scenario, grid)
        return grid

    @property
    def kinds(self) -> _Rows:
        """kinds[y][x]: the legend entry of each cell, row by row."""
        return _Rows(self, self.entries)

    @property
    def tags(self) -> _Rows:
        """tags[y][x]: every tag of each cell (its terrain's and its own)."""
        return _Rows(self, self._tags)

    @property
    def ground(self) -> _Rows:
        """ground[y][x]: the height of each cell's ground, in centi-units."""
        return _Rows(self, tuple(to_cu(k.ground) for k in self.entries))

    def inside(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def kind(self, x: int, y: int) -> CellKind:
        return self.entries[self.codes[y * self.width + x]]

    def has(self, x: int, y: int, tag: str) -> bool:
        return tag in self._tags[self.codes[y * self.width + x]]

    def blocked(self, x: int, y: int) -> bool:
        """Walls and solid obstacles: nothing walks through them."""
        return self._blocked[self.codes[y * self.width + x]]

    def neighbours(self, x: int, y: int) -> Iterator[XY]:
        for dx, dy in NEIGHBOURS:
            if self.inside(x + dx, y + dy):
                yield x + dx, y + dy


class _Rows:
    """rows[y][x] of a value kept per legend entry, read through the cell codes (a row at a time)."""

    __slots__ = ("grid", "values")

    def __init__(self, grid: Grid, values: tuple[Any, ...]) -> None:
        self.grid = grid
        self.values = values

    def __len__(self) -> int:
        return self.grid.height

    def __getitem__(self, y: int) -> tuple[Any, ...]:
        g = self.grid
        if y < 0:
            y += g.height
        if not 0 <= y < g.height:
            raise IndexError(f"row {y} of a {g.height}-row map")
        return tuple(map(self.values.__getitem__, g.codes[y * g.width : (y + 1) * g.width]))

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return (self[y] for y in range(self.grid.height))


_DECODED: dict[int, tuple[Scenario, Grid]] = {}  # id(scenario) -> (scenario, its grid), newest last
_DECODED_KEPT = 8


def line(a: XY, b: XY) -> list[XY]:
    """Cells from a to b (b included, a excluded), each a king's step from the last."""
    (x0, y0), (x1, y1) = a, b
    dx, dy = abs(x1 - x0), abs(y1 - y0)
    sx, sy = (1 if x1 > x0 else -1), (1 if y1 > y0 else -1)
    cells: list[XY] = []
    n = max(dx, dy)
    for i in range(1, n + 1):
        # Nearest cell to the true line, ties rounded forward.
        x = x0 + sx * ((2 * i * dx + n) // (2 * n))
        y = y0 + sy * ((2 * i * dy + n) // (2 * n))
        cells.append((x, y))
    return cells


def expand(start: XY, waypoints: list[XY]) -> list[XY]:
    """Join waypoints with straight lines; a first waypoint equal to start is skipped."""
    cells: list[XY] = []
    here = start
    for wp in waypoints:
        if wp == here:
            continue
        cells.extend(line(here, wp))
        here = wp
    return cells


def hypot_cu(dx_cu: int, dy_cu: int, dz_cu: int = 0) -> int:
    """Straight-line length of a vector in centi-units, rounded to the nearest 0.01."""
    sq4 = 4 * (dx_cu * dx_cu + dy_cu * dy_cu + dz_cu * dz_cu)
    return (isqrt(sq4) + 1) // 2


def step_cost(rule: str, dx: int, dy: int, parity: int) -> tuple[int, int]:
    """Cost of one horizontal king's step under a diagonal rule (rounded to 0.01), and the new parity.

    parity counts the diagonals taken so far in this move (alternating rule).
    """
    # One step rounded is 1.41 a diagonal under every rules version: today's is as good as any.
    whole, root2, parity = step_length(rule, dx, dy, parity, version=EXACT_SINCE)
    return whole + root2_cu(root2), parity


@lru_cache(maxsize=16)
def exact_diagonals(version: str) -> bool:
    """Are euclidean diagonals kept exact under this rules version (0.3 on), or 1.41 each, added?"""
    return version_key(version) >= version_key(EXACT_SINCE)


def step_length(rule: str, dx: int, dy: int, parity: int, *, version: str) -> tuple[int, int, int]:
    """One horizontal king's step under a diagonal rule, exact: (whole, √2 part, new parity).

    Only a euclidean diagonal has a √2 part (CU·√2); every other step is whole centi-units.
    `version`: the rules version the encounter's log began under (EncounterState.rules_version).
    Before 0.3 a euclidean diagonal was 1.41 whole centi-units, each rounded and then added; a
    fight keeps the arithmetic it began with, so an older log is re-decided (verify, whatif) and
    goes on as it was recorded.
    """
    if dx and dy:
        if rule == EVERY_1:
            return CU, 0, parity + 1
        if rule == ALTERNATING:
            return (2 * CU if parity % 2 else CU), 0, parity + 1
        if rule == EUCLIDEAN:
            if not exact_diagonals(version):
                return hypot_cu(CU, CU), 0, parity + 1
            return 0, CU, parity + 1
        if rule == MANHATTAN:
            return 2 * CU, 0, parity + 1
        raise ValueError(f"unknown diagonal rule {rule!r}")
    return (CU if dx or dy else 0), 0, parity


def distance(rule: str, a: XY | Pos, b: XY | Pos) -> int:
    """Distance between two cells' centres under a diagonal rule, in centi-units."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    lo, hi = min(dx, dy), max(dx, dy)
    if rule == EVERY_1:
        return hi * CU
    if rule == ALTERNATING:
        return (hi + lo // 2) * CU
    if rule == EUCLIDEAN:
        return hypot_cu(dx * CU, dy * CU)
    if rule == MANHATTAN:
        return (dx + dy) * CU
    raise ValueError(f"unknown diagonal rule {rule!r}")


def parse_cell(text: str) -> tuple[int, ...]:
    """'3,4' -> (3, 4); '3,4,2' -> (3, 4, 2). ValueError names the text."""
    parts = text.split(",")
    if len(parts) not in (2, 3):
        raise ValueError(f"{text!r} is not a cell; write x,y such as 3,4")
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(f"{text!r} is not a cell; write whole numbers x,y such as 3,4") from None


def show(pos: tuple[int, ...]) -> str:
    """'3,4': a cell's column and row, whatever else it carries (a height, as a command may name it)."""
    return f"{pos[0]},{pos[1]}"
