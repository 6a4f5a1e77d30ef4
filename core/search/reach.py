"""The reachable area: every cell a fighter's next ordinary move could end on, and its cost.

The table view shades these cells when a fighter is selected. The answer must
match what `walk` would accept, so the search asks the ruleset itself: the
step policy from `Ruleset.walker(state, f)` prices every king's step (terrain,
diagonal rule, mode, occupancy, heights; a `Refusal` means the step is not
allowed), `Ruleset.move_budget(state, f)` caps the total, and the policy's
`can_end` decides which cells a move may stop on. GM rulings on cells count
too: a forbidden cell is never entered; nor is a step taken across a wall or a
shut door on a cell edge (core/board/walls.py `step_blocked`, as `walk` refuses it;
a wall that stops only sight stops no step).

The search is Dijkstra over positions. Under the alternating diagonal rule the
price of a diagonal depends on how many diagonals came before, so there a
position is searched twice, once per parity; under the other rules parity
changes nothing and each position is searched once. Pricing a step is most of
the work, so steps into cells already settled are not priced when ordinary
walking makes that exact (see `_search`).

A cell where something happens (the policy's `eventful`, or a GM ruling that
asks for a test) is reachable, but the search does not go past it: what
happens there is decided by a roll or a rule the search does not run, and the
move may end on it. Such cells are listed in `Reach.events`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from heapq import heappop, heappush
from typing import Any, Literal, overload

from msgspec.structs import replace
from tabletrail.core.board.geometry import ALTERNATING, EUCLIDEAN, NEIGHBOURS, XY
from tabletrail.core.board.refusal import Refusal
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.board.units import root2_cu
from tabletrail.core.board.walls import step_blocked
from tabletrail.core.engine.cell_rulings import TEST, forbidden_cells
from tabletrail.core.engine.movement import DIAGONALS, StepPolicy
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.search.area import Node as _Node
from tabletrail.core.search.area import Nodes as _Nodes
from tabletrail.core.search.area import Reach as Reach
from tabletrail.core.search.area import as_counted as _as_counted
from tabletrail.core.search.area import may_end as _may_end
from tabletrail.core.search.step_table import REFUSED, UNKNOWN, Scale, StepTable, quiet, table_for
from tabletrail.events.types import Step

# The table search's flags on a node: settled (or forbidden), a GM's test there, someone standing there.
_DONE, _TESTED, _OCCUPIED = 1, 2, 4
# The table search tells a diagonal by its direction's index: odd ones are the diagonals.
assert all(bool(dx and dy) == bool(d & 1) for d, (dx, dy) in enumerate(NEIGHBOURS))


def reachable(state: EncounterState, fighter_id: str) -> Mapping[XY, int]:
    """Every cell the fighter's next ordinary move may end on, with its cheapest cost in centi-units."""
    return reach(state, fighter_id).costs


def reach(
    state: EncounterState, fighter_id: str, *, shortcut: bool = True, table: bool = True, extra: int = 0
) -> Reach:
    """The reachable area with the cheapest steps to each cell. KeyError names an unknown fighter.

    shortcut=False prices every step, even into cells already settled (see `_search`);
    table=False asks the policy for every step instead of reading kept prices (see
    `core/search/step_table.py`; where nothing happens on a step, scipy's compiled Dijkstra reads
    them, `core/search/reach_arrays.py`). All the searches give the same answer. extra: centi-units
    added to the budget (what a further action would give: `Ruleset.further_budget`).
    """
    f = state.fighter(fighter_id)
    if f is None:
        known = ", ".join(x.id for x in state.fighters)
        raise KeyError(f"no fighter {fighter_id!r} (fighters: {known})")
    rs = get_ruleset(state.ruleset)
    policy = rs.walker(state, f)
    if policy is None:  # it can't make an ordinary move now (an object, a drifter…): nothing to spend
        return Reach(f.id, f.pos, 0, {}, unit=rs.unit)
    budget = rs.move_budget(state, f)
    if budget <= 0:
        return Reach(f.id, f.pos, 0, {}, unit=policy.unit)
    budget += extra
    # Exact lengths (diagonal=euclidean): the budget is held exactly, less the √2 part already spent
    # of it when moves share it, as `walk` holds it; searches count lengths as Scale keys.
    spent_root2 = rs.move_root2(state, f) if state.settings.get("diagonal") == EUCLIDEAN else 0
    exact_budget = (budget + root2_cu(spent_root2), -spent_root2)

    # The shortcut (see _search) needs the fighter to start on its cell's surface.
    on_surface = f.pos[2] == state.grid.top[f.pos[1]][f.pos[0]]
    # A budget that carries the alternating count over commands (movement.DIAGONALS) may start on
    # an odd diagonal: only `_search` starts from there (the kept tables start even).
    parity = int(f.marks.get(DIAGONALS, 0)) & 1 if state.settings.get("diagonal") == ALTERNATING else 0
    scale = Scale.of(state)
    if shortcut and on_surface and table and not parity and scale.safe(budget, spent_root2):
        kept = table_for(state, f, policy)
        if kept is not None and kept.usable:
            limit = scale.exact(*exact_budget)
            # The compiled search reads kept prices only, over a window around the fighter on a map of
            # any size; an edge that stops a step is asked in the table search's loop (step_blocked),
            # so a map with walls or doors keeps that search.
            if not _steps_walled(state) and quiet(policy):
                # numpy and scipy: only when asked
                from tabletrail.core.search.reach_arrays import array_reach

                area = array_reach(
                    state,
                    f,
                    policy,
                    budget,
                    kept,
                    lambda: _table_reach(state, f, policy, budget, kept, limit, scale),
                    limit,
                    scale,
                )
            else:
                area = _table_reach(state, f, policy, budget, kept, limit, scale)
            if area is not None:
                return area
    scale = Scale.safe_for(state, budget, spent_root2)  # any budget: keys as wide as it needs
    limit = scale.exact(*exact_budget)
    found: _Found | None = None
    if shortcut and on_surface:
        found = _search(state, f, policy, limit, scale, shortcut=True, parity=parity)
    if found is None:  # no shortcut, or it gave up: the full search always answers
        found = _search(state, f, policy, limit, scale, shortcut=False, parity=parity)
    best, came, stops = found

    costs: dict[XY, int] = {}
    ends: dict[XY, _Node] = {}
    for node in sorted(best, key=best.__getitem__):
        cell = (node[0], node[1])
        if cell in costs or cell == (f.pos[0], f.pos[1]):
            continue
        if not _may_end(state, f, policy.can_end, node[0], node[1], node[2]):
            continue
        costs[cell] = scale.cu(best[node])
        ends[cell] = node
    events = frozenset(cell for cell, node in ends.items() if node in stops)
    return Reach(f.id, f.pos, budget, costs, events, ends, came, policy.unit)


def _steps_walled(state: EncounterState) -> bool:
    """Does any edge of the map stop a step? (Walls that stop only sight never do.)"""
    edges = state.grid.edges
    return edges is not None and edges.steps


# What a search finds: the cheapest cost of every node, how each was reached, the nodes it may not leave.
_Found = tuple[dict[_Node, int], dict[_Node, tuple[_Node, Step]], set[_Node]]


@overload
def _search(
    state: EncounterState,
    f: Fighter,
    policy: StepPolicy,
    budget: int,
    scale: Scale,
    *,
    shortcut: Literal[False],
    parity: int = 0,
) -> _Found: ...


@overload
def _search(
    state: EncounterState,
    f: Fighter,
    policy: StepPolicy,
    budget: int,
    scale: Scale,
    *,
    shortcut: bool,
    parity: int = 0,
) -> _Found | None: ...


def _search(
    state: EncounterState,
    f: Fighter,
    policy: StepPolicy,
    budget: int,
    scale: Scale,
    *,
    shortcut: bool,
    parity: int = 0,
) -> _Found | None:
    """Dijkstra from the fighter's position; every step priced by the policy, never above the budget.

    Costs and the budget are `scale` keys: exact lengths as integers (core/search/step_table.py).

    Returns the cheapest cost of every node found, how each was reached, and the
    nodes the search may not leave. With `shortcut`, a step into a cell already
    settled is not priced at all. That is exact when every step lands on its
    cell's surface and counts diagonals the geometry's way, as ordinary walking
    does (flat_step). Every step it does price is checked for that: the first
    one that lands at a height of its own, or counts parity its own way, makes
    the shortcut search give up (None), and the caller searches again pricing
    every step.
    """
    grid = state.grid
    width, height, top = grid.width, grid.height, grid.top
    forbidden = forbidden_cells(state, f)
    tested = {(e[0], e[1]) for e in state.marks.get(TEST, ())}
    keep_parity = state.settings.get("diagonal") == ALTERNATING
    price = policy.price
    eventful = policy.eventful
    walled = _steps_walled(state)
    key = scale.key

    start: _Node = (f.pos[0], f.pos[1], f.pos[2], parity)
    best: dict[_Node, int] = {start: 0}
    came: dict[_Node, tuple[_Node, Step]] = {}
    done: set[_Node] = set()
    settled: set[tuple[int, int, int]] = set()  # (x, y, parity) of done nodes, for the shortcut
    stops: set[_Node] = set()  # nodes the search may not leave
    heap: list[tuple[int, _Node, int]] = [(0, start, parity)]
    while heap:
        cost, node, parity = heappop(heap)
        if node in done:
            continue
        done.add(node)
        x, y, z, p = node
        settled.add((x, y, p))
        if node in stops:
            continue
        here = (x, y, z)
        for dx, dy in NEIGHBOURS:
            tx, ty = x + dx, y + dy
            if not (0 <= tx < width and 0 <= ty < height) or (forbidden and (tx, ty) in forbidden):
                continue
            counted = parity + 1 if dx and dy else parity  # diagonals so far, the geometry's way
            if shortcut and (tx, ty, counted & 1 if keep_parity else 0) in settled:
                continue
            if walled and step_blocked(state, (x, y), (tx, ty)):
                continue  # tabletrail/walls
            try:
                step = price(state, f, here, (tx, ty), parity)
            except Refusal:
                continue  # the rules forbid this step
            if shortcut and (step.to[2] != top[ty][tx] or (keep_parity and step.parity != counted)):
                return None
            total = cost + key(step)
            if total > budget:
                continue
            nxt = (tx, ty, step.to[2], step.parity & 1 if keep_parity else 0)
            if nxt in done or total >= best.get(nxt, total + 1):
                continue
            best[nxt] = total
            came[nxt] = (node, step)
            if (tested and (tx, ty) in tested) or eventful(state, replace(f, pos=step.to), step):
                stops.add(nxt)
            elif stops:
                stops.discard(nxt)
            heappush(heap, (total, nxt, step.parity))
    return best, came, stops


def _table_reach(
    state: EncounterState,
    f: Fighter,
    policy: StepPolicy,
    budget: int,
    table: StepTable,
    limit: int,
    scale: Scale,
) -> Reach | None:
    """`_search` with the shortcut, then the end-of-move filter, reading kept prices and verdicts.

    Kept prices are `scale` keys (exact lengths as integers, core/search/step_table.py); `limit` is the
    budget as one, `budget` the one the answer reports.

    The same answer as the search that prices every step, node for node: nodes are
    numbered (x * height + y) * 2 + parity class and the heap holds cost * nodes +
    node, so it breaks ties in the order of `_search`'s (cost, (x, y, z, parity))
    tuples (z is the surface, fixed by the cell). Each node's steps out are kept
    (`StepTable.out`); a step missing from the table is priced by the policy and
    kept, unless someone stands on the cell stepped into (occupancy is live, and so
    is `eventful`). A priced step that leaves the surface or counts diagonals its
    own way marks the table unusable and returns None, as `_search` gives up.
    """
    grid = state.grid
    width, height, top = grid.width, grid.height, grid.top
    keep_parity = state.settings.get("diagonal") == ALTERNATING
    price = policy.price
    eventful = None if quiet(policy) else policy.eventful
    kept_cost, kept_step, kept_out = table.cost, table.step, table.out
    nodes = 2 * width * height
    walled = _steps_walled(state)  # the doors' states are in the table's key (core/search/step_table.py)
    # Per node: done, or a cell the search must look at live (tested: a stop; occupied: priced live).
    flags = bytearray(nodes)
    for flag, cells in (
        (_TESTED, state.marks.get(TEST, ())),
        (_OCCUPIED, [o.pos for o in state.fighters if o.id != f.id]),
        (_DONE, forbidden_cells(state, f)),  # never entered (by this fighter)
    ):
        for c in cells:
            n = (c[0] * height + c[1]) * 2
            flags[n] |= flag
            flags[n + 1] |= flag

    def out_of(node: int) -> list[tuple[int, int, int]]:
        """The steps out of a node: (next node, kept cost or REFUSED or UNKNOWN, edge)."""
        x, y = divmod(node >> 1, height)
        p = node & 1
        steps = []
        for d, (dx, dy) in enumerate(NEIGHBOURS):
            tx, ty = x + dx, y + dy
            if 0 <= tx < width and 0 <= ty < height:
                if walled and step_blocked(state, (x, y), (tx, ty)):
                    continue  # tabletrail/walls: never a step out of this node under this key
                edge = node * 8 + d
                c = kept_cost.get(edge, UNKNOWN)
                if c != REFUSED:
                    nxt = (tx * height + ty) * 2 + ((p + (d & 1)) & 1 if keep_parity else 0)
                    steps.append((nxt, c, edge))
        kept_out[node] = steps
        return steps

    start = (f.pos[0] * height + f.pos[1]) * 2
    flags[start] &= ~_DONE  # a forbidden cell is never entered, but one may leave it
    best: dict[int, int] = {start: 0}
    came: dict[int, int] = {}  # node -> the edge taken into it (edge // 8 is the node before)
    count: dict[int, int] = {start: 0}  # node -> diagonals taken on its cheapest way
    live: dict[int, Step] = {}  # steps priced live into occupied cells, by edge
    stops: set[int] = set()
    heap = [start]

    def stop_after(nxt: int, edge: int) -> bool:
        """The policy's `eventful` for the step into nxt, as `_search` asks it."""
        step = _as_counted(live[edge] if edge in live else kept_step[edge], count[nxt])
        return policy.eventful(state, replace(f, pos=step.to), step)  # asked only when not `quiet`

    while heap:
        cost, node = divmod(heappop(heap), nodes)
        if flags[node] & _DONE:
            continue
        flags[node] |= _DONE
        if node in stops:
            continue
        for nxt, c, edge in kept_out.get(node) or out_of(node):
            flag = flags[nxt]
            if flag:
                if flag & _DONE:
                    continue
                if flag & _OCCUPIED:
                    c = UNKNOWN
            if c == UNKNOWN:
                x, y = divmod(node >> 1, height)
                tx, ty = divmod(nxt >> 1, height)
                parity = count[node]
                try:
                    step = price(state, f, (x, y, top[y][x]), (tx, ty), parity)
                except Refusal:
                    if not flag & _OCCUPIED:
                        table.refuse(edge)  # the node's steps are rebuilt without it next time
                    continue
                if step.to[2] != top[ty][tx] or step.parity != parity + step.diagonal:
                    table.usable = False
                    return None
                c = scale.key(step)
                if flag & _OCCUPIED:
                    live[edge] = step
                else:
                    table.keep(edge, c, step)  # the node's steps are rebuilt with the price next time
            total = cost + c
            if total > limit or total >= best.get(nxt, total + 1):
                continue
            best[nxt] = total
            came[nxt] = edge
            count[nxt] = count[node] + (edge & 1)  # odd directions are the diagonals
            if flag & _TESTED or (eventful is not None and stop_after(nxt, edge)):
                stops.add(nxt)
            elif stops:
                stops.discard(nxt)
            heappush(heap, total * nodes + nxt)

    # The end-of-move filter, cheapest first: a kept verdict for an empty cell, else ask the policy.
    verdicts = table.ends
    costs: dict[XY, int] = {}
    ends: dict[XY, int] = {}
    events: list[XY] = []
    here = start >> 1
    seen = {here}
    for n in sorted(best, key=best.__getitem__):
        cell = n >> 1
        if cell in seen:
            continue
        seen.add(cell)
        x, y = divmod(cell, height)
        if flags[n] & _OCCUPIED:
            ok = _may_end(state, f, policy.can_end, x, y, top[y][x])
        else:
            verdict = verdicts.get(cell)
            if verdict is None:
                verdict = table.judge(cell, _may_end(state, f, policy.can_end, x, y, top[y][x]))
            ok = verdict
        if ok:
            costs[(x, y)] = scale.cu(best[n])
            ends[(x, y)] = n
            if n in stops:
                events.append((x, y))
    trail = _Trail(height, top, came, count, live, kept_step)
    return Reach(
        f.id,
        f.pos,
        budget,
        costs,
        frozenset(events),
        trail.nodes(ends),
        trail,
        policy.unit,
    )


class _Trail(_Nodes):
    """`Reach.came` for the table search, in its own numbering: nodes and steps are named when asked."""

    def __init__(
        self,
        height: int,
        top: Any,
        came: dict[int, int],
        count: dict[int, int],
        live: dict[int, Step],
        kept: dict[int, Step],
    ) -> None:
        self.height, self.top, self.came, self.count = height, top, came, count
        self.live, self.kept = live, kept

    def node(self, n: int) -> _Node:
        x, y = divmod(n >> 1, self.height)
        return (x, y, self.top[y][x], n & 1)

    def number(self, node: _Node) -> int:
        return (node[0] * self.height + node[1]) * 2 + node[3]

    def nodes(self, ends: dict[XY, int]) -> dict[XY, _Node]:
        return {cell: self.node(n) for cell, n in ends.items()}

    def __getitem__(self, node: _Node) -> tuple[_Node, Step]:
        n = self.number(node)
        if node[2] != self.top[node[1]][node[0]] or n not in self.came:
            raise KeyError(node)
        edge = self.came[n]
        step = self.live[edge] if edge in self.live else self.kept[edge]
        return self.node(edge // 8), _as_counted(step, self.count[n])

    def __iter__(self) -> Iterator[_Node]:
        return (self.node(n) for n in self.came)

    def __len__(self) -> int:
        return len(self.came)


def waypoints(start: XY, cells: list[XY]) -> list[XY]:
    """The fewest waypoints whose straight lines (geometry.expand) retrace `cells` exactly.

    A move command is written with waypoints; a path found by the search becomes
    a short command that the engine expands back into the very same cells. Each
    line is stretched as far as it keeps following the path; `_Slopes` decides
    each stretch in constant time, so a path of N cells takes time linear in N.
    """
    out: list[XY] = []
    anchor, i = start, 0
    while i < len(cells):
        j = i
        fits = _Slopes(anchor, cells[i])
        while j + 1 < len(cells) and fits.ends_at(cells[j + 1], j + 2 - i):
            j += 1
            fits.add(cells[j], j + 1 - i)
        out.append(cells[j])
        anchor, i = cells[j], j + 1
    return out


class _Slopes:
    """Which straight lines from an anchor pass through the cells seen so far, as `geometry.line` draws them.

    `line(a, b)` puts its t-th cell (of n = max(|dx|, |dy|)) at offset
    sign * floor((2 t |d| + n) / (2 n)) on each axis. A cell at offset k after t
    steps therefore needs |d| / n in [(2k - 1) / 2t, (2k + 1) / 2t), and an offset
    of the sign of d. Each axis keeps the tightest such bounds (as fractions) and
    the signs seen, so whether the line to a new cell retraces every cell before
    it is a constant-time question.
    """

    def __init__(self, anchor: XY, first: XY) -> None:
        self.anchor = anchor
        # Per axis: lower bound (num, den), inclusive; upper bound (num, den), exclusive; signs seen.
        self.low = [(-1, 1), (-1, 1)]
        self.high = [(2, 1), (2, 1)]
        self.signs: list[set[int]] = [set(), set()]
        self.add(first, 1)

    def add(self, cell: XY, t: int) -> None:
        """The line passes through `cell` as its t-th cell."""
        for axis in (0, 1):
            k = cell[axis] - self.anchor[axis]
            if k:
                self.signs[axis].add(1 if k > 0 else -1)
            k = abs(k)
            lo, hi = (2 * k - 1, 2 * t), (2 * k + 1, 2 * t)
            if lo[0] * self.low[axis][1] > self.low[axis][0] * lo[1]:
                self.low[axis] = lo
            if hi[0] * self.high[axis][1] < self.high[axis][0] * hi[1]:
                self.high[axis] = hi

    def ends_at(self, cell: XY, n: int) -> bool:
        """Does the line from the anchor to `cell` take exactly n cells, the ones added, then `cell`?"""
        d = (cell[0] - self.anchor[0], cell[1] - self.anchor[1])
        if max(abs(d[0]), abs(d[1])) != n:
            return False
        for axis in (0, 1):
            size, seen = abs(d[axis]), self.signs[axis]
            if seen and (size == 0 or seen != {1 if d[axis] > 0 else -1}):
                return False
            (lo, lo_den), (hi, hi_den) = self.low[axis], self.high[axis]
            if not (lo * n <= size * lo_den and size * hi_den < hi * n):
                return False
        return True


def warm_up() -> None:
    """Import the compiled search's numpy and scipy now: a server calls this at start-up (issue 29),
    so the first player who taps a fighter does not wait for the import (0.3 to 0.4 s of CPU)."""
    from tabletrail.core.search.reach_arrays import warm

    warm()  # one search on a two-node graph: the lazy parts of scipy's graph search load too
