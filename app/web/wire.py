"""What every handler of the table view shares on the wire: reading a body, writing an answer.

A body is JSON of a declared msgspec type (app/web/routes.py names it per route);
anything else is a 4xx naming the route and the field, never a traceback. Every
error answer has one shape, `{"error", "message", ...}`, so the page and any other
client read every refusal the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from tabletrail.events.errors import InputError
from tabletrail.events.limits import MAX_BODY_BYTES, check_nesting
from tabletrail.web.invites import Denied, Invite
from tabletrail.web.numbers import MOST, quoted, whole

if TYPE_CHECKING:
    from tabletrail.web.live import Heard
    from tabletrail.web.table import Stale, Table

_T = TypeVar("_T")

KINDS = {
    400: "bad request",
    403: "forbidden",
    404: "not found",
    409: "conflict",
    413: "too large",
    415: "unsupported media type",
}


class BadRequest(Exception):
    """A request this server will not act on, with the status and the sentence that says why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


async def read_body(request: Request, kind: type[_T]) -> _T:
    """The request's JSON body as `kind`; BadRequest (400, 413, 415) names what is wrong.

    JSON only: a page of another site can't send that without the browser asking
    first, so it can't drive the table through a visitor's browser.
    """
    kind_of = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind_of != "application/json":
        raise BadRequest(
            f"{request.url.path}: send the body as application/json, not {kind_of or 'no content type'}", 415
        )
    declared = request.headers.get("content-length", "")
    size = whole(declared)  # (not a number: the read below stops at the limit all the same)
    if size is not None and size > MAX_BODY_BYTES:
        raise BadRequest(_too_big(request, size), 413)
    raw = b""
    try:
        async for chunk in request.stream():  # read no further than the limit, whatever the header said
            raw += chunk
            if len(raw) > MAX_BODY_BYTES:
                raise BadRequest(_too_big(request, len(raw)), 413)
    except ClientDisconnect:  # gone mid-body (or too slow, app/web/guard.py): no one to answer, no traceback
        raise BadRequest(f"{request.url.path}: the client left before its body arrived") from None
    if not raw.strip():
        raise BadRequest(f"{request.url.path}: the request has no body; send a JSON object")
    try:
        check_nesting(raw, request.url.path)
    except InputError as exc:
        raise BadRequest(str(exc)) from None
    try:
        return msgspec.json.decode(raw, type=kind)
    except msgspec.ValidationError as exc:
        raise BadRequest(f"{request.url.path}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise BadRequest(f"{request.url.path}: the body is not JSON ({exc})") from None


def _too_big(request: Request, size: int) -> str:
    return f"{request.url.path}: a body of {size:,}+ bytes; the limit is {MAX_BODY_BYTES:,} (MAX_BODY_BYTES)"


def error(status: int, error: str, message: str, **extra: Any) -> JSONResponse:
    """The one shape of every error answer."""
    return JSONResponse({"error": error, "message": message, **extra}, status_code=status)


def event_at(raw: str | None, version: int) -> int | None | JSONResponse:
    """`?at=`, the event a view opens at: None when not asked, else a sequence number of the log, or the
    answer refusing it (400 for what is no sequence number, 404 past the log's end, as for any address
    of a thing that is not there yet). The board and the bundle read it alike."""
    if raw is None:
        return None
    at = whole(raw)
    if at is None or at < 1:
        return error(400, "bad request", f"at: expected a sequence number (1 or more), got {quoted(raw)}")
    if at > version:
        return error(404, "not found", f"at: no event {at} (the log has 1 to {version})")
    return at


def bad(exc: BadRequest) -> JSONResponse:
    return error(exc.status, KINDS.get(exc.status, "bad request"), exc.message)


def stale(exc: Stale) -> JSONResponse:
    return error(
        409,
        "stale",
        f"the log has {exc.now} records but this page saw {exc.seen}: someone else changed the "
        "encounter; look at the board again and retry",
        version=exc.now,
        seen=exc.seen,
    )


def denied(exc: Denied) -> JSONResponse:
    return error(exc.status, "bad link", exc.reason)  # the page says so and stops


def token_of(request: Request, query: bool = False) -> str | None:
    """The token a request carries: `Authorization: Bearer …`, or with `query`, `?token=` (only where a
    browser can't set a header: the live stream, the pictures an SVG <image> fetches)."""
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return request.query_params.get("token") if query else None


def token_in_address(request: Request) -> JSONResponse:
    """A token sent in the address to a route that reads it only from the header: it opens nothing."""
    return error(
        401,
        "bad link",
        f"{request.url.path}: send the token as an Authorization: Bearer header; a token in the address "
        "(?token=) is read only by the live stream and the pictures",
    )


NOTICE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>{title} · tabletrail</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="{base}/static/table.css"></head>
<body class="notice"><main class="notice-box"><h1>{title}</h1><p id="notice">{message}</p>
<p class="muted">The GM makes links with <code>tabletrail invite LOG --side SIDE</code>
(or <code>--gm</code>), or from the GM page's “Links” panel.</p></main></body></html>
"""


def notice(status: int, title: str, message: str, base: str = "") -> HTMLResponse:
    """A page that says why the board is not shown (a bad or revoked link): never a blank board."""
    body = NOTICE.format(title=escape(title), message=escape(message), base=base)
    return HTMLResponse(
        body, status_code=status, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    )


@dataclass(frozen=True)
class Call:
    """One request as a handler sees it: who asks (told by the token), the body already decoded
    to its declared type, and the table it is about."""

    request: Request
    table: Table
    who: Invite | None = None  # None only on the routes anyone may call
    body: Any = None  # an instance of the route's declared body type, or None
    exposed: bool = False  # the server listens beyond this machine (the page warns about bearer links)
    heard: Heard | None = None  # what this worker's PostgreSQL listener hears of the log, if it has one

    @property
    def user(self) -> Invite:
        """The invite of a guarded route (every route but the public pages has one)."""
        assert self.who is not None, "a guarded route's handler is always called with its invite"
        return self.who

    def heard_version(self) -> int | None:
        """The log's version as this worker's listener heard it, if a live answer may be of that one: not
        when it is not listening, nor when the page was told of a newer version (`?seen=`: another
        worker's listener was quicker), nor for a view of the past (`?at=`): then the log is read."""
        query = self.request.query_params
        if self.heard is None or "at" in query:
            return None
        known = self.heard.version()
        seen = query.get("seen")
        if known is None or (seen is not None and (whole(seen) or 0) > known):
            return None
        return known

    def bad_seen(self) -> Response | None:
        """The 400 for a `?seen=` that is not a version number, if it is not: asked before anything is
        looked up, so every worker (listening or not, the board made or not) answers it alike."""
        seen = self.request.query_params.get("seen")
        if seen is not None and whole(seen) is None:
            said = f"seen: expected a version number (ASCII digits, 0 to {MOST}), got {quoted(seen)}"
            return error(400, "bad request", said)
        return None


def answer(value: msgspec.Struct, status: int = 200) -> Response:
    """An answer of one of app/web/answers.py's types, encoded by msgspec as the contract describes it."""
    return Response(msgspec.json.encode(value), status_code=status, media_type="application/json")
