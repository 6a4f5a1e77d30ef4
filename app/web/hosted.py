"""Hosted tables: every encounter of one PostgreSQL database, served by one or several workers.

    tabletrail serve postgresql://host/db --workers 4

Each encounter's table view is at /e/NAME/ (the same page and API as `serve
LOG`, under that prefix); / is a plain page that names none of them. Any worker may take any
request: the database is the only shared state. A worker opens an encounter at
its first request for it and keeps it folded; its live streams wait on the
worker's one LISTEN connection (app/web/live.py), so a move made through any
worker, or a terminal, reaches every open page on every worker.

While PostgreSQL is unreachable, requests get a 503 naming the database and
the encounter, and nothing is half-written (a batch is one transaction); open
pages are told, and catch up once it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import msgspec
import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send
from tabletrail.core.board.units import plural
from tabletrail.core.search import reach
from tabletrail.events.errors import InputError, Unavailable
from tabletrail.events.stores.pg_names import NAME
from tabletrail.events.stores.postgres_store import (
    CHANNEL,
    Database,
    PostgresStore,
    encounters,
    lines_ride,
    parse_url,
)
from tabletrail.web.guard import GUARDED, LIMITS
from tabletrail.web.home_db import home_link, home_routes
from tabletrail.web.live import Broker, Heard
from tabletrail.web.server import LOCAL_HOSTS, STATIC, allowed_hosts, create_app
from tabletrail.web.wire import notice

PROBE_ENV = "TABLETRAIL_PROBE"  # a directory: each worker writes how late its loop runs (load_tables.py)
PROBE_TICK = 0.05  # seconds between two looks at the worker's event loop
PROBE_WRITE = 2.0  # seconds between two writes of what the probe saw
# A page fetches its board and event list after every move on a connection of its own, a move or so every
# 10 s a table: uvicorn's default 5 s closed it between two moves, so every fetch paid a new TCP connection
# on both sides (issue 40, load_tables.py --fetch). nginx's default keep-alive, well past a table's pace.
KEEP_ALIVE_SECONDS = 75
DATABASE_ENV = "TABLETRAIL_SERVE_DB"  # how `serve --workers N` hands the database to its workers
HOSTS_ENV = "TABLETRAIL_SERVE_HOSTS"  # ... and the Host names its pages answer to (JSON list)


class Encounters:
    """The table views of one database's encounters, each made at its first request (ASGI)."""

    def __init__(self, url: str, hosts: tuple[str, ...], exposed: bool = False) -> None:
        self.url = url
        self.where = parse_url(url)
        self.hosts = hosts
        self.exposed = exposed
        self.broker = Broker(self.where.conninfo, self.where.schema, CHANNEL)
        self.heard_lines = lines_ride()  # a move told with its lines is folded from them, not read back
        self.apps: dict[str, Starlette] = {}
        self.lock = threading.Lock()  # guards `opening`
        self.opening: dict[str, threading.Lock] = {}  # one lock an encounter name, made at its first request
        # With the probe on (TABLETRAIL_PROBE): seconds each request took in this worker, by what it asked
        # for (the last part of its path; live streams left out, they last minutes).
        self.took: dict[str, list[float]] | None = {} if os.environ.get(PROBE_ENV) else None

    def app_for(self, name: str) -> Starlette:
        """The encounter's table view (an unknown encounter, or the database down, is an InputError).
        Opening one folds its log: each encounter has its own lock, so opening one never holds up
        another's first request."""
        with self.lock:
            opening = self.opening.setdefault(name, threading.Lock())
        with opening:
            app = self.apps.get(name)
            if app is None:
                store = PostgresStore(self.url, encounter=name)
                if not store.exists():
                    with self.lock:  # a name asked for at random leaves nothing behind
                        self.opening.pop(name, None)
                    raise LookupError(f"{store.name}: no encounter {name!r} in this database")
                if self.heard_lines:
                    store.heard_lines = self.broker.follow(name)
                app = create_app(
                    store.name,
                    store=store,
                    hosts=self.hosts,
                    exposed=self.exposed,
                    heard=Heard(self.broker, name),
                )
                self.apps[name] = app
            return app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        name = scope["path_params"]["encounter"]
        if not NAME.fullmatch(name):
            response: Response = _error(404, "not found", f"no encounter {name!r}: not a name")
            return await response(scope, receive, send)
        try:
            # An encounter already open is found without a thread; opening one reads the database.
            kept = self.apps.get(name)
            app = kept if kept is not None else await anyio.to_thread.run_sync(self.app_for, name)
        except LookupError as exc:
            response = _error(404, "not found", str(exc))
        except Unavailable as exc:
            response = _down(scope, str(exc))
        except InputError as exc:
            response = _error(500, "log unreadable", str(exc))
        else:
            path = str(scope["path"])
            if self.took is None or path.endswith("/api/stream"):
                await app(scope, receive, send)
                return
            began = time.perf_counter()
            await app(scope, receive, send)
            self.took.setdefault(path.rsplit("/", 1)[-1], []).append(time.perf_counter() - began)
            return
        await response(scope, receive, send)


def _error(status: int, error: str, message: str) -> JSONResponse:
    return JSONResponse({"error": error, "message": message}, status_code=status)


def _down(scope: Scope, message: str) -> Response:
    """503; but a live stream gets a 200 that says so and ends, so the browser tries again by itself
    (an EventSource answered with an error status gives up for good)."""
    if not scope["path"].endswith("/api/stream"):
        return _error(503, "unavailable", message)

    async def once() -> AsyncIterator[str]:
        yield "retry: 1000\n\n"
        yield f"event: unavailable\ndata: {json.dumps({'message': message})}\n\n"

    return StreamingResponse(once(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


async def _probe(directory: str, tables: Encounters) -> None:
    """What a load test can't see from outside, written every PROBE_WRITE s to DIRECTORY/probe-PID.json: how
    late this worker's event loop wakes a sleeper (a blocking call on it shows here), how busy its threads
    are (a request waits for one once every token is out), how often a thread waited for a database
    connection, and how long each request took inside this worker. Only with TABLETRAIL_PROBE set: a
    measuring aid, never on in a real server."""
    path = Path(directory) / f"probe-{os.getpid()}.json"
    db = Database.shared(tables.where.conninfo)
    limiter = anyio.to_thread.current_default_thread_limiter()
    lags: list[float] = []
    threads: list[int] = []  # threads out at each look
    queued: list[int] = []  # requests waiting for a thread at each look
    written = time.monotonic()
    while True:
        asked = time.perf_counter()
        await asyncio.sleep(PROBE_TICK)
        lags.append(time.perf_counter() - asked - PROBE_TICK)
        stats = limiter.statistics()
        threads.append(int(stats.borrowed_tokens))
        queued.append(stats.tasks_waiting)
        if time.monotonic() - written >= PROBE_WRITE:
            written = time.monotonic()
            seen = {
                "at": time.time(), "lags": lags, "threads": threads, "queued": queued,
                "thread_limit": limiter.total_tokens, "pool_size": db.size, "pool_taken": db.taken,
                "pool_waits": db.waits, "pool_waited": db.waited, "pool_writers": db.writers,
                "read_taken": db.read_taken, "read_waits": db.read_waits, "read_waited": db.read_waited,
                "lines_served": tables.broker.lines_served, "lines_missed": tables.broker.lines_missed,
                "took": tables.took,
            }  # fmt: skip
            # msgspec, not json: the lists grow all run long, and json.dumps of them every PROBE_WRITE s was a
            # tenth of a loaded worker's event loop (issue 40, py-spy at 500 tables), charged to the server.
            path.write_bytes(msgspec.json.encode(seen))


def create_hosted_app(url: str, hosts: tuple[str, ...] = LOCAL_HOSTS) -> Starlette:
    """Every encounter of the database at `url`, at /e/NAME/."""
    tables = Encounters(url, hosts)

    def index(request: Request) -> Response:
        """A plain page: which encounters the database holds is the host's to know, never a visitor's
        (`tabletrail encounters URL` lists them, with the database's own access)."""
        return notice(
            200,
            "Tables are opened from their links",
            "Each table on this server opens from an invitation link its GM gives you (it ends in /join/…).",
        )

    def to_slash(request: Request) -> Response:
        return RedirectResponse(f"/e/{request.path_params['encounter']}/")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        probe = os.environ.get(PROBE_ENV)
        watching = asyncio.get_running_loop().create_task(_probe(probe, tables)) if probe else None
        yield
        if watching is not None:
            watching.cancel()
        await tables.broker.stop()

    app = Starlette(
        routes=[
            Route("/", index),
            *home_routes(url, tables),
            Route("/e/{encounter}", to_slash),
            Mount("/e/{encounter}", app=tables),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
        lifespan=lifespan,
    )
    app.state.tables = tables
    return app


def from_env() -> Starlette:
    """The app of each `serve --workers N` worker: the database is in TABLETRAIL_SERVE_DB."""
    hosts = tuple(json.loads(os.environ.get(HOSTS_ENV, "[]"))) or LOCAL_HOSTS

    reach.warm_up()  # each worker imports numpy and scipy at start-up, not at a player's first tap (issue 29)
    return create_hosted_app(os.environ[DATABASE_ENV], hosts)


def serve_hosted(
    url: str, port: int, workers: int, host: str = "127.0.0.1", allow: tuple[str, ...] = ()
) -> None:
    """Run `workers` uvicorn worker processes sharing one port, each serving every encounter."""

    shown = parse_url(url).shown
    found = encounters(url)  # the database must answer (and have the tables) before workers start
    os.environ[DATABASE_ENV] = url
    os.environ[HOSTS_ENV] = json.dumps(allowed_hosts(host, allow))
    where = f"http://{host}:{port}"
    serving = f"serving the {plural(len(found), 'encounter')} of {shown}"
    print(f"{serving} at {where}/e/NAME/ with {plural(workers, 'worker')}")
    name = found[0][0] if found else "NAME"
    print(
        f"links: tabletrail invite '{shown.split('?')[0]}?encounter={name}' --gm --url {where}/e/{name}",
        flush=True,
    )

    print(f"GM home page (a bearer secret: yours alone): {where}/home/{home_link(url)}", flush=True)
    print("(Ctrl+C stops)", flush=True)
    options: dict[str, Any] = {"log_level": "warning", "timeout_graceful_shutdown": 2, "workers": workers}
    # Each worker speaks the guarded protocol (app/web/guard.py): a request's head and body must arrive in
    # time, and one client can't hold every connection.
    options.update(http=GUARDED, limit_concurrency=LIMITS.max_connections)
    options.update(timeout_keep_alive=KEEP_ALIVE_SECONDS)
    uvicorn.run("tabletrail.web.hosted:from_env", factory=True, host=host, port=port, **options)
    print(f"stopped serving {shown}", flush=True)
