"""The command handlers: a dry run, a command, undo and redo, each said by whom the link speaks for.

Who asks is told by the invitation link's token, never by the request: the
server writes `by=` from it, a player link commands only its own side's
fighters and undoes only its own side's commands, and rulings, settings and
revealed rolls are the GM's (403 for a player). A write carries the version its
page saw (409 if the log moved on) and may carry the page's own key for the
command, so a retry after a dropped connection appends nothing.
"""

from __future__ import annotations

import shlex
from typing import Any

from starlette.responses import JSONResponse, Response
from tabletrail.core.board.geometry import expand
from tabletrail.core.board.refusal import Refusal, Rejection
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import ENGINE_HANDLERS
from tabletrail.core.search.reach import reach, waypoints
from tabletrail.core.search.way import way_to
from tabletrail.events.commands import Command, Redo, Undo
from tabletrail.events.errors import InputError
from tabletrail.events.limits import MAX_WAYPOINTS
from tabletrail.events.stores.record import Record
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse
from tabletrail.web import actions, redact, views
from tabletrail.web.bodies import CommandBody, DoBody, MoveBody, UndoBody
from tabletrail.web.invites import GM, Invite
from tabletrail.web.table import Stale, Table
from tabletrail.web.wire import BadRequest, Call, bad, stale


def preview(call: Call) -> Response:
    """The dry run of a command: what it would do and cost, or the rule that refuses it; nothing appended."""
    body: CommandBody = call.body
    table = call.table
    try:
        with table.lock:
            enc = table.live()
            version = len(enc.records)
            if body.version is not None and body.version != version:
                return stale(Stale(body.version, version))
            command, text, extra = _command(table, body, "preview", call.user)
            f = enc.state.fighter(getattr(command, "fighter", "") or "")
            dry = views.dry_run(enc, command, text, body.reveal)
    except BadRequest as exc:
        return bad(exc)
    said = {**dry, "version": version, **extra, "from": list(f.pos) if f else None}
    if not dry["ok"]:  # the refusal in words: names for ids, no command syntax or by= in brackets
        said["why"] = actions.plain(enc.state, dry["reason"])
    return JSONResponse(redact.scrub(call.user, enc, said))


def do(call: Call) -> Response:
    """Run a command seen at `version`: 200 with the records appended, 422 refused, 409 stale."""
    body: DoBody = call.body
    table, who = call.table, call.user
    try:
        with table.lock:
            again = replayed(table, body.command_id, who, "do")
            if again is not None:
                return again
            version = table.version()
            if body.version != version:
                return stale(Stale(body.version, version))
            command, text, extra = _command(table, body, "do", who)
            return _written(table, body.version, command, text, extra, who, body.command_id)
    except BadRequest as exc:
        return bad(exc)


def undo(call: Call) -> Response:
    """Take back the latest command (an Undone event: nothing is edited or deleted)."""
    return _undo_or_redo(call, Undo)


def redo(call: Call) -> Response:
    """Put back the latest command taken back, without rolling again."""
    return _undo_or_redo(call, Redo)


def _undo_or_redo(call: Call, kind: type[Undo] | type[Redo]) -> Response:
    verb = str(kind.__struct_config__.tag)
    body: UndoBody = call.body
    table, who = call.table, call.user
    try:
        speaks_as(who, body.by, verb)
        command = kind(by=who.role, why=body.why)
        with table.lock:
            again = replayed(table, body.command_id, who, verb)
            if again is not None:
                return again
            authorise(table.live(), who, command, False, verb)
            return _written(table, body.version, command, verb, {}, who, body.command_id)
    except BadRequest as exc:
        return bad(exc)


def _command(
    table: Table, body: CommandBody | DoBody, where: str, who: Invite
) -> tuple[Command, str, dict[str, Any]]:
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
    authorise(table.live(), who, command, getattr(body, "reveal", False), where)
    extra["text"] = text if who.role == GM else views.without_by(text)  # a player's screen says no by=
    extra["words"] = views.said(table.live().state, command)  # what every screen shows: no syntax
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

    The way (core/search/way.py) may pass a shut door, a fighter or a forbidden cell, or be too long:
    the dry run of it is refused for that, not for the first wall on a straight line. A way
    stopped at the cell itself (someone stands there) is that cell's refusal either way.
    """

    more, _ = get_ruleset(state.ruleset).further_budget(state, f)
    found = way_to(state, f.id, to, extra=max(0, more))
    if found is None or not found.cells or (found.stops and found.stops[0].at == to):
        return cells, route
    points = waypoints((f.pos[0], f.pos[1]), list(found.cells))
    return (points, "blocked") if len(points) <= MAX_WAYPOINTS else (cells, route)


def replayed(table: Table, command_id: str | None, who: Invite, where: str) -> Response | None:
    """The answer to a command sent again with the key it was first sent with (a retry after a
    dropped connection): the records it appended then, and nothing new. None if it is new."""
    if command_id is None:
        return None
    enc = table.live()
    done = enc.recorded(command_id)
    if done is None:
        return None
    if done[0].actor != who.role:
        raise BadRequest(f"{where}: command_id {command_id!r} was used from another link", 409)
    issued = enc.timeline.commands.get(done[0].batch)
    said = {
        "ok": True,
        "version": len(enc.records),
        "replayed": True,
        "text": issued.text if issued else "",
        "records": [views.record(enc, r, role=r.actor) for r in done],
    }
    return JSONResponse(redact.scrub(who, enc, said))


def _written(
    table: Table,
    seen: int,
    command: Command,
    text: str,
    extra: dict[str, Any],
    who: Invite,
    command_id: str | None = None,
) -> Response:
    """Run a write and answer: 200 with the new records, 422 refused, 409 stale."""
    with table.lock:
        try:
            result = table.write(seen, command, text, command_id)
        except Stale as exc:
            return stale(exc)
        return _write_answer(table, result, extra, who)


def _write_answer(
    table: Table, result: list[Record] | Rejection, extra: dict[str, Any], who: Invite
) -> Response:
    """200 with the records appended, or 422 with the rule that refused; as `who` may read them."""
    enc = table.live()
    if isinstance(result, Rejection):
        said = {
            "error": "refused",
            "message": f"refused by {result.rule}: {result.reason}",
            **extra,
            **views.refusal(get_ruleset(enc.state.ruleset), result),
            "why": actions.plain(enc.state, result.reason),
        }
        return JSONResponse(redact.scrub(who, enc, said), status_code=422)
    said = {
        "ok": True,
        "version": len(enc.records),
        **extra,
        "records": [views.record(enc, r, role=r.actor) for r in result],  # in the words of who wrote it
    }
    return JSONResponse(redact.scrub(who, enc, said))
