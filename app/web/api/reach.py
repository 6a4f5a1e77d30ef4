"""The reachable area's handler: the cells a fighter's next move may end on, their cost and route,
the band one more action would reach, and why the fighter can't move now."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from starlette.responses import Response
from tabletrail.core.board.geometry import NEIGHBOURS, XY
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.board.units import rounded
from tabletrail.core.decide import decide
from tabletrail.core.engine.movement import exact_length
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.search.reach import Reach, reach, waypoints
from tabletrail.service.syntax import parse
from tabletrail.web import views
from tabletrail.web.answers import Blocked, Further, ReachArea, Tree
from tabletrail.web.wire import Call, answer, error


def reachable(call: Call) -> Response:
    """The reachable area of `?fighter=ID`, as the board shades it."""
    fid = call.request.query_params.get("fighter", "")
    with call.table.lock:
        enc = call.table.live()
        version, state = len(enc.records), enc.state
    f = state.fighter(fid)  # the state is immutable: safe to read outside the lock
    if f is None:
        known = ", ".join(x.id for x in state.fighters)
        return error(404, "unknown fighter", f"reach: no fighter {fid!r} (fighters: {known})")
    area = reach(state, fid)
    return answer(
        ReachArea(
            version=version,
            fighter=fid,
            from_=list(f.pos),
            budget=area.budget,
            unit=area.unit,
            cells=[[x, y, cost] for (x, y), cost in sorted(area.costs.items())],
            **routes(area, area.costs),
            events=[[x, y] for x, y in sorted(area.events)],
            blocked=blocked(state, area),
            further=further(state, f, area),
        )
    )


ROUTE_STEPS = 20_000  # the old `routes` field (every route written out) is sent while it holds no more


def routes(area: Reach, cells: Iterable[XY]) -> dict[str, Any]:
    """The cheapest route to each cell, as one tree of steps (the drag ruler's), each step once.

    `tree.steps[i]` is [x, y, running cost, parent]: parent is the index of the step
    before it (-1: the first step, from the fighter's cell); `tree.ends["x,y"]` is
    the step the cell's route ends on. Its size is the number of search nodes the
    routes pass through, at most the area's, however long the routes. While the
    routes written out in full would hold no more than ROUTE_STEPS steps they are
    also sent as `routes` ({"x,y": [[x, y, running cost], ...]}), the field the page
    read before the tree; past that only the tree is.
    """
    fast = getattr(area.came, "tree", None)
    # the compiled search's trail finds the whole tree at once (core/search/reach_arrays.py)
    if fast is not None:
        return _tree_at_once(fast, area, list(cells))
    index: dict[Any, int] = {}
    steps: list[list[int]] = []
    depth: list[int] = []
    exact: list[tuple[int, int]] = []  # each step's running length, exact (core/board/units.py)
    ends: dict[str, int] = {}
    came = area.came
    for cell in cells:
        node = area.ends[cell]
        chain = []
        while node not in index:
            try:
                before, step = came[node]  # asked once a node: a compiled search names it only when asked
            except KeyError:  # the fighter's own cell: the routes start here
                break
            chain.append((node, step))
            node = before
        parent = index.get(node, -1)
        for n, step in reversed(chain):
            whole, root2 = exact[parent] if parent >= 0 else (0, 0)
            more_whole, more_root2 = exact_length((step,))
            exact.append((whole + more_whole, root2 + more_root2))
            total = rounded(*exact[-1])  # the exact running length, rounded once
            index[n] = len(steps)
            steps.append([step.to[0], step.to[1], total, parent])
            depth.append(depth[parent] + 1 if parent >= 0 else 1)
            parent = index[n]
        ends[f"{cell[0]},{cell[1]}"] = parent
    out: dict[str, Any] = {"tree": Tree(steps=steps, ends=ends)}
    if sum(depth[i] for i in ends.values() if i >= 0) <= ROUTE_STEPS:
        out["routes"] = {key: _route_of(steps, i) for key, i in ends.items()}
    return out


def _tree_at_once(tree: Any, area: Reach, cells: list[XY]) -> dict[str, Any]:
    """`routes` from a trail that builds the tree in one pass: the same routes and running costs."""
    steps, at = tree(cells)
    ends = {f"{x},{y}": i for (x, y), i in zip(cells, at, strict=True)}
    out: dict[str, Any] = {"tree": Tree(steps=steps, ends=ends)}
    if len(ends) <= ROUTE_STEPS:  # each route holds a step at least: only then may they all be written out
        depth: list[int] = []
        for step in steps:
            depth.append(depth[step[3]] + 1 if step[3] >= 0 else 1)
        if sum(depth[i] for i in ends.values() if i >= 0) <= ROUTE_STEPS:
            out["routes"] = {key: _route_of(steps, i) for key, i in ends.items()}
    return out


def _route_of(steps: list[list[int]], i: int) -> list[list[int]]:
    out = []
    while i >= 0:
        x, y, total, i = steps[i]
        out.append([x, y, total])
    return out[::-1]


def further(state: EncounterState, f: Fighter, area: Reach) -> Further | None:
    """The ruler's middle band: cells past this move's budget that one more action would reach.

    None when the ruleset has no such action or none is left (`Ruleset.further_budget`).
    Dropping a token there is refused like any move past its budget; the band tells why.
    """
    extra, action = get_ruleset(state.ruleset).further_budget(state, f)
    if extra <= 0 or area.budget <= 0:
        return None
    wide = reach(state, f.id, extra=extra)
    beyond = {cell: cost for cell, cost in wide.costs.items() if cell not in area.costs}
    return Further(
        budget=wide.budget,
        action=action,
        cells=[[x, y, cost] for (x, y), cost in sorted(beyond.items())],
        **routes(wide, beyond),
    )


def blocked(state: EncounterState, area: Reach) -> Blocked | None:
    """Why the fighter can't move now, or None if it can (or nothing tells).

    The step policy prices the cells; whether the fighter may start a move at all
    (its turn, a reaction the encounter waits for) is the ruleset's to say. The
    dry run of the cheapest plain move asks it. With nothing left to spend (an
    object, a spent budget), a step onto an open neighbouring cell asks why.
    """
    start = (area.start[0], area.start[1])
    plain = [c for c in area.costs if c not in area.events]
    if plain:
        cell = min(plain, key=lambda c: (area.costs[c], c))
        text = f"move {area.fighter} " + " ".join(f"{x},{y}" for x, y in waypoints(start, area.path(cell)))
    elif area.budget == 0:
        grid = state.grid
        near = [
            (start[0] + dx, start[1] + dy)
            for dx, dy in NEIGHBOURS
            if grid.inside(start[0] + dx, start[1] + dy) and not grid.blocked(start[0] + dx, start[1] + dy)
        ]
        if not near:
            return None
        text = f"move {area.fighter} {near[0][0]},{near[0][1]}"
    else:
        return None  # something to spend, but every way is shut: the board shows why
    result = decide(state, parse(text, "reach"))
    if isinstance(result, Rejection) and not views.needs_roll(result):
        said = views.refusal(get_ruleset(state.ruleset), result)
        return Blocked(
            rule=said["rule"],
            enforce=said["enforce"],
            reason=said["reason"],
            needs_roll=said["needs_roll"],
            tried=text,
        )
    return None
