"""GM rulings: commands every ruleset accepts, handled once for all of them.

Handlers register with `@engine_command(CommandType)` from tabletrail.core.engine.ruleset,
so a new ruleset gets them with no change here. Each ruling is one batch that
starts with a `RulingMade(by, kind, why, detail)` and carries the facts it causes:
a `Placed`, a `Spent`, a `SettingChanged`, or a `BoardMarked` in the format of
tabletrail.core.engine.cell_rulings (which `walk` honours for every ruleset).

tabletrail/gm-ruling: only the GM rules, every ruling says why, and a ruling
names real fighters, cells on the map and rule ids the encounter knows.
"""

from __future__ import annotations

from typing import Any

from tabletrail.core.board.geometry import Pos, show
from tabletrail.core.board.refusal import Refusal, require
from tabletrail.core.board.state import EncounterState
from tabletrail.core.board.units import fmt, to_cu
from tabletrail.core.engine.cell_rulings import FORBID, TEST
from tabletrail.core.engine.dice import CHECKS, Dice
from tabletrail.core.engine.ruleset import (
    ENGINE_COMMAND,
    ENGINE_FIGHTER,
    ENGINE_SIDE,
    ENGINE_TURN,
    Ruleset,
    Setting,
    engine_command,
)
from tabletrail.core.fold.batch import Batch
from tabletrail.events.commands import Command, EndTurn
from tabletrail.events.commands.rulings import (
    GM_RULING,
    Adjust,
    ChangeSetting,
    Forbid,
    Join,
    Leave,
    Lift,
    Override,
    Place,
    RequireTest,
)
from tabletrail.events.errors import InputError
from tabletrail.events.limits import MAX_FIGHTERS
from tabletrail.events.scenario.reader import FIGHTER_KEYS, read_fighter
from tabletrail.events.types import (
    BoardMarked,
    FighterJoined,
    FighterLeft,
    OrderChanged,
    Placed,
    RulingMade,
    SettingChanged,
    Spent,
    Unlinked,
    Unmarked,
)

RULING = GM_RULING
ENGINE_RULES = (ENGINE_FIGHTER, ENGINE_TURN, ENGINE_SIDE, ENGINE_COMMAND, CHECKS, RULING)
# Budgets kept in centi-units of length; every other budget is a whole count (AP, actions).
LENGTH_RESOURCES = ("movement", "maneuver")  # the default; a ruleset's own is Ruleset.centi_resources


# --- shared checks --------------------------------------------------------------


def known_rules(rs: Ruleset) -> tuple[str, ...]:
    """Every rule id a ruling may cite under this ruleset: its own and the engine's."""
    return tuple(rs.rule(r.name) for r in rs.rules) + ENGINE_RULES


def _gm(cmd: Command, kind: str) -> None:
    """tabletrail/gm-ruling: the GM rules, and says why."""
    require(cmd.by == "gm", RULING, f"only the GM may make a '{kind}' ruling ({cmd.by} asked)")
    require(bool(cmd.why.strip()), RULING, f"a '{kind}' ruling must say why: add why=\"...\"")


def _ids(*rules: str) -> tuple[str, ...]:
    """Rule ids to cite, each once, in order."""
    return tuple(dict.fromkeys(r for r in rules if r))


def _cited(rs: Ruleset, rule: str) -> str:
    known = known_rules(rs)
    require(rule in known, RULING, f"{rule!r} is not a rule of {rs.id} (rules: {', '.join(known)})")
    return rule


def _spot(state: EncounterState, cell: tuple[int, ...]) -> Pos:
    """Where a piece placed by hand stands: on the map, not inside a wall; z from the ground."""
    grid = state.grid
    x, y = cell[0], cell[1]
    require(grid.inside(x, y), RULING, f"{show(cell)} is off the {grid.width}x{grid.height} map")
    require(
        not grid.blocked(x, y),
        RULING,
        f"{show(cell)} is {grid.kind(x, y).terrain}: nothing can be placed inside it",
    )
    z = to_cu(cell[2]) if len(cell) == 3 else grid.top[y][x]
    return (x, y, z)


def _cells(state: EncounterState, cells: tuple[tuple[int, ...], ...]) -> list[tuple[int, int]]:
    grid = state.grid
    require(bool(cells), RULING, "name at least one cell, e.g. 3,4")
    out: list[tuple[int, int]] = []
    for cell in cells:
        require(
            grid.inside(cell[0], cell[1]), RULING, f"{show(cell)} is off the {grid.width}x{grid.height} map"
        )
        if (cell[0], cell[1]) not in out:
            out.append((cell[0], cell[1]))
    return out


def amount_of(rs: Ruleset, resource: str, value: float) -> int:
    """A budget amount as stored: centi-units for lengths (and AP priced by the square), else a count."""
    unit = rs.unit
    if resource in rs.centi_resources:
        return to_cu(value)
    require(
        float(value).is_integer(),
        RULING,
        f"{resource} is counted in whole numbers, not {value} (only lengths take fractions of a {unit})",
    )
    return int(value)


def _resource(rs: Ruleset, resource: str) -> str:
    """The budget a ruling spends: "movement" (the commands' default) is the budget the ruleset moves
    with, AP in ap-squares, which keeps no movement budget of its own."""
    return rs.movement_resource if resource == "movement" else resource


def shown(rs: Ruleset, resource: str, amount: int) -> str:
    return rs.amount_label(resource, amount)


def _made(
    b: Batch, cmd: Command, kind: str, detail: dict[str, Any], rules: tuple[str, ...], note: str
) -> None:
    b.emit(RulingMade(by=cmd.by, kind=kind, why=cmd.why, detail=detail, rules=rules, note=note))


def setting_value(rs: Ruleset, name: str, raw: str, where: str) -> tuple[Setting, Any]:
    """A setting given as text (`--set diagonal=euclidean`, `setting strict_turns no`), checked.

    InputError names the setting and lists the known ones, or says what value was expected.
    """
    known = {s.name: s for s in rs.all_settings()}
    spec = known.get(name)
    if spec is None:
        raise InputError(f"{where}: {rs.id} has no setting {name!r} (it has: {', '.join(sorted(known))})")
    kind = type(spec.default)
    value: Any = raw
    if kind is bool:
        if raw.lower() not in ("true", "yes", "1", "false", "no", "0"):
            raise InputError(f"{where}: {name} takes true or false, got {raw!r}")
        value = raw.lower() in ("true", "yes", "1")
    elif kind in (int, float):
        try:
            value = float(raw) if kind is float else int(raw)
        except ValueError:
            raise InputError(
                f"{where}: {name} takes a {'number' if kind is float else 'whole number'}, got {raw!r}"
            ) from None
    return spec, spec.check(value, f"{where}: {name}")


# --- the rulings -------------------------------------------------------------------


@engine_command(Override)
def override(rs: Ruleset, b: Batch, cmd: Override, dice: Dice) -> None:
    """Overrule a refusal by placing the fighter by hand, citing the rule set aside."""
    _gm(cmd, "override")
    f = rs.fighter(b.state, cmd.fighter)
    rule = _cited(rs, cmd.rule)
    to = _spot(b.state, cmd.to)
    resource = _resource(rs, cmd.resource)
    cost = amount_of(rs, resource, cmd.cost)
    attempt = f" ({cmd.attempt})" if cmd.attempt else ""
    _made(
        b,
        cmd,
        "override",
        {
            "rule": rule,
            "fighter": f.id,
            "to": list(to),
            "cost": cost,
            "resource": resource,
            "attempt": cmd.attempt,
        },
        _ids(RULING, rule),
        f"the GM sets {rule} aside{attempt}: {f.id} goes from {show(f.pos)} to {show(to)} "
        f"by hand, the rules of the move are not re-run",
    )
    b.emit(
        Placed(
            fighter=f.id,
            to=to,
            how="gm override",
            rules=_ids(RULING, rule),
            note=f"overrides {rule}: {cmd.why}",
        )
    )
    if cost:
        b.emit(
            Spent(
                fighter=f.id,
                resource=resource,
                amount=cost,
                rules=_ids(RULING, rule),
                note=f"the GM charges {shown(rs, resource, cost)} for the overridden move",
            )
        )


@engine_command(Adjust)
def adjust(rs: Ruleset, b: Batch, cmd: Adjust, dice: Dice) -> None:
    """More (or less) of a budget left: a Spent with the opposite sign."""
    _gm(cmd, "adjust")
    f = rs.fighter(b.state, cmd.fighter)
    resource = _resource(rs, cmd.resource)
    amount = amount_of(rs, resource, cmd.amount)
    require(amount != 0, RULING, "an adjustment of 0 changes nothing")
    verb = "gives" if amount > 0 else "takes"
    what = shown(rs, resource, abs(amount))
    used = shown(rs, resource, f.used(resource))
    note = f"the GM {verb} {f.id} {what} of {resource} (had used {used})"
    _made(
        b,
        cmd,
        f"adjust-{resource}",
        {"fighter": f.id, "resource": resource, "amount": amount},
        (RULING,),
        note,
    )
    b.emit(Spent(fighter=f.id, resource=resource, amount=-amount, rules=(RULING,), note=note))


@engine_command(Place)
def place(rs: Ruleset, b: Batch, cmd: Place, dice: Dice) -> None:
    """Move a piece by hand; no rule of movement runs and nothing is spent."""
    _gm(cmd, "place")
    f = rs.fighter(b.state, cmd.fighter)
    to = _spot(b.state, cmd.to)
    require(to != f.pos, RULING, f"{f.id} is already at {show(to)}")
    note = f"the GM places {f.id} from {show(f.pos)} at {show(to)} (height {fmt(to[2])} {rs.unit})"
    _made(b, cmd, "place", {"fighter": f.id, "from": list(f.pos), "to": list(to)}, (RULING,), note)
    b.emit(Placed(fighter=f.id, to=to, how="gm", rules=(RULING,), note=note))


def _remark(
    b: Batch, key: str, keep: list[list[Any]], add: list[list[Any]], rules: tuple[str, ...], note: str
) -> None:
    value = keep + add
    b.emit(BoardMarked(key=key, value=value or None, rules=rules, note=note))


def _others(state: EncounterState, key: str, cells: list[tuple[int, int]]) -> list[list[Any]]:
    """The entries of a cell ruling that are not on these cells."""
    return [list(e) for e in state.marks.get(key, ()) if (e[0], e[1]) not in cells]


@engine_command(RequireTest)
def require_test(rs: Ruleset, b: Batch, cmd: RequireTest, dice: Dice) -> None:
    """Cells that take a test to cross (core/engine/cell_rulings TEST format: [x, y, rule, why, target])."""
    _gm(cmd, "require-test")
    rule = _cited(rs, cmd.rule)
    cells = _cells(b.state, cmd.cells)
    where = " ".join(show(c) for c in cells)
    note = f"crossing {where} takes a test against {cmd.target}; failing it ends the move there"
    _made(
        b,
        cmd,
        "require-test",
        {"cells": [list(c) for c in cells], "target": cmd.target, "rule": rule},
        _ids(RULING, rule),
        note,
    )
    add = [[x, y, rule, cmd.why, cmd.target] for x, y in cells]
    _remark(b, TEST, _others(b.state, TEST, cells), add, _ids(RULING, rule), note)


@engine_command(Forbid)
def forbid(rs: Ruleset, b: Batch, cmd: Forbid, dice: Dice) -> None:
    """Cells no move may enter (core/engine/cell_rulings FORBID format: [x, y, rule, why])."""
    _gm(cmd, "forbid-crossing")
    rule = _cited(rs, cmd.rule)
    cells = _cells(b.state, cmd.cells)
    exempt = list(dict.fromkeys(name.strip() for name in cmd.exempt))
    require(all(exempt), RULING, "except= names fighter ids or tags, e.g. except=climbing-gear,ari")
    where = " ".join(show(c) for c in cells)
    note = f"no move may cross {where}" + (f" (except {', '.join(exempt)})" if exempt else "")
    detail: dict[str, Any] = {"cells": [list(c) for c in cells], "rule": rule}
    if exempt:
        detail["except"] = exempt
    _made(b, cmd, "forbid-crossing", detail, _ids(RULING, rule), note)
    add = [[x, y, rule, cmd.why, *([exempt] if exempt else [])] for x, y in cells]
    _remark(b, FORBID, _others(b.state, FORBID, cells), add, _ids(RULING, rule), note)


@engine_command(Lift)
def lift(rs: Ruleset, b: Batch, cmd: Lift, dice: Dice) -> None:
    """Take the forbid and test rulings off these cells."""
    _gm(cmd, "lift")
    cells = _cells(b.state, cmd.cells)
    where = " ".join(show(c) for c in cells)
    changed = [
        key for key in (FORBID, TEST) if len(_others(b.state, key, cells)) != len(b.state.marks.get(key, ()))
    ]
    require(bool(changed), RULING, f"no forbid or test ruling lies on {where}")
    note = f"the rulings on {where} are lifted"
    _made(b, cmd, "lift", {"cells": [list(c) for c in cells], "keys": changed}, (RULING,), note)
    for key in changed:
        _remark(b, key, _others(b.state, key, cells), [], (RULING,), note)


def _said(value: Any) -> str:
    """A setting's value as a GM says it: yes/no for a switch, the word or number as written."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "none" if value is None else str(value)


@engine_command(ChangeSetting)
def change_setting(rs: Ruleset, b: Batch, cmd: ChangeSetting, dice: Dice) -> None:
    """A setting changes from here on; the ruling records the old and new value."""
    _gm(cmd, "setting")
    try:
        spec, value = setting_value(rs, cmd.name, cmd.value, "setting")
    except InputError as exc:
        raise Refusal(RULING, str(exc)) from None
    old = b.state.settings.get(spec.name)
    require(old != value, RULING, f"{spec.name} is already {old!r}")
    wrong = rs.settings_problem({**b.state.settings, spec.name: value})
    if wrong:
        raise Refusal(spec.rule or RULING, f"setting {wrong[0]}: {wrong[1]}")
    rules = _ids(RULING, spec.rule)
    note = f"{spec.name} goes from {_said(old)} to {_said(value)} from here on"
    _made(b, cmd, "setting", {"setting": spec.name, "from": old, "to": value}, rules, note)
    b.emit(SettingChanged(key=spec.name, value=value, rules=rules, note=note))


# --- fighters joining and leaving ----------------------------------------------------


def _stats(cmd: Join) -> dict[str, Any]:
    """`stats=move:6,reach:1` as a [[fighters]] table writes them: name = number."""
    out: dict[str, Any] = {}
    for item in cmd.stats:
        name, colon, raw = item.partition(":")
        name = name.strip()
        require(
            bool(colon and name and raw),
            RULING,
            f"join: stats: write each stat as name:value, e.g. move:6, got {item!r}",
        )
        require(
            name not in FIGHTER_KEYS,
            RULING,
            f"join: stats.{name}: {name} is not a stat (give it as {name}=...)",
        )
        try:
            value = float(raw)
        except ValueError:
            raise Refusal(RULING, f"join: stats.{name}: expected a number, got {raw!r}") from None
        out[name] = int(value) if value.is_integer() and "." not in raw else value
    return out


def _join_field(message: str) -> str:
    """The reader's `join: fighter.X: why` said with the command's own field names (at, side, stats.X)."""
    head = "join: fighter."
    if message.startswith("join: fighter ("):  # a stat the ruleset needs is not given
        return "join: stats: " + message.split("): ", 1)[1]
    if not message.startswith(head):
        return message
    field, _, why = message[len(head) :].partition(": ")
    field = field.split(" ", 1)[0]
    said = "fighter" if field == "id" else field if field.split("[")[0] in FIGHTER_KEYS else f"stats.{field}"
    return f"join: {said}: {why}"


@engine_command(Join)
def join(rs: Ruleset, b: Batch, cmd: Join, dice: Dice) -> None:
    """A newcomer read as a [[fighters]] table is (events/scenario/reader.py) and checked against the
    ruleset's stats; it stands on a free cell and enters the turn order after `after` (by default: last)."""
    _gm(cmd, "join")
    state = b.state
    require(
        len(state.fighters) < MAX_FIGHTERS,
        RULING,
        f"join: {len(state.fighters)} fighters already; the limit is {MAX_FIGHTERS} (MAX_FIGHTERS)",
    )
    taken = state.fighter(cmd.fighter)
    require(
        taken is None,
        RULING,
        f"join: fighter: {cmd.fighter!r} is already the id of {taken.name if taken else ''}: "
        "give the newcomer another",
    )
    raw: dict[str, Any] = {
        "id": cmd.fighter,
        "side": cmd.side,
        "at": list(cmd.at),
        "size": cmd.size,
        **_stats(cmd),
    }
    if cmd.name:
        raw["name"] = cmd.name
    try:
        spec = read_fighter(raw, state.grid.width, state.grid.height, "join", "fighter")
        rs.validate_fighter(spec, "join", "fighter")
    except InputError as exc:
        raise Refusal(RULING, _join_field(str(exc))) from None
    require(spec.side != "gm", RULING, "join: side: 'gm' is the GM's link, not a side")
    try:
        to = _spot(state, spec.at)
    except Refusal as exc:
        raise Refusal(RULING, f"join: at: {exc.reason}") from None
    there = state.at(to[0], to[1])
    require(
        not there,
        RULING,
        f"join: at: {show(to)} is taken by {there[0].name if there else ''}: a newcomer needs a free cell",
    )
    order = list(state.turn.order)
    if cmd.after:
        require(
            cmd.after in order,
            RULING,
            f"join: after: {cmd.after!r} is not in the turn order ({', '.join(order)})",
        )
        order.insert(order.index(cmd.after) + 1, spec.id)
        place = f"acts after {cmd.after}"
    else:
        order.append(spec.id)
        place = "acts last in the order"
    note = f"the GM brings {spec.name} ({spec.side}) into the fight at {show(to)}; {place}"
    detail: dict[str, Any] = {"fighter": spec.id, "side": spec.side, "at": list(to), "after": cmd.after}
    _made(b, cmd, "join", detail, (RULING, ENGINE_TURN), note)
    b.emit(
        FighterJoined(
            fighter=spec.id,
            name=spec.name,
            side=spec.side,
            pos=to,
            size=spec.size,
            stats=dict(spec.stats),
            tags=spec.tags,
            rules=(RULING,),
            note=note,
        )
    )
    active = state.turn.active
    b.emit(
        OrderChanged(order=tuple(order), index=order.index(active), rules=(RULING, ENGINE_TURN), note=note)
    )


# A hold two fighters share, let go when one leaves: the partner's machine goes back as its own rule
# lets it go (ENGAGEMENT: resolve; speed-meters GRAB: let_go), with the marks only the hold gives.
RELEASE: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "engaged": ("engagement", "resolve", ()),
    "grab": ("grab", "let_go", ("escape",)),
}


def _names(value: Any, fid: str) -> bool:
    """Does a mark's value name this fighter (a reaction waiting on it, a target)?"""
    if isinstance(value, str):
        return value == fid
    if isinstance(value, dict):
        return any(_names(v, fid) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_names(v, fid) for v in value)
    return False


@engine_command(Leave)
def leave(rs: Ruleset, b: Batch, cmd: Leave, dice: Dice) -> None:
    """The fighter's turn passes on if it is acting, its holds are let go, and it leaves board and order."""
    _gm(cmd, "leave")
    f = rs.fighter(b.state, cmd.fighter)
    require(
        len(b.state.fighters) > 1, RULING, f"{f.name} is the last fighter: an encounter keeps at least one"
    )
    for other in b.state.fighters:
        for key, value in other.marks.items():
            require(
                other.id == f.id or not _names(value, f.id),
                RULING,
                f"{other.name} waits on {f.name} ({key.replace('-', ' ')}): settle that first, or undo it",
            )
    note = f"the GM takes {f.name} ({f.side}) out of the fight from {show(f.pos)}"
    _made(b, cmd, "leave", {"fighter": f.id, "from": list(f.pos)}, (RULING, ENGINE_TURN), note)
    for _ in range(len(b.state.turn.order)):  # its turn ends as end-turn ends one; never its turn again
        if b.state.turn.active != f.id:
            break
        rs._handlers[EndTurn](rs, b, EndTurn(fighter=f.id), dice)  # the ruleset's own end of a turn
    require(b.state.turn.active != f.id, RULING, f"{f.name} is the only one left who can act")
    for kind, a, c in b.state.links:
        if f.id not in (a, c):
            continue
        b.emit(
            Unlinked(kind=kind, a=a, b=c, rules=(RULING,), note=f"{f.name} leaves the fight: the hold ends")
        )
        partner = b.state.fighter(c if a == f.id else a)
        release = RELEASE.get(kind)
        if partner is None or release is None or b.state.linked(kind, partner.id):
            continue
        machine, trigger, marks = release
        if machine in partner.states:
            rs.change(b, partner, machine, trigger, RULING, f"{f.name} leaves the fight")
        for key in marks:
            if key in partner.marks:
                b.emit(
                    Unmarked(fighter=partner.id, key=key, rules=(RULING,), note=f"{f.name} leaves the fight")
                )
    order = tuple(x for x in b.state.turn.order if x != f.id)
    active = b.state.turn.active
    b.emit(FighterLeft(fighter=f.id, rules=(RULING,), note=note))
    b.emit(OrderChanged(order=order, index=order.index(active), rules=(RULING, ENGINE_TURN), note=note))
