"""The table view's server: one encounter log, served to every screen at the table.

The log on disk stays the source of truth. `Table` keeps the encounter folded
in memory and folds in what others appended (another screen's server, or
`tabletrail do` in a terminal) before answering; every write happens under one
lock and carries the version (record count) its page saw, so two GMs clicking
at once can't both act on a board one of them no longer sees: the second gets
a 409 and nothing changes. The browser holds no rules: it asks for the
reachable area, for the dry run of a command (the audit's, which keeps seeded
rolls hidden unless the GM reveals them), and for the command itself.

Who asks is told by an invitation link's token (see invites.py), never by the
request: the server writes `by=` from it, a player link may command only its
own side's fighters and undo only its own side's commands, and rulings,
settings, revealed rolls and the invites themselves are the GM's (403 for a
player). Every request needs a token: `Authorization: Bearer TOKEN`, or
`?token=TOKEN` where a browser can't set a header (the live stream). Only
requests addressed to the hosts the server was told of are answered, and bodies
must be sent as JSON: a page of another site can't drive the table.

Endpoints (JSON unless said):
    GET  /join/{token}           the page, for whoever the link speaks for (or a page saying why not)
    GET  /                       a page saying an invitation link is needed
    GET  /api/me                 who this token speaks for
    GET  /api/invites            the GM's: every link (never a token), POST to make one
    POST /api/invites/{id}/revoke  the GM's: revoke a link at once (its live stream ends too)
    GET  /api/state[?at=N]       the board (at sequence N: a read-only past view)
    GET  /api/events             the event list with rule ids
    GET  /api/events/{seq}       the explain panel of one event
    GET  /api/reach?fighter=ID   the reachable area: cost and route per cell, why it can't move now
    GET  /api/options?fighter=ID the quick commands for a fighter, each with its dry run's verdict now
    POST /api/preview            the dry run of a command (nothing appended)
    POST /api/do                 run a command
    POST /api/undo, /api/redo    take back or put back a command
    GET  /api/stream             server-sent events: the version, whenever it changes
    GET  /api/image/{fighter}    the token picture the scenario names (if any)
    GET  /api/picture            the battle-map picture under the grid ([picture]): the very file the
                                 encounter began with (its sha256 is in the log), at the path kept
                                 then or, failing that, under its name beside the log
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import math
import os
import re
import shlex
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import msgspec
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from tabletrail.cli_store import store_for
from tabletrail.core.decide import decide
from tabletrail.core.doors import doors_beside
from tabletrail.core.geometry import NEIGHBOURS, expand
from tabletrail.core.reach import Reach, reach, waypoints
from tabletrail.core.refusal import Refusal, Rejection
from tabletrail.core.ruleset import ENGINE_HANDLERS
from tabletrail.core.rulesets import get as get_ruleset
from tabletrail.core.state import EncounterState, Fighter
from tabletrail.encounter import Encounter
from tabletrail.events.commands import Command, Redo, Undo
from tabletrail.events.errors import ConflictError, InputError, Unavailable
from tabletrail.events.limits import MAX_BODY_BYTES, MAX_WAYPOINTS, check_nesting
from tabletrail.events.log import JsonlStore, Record, Store
from tabletrail.events.picture import MAX_PICTURE_BYTES, MEDIA_TYPES, PictureSpec
from tabletrail.syntax import parse
from tabletrail.web import views
from tabletrail.web.invites import GM, Denied, Invite, Invites, encounter_key, keep_for

STATIC = Path(__file__).with_name("static")
POLL_SECONDS = 0.2  # how often a live stream looks at the log: well inside the 1 s promise
STREAM_SECONDS = 30.0  # a stream ends after this and the browser reconnects (servers stop cleanly)
KEEPALIVE_SECONDS = 10.0
IMAGE_BYTES = 4_000_000  # a token picture larger than this is not served (a photo straight off a camera)
_T = TypeVar("_T")


class Stale(Exception):
    """A write based on a version of the log that is no longer the latest."""

    def __init__(self, seen: int, now: int) -> None:
        super().__init__(f"stale version {seen}, the log is at {now}")
        self.seen = seen
        self.now = now


class Table:
    """One encounter log shared by every screen: read when it changes, written under a lock."""

    def __init__(self, path: str | Path, store: Store | None = None) -> None:
        self.path = Path(path)
        self.store = store if store is not None else store_for(str(path))
        self.lock = threading.RLock()
        self._enc: Encounter | None = None
        self._mark: tuple[int, ...] | None = None
        self.closing = threading.Event()  # set when the server stops: live streams end cleanly
        self.live()  # a missing or broken log is an error now, not at the first click
        self.invites = Invites(keep_for(path, self.store), encounter_key(self.store))
        self._pictures: dict[str, tuple[Path, int, int]] = {}  # sha256 -> the file found, its size, mtime

    def picture_file(self, spec: PictureSpec) -> Path | None:
        """The battle-map picture the scenario pinned: at the path kept in the log, else by its name
        beside the log (a log and its picture copied to another machine). Only a file whose sha256
        is the one in the log is served; a found file is hashed again only once it changes."""
        if not spec.sha256:
            return None
        known = self._pictures.get(spec.sha256)
        if known is not None:
            path, size, mtime = known
            with contextlib.suppress(OSError):
                st = path.stat()
                if (st.st_size, st.st_mtime_ns) == (size, mtime):
                    return path
        beside = (
            [self.path.parent / spec.name] if isinstance(self.store, JsonlStore) or self.path.exists() else []
        )
        for path in [Path(spec.file), *beside]:
            try:
                st = path.stat()
                if not path.is_file() or st.st_size > MAX_PICTURE_BYTES:
                    continue
                if hashlib.sha256(path.read_bytes()).hexdigest() == spec.sha256:
                    self._pictures[spec.sha256] = (path, st.st_size, st.st_mtime_ns)
                    return path
            except OSError:
                continue
        return None

    def _signature(self) -> tuple[int, ...] | None:
        """Cheap to take, and different once anyone appended: the file's size and time, or the version."""
        if isinstance(self.store, JsonlStore):
            try:
                st = os.stat(self.path)
            except OSError:
                return None
            return st.st_size, st.st_mtime_ns
        version = getattr(self.store, "version", None)
        return (version(),) if version is not None else None

    def live(self) -> Encounter:
        """The encounter as the log has it now: what others appended is folded in first."""
        with self.lock:
            mark = self._signature()
            if self._enc is None:
                self._enc = Encounter.open(self.store)
            elif mark is None or mark != self._mark:
                try:
                    self._enc.refresh()
                except InputError:
                    self._enc = Encounter.open(self.store)  # not a plain append: read it all again
            self._mark = mark
            return self._enc

    def version(self) -> int:
        return len(self.live().records)

    def past(self, at: int) -> Encounter:
        """A read-only view of the encounter as it stood after sequence number `at`."""
        return Encounter.open(self.store, upto=at)

    def write(
        self, seen: int, command: Command, text: str, command_id: str | None = None
    ) -> list[Record] | Rejection:
        """Run a command if the page saw the latest version; raises Stale otherwise."""
        with self.lock:
            enc = self.live()
            now = len(enc.records)
            if seen != now:
                raise Stale(seen, now)
            try:
                result = enc.execute(command, text, command_id)
            except ConflictError:  # another program appended between our look and our write
                raise Stale(seen, self.version()) from None
            self._mark = self._signature()  # our own append is already folded in
            return result


# --- request bodies ----------------------------------------------------------------------------


class MoveBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A move picked on the board: a destination (cheapest path) or waypoints (straight lines)."""

    fighter: str
    to: tuple[int, int] | None = None
    waypoints: tuple[tuple[int, int], ...] = ()


class CommandBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A command as typed (`text`, the CLI syntax) or picked on the board (`move`)."""

    version: int | None = None
    text: str | None = None
    move: MoveBody | None = None
    rolls: tuple[int, ...] = ()  # numbers rolled at the table for this command's checks, in order
    by: str | None = None  # optional: if given, it must be whom the link speaks for
    reveal: bool = False  # preview only: show seeded checks' numbers and what follows (the GM's choice)
    command_id: str | None = None  # the page's own key for this command: a retry appends nothing


class UndoBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    version: int
    by: str | None = None  # optional: if given, it must be whom the link speaks for
    why: str = ""
    command_id: str | None = None


class InviteBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    role: str  # a side of the encounter, or "gm"
    hours: float | None = None
    label: str = ""


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


async def _body(request: Request, kind: type[_T]) -> _T:
    # JSON only: a page of another site can't send that without the browser asking first,
    # so it can't drive the table through a visitor's browser.
    kind_of = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind_of != "application/json":
        raise BadRequest(
            f"{request.url.path}: send the body as application/json, not {kind_of or 'no content type'}", 415
        )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise BadRequest(_too_big(request, int(declared)), 413)
    raw = b""
    async for chunk in request.stream():  # read no further than the limit, whatever the header said
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise BadRequest(_too_big(request, len(raw)), 413)
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


def _error(status: int, error: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": error, "message": message, **extra}, status_code=status)


def _bad(exc: BadRequest) -> JSONResponse:
    kinds = {400: "bad request", 403: "forbidden", 404: "not found", 409: "conflict"}
    kinds[413], kinds[415] = "too large", "unsupported media type"
    return _error(exc.status, kinds.get(exc.status, "bad request"), exc.message)


def _stale(exc: Stale) -> JSONResponse:
    return _error(
        409,
        "stale",
        f"the log has {exc.now} records but this page saw {exc.seen}: someone else changed the "
        "encounter; look at the board again and retry",
        version=exc.now,
        seen=exc.seen,
    )


def _command(table: Table, body: CommandBody, where: str, who: Invite) -> tuple[Command, str, dict[str, Any]]:
    """The command a body asks for, said by whom the link speaks for, its text as the log will
    show it, and what the page should draw. A player's command is authorised here (403)."""
    extra: dict[str, Any] = {}
    if (body.text is None) == (body.move is None):
        raise BadRequest(f"{where}: give either text (a command such as move ari 3,4) or move, not both")
    speaks_as(who, body.by, where)
    text = _move_text(table, body.move, extra) if body.move is not None else (body.text or "").strip()
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise BadRequest(f"{where}: {exc} in {text!r}") from None
    for word in words:  # a by= typed into the command counts as asking to speak for someone
        if word.startswith("by="):
            speaks_as(who, word[3:], where)
    words = [w for w in words if not w.startswith("by=")]
    words += [f"roll={n}" for n in body.rolls]
    if who.role != GM:
        words.append(f"by={who.role}")
    text = shlex.join(words)
    try:
        command = parse(text, where)
    except InputError as exc:
        raise BadRequest(str(exc)) from None
    authorise(table.live(), who, command, body.reveal, where)
    extra["text"] = text
    return command, text, extra


def speaks_as(who: Invite, asked: str | None, where: str) -> None:
    """A request may name whom it speaks for only to say what its link already says."""
    if asked is not None and asked != who.role:
        raise BadRequest(f"{where}: this link speaks for {who.role}; it can't act as {asked}", 403)


def authorise(enc: Encounter, who: Invite, command: Command, reveal: bool, where: str) -> None:
    """What a player link may ask for (403 otherwise); the GM's link may ask for anything.

    The engine decides what is legal; this says who may ask at all: a side commands
    its own fighters (the engine's tabletrail/side check, asked here before any
    rule runs), undoes or redoes only its own side's commands, and never makes a
    ruling, changes a setting or sees a seeded roll before it is drawn.
    """
    if who.role == GM:
        return
    verb = command.__struct_config__.tag
    if reveal:
        raise BadRequest(f"{where}: only the GM may show seeded rolls before they are drawn", 403)
    if type(command) in ENGINE_HANDLERS:
        raise BadRequest(
            f"{where}: {verb} is the GM's (rulings and settings); this link speaks for {who.role}", 403
        )
    if isinstance(command, Undo | Redo):
        t = enc.timeline
        target = t.undo_target() if isinstance(command, Undo) else t.redo_target()
        owner = t.actors.get(target, GM) if target is not None else who.role
        if owner != who.role:
            raise BadRequest(
                f"{where}: the latest command was entered by {owner}; this link speaks for {who.role} "
                f"and may {verb} only its own side's commands",
                403,
            )
        return
    try:
        get_ruleset(enc.state.ruleset).check_side(enc.state, command)
    except Refusal as exc:
        raise BadRequest(f"{where}: {exc.reason}", 403) from None


def _move_text(table: Table, move: MoveBody, extra: dict[str, Any]) -> str:
    """The move command for a destination picked on the board: the cheapest path the rules allow."""
    state = table.live().state
    f = state.fighter(move.fighter)
    if f is None:
        known = ", ".join(x.id for x in state.fighters)
        raise BadRequest(f"move: no fighter {move.fighter!r} (fighters: {known})", 404)
    if move.to is not None and move.waypoints:
        raise BadRequest("move: give a destination (to) or waypoints, not both")
    cells = [move.to] if move.to is not None else list(move.waypoints)
    if not cells:
        raise BadRequest("move: give a destination (to) or waypoints")
    if len(cells) > MAX_WAYPOINTS:
        raise BadRequest(f"move: {len(cells):,} waypoints; the limit is {MAX_WAYPOINTS} (MAX_WAYPOINTS)")
    for x, y in cells:
        if not state.grid.inside(x, y):
            raise BadRequest(f"move: {x},{y} is off the {state.grid.width}x{state.grid.height} map")
    start = (f.pos[0], f.pos[1])
    extra["route"] = "straight"  # waypoints, or a destination out of reach: the dry run will say why
    if move.to is not None:
        area = reach(state, f.id)
        if move.to not in area.costs and area.budget > 0:  # the ruler's middle band: the route it drew
            more, _ = get_ruleset(state.ruleset).further_budget(state, f)
            area = reach(state, f.id, extra=more) if more > 0 else area
        if move.to in area.costs:
            cells = waypoints(start, area.path(move.to))
            extra["route"] = "cheapest"
        else:  # out of reach: the way the engine would take, so the dry run names what shuts it
            cells, extra["route"] = _blocked_way(state, f, move.to, cells, extra["route"])
    else:  # the same cells in the fewest words (a drag's route plus its waypoints can be long)
        cells = waypoints(start, expand(start, cells))
    # The cells the move asks for, so the page can draw the route even when it is refused.
    extra["path"] = [list(c) for c in expand(start, cells)]
    return f"move {f.id} " + " ".join(f"{x},{y}" for x, y in cells)


def _blocked_way(
    state: EncounterState, f: Fighter, to: tuple[int, int], cells: list[Any], route: str
) -> tuple[list[Any], str]:
    """The waypoints of the way to a cell out of reach and "blocked", or the straight line as given.

    The way (core/way.py) may pass a shut door, a fighter or a forbidden cell, or be too long:
    the dry run of it is refused for that, not for the first wall on a straight line. A way
    stopped at the cell itself (someone stands there) is that cell's refusal either way.
    """
    from tabletrail.core.way import way_to

    more, _ = get_ruleset(state.ruleset).further_budget(state, f)
    found = way_to(state, f.id, to, extra=max(0, more))
    if found is None or not found.cells or (found.stops and found.stops[0].at == to):
        return cells, route
    points = waypoints((f.pos[0], f.pos[1]), list(found.cells))
    return (points, "blocked") if len(points) <= MAX_WAYPOINTS else (cells, route)


def _route(area: Reach, cell: tuple[int, int]) -> list[list[int]]:
    total, out = 0, []
    for step in area.steps(cell):
        total += step.cost
        out.append([step.to[0], step.to[1], total])
    return out


def further(state: EncounterState, f: Fighter, area: Reach) -> dict[str, Any] | None:
    """The ruler's middle band: cells past this move's budget that one more action would reach.

    None when the ruleset has no such action or none is left (`Ruleset.further_budget`).
    Dropping a token there is refused like any move past its budget; the band tells why.
    """
    extra, action = get_ruleset(state.ruleset).further_budget(state, f)
    if extra <= 0 or area.budget <= 0:
        return None
    wide = reach(state, f.id, extra=extra)
    beyond = {cell: cost for cell, cost in wide.costs.items() if cell not in area.costs}
    return {
        "budget": wide.budget,
        "action": action,
        "cells": [[x, y, cost] for (x, y), cost in sorted(beyond.items())],
        "routes": {f"{x},{y}": _route(wide, (x, y)) for (x, y) in beyond},
    }


def blocked(state: EncounterState, area: Reach) -> dict[str, Any] | None:
    """Why the fighter can't move now, or None if it can (or nothing tells).

    The step policy prices the cells; whether the fighter may start a move at all
    (its turn, a reaction the encounter waits for) is the ruleset's to say. The
    dry run of the cheapest plain move asks it. With nothing left to spend (an
    object, a spent budget), a step onto an open neighbouring cell asks why.
    """
    start = (area.start[0], area.start[1])
    plain = [c for c in area.costs if c not in area.events]
    if plain:
        cell = min(plain, key=lambda c: (area.costs[c], c))
        text = f"move {area.fighter} " + " ".join(f"{x},{y}" for x, y in waypoints(start, area.path(cell)))
    elif area.budget == 0:
        grid = state.grid
        near = [
            (start[0] + dx, start[1] + dy)
            for dx, dy in NEIGHBOURS
            if grid.inside(start[0] + dx, start[1] + dy) and not grid.blocked(start[0] + dx, start[1] + dy)
        ]
        if not near:
            return None
        text = f"move {area.fighter} {near[0][0]},{near[0][1]}"
    else:
        return None  # something to spend, but every way is shut: the board shows why
    result = decide(state, parse(text, "reach"))
    if isinstance(result, Rejection) and not views.needs_roll(result):
        return {**views.refusal(get_ruleset(state.ruleset), result), "tried": text}
    return None


# --- endpoints -----------------------------------------------------------------------------------


LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def token_of(request: Request) -> str | None:
    """The token a request carries: `Authorization: Bearer …`, or `?token=`
    (where a browser can't set a header: the live stream)."""
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return request.query_params.get("token")


def _denied(exc: Denied) -> JSONResponse:
    return _error(exc.status, "bad link", exc.reason)  # the page says so and stops


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
    from html import escape

    body = NOTICE.format(title=escape(title), message=escape(message), base=base)
    return HTMLResponse(
        body, status_code=status, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    )


def create_app(
    log: str | Path,
    store: Store | None = None,
    hosts: tuple[str, ...] = LOCAL_HOSTS,
    exposed: bool = False,
    changes: Callable[[], anyio.Event] | None = None,
) -> Starlette:
    """The table view of one encounter log, answering only requests addressed to `hosts`.

    (Checking the Host header keeps a page of another site, served from a name
    that resolves to this machine, from reading or driving the table.) `exposed`
    says the server listens beyond this machine: the page then warns that links
    are bearer secrets and that TLS is a reverse proxy's job. `changes()`, when
    given, is an event set at the log's next change (a PostgreSQL NOTIFY,
    app/web/live.py): live streams wait on it instead of looking every POLL_SECONDS.
    """
    table = Table(log, store)

    def guarded(endpoint: Any, gm_only: bool = False) -> Any:
        """The endpoint, answered only for a valid token; `who` (the invite) is passed to it."""
        is_async = inspect.iscoroutinefunction(endpoint)

        async def wrapped(request: Request) -> Response:
            try:
                who = await anyio.to_thread.run_sync(table.invites.check, token_of(request))
            except Denied as exc:
                return _denied(exc)
            if gm_only and who.role != GM:
                return _error(
                    403, "forbidden", f"{request.url.path}: the GM's; this link speaks for {who.role}"
                )
            if is_async:
                return await endpoint(request, who)
            return await anyio.to_thread.run_sync(endpoint, request, who)

        return wrapped

    def me(request: Request, who: Invite) -> Response:
        return JSONResponse({**_me(who), "exposed": exposed})

    def state(request: Request, who: Invite) -> Response:
        with table.lock:
            return _state(request, who)

    def _state(request: Request, who: Invite) -> Response:
        enc = table.live()
        version = len(enc.records)
        raw = request.query_params.get("at")
        if raw is not None:
            try:
                at = int(raw)
            except ValueError:
                return _error(400, "bad request", f"at: expected a sequence number, got {raw!r}")
            if not 1 <= at <= version:
                return _error(400, "bad request", f"at: {at} is outside the log (1 to {version})")
            if at != version:
                enc = table.past(at)
        return JSONResponse({**views.board(enc, version), "me": _me(who), "exposed": exposed})

    def events(request: Request, who: Invite) -> Response:
        with table.lock:
            enc = table.live()
            return JSONResponse(
                {"version": len(enc.records), "events": [views.record(enc, r) for r in enc.records]}
            )

    def explain(request: Request, who: Invite) -> Response:
        with table.lock:
            enc = table.live()
            raw = request.path_params["seq"]
            if not raw.isdigit() or not 1 <= int(raw) <= len(enc.records):
                return _error(404, "not found", f"no event {raw} (the log has 1 to {len(enc.records)})")
            return JSONResponse(views.explain(enc, int(raw)))

    def reachable(request: Request, who: Invite) -> Response:
        fid = request.query_params.get("fighter", "")
        with table.lock:
            enc = table.live()
            version, state = len(enc.records), enc.state
        f = state.fighter(fid)  # the state is immutable: safe to read outside the lock
        if f is None:
            known = ", ".join(x.id for x in state.fighters)
            return _error(404, "unknown fighter", f"reach: no fighter {fid!r} (fighters: {known})")
        area = reach(state, fid)
        return JSONResponse(
            {
                "version": version,
                "fighter": fid,
                "from": list(f.pos),
                "budget": area.budget,
                "unit": area.unit,
                "cells": [[x, y, cost] for (x, y), cost in sorted(area.costs.items())],
                # The cheapest route to each cell, as [x, y, running cost] steps: the drag ruler's.
                "routes": {f"{x},{y}": _route(area, (x, y)) for (x, y) in area.costs},
                "events": sorted([x, y] for x, y in area.events),
                "blocked": blocked(state, area),
                "further": further(state, f, area),
            }
        )

    def options(request: Request, who: Invite) -> Response:
        """The quick commands for a fighter, each dry-run now: which the rules allow, which not and why.

        One request for all of them (the page shows the allowed ones as buttons, the rest under
        "more"); a command this link may not ask for at all is left out.
        """
        fid = request.query_params.get("fighter", "")
        with table.lock:
            enc = table.live()
            state = enc.state
            if state.fighter(fid) is None:
                known = ", ".join(x.id for x in state.fighters)
                return _error(404, "unknown fighter", f"options: no fighter {fid!r} (fighters: {known})")
            rs = get_ruleset(state.ruleset)
            out = []
            quick = [
                (c, f"{c['verb']} {fid}" if c["takes_fighter"] else str(c["verb"]))
                for c in views.commands(rs)
                if c["verb"] != "move" and not c["gm"] and (c["fighter_only"] or c["bare"])
            ]
            # A door within reach gives the verb that changes it (tabletrail/doors): open it, or close it.
            verbs = {c["verb"]: c for c in views.commands(rs)}
            for door, now in doors_beside(state, fid):
                verb = "close" if now == "open" else "open"
                quick.append((verbs[verb], f"{verb} {fid} {door}"))
            for c, text in quick:
                command = parse(text if who.role == GM else f"{text} by={who.role}", "options")
                try:
                    authorise(enc, who, command, False, "options")
                except BadRequest:
                    continue
                result = enc.preview(command)
                refused = isinstance(result, Rejection)
                out.append(
                    {
                        "verb": c["verb"],
                        "text": text,
                        "doc": c["doc"],
                        "ok": not refused or views.needs_roll(result),
                        **({"rule": result.rule, "reason": result.reason} if refused else {}),
                    }
                )
            return JSONResponse({"version": len(enc.records), "fighter": fid, "options": out})

    async def preview(request: Request, who: Invite) -> Response:
        try:
            body = await _body(request, CommandBody)
            return await anyio.to_thread.run_sync(_preview, body, who)
        except BadRequest as exc:
            return _bad(exc)

    def _preview(body: CommandBody, who: Invite) -> Response:
        with table.lock:
            enc = table.live()
            version = len(enc.records)
            if body.version is not None and body.version != version:
                return _stale(Stale(body.version, version))
            command, text, extra = _command(table, body, "preview", who)
            f = enc.state.fighter(getattr(command, "fighter", "") or "")
            dry = views.dry_run(enc, command, text, body.reveal)
        return JSONResponse({**dry, "version": version, **extra, "from": list(f.pos) if f else None})

    async def do(request: Request, who: Invite) -> Response:
        try:
            body = await _body(request, CommandBody)
            if body.version is None:
                raise BadRequest("do: give the version (record count) this page saw")
            if body.reveal:
                raise BadRequest("do: reveal is for previews; a command draws its rolls when it runs")
            return await anyio.to_thread.run_sync(_do, body, who)
        except BadRequest as exc:
            return _bad(exc)

    def _do(body: CommandBody, who: Invite) -> Response:
        with table.lock:
            again = replayed(table, body.command_id, who, "do")
            if again is not None:
                return again
            version = table.version()
            if body.version != version:
                return _stale(Stale(body.version or 0, version))
            command, text, extra = _command(table, body, "do", who)
            return _written(table, body.version, command, text, extra, body.command_id)

    def _undoer(kind: type[Undo] | type[Redo]) -> Any:
        verb = str(kind.__struct_config__.tag)

        async def endpoint(request: Request, who: Invite) -> Response:
            try:
                body = await _body(request, UndoBody)
                speaks_as(who, body.by, verb)
            except BadRequest as exc:
                return _bad(exc)
            command = kind(by=who.role, why=body.why)

            def run() -> Response:
                with table.lock:
                    try:
                        again = replayed(table, body.command_id, who, verb)
                        if again is not None:
                            return again
                        authorise(table.live(), who, command, False, verb)
                    except BadRequest as exc:
                        return _bad(exc)
                    return _written(table, body.version, command, verb, {}, body.command_id)

            return await anyio.to_thread.run_sync(run)

        return endpoint

    def invites(request: Request, who: Invite) -> Response:
        return JSONResponse({"invites": [i.public() for i in table.invites.all()]})

    async def invite(request: Request, who: Invite) -> Response:
        try:
            body = await _body(request, InviteBody)
        except BadRequest as exc:
            return _bad(exc)
        sides = sorted({f.side for f in table.live().state.fighters})
        if body.role != GM and body.role not in sides:
            return _error(
                400, "bad request", f"invite: no side {body.role!r} (sides: {', '.join(sides)}, or gm)"
            )
        try:
            made, tok = await anyio.to_thread.run_sync(
                lambda: table.invites.make(body.role, body.hours, body.label)
            )
        except InputError as exc:
            return _error(400, "bad request", str(exc))
        base = str(request.base_url).rstrip("/")
        return JSONResponse({**made.public(), "token": tok, "url": f"{base}/join/{tok}"})

    def revoke(request: Request, who: Invite) -> Response:
        ident = request.path_params["ident"]
        if ident == who.id:
            return _error(
                400, "bad request", "revoke: this is the link you are using; revoke it from another GM link"
            )
        try:
            done = table.invites.revoke(ident)
        except InputError as exc:
            return _error(404, "not found", str(exc))
        return JSONResponse(done.public())

    async def stream(request: Request) -> Response:
        token = token_of(request)
        try:  # a file's stat or one indexed row: cheap enough not to wait for a worker thread
            table.invites.check(token)
        except Denied as exc:
            return _denied(exc)
        try:
            seconds = float(request.query_params.get("seconds", STREAM_SECONDS))
            last = int(request.query_params.get("last", -1))
        except ValueError:
            return _error(400, "bad request", "stream: seconds and last must be numbers")
        if not math.isfinite(seconds) or seconds < 0:  # a NaN would never end the stream
            return _error(400, "bad request", f"stream: seconds must be a number from 0 up, got {seconds}")

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
                    yield f"event: version\ndata: {json.dumps({'version': version})}\n\n"
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

        return StreamingResponse(
            updates(), media_type="text/event-stream", headers={"Cache-Control": "no-store"}
        )

    def image(request: Request, who: Invite) -> Response:
        """A token's picture, as the scenario named it (only those files are ever served)."""
        fid = request.path_params["fighter"]
        spec = table.live().state.scenario.fighter(fid)
        path = Path(spec.picture) if spec is not None and spec.picture else None
        if path is None or not path.is_file() or path.stat().st_size > IMAGE_BYTES:
            return _error(404, "not found", f"image: no picture for {fid!r}")
        return FileResponse(path, headers={"Cache-Control": "private, max-age=3600"})

    def picture(request: Request, who: Invite) -> Response:
        """The battle-map picture the scenario pinned (see Table.picture_file), never another file."""
        spec = table.live().state.scenario.picture
        if not isinstance(spec, PictureSpec):
            return _error(404, "not found", "picture: this encounter's scenario has no [picture]")
        path = table.picture_file(spec)
        if path is None:
            return _error(
                404,
                "not found",
                f"picture: {spec.name} is neither at {spec.file} nor beside the log with the bytes the "
                "encounter began with (sha256 " + spec.sha256[:12] + "…)",
            )
        return FileResponse(
            path, media_type=MEDIA_TYPES.get(spec.kind), headers={"Cache-Control": "private, max-age=86400"}
        )

    def join(request: Request) -> Response:
        base = request.scope.get("root_path", "")
        try:
            table.invites.check(request.path_params["token"])
        except Denied as exc:
            title = "This link does not open the table" if exc.status == 401 else "This link no longer works"
            return notice(exc.status, title, exc.reason, base)
        return FileResponse(
            STATIC / "index.html", headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
        )

    def page(request: Request) -> Response:
        return notice(
            401,
            "An invitation link is needed",
            "This table opens from a link the GM gives you (it ends in /join/…).",
            request.scope.get("root_path", ""),
        )

    def broken_log(request: Request, exc: Exception) -> Response:
        return _error(500, "log unreadable", str(exc))

    def unavailable(request: Request, exc: Exception) -> Response:
        return _error(503, "unavailable", str(exc))

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/join/{token}", join),
            Route("/api/me", guarded(me)),
            Route("/api/state", guarded(state)),
            Route("/api/events", guarded(events)),
            Route("/api/events/{seq}", guarded(explain)),
            Route("/api/reach", guarded(reachable)),
            Route("/api/options", guarded(options)),
            Route("/api/preview", guarded(preview), methods=["POST"]),
            Route("/api/do", guarded(do), methods=["POST"]),
            Route("/api/undo", guarded(_undoer(Undo)), methods=["POST"]),
            Route("/api/redo", guarded(_undoer(Redo)), methods=["POST"]),
            Route("/api/invites", guarded(invites, gm_only=True)),
            Route("/api/invites", guarded(invite, gm_only=True), methods=["POST"]),
            Route("/api/invites/{ident}/revoke", guarded(revoke, gm_only=True), methods=["POST"]),
            Route("/api/stream", stream),
            Route("/api/image/{fighter}", guarded(image)),
            Route("/api/picture", guarded(picture)),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={InputError: broken_log, Unavailable: unavailable},
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
    )
    app.state.table = table
    return app


def _me(who: Invite) -> dict[str, Any]:
    return {"role": who.role, "gm": who.role == GM, "invite": who.id, "label": who.label}


COMMAND_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")


def replayed(table: Table, command_id: str | None, who: Invite, where: str) -> Response | None:
    """The answer to a command sent again with the key it was first sent with (a retry after a
    dropped connection): the records it appended then, and nothing new. None if it is new."""
    if command_id is None:
        return None
    if not COMMAND_ID.match(command_id):
        raise BadRequest(f"{where}: command_id: expected 8 to 64 letters, digits, - or _, got {command_id!r}")
    enc = table.live()
    done = enc.recorded(command_id)
    if done is None:
        return None
    if done[0].actor != who.role:
        raise BadRequest(f"{where}: command_id {command_id!r} was used from another link", 409)
    issued = enc.timeline.commands.get(done[0].batch)
    return JSONResponse(
        {
            "ok": True,
            "version": len(enc.records),
            "replayed": True,
            "text": issued.text if issued else "",
            "records": [views.record(enc, r) for r in done],
        }
    )


def _written(
    table: Table, seen: int, command: Command, text: str, extra: dict[str, Any], command_id: str | None = None
) -> Response:
    """Run a write and answer: 200 with the new records, 422 refused, 409 stale."""
    with table.lock:
        try:
            result = table.write(seen, command, text, command_id)
        except Stale as exc:
            return _stale(exc)
        return _write_answer(table, result, extra)


def _write_answer(table: Table, result: list[Record] | Rejection, extra: dict[str, Any]) -> Response:
    if isinstance(result, Rejection):
        return _error(
            422,
            "refused",
            f"refused by {result.rule}: {result.reason}",
            **extra,
            **views.refusal(get_ruleset(table.live().state.ruleset), result),
        )
    enc = table.live()
    return JSONResponse(
        {
            "ok": True,
            "version": len(enc.records),
            **extra,
            "records": [views.record(enc, r) for r in result],
        }
    )


LOOPBACK = ("127.0.0.1", "localhost", "::1")
SESSION = "serve session"  # the label of the GM link `serve` makes for its own run


def lan_address() -> str | None:
    """This machine's address on the local network (the one a phone would use), if any.

    Connecting a UDP socket sends nothing; it only asks the kernel which address would be used.
    """
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere
        address = str(s.getsockname()[0])
        return None if address.startswith("127.") or address == "0.0.0.0" else address
    return None


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


def serve(log: str, port: int, host: str = "127.0.0.1", allow: tuple[str, ...] = ()) -> None:
    """Run the table view until Ctrl+C, printing a GM link that works for this run only."""
    import uvicorn

    exposed = host not in LOOPBACK
    app = create_app(log, hosts=allowed_hosts(host, allow), exposed=exposed)
    table: Table = app.state.table
    for old in table.invites.all():  # a run that was killed could not revoke its own link
        if old.label == SESSION and old.revoked is None:
            table.invites.revoke(old.id)
    session, token = table.invites.make(GM, label=SESSION)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            table.closing.set()  # end the live streams, so the open pages don't hold the exit up
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)
    shown = host if host not in ("0.0.0.0", "::") else (lan_address() or "127.0.0.1")
    shown = f"[{shown}]" if ":" in shown else shown
    print(f"serving {log} at http://{shown}:{port}/ (Ctrl+C stops)", flush=True)
    print(f"GM link (this run only): http://{shown}:{port}/join/{token}", flush=True)
    print(
        f"player links: tabletrail invite {shlex.quote(log)} --side SIDE --url http://{shown}:{port}",
        flush=True,
    )
    if exposed:
        print(
            "warning: listening beyond this machine over plain HTTP. A link is a bearer secret: anyone "
            "holding it acts for its side. Put TLS in front with a reverse proxy (see the README).",
            flush=True,
        )
    try:
        with contextlib.suppress(KeyboardInterrupt):  # uvicorn hands Ctrl+C back once it has shut down
            Server(config).run()
    finally:
        table.invites.revoke(session.id)
    print(f"stopped serving {log}", flush=True)
