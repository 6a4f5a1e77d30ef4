"""The audit's handlers: the event list with rule ids, and the explanation of one event."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response
from tabletrail.web import views
from tabletrail.web.wire import Call, error


def events(call: Call) -> Response:
    """Every event of the log, said as `do` prints it, with its rule ids and status."""
    with call.table.lock:
        enc = call.table.live()
        return JSONResponse({"version": len(enc.records), "events": views.records(enc, call.user.role)})


def explain(call: Call) -> Response:
    """Why one event happened: the rules, the steps, the checks, the fighters before and after."""
    with call.table.lock:
        enc = call.table.live()
        raw = call.request.path_params["seq"]
        if not raw.isdigit() or not 1 <= int(raw) <= len(enc.records):
            return error(404, "not found", f"no event {raw} (the log has 1 to {len(enc.records)})")
        return JSONResponse(views.explain(enc, int(raw)))
