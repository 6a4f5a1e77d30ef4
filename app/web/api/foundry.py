"""Handlers for the Foundry VTT bridge (integrations/foundry/): an encounter made from a Foundry scene, and a
token's move decided and recorded under Foundry's own movement id.

The module in Foundry decides nothing. It sends the scene and what the GM mapped
from each token's actor (`POST /api/foundry/encounter`, the GM's only): the scene
becomes a scenario here (events/maps/foundry_scene.py, the converter `import-map` uses),
a new log beside the served one starts from it, and the table plays that log from
then on (its links stay valid). Each drag is sent as the cells it passes and
Foundry's movement action (`POST /api/foundry/move`): the action becomes the
ruleset's verb (walk and crawl `move`, climb, swim, fly, jump, blink `teleport`,
a GM's displace `place`, a ruling), the move runs like any command under the
movement's id as its command id (a retry, or a second GM's client sending it again,
appends nothing), and the answer says what it cost and what is left this turn,
or the rule that refused it with its numbers.
"""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import Meta
from starlette.responses import JSONResponse, Response
from tabletrail.core.board.geometry import expand
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.engine.registry import RULESETS
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.search.reach import reach, waypoints
from tabletrail.events.errors import InputError
from tabletrail.events.limits import MAX_WAYPOINTS
from tabletrail.events.maps.foundry_scene import TokenSpec, convert_scene, slug
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.types import Moved, Placed
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for
from tabletrail.service.syntax import verbs_for
from tabletrail.web.api import commands as api_commands
from tabletrail.web.bodies import CommandBody, CommandId
from tabletrail.web.table import Stale, Table
from tabletrail.web.wire import BadRequest, Call, bad, error, stale

# Foundry's movement actions (CONFIG.Token.movement.actions, v13) and the verbs that play each, the first
# the ruleset knows: crawling is a walk the ruleset prices by posture; blink is a teleport where there is
# one; displace is the GM putting a token down (a ruling, `place`).
ACTIONS: dict[str, tuple[str, ...]] = {
    "walk": ("move",),
    "crawl": ("move",),
    "climb": ("climb", "move"),
    "swim": ("swim", "move"),
    "fly": ("fly",),
    "jump": ("special-jump", "move"),
    "blink": ("teleport",),
    "displace": ("place",),
}


Coordinate = Annotated[int, Meta(ge=0, le=9_999)]  # a cell's column or row


def verbs(ruleset_id: str) -> dict[str, str | None]:
    """Each Foundry movement action's verb under this ruleset, or None where it has none."""
    known = verbs_for(ruleset_id)
    return {action: next((v for v in tags if v in known), None) for action, tags in ACTIONS.items()}


class TokenBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What the GM's mapping says of one token: its side (from its owner) and stats (from its actor)."""

    side: Annotated[str, Meta(min_length=1, max_length=64)] | None = None
    stats: dict[str, float] = {}
    skip: bool = False


class EncounterBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A Foundry scene (its document's data: grid, width, height, padding, walls, tokens) to referee."""

    scene: dict[str, Any]
    # The rulesets this server knows, as the contract says them (checked again in `encounter`).
    ruleset: Annotated[str, Meta(min_length=1, max_length=64, extra_json_schema={"enum": sorted(RULESETS)})]
    name: Annotated[str, Meta(max_length=200)] | None = None
    tokens: dict[str, TokenBody] = {}


class FoundryMoveBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One Foundry movement: the fighter, the cells its waypoints fall in, its action, its id."""

    fighter: str
    # the cells its waypoints fall in, where it ends last (x, y: column, row)
    cells: Annotated[tuple[tuple[Coordinate, Coordinate], ...], Meta(min_length=1, max_length=MAX_WAYPOINTS)]
    command_id: CommandId  # Foundry's movement id: the same movement sent twice is recorded once
    action: Annotated[str, Meta(extra_json_schema={"enum": list(ACTIONS)})] = "walk"
    version: int | None = None  # the version the module saw; none: decided on the board as it stands
    why: Annotated[str, Meta(max_length=200)] = ""  # a displace's reason (a ruling says why)


def encounter(call: Call) -> Response:
    """Start refereeing a Foundry scene: its scenario made, a new log begun, the table playing it."""
    body: EncounterBody = call.body
    table = call.table
    if body.ruleset not in RULESETS:
        return bad(BadRequest(f"encounter: unknown ruleset {body.ruleset!r} (known: {', '.join(RULESETS)})"))
    rs = get_ruleset(body.ruleset)
    specs = {tid: TokenSpec(side=t.side, stats=t.stats, skip=t.skip) for tid, t in body.tokens.items()}
    try:
        done = convert_scene(
            body.scene,
            ruleset=rs.id,
            source="scene",
            name=body.name,
            stats=[s.name for s in rs.stats if s.default is None],
            tokens=specs,
            need_tokens=True,
        )
        with table.lock:
            path = _beside(table, body.name or str(body.scene.get("name") or "scene"))
            scenario = parse_scenario(_toml(done.toml), source=str(path))
            Encounter.create(store_for(str(path)), scenario)
            play(table, path)
            version = table.version()
    except InputError as exc:  # a well-formed request whose scene can't be refereed (hex grid, no tokens…)
        return error(422, "unusable scene", f"encounter: {exc}")
    except BadRequest as exc:
        return bad(exc)
    return JSONResponse(
        {
            "ok": True,
            "log": str(path),
            "version": version,
            "ruleset": rs.id,
            "unit": rs.unit,
            "grid": done.grid,
            "origin": list(done.origin),
            "width": done.report.width,
            "height": done.report.height,
            "fighters": [
                {"token": p.token, "fighter": p.fighter, "at": list(p.at), "side": p.side, "name": p.name}
                for p in done.fighters
            ],
            "sides": sorted({p.side for p in done.fighters}),
            "verbs": verbs(rs.id),
            "report": done.report.lines(),
            "scenario": done.toml,
        }
    )


def actions(call: Call) -> Response:
    """The verb each Foundry movement action plays under this table's ruleset (None: it has none)."""
    with call.table.lock:
        ruleset = call.table.live().state.ruleset
    return JSONResponse({"ruleset": ruleset, "verbs": verbs(ruleset)})


def move(call: Call) -> Response:
    """A Foundry movement decided and recorded once: 200 with its cost and what is left, 422 refused."""
    body: FoundryMoveBody = call.body
    table, who = call.table, call.user
    try:
        with table.lock:
            again = api_commands.replayed(table, body.command_id, who, "move")
            if again is not None:
                return again
            enc = table.live()
            version = len(enc.records)
            if body.version is not None and body.version != version:
                return stale(Stale(body.version, version))
            text = _text(enc, body)
            command, text, extra = api_commands._command(
                table, CommandBody(version=version, text=text, command_id=body.command_id), "move", who
            )
            try:
                result = table.write(version, command, text, body.command_id)
            except Stale as exc:
                return stale(exc)
            return _answer(table, body, result, extra, who)
    except BadRequest as exc:
        return bad(exc)


def _text(enc: Encounter, body: FoundryMoveBody) -> str:
    """The command a movement asks for, in the one command syntax."""
    state = enc.state
    f = state.fighter(body.fighter)
    if f is None:
        known = ", ".join(x.id for x in state.fighters)
        raise BadRequest(f"move: no fighter {body.fighter!r} (fighters: {known})", 404)
    if body.action not in ACTIONS:
        raise BadRequest(f"move: unknown movement action {body.action!r} (known: {', '.join(ACTIONS)})")
    if not body.cells:
        raise BadRequest("move: give the cells the movement passes (at least where it ends)")
    if len(body.cells) > MAX_WAYPOINTS:
        raise BadRequest(f"move: {len(body.cells):,} waypoints; the limit is {MAX_WAYPOINTS} (MAX_WAYPOINTS)")
    for x, y in body.cells:
        if not state.grid.inside(x, y):
            raise BadRequest(f"move: {x},{y} is off the {state.grid.width}x{state.grid.height} map", 404)
    verb = verbs(state.ruleset)[body.action]
    if verb is None:
        rs = get_ruleset(state.ruleset)
        raise BadRequest(f"move: {rs.title} has no {body.action} movement; move another way", 422)
    start = (f.pos[0], f.pos[1])
    last = body.cells[-1]
    cls = verbs_for(state.ruleset)[verb]
    if verb == "place":  # a ruling says why
        why = body.why.strip() or "put down by hand in Foundry (a displace movement)"
        return f"place {f.id} {last[0]},{last[1]} why={shlex.quote(why)}"
    if "to" in cls.__struct_fields__:  # a teleport, a leap: only where it ends
        return f"{verb} {f.id} {last[0]},{last[1]}"
    cells = waypoints(start, expand(start, list(body.cells)))
    return f"{verb} {f.id} " + " ".join(f"{x},{y}" for x, y in cells)


def _answer(table: Table, body: FoundryMoveBody, result: Any, extra: dict[str, Any], who: Any) -> Response:
    """The answer of /api/do, with what the chat card says: where the fighter is, what the move cost,
    what its budget holds now."""
    response = api_commands._write_answer(table, result, extra, who)
    if isinstance(result, Rejection):
        return response
    enc = table.live()
    f = enc.state.fighter(body.fighter)
    events = [r.event for r in result]
    moved = [e for e in events if isinstance(e, Moved) and e.fighter == body.fighter]
    cost = sum(s.cost for e in moved for s in e.steps)
    placed = any(isinstance(e, Placed) and e.fighter == body.fighter for e in events)
    area = reach(enc.state, body.fighter) if f is not None else None
    said = msgspec.json.decode(response.body)
    said.update(
        fighter=body.fighter,
        at=list(f.pos) if f is not None else None,
        cost=cost,
        placed=placed,
        # What the budget the move was paid from holds now; the next move's reach may differ (a new action).
        left=moved[-1].budget - cost if moved else (area.budget if area is not None else 0),
        resource=moved[-1].resource if moved else "",
        reach=area.budget if area is not None else 0,
        unit=area.unit if area is not None else "",
    )
    return JSONResponse(said)


def _beside(table: Table, name: str) -> Path:
    """A new log for the scene's encounter, beside the served one and of its kind (no name taken)."""
    if not isinstance(table.store, JsonlStore) and not table.path.is_file():
        raise BadRequest(
            "encounter: a hosted table makes its encounters with tabletrail new; serve a log file to "
            "start one from Foundry",
            409,
        )
    served: Path = table.served  # the log `serve` was given, before any scene
    stem = slug(name, "scene")
    suffix = served.suffix or ".jsonl"
    for n in range(1, 1000):
        path = served.with_name(f"{served.stem}.{stem}{'' if n == 1 else f'-{n}'}{suffix}")
        if not path.exists():
            return path
    raise BadRequest(f"encounter: 999 logs named {served.stem}.{stem} already; move some away", 409)


def play(table: Table, path: Path) -> None:
    """The table plays another log from now on; its links (kept with the served log) stay valid."""
    table.switch(path)


def _toml(text: str) -> dict[str, Any]:

    return tomllib.loads(text)
