"""The reachable area searched by compiled code over a table's kept prices held as flat arrays.

The table search in core/search/reach.py runs Dijkstra in Python, a heap push per
step; the table view asks for the same area on every selection and drag. Here
the kept prices of one `StepTable` are also held as numpy arrays, tile by tile
(TILE x TILE cells, made where a search looks, so a 4,000 x 4,000 map holds only
the tiles anyone searched), and each search runs scipy's compiled Dijkstra
(`limit=` the budget) over a window of tiles around the fighter laid out as a
CSR graph (a node's eight steps are its entries 8n..8n+7). The window starts at
the budget's reach (a step of one unit a cell) and doubles while a node the
search may leave has a step out of it that is not known to be refused (a
cheaper step, a push, a fall: whatever the rules price), so the work is bounded
by what the budget reaches, never by the map.
Chosen by measurement (bench_reach.py, issue 16, a loaded 2-core machine): on
its 100x100 map the Python heap search over the same kept prices took ~33 ms,
this one 3-5 ms, networkx's Dijkstra alone on a prebuilt graph 25-55 ms.

The answer is the table search's, node for node, which is the policy search's:

- occupancy is an overlay: a step into an occupied cell is never kept in the
  table's prices; it is priced for the mover and the fighters standing there
  and remembered beside them (`StepTable.live`), read back only while those
  fighters are equal (a price reads the map, the table key and the target cell's
  occupants: core/search/step_table.py); forbidden cells are never entered, and a cell
  where the GM asks for a test is a stop (its steps out are cut);
- a step not priced yet is priced through the policy after a search that needs
  it, and the search runs again, until every step out of every node it may leave
  is known (the first call at a new place lets core/search/reach.py's step-by-step
  search price the area: it meets far fewer steps);
- a window is exact once no node the search may leave has a step out of it: a
  cheaper way that left the window would have to leave from such a node;
- where `_search` keeps the first of equally cheap ways (its heap breaks ties by
  node), the way back from a node is the equally cheap step from the node its
  heap pops first: found for every node at once when a path is first asked for
  (`_Trail`).

Only policies where nothing happens on a step (`step_table.quiet`) come here:
`eventful` asks about the step a node was reached by, one Python call per
node, which would cost what the compiled search saves.

What a warm search pays beyond scipy's Dijkstra is kept small (issue 40): a window
keeps the board last laid over its prices (`_Overlay`: the CSR graph, stops, the
steps into occupied cells) while its prices and that board stand, so the same board
searched again lays nothing; a search that learns prices writes them into a copy
of its own. The answer's costs are held as arrays and named into a dict only when
read (`_Costs`: hashing ~3,000 (x, y) tuples cost about what the Dijkstra does at
50 x 50), sorted and named in bulk (`_cheapest_first`, `Window.names`); a window
hands the same cells at the same costs a copy of the dict it named last
(`Window.answered`: a copy re-hashes nothing), so the same board asked again
names nothing.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, ValuesView
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from msgspec.structs import replace
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra
from tabletrail.core.board.geometry import ALTERNATING, NEIGHBOURS, XY, Grid
from tabletrail.core.board.refusal import Refusal
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.board.units import CU
from tabletrail.core.engine.cell_rulings import TEST, forbidden_cells
from tabletrail.core.engine.movement import StepPolicy
from tabletrail.core.search.area import Node as _Node
from tabletrail.core.search.area import Nodes as _Nodes
from tabletrail.core.search.area import Reach
from tabletrail.core.search.area import as_counted as _as_counted
from tabletrail.core.search.area import may_end as _may_end
from tabletrail.core.search.step_table import MOST_LIVE, Scale, StepTable, one_cell, two_cells
from tabletrail.events.types import Step

FILL = 256  # more unknown steps than this at a start the step-by-step search never priced: it prices them
FILL_ROUNDS = 3  # ... and so it does when pricing the unknown steps needs more searches than this
MOST_ROUNDS = 32  # searches one call may run before it leaves the answer to the step-by-step search
TILE = 16  # cells a side of one tile of kept prices (16 x 16 cells x 16 steps: 32 KB of prices)
WINDOWS = 8  # windows kept per table, the most recently used (fighters sharing the table each ask for one)
MOST_WINDOW_NODES = (
    1 << 20
)  # ... and the nodes they hold together (a node's 8 steps: ~80 bytes), past the newest
CELL_GUESS = CU  # what a step is guessed to cost at least: the first window reaches budget / CELL_GUESS cells
_EIGHT = np.arange(8)
_pair = np.frompyfunc(lambda x, y: (x, y), 2, 1)  # two arrays of ints -> an array of (x, y) tuples


class _Tile:
    """The kept prices of TILE x TILE cells: weight[x, y, parity class, direction] (inf: refused or
    not priced; one parity class unless the alternating rule keeps two), known[...] (a step off the
    map counts as refused), verdict[x, y] (1 or 0: whether a move may end there; -1: not asked)."""

    __slots__ = ("weight", "known", "verdict")

    def __init__(self, i: int, j: int, width: int, height: int, keep_parity: bool) -> None:
        x = i * TILE + np.arange(TILE)[:, None]
        y = j * TILE + np.arange(TILE)[None, :]
        k = 2 if keep_parity else 1
        self.weight = np.full((TILE, TILE, k, 8), np.inf)
        self.known = np.zeros((TILE, TILE, k, 8), dtype=bool)
        inner = i > 0 and j > 0 and (i + 1) * TILE < width and (j + 1) * TILE < height
        for d, (dx, dy) in () if inner else enumerate(NEIGHBOURS):  # no step off the map from inside
            tx, ty = x + dx, y + dy
            off = (tx < 0) | (tx >= width) | (ty < 0) | (ty >= height)
            self.known[:, :, :, d] = off[:, :, None]
        self.verdict = np.full((TILE, TILE), -1, dtype=np.int8)


class Window:
    """Tiles i0..i0+ni-1 by j0..j0+nj-1 laid out as one CSR graph over local nodes, the parts of
    tiles past the map's edge left out (a small map's window is the map, not whole tiles).

    A cell (x, y) of the map is local cell (x - x0) * rows + (y - y0); its node is
    cell * k + parity class (k = 2 under the alternating rule, else 1: one node a
    cell); its steps are entries node * 8 + direction. A step
    leaving the window leads back to its own node and weighs inf in a search
    (`leave`): `StepArrays.leaks` says whether one of them matters.
    """

    def __init__(self, arrays: StepArrays, i0: int, j0: int, ni: int, nj: int) -> None:
        self.i0, self.j0, self.ni, self.nj = i0, j0, ni, nj
        self.x0, self.y0 = i0 * TILE, j0 * TILE
        cols, rows = min(ni * TILE, arrays.width - self.x0), min(nj * TILE, arrays.height - self.y0)
        self.cols, self.rows = cols, rows
        k = self.k = 2 if arrays.keep_parity else 1
        self.nodes = cols * rows * k
        weight = np.empty((cols, rows, k, 8))
        known = np.empty((cols, rows, k, 8), dtype=bool)
        verdict = np.empty((cols, rows), dtype=np.int8)
        for a in range(ni):
            for b in range(nj):
                tile = arrays.tile(i0 + a, j0 + b)
                wide, high = min(TILE, cols - a * TILE), min(TILE, rows - b * TILE)  # on the map
                xs, ys = slice(a * TILE, a * TILE + wide), slice(b * TILE, b * TILE + high)
                weight[xs, ys], known[xs, ys] = tile.weight[:wide, :high, :k], tile.known[:wide, :high, :k]
                verdict[xs, ys] = tile.verdict[:wide, :high]
        self.weight, self.known = weight.reshape(-1), known.reshape(-1)
        self.verdict = verdict.reshape(-1)
        node = np.arange(self.nodes)
        cell, parity = node // k, node % k
        lx, ly = cell // rows, cell % rows
        target = np.empty((self.nodes, 8), dtype=np.int32)
        leave = np.zeros((self.nodes, 8), dtype=bool)
        inside_map = np.zeros((self.nodes, 8), dtype=bool)
        for d, (dx, dy) in enumerate(NEIGHBOURS):
            tx, ty = lx + dx, ly + dy
            ok = (tx >= 0) & (tx < cols) & (ty >= 0) & (ty < rows)
            to_parity = (parity + (d & 1)) & 1 if arrays.keep_parity else 0
            target[:, d] = np.where(ok, (tx * rows + ty) * k + to_parity, node)
            leave[:, d] = ~ok
            gx, gy = tx + self.x0, ty + self.y0
            inside_map[:, d] = (gx >= 0) & (gx < arrays.width) & (gy >= 0) & (gy < arrays.height)
        self.target = target.reshape(-1)
        self.indptr = np.arange(0, self.nodes * 8 + 1, 8, dtype=np.int32)
        out = np.flatnonzero(leave.reshape(-1))
        self.leave = out  # steps out of the window: never taken by a search over it
        self.leave_map = out[inside_map.reshape(-1)[out]]  # ... those onto the map: they may matter
        local = np.arange(cols * rows)
        self.xs = local // rows + self.x0  # each local cell's x and y on the map
        self.ys = local % rows + self.y0
        # ... as (x, y) tuples, in an array so that an answer names many cells in one gather
        self.names: npt.NDArray[np.object_] = _pair(self.xs, self.ys)
        self.named: list[XY] = self.names.tolist()  # ... and in a list, to name one cell
        # The last board laid over this window's prices (`_overlay`), kept while the prices and the
        # board it was made for stand: a warm search of the same board starts from it.
        self.overlaid: _Overlay | None = None
        # The last answer named over this window (`_Costs.dict`): the same cells at the same costs
        # are handed a copy of its dict (a copy re-hashes nothing) instead of naming them again.
        self.answered: _Named | None = None

    def held(self) -> int:
        """The nodes this window holds prices for, counting its kept overlay's copy of them."""
        return self.nodes * (1 if self.overlaid is None else 2)

    def holds(self, x: int, y: int) -> bool:
        return 0 <= x - self.x0 < self.cols and 0 <= y - self.y0 < self.rows

    def cell(self, x: int, y: int) -> int:
        return (x - self.x0) * self.rows + (y - self.y0)

    def xy(self, cell: int) -> XY:
        lx, ly = divmod(cell, self.rows)
        return (lx + self.x0, ly + self.y0)


class StepArrays:
    """A table's prices as numpy tiles, and the windows searched over them (the most recent kept).

    `keep`, `refuse` and `judge` write the tile and every kept window holding the cell,
    so neither goes stale. Global edges and cells are the table's own numbers (core/search/step_table.py).
    """

    def __init__(self, table: StepTable, width: int, height: int, keep_parity: bool) -> None:
        self.width, self.height, self.keep_parity = width, height, keep_parity
        self.tiles: dict[tuple[int, int], _Tile] = {}
        self.windows: dict[tuple[int, int, int, int], Window] = {}
        # Prices that read two cells (step_table.two_cells): each signature's step (None: refused), and
        # the tiles whose steps were all priced from them.
        self.bulk: dict[int, Step | None] = {}
        self.bulked: set[tuple[int, int]] = set()
        # each cell's legend entry, codes[x, y], once bulk pricing needs it (`_codes_of`)
        self.codes: npt.NDArray[np.unsignedinteger[Any]] | None = None
        self.entries = 0  # ... and how many entries the legend has
        self.pending: list[tuple[int, float]] = []  # prices kept, not yet written (`flush`)
        self.ends_by_entry: dict[int, bool] = {}  # may a move end on an empty cell of this entry (one_cell)
        for edge, cost in table.cost.items():
            if cost >= 0:
                self.keep(edge, cost)
            else:
                self.refuse(edge)
        for c, ok in table.ends.items():
            self.judge(c, ok)

    def tile(self, i: int, j: int) -> _Tile:
        tile = self.tiles.get((i, j))
        if tile is None:
            tile = self.tiles[(i, j)] = _Tile(i, j, self.width, self.height, self.keep_parity)
        return tile

    def box(self, x: int, y: int, radius: int) -> tuple[int, int, int, int]:
        """The tiles (i0, j0, columns, rows) holding every cell within `radius` of (x, y) on the map."""
        last_i, last_j = (self.width - 1) // TILE, (self.height - 1) // TILE
        i0, j0 = max(0, (x - radius) // TILE), max(0, (y - radius) // TILE)
        i1, j1 = min(last_i, (x + radius) // TILE), min(last_j, (y + radius) // TILE)
        return (i0, j0, i1 - i0 + 1, j1 - j0 + 1)

    def window(self, x: int, y: int, radius: int) -> Window:
        """The window of tiles holding every cell within `radius` of (x, y) on the map."""
        self.flush()
        key = self.box(x, y, radius)
        found = self.windows.pop(key, None)  # re-inserted last: the most recently used
        if found is None:
            found = Window(self, *key)
            held = found.nodes
            for kept in self.windows.values():
                held += kept.held()
            while self.windows and (len(self.windows) >= WINDOWS or held > MOST_WINDOW_NODES):
                held -= self.windows.pop(next(iter(self.windows))).held()
        self.windows[key] = found
        return found

    def keep(self, edge: int, cost: int) -> None:
        self.pending.append((edge, cost))

    def refuse(self, edge: int) -> None:
        self.pending.append((edge, np.inf))

    def flush(self) -> None:
        """Write the prices kept since the last flush into their tiles and the kept windows, at once
        (a search prices thousands of steps one by one: one numpy write each would cost more)."""
        if not self.pending:
            return
        edge, cost = np.array(self.pending, dtype=np.float64).T
        self.pending = []
        edge = edge.astype(np.int64)
        node, d = edge >> 3, edge & 7
        p = node & 1
        if not self.keep_parity:  # odd parity classes exist only under the alternating rule
            node, d, p, cost = node[p == 0], d[p == 0], p[p == 0], cost[p == 0]
        x, y = (node >> 1) // self.height, (node >> 1) % self.height
        tiles = (x // TILE) * (1 << 20) + y // TILE
        for t in np.unique(tiles).tolist():
            at = tiles == t
            tile = self.tile(t >> 20, t & ((1 << 20) - 1))
            tx, ty = x[at] % TILE, y[at] % TILE
            tile.weight[tx, ty, p[at], d[at]] = cost[at]
            tile.known[tx, ty, p[at], d[at]] = True
        for w in self.windows.values():
            lx, ly = x - w.x0, y - w.y0
            at = (lx >= 0) & (lx < w.cols) & (ly >= 0) & (ly < w.rows)
            e = ((lx[at] * w.rows + ly[at]) * w.k + p[at]) * 8 + d[at]
            if e.size:
                w.weight[e], w.known[e] = cost[at], True
                w.overlaid = None  # laid over the prices before these

    def judge(self, cell: int, ok: bool) -> None:
        x, y = divmod(cell, self.height)
        self.tile(x // TILE, y // TILE).verdict[x % TILE, y % TILE] = ok
        for w in self.windows.values():
            if w.holds(x, y):
                w.verdict[w.cell(x, y)] = ok


def _signatures(
    codes: npt.NDArray[np.unsignedinteger[Any]], entries: int, sx: Any, sy: Any, d: int, p: int
) -> Any:
    """The signature of the steps from cells (sx, sy) in direction d at parity class p: what a price
    that reads two cells reads of the map (the legend entries of both cells, `codes` of `entries`),
    and the step's direction and parity class."""
    dx, dy = NEIGHBOURS[d]
    return ((codes[sx, sy].astype(np.int64) * entries + codes[sx + dx, sy + dy]) * 8 + d) * 2 + p


def _price_tiles(
    a: StepArrays,
    box: tuple[int, int, int, int],
    state: EncounterState,
    f: Fighter,
    policy: StepPolicy,
    table: StepTable,
    occupants: Mapping[XY, Any],
    scale: Scale,
) -> bool:
    """Price every step out of the box's tiles in bulk, one policy call per signature never priced
    (`step_table.two_cells`: one price stands for every step of a signature); False if a price made
    the table unusable (the caller prices every step).

    Each signature is priced on a step into an empty cell (occupancy stays an overlay); a signature
    whose every step here goes into an occupied cell is left unknown, priced one step at a time.
    Windows holding a tile priced here are dropped: they are rebuilt from the tiles when asked for.
    """
    grid = state.grid
    top, width, height = grid.top, a.width, a.height
    codes = _codes_of(a, grid)
    k = 2 if a.keep_parity else 1
    i0, j0, ni, nj = box
    fresh = [(i, j) for i in range(i0, i0 + ni) for j in range(j0, j0 + nj) if (i, j) not in a.bulked]
    if not fresh:
        return True
    taken = {c for c in occupants}
    # Every fresh tile at once (a tile by tile loop made thousands of small numpy calls): their cells
    # as xs[t, lx, ly], ys[...], and their prices stacked, written back into the tiles at the end.
    tiles = [a.tile(i, j) for i, j in fresh]
    weight = np.stack([tile.weight for tile in tiles])
    known = np.stack([tile.known for tile in tiles])
    at_i = np.array([i for i, _ in fresh])[:, None, None]
    at_j = np.array([j for _, j in fresh])[:, None, None]
    xs = np.broadcast_to(at_i * TILE + np.arange(TILE)[None, :, None], weight.shape[:3])
    ys = np.broadcast_to(at_j * TILE + np.arange(TILE)[None, None, :], weight.shape[:3])
    for d, (dx, dy) in enumerate(NEIGHBOURS):
        ok = (xs < width) & (ys < height) & (xs + dx >= 0) & (xs + dx < width)
        ok &= (ys + dy >= 0) & (ys + dy < height)
        sx, sy = xs[ok], ys[ok]
        for p in range(k):
            sig = _signatures(codes, a.entries, sx, sy, d, p)
            groups, first, inverse = np.unique(sig, return_index=True, return_inverse=True)
            values = np.full(groups.size, np.inf)
            found = np.ones(groups.size, dtype=bool)
            for g, (s_, at) in enumerate(zip(groups.tolist(), first.tolist(), strict=True)):
                if s_ not in a.bulk:
                    rep = _representative(sig, s_, at, sx, sy, dx, dy, taken)
                    if rep is None:  # every step of it here goes into an occupied cell
                        found[g] = False
                        continue
                    x, y = rep
                    try:
                        step = policy.price(state, f, (x, y, top[y][x]), (x + dx, y + dy), p)
                    except Refusal:
                        a.bulk[s_] = None
                        continue
                    if step.to[2] != top[y + dy][x + dx] or step.parity != p + step.diagonal:
                        table.usable = False
                        return False
                    a.bulk[s_] = step
                priced = a.bulk[s_]
                if priced is not None:
                    values[g] = scale.key(priced)
            weight[:, :, :, p, d][ok] = values[inverse.reshape(-1)]
            known[:, :, :, p, d][ok] = found[inverse.reshape(-1)]
    for n, tile in enumerate(tiles):
        tile.weight[...], tile.known[...] = weight[n], known[n]
    a.bulked.update(fresh)
    for key in [key for key in a.windows if _overlaps(key, fresh)]:
        del a.windows[key]
    return True


def _representative(
    sig: Any, s_: int, at: int, sx: Any, sy: Any, dx: int, dy: int, taken: set[XY]
) -> XY | None:
    """A step of signature s_ into an empty cell: its cell of departure, or None if there is none."""
    x, y = int(sx[at]), int(sy[at])
    if (x + dx, y + dy) not in taken:
        return x, y
    for n in np.flatnonzero(sig == s_).tolist():
        x, y = int(sx[n]), int(sy[n])
        if (x + dx, y + dy) not in taken:
            return x, y
    return None


def _overlaps(key: tuple[int, int, int, int], tiles: list[tuple[int, int]]) -> bool:
    i0, j0, ni, nj = key
    return any(i0 <= i < i0 + ni and j0 <= j < j0 + nj for i, j in tiles)


def arrays_for(table: StepTable, width: int, height: int, keep_parity: bool) -> StepArrays:
    """The table's arrays, made from its kept prices the first time they are asked for."""
    arrays = table.arrays  # a PriceCopy to the table (core/search/step_table.py): ours, when it is there
    if not isinstance(arrays, StepArrays) or arrays.keep_parity != keep_parity or arrays.height != height:
        arrays = StepArrays(table, width, height, keep_parity)
        table.arrays = arrays
    return arrays


def array_reach(
    state: EncounterState,
    f: Fighter,
    policy: StepPolicy,
    budget: int,
    table: StepTable,
    fill: Callable[[], Reach | None],
    limit: int,
    scale: Scale,
) -> Reach | None:
    """The table search's answer from the compiled search; None when the table turns out unusable.

    Prices and `limit` (the budget) are `scale` keys, exact lengths as integers (core/search/step_table.py):
    under diagonal=euclidean too, every sum the compiled search makes is an integer a float holds
    exactly (core/search/reach.py keeps larger budgets off this search), so it orders as `_search` does.

    `fill` is the step-by-step table search. At a start it never ran from, when the kept
    prices lack more than FILL steps (or pricing them takes more than FILL_ROUNDS
    searches), it runs first: it prices the area in one pass, and the steps it skipped
    (into cells already settled) are priced after it, so the next call finds the table
    complete. Its answer is returned if the compiled search still finds steps to price
    after MOST_ROUNDS searches.

    The search runs over a window around the fighter (`StepArrays.window`): at first the
    cells within the budget at one unit a cell, twice as far each time a node it may leave
    has a step out of the window not known to be refused.
    """
    grid = state.grid
    width, height, top = grid.width, grid.height, grid.top
    keep_parity = state.settings.get("diagonal") == ALTERNATING
    a = arrays_for(table, width, height, keep_parity)
    occupants: dict[XY, tuple[Fighter, ...]] = {}  # who a step into each occupied cell is priced for
    for o in state.fighters:
        if o.id != f.id:
            occupants[(o.pos[0], o.pos[1])] = (*occupants.get((o.pos[0], o.pos[1]), (f,)), o)
    if len(table.live) > MOST_LIVE:
        table.live.clear()
    remembered = table.live
    price = policy.price
    filled: Reach | None = None
    rounds = 0
    radius = max(1, budget // CELL_GUESS + 1)
    start_global = (f.pos[0] * height + f.pos[1]) * 2
    bulk = two_cells(policy)
    if bulk and not _price_tiles(
        a, a.box(f.pos[0], f.pos[1], radius), state, f, policy, table, occupants, scale
    ):
        return None
    board = _Board.of(state, f, occupants, scale)
    w = a.window(f.pos[0], f.pos[1], radius)
    start = w.cell(f.pos[0], f.pos[1]) * w.k
    laid = _overlay(state, f, table, a, w, start, board)
    while True:
        dist = dijkstra(laid.graph, directed=True, indices=start, limit=limit, min_only=True)
        if limit <= laid.settled:  # a search as far on these very prices had nothing left to price
            break
        # The steps not priced yet out of the nodes the search leaves (reached, not a stop).
        left = np.flatnonzero((dist <= limit) & laid.open)
        if left.size:
            edges = (left[:, None] * 8 + _EIGHT).ravel()
            missing = edges[~laid.known[edges]]
        else:
            missing = left
        if not missing.size:
            if _leaks(a, w, laid, dist, limit):  # a way may leave the window: search a wider one
                radius *= 2
                box = a.box(f.pos[0], f.pos[1], radius)
                if bulk and not _price_tiles(a, box, state, f, policy, table, occupants, scale):
                    return None
                w = a.window(f.pos[0], f.pos[1], radius)
                start = w.cell(f.pos[0], f.pos[1]) * w.k
                laid = _overlay(state, f, table, a, w, start, board)
                continue
            laid.settled = max(laid.settled, limit)
            break
        rounds += 1
        if start_global not in table.filled and (missing.size > FILL or rounds > FILL_ROUNDS):
            table.filled.add(start_global)  # a new place: the step-by-step search prices its area in one pass
            filled = fill()
            if filled is None:
                return None
            laid = _overlay(state, f, table, a, w, start, board)
            continue
        if rounds > MOST_ROUNDS:  # a winding map keeps finding steps: the exact search, step by step
            return filled if filled is not None else fill()
        laid = laid.own(w)  # this search writes the prices it learns into its overlay
        weight, known, live = laid.weight, laid.known, laid.live
        shorter = False  # does a step priced now lead anywhere cheaper? If not, the costs stand
        rows = w.rows
        for edge in missing.tolist():
            u, d = edge >> 3, edge & 7
            lx, ly = divmod(u // w.k, rows)
            x, y = lx + w.x0, ly + w.y0
            dx, dy = NEIGHBOURS[d]
            tx, ty = x + dx, y + dy
            p = u % w.k
            known[edge] = True
            who = occupants.get((tx, ty))
            kept_edge = ((x * height + y) * 2 + p) * 8 + d  # the table's number for this step
            try:
                step = price(state, f, (x, y, top[y][x]), (tx, ty), p)
            except Refusal:
                if who is None:
                    table.refuse(kept_edge)
                else:
                    remembered[kept_edge] = (who, None)
                continue
            if step.to[2] != top[ty][tx] or step.parity != p + step.diagonal:
                table.usable = False  # as the table search gives up: the caller prices every step
                return None
            price_key = scale.key(step)
            weight[edge] = price_key
            if who is not None:
                live[kept_edge] = step
                remembered[kept_edge] = (who, step)
            else:
                table.keep(kept_edge, price_key, step)
            total = dist[u] + price_key
            shorter = shorter or (total <= limit and total < dist[w.target[edge]])
        laid.learnt(w)
        if not shorter and not _leaks(a, w, laid, dist, limit):
            break
    return _answer(state, f, policy, (budget, limit, scale), table, a, w, dist, laid, start, occupants)


def _leaks(arrays: StepArrays, w: Window, laid: _Overlay, dist: npt.NDArray[np.float64], limit: int) -> bool:
    """Might a way within the budget leave the window? A node the search leaves has a step out of
    it onto the map that is not known to be refused (priced, or not yet)."""
    out = w.leave_map
    if not out.size:
        return False
    arrays.flush()
    if laid.leak_from is None:  # the nodes such a step leaves from, found once for the prices laid over
        src = out >> 3
        may = (~laid.stop[src] | (src == laid.start)) & (~w.known[out] | np.isfinite(w.weight[out]))
        laid.leak_from = src[may]
    return bool((dist[laid.leak_from] <= limit).any())


class _Board(NamedTuple):
    """What of the board an overlay reads besides the window's prices: equal boards, equal overlays."""

    scale: Scale
    occupants: dict[XY, tuple[Fighter, ...]]  # who a step into each occupied cell is priced for
    forbidden: set[XY]  # cells the mover never enters
    tests: tuple[XY, ...]  # cells where the GM asks for a test: stops

    @classmethod
    def of(
        cls, state: EncounterState, f: Fighter, occupants: dict[XY, tuple[Fighter, ...]], scale: Scale
    ) -> _Board:
        tests = tuple((int(c[0]), int(c[1])) for c in state.marks.get(TEST, ()))
        return cls(scale, occupants, forbidden_cells(state, f), tests)


class _Overlay:
    """One board laid over a window's prices: the graph a search runs on, and what it reads beside.

    weight and known are the window's with the board over them (`_overlay`); stop marks the
    nodes the search may not leave; live holds the steps into occupied cells priced for who
    stands there (by the table's edge). An overlay a window keeps (`shared`) is read by the
    answers made from it, so it is never written: a search that learns prices writes them
    into a copy of its own (`own`).
    """

    __slots__ = (
        *("board", "start", "weight", "known", "stop", "live"),
        *("graph", "open", "busy", "leak_from", "shared", "settled"),
    )

    def __init__(
        self,
        w: Window,
        board: _Board,
        start: int,
        weight: npt.NDArray[np.float64],
        known: npt.NDArray[np.bool_],
        stop: npt.NDArray[np.bool_],
        live: dict[int, Step],
    ) -> None:
        self.board, self.start = board, start
        self.weight, self.known, self.stop, self.live = weight, known, stop, live
        self.busy = np.zeros(w.cols * w.rows, dtype=bool)  # local cells someone stands on
        for x, y in board.occupants:
            if w.holds(x, y):
                self.busy[w.cell(x, y)] = True
        self.shared = False
        self.learnt(w)

    def learnt(self, w: Window) -> None:
        """Make what is read off weight and known again, after prices were written into them."""
        self.graph = csr_matrix((self.weight, w.target, w.indptr), shape=(w.nodes, w.nodes), copy=False)
        # The nodes a search may leave that have a step not priced yet.
        self.open = ~self.stop & ~self.known.reshape(-1, 8).all(axis=1)
        self.leak_from: npt.NDArray[np.intp] | None = None  # found when first asked (`_leaks`)
        # The largest budget a search over these prices found nothing to price and no way out of the
        # window within: a search within it (whose nodes are some of those) needs neither check.
        self.settled = -1

    def own(self, w: Window) -> _Overlay:
        """This overlay if no one else reads it, else a copy to write into (the window drops it)."""
        if not self.shared:
            return self
        if w.overlaid is self:
            w.overlaid = None
        copy = _Overlay(w, self.board, self.start, self.weight.copy(), self.known.copy(), self.stop, {})
        copy.live.update(self.live)
        return copy


def _overlay(
    state: EncounterState,
    f: Fighter,
    table: StepTable,
    a: StepArrays,
    w: Window,
    start: int,
    board: _Board,
) -> _Overlay:
    """The window's prices with the board laid over them: the one the window keeps when it was made
    for an equal board and start (and no price was written into the window since), else a new one,
    kept.

    A GM's test makes a stop (its steps out cut); steps into a forbidden cell are never
    taken; steps into an occupied cell are read from `StepTable.live` when priced for
    the same fighters, else left unknown (priced by the search loop). Steps out of the
    window are never taken (`Window.leave`). `live` is keyed by the table's edge numbers.
    """
    a.flush()  # a price written into the window drops its overlay
    kept = w.overlaid
    if kept is not None and kept.start == start and kept.board == board:
        return kept
    height, scale, occupants = state.grid.height, board.scale, board.occupants
    parities = (0, 1) if a.keep_parity else (0,)
    weight, known = w.weight.copy(), w.known.copy()
    weight[w.leave], known[w.leave] = np.inf, True
    remembered = table.live
    live: dict[int, Step] = {}  # steps into occupied cells for this call, by the table's edge
    stop = np.zeros(w.nodes, dtype=bool)
    for cx, cy in board.tests:
        if not w.holds(cx, cy):
            continue
        for p in parities:
            n = w.cell(cx, cy) * w.k + p
            if n != start:  # the start is left, never reached: never a stop
                stop[n] = True
                known[n * 8 : n * 8 + 8] = True
                weight[n * 8 : n * 8 + 8] = np.inf
    for cells, cut in ((occupants.keys(), False), (board.forbidden, True)):
        for cx, cy in cells:  # the steps into the cell: priced for who stands there, or never taken
            if not w.holds(cx, cy):
                continue  # out of the window: never reached by this search
            who = None if cut else occupants[(cx, cy)]
            for d, (dx, dy) in enumerate(NEIGHBOURS):
                sx, sy = cx - dx, cy - dy
                if not w.holds(sx, sy):
                    continue  # a step into the window from outside it: never taken by this search
                if not (0 <= sx < state.grid.width and 0 <= sy < height):
                    continue
                for p in parities:
                    edge = (w.cell(sx, sy) * w.k + p) * 8 + d
                    seen = remembered.get(((sx * height + sy) * 2 + p) * 8 + d)
                    if who is not None and seen is not None and seen[0] == who:
                        known[edge] = True  # priced before for these very fighters
                        if seen[1] is not None:
                            weight[edge] = scale.key(seen[1])
                            live[((sx * height + sy) * 2 + p) * 8 + d] = seen[1]
                        else:
                            weight[edge] = np.inf
                    else:
                        weight[edge] = np.inf
                        known[edge] = cut
    laid = _Overlay(w, board, start, weight, known, stop, live)
    laid.shared = True
    w.overlaid = laid
    return laid


def _answer(
    state: EncounterState,
    f: Fighter,
    policy: StepPolicy,
    budgets: tuple[int, int, Scale],
    table: StepTable,
    a: StepArrays,
    w: Window,
    dist: npt.NDArray[np.float64],
    laid: _Overlay,
    start: int,
    occupants: Mapping[XY, Any],
) -> Reach:
    """The end-of-move filter (kept verdicts for empty cells, live for occupied ones) and the Reach.

    `budgets`: the budget reported, the same as a key, and the scale of the keys."""
    budget, limit, scale = budgets
    height, top = state.grid.height, state.grid.top
    keep_parity = a.keep_parity
    cheapest = dist.reshape(-1, 2).min(axis=1) if keep_parity else dist
    within = cheapest <= limit  # a new array: the start's cell is struck from it, not from dist
    within[start // w.k] = False
    cells = np.flatnonzero(within)
    verdict = w.verdict[cells]
    occupied = laid.busy[cells]
    unknown = verdict < 0
    if one_cell(policy) and (unknown & ~occupied).any():
        verdict = _judge_by_entry(state, f, policy, a, w, cells, verdict, occupied)
        unknown = verdict < 0
    # Asked of the policy: verdicts not known, and every occupied cell's (who stands there may change it).
    ask = np.flatnonzero(unknown | occupied)
    if ask.size:
        verdict = verdict.copy()
        said = _occupied_ends(state, f.id)
        for i in ask.tolist():
            x, y = w.named[int(cells[i])]
            if (x, y) in occupants:
                ok = said.get((x, y))
                if ok is None:
                    ok = said[(x, y)] = _may_end(state, f, policy.can_end, x, y, top[y][x])
                verdict[i] = ok
            else:
                verdict[i] = table.judge(x * height + y, _may_end(state, f, policy.can_end, x, y, top[y][x]))
    cells = cells[verdict > 0]
    costs = _Costs(w, cells, cheapest, limit, scale.whole)
    events: frozenset[XY] = frozenset()
    if laid.board.tests:  # a GM's test cell the move may end on: found without naming the answer's cells
        answered = np.zeros(w.cols * w.rows, dtype=bool)
        answered[cells] = True
        events = frozenset(c for c in laid.board.tests if w.holds(*c) and answered[w.cell(*c)])
    kept = _Kept(table, a, state)
    trail = _Trail(w, keep_parity, top, dist, laid.weight, laid.stop, start, limit, laid.live, kept, height)
    trail.scale = scale
    trail.answer = costs
    return Reach(f.id, f.pos, budget, costs, events, _Ends(costs, trail), trail, policy.unit)


# Whether a move may end on an occupied cell, as the policy said for one state and mover: a state is
# immutable, so the table view asking again about the same board (a selection, a drag, the band one
# more action reaches) is answered here. One state, kept here and not on the grid's tables: a state
# refers to its grid, and is not tracked by the garbage collector (gc=False), so a state kept under
# its own grid would keep both alive for good.
_SAID: list[tuple[EncounterState, str, dict[XY, bool]]] = []


def _occupied_ends(state: EncounterState, fighter: str) -> dict[XY, bool]:
    """The verdicts on occupied cells kept for this very state and mover (a new, empty one else)."""
    kept = _SAID[0] if _SAID else None
    if kept is None or kept[0] is not state or kept[1] != fighter:
        kept = (state, fighter, {})
        _SAID[:] = [kept]
    return kept[2]


def _cheapest_first(keys: npt.NDArray[np.int64], limit: int) -> npt.NDArray[np.intp]:
    """The order of `keys` (none above `limit`) cheapest first, equal keys in their own order (a
    stable sort). Keys that fit 16 bits (centi-units, no √2 part) take numpy's radix sort, stable;
    else a key and its place packed into one int64, when that cannot overflow, sort unstably: both
    several times quicker than numpy's stable sort of int64, the way left for the rest."""
    if limit < 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    if (limit + 1) * max(1, keys.size) < 1 << 62:
        return np.argsort(keys * keys.size + np.arange(keys.size))
    return np.argsort(keys, kind="stable")


def _judge_by_entry(
    state: EncounterState,
    f: Fighter,
    policy: StepPolicy,
    a: StepArrays,
    w: Window,
    cells: Any,
    verdict: Any,
    occupied: Any,
) -> Any:
    """The verdicts not known on empty cells, one `can_end` a legend entry (`step_table.one_cell`):
    written into the window (a window made again asks the entries' kept verdicts again)."""
    grid = state.grid
    codes = _codes_of(a, grid)
    open_ = np.flatnonzero((verdict < 0) & ~occupied)
    if not open_.size:
        return verdict
    local = cells[open_]
    entry = codes[w.xs[local], w.ys[local]].astype(np.int64)
    groups, first = np.unique(entry, return_index=True)
    for code, at in zip(groups.tolist(), first.tolist(), strict=True):
        if code not in a.ends_by_entry:
            x, y = w.named[int(local[at])]
            a.ends_by_entry[code] = _may_end(state, f, policy.can_end, x, y, grid.top[y][x])
    table = np.array([a.ends_by_entry[c] for c in groups.tolist()], dtype=np.int8)
    verdict = verdict.copy()
    verdict[open_] = table[np.searchsorted(groups, entry)]
    w.verdict[local] = verdict[open_]
    return verdict


def _codes_of(a: StepArrays, grid: Grid) -> npt.NDArray[np.unsignedinteger[Any]]:
    """The grid's legend entry of each cell as codes[x, y], read once (kept in `a.codes`)."""
    codes = a.codes
    if codes is None:
        flat: npt.NDArray[np.unsignedinteger[Any]]
        if isinstance(grid.codes, bytes):
            flat = np.frombuffer(grid.codes, dtype=np.uint8)
        else:
            flat = np.frombuffer(grid.codes, dtype=np.uint16)
        codes = a.codes = flat.reshape(grid.height, grid.width).T
        a.entries = len(grid.entries)
    return codes


class _Kept(Mapping[int, Step]):
    """The table's kept steps by edge, and the steps priced in bulk (`_price_tiles`) named when asked."""

    def __init__(self, table: StepTable, arrays: StepArrays, state: EncounterState) -> None:
        self.step, self.arrays, self.top = table.step, arrays, state.grid.top

    def __getitem__(self, edge: int) -> Step:
        found = self.step.get(edge)
        if found is not None:
            return found
        a = self.arrays
        node, d = edge >> 3, edge & 7
        x, y = divmod(node >> 1, a.height)
        tx, ty = x + NEIGHBOURS[d][0], y + NEIGHBOURS[d][1]
        codes = a.codes
        if codes is None:  # nothing was priced in bulk: an edge not kept is not known
            raise KeyError(edge)
        step = a.bulk[((int(codes[x, y]) * a.entries + int(codes[tx, ty])) * 8 + d) * 2 + (node & 1)]
        assert step is not None, edge  # as `_signatures` numbers it
        return replace(step, to=(tx, ty, self.top[ty][tx]))

    def __iter__(self) -> Iterator[int]:
        return iter(self.step)

    def __len__(self) -> int:
        return len(self.step)


class _Trail(_Nodes):
    """`Reach.came` rebuilt from the costs: the step into a node from the node `_search` pops first.

    `_search` keeps the first way to a node at its final cost, and pops nodes in
    (cost, node) order: so the step comes from the least (cost, node) u with
    cost(u) + price(u -> v) == cost(v), among the nodes it leaves (reached, not a
    stop) and pops before v (a step costing nothing only from a lesser node). Local
    node numbers order as the map's do (by x, then y, then parity), so the window's
    order is `_search`'s.
    """

    def __init__(
        self,
        w: Window,
        keep_parity: bool,
        top: Any,
        dist: Any,
        weight: Any,
        stop: Any,
        start: int,
        budget: int,
        live: dict[int, Step],
        kept: Mapping[int, Step],
        height: int,
    ) -> None:
        self.w, self.keep_parity, self.top, self.dist, self.weight, self.stop = (
            w,
            keep_parity,
            top,
            dist,
            weight,
            stop,
        )
        self.start, self.budget, self.live, self.kept, self.height = start, budget, live, kept, height
        self._came: list[int] | None = None  # node -> the edge into it (-1: none), found for all at once
        self._came_array: npt.NDArray[np.int64] | None = None  # ... the same as an array (`tree`)
        # The answer (set by `_answer`): its cells asked for in its own order are read, not converted
        # (`ends_of`).
        self.answer: _Costs | None = None
        self._count: dict[int, int] = {start: 0}  # node -> diagonals on its way
        self.scale: Scale | None = (
            None  # how the costs count exact lengths (`tree` names them in centi-units)
        )

    def tree(self, cells: list[XY]) -> tuple[list[list[int]], list[int]]:
        """The cheapest ways to these cells (each by its node in `Reach.ends`) as one tree of steps,
        found for all of them at once.

        Returns the steps [x, y, running cost, parent] (parent: the index of the step before,
        -1 from the start), ordered as the search settles them (a step's parent comes first), and
        the index of each end's step. A running cost is the node's cost rounded once: the exact
        length of the way to it (the keys count exact lengths, core/search/step_table.py), what
        `app/web/api_reach.routes` reads off each step.
        """
        assert self.scale is not None
        came = self._came_array
        if came is None:
            came = self._came_array = self._find_all()
        before = np.where(came >= 0, came >> 3, -1)
        numbers = self.ends_of(cells)
        marked = np.zeros(self.w.nodes, dtype=bool)
        frontier = np.unique(numbers[numbers != self.start])
        marked[frontier] = True
        while frontier.size:  # every node on the way to an end, one generation a round
            up = before[frontier]
            up = up[(up >= 0) & (up != self.start)]
            up = np.unique(up[~marked[up]])
            marked[up] = True
            frontier = up
        nodes = np.flatnonzero(marked)
        order = nodes[np.lexsort((nodes, self.dist[nodes]))]  # as the search pops them: parents first
        index = np.full(self.w.nodes, -1, dtype=np.int64)
        index[order] = np.arange(order.size)
        parent = np.where(before[order] >= 0, index[np.maximum(before[order], 0)], -1)
        local = order // self.w.k
        keys = self.dist[order].astype(np.int64)
        if self.scale.whole != 1:
            keys = (keys + self.scale.whole // 2) // self.scale.whole
        steps = np.stack([self.w.xs[local], self.w.ys[local], keys, parent], axis=1).tolist()
        return steps, index[numbers].tolist()

    def reached(self, n: int) -> bool:
        return 0 <= n < self.w.nodes and bool(self.dist[n] <= self.budget)

    def _sources(self, v: Any, d: int) -> tuple[Any, Any]:
        """The node a step in direction d into each node of v comes from, and whether it is in the window."""
        w = self.w
        dx, dy = NEIGHBOURS[d]
        sx, sy = (v // w.k) // w.rows - dx, (v // w.k) % w.rows - dy
        ok = (sx >= 0) & (sx < w.cols) & (sy >= 0) & (sy < w.rows)
        p = ((v & 1) - (d & 1)) & 1 if self.keep_parity else 0
        return np.where(ok, (sx * w.rows + sy) * w.k + p, 0), ok

    def into(self, v: int, exact: bool) -> tuple[float, int, int] | None:
        """The first-popped node u (cost, u, edge) leaving by a step into v: exact, at v's cost.

        Exact, this is the way `_search` keeps; else any step within the budget: the one
        that first put v on the heap (which orders equally cheap parity classes of a cell).
        """
        dist, weight = self.dist, self.weight
        dv = dist[v]
        best: tuple[float, int, int] | None = None
        for d in range(8):
            us, ok = self._sources(np.array([v]), d)
            if not ok[0]:
                continue
            u = int(us[0])
            du = dist[u]
            if du > self.budget or (self.stop[u] and u != self.start):
                continue
            total = du + weight[u * 8 + d]
            if total > self.budget or (du, u) >= (dv, v) or (exact and total != dv):
                continue
            if best is None or (du, u) < best[:2]:
                best = (du, u, u * 8 + d)
        return best

    def _find_all(self) -> Any:
        """`into(v, True)` for every reached node at once: its edge, or -1."""
        dist, budget = self.dist, self.budget
        came = np.full(self.w.nodes, -1, dtype=np.int64)
        v = np.flatnonzero(dist <= budget)
        v = v[v != self.start]
        dv = dist[v]
        best_du = np.full(v.size, np.inf)
        best_u = np.full(v.size, self.w.nodes, dtype=np.int64)
        best_e = np.full(v.size, -1, dtype=np.int64)
        for d in range(8):
            u, ok = self._sources(v, d)
            du = dist[u]
            e = u * 8 + d
            fine = ok & (du <= budget) & (~self.stop[u] | (u == self.start)) & (du + self.weight[e] == dv)
            fine &= (du < dv) | ((du == dv) & (u < v))
            better = fine & ((du < best_du) | ((du == best_du) & (u < best_u)))
            best_du = np.where(better, du, best_du)
            best_u = np.where(better, u, best_u)
            best_e = np.where(better, e, best_e)
        came[v] = best_e
        return came

    def ends_of(self, cells: list[XY]) -> Any:
        """The node each cell's cost comes from (`_Ends`), for many cells at once."""
        w = self.w
        listed = self.answer.listed() if self.answer is not None else None
        if listed is not None and cells == listed[0]:  # the answer's own cells, in its order (the same
            n = listed[1] * w.k  # tuples: quick to compare)
        else:
            xy = np.array(cells, dtype=np.int64).reshape(-1, 2)
            n = ((xy[:, 0] - w.x0) * w.rows + (xy[:, 1] - w.y0)) * w.k
        if self.keep_parity:
            even, odd = self.dist[n], self.dist[n + 1]
            n = n + (odd < even)
            for i in np.flatnonzero(odd == even).tolist():  # equally cheap: the one put on the heap first
                first_even, first_odd = self.into(int(n[i]), False), self.into(int(n[i]) + 1, False)
                if first_odd is not None and (first_even is None or first_odd[:2] < first_even[:2]):
                    n[i] += 1
        return n

    def edge(self, n: int) -> int:
        """The edge into node n on its cheapest way; -1 for the start or a node not reached."""
        came = self._came
        if came is None:
            if self._came_array is None:
                self._came_array = self._find_all()
            came = self._came = self._came_array.tolist()
        return came[n]

    def count(self, n: int) -> int:
        """Diagonals taken on the way to node n."""
        counted, way = self._count, []
        while n not in counted:
            way.append(n)
            n = self.edge(n) >> 3
        total = counted[n]
        for m in reversed(way):
            total += self.edge(m) & 1  # odd directions are the diagonals
            counted[m] = total
        return total

    def node(self, n: int) -> _Node:
        x, y = self.w.xy(n // self.w.k)
        return (x, y, self.top[y][x], n % self.w.k)

    def number(self, node: _Node) -> int:
        if not self.w.holds(node[0], node[1]):
            return -1
        if node[3] >= self.w.k:
            return -1
        return self.w.cell(node[0], node[1]) * self.w.k + node[3]

    def kept_edge(self, e: int) -> int:
        """A local edge as the table numbers it (`StepTable.step`, `live`)."""
        node = e >> 3
        x, y = self.w.xy(node // self.w.k)
        return ((x * self.height + y) * 2 + node % self.w.k) * 8 + (e & 7)

    def __getitem__(self, node: _Node) -> tuple[_Node, Step]:
        n = self.number(node)
        e = self.edge(n) if n >= 0 else -1
        if e < 0 or node[2] != self.top[node[1]][node[0]]:
            raise KeyError(node)
        edge = self.kept_edge(e)
        step = self.live[edge] if edge in self.live else self.kept[edge]
        return self.node(e >> 3), _as_counted(step, self.count(n))

    def __iter__(self) -> Iterator[_Node]:
        return (self.node(n) for n in np.flatnonzero(self.dist <= self.budget).tolist() if n != self.start)

    def __len__(self) -> int:
        return int(np.count_nonzero(self.dist <= self.budget)) - 1


class _Named(NamedTuple):
    """An answer named as a dict over a window (`Window.answered`), and what it was named from:
    the local cells (in the window's order) and their keys, the budget and the keys' scale."""

    cells: npt.NDArray[np.intp]
    found: npt.NDArray[np.int64]
    limit: int
    whole: int
    costs: dict[XY, int]  # never handed out: answers get copies
    listed: tuple[list[XY], Any]

    def same(self, cells: Any, found: Any, limit: int, whole: int) -> bool:
        """Would these cells and keys name the same dict? (The window's names are its own.)"""
        return (
            limit == self.limit
            and whole == self.whole
            and cells.size == self.cells.size
            and bool(np.array_equal(cells, self.cells))
            and bool(np.array_equal(found, self.found))
        )


class _Costs(Mapping[XY, int]):
    """`Reach.costs` held as the compiled search's arrays, named as a dict when first read.

    Naming ~3,000 cells as (x, y) tuples and hashing them into a dict costs about what
    scipy's Dijkstra does at 50 x 50 (issue 40); a caller that only counts the area, or
    never reads it, does not pay for it, and one that reads it pays once. Read, it is the
    dict `_search`'s answer is: cheapest first, equal costs by node (a stable sort of the
    local cells, which order as the map's), costs in centi-units rounded once.
    """

    __slots__ = ("_window", "_cells", "_cheapest", "_limit", "_whole", "_dict", "_listed")

    def __init__(self, window: Window, cells: Any, cheapest: Any, limit: int, whole: int) -> None:
        self._window, self._cells, self._cheapest = window, cells, cheapest
        self._limit, self._whole = limit, whole
        self._dict: dict[XY, int] | None = None
        self._listed: tuple[list[XY], Any] | None = None  # the dict's cells in order, and their local cells

    def dict(self) -> dict[XY, int]:
        """The answer as a dict, made the first time it is asked for (the same one after)."""
        made = self._dict
        if made is None:
            found = self._cheapest[self._cells].astype(np.int64)  # keys: integers a float holds exactly
            last = self._window.answered
            if last is not None and last.same(self._cells, found, self._limit, self._whole):
                made, self._listed = last.costs.copy(), last.listed  # each answer its own dict
            else:
                order = _cheapest_first(found, self._limit)
                keys = found[order]
                if self._whole != 1:  # keys back to centi-units, rounded once
                    keys = (keys + self._whole // 2) // self._whole
                cells = self._cells[order]
                listed: list[XY] = self._window.names[cells].tolist()
                made = dict(zip(listed, keys.tolist(), strict=True))
                self._listed = (listed, cells)
                self._window.answered = _Named(
                    self._cells, found, self._limit, self._whole, made.copy(), self._listed
                )
            self._dict = made
        return made

    def listed(self) -> tuple[list[XY], Any] | None:
        """The answer's cells in its order and their local cells, once it was read (else None)."""
        return self._listed

    def __getitem__(self, cell: XY) -> int:
        return self.dict()[cell]

    def __contains__(self, cell: object) -> bool:
        return cell in self.dict()

    def __iter__(self) -> Iterator[XY]:
        return iter(self.dict())

    def __len__(self) -> int:
        return int(self._cells.size)

    def get(self, cell: XY, default: Any = None) -> Any:
        return self.dict().get(cell, default)

    def keys(self) -> KeysView[XY]:
        return self.dict().keys()

    def items(self) -> ItemsView[XY, int]:
        return self.dict().items()

    def values(self) -> ValuesView[int]:
        return self.dict().values()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Costs):
            other = other.dict()
        if isinstance(other, Mapping):
            return self.dict() == (other if isinstance(other, dict) else dict(other.items()))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a dict, and as mutable-looking

    def __repr__(self) -> str:
        return repr(self.dict())


class _Ends(Mapping[XY, _Node]):
    """`Reach.ends`: the node each cell's cost comes from, named when asked.

    Under the alternating rule a cell has two nodes; the cheaper counts, and of two
    equally cheap ones the one `_search` put on its heap first (it sorts them stably).
    """

    def __init__(self, costs: Mapping[XY, int], trail: _Trail) -> None:
        self.costs, self.trail = costs, trail

    def __getitem__(self, cell: XY) -> _Node:
        if cell not in self.costs:
            raise KeyError(cell)
        t = self.trail
        n = t.w.cell(cell[0], cell[1]) * t.w.k
        if t.keep_parity:
            even, odd = t.dist[n], t.dist[n + 1]
            if odd < even:
                n += 1
            elif odd == even:
                first_even, first_odd = t.into(n, False), t.into(n + 1, False)
                if first_odd is not None and (first_even is None or first_odd[:2] < first_even[:2]):
                    n += 1
        return t.node(n)

    def __iter__(self) -> Iterator[XY]:
        return iter(self.costs)

    def __len__(self) -> int:
        return len(self.costs)


def warm() -> None:
    """Run the compiled search once on a two-node graph, so a server process pays for loading numpy and
    scipy (0.3-0.4 s) when it starts, not the first player who taps a fighter (`serve` calls it)."""
    graph = csr_matrix((np.array([1.0]), (np.array([0]), np.array([1]))), shape=(2, 2))
    dijkstra(graph, indices=0, limit=2.0)
