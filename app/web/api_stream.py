"""The live stream: server-sent events telling every open page the log's version whenever it changes.

Each `version` event's SSE id is the version, so a reconnecting browser sends it
back (Last-Event-ID) and is told only of a newer one. A stream ends after
STREAM_SECONDS and the browser reconnects (so servers stop cleanly); a link
revoked meanwhile ends its stream at once (`denied`), and a database restarting
is said (`unavailable`) while the page waits.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import AsyncIterator

import anyio
from starlette.responses import Response, StreamingResponse
from tabletrail.events.errors import Unavailable
from tabletrail.web.invites import Denied
from tabletrail.web.wire import Call, error, token_of

POLL_SECONDS = 0.2  # how often a live stream looks at the log: well inside the 1 s promise
STREAM_SECONDS = 30.0  # a stream ends after this and the browser reconnects (servers stop cleanly)
KEEPALIVE_SECONDS = 10.0


def resumed(last_event_id: str | None) -> int:
    """The version a reconnecting EventSource already has: its Last-Event-ID (each `version` event's id is
    the version). Anything else (none, or not a number) says nothing is known: -1, so it is told at once."""
    return int(last_event_id) if last_event_id is not None and last_event_id.strip().isdigit() else -1


async def stream(call: Call) -> Response:
    """`event: version` at once and at every change, unless the client already has that version: `?last=N`,
    or the Last-Event-ID header a reconnecting EventSource sends (so a client resumes without missing a
    version, or being told one twice)."""
    table, changes = call.table, call.changes
    token = token_of(call.request, query=True)  # EventSource can't set a header
    try:
        seconds = float(call.request.query_params.get("seconds", STREAM_SECONDS))
        last = int(call.request.query_params.get("last", resumed(call.request.headers.get("last-event-id"))))
    except ValueError:
        return error(400, "bad request", "stream: seconds and last must be numbers")
    if not math.isfinite(seconds) or seconds < 0:  # a NaN would never end the stream
        return error(400, "bad request", f"stream: seconds must be a number from 0 up, got {seconds}")

    def look() -> int | Denied | Unavailable:
        try:
            table.invites.check(token)  # a link revoked meanwhile ends its stream at once
            return table.version()
        except Denied as exc:
            return exc
        except Unavailable as exc:  # the database is restarting: the page is told, and waits
            return exc

    async def updates() -> AsyncIterator[str]:
        seen = last
        quiet = time.monotonic()
        end = time.monotonic() + min(seconds, STREAM_SECONDS)
        yield "retry: 300\n\n"
        while True:
            woken = changes() if changes is not None else None  # taken before looking: none missed
            version = await anyio.to_thread.run_sync(look)
            if isinstance(version, Denied):
                said = {"status": version.status, "message": version.reason}
                yield f"event: denied\ndata: {json.dumps(said)}\n\n"
                return
            if isinstance(version, Unavailable):
                yield f"event: unavailable\ndata: {json.dumps({'message': str(version)})}\n\n"
                version = seen
            if version != seen:
                seen = version
                quiet = time.monotonic()
                yield f"event: version\nid: {version}\ndata: {json.dumps({'version': version})}\n\n"
            elif time.monotonic() - quiet > KEEPALIVE_SECONDS:
                quiet = time.monotonic()
                yield ": still here\n\n"
            if time.monotonic() >= end or table.closing.is_set():
                return
            if woken is None:
                await anyio.sleep(POLL_SECONDS)
            else:
                with anyio.move_on_after(min(KEEPALIVE_SECONDS, max(end - time.monotonic(), 0))):
                    await woken.wait()

    return StreamingResponse(updates(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})
