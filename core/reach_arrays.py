"""The reachable area searched by compiled code over a table's kept prices held as flat arrays.

The table search in core/reach.py runs Dijkstra in Python, a heap push per
step; the table view asks for the same area on every selection and drag. Here
the kept prices of one `StepTable` are also held as flat numpy arrays laid out
as a CSR graph (node n's eight steps are entries 8n..8n+7, the table's own edge
numbers), and scipy's compiled Dijkstra (`limit=` the budget) searches them.
Chosen by measurement (bench_reach.py, issue 16, a loaded 2-core machine): on
its 100x100 map the Python heap search over the same kept prices took ~33 ms,
this one 3-5 ms, networkx's Dijkstra alone on a prebuilt graph 25-55 ms.

The answer is the table search's, node for node, which is the policy search's:

- occupancy is an overlay: a step into an occupied cell is never kept in the
  table's prices; it is priced for the mover and the fighters standing there
  and remembered beside them (`StepTable.live`), read back only while those
  fighters are equal (a price reads the map, the table key and the target cell's
  occupants: core/step_table.py); forbidden cells are never entered, and a cell
  where the GM asks for a test is a stop (its steps out are cut);
- a step not priced yet is priced through the policy after a search that needs
  it, and the search runs again, until every step out of every node it may leave
  is known (the first call at a new place lets core/reach.py's step-by-step
  search price the area: it meets far fewer steps);
- where `_search` keeps the first of equally cheap ways (its heap breaks ties by
  node), the way back from a node is the equally cheap step from the node its
  heap pops first: rebuilt from the costs when a path is asked for (`_Trail`).

Only policies where nothing happens on a step (`step_table.quiet`) come here:
`eventful` asks about the step a node was reached by, one Python call per
node, which would cost what the compiled search saves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra
from tabletrail.core.cell_rulings import TEST, forbidden_cells
from tabletrail.core.geometry import ALTERNATING, NEIGHBOURS, XY
from tabletrail.core.movement import StepPolicy
from tabletrail.core.reach import Reach, _as_counted, _may_end, _Node, _Nodes
from tabletrail.core.refusal import Refusal
from tabletrail.core.state import EncounterState, Fighter
from tabletrail.core.step_table import MOST_LIVE, Scale, StepTable
from tabletrail.events.types import Step

FILL = 256  # more unknown steps than this at a start the step-by-step search never priced: it prices them
FILL_ROUNDS = 3  # ... and so it does when pricing the unknown steps needs more searches than this
MOST_ROUNDS = 32  # searches one call may run before it leaves the answer to the step-by-step search
_EIGHT = np.arange(8)


class StepArrays:
    """A table's prices as a CSR graph over nodes (x * height + y) * 2 + parity class.

    `weight[edge]` is the kept cost (inf: refused or not priced), `known[edge]` whether
    the table has an answer for it (a step off the map counts as refused), `target[edge]`
    the node it leads to, `verdict[cell]` whether a move may end there (-1: not asked).
    """

    def __init__(self, table: StepTable, width: int, height: int, keep_parity: bool) -> None:
        self.width, self.height, self.keep_parity = width, height, keep_parity
        nodes = 2 * width * height
        self.nodes = nodes
        node = np.arange(nodes)
        cell, parity = node >> 1, node & 1
        x, y = cell // height, cell % height
        target = np.empty((nodes, 8), dtype=np.int32)
        inside = np.empty((nodes, 8), dtype=bool)
        for d, (dx, dy) in enumerate(NEIGHBOURS):
            tx, ty = x + dx, y + dy
            ok = (tx >= 0) & (tx < width) & (ty >= 0) & (ty < height)
            to_parity = (parity + (d & 1)) & 1 if keep_parity else 0
            target[:, d] = np.where(ok, (tx * height + ty) * 2 + to_parity, node)
            inside[:, d] = ok
        if not keep_parity:  # odd nodes are never reached: their steps are known to lead nowhere
            inside[1::2] = False
        self.target = target.ravel()
        self.known = ~inside.ravel()
        self.weight = np.full(nodes * 8, np.inf)
        self.indptr = np.arange(0, nodes * 8 + 1, 8, dtype=np.int32)
        self.verdict = np.full(width * height, -1, dtype=np.int8)
        self.cells: list[XY] = [(int(a), int(b)) for a, b in zip(x[::2], y[::2], strict=True)]
        for edge, cost in table.cost.items():
            if cost >= 0:
                self.keep(edge, cost)
            else:
                self.refuse(edge)
        for c, ok in table.ends.items():
            self.verdict[c] = ok

    def keep(self, edge: int, cost: int) -> None:
        self.weight[edge] = cost
        self.known[edge] = True

    def refuse(self, edge: int) -> None:
        self.weight[edge] = np.inf
        self.known[edge] = True


def arrays_for(table: StepTable, width: int, height: int, keep_parity: bool) -> StepArrays:
    """The table's arrays, made from its kept prices the first time they are asked for."""
    arrays = table.arrays
    if arrays is None or arrays.keep_parity != keep_parity or arrays.height != height:
        arrays = table.arrays = StepArrays(table, width, height, keep_parity)
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

    Prices and `limit` (the budget) are `scale` keys, exact lengths as integers (core/step_table.py):
    under diagonal=euclidean too, every sum the compiled search makes is an integer a float holds
    exactly (core/reach.py keeps larger budgets off this search), so it orders as `_search` does.

    `fill` is the step-by-step table search. At a start it never ran from, when the kept
    prices lack more than FILL steps (or pricing them takes more than FILL_ROUNDS
    searches), it runs first: it prices the area in one pass, and the steps it skipped
    (into cells already settled) are priced after it, so the next call finds the table
    complete. Its answer is returned if the compiled search still finds steps to price
    after MOST_ROUNDS searches.
    """
    grid = state.grid
    width, height, top = grid.width, grid.height, grid.top
    keep_parity = state.settings.get("diagonal") == ALTERNATING
    a = arrays_for(table, width, height, keep_parity)
    nodes = a.nodes
    start = (f.pos[0] * height + f.pos[1]) * 2
    occupants: dict[XY, tuple[Fighter, ...]] = {}  # who a step into each occupied cell is priced for
    for o in state.fighters:
        if o.id != f.id:
            occupants[(o.pos[0], o.pos[1])] = (*occupants.get((o.pos[0], o.pos[1]), (f,)), o)
    if len(table.live) > MOST_LIVE:
        table.live.clear()
    remembered = table.live
    weight, known, stop, live = _overlay(state, f, table, a, start, occupants, scale)
    price = policy.price
    filled: Reach | None = None
    rounds = 0
    while True:
        graph = csr_matrix((weight, a.target, a.indptr), shape=(nodes, nodes), copy=False)
        dist = dijkstra(graph, directed=True, indices=start, limit=limit)
        reached = np.flatnonzero(dist <= limit)
        left = reached[~stop[reached]]
        edges = (left[:, None] * 8 + _EIGHT).ravel()
        missing = edges[~known[edges]]
        if not missing.size:
            break
        rounds += 1
        if start not in table.filled and (missing.size > FILL or rounds > FILL_ROUNDS):
            table.filled.add(start)  # a new place: the step-by-step search prices its area in one pass
            filled = fill()
            if filled is None:
                return None
            weight, known, stop, live = _overlay(state, f, table, a, start, occupants, scale)
            continue
        if rounds > MOST_ROUNDS:  # a winding map keeps finding steps: the exact search, step by step
            return filled if filled is not None else fill()
        shorter = False  # does a step priced now lead anywhere cheaper? If not, the costs stand
        for edge in missing.tolist():
            u, d = edge >> 3, edge & 7
            x, y = divmod(u >> 1, height)
            dx, dy = NEIGHBOURS[d]
            tx, ty = x + dx, y + dy
            p = u & 1
            known[edge] = True
            who = occupants.get((tx, ty))
            try:
                step = price(state, f, (x, y, top[y][x]), (tx, ty), p)
            except Refusal:
                if who is None:
                    table.refuse(edge)
                else:
                    remembered[edge] = (who, None)
                continue
            if step.to[2] != top[ty][tx] or step.parity != p + step.diagonal:
                table.usable = False  # as the table search gives up: the caller prices every step
                return None
            price_key = scale.key(step)
            weight[edge] = price_key
            if who is not None:
                live[edge] = step
                remembered[edge] = (who, step)
            else:
                table.keep(edge, price_key, step)
            total = dist[u] + price_key
            shorter = shorter or (total <= limit and total < dist[a.target[edge]])
        if not shorter:
            break
    return _answer(
        state, f, policy, (budget, limit, scale), table, a, dist, weight, stop, start, occupants.keys(), live
    )


def _overlay(
    state: EncounterState,
    f: Fighter,
    table: StepTable,
    a: StepArrays,
    start: int,
    occupants: dict[XY, tuple[Fighter, ...]],
    scale: Scale,
) -> tuple[Any, Any, Any, dict[int, Step]]:
    """This call's copy of the kept prices with the board laid over them: (weight, known, stop, live).

    A GM's test makes a stop (its steps out cut); steps into a forbidden cell are never
    taken; steps into an occupied cell are read from `StepTable.live` when priced for
    the same fighters, else left unknown (priced by the search loop).
    """
    height, width = a.height, a.width
    parities = (0, 1) if a.keep_parity else (0,)
    weight, known = a.weight.copy(), a.known.copy()
    remembered = table.live
    live: dict[int, Step] = {}  # steps into occupied cells for this call, by edge
    stop = np.zeros(a.nodes, dtype=bool)
    for c in state.marks.get(TEST, ()):
        for p in parities:
            n = (c[0] * height + c[1]) * 2 + p
            if n != start:  # the start is left, never reached: never a stop
                stop[n] = True
                known[n * 8 : n * 8 + 8] = True
                weight[n * 8 : n * 8 + 8] = np.inf
    for cells, cut in ((occupants.keys(), False), (forbidden_cells(state, f), True)):
        for cx, cy in cells:  # the steps into the cell: priced for who stands there, or never taken
            who = None if cut else occupants[(cx, cy)]
            for d, (dx, dy) in enumerate(NEIGHBOURS):
                sx, sy = cx - dx, cy - dy
                if 0 <= sx < width and 0 <= sy < height:
                    for p in parities:
                        edge = ((sx * height + sy) * 2 + p) * 8 + d
                        seen = remembered.get(edge)
                        if who is not None and seen is not None and seen[0] == who:
                            known[edge] = True  # priced before for these very fighters
                            if seen[1] is not None:
                                weight[edge] = scale.key(seen[1])
                                live[edge] = seen[1]
                            else:
                                weight[edge] = np.inf
                        else:
                            weight[edge] = np.inf
                            known[edge] = cut
    return weight, known, stop, live


def _answer(
    state: EncounterState,
    f: Fighter,
    policy: StepPolicy,
    budgets: tuple[int, int, Scale],
    table: StepTable,
    a: StepArrays,
    dist: Any,
    weight: Any,
    stop: Any,
    start: int,
    occupied: Any,
    live: dict[int, Step],
) -> Reach:
    """The end-of-move filter (kept verdicts for empty cells, live for occupied ones) and the Reach.

    `budgets`: the budget reported, the same as a key, and the scale of the keys."""
    budget, limit, scale = budgets
    height, top = a.height, state.grid.top
    cheapest = dist.reshape(-1, 2).min(axis=1) if a.keep_parity else dist[0::2]
    cells = np.flatnonzero(cheapest <= limit)
    cells = cells[cells != start >> 1]
    verdict = a.verdict[cells]
    cell_xy = a.cells
    ask = set(np.flatnonzero(verdict < 0).tolist())
    if occupied:  # an occupied cell's verdict is asked afresh: who stands there may change it
        busy = np.zeros(len(cell_xy), dtype=bool)
        busy[[x * height + y for x, y in occupied]] = True
        ask.update(np.flatnonzero(busy[cells]).tolist())
    if ask:
        verdict = verdict.copy()
        for i in ask:
            c = int(cells[i])
            x, y = cell_xy[c]
            ok = _may_end(state, f, policy.can_end, x, y, top[y][x])
            verdict[i] = table.judge(c, ok) if cell_xy[c] not in occupied else ok
    cells = cells[verdict > 0]
    found = cheapest[cells]
    order = np.argsort(found, kind="stable")
    keys = found[order].astype(np.int64)
    if scale.whole != 1:  # keys back to centi-units, rounded once
        keys = (keys + scale.whole // 2) // scale.whole
    cells, found = cells[order].tolist(), keys.tolist()
    costs = dict(zip(map(cell_xy.__getitem__, cells), found, strict=True))
    tested = {(c[0], c[1]) for c in state.marks.get(TEST, ())}
    events = frozenset(c for c in tested if c in costs)
    trail = _Trail(a, top, dist, weight, stop, start, limit, live, table.step)
    return Reach(f.id, f.pos, budget, costs, events, _Ends(costs, trail), trail, policy.unit)


class _Trail(_Nodes):
    """`Reach.came` rebuilt from the costs: the step into a node from the node `_search` pops first.

    `_search` keeps the first way to a node at its final cost, and pops nodes in
    (cost, node) order: so the step comes from the least (cost, node) u with
    cost(u) + price(u -> v) == cost(v), among the nodes it leaves (reached, not a
    stop) and pops before v (a step costing nothing only from a lesser node).
    """

    def __init__(
        self,
        a: StepArrays,
        top: Any,
        dist: Any,
        weight: Any,
        stop: Any,
        start: int,
        budget: int,
        live: dict[int, Step],
        kept: dict[int, Step],
    ) -> None:
        self.a, self.top, self.dist, self.weight, self.stop = a, top, dist, weight, stop
        self.start, self.budget, self.live, self.kept = start, budget, live, kept
        self._came: dict[int, int] = {}  # node -> the edge into it
        self._count: dict[int, int] = {start: 0}  # node -> diagonals on its way

    def reached(self, n: int) -> bool:
        return 0 <= n < self.a.nodes and bool(self.dist[n] <= self.budget)

    def into(self, v: int, exact: bool) -> tuple[float, int, int] | None:
        """The first-popped node u (cost, u, edge) leaving by a step into v: exact, at v's cost.

        Exact, this is the way `_search` keeps; else any step within the budget: the one
        that first put v on the heap (which orders equally cheap parity classes of a cell).
        """
        a, dist, weight = self.a, self.dist, self.weight
        height, width = a.height, a.width
        x, y = divmod(v >> 1, height)
        dv = dist[v]
        best: tuple[float, int, int] | None = None
        for d, (dx, dy) in enumerate(NEIGHBOURS):
            sx, sy = x - dx, y - dy
            if not (0 <= sx < width and 0 <= sy < height):
                continue
            u = (sx * height + sy) * 2 + (((v & 1) - (d & 1)) & 1 if a.keep_parity else 0)
            du = dist[u]
            if du > self.budget or (self.stop[u] and u != self.start):
                continue
            total = du + weight[u * 8 + d]
            if total > self.budget or (du, u) >= (dv, v) or (exact and total != dv):
                continue
            if best is None or (du, u) < best[:2]:
                best = (du, u, u * 8 + d)
        return best

    def edge(self, n: int) -> int:
        if n not in self._came:
            found = self.into(n, True)
            assert found is not None, n
            self._came[n] = found[2]
        return self._came[n]

    def count(self, n: int) -> int:
        """Diagonals taken on the way to node n."""
        way = []
        while n not in self._count:
            way.append(n)
            n = self.edge(n) >> 3
        total = self._count[n]
        for m in reversed(way):
            total += self.edge(m) & 1  # odd directions are the diagonals
            self._count[m] = total
        return total

    def node(self, n: int) -> _Node:
        x, y = divmod(n >> 1, self.a.height)
        return (x, y, self.top[y][x], n & 1)

    def number(self, node: _Node) -> int:
        return (node[0] * self.a.height + node[1]) * 2 + node[3]

    def __getitem__(self, node: _Node) -> tuple[_Node, Step]:
        n = self.number(node)
        if n == self.start or not self.reached(n) or node[2] != self.top[node[1]][node[0]]:
            raise KeyError(node)
        edge = self.edge(n)
        step = self.live[edge] if edge in self.live else self.kept[edge]
        return self.node(edge >> 3), _as_counted(step, self.count(n))

    def __iter__(self) -> Iterator[_Node]:
        return (self.node(n) for n in np.flatnonzero(self.dist <= self.budget).tolist() if n != self.start)

    def __len__(self) -> int:
        return int(np.count_nonzero(self.dist <= self.budget)) - 1


class _Ends(Mapping[XY, _Node]):
    """`Reach.ends`: the node each cell's cost comes from, named when asked.

    Under the alternating rule a cell has two nodes; the cheaper counts, and of two
    equally cheap ones the one `_search` put on its heap first (it sorts them stably).
    """

    def __init__(self, costs: dict[XY, int], trail: _Trail) -> None:
        self.costs, self.trail = costs, trail

    def __getitem__(self, cell: XY) -> _Node:
        if cell not in self.costs:
            raise KeyError(cell)
        t = self.trail
        n = (cell[0] * t.a.height + cell[1]) * 2
        if t.a.keep_parity:
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
