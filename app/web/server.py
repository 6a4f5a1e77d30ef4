"""The table view's server: one encounter log, served to every screen at the table.

The log on disk stays the source of truth (app/web/table.py keeps it folded and
writes under one lock, each write carrying the version its page saw: 409 if the
log moved on). The browser holds no rules: it asks for the reachable area, for
the dry run of a command (the audit's, which keeps seeded rolls hidden unless
the GM reveals them), and for the command itself.

Who asks is told by an invitation link's token (see invites.py), never by the
request: the server writes `by=` from it, a player link may command only its
own side's fighters and undo only its own side's commands, and rulings,
settings, revealed rolls and the invites themselves are the GM's (403 for a
player). Every request needs a token: `Authorization: Bearer TOKEN`, or
`?token=TOKEN` where a browser can't set a header (the live stream). Only
requests addressed to the hosts the server was told of are answered, and bodies
must be sent as JSON: a page of another site can't drive the table.

Every route, with who may call it and what it takes and answers, is declared
once in app/web/routes.py; the handlers live beside their concern (api_board,
api_reach, api_commands, api_audit, api_invites, api_stream).
"""

from __future__ import annotations

import contextlib
import shlex
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from tabletrail.core.search import reach
from tabletrail.events.errors import InputError, Unavailable
from tabletrail.events.stores.protocol import Store
from tabletrail.web import guard
from tabletrail.web.address import lan_address as lan_address  # re-exported: where a phone finds this server
from tabletrail.web.address import recorded
from tabletrail.web.api.board import STATIC
from tabletrail.web.contract import asyncapi, openapi
from tabletrail.web.invites import session_link
from tabletrail.web.routes import starlette_routes
from tabletrail.web.table import Table
from tabletrail.web.wire import error

if TYPE_CHECKING:
    from tabletrail.web.live import Heard  # needs psycopg: only hosted tables have one

__all__ = ["LOCAL_HOSTS", "STATIC", "Table", "allowed_hosts", "create_app", "lan_address", "serve"]

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def create_app(
    log: str | Path,
    store: Store | None = None,
    hosts: tuple[str, ...] = LOCAL_HOSTS,
    exposed: bool = False,
    heard: Heard | None = None,
    origins: tuple[str, ...] = (),
) -> Starlette:
    """The table view of one encounter log, answering only requests addressed to `hosts`.

    (Checking the Host header keeps a page of another site, served from a name
    that resolves to this machine, from reading or driving the table.) `exposed`
    says the server listens beyond this machine: the page then warns that links
    are bearer secrets and that TLS is a reverse proxy's job. `heard`, when
    given, is what this worker's PostgreSQL listener hears of the encounter
    (app/web/live.py): live streams wait on its changes instead of polling the
    log, and links are read again only when it says they changed.
    """
    table = Table(log, store, heard)

    def broken_log(request: Request, exc: Exception) -> Response:
        return error(500, "log unreadable", str(exc))

    def unavailable(request: Request, exc: Exception) -> Response:
        return error(503, "unavailable", str(exc))

    app = Starlette(
        routes=[
            *starlette_routes(table, exposed, heard),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={InputError: broken_log, Unavailable: unavailable},
        middleware=[*cors(origins), Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
    )
    app.state.table = table
    app.state.contract = {"openapi": openapi, "asyncapi": asyncapi}  # served by app/web/api/contract.py
    return app


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def cors(origins: tuple[str, ...]) -> list[Middleware]:
    """Cross-origin calls from these origins only (`serve --allow-origin`, a Foundry VTT server): the token
    rides in the Authorization header (or ?token= for the live stream), never a cookie, so no credentials
    are allowed; every other origin gets no CORS header and its browser keeps the answer from it."""
    if not origins:
        return []
    return [
        Middleware(
            CORSMiddleware,
            allow_origins=list(origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID"],
            allow_credentials=False,
            max_age=600,
        )
    ]


def allowed_hosts(host: str, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The Host header values to answer: loopback names, plus this machine's names and addresses when
    listening beyond it, plus names a reverse proxy forwards (`--allow-host`)."""
    names = list(LOCAL_HOSTS)
    if host not in LOOPBACK:
        if host not in ("0.0.0.0", "::"):
            names.append(host)
        else:
            name = socket.gethostname()
            names += [name, f"{name}.local", *(a for a in [lan_address()] if a)]
    names += list(extra)
    return tuple(dict.fromkeys(names))


def serve(
    log: str, port: int, host: str = "127.0.0.1", allow: tuple[str, ...] = (), origins: tuple[str, ...] = ()
) -> None:
    """Run the table view until Ctrl+C, printing the GM link (kept for this log: it outlives a restart)
    and recording where it listens beside the log, so `tabletrail invite` prints links that reach it."""

    exposed = host not in LOOPBACK

    reach.warm_up()  # numpy and scipy imported now, not when the first player taps a fighter (issue 29)
    app = create_app(log, hosts=allowed_hosts(host, allow), exposed=exposed, origins=origins)
    table: Table = app.state.table
    session, token = session_link(table.invites)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            table.closing.set()  # end the live streams, so the open pages don't hold the exit up
            super().handle_exit(sig, frame)

    # The guarded protocol: a request's head and body must arrive in time, one client can't hold
    # every connection (app/web/guard.py).
    config = guard.config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)
    shown = host if host not in ("0.0.0.0", "::") else (lan_address() or "127.0.0.1")
    shown = f"[{shown}]" if ":" in shown else shown
    url = f"http://{shown}:{port}"
    print(f"serving {log} at {url}/ (Ctrl+C stops)", flush=True)
    if token is not None:
        print(f"GM link (kept across restarts): {url}/join/{token}", flush=True)
    else:  # only the link's digest is kept, so it can't be shown again
        print(
            f"GM link: the one printed when this log was first served (link {session.id}, still open); "
            f"another: tabletrail invite {shlex.quote(log)} --gm",
            flush=True,
        )
    print(f"player links: tabletrail invite {shlex.quote(log)} --side SIDE", flush=True)
    if exposed:
        print(
            "warning: listening beyond this machine over plain HTTP. A link is a bearer secret: anyone "
            "holding it acts for its side. Put TLS in front with a reverse proxy (see the README).",
            flush=True,
        )
    with recorded(log, url), contextlib.suppress(KeyboardInterrupt):  # uvicorn hands Ctrl+C back at its end
        Server(config).run()
    print(f"stopped serving {log}", flush=True)
