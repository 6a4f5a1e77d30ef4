"""The kit a route table is written with: who may call a route, what it takes and answers (`Endpoint`),
and the guarded Starlette endpoint made of each entry (`routes_of`).

Who may call a route, from least to most:
    anyone   no token (the pages that say why the board is not shown, the page of a link)
    watcher  any link of the encounter: reads and follows, commands nothing
    player   a side's link (or the GM's): also commands its own side's fighters
    gm       the GM's link only

Apart from the table itself (app/web/routes.py, which imports every handler), so a handler module
that declares a route table of its own (the GM's home page, app/web/api/home.py) and the contract
(app/web/contract.py) import the kit without the handlers.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from tabletrail.web.invites import GM as GM  # the top of ROLES, re-exported with them
from tabletrail.web.invites import Denied, Invite
from tabletrail.web.table import Table
from tabletrail.web.wire import BadRequest, Call, bad, denied, error, read_body, token_in_address, token_of

if TYPE_CHECKING:
    from tabletrail.web.live import Heard  # needs psycopg: only hosted tables have one

ANYONE, WATCHER, PLAYER = "anyone", "watcher", "player"
ROLES = (ANYONE, WATCHER, PLAYER, GM)  # each may call what the ones before it may

JSON = "application/json"
HTML = "text/html"
EVENTS = "text/event-stream"
PICTURE = "image/*"

Handler = Callable[[Call], Response | Awaitable[Response]]


CELL = {"pattern": r"^[0-9]{1,4},[0-9]{1,4}$"}  # a cell as people write it: x,y (column, row)


@dataclass(frozen=True)
class Param:
    """A query or path parameter of a route."""

    name: str
    kind: type
    doc: str
    where: str = "query"  # or "path"
    required: bool = False
    bounds: Mapping[str, Any] = field(default_factory=dict)  # JSON Schema keywords (minimum, maximum)


@dataclass(frozen=True)
class Endpoint:
    """One route: what it answers to, who may call it, what it takes and what it answers."""

    method: str
    path: str
    handler: Handler
    role: str
    summary: str
    body: type | None = None
    params: tuple[Param, ...] = ()
    # status -> the answer: a msgspec type (JSON), or a media type (HTML, EVENTS, PICTURE). A token's
    # 401/403 and a body's 400/413/415 are added by the table (app/web/contract.py).
    answers: Mapping[int, Any] = field(default_factory=dict)
    media: str = JSON  # what a 200 is
    tag: str = ""  # the concern it serves, as the description groups it
    query_token: bool = False  # `?token=` read too: where a browser can't set a header (EventSource, <image>)

    @property
    def name(self) -> str:
        return self.handler.__name__


def level(who: Invite) -> str:
    """The role a link has among ROLES: the GM's, a watcher's (view only), else a side's."""
    if who.role == GM:
        return GM
    return WATCHER if who.role == WATCHER else PLAYER


def may(who: Invite, role: str) -> bool:
    return ROLES.index(level(who)) >= ROLES.index(role)


def _by_method(
    methods: Mapping[str, Callable[[Request], Awaitable[Response]]],
) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of one path: the entry of the request's method (HEAD is GET's, as Starlette has it)."""

    async def endpoint(request: Request) -> Response:
        return await methods["GET" if request.method == "HEAD" else request.method](request)

    return endpoint


def routes_of(endpoints: tuple[Endpoint, ...], target: Any, exposed: bool = False) -> list[BaseRoute]:
    """The Starlette routes of another route table, guarded as ROUTES are: the GM's home page of a served
    folder (app/web/api/home.py). `target` is what its handlers are about; its `invites` check the token."""
    return [
        Route(e.path, _asgi(e, target, exposed, None), methods=[e.method], name=e.name) for e in endpoints
    ]


def _asgi(
    e: Endpoint, table: Table, exposed: bool, heard: Heard | None
) -> Callable[[Request], Awaitable[Response]]:
    """The route's endpoint: its token and role checked, its body decoded, then its handler."""
    is_async = inspect.iscoroutinefunction(e.handler)

    async def endpoint(request: Request) -> Response:
        who = None
        if e.role != ANYONE:
            token = token_of(request, e.query_token)
            if token is None and "token" in request.query_params:
                return token_in_address(request)
            try:
                if table.invites.cached():  # the links read before still stand: no query, no thread
                    who = table.invites.check(token)
                else:
                    who = await anyio.to_thread.run_sync(table.invites.check, token)
            except Denied as exc:
                return denied(exc)
            if not may(who, e.role):
                return _forbidden(request, who, e.role)
        body: Any = None  # an instance of the route's body type (Call.body)
        if e.body is not None:
            try:
                body = await read_body(request, e.body)
            except BadRequest as exc:
                return bad(exc)
        call = Call(request, table, who, body, exposed, heard)
        made = e.handler(call) if is_async else await anyio.to_thread.run_sync(e.handler, call)
        return made if isinstance(made, Response) else await made

    return endpoint


def _forbidden(request: Request, who: Invite, role: str) -> Response:
    if role == GM:
        return error(403, "forbidden", f"{request.url.path}: the GM's; this link speaks for {who.role}")
    return error(
        403, "forbidden", f"{request.url.path}: this link only watches the table; it commands nothing"
    )
