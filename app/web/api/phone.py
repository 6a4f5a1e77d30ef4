"""The phone view's handlers: a fighter's buttons, its card and the reactions awaited (GET /api/actions).

Thin: the answer is app/web/actions.py's, over the encounter as it stands and the link's role.
"""

from __future__ import annotations

from starlette.responses import JSONResponse, Response
from tabletrail.web import actions
from tabletrail.web.wire import Call, error


def fighter_actions(call: Call) -> Response:
    """What the fighter can do now, in words, each with the engine's verdict; what the table waits for."""
    fid = call.request.query_params.get("fighter", "")
    with call.table.lock:
        enc = call.table.live()
        try:
            return JSONResponse(actions.answer(enc, call.user.role, fid))
        except LookupError as exc:
            return error(404, "unknown fighter", str(exc))
