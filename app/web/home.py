"""A served folder: the GM's home page, the encounter builder, and every encounter of the folder.

    tabletrail serve FOLDER

Each encounter log of the folder (NAME.db, NAME.jsonl) is served at /e/NAME.db/ with the
same page and API as `serve LOG`, opened at its first request. The GM's home page, at
/home/TOKEN, lists them and starts new ones from the builder (/build/TOKEN); its link is
the folder's own (kept hashed in FOLDER/.tabletrail-home.invites, bound to a key made once
for the folder), so no encounter's link, a player's or even a GM's, opens it.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import threading
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send
from tabletrail.core.search import reach
from tabletrail.events.errors import InputError, Unavailable
from tabletrail.service.drafts import FolderDrafts
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for
from tabletrail.web import guard
from tabletrail.web.api.board import STATIC
from tabletrail.web.api.home import HOME_ROUTES
from tabletrail.web.endpoints import routes_of
from tabletrail.web.invites import GM, SESSION, FileKeep, Invites
from tabletrail.web.server import LOOPBACK, allowed_hosts, create_app, lan_address
from tabletrail.web.wire import error, notice

HOME_KEY = ".tabletrail-home.key"  # the folder's own key: the home link's digest is bound to it
HOME_INVITES = ".tabletrail-home.invites"
ARCHIVE = "archive"
LOG_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.(db|jsonl)$")


def folder_key(folder: Path) -> str:
    """The folder's key, made at its first serve (the home link's digest is bound to it, as an
    encounter's links are bound to its first line): another folder's link never opens this one."""
    path = folder / HOME_KEY
    with contextlib.suppress(FileNotFoundError):
        return path.read_text(encoding="ascii").strip()
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(key + "\n")
    return key


class Folder:
    """The encounters and drafts of one served folder, and the GM's links to its home page."""

    def __init__(self, folder: Path, hosts: tuple[str, ...], exposed: bool = False) -> None:
        if not folder.is_dir():
            raise InputError(f"{folder}: no such folder")
        self.folder = folder
        self.shown = f"Logs in {folder}"
        self.hosts = hosts
        self.exposed = exposed
        self.drafts = FolderDrafts(folder)
        self.invites = Invites(FileKeep(folder / HOME_INVITES), folder_key(folder))
        self.apps: dict[str, Starlette] = {}
        self.lock = threading.Lock()
        self._summaries: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}

    def names(self) -> list[str]:
        """The folder's encounter logs by file name, the latest changed first."""
        found = [p for p in self.folder.iterdir() if p.is_file() and LOG_NAME.match(p.name)]
        return [p.name for p in sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)]

    def log(self, name: str) -> Path:
        """The log a name in an address means: a log file of this folder, never a path beyond it."""
        path = self.folder / name
        if not LOG_NAME.match(name) or not path.is_file():
            raise LookupError(f"no encounter {name!r} in {self.folder}")
        return path

    def app_for(self, name: str) -> Starlette:
        """The encounter's table view, made at its first request (the same app `serve LOG` runs)."""

        path = self.log(name)
        with self.lock:
            app = self.apps.get(name)
            if app is None:
                app = self.apps[name] = create_app(path, hosts=self.hosts, exposed=self.exposed)
            return app

    def invites_of(self, name: str) -> Invites:
        return self.app_for(name).state.table.invites  # type: ignore[no-any-return]

    def summary(self, name: str) -> dict[str, Any]:
        """What the home page lists of a log: its title, ruleset, round and who is to act (kept until the
        file changes). A log that can't be read says why instead."""
        path = self.log(name)
        st = path.stat()
        mark = (st.st_size, st.st_mtime_ns)
        kept = self._summaries.get(path.name)
        if kept is not None and kept[0] == mark:
            return kept[1]
        try:
            state, version = self._state(path)
        except (InputError, OSError) as exc:
            row: dict[str, Any] = {"name": name, "title": path.stem, "problem": str(exc)}
        else:
            row = summary_row(name, state, version)
        row["modified"] = st.st_mtime
        self._summaries[name] = (mark, row)
        return row

    def _state(self, path: Path) -> tuple[Any, int]:
        app = self.apps.get(path.name)
        if app is not None:
            enc = app.state.table.live()
            return enc.state, len(enc.records)

        store = store_for(str(path), heal=False)  # listing never changes a log
        try:
            enc = Encounter.open(store)
            return enc.state, len(enc.records)
        finally:
            close = getattr(store, "close", None)
            if close is not None:
                close()

    def archive(self, name: str) -> Path:
        """Move the log and the files kept beside it (links, tip, refusals) into FOLDER/archive/."""
        self.log(name)
        with self.lock:
            app = self.apps.pop(name, None)
        if app is not None:
            app.state.table.closing.set()
            close = getattr(app.state.table.store, "close", None)
            if close is not None:
                close()
        target = self.folder / ARCHIVE
        target.mkdir(exist_ok=True)
        # The log and the files named after it (NAME.tip, NAME.snapshots, NAME-wal), each file going with
        # the longest log name it starts with (fight.jsonl-b.jsonl.tip is fight.jsonl-b.jsonl's); all moved
        # under one name, so that an archive already holding that name still finds each file beside its
        # log (NAME-2.jsonl.tip, not NAME.jsonl-2.tip).
        files = [p for p in self.folder.iterdir() if p.is_file()]
        logs = sorted((p.name for p in files if LOG_NAME.match(p.name)), key=len, reverse=True)

        def owner(file: str) -> str | None:
            return next((log for log in logs if file == log or file.startswith((log + ".", log + "-"))), None)

        ours = [p for p in files if owner(p.name) == name]
        base, n = name, 1
        while any((target / (base + p.name[len(name) :])).exists() for p in ours):
            n += 1
            base = f"{Path(name).stem}-{n}{Path(name).suffix}"
        for p in ours:
            shutil.move(str(p), target / (base + p.name[len(name) :]))
        self._summaries.pop(name, None)
        return target / base


def summary_row(name: str, state: Any, version: int) -> dict[str, Any]:
    """An encounter as the home page lists it: its title, ruleset, round, who is to act (by name)."""
    acting = state.fighter(state.turn.active)
    return {
        "name": name,
        "title": state.scenario.name,
        "ruleset": state.ruleset,
        "round": state.turn.round,
        "acting": acting.name if acting is not None else "",
        "acting_side": acting.side if acting is not None else "",
        "events": version,
        "fighters": len(state.fighters),
        "sides": sorted({f.side for f in state.fighters}),
    }


class FolderTables:
    """ASGI: /e/NAME/… to the table view of the folder's log NAME, made at its first request."""

    def __init__(self, folder: Folder) -> None:
        self.folder = folder

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        name = scope["path_params"]["encounter"]
        try:
            kept = self.folder.apps.get(name)
            app = kept if kept is not None else await anyio.to_thread.run_sync(self.folder.app_for, name)
        except LookupError as exc:
            response: Response = error(404, "not found", str(exc))
        except Unavailable as exc:
            response = error(503, "unavailable", str(exc))
        except InputError as exc:
            response = error(500, "log unreadable", str(exc))
        else:
            await app(scope, receive, send)
            return
        await response(scope, receive, send)


def answering_errors(routes: list[Any]) -> list[Route]:
    """The home's routes, each answering a log it can't read (500) or a database it can't reach (503)
    with the one error shape, never a traceback (an encounter's own app does so for its routes)."""

    def guarded(route: Route) -> Route:
        inner = route.endpoint

        async def endpoint(request: Request) -> Response:
            try:
                return await inner(request)  # type: ignore[no-any-return]
            except Unavailable as exc:
                return error(503, "unavailable", str(exc))
            except InputError as exc:
                return error(500, "log unreadable", str(exc))

        return Route(route.path, endpoint, methods=list(route.methods or ()), name=route.name)

    return [guarded(r) for r in routes]


def create_folder_app(folder: str | Path, hosts: tuple[str, ...], exposed: bool = False) -> Starlette:
    """The GM's home page and builder of a folder, and each of its encounters at /e/NAME/."""

    home = Folder(Path(folder), hosts, exposed)

    def index(request: Request) -> Response:
        return notice(
            200,
            "Tables are opened from their links",
            "Each table on this server opens from an invitation link its GM gives you (it ends in /join/…).",
        )

    def to_slash(request: Request) -> Response:
        return RedirectResponse(f"/e/{request.path_params['encounter']}/")

    app = Starlette(
        routes=[
            Route("/", index),
            *answering_errors(routes_of(HOME_ROUTES, home, exposed)),
            Route("/e/{encounter}", to_slash),
            Mount("/e/{encounter}", app=FolderTables(home)),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
    )
    app.state.home = home
    return app


def serve_folder(folder: str, port: int, host: str = "127.0.0.1", allow: tuple[str, ...] = ()) -> None:
    """Run the folder's home page and tables until Ctrl+C, printing the GM's home link."""

    exposed = host not in LOOPBACK
    reach.warm_up()
    app = create_folder_app(folder, allowed_hosts(host, allow), exposed)
    home: Folder = app.state.home
    # Only a link's digest is kept, so each start makes one to print; the links printed before, a GM's
    # bookmarks, keep working.
    _, token = home.invites.make(GM, label=SESSION)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            for opened in list(home.apps.values()):  # end the live streams: open pages don't hold the exit
                opened.state.table.closing.set()
            super().handle_exit(sig, frame)

    config = guard.config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)
    shown = host if host not in ("0.0.0.0", "::") else (lan_address() or "127.0.0.1")
    shown = f"[{shown}]" if ":" in shown else shown
    url = f"http://{shown}:{port}"
    print(f"serving the encounters of {folder} at {url}/ (Ctrl+C stops)", flush=True)
    print(f"GM home page (a bearer secret: yours alone): {url}/home/{token}", flush=True)
    if exposed:
        print(
            "warning: listening beyond this machine over plain HTTP. A link is a bearer secret. Put TLS in "
            "front with a reverse proxy (see the README).",
            flush=True,
        )
    with contextlib.suppress(KeyboardInterrupt):
        Server(config).run()
    print(f"stopped serving {folder}", flush=True)


__all__ = ["Folder", "create_folder_app", "folder_key", "serve_folder"]
