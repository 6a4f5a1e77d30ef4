"""The board's handlers: who a link speaks for, the board now or in the past, the quick commands of a
fighter, the token and battle-map pictures, and the two pages (a link's, and the one without)."""

from __future__ import annotations

import threading
import weakref
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import msgspec
from starlette.responses import FileResponse, JSONResponse, Response
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.engine.doors import doors_beside
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.picture import MEDIA_TYPES, PictureSpec
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse
from tabletrail.web import redact, views
from tabletrail.web.actions import awaiting
from tabletrail.web.answers import Me, Option, Options
from tabletrail.web.api import audit as api_audit
from tabletrail.web.api.commands import authorise
from tabletrail.web.invites import GM, Denied, Invite
from tabletrail.web.table import BOARD, Encoded, Table
from tabletrail.web.wire import BadRequest, Call, answer, error, event_at, notice

STATIC = Path(__file__).resolve().parent.parent / "static"
IMAGE_BYTES = 4_000_000  # a token picture larger than this is not served (a photo straight off a camera)


def me_of(who: Invite) -> dict[str, Any]:
    return {"role": who.role, "gm": who.role == GM, "invite": who.id, "label": who.label}


def me(call: Call) -> Response:
    who = call.user
    shown = exposed_for(call)
    return answer(Me(role=who.role, gm=who.role == GM, invite=who.id, label=who.label, exposed=shown))


def exposed_for(call: Call) -> bool:
    """The warning that the server listens beyond this machine (links are bearer secrets, TLS is a
    reverse proxy's job) is the GM's to act on: a player's or a watcher's screen is not told."""
    return call.exposed and call.user.role == GM


async def state(call: Call) -> Response:
    """The board, live or (`?at=N`) as it stood after sequence number N: a read-only past view.

    A hosted worker answers the live board on the event loop, with no query and no thread, when its
    listener has heard of the newest version (at least the `seen` one the page was told of) and
    that side's board at that version is made already: after a move, every page of the table asks."""
    bad = call.bad_seen()
    if bad is not None:
        return bad
    known = call.heard_version()
    if known is None:
        return await anyio.to_thread.run_sync(_state, call, None)
    key, making = Encoded(BOARD, call.user.role), (call.table, known, Encoded(BOARD, call.user.role))
    board = call.table.encoded_at(known, key)
    while board is None and making in _MAKING:  # another page of the side asked first: its thread makes it
        await _MAKING[making].wait()
        board = call.table.encoded_at(known, key)
    if board is not None:
        return _with_me(board, call)
    made = _MAKING[making] = anyio.Event()
    try:
        return await anyio.to_thread.run_sync(_state, call, known)
    finally:
        del _MAKING[making]
        made.set()


# The boards a thread is making now, by table, version heard and key: the side's other pages that ask
# meanwhile wait for it on the event loop, each of them no longer sending a thread to wait for the
# table's lock and find the board made (issue 40). Only the event loop reads and writes it.
_MAKING: dict[tuple[Table, int, Encoded], anyio.Event] = {}


def _with_me(board: bytes, call: Call) -> Response:
    """The board is the same for every page of the side; who asks is spliced in after it."""
    mine = msgspec.json.encode({"me": me_of(call.user), "exposed": exposed_for(call)})
    return Response(board[:-1] + b"," + mine[1:], media_type="application/json")


def _state(call: Call, heard: int | None) -> Response:
    table = call.table
    with table.lock:
        enc = table.live(heard)
        version = len(enc.records)
        at = event_at(call.request.query_params.get("at"), version)
        if isinstance(at, Response):
            return at
        if at is not None and at != version:
            past = table.past(at)
            shown = redact.board(call.user, past, views.board(past, version, call.user.role))
            return JSONResponse({**shown, "me": me_of(call.user), "exposed": exposed_for(call)})
        role = call.user.role
        board = table.encoded_once(
            enc,
            version,
            Encoded(BOARD, role),
            lambda: msgspec.json.encode(redact.board(call.user, enc, board_for(table, enc, version, role))),
        )
        before = folded_before(table, enc, version)
        if before is not None and api_audit.accepts_gzip(call.request):
            # The page asks next for what changed in its event list since the version it held, the one
            # this worker folded before: made now, in this thread, it is answered on the event loop
            # (api_audit.events) instead of sending the page's next request to a thread too (issue 40).
            api_audit.listed(call, enc, True, api_audit.Part(after=before))
    return _with_me(board, call)


class Base(NamedTuple):
    """The GM's board of a table's live encounter at one version, and the version made before it."""

    enc: Encounter
    version: int
    board: dict[str, Any]
    before: int | None


# Per table: the GM's board of the live encounter at one version, which every side's board starts from.
_BASES: weakref.WeakKeyDictionary[Table, Base] = weakref.WeakKeyDictionary()
_BASES_LOCK = threading.Lock()


def folded_before(table: Table, enc: Encounter, version: int) -> int | None:
    """The version of `enc` this worker made a board of before `version`, if it made one."""
    with _BASES_LOCK:
        held = _BASES.get(table)
    return held.before if held is not None and held.enc is enc and held.version == version else None


def board_for(table: Table, enc: Encounter, version: int, role: str) -> dict[str, Any]:
    """views.board(enc, version, role), the fighters' cards made once a version for every side.

    After a move a hosted worker answers the GM's side and each player side of every table it has pages
    of, and the cards were most of each board (issue 40: about 1 ms a side and version, three times a
    move on each worker). What differs by side is only what views.board makes differ: a player's
    fighters without their raw marks and stats, its undo and redo labels, what it is awaited for
    (tests/web/test_board_sides.py holds the two equal). Called with the table's lock held."""
    with _BASES_LOCK:
        held = _BASES.get(table)
    if (
        held is not None
        and held.enc is enc
        and held.version == version
        and len(enc.records) == held.board["at"]
    ):
        base = held.board
    else:
        base = views.board(enc, version, GM)
        before = held.version if held is not None and held.enc is enc and held.version < version else None
        with _BASES_LOCK:
            _BASES[table] = Base(enc, version, base, before)
    if role == GM:
        return base
    t = enc.timeline
    return {
        **base,
        "fighters": [{**f, "marks": {}, "stats": {}} for f in base["fighters"]],
        "undo": views._batch_label(enc, t.undo_target(), role),
        "redo": views._batch_label(enc, t.redo_target(), role),
        "awaiting": awaiting(enc, role) if len(enc.records) == version else [],
    }


def options(call: Call) -> Response:
    """The quick commands for a fighter, each dry-run now: which the rules allow, which not and why.

    One request for all of them (the page shows the allowed ones as buttons, the rest under
    "more"); a command this link may not ask for at all is left out.
    """
    table, who = call.table, call.user
    fid = call.request.query_params.get("fighter", "")
    with table.lock:
        enc = table.live()
        state = enc.state
        if state.fighter(fid) is None:
            known = ", ".join(x.id for x in state.fighters)
            return error(404, "unknown fighter", f"options: no fighter {fid!r} (fighters: {known})")
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
            refused = result if isinstance(result, Rejection) else None
            out.append(
                Option(
                    verb=str(c["verb"]),
                    text=text,
                    doc=str(c["doc"]),
                    ok=refused is None or views.needs_roll(refused),
                    **({"rule": refused.rule, "reason": refused.reason} if refused is not None else {}),
                )
            )
        return answer(Options(version=len(enc.records), fighter=fid, options=out))


def image(call: Call) -> Response:
    """A token's picture, as the scenario named it (only those files are ever served)."""
    fid = call.request.path_params["fighter"]
    spec = call.table.live().state.scenario.fighter(fid)
    path = Path(spec.picture) if spec is not None and spec.picture else None
    if path is None or not path.is_file() or path.stat().st_size > IMAGE_BYTES:
        return error(404, "not found", f"image: no picture for {fid!r}")
    return FileResponse(path, headers={"Cache-Control": "private, max-age=3600"})


def picture(call: Call) -> Response:
    """The battle-map picture the scenario pinned (see Table.picture_file), never another file."""
    spec = call.table.live().state.scenario.picture
    if not isinstance(spec, PictureSpec):
        return error(404, "not found", "picture: this encounter's scenario has no [picture]")
    path = call.table.picture_file(spec)
    if path is None:
        return error(
            404,
            "not found",
            f"picture: {spec.name} is neither at {spec.file} nor beside the log with the bytes the "
            "encounter began with (sha256 " + spec.sha256[:12] + "…)",
        )
    return FileResponse(
        path, media_type=MEDIA_TYPES.get(spec.kind), headers={"Cache-Control": "private, max-age=86400"}
    )


def join(call: Call) -> Response:
    """The page, for whoever the link speaks for, or a page saying why not."""
    base = call.request.scope.get("root_path", "")
    try:
        call.table.invites.check(call.request.path_params["token"])
    except Denied as exc:
        title = "This link does not open the table" if exc.status == 401 else "This link no longer works"
        return notice(exc.status, title, exc.reason, base)
    return FileResponse(
        STATIC / "index.html", headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    )


def page(call: Call) -> Response:
    """The address without a link: a page saying an invitation link is needed."""
    return notice(
        401,
        "An invitation link is needed",
        "This table opens from a link the GM gives you (it ends in /join/…).",
        call.request.scope.get("root_path", ""),
    )
