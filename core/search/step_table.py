"""Per-cell step prices kept once per map, so the reachable area reads numbers instead of rules.

The reachable area asks a ruleset's step policy for the price of thousands of
king's steps, and the same steps again on every selection and drag. Most of a
price depends only on the map and on facts that rarely change (the diagonal
rule, the mover's Speed or posture, a gravity region): those are the policy's
`table_key(state, f)`. Everything else a price reads is who stands on the
cell stepped into, and that is an overlay: a step into an occupied cell is
always priced live, never kept.

A `StepTable` holds, for one (grid, policy type, key), every step priced so
far (filled lazily as searches reach new cells, so a 1000x1000 map costs only
the cells anyone looked at) and every end-of-move verdict on an empty cell.
Tables live on the grid they describe; a change to anything in a key makes a
new key, and the oldest tables are dropped. Walls on cell edges are part of the
grid the tables live on; the doors' states change during an encounter, so every
key carries them (`table_for` adds them: a door opening makes a new key).

A policy opts in by defining `table_key`; returning None (its prices read
more than the map and the target cell's occupants, e.g. a tether to an
enemy's Reach) keeps the search on the policy for every step.

A policy may also declare `prices_read_two_cells = True`: besides its table key
and the target cell's occupants, a step's price and facts (all but where it
lands) read of the map only the legend entries of the step's two cells. One
price then stands for every step between cells of the same two entries in the
same direction and parity class, and the compiled search prices a window's
steps in bulk, one policy call per such signature (`two_cells`). Likewise
`ends_read_one_cell = True`: whether a move may end on an empty cell (`can_end`)
reads of the map only that cell's legend entry, so one verdict stands for every
empty cell of the entry (`one_cell`).

A table can also hold its prices as numpy arrays, tile by tile where searches
looked (`StepArrays`, made by core/search/reach_arrays.py the first time its compiled
search runs, on a map of any size): `keep`, `refuse` and `judge` write both
forms, so neither goes stale.
"""

from __future__ import annotations

from collections.abc import Hashable
from math import isqrt
from typing import Any, NamedTuple, Protocol

from tabletrail.core.board.geometry import EUCLIDEAN, Grid
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.board.units import root2_cu
from tabletrail.core.engine.movement import QuietSteps
from tabletrail.events.types import Step


class PriceCopy(Protocol):
    """A copy of a table's kept prices told of each new one: core/search/reach_arrays.py's `StepArrays`.

    A protocol, so that this module, under the compiled search, never imports it (nor numpy).
    """

    def keep(self, edge: int, cost: int) -> None: ...
    def refuse(self, edge: int) -> None: ...
    def judge(self, cell: int, ok: bool) -> None: ...


# Exact lengths in a search (diagonal=euclidean: whole + √2 parts, core/board/units.py) are counted as one
# integer key, whole·S + root2·R with R = round(√2·S): keys add exactly, and they order lengths as the
# lengths themselves are ordered (equal keys: equal lengths) while every √2 part compared stays
# below safe(S) (|whole + root2·√2| >= 1 / (|whole| + |root2|·√2) when not 0, and R is off by at
# most 1/2). Kept prices use TABLE_SCALE, so the compiled search's float sums stay exact integers.
TABLE_SCALE = 1 << 32


class Scale(NamedTuple):
    """How a search counts exact lengths as integer keys: (1, 0) where no step has a √2 part."""

    whole: int
    root2: int

    @classmethod
    def of(cls, state: EncounterState, whole: int = TABLE_SCALE) -> Scale:
        if state.settings.get("diagonal") != EUCLIDEAN:
            return PLAIN
        return cls(whole, (isqrt(2 * whole * whole * 4) + 1) // 2)

    @classmethod
    def safe_for(cls, state: EncounterState, budget: int, root2: int) -> Scale:
        """A scale exact for a search of this budget (and √2 part already spent)."""
        bound = budget + 2 * abs(root2) + SAFE_MARGIN
        return cls.of(state, 1 << max(32, 2 * bound.bit_length() + 2))

    def safe(self, budget: int, root2: int) -> bool:
        """Are keys at this scale exact for a search within `budget` (√2 part `root2` spent)?"""
        return self is PLAIN or 2 * (budget + 2 * abs(root2) + SAFE_MARGIN) ** 2 < self.whole

    def key(self, step: Step) -> int:
        if not step.root2:
            return step.cost * self.whole
        return (step.cost - root2_cu(step.root2)) * self.whole + step.root2 * self.root2

    def exact(self, whole: int, root2: int) -> int:
        return whole * self.whole + root2 * self.root2

    def cu(self, key: int) -> int:
        """A key back in centi-units, rounded once."""
        return key if self.whole == 1 else (key + self.whole // 2) // self.whole


PLAIN = Scale(1, 0)
# What one step may add to the √2 part of a path the search compares with the budget (a diagonal
# adds 100 walked, 200 crawled or through difficult ground): only √2 parts bound a key's exactness.
SAFE_MARGIN = 10_000
REFUSED = -1  # a step the rules forbid whatever the occupancy
UNKNOWN = -2  # a step not priced yet (or only into an occupied cell)
KEPT = 32  # tables kept per grid (fighters x settings in play); the oldest goes first
MOST_LIVE = 4096  # steps into occupied cells kept per table: past that they are priced afresh
MOST_STEPS = 500_000  # steps one table keeps (a huge budget on a huge map): past that it starts afresh


class StepTable:
    """Known step prices of one policy on one map: `cost[edge]` (REFUSED or a `Scale` key at
    TABLE_SCALE: centi-units where no step has a √2 part), `step[edge]`.

    An edge is `node * 8 + direction` where node = (x * height + y) * 2 + parity class
    and direction indexes `geometry.NEIGHBOURS`. `ends[x * height + y]` is whether a move
    may end on that empty cell; `out[node]` lists the node's steps out with their kept
    prices, rebuilt when a price is learnt. `usable` turns False for good once a priced step leaves
    the surface or counts diagonals its own way: such a policy is searched step by step.
    """

    __slots__ = ("cost", "step", "out", "ends", "usable", "arrays", "filled", "live")

    def __init__(self) -> None:
        self.cost: dict[int, int] = {}
        self.step: dict[int, Step] = {}
        self.out: dict[int, list[tuple[int, int, int]]] = {}  # node -> its steps out, for the search
        self.ends: dict[int, bool] = {}
        self.usable = True
        self.arrays: PriceCopy | None = None  # made once the compiled search has run on it
        self.filled: set[int] = set()  # start nodes the step-by-step search has priced the area of
        # Steps into occupied cells, by edge: (the mover and the cell's occupants it was priced for, the
        # step, or None when refused). Only read back for equal fighters: occupancy stays an overlay.
        self.live: dict[int, tuple[tuple[Fighter, ...], Step | None]] = {}

    def keep(self, edge: int, cost: int, step: Step) -> None:
        """A step priced on an empty cell: kept in every form, and its node's list of steps rebuilt."""
        self.cost[edge], self.step[edge] = cost, step
        self.out.pop(edge >> 3, None)
        if self.arrays is not None:
            self.arrays.keep(edge, cost)

    def refuse(self, edge: int) -> None:
        """A step the rules forbid whatever the occupancy."""
        self.cost[edge] = REFUSED
        self.out.pop(edge >> 3, None)
        if self.arrays is not None:
            self.arrays.refuse(edge)

    def judge(self, cell: int, ok: bool) -> bool:
        """Keep whether a move may end on this empty cell; returns the verdict."""
        self.ends[cell] = ok
        if self.arrays is not None:
            self.arrays.judge(cell, ok)
        return ok


def table_for(state: EncounterState, f: Fighter, policy: Any) -> StepTable | None:
    """The kept table for this policy and fighter on this map, or None if the policy has no key."""
    key_of = getattr(policy, "table_key", None)
    if key_of is None:
        return None
    key: Hashable | None = key_of(state, f)
    if key is None:
        return None
    grid: Grid = state.grid
    tables = grid.tables
    doors = tuple(sorted(state.doors.items())) if grid.edges is not None else ()
    full = (type(policy), key, doors, state.rules_version)  # the version prices a euclidean diagonal
    kept = tables.pop(full, None)  # re-inserted last: the most recently used
    table = kept if isinstance(kept, StepTable) else None
    if table is None:
        table = StepTable()
        while len(tables) >= KEPT:
            del tables[next(iter(tables))]
    elif len(table.cost) > MOST_STEPS:  # memory stays bounded; the next searches price again
        table = StepTable()
    tables[full] = table
    return table


def quiet(policy: Any) -> bool:
    """True when nothing ever happens on a step (the policy keeps QuietSteps' `eventful`)."""
    return getattr(type(policy), "eventful", None) is QuietSteps.eventful


def two_cells(policy: Any) -> bool:
    """Does the policy declare that a price reads of the map only the step's two cells (see above)?"""
    return getattr(policy, "prices_read_two_cells", False) is True


def one_cell(policy: Any) -> bool:
    """Does the policy declare that `can_end` on an empty cell reads of the map only that cell (see above)?"""
    return getattr(policy, "ends_read_one_cell", False) is True
