"""The audit's handlers: the event list with rule ids, and the explanation of one event."""

from __future__ import annotations

import gzip

import anyio
import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from tabletrail.encounter import Encounter
from tabletrail.web import redact, views
from tabletrail.web.numbers import quoted, whole
from tabletrail.web.table import EVENTS, EVENTS_GZ, Encoded
from tabletrail.web.wire import Call, error


async def events(call: Call) -> Response:
    """Every event of the log, said as `do` prints it, with its rule ids and status.

    Every page asks for it after each move, and it grows with the log (800 KB at 5,000 events): it
    is made once per side and version, gzipped once for the pages that accept it (about 22 times
    smaller), and answered as the board is (api_board.state), from what the worker heard."""
    bad = call.bad_seen()
    if bad is not None:
        return bad
    gzipped = accepts_gzip(call.request)
    key = Encoded(EVENTS_GZ if gzipped else EVENTS, call.user.role)
    known = call.heard_version()
    made = call.table.encoded_at(known, key) if known is not None else None
    if made is None:
        made = await anyio.to_thread.run_sync(_events, call, known, gzipped)
    headers = {"Vary": "Accept-Encoding"} | ({"Content-Encoding": "gzip"} if gzipped else {})
    return Response(made, media_type="application/json", headers=headers)


def _events(call: Call, heard: int | None, gzipped: bool) -> bytes:
    with call.table.lock:
        enc = call.table.live(heard)
        return listed(call, enc, gzipped)


def listed(call: Call, enc: Encounter, gzipped: bool) -> bytes:
    """The event list of `enc` as `call`'s side reads it, made (gzipped, or not) once per version.

    Only what is sent is kept: a long log's list is large, and every table of a worker keeps its own."""
    role, version = call.user.role, len(enc.records)

    def plain() -> bytes:
        rows = redact.records(call.user, enc, views.records(enc, role))
        return msgspec.json.encode({"version": version, "events": rows})

    def zipped() -> bytes:
        return gzip.compress(plain(), 6)

    if gzipped:
        return call.table.encoded_once(enc, version, Encoded(EVENTS_GZ, role), zipped)
    return call.table.encoded_once(enc, version, Encoded(EVENTS, role), plain)


def accepts_gzip(request: Request) -> bool:
    """Whether the request's Accept-Encoding takes gzip (named, and not with q=0)."""
    for item in request.headers.get("accept-encoding", "").split(","):
        name, _, params = item.partition(";")
        if name.strip().lower() == "gzip":
            q = params.strip().removeprefix("q=").strip()
            try:
                return not q or float(q) > 0
            except ValueError:
                return False
    return False


def explain(call: Call) -> Response:
    """Why one event happened: the rules, the steps, the checks, the fighters before and after."""
    with call.table.lock:
        enc = call.table.live()
        raw = call.request.path_params["seq"]
        seq = whole(raw)
        if seq is None or not 1 <= seq <= len(enc.records):
            return error(404, "not found", f"no event {quoted(raw)} (the log has 1 to {len(enc.records)})")
        return JSONResponse(redact.explain(call.user, enc, views.explain(enc, seq)))
