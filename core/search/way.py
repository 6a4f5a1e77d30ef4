"""The way to a cell a move can't reach, and what shuts it (issue 28, item 5).

When a move is refused, the refusal should name what really stands between the
fighter and the cell it was sent to: not the first wall on a straight line, but
the closed door, the fighter, the GM's forbidden cell or the budget on the way
the engine would take. `way_to` finds that way: the cheapest path of king's
steps, priced by the ruleset's own step policy (as the reachable area prices
them), that may pass up to MOST_STOPS things that stop a step (a shut door, a
step the policy refuses, a forbidden cell), each named with its rule. A wall
is never passed (nothing opens it), nor a corner a diagonal would cut.

It searches twice, heading for the target first (A*: at least one unit a cell
is left): first within the budget, taking the way that passes the fewest stops
(then the cheapest); when no way fits the budget, the first way it finds at all,
so the budget is named with that way's cost. The second search looks at
MOST_NODES positions at most, so a refusal on a huge map stays quick; past that
there is nothing to name and the refusal says no more than it did.
"""

from __future__ import annotations

from dataclasses import dataclass
from heapq import heappop, heappush
from typing import Any

from tabletrail.core.board.geometry import ALTERNATING, NEIGHBOURS, XY
from tabletrail.core.board.refusal import Refusal
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.board.units import CU, fmt
from tabletrail.core.board.walls import WALLS, step_blocked
from tabletrail.core.engine.cell_rulings import FORBID, forbidden
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.search.reach import waypoints
from tabletrail.core.search.step_table import Scale

MOST_STOPS = 2  # things that stop a step a way may pass, to name the first of them
MOST_NODES = 400  # positions the search past the budget looks at before it gives up


@dataclass(frozen=True)
class Stop:
    """Something on the way that stops a step: the cell it bars, its rule, in words."""

    at: XY
    rule: str
    words: str


@dataclass(frozen=True)
class Way:
    """The way the engine would take to `cells[-1]`, what it costs and what shuts it."""

    start: XY
    cells: tuple[XY, ...]  # the start excluded; none when no way at all leads there (walled off)
    cost: int  # centi-units; a step that is stopped counts as one plain step
    budget: int
    stops: tuple[Stop, ...]
    unit: str

    @property
    def open(self) -> bool:
        """Nothing on the way stops a step, and it fits the budget."""
        return not self.stops and self.cost <= self.budget

    def cause(self) -> str:
        """What shuts the way, in words: its first stop, else the budget; "" for an open way."""
        if not self.cells:
            return "no way leads there"
        if self.stops:
            return self.stops[0].words
        if self.cost > self.budget:
            return (
                f"the cheapest way to {_cell(self.cells[-1])} costs {fmt(self.cost)} {self.unit}, "
                f"but only {fmt(self.budget)} {self.unit} are left"
            )
        return ""


def way_to(
    state: EncounterState,
    fighter_id: str,
    target: XY,
    *,
    policy: Any = None,
    budget: int | None = None,
    extra: int = 0,
) -> Way | None:
    """The way to `target` and what shuts it; a way of no cells when none leads there at all (every
    position it could pass was looked at); None when there is nothing to say (no step policy, the
    target is where the fighter stands, or the way is too far to look for: MOST_NODES).

    `policy` prices the steps (the ruleset's `walker` when None) and `budget` caps the
    first search (the ruleset's `move_budget` plus `extra` when None).
    """
    f = state.fighter(fighter_id)
    if f is None or not state.grid.inside(*target) or (f.pos[0], f.pos[1]) == tuple(target):
        return None
    rs = get_ruleset(state.ruleset)
    policy = policy if policy is not None else rs.walker(state, f)
    if policy is None:
        return None
    if budget is None:
        budget = max(0, rs.move_budget(state, f)) + extra
    target = (target[0], target[1])
    return _search(state, f, policy, target, budget, bounded=True) or _search(
        state, f, policy, target, budget, bounded=False
    )


def _search(
    state: EncounterState, f: Fighter, policy: Any, target: XY, budget: int, *, bounded: bool
) -> Way | None:
    """Dijkstra over (x, y, diagonal parity, stops passed); bounded: within the budget, and the way
    with the fewest stops wins; unbounded: the first way found (the cheapest), MOST_NODES at most.

    Lengths are exact (a euclidean diagonal is √2): costs are `Scale` keys (core/search/step_table.py),
    rounded once for the Way."""
    grid = state.grid
    scale = Scale.safe_for(state, budget, 0)
    whole, key_of = scale.whole, scale.key
    limit = budget * whole
    edges = grid.edges
    walled = edges is not None and edges.steps
    width, height, top = grid.width, grid.height, grid.top
    keep_parity = state.settings.get("diagonal") == ALTERNATING
    ruled = bool(state.marks.get(FORBID))
    start = (f.pos[0], f.pos[1], 0, 0)
    tx0, ty0 = target

    def ahead(x: int, y: int) -> int:
        """What is left at least: a step a cell (the search heads for the target first)."""
        return max(abs(tx0 - x), abs(ty0 - y)) * CU * whole

    if bounded and ahead(*start[:2]) > limit:
        return None  # not a step of it fits: the budget is the cause, named by the search past it
    best: dict[tuple[int, int, int, int], int] = {start: 0}
    came: dict[tuple[int, int, int, int], tuple[tuple[int, int, int, int], Stop | None]] = {}
    heap: list[tuple[int, int, tuple[int, int, int, int]]] = [(ahead(*start[:2]), 0, start)]
    found: dict[int, tuple[int, tuple[int, int, int, int]]] = {}  # stops passed -> (cost, node) at the target
    done: set[tuple[int, int, int, int]] = set()
    while heap:
        _, cost, node = heappop(heap)
        if node in done:
            continue
        done.add(node)
        x, y, parity, passed = node
        if (x, y) == target:
            found.setdefault(passed, (cost, node))
            if not bounded or passed == 0:
                break
            continue
        if not bounded and len(done) > MOST_NODES:
            return None  # too far to look: nothing to name
        for dx, dy in NEIGHBOURS:
            tx, ty = x + dx, y + dy
            if not (0 <= tx < width and 0 <= ty < height):
                continue
            stop = None
            if walled:
                why = step_blocked(state, (x, y), (tx, ty))
                if why:
                    assert edges is not None
                    if dx and dy:
                        continue  # a diagonal may not cut the corner: the way goes straight
                    n = edges.number((x, y), (tx, ty))
                    if edges.walled(n):
                        continue  # a wall: nothing opens it
                    name = edges.doors[n]
                    stop = Stop((tx, ty), WALLS, f"the door at {name} is {state.doors.get(name, 'closed')}")
            if stop is None and ruled:
                ruling = forbidden(state, tx, ty, f)
                if ruling:
                    stop = Stop((tx, ty), ruling[2], f"the GM ruled {tx},{ty} can't be crossed: {ruling[3]}")
            step_parity = parity + 1 if dx and dy else parity
            try:
                step = policy.price(state, f, (x, y, top[y][x]), (tx, ty), parity)
                price, step_parity = key_of(step), step.parity
            except Refusal as exc:
                price = CU * whole
                stop = stop or Stop((tx, ty), exc.rule, exc.reason)
            total = cost + price
            if bounded and total > limit:
                continue
            more = passed + (stop is not None)
            if more > MOST_STOPS:
                continue
            nxt = (tx, ty, step_parity & 1 if keep_parity else 0, more)
            if total >= best.get(nxt, total + 1):
                continue
            best[nxt] = total
            came[nxt] = (node, stop)
            heappush(heap, (total + ahead(tx, ty), total, nxt))
    if not found:
        # Bounded: none within the budget (the search past it will tell). Unbounded: every position a
        # way could pass was looked at, and none leads there: a way with no cells says so.
        return None if bounded else Way((f.pos[0], f.pos[1]), (), 0, budget, (), policy.unit)
    cost, node = found[min(found)]
    cells: list[XY] = []
    stops: list[Stop] = []
    while node in came:
        before, stop = came[node]
        cells.append((node[0], node[1]))
        if stop is not None:
            stops.append(stop)
        node = before
    return Way(
        (f.pos[0], f.pos[1]),
        tuple(reversed(cells)),
        scale.cu(cost),
        budget,
        tuple(reversed(stops)),
        policy.unit,
    )


def _cell(c: tuple[int, ...]) -> str:
    return f"{c[0]},{c[1]}"


def way_round(state: EncounterState, way: tuple[Any, str, tuple[int, ...], int]) -> str:
    """'; the way round is shut: the door at 5,2|6,2 is closed', or what else the way there says.

    What a wall's refusal adds (core/board/walls.refuse_step), registered there by core/decide.py: the
    walls sit a layer under this search and do not import it.
    """
    policy, fighter_id, target, budget = way
    found = way_to(state, fighter_id, (target[0], target[1]), policy=policy, budget=budget)
    if found is None:
        return ""  # too far to look for a way: the wall is all there is to say
    if not found.cells:
        return f"; no way round reaches {_cell(target)}"
    if found.open:
        by = " ".join(_cell(c) for c in waypoints(found.start, list(found.cells)))
        return f"; the way round is open: by {by} ({fmt(found.cost)} {found.unit})"
    return f"; the way round is shut: {found.cause()}"
