"""The audit's handlers: the event list with rule ids, and the explanation of one event."""

from __future__ import annotations

import gzip
from typing import Any, NamedTuple

import anyio
import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from tabletrail.events.types import Abandoned, Redone, Undone
from tabletrail.service.encounter import Encounter
from tabletrail.web import redact, views
from tabletrail.web.invites import Invite
from tabletrail.web.numbers import MOST, quoted, whole
from tabletrail.web.table import EVENTS, EVENTS_GZ, Encoded
from tabletrail.web.wire import Call, error

PAGE, MOST_PAGE = 200, 1000  # the lines of a page of the list when `limit` is not given, and at most


class Part(NamedTuple):
    """Which part of the event list a page asks for: the whole (none given), the changes since version
    `after` (if no more than `limit` records, else MOST_PAGE, are new), or the page of at most `limit`
    records' lines before sequence number `before` (the newest page when only `limit` is given)."""

    after: int | None = None
    before: int | None = None
    limit: int | None = None

    def key(self) -> tuple[int, ...]:
        if self.after is not None:
            return (0, self.after, self.limit or 0)
        if self.before is None and self.limit is None:
            return ()
        return (1, self.before or 0, self.limit or PAGE)


WHOLE = Part()


def asked(call: Call) -> Part | Response:
    """The part of the list the query asks for, or the 400 naming what is wrong with it."""
    query = call.request.query_params
    values: dict[str, int] = {}
    for name, least, most in (("after", 0, MOST), ("before", 1, MOST), ("limit", 1, MOST_PAGE)):
        raw = query.get(name)
        if raw is None:
            continue
        value = whole(raw)
        if value is None or not least <= value <= most:
            said = f"events: {name}: expected a whole number from {least} to {most}, got {quoted(raw)}"
            return error(400, "bad request", said)
        values[name] = value
    if "after" in values:
        values.pop("before", None)  # the changes since a version end at the newest line: no page of them
    return Part(**values)


async def events(call: Call) -> Response:
    """The event list, each event said as `do` prints it, with its rule ids and status; or a part of it.

    Every page asks after each move, and the whole list grows with the log (715 KB gzipped at
    100,000 events): a page that holds version V asks `?after=V` and is sent only what changed
    since (its new lines, the batches an undo or redo changed), and a page opened fresh asks for
    the newest page (`?limit=`), then older ones (`?before=`). Each is made once per side and
    version, gzipped once for the pages that accept it, and answered as the board is
    (api_board.state), from what the worker heard."""
    bad = call.bad_seen()
    if bad is not None:
        return bad
    part = asked(call)
    if isinstance(part, Response):
        return part
    gzipped = accepts_gzip(call.request)
    key = Encoded(EVENTS_GZ if gzipped else EVENTS, call.user.role, part.key())
    known = call.heard_version()
    made = call.table.encoded_at(known, key) if known is not None else None
    if made is None:
        made = await anyio.to_thread.run_sync(_events, call, known, gzipped, part)
    headers = {"Vary": "Accept-Encoding"} | ({"Content-Encoding": "gzip"} if gzipped else {})
    return Response(made, media_type="application/json", headers=headers)


def _events(call: Call, heard: int | None, gzipped: bool, part: Part | None = None) -> bytes:
    with call.table.lock:
        enc = call.table.live(heard)
        return listed(call, enc, gzipped, part)


def listed(call: Call, enc: Encounter, gzipped: bool, part: Part | None = None) -> bytes:
    """The event list of `enc` (or the part asked) as `call`'s side reads it, made (gzipped, or not) once
    per version.

    Only what is sent is kept: a long log's list is large, and every table of a worker keeps its own."""
    role, version, part = call.user.role, len(enc.records), part or WHOLE

    def plain() -> bytes:
        return msgspec.json.encode(answer(call.user, enc, part))

    def zipped() -> bytes:
        return gzip.compress(plain(), 6)

    key = Encoded(EVENTS_GZ if gzipped else EVENTS, role, part.key())
    return call.table.encoded_once(enc, version, key, zipped if gzipped else plain)


def answer(who: Invite, enc: Encounter, part: Part | None = None) -> dict[str, Any]:
    """The list, or its part, as `who` reads it: the whole list's lines, exactly, and no more of them.

    The changes since a version a page can't fold onto what it holds (a version past the log's
    end: another log; for a player, a ruling's why new since, which its older lines are scrubbed
    of), or should not (more new records than its `limit`: a page away for long), are answered as
    the newest page, which the page takes in place of its list."""
    version, part = len(enc.records), part or WHOLE
    if part.after is not None:
        rescrubbed = not redact.sees_all(who) and redact.new_reason_since(enc, part.after)
        if part.after <= version and version - part.after <= (part.limit or MOST_PAGE) and not rescrubbed:
            return {
                "version": version,
                "after": part.after,
                "events": lines(who, enc, part.after, version),
                "statuses": statuses(enc, part.after),
            }
        part = Part(limit=part.limit or PAGE)
    if part.before is None and part.limit is None:
        return {"version": version, "events": lines(who, enc, 0, version)}
    stop = min(part.before if part.before is not None else version + 1, version + 1) - 1  # the records shown
    start = max(stop - (part.limit or PAGE), 0)
    return {"version": version, "events": lines(who, enc, start, stop), "older": start + 1 if start else None}


def lines(who: Invite, enc: Encounter, start: int, stop: int) -> list[dict[str, Any]]:
    """The lines of records `start` to `stop` as `who` reads them (views.records, then redact.records)."""
    return redact.records(who, enc, views.records(enc, who.role, start, stop))


def statuses(enc: Encounter, after: int) -> list[dict[str, Any]]:
    """The batches whose status changed after version `after`, with their status now: those an undo or
    redo since names, and those an abandon since cut off. Read from the records since, never by
    comparing lists: the time it takes is the changes', not the log's."""
    changed: set[int] = set()
    for r in enc.records[after:]:
        event = r.event
        if isinstance(event, Undone | Redone):
            changed.add(event.batch)
        elif isinstance(event, Abandoned):
            changed.update(event.batches)
    return [{"batch": b, "status": views.status(enc, b)} for b in sorted(changed)]


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
