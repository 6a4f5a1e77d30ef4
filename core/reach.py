"""The reachable area: every cell a fighter's next ordinary move could end on, and its cost.

The table view shades these cells when a fighter is selected. The answer must
match what `walk` would accept, so the search asks the ruleset itself: the
step policy from `Ruleset.walker(state, f)` prices every king's step (terrain,
diagonal rule, mode, occupancy, heights; a `Refusal` means the step is not
allowed), `Ruleset.move_budget(state, f)` caps the total, and the policy's
`can_end` decides which cells a move may stop on. GM rulings on cells count
too: a forbidden cell is never entered.

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

from dataclasses import dataclass, field
from heapq import heappop, heappush

from msgspec.structs import replace
from tabletrail.core.cell_rulings import TEST, forbidden_cells
from tabletrail.core.geometry import ALTERNATING, NEIGHBOURS, XY, Pos, expand
from tabletrail.core.movement import StepPolicy
from tabletrail.core.refusal import Refusal
from tabletrail.core.rulesets import get as get_ruleset
from tabletrail.core.state import EncounterState, Fighter
from tabletrail.events.types import Step

# A search node: a position, and the diagonal parity when it matters (else 0).
_Node = tuple[int, int, int, int]


@dataclass(frozen=True)
class Reach:
    """Where a fighter's next move may end, what it costs, and how to get there."""

    fighter: str
    start: Pos
    budget: int  # what the move may still cost, in hundredths of `unit`
    costs: dict[XY, int]  # every cell the move may end on -> its cheapest cost
    events: frozenset[XY] = frozenset()  # reachable cells where something happens (a check, a stop)
    ends: dict[XY, _Node] = field(default_factory=dict)  # the search node each cell's cost comes from
    came: dict[_Node, tuple[_Node, Step]] = field(default_factory=dict)  # how the search got to a node
    unit: str = ""  # what the costs count: the policy's unit (m, yd, AP)

    def steps(self, cell: XY) -> tuple[Step, ...]:
        """The steps of the cheapest move to `cell`, as the ruleset priced them; KeyError if out of reach."""
        node = self.ends[cell]
        out: list[Step] = []
        while node in self.came:
            node, step = self.came[node]
            out.append(step)
        return tuple(reversed(out))

    def path(self, cell: XY) -> list[XY]:
        """The cells of the cheapest move to `cell` (start excluded); KeyError if it is out of reach."""
        return [(s.to[0], s.to[1]) for s in self.steps(cell)]


def reachable(state: EncounterState, fighter_id: str) -> dict[XY, int]:
    """Every cell the fighter's next ordinary move may end on, with its cheapest cost in centi-units."""
    return reach(state, fighter_id).costs


def reach(state: EncounterState, fighter_id: str, *, shortcut: bool = True) -> Reach:
    """The reachable area with the cheapest steps to each cell. KeyError names an unknown fighter.

    shortcut=False prices every step, even into cells already settled (see `_search`).
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

    # The shortcut (see _search) needs the fighter to start on its cell's surface.
    on_surface = f.pos[2] == state.grid.top[f.pos[1]][f.pos[0]]
    found = _search(state, f, policy, budget, shortcut=True) if shortcut and on_surface else None
    if found is None:
        found = _search(state, f, policy, budget, shortcut=False)
    best, came, stops = found

    costs: dict[XY, int] = {}
    ends: dict[XY, _Node] = {}
    can_end = policy.can_end
    for node in sorted(best, key=best.__getitem__):
        cell = (node[0], node[1])
        if cell in costs or cell == (f.pos[0], f.pos[1]):
            continue
        moved = state.with_fighter(replace(f, pos=(node[0], node[1], node[2])))
        try:
            can_end(moved, moved.fighter(f.id))  # type: ignore[arg-type]
        except Refusal:
            continue
        costs[cell] = best[node]
        ends[cell] = node
    events = frozenset(cell for cell, node in ends.items() if node in stops)
    return Reach(f.id, f.pos, budget, costs, events, ends, came, policy.unit)


def _search(
    state: EncounterState, f: Fighter, policy: StepPolicy, budget: int, *, shortcut: bool
) -> tuple[dict[_Node, int], dict[_Node, tuple[_Node, Step]], set[_Node]] | None:
    """Dijkstra from the fighter's position; every step priced by the policy, never above the budget.

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

    start: _Node = (f.pos[0], f.pos[1], f.pos[2], 0)
    best: dict[_Node, int] = {start: 0}
    came: dict[_Node, tuple[_Node, Step]] = {}
    done: set[_Node] = set()
    settled: set[tuple[int, int, int]] = set()  # (x, y, parity) of done nodes, for the shortcut
    stops: set[_Node] = set()  # nodes the search may not leave
    heap: list[tuple[int, _Node, int]] = [(0, start, 0)]
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
            try:
                step = price(state, f, here, (tx, ty), parity)
            except Refusal:
                continue  # the rules forbid this step
            if shortcut and (step.to[2] != top[ty][tx] or (keep_parity and step.parity != counted)):
                return None
            total = cost + step.cost
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


def waypoints(start: XY, cells: list[XY]) -> list[XY]:
    """The fewest waypoints whose straight lines (geometry.expand) retrace `cells` exactly.

    A move command is written with waypoints; a path found by the search becomes
    a short command that the engine expands back into the very same cells.
    """
    out: list[XY] = []
    anchor, i = start, 0
    while i < len(cells):
        j = i
        # Stretch the straight line as far as it keeps following the path.
        while j + 1 < len(cells) and expand(anchor, [cells[j + 1]]) == cells[i : j + 2]:
            j += 1
        out.append(cells[j])
        anchor, i = cells[j], j + 1
    return out
