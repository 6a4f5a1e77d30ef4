"""The audit's handlers: the event list with rule ids, and the explanation of one event."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response
from tabletrail.web import redact, views
from tabletrail.web.wire import Call, error


def events(call: Call) -> Response:
    """Every event of the log, said as `do` prints it, with its rule ids and status."""
    with call.table.lock:
        enc = call.table.live()
        rows = redact.records(call.user, enc, views.records(enc, call.user.role))
        return JSONResponse({"version": len(enc.records), "events": rows})


def explain(call: Call) -> Response:
    """Why one event happened: the rules, the steps, the checks, the fighters before and after."""
    with call.table.lock:
        enc = call.table.live()
        raw = call.request.path_params["seq"]
        if not raw.isdigit() or not 1 <= int(raw) <= len(enc.records):
            return error(404, "not found", f"no event {raw} (the log has 1 to {len(enc.records)})")
        return JSONResponse(redact.explain(call.user, enc, views.explain(enc, int(raw))))
