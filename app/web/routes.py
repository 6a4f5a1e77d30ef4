"""Every route of the table view, declared once: path, method, who may call it, body, answers.

The Starlette routes are built from this table (`starlette_routes`), and so is
the API's description, so neither can drift from the other. Adding a route is
one `Endpoint` here plus its handler, a function `handler(call: Call) -> Response`
(app/web/wire.py) in the module of its concern: the table checks the token and
the caller's role, decodes the body to its declared type (a 400 naming the field
otherwise) and runs a plain function on a worker thread (an `async def` handler
is awaited as it is).

Who may call a route is app/web/endpoints.py's (the kit a route table is written with).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from tabletrail.web import answers
from tabletrail.web.api import audit as api_audit
from tabletrail.web.api import board as api_board
from tabletrail.web.api import bundle as api_bundle
from tabletrail.web.api import commands as api_commands
from tabletrail.web.api import contract as api_contract
from tabletrail.web.api import foundry as api_foundry
from tabletrail.web.api import gm as api_gm
from tabletrail.web.api import invites as api_invites
from tabletrail.web.api import phone as api_phone
from tabletrail.web.api import reach as api_reach
from tabletrail.web.api import ruler as api_ruler
from tabletrail.web.api import stream as api_stream
from tabletrail.web.api.stream import STREAM_SECONDS
from tabletrail.web.bodies import CommandBody, DoBody, InviteBody, UndoBody
from tabletrail.web.numbers import MOST
from tabletrail.web.table import Table

if TYPE_CHECKING:
    from tabletrail.web.live import Heard  # needs psycopg: only hosted tables have one

from tabletrail.web.endpoints import (
    ANYONE,
    CELL,
    EVENTS,
    GM,
    HTML,
    PICTURE,
    PLAYER,
    WATCHER,
    Endpoint,
    Param,
    _asgi,
    _by_method,
)

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
