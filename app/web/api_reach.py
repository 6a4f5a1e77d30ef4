"""The reachable area's handler: the cells a fighter's next move may end on, their cost and route,
the band one more action would reach, and why the fighter can't move now."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse, Response
from tabletrail.core.decide import decide
from tabletrail.core.geometry import NEIGHBOURS
from tabletrail.core.reach import Reach, reach, waypoints
from tabletrail.core.refusal import Rejection
from tabletrail.core.rulesets import get as get_ruleset
from tabletrail.core.state import EncounterState, Fighter
from tabletrail.syntax import parse
from tabletrail.web import views
from tabletrail.web.wire import Call, error


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
    return JSONResponse(
        {
            "version": version,
            "fighter": fid,
            "from": list(f.pos),
            "budget": area.budget,
            "unit": area.unit,
            "cells": [[x, y, cost] for (x, y), cost in sorted(area.costs.items())],
            # The cheapest route to each cell, as [x, y, running cost] steps: the drag ruler's.
            "routes": {f"{x},{y}": _route(area, (x, y)) for (x, y) in area.costs},
            "events": sorted([x, y] for x, y in area.events),
            "blocked": blocked(state, area),
            "further": further(state, f, area),
        }
    )


def _route(area: Reach, cell: tuple[int, int]) -> list[list[int]]:
    total, out = 0, []
    for step in area.steps(cell):
        total += step.cost
        out.append([step.to[0], step.to[1], total])
    return out


def further(state: EncounterState, f: Fighter, area: Reach) -> dict[str, Any] | None:
    """The ruler's middle band: cells past this move's budget that one more action would reach.

    None when the ruleset has no such action or none is left (`Ruleset.further_budget`).
    Dropping a token there is refused like any move past its budget; the band tells why.
    """
    extra, action = get_ruleset(state.ruleset).further_budget(state, f)
    if extra <= 0 or area.budget <= 0:
        return None
    wide = reach(state, f.id, extra=extra)
    beyond = {cell: cost for cell, cost in wide.costs.items() if cell not in area.costs}
    return {
        "budget": wide.budget,
        "action": action,
        "cells": [[x, y, cost] for (x, y), cost in sorted(beyond.items())],
        "routes": {f"{x},{y}": _route(wide, (x, y)) for (x, y) in beyond},
    }


def blocked(state: EncounterState, area: Reach) -> dict[str, Any] | None:
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
        return {**views.refusal(get_ruleset(state.ruleset), result), "tried": text}
    return None
