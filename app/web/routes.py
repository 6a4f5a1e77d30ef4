"""Every route of the table view, declared once: path, method, who may call it, body, answers.

The Starlette routes are built from this table (`starlette_routes`), and so is
the API's description, so neither can drift from the other. Adding a route is
one `Endpoint` here plus its handler, a function `handler(call: Call) -> Response`
(app/web/wire.py) in the module of its concern: the table checks the token and
the caller's role, decodes the body to its declared type (a 400 naming the field
otherwise) and runs a plain function on a worker thread (an `async def` handler
is awaited as it is).

Who may call a route, from least to most:
    anyone   no token (the pages that say why the board is not shown, the page of a link)
    watcher  any link of the encounter: reads and follows, commands nothing
    player   a side's link (or the GM's): also commands its own side's fighters
    gm       the GM's link only
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
from tabletrail.web import (
    answers,
    api_audit,
    api_board,
    api_bundle,
    api_commands,
    api_contract,
    api_foundry,
    api_gm,
    api_invites,
    api_phone,
    api_reach,
    api_ruler,
    api_stream,
)
from tabletrail.web.api_stream import STREAM_SECONDS
from tabletrail.web.bodies import CommandBody, DoBody, InviteBody, UndoBody
from tabletrail.web.invites import GM as GM  # the top of ROLES, re-exported with them
from tabletrail.web.invites import Denied, Invite
from tabletrail.web.numbers import MOST
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


# What a number read as text may be (app/web/numbers.py reads it: ASCII digits, at most MOST).
VERSION = {"minimum": 0, "maximum": MOST}  # a record count
SEQUENCE = {"minimum": 1, "maximum": MOST}  # an event's sequence number
PAGE_LIMIT = {"minimum": 1, "maximum": api_audit.MOST_PAGE}  # the lines of one page of the event list
FIGHTER = Param("fighter", str, "the fighter's id", required=True)
TOKEN = Param("token", str, "the invitation link's token", "path", True)
A = answers
E = answers.Error

ROUTES: tuple[Endpoint, ...] = (
    Endpoint("GET", "/", api_board.page, ANYONE, "a page saying an invitation link is needed",
             answers={401: HTML}, media=HTML, tag="pages"),
    Endpoint("GET", "/join/{token}", api_board.join, ANYONE, "the page, for whoever the link speaks for",
             params=(TOKEN,), answers={200: HTML, 401: HTML, 403: HTML}, media=HTML, tag="pages"),
    Endpoint("GET", "/openapi.json", api_contract.openapi_json, ANYONE, "this API, as OpenAPI 3.1",
             answers={200: dict[str, Any]}, tag="contract"),
    Endpoint("GET", "/asyncapi.json", api_contract.asyncapi_json, ANYONE, "the live stream, as AsyncAPI 3",
             answers={200: dict[str, Any]}, tag="contract"),
    Endpoint("GET", "/api/me", api_board.me, WATCHER, "who this token speaks for", answers={200: A.Me},
             tag="board"),
    Endpoint("GET", "/api/state", api_board.state, WATCHER, "the board, live or as it stood after event N",
             params=(Param("at", int, "a sequence number: the board as it stood then (read-only; 404 past "
                           "the log's end)", bounds=SEQUENCE),
                     Param("seen", int, "the version the stream told this page of (the board answered is "
                           "at least that new)", bounds=VERSION)),
             answers={200: A.Board, 400: E, 404: E}, tag="board"),
    Endpoint("GET", "/api/events", api_audit.events, WATCHER, "the event list with rule ids",
             params=(Param("seen", int, "the version this page holds the board of (the list answered is "
                           "at least that new)", bounds=VERSION),
                     Param("after", int, "the version of the list this page holds: only what changed "
                           "since is answered (new lines; `statuses`, the batches an undo or redo "
                           "changed), or the newest page if more than `limit` (1000 if not given) records "
                           "are new", bounds=VERSION),
                     Param("before", int, "a page of the list: the lines before this sequence number (the "
                           "answer's `older` asks for the page before it); not read with after",
                           bounds=SEQUENCE),
                     Param("limit", int, "a page of the list: at most this many records' lines (200 if "
                           "not given); alone, the newest page", bounds=PAGE_LIMIT)),
             answers={200: A.EventList, 400: E}, tag="audit"),
    Endpoint("GET", "/api/events/{seq}", api_audit.explain, WATCHER, "why one event happened",
             params=(Param("seq", int, "the event's sequence number", "path", True, SEQUENCE),),
             answers={200: A.Explanation, 404: E}, tag="audit"),
    Endpoint("GET", "/api/reach", api_reach.reachable, WATCHER,
             "the reachable area: cost and route per cell, and why it can't move now", params=(FIGHTER,),
             answers={200: A.ReachArea, 404: E}, tag="board"),
    Endpoint("GET", "/api/ruler", api_ruler.ruler, WATCHER,
             "the free ruler: the distance between two cells, and what going there would cost a fighter now",
             params=(Param("from", str, "a cell x,y", required=True, bounds=CELL),
                     Param("to", str, "a cell x,y", required=True, bounds=CELL),
                     Param("fighter", str, "whose cost (else the fighter on `from`, if any)")),
             answers={200: dict[str, Any], 400: E, 404: E}, tag="board"),
    Endpoint("GET", "/api/options", api_board.options, PLAYER,
             "the quick commands for a fighter, each with its dry run's verdict now", params=(FIGHTER,),
             answers={200: A.Options, 404: E}, tag="commands"),
    Endpoint("GET", "/api/actions", api_phone.fighter_actions, WATCHER,
             "a fighter's buttons in words (each with the engine's verdict), its card, the reactions awaited",
             params=(FIGHTER,), answers={200: dict[str, Any], 404: E}, tag="commands"),
    Endpoint("POST", "/api/preview", api_commands.preview, PLAYER, "the dry run of a command (nothing added)",
             body=CommandBody, answers={200: A.DryRun, 404: E, 409: E}, tag="commands"),
    Endpoint("POST", "/api/do", api_commands.do, PLAYER, "run a command", body=DoBody,
             answers={200: A.Written, 404: E, 409: E, 422: A.Refused}, tag="commands"),
    Endpoint("POST", "/api/undo", api_commands.undo, PLAYER, "take back the latest command", body=UndoBody,
             answers={200: A.Written, 409: E, 422: A.Refused}, tag="commands"),
    Endpoint("POST", "/api/redo", api_commands.redo, PLAYER, "put back the latest command taken back",
             body=UndoBody, answers={200: A.Written, 409: E, 422: A.Refused}, tag="commands"),
    Endpoint("GET", "/api/gm/roster", api_gm.roster, GM,
             "the GM's Add fighter form's makings: the ruleset's stats, the sizes, sides and turn order",
             answers={200: dict[str, Any]}, tag="commands"),
    Endpoint("GET", "/api/invites", api_invites.invites, GM, "every link (never a token)",
             answers={200: A.InviteList}, tag="invites"),
    Endpoint("POST", "/api/invites", api_invites.invite, GM, "make a link", body=InviteBody,
             answers={200: A.MadeInvite, 404: E}, tag="invites"),
    Endpoint("POST", "/api/invites/{ident}/revoke", api_invites.revoke, GM, "revoke a link at once",
             params=(Param("ident", str, "the invite's id", "path", True),),
             answers={200: A.InviteInfo, 400: E, 404: E}, tag="invites"),
    Endpoint("GET", "/api/stream", api_stream.stream, WATCHER,
             "server-sent events: the version, whenever it changes (described in /asyncapi.json)",
             params=(Param("last", int, "the version this page already has, -1 for none (or send "
                           "Last-Event-ID)", bounds={**VERSION, "minimum": api_stream.UNKNOWN}),
                     Param("seconds", float, "end the stream after this many seconds (one asked to last "
                           f"longer than {STREAM_SECONDS:g} ends after {STREAM_SECONDS:g})",
                           bounds={"minimum": 0})),
             answers={200: EVENTS, 400: E}, media=EVENTS, tag="stream", query_token=True),
    Endpoint("GET", "/api/image/{fighter}", api_board.image, WATCHER, "the token picture the scenario names",
             params=(Param("fighter", str, "the fighter's id", "path", True),),
             answers={200: PICTURE, 404: E}, media=PICTURE, tag="board", query_token=True),
    Endpoint("GET", "/api/bundle", api_bundle.download, WATCHER,
             "the encounter as one offline HTML file that replays and checks itself (a side gets its share)",
             params=(Param("at", int, "the event the page opens at", bounds=SEQUENCE),),
             answers={200: HTML, 400: E, 404: E, 503: E},
             media=HTML, tag="audit"),
    Endpoint("GET", "/api/picture", api_board.picture, WATCHER, "the battle-map picture under the grid",
             params=(Param("v", str, "the picture's digest (a cache key)"),),
             answers={200: PICTURE, 404: E}, media=PICTURE, tag="board", query_token=True),
    # The Foundry VTT bridge (integrations/foundry/): a scene to referee, a move under its movement id.
    Endpoint("POST", "/api/foundry/encounter", api_foundry.encounter, GM,
             "start refereeing a Foundry scene: its scenario made, a new log begun beside this one, played",
             body=api_foundry.EncounterBody, answers={200: dict[str, Any], 400: E, 409: E, 422: E},
             tag="foundry"),
    Endpoint("GET", "/api/foundry/actions", api_foundry.actions, WATCHER,
             "the verb each Foundry movement action plays under this table's ruleset",
             answers={200: dict[str, Any]}, tag="foundry"),
    Endpoint("POST", "/api/foundry/move", api_foundry.move, PLAYER,
             "a Foundry movement decided and recorded once under its movement id: its cost and what is left",
             body=api_foundry.FoundryMoveBody, answers={200: dict[str, Any], 404: E, 409: E, 422: A.Refused},
             tag="foundry"),
)  # fmt: skip


def starlette_routes(table: Table, exposed: bool = False, heard: Heard | None = None) -> list[BaseRoute]:
    """The Starlette routes of ROUTES, each guarded as its entry says, for one table.

    One Starlette route a path, taking every method the table declares for it: a method it does not
    declare is then a 405 whose Allow names them all (two routes of one path would each name only
    their own, and the first one found answers)."""
    by_path: dict[str, dict[str, Callable[[Request], Awaitable[Response]]]] = {}
    names: dict[str, list[str]] = {}
    for e in ROUTES:
        by_path.setdefault(e.path, {})[e.method] = _asgi(e, table, exposed, heard)
        names.setdefault(e.path, []).append(e.name)
    return [
        Route(path, _by_method(methods), methods=list(methods), name="|".join(names[path]))
        for path, methods in by_path.items()
    ]


def _by_method(
    methods: Mapping[str, Callable[[Request], Awaitable[Response]]],
) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of one path: the entry of the request's method (HEAD is GET's, as Starlette has it)."""

    async def endpoint(request: Request) -> Response:
        return await methods["GET" if request.method == "HEAD" else request.method](request)

    return endpoint


def routes_of(endpoints: tuple[Endpoint, ...], target: Any, exposed: bool = False) -> list[BaseRoute]:
    """The Starlette routes of another route table, guarded as ROUTES are: the GM's home page of a served
    folder (app/web/api_home.py). `target` is what its handlers are about; its `invites` check the token."""
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
