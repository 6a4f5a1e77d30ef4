"""What the table view's pages are sent: the board, the event list, a dry run, an explanation.

Plain data only (dicts, lists, numbers in centi-units), built from the engine's
state and records. The browser draws it and holds no rules.
"""

from __future__ import annotations

from typing import Any

from msgspec import to_builtins
from tabletrail.core.cell_rulings import FORBID, TEST
from tabletrail.core.dice import CHECKS
from tabletrail.core.refusal import Rejection
from tabletrail.core.ruleset import ENGINE_COMMAND, ENGINE_FIGHTER, ENGINE_HANDLERS, ENGINE_TURN, Ruleset
from tabletrail.core.rulesets import get as get_ruleset
from tabletrail.core.rulings import LENGTH_RESOURCES
from tabletrail.core.state import EncounterState, Fighter
from tabletrail.core.units import fmt, to_cu
from tabletrail.encounter import UNDO_RULE, Encounter
from tabletrail.events.commands import Command
from tabletrail.events.commands.rulings import GM_RULING
from tabletrail.events.log import Record
from tabletrail.events.types import CommandIssued, Event, Moved
from tabletrail.render import describe
from tabletrail.syntax import usage

# The engine's own rules, in the words the explain panel shows next to their ids.
ENGINE_RULES: dict[str, str] = {
    ENGINE_TURN: "only the fighter whose turn it is may act; end-turn passes the turn on",
    ENGINE_FIGHTER: "a command must name a fighter of this encounter",
    ENGINE_COMMAND: "a command must be one the ruleset knows, and must change something",
    CHECKS: "a check's number is rolled at the table (roll=N) or drawn from the seeded dice, "
    "as the checks setting says",
    UNDO_RULE: "undo takes back the latest command in force, redo puts back the latest undone one; "
    "players undo only their own side's commands",
    GM_RULING: "only the GM rules, every ruling says why, and it is logged with the facts it causes",
}


def rule_texts(rs: Ruleset) -> dict[str, dict[str, str]]:
    """Every rule id an event of this encounter may cite, with what it enforces."""
    out = {rid: {"enforce": text, "default": ""} for rid, text in ENGINE_RULES.items()}
    for r in rs.rules:
        out[rs.rule(r.name)] = {"enforce": r.enforce, "default": r.default}
    return out


def commands(rs: Ruleset) -> list[dict[str, Any]]:
    """The verbs this ruleset accepts, their syntax, and whether they only need a fighter."""
    types: list[type[Command]] = [*rs._handlers, *ENGINE_HANDLERS]  # noqa: SLF001 - the CLI lists them so too
    out = []
    for cls in sorted(set(types), key=lambda c: str(c.__struct_config__.tag)):
        required = [
            name
            for name in cls.__struct_fields__
            if name not in ("by", "rolls", "why") and name not in _defaults(cls)
        ]
        out.append(
            {
                "verb": cls.__struct_config__.tag,
                "usage": usage(cls),
                "doc": (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else "",
                "fighter_only": required == ["fighter"],
            }
        )
    return out


def _defaults(cls: type[Command]) -> set[str]:
    fields = cls.__struct_fields__
    defaults = cls.__struct_defaults__
    return set(fields[len(fields) - len(defaults) :])


def fighter(state: EncounterState, f: Fighter) -> dict[str, Any]:
    x, y, z = f.pos
    return {
        "id": f.id,
        "name": f.name,
        "side": f.side,
        "pos": [x, y, z],
        "ground": state.grid.top[y][x],  # z above this: off the ground (flying, leaping, drifting)
        "size": f.size,
        "states": dict(f.states),
        "spent": dict(f.spent),
        "marks": to_builtins(f.marks),
        "damage": f.damage,
        "stats": dict(f.stats),
        "tags": list(f.tags),
        "active": state.turn.active == f.id,
    }


def board(enc: Encounter, live_version: int) -> dict[str, Any]:
    """The board at the encounter's point in the log, with what the page needs to draw and act."""
    state = enc.state
    rs = get_ruleset(state.ruleset)
    sc = state.scenario
    t = enc.timeline
    undo, redo = t.undo_target(), t.redo_target()
    return {
        "version": live_version,
        "at": len(enc.records),
        "live": len(enc.records) == live_version,
        "name": sc.name,
        "ruleset": {"id": rs.id, "title": rs.title, "unit": rs.unit},
        "map": {
            "width": state.grid.width,
            "height": state.grid.height,
            "rows": list(sc.rows),
            "legend": {
                ch: {
                    "terrain": k.terrain,
                    "tags": sorted(k.all_tags),
                    "ground": to_cu(k.ground),
                    "height": to_cu(k.height),
                    "depth": to_cu(k.depth),
                    "climb": k.climb,
                }
                for ch, k in sc.legend.items()
            },
        },
        "fighters": [fighter(state, f) for f in state.fighters],
        "links": [list(link) for link in state.links],
        "marks": to_builtins({k: v for k, v in state.marks.items() if k not in (FORBID, TEST)}),
        "rulings": {
            "forbid": [list(e) for e in state.marks.get(FORBID, ())],
            "test": [list(e) for e in state.marks.get(TEST, ())],
        },
        "turn": {
            "order": list(state.turn.order),
            "active": state.turn.active,
            "round": state.turn.round,
            "pass": state.turn.pass_no,
        },
        "settings": to_builtins(state.settings),
        "undo": _batch_label(enc, undo),
        "redo": _batch_label(enc, redo),
        "commands": commands(rs),
        "sides": sorted({f.side for f in state.fighters}),
    }


def _batch_label(enc: Encounter, batch: int | None) -> dict[str, Any] | None:
    if batch is None:
        return None
    issued = enc.timeline.commands.get(batch)
    return {"batch": batch, "text": issued.text if issued else f"batch {batch}"}


def status(enc: Encounter, batch: int) -> str:
    t = enc.timeline
    if batch in t.abandoned:
        return "abandoned"
    if batch in t.undone:
        return "undone"
    return ""


def record(enc: Encounter, r: Record) -> dict[str, Any]:
    """One line of the event list."""
    return {
        "seq": r.seq,
        "batch": r.batch,
        "actor": r.actor,
        "type": type(r.event).__struct_config__.tag,
        "text": describe(r.event),
        "rules": list(r.event.rules),
        "note": r.event.note,
        "status": status(enc, r.batch),
    }


def event(e: Event) -> dict[str, Any]:
    """An event of a dry run: what it says, and the rules behind it."""
    return {
        "type": type(e).__struct_config__.tag,
        "text": describe(e),
        "rules": list(e.rules),
        "note": e.note,
    }


def moves(events: list[Event], unit: str) -> list[dict[str, Any]]:
    """The per-step cost breakdown of every Moved event; lengths in `unit`, other budgets by name."""
    out = []
    for e in events:
        if isinstance(e, Moved):
            total = sum(s.cost for s in e.steps)
            out.append(
                {
                    "fighter": e.fighter,
                    "resource": e.resource,
                    "unit": unit if e.resource in LENGTH_RESOURCES else e.resource.upper(),
                    "budget": e.budget,
                    "total": total,
                    "stopped": e.stopped,
                    "rules": list(e.rules),
                    "steps": [
                        {
                            "to": list(s.to),
                            "cost": s.cost,
                            "terrain": s.terrain,
                            "diagonal": s.diagonal,
                            "mode": s.mode,
                        }
                        for s in e.steps
                    ],
                }
            )
    return out


def needs_roll(rejection: Rejection) -> bool:
    """A check whose number must come from the table (the checks setting is 'table')."""
    return rejection.rule == CHECKS and "needs a roll" in rejection.reason


def refusal(rejection: Rejection) -> dict[str, Any]:
    return {"rule": rejection.rule, "reason": rejection.reason, "needs_roll": needs_roll(rejection)}


def explain(enc: Encounter, seq: int) -> dict[str, Any]:
    """One event in full: its fields, its rules in words, its batch, the fighter before and after."""
    r = enc.records[seq - 1]
    e = r.event
    rs = get_ruleset(enc.state.ruleset)
    texts = rule_texts(rs)
    t = enc.timeline
    issued: CommandIssued | None = t.commands.get(r.batch)
    fields = {k: v for k, v in to_builtins(e).items() if k not in ("type", "rules", "note")}
    out: dict[str, Any] = {
        "seq": r.seq,
        "batch": r.batch,
        "actor": r.actor,
        "at": r.at,
        "type": type(e).__struct_config__.tag,
        "text": describe(e),
        "note": e.note,
        "rules": [{"id": rid, **texts.get(rid, {"enforce": "", "default": ""})} for rid in e.rules],
        "fields": fields,
        "command": issued.text if issued else "",
        "status": status(enc, r.batch),
        "batch_events": [
            {"seq": x.seq, "text": describe(x.event)} for x in enc.records if x.batch == r.batch
        ],
    }
    fid = getattr(e, "fighter", None)
    before, after = t.before.get(r.batch), t.after.get(r.batch)
    if isinstance(fid, str) and before is not None and after is not None:
        out["fighter"] = {
            "id": fid,
            "before": _brief(before, fid),
            "after": _brief(after, fid),
        }
    if isinstance(e, Moved):
        out["moves"] = moves([e], rs.unit)
        out["total"] = fmt(sum(s.cost for s in e.steps))
    return out


def _brief(state: EncounterState, fid: str) -> dict[str, Any] | None:
    f = state.fighter(fid)
    if f is None:
        return None
    return {
        "pos": list(f.pos),
        "states": {k: v for k, v in f.states.items()},
        "spent": dict(f.spent),
        "damage": f.damage,
    }
