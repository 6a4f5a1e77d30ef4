"""The GM's table handlers (issue 38, item 4): what the "Add fighter" form is made from.

The form asks for a newcomer the way the builder asks for a scenario's fighter: the ruleset's own
stat catalogue (each stat with its unit, its range and the document's words), the sizes the scenario
reader knows, the sides at the table and the turn order a newcomer may enter. What the GM fills in is
sent as a `join` ruling through `/api/do` (core/engine/rulings.py), so the engine's reader checks it and a
refusal names the field; removing a fighter (`leave`) and dragging a token by hand (`place`) go the
same way. Only the GM's link reaches this.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse, Response
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import Ruleset
from tabletrail.events.limits import MAX_FIGHTERS, MAX_NUMBER
from tabletrail.events.scenario_spec import SIZES
from tabletrail.web.wire import Call


def stat_rows(rs: Ruleset) -> list[dict[str, Any]]:
    """A ruleset's stats as a form shows them: name, the document's words, default, unit and range."""
    return [
        {
            "name": s.name,
            "doc": s.doc,
            "default": s.default,
            "unit": rs.unit if s.length else "",
            "min": -MAX_NUMBER if s.signed else 0,
            "max": MAX_NUMBER,
        }
        for s in rs.stats
    ]


def roster(call: Call) -> Response:
    """The "Add fighter" form's makings: the stats, sizes, sides and the turn order as it stands."""
    with call.table.lock:
        state = call.table.live().state
    rs = get_ruleset(state.ruleset)
    names = {f.id: f.name for f in state.fighters}
    return JSONResponse(
        {
            "ruleset": rs.id,
            "unit": rs.unit,
            "stats": stat_rows(rs),
            "sizes": list(SIZES),
            "sides": sorted({f.side for f in state.fighters}),
            "order": [{"id": fid, "name": names.get(fid, fid)} for fid in state.turn.order],
            "room": MAX_FIGHTERS - len(state.fighters),
        }
    )
