"""The live stream: server-sent events telling every open page the log's version whenever it changes.

Each `version` event's SSE id is the version, so a reconnecting browser sends it
back (Last-Event-ID) and is told only of a newer one. A stream ends after
STREAM_SECONDS and the browser reconnects (so servers stop cleanly); a link
revoked meanwhile ends its stream at once (`denied`), and a database restarting
is said (`unavailable`) while the page waits.

A page told of version W asks for what changed since the version its event list
holds (`/api/events?after=V&seen=W`): the version told is where the answer must
reach, the one held where it starts, so a version the page was never told of (two
moves between looks) is still in what it is sent.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import AsyncIterator

import anyio
from starlette.responses import Response, StreamingResponse
from tabletrail.events.errors import Unavailable
from tabletrail.web.invites import Denied
from tabletrail.web.numbers import decimal, quoted, whole
from tabletrail.web.wire import Call, error, token_of

POLL_SECONDS = 0.2  # how often a live stream looks at the log: well inside the 1 s promise
# A stream ends after STREAM_SECONDS, less up to a quarter (so a hall of pages opened together does not
# reconnect together), and the browser reconnects: servers can stop cleanly, and a reconnect is cheap.
STREAM_SECONDS = 120.0
KEEPALIVE_SECONDS = 20.0  # a comment line this often: well inside a reverse proxy's usual 60 s idle cut


UNKNOWN = -1  # `?last=` when a client has no version yet: it is told the version at once


def resumed(last_event_id: str | None) -> int:
    """The version a reconnecting EventSource already has: its Last-Event-ID (each `version` event's id is
    the version). Anything else (none, or not a number) says nothing is known: -1, so it is told at once."""
    known = whole(last_event_id.strip()) if last_event_id is not None else None
    return known if known is not None else UNKNOWN


async def stream(call: Call) -> Response:
    """`event: version` at once and at every change, unless the client already has that version: `?last=N`,
    or the Last-Event-ID header a reconnecting EventSource sends (so a client resumes without missing a
    version, or being told one twice)."""
    table, heard = call.table, call.heard
    token = token_of(call.request, query=True)  # EventSource can't set a header
    query = call.request.query_params
    asked, given = query.get("seconds"), query.get("last")
    seconds = decimal(asked) if asked is not None else STREAM_SECONDS * random.uniform(0.75, 1.0)
    if seconds is None:  # (a NaN would never end the stream: refused with the rest)
        said = f"stream: seconds: expected a number from 0 up, got {quoted(asked or '')}"
        return error(400, "bad request", said)
    if given is None:
        last: int | None = resumed(call.request.headers.get("last-event-id"))
    else:
        last = UNKNOWN if given == str(UNKNOWN) else whole(given)
    if last is None:
        got = quoted(given or "")  # given: a header's number is never refused (resumed)
        said = f"stream: last: expected a version number (0 up, or {UNKNOWN} for none), got {got}"
        return error(400, "bad request", said)

    def read() -> int | Denied | Unavailable:
        """The link checked and the version read from the store (a query each: run in a thread)."""
        try:
            table.invites.check(token)  # a link revoked meanwhile ends its stream at once
            return table.version()
        except Denied as exc:
            return exc
        except Unavailable as exc:  # the database is restarting: the page is told, and waits
            return exc

    async def look() -> int | Denied | Unavailable:
        """As read(), but from what the listener heard when it can tell: no query, no thread."""
        known = heard.version() if heard is not None else None
        if known is not None and table.invites.cached():
            try:
                table.invites.check(token)
            except Denied as exc:
                return exc
            return known
        epoch = heard.epoch() if heard is not None else 0
        version = await anyio.to_thread.run_sync(read)
        if heard is not None and isinstance(version, int):
            heard.note(version, epoch)  # the next look of any page of this table needs no query
        return version

    async def updates() -> AsyncIterator[str]:
        seen = last
        quiet = time.monotonic()
        end = time.monotonic() + min(seconds, STREAM_SECONDS)
        yield "retry: 300\n\n"
        while True:
            woken = heard.changed() if heard is not None else None  # taken before looking: none missed
            version = await look()
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
