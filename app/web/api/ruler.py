"""The free ruler's handler (issue 38, item 4): two cells, the distance between them in the ruleset's
unit, and, for a fighter, what going there would cost it now.

Anyone with a link may measure (a watcher too): it reads what the board already shows. The distance is
the ruleset's own (`core.board.geometry.distance` under its `diagonal` setting); a fighter's cost is its
reachable area's (core/search/reach.py), the number the board shades, so the ruler never prices a way the
engine would price otherwise.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse, Response
from tabletrail.core.board.geometry import distance, parse_cell
from tabletrail.core.board.units import fmt
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.search.reach import reach
from tabletrail.web.api.reach import blocked, further
from tabletrail.web.wire import Call, error


def _cell(call: Call, name: str, width: int, height: int) -> tuple[int, int] | Response:
    """One end of the ruler: 400 for what is no cell, 404 for a cell this map doesn't have."""
    text = call.request.query_params.get(name, "")
    try:
        cell = parse_cell(text)
    except ValueError as exc:
        return error(400, "bad request", f"ruler: {name}: {exc}")
    x, y = cell[0], cell[1]
    if not (0 <= x < width and 0 <= y < height):
        return error(404, "not found", f"ruler: {name}: {x},{y} is off the {width} x {height} map")
    return x, y


def ruler(call: Call) -> Response:
    """`?from=x,y&to=x,y[&fighter=ID]`: the distance, and a fighter's cost to `to` now (the fighter
    named, else the one standing on `from`, if any)."""
    with call.table.lock:
        state = call.table.live().state  # immutable: read outside the lock below
    grid = state.grid
    a = _cell(call, "from", grid.width, grid.height)
    if isinstance(a, Response):
        return a
    b = _cell(call, "to", grid.width, grid.height)
    if isinstance(b, Response):
        return b
    rs = get_ruleset(state.ruleset)
    length = distance(state.settings.get("diagonal", "euclidean"), a, b)
    out: dict[str, Any] = {
        "from": list(a),
        "to": list(b),
        "distance": length,
        "unit": rs.unit,
        "words": f"{fmt(length)} {rs.unit} from {a[0]},{a[1]} to {b[0]},{b[1]}",
    }
    fid = call.request.query_params.get("fighter")
    if fid is not None and state.fighter(fid) is None:
        known = ", ".join(f.id for f in state.fighters)
        return error(404, "unknown fighter", f"ruler: no fighter {fid!r} (fighters: {known})")
    f = state.fighter(fid) if fid else next((f for f in state.fighters if tuple(f.pos[:2]) == a), None)
    if f is not None:
        out["fighter"] = _cost(state, f, b)
    return JSONResponse(out)


def _cost(state: Any, f: Any, to: tuple[int, int]) -> dict[str, Any]:
    """What moving there would cost the fighter now, in words: its reachable area's number, the band one
    more action reaches, or why it can't go."""
    area = reach(state, f.id)
    row: dict[str, Any] = {"id": f.id, "name": f.name, "unit": area.unit, "budget": area.budget}
    if to == tuple(f.pos[:2]):
        return {**row, "cost": 0, "words": f"{f.name} stands there"}
    if to in area.costs:
        cost = area.costs[to]
        left = area.budget - cost
        return {
            **row,
            "cost": cost,
            "words": f"{f.name}: {fmt(cost)} {area.unit} now, {fmt(left)} {area.unit} left after",
        }
    more = further(state, f, area)
    if more is not None:
        beyond = {(x, y): cost for x, y, cost in more.cells}
        if to in beyond:
            return {
                **row,
                "cost": beyond[to],
                "words": f"{f.name}: {fmt(beyond[to])} {area.unit}, with one more action ({more.action})",
            }
    why = blocked(state, area)
    reason = why.reason if why is not None else "out of reach of its next move"
    return {**row, "cost": None, "words": f"{f.name} can't get there now: {reason}"}
