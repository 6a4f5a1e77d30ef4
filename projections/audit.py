"""The audit: why did that happen, would this be allowed, was this log tampered with or mis-ruled,
and where would the table be under other settings.

Every answer is plain data (dicts, lists, numbers in centi-units) that the CLI
renders as text or prints as JSON. Nothing here knows a ruleset: it reads the
shared event vocabulary (`Moved` steps and budget, `CheckRolled`, `RulingMade`…),
the ruleset's declared rules and settings, its `move_budget` hook, and `decide`.
A new ruleset is audited with no change here.

- `explain(records, seq)`: the command behind an event, who issued it, the rule
  ids and what they enforce, the step-by-step costs against the budget, every
  check with its number and source, the settings and GM rulings in force, and
  the fighters before and after.
- `dry_run(encounter, command)`: the answer to "why" before anything happens.
- `verify_lines(lines)`: the hash chain, the sequence numbers, then every batch
  re-decided from the state before it and compared with what the log records.
- `whatif(records, ["diagonal=euclidean"])`: the same commands under other settings.
- `refusals(store)`: the refused attempts kept in the side log.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace
from tabletrail.core.batch import Batch
from tabletrail.core.cell_rulings import FORBID, TEST, exempted
from tabletrail.core.dice import Dice
from tabletrail.core.evolve import fold, initial_state
from tabletrail.core.refusal import Rejection
from tabletrail.core.ruleset import ENGINE_RULE_WORDS, Ruleset
from tabletrail.core.rulesets import RULESETS
from tabletrail.core.rulesets import get as get_ruleset
from tabletrail.core.rulings import LENGTH_RESOURCES, setting_value
from tabletrail.core.state import EncounterState
from tabletrail.core.units import fmt
from tabletrail.encounter import UNDO_RULE, Encounter
from tabletrail.events.commands import Command, Redo, Undo
from tabletrail.events.errors import InputError
from tabletrail.events.log import (
    JsonlStore,
    MemoryStore,
    Record,
    Store,
    TornTail,
    decode,
    encode,
    line_hash,
)
from tabletrail.events.types import (
    SCHEMA_VERSION,
    Abandoned,
    CheckRolled,
    CommandIssued,
    EncounterStarted,
    Event,
    Moved,
    Redone,
    RulingMade,
    Undone,
)
from tabletrail.projections.board import view
from tabletrail.projections.snapshot import FORMAT as SNAPSHOT_FORMAT
from tabletrail.projections.snapshot import loads, take
from tabletrail.projections.timeline import Timeline

# What the engine's own rule ids enforce (a ruleset's rules carry their own words).


def plain(value: Any) -> Any:
    """Events, states and commands as they read in JSON (tuples become lists)."""
    return msgspec.json.decode(msgspec.json.encode(value))


def rule_words(rs: Ruleset, rule_id: str) -> dict[str, str]:
    """A rule id with what it enforces and its default ruling, for people reading the audit."""
    for r in rs.rules:
        if f"{rs.id}/{r.name}" == rule_id:
            return {"id": rule_id, "enforce": r.enforce, "default": r.default}
    return {"id": rule_id, "enforce": ENGINE_RULE_WORDS.get(rule_id, ""), "default": ""}


def _cited(events: Sequence[Event]) -> list[str]:
    return list(dict.fromkeys(rule for e in events for rule in e.rules))


def _groups(records: Sequence[Record]) -> list[list[Record]]:
    """The records cut into batches, in log order."""
    out: list[list[Record]] = []
    for r in records:
        if out and out[-1][-1].batch == r.batch:
            out[-1].append(r)
        else:
            out.append([r])
    return out


# --- the pieces of an answer ---------------------------------------------------------


def moves(
    numbered: Sequence[tuple[int | None, Event]], unit: str, centi: tuple[str, ...] = LENGTH_RESOURCES
) -> list[dict[str, Any]]:
    """Every move step by step: the cell, why it cost what it did, and the running total."""
    out = []
    for seq, e in numbered:
        if not isinstance(e, Moved):
            continue
        total = 0
        steps = []
        for n, s in enumerate(e.steps, start=1):
            total += s.cost
            steps.append(
                {
                    "n": n,
                    "cell": list(s.to),
                    "terrain": s.terrain,
                    "diagonal": s.diagonal,
                    "parity": s.parity,
                    "mode": s.mode,
                    "cost": s.cost,
                    "total": total,
                    "left": e.budget - total,
                }
            )
        out.append(
            {
                "seq": seq,
                "fighter": e.fighter,
                "resource": e.resource,
                "budget": e.budget,
                "total": total,
                "left": e.budget - total,
                "over": total > e.budget,
                "stopped": e.stopped,
                "rules": list(e.rules),
                "length": e.resource in centi,
                "unit": unit if e.resource in ("movement", "maneuver") else e.resource,
                "steps": steps,
            }
        )
    return out


def checks(numbered: Sequence[tuple[int | None, Event]], hide_seeded: bool = False) -> list[dict[str, Any]]:
    """Every check: who, which, the number and where it came from, the target and the outcome."""
    out = []
    for seq, e in numbered:
        if not isinstance(e, CheckRolled):
            continue
        hidden = hide_seeded and e.source == "seeded"
        out.append(
            {
                "seq": seq,
                "fighter": e.fighter,
                "check": e.check,
                "source": e.source,
                "number": None if hidden else e.number,
                "dice": [] if hidden else list(e.dice),
                "formula": e.formula,
                "modifier": e.modifier,
                "total": None if hidden else e.number + e.modifier,
                "target": e.target,
                "passed": None if hidden else e.passed,
                "hidden": hidden,
                "rules": list(e.rules),
                "note": e.note,
            }
        )
    return out


def involved(events: Sequence[Event], command: Command | None = None) -> list[str]:
    """The fighters a batch touches: named by its command or by any of its events."""
    ids: list[str] = []
    for source in (command, *events):
        for name in ("fighter", "a", "b"):
            value = getattr(source, name, None)
            if isinstance(value, str) and value and value not in ids:
                ids.append(value)
    return ids


def fighter_card(rs: Ruleset, state: EncounterState | None, fid: str) -> dict[str, Any] | None:
    """One fighter as the audit shows it, with what its ruleset says it may still move."""
    f = state.fighter(fid) if state is not None else None
    if f is None or state is None:
        return None
    return {
        "pos": list(f.pos),
        "states": {k: v for k, v in sorted(f.states.items())},
        "spent": dict(sorted(f.spent.items())),
        "damage": f.damage,
        "marks": plain(f.marks),
        "move_left": rs.move_budget(state, f),
    }


def cell_rulings(state: EncounterState | None) -> list[dict[str, Any]]:
    """The GM's forbid and test rulings on cells, as `walk` will apply them."""
    if state is None:
        return []
    out = []
    for entry in state.marks.get(FORBID, ()):
        out.append(
            {
                "cell": [entry[0], entry[1]],
                "kind": "forbid",
                "rule": entry[2],
                "why": entry[3],
                **({"except": list(exempted(entry))} if exempted(entry) else {}),
            }
        )
    for entry in state.marks.get(TEST, ()):
        out.append(
            {
                "cell": [entry[0], entry[1]],
                "kind": "test",
                "rule": entry[2],
                "why": entry[3],
                "target": entry[4],
            }
        )
    return out


def _ruling(seq: int, e: RulingMade, status: str = "") -> dict[str, Any]:
    return {
        "seq": seq,
        "by": e.by,
        "kind": e.kind,
        "why": e.why,
        "detail": plain(e.detail),
        "rules": list(e.rules),
        "status": status,
    }


def rulings_in_force(records: Sequence[Record], timeline: Timeline) -> list[dict[str, Any]]:
    """The GM's rulings in batches the timeline still holds in force."""
    applied = set(timeline.applied)
    return [
        _ruling(r.seq, r.event, "in force")
        for r in records
        if isinstance(r.event, RulingMade) and r.batch in applied and r.seq <= timeline.last_seq
    ]


def settings_view(rs: Ruleset, state: EncounterState | None, rules: Sequence[str]) -> list[dict[str, Any]]:
    """The settings in force; `bears` marks those whose ruling a cited rule depends on."""
    if state is None:
        return []
    return [
        {
            "name": s.name,
            "value": state.settings.get(s.name, s.default),
            "default": s.default,
            "rule": s.rule,
            "bears": bool(s.rule) and s.rule in rules,
        }
        for s in rs.all_settings()
    ]


def _status(timeline: Timeline, batch: int) -> str:
    if batch in timeline.abandoned:
        return "abandoned"
    if batch in timeline.undone:
        return "undone"
    if batch in timeline.applied:
        return "in force"
    return "undo/redo"


def _command_of(head: Event) -> tuple[Command | None, str]:
    """The command behind a batch, rebuilt from its first event, and its text."""
    if isinstance(head, CommandIssued):
        return head.command, head.text or str(head.command.__struct_config__.tag)
    if isinstance(head, Undone):
        return Undo(by=head.by, why=head.why), "undo"
    if isinstance(head, Redone):
        return Redo(by=head.by, why=head.why), "redo"
    return None, ""


def _command_view(recs: Sequence[Record], commands: dict[int, CommandIssued]) -> dict[str, Any]:
    head = recs[0].event
    command, text = _command_of(head)
    base = {"batch": recs[0].batch, "actor": recs[0].actor, "at": recs[0].at, "text": text}
    if isinstance(head, EncounterStarted):
        return {**base, "text": "(setup) encounter started", "by": recs[0].actor, "why": "", "command": None}
    assert command is not None, f"batch {recs[0].batch} starts with {type(head).__name__}"
    view_ = {**base, "by": command.by, "why": command.why, "command": plain(command)}
    if isinstance(head, Undone | Redone):
        target = commands.get(head.batch)
        view_["target_batch"] = head.batch
        view_["target_text"] = target.text if target else "(setup)"
    return view_


# --- explain -----------------------------------------------------------------------


def explain(
    records: Sequence[Record], seq: int, refused: Sequence[Any] = (), where: str = "log"
) -> dict[str, Any]:
    """Everything behind one event; InputError when the log has no such sequence number."""
    if not records:
        raise InputError(f"{where}: the log is empty")
    last = records[-1].seq
    if not 1 <= seq <= last:
        raise InputError(f"{where}: no event {seq}: the log holds events 1 to {last}")
    record = records[seq - 1]
    batch = [r for r in _groups(records) if r[0].batch == record.batch][0]
    first, end = batch[0].seq, batch[-1].seq
    before_tl = Timeline.of(records[: first - 1]) if first > 1 else None
    after_tl = Timeline.of(records[:end])
    whole = Timeline.of(records)
    state_before = before_tl.state if before_tl else None
    state_after = after_tl.state
    rs = get_ruleset(records[0].event.scenario.ruleset)  # type: ignore[attr-defined]
    events = [r.event for r in batch]
    numbered = [(r.seq, r.event) for r in batch]
    head = batch[0].event
    command, _ = _command_of(head)
    touched = events
    if isinstance(head, Undone | Redone):  # what was taken back or put back
        target = [r for r in records if r.batch == head.batch]
        touched = [r.event for r in target]
        numbered = [(r.seq, r.event) for r in target]
    cited = _cited(events if not isinstance(head, Undone | Redone) else touched)
    fighters = [
        {
            "id": fid,
            "before": fighter_card(rs, state_before, fid),
            "after": fighter_card(rs, state_after, fid),
        }
        for fid in involved(touched, command)
    ]
    rulings_before = rulings_in_force(records, before_tl) if before_tl else []
    return {
        "seq": seq,
        "batch": record.batch,
        "status": _status(whole, record.batch),
        "ruleset": rs.id,
        "unit": rs.unit,
        "centi": list(rs.centi_resources),
        "event": plain(record.event),
        "rules": [rule_words(rs, r) for r in record.event.rules],
        "command": _command_view(batch, whole.commands),
        "batch_rules": [rule_words(rs, r) for r in cited],
        "moves": moves(numbered, rs.unit, rs.centi_resources),
        "checks": checks(numbered),
        "settings": settings_view(rs, state_before or state_after, cited),
        "rulings": {
            "in_force": rulings_before,
            "cells": cell_rulings(state_before),
            "made_here": [_ruling(s, e) for s, e in numbered if isinstance(e, RulingMade)],
        },
        "fighters": fighters,
        "events": [{"seq": r.seq, "event": plain(r.event)} for r in batch],
        "refused_before": [plain(x) for x in refused if getattr(x, "after_seq", None) == first - 1],
    }


# --- why: the dry run ------------------------------------------------------------------


def dry_run(enc: Encounter, command: Command, text: str = "", reveal: bool = False) -> dict[str, Any]:
    """What a command would do, decided on the current board; nothing is appended or noted.

    A seeded check's number is the next draw of the encounter's dice, and undo can't
    re-roll it; so unless `reveal` (the GM's choice) the dry run stops at the first
    seeded check: it shows the check, not its number, nor what follows from it.
    """
    state = enc.state
    rs = get_ruleset(state.ruleset)
    text = text or str(command.__struct_config__.tag)
    base: dict[str, Any] = {
        "text": text,
        "by": command.by,
        "ruleset": rs.id,
        "unit": rs.unit,
        "centi": list(rs.centi_resources),
    }
    result = enc.preview(command)
    if isinstance(result, Rejection):
        return {**base, "allowed": False, "rule": rule_words(rs, result.rule), "reason": result.reason}
    events = list(result)
    shown, hidden = events, 0
    if not reveal:
        cut = next(
            (i for i, e in enumerate(events) if isinstance(e, CheckRolled) and e.source == "seeded"), None
        )
        if cut is not None:
            # Nothing shown may tell pass from fail: not the number, not the outcome, not the
            # stop the move records before it, not even how many events follow.
            shown = [_unrevealed(e) for e in events[: cut + 1]]
            hidden = -1
    numbered: list[tuple[int | None, Event]] = [(None, e) for e in shown]
    touched = shown
    head = events[0]
    after: EncounterState | None
    if isinstance(head, Undone | Redone):  # the cursor moves: the board before or after that batch
        target = [r for r in enc.records if r.batch == head.batch]
        touched = [r.event for r in target]
        numbered = [(r.seq, r.event) for r in target]
        tl = enc.timeline
        after = tl.before[head.batch] if isinstance(head, Undone) else tl.after[head.batch]
        issued = tl.commands.get(head.batch)
        base["target"] = {"batch": head.batch, "text": issued.text if issued else "(setup)"}
    else:
        masked = hidden != 0  # a seeded check is shown without its number or outcome
        after = None if masked else fold(state, events)
    cited = _cited(touched)
    return {
        **base,
        "allowed": True,
        "events": [plain(e) for e in shown],
        "hidden": hidden,
        "rules": [rule_words(rs, r) for r in cited],
        "moves": moves(numbered, rs.unit, rs.centi_resources),
        "checks": checks(numbered, hide_seeded=not reveal),
        "fighters": [
            {"id": fid, "before": fighter_card(rs, state, fid), "after": fighter_card(rs, after, fid)}
            for fid in involved(touched, command)
        ],
        "cells": cell_rulings(state),
    }


def _unrevealed(event: Event) -> Event:
    """An event of a dry run with whatever would reveal a seeded roll taken out."""
    if isinstance(event, CheckRolled) and event.source == "seeded":
        return msgspec.structs.replace(event, number=0, dice=(), passed=None, note=event.note)
    if isinstance(event, Moved) and event.stopped:
        return msgspec.structs.replace(event, stopped="")
    return event


# --- verify ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """The first thing wrong with a log: where, what kind, and what the rules expected."""

    seq: int  # the line (= sequence number) at fault
    kind: str  # line, chain, order, tip, setup, decision, undo
    reason: str
    rule: str = ""
    expected: Any = None
    recorded: Any = None


class _Stop(Exception):
    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.reason)
        self.finding = finding


def read_lines(path: str | Path) -> tuple[list[bytes], bool]:
    """A log file's raw lines, and whether its last line is torn (no newline at the end)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such log file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a log file") from None
    return data.splitlines(), bool(data) and not data.endswith(b"\n")


def _same_json(raw: Any, built: Any) -> bool:
    """Equal as JSON values: the same keys, items and numbers (1 and 1.0 alike, never true)."""
    if isinstance(raw, dict):
        return (
            isinstance(built, dict)
            and raw.keys() == built.keys()
            and all(_same_json(v, built[k]) for k, v in raw.items())
        )
    if isinstance(raw, list):
        return (
            isinstance(built, list)
            and len(raw) == len(built)
            and all(_same_json(a, b) for a, b in zip(raw, built, strict=True))
        )
    if isinstance(raw, bool) or isinstance(built, bool):
        return raw is built
    return raw == built and isinstance(raw, int | float) == isinstance(built, int | float)


def _as_written(line: bytes, record: Record) -> bool:
    """Does the line say exactly what its record says?

    A line of the current vocabulary re-encodes to itself, or at least to the same
    JSON: a renamed key (which decodes to the field's default) would otherwise
    change the file unnoticed. A line of an older vocabulary is upcast on reading
    and can't be compared this way.
    """
    try:
        raw = msgspec.json.decode(line)
    except msgspec.DecodeError:  # e.g. bytes that are not UTF-8 inside a key the types skip
        return False
    version = raw.get("schema", 1) if isinstance(raw, dict) else 1
    if version != SCHEMA_VERSION:
        return True
    again = encode(record)
    return again == line or _same_json(raw, msgspec.json.decode(again))


def _chain(lines: Sequence[bytes], name: str, torn: bool) -> list[Record]:
    """Decode every line and check seq and the hash chain; stops at the first bad line."""
    if not lines:
        raise _Stop(Finding(1, "line", f"{name}: the log is empty"))
    records: list[Record] = []
    prev = ""
    for n, line in enumerate(lines, start=1):
        if torn and n == len(lines):
            raise _Stop(
                Finding(
                    n,
                    "line",
                    f"line {n} is torn: no newline ends the file (cut mid-write? `tabletrail repair` cuts)",
                )
            )
        try:
            record = decode(line, f"{name}:{n}")
        except (InputError, msgspec.MsgspecError, ValueError) as exc:  # any undecodable line is a finding
            why = str(exc).removeprefix(f"{name}:{n}: ").removeprefix("not a log record: ")
            raise _Stop(Finding(n, "line", f"line {n} is not a log record: {why}")) from None
        if not _as_written(line, record):
            raise _Stop(
                Finding(n, "line", f"line {n} is not as the engine writes it (a key or spacing changed)")
            )
        if record.prev != prev:
            raise _Stop(
                Finding(
                    n,
                    "chain",
                    f"line {n} does not carry the hash of line {n - 1}: line {n - 1} was edited, "
                    f"or a line was inserted, deleted or moved here"
                    if n > 1
                    else "line 1 must carry no previous hash",
                )
            )
        if record.seq != n:
            raise _Stop(Finding(n, "order", f"line {n} says it is event {record.seq}"))
        prev = line_hash(line)
        records.append(record)
    return records


def _tip(lines: Sequence[bytes], tip: str) -> None:
    if tip and tip not in {line_hash(line) for line in lines}:
        raise _Stop(
            Finding(
                len(lines),
                "tip",
                f"no line hashes to the anchor {tip}: the anchored line was edited or the log cut before it",
            )
        )


# Words a later version may put better; the facts and rule ids around them may not change.
# (An edited note in a stored log is still caught: by the hash chain.)
PROSE = ("note",)


def _same(a: Event, b: Event) -> bool:
    pa, pb = plain(a), plain(b)
    for key in PROSE:
        pa.pop(key, None)
        pb.pop(key, None)
    return pa == pb


def _explain_gap(expected: Event | None, recorded: Event | None, unit: str) -> str:
    """Plain words on how a recorded event differs from what the rules give."""
    words = []
    if isinstance(recorded, Moved):
        total = sum(s.cost for s in recorded.steps)
        if total > recorded.budget:
            words.append(
                f"the recorded move costs {fmt(total)} {unit}, "
                f"but only {fmt(recorded.budget)} {unit} were left"
            )
    if expected is None:
        words.append(f"the rules produce nothing here, the log records a {type(recorded).__name__}")
    elif recorded is None:
        words.append(f"the rules also produce a {type(expected).__name__} here, missing from the log")
    else:
        pe, pr = plain(expected), plain(recorded)
        keys = [k for k in pe if pe.get(k) != pr.get(k)] or ["type"]
        words.append("they differ in " + ", ".join(keys))
    return "; ".join(words)


def _check_setup(recs: list[Record]) -> Ruleset:
    """The first batch: a known ruleset, settings the scenario chose, and the first turn as begun."""
    started = recs[0].event
    if not isinstance(started, EncounterStarted):
        raise _Stop(Finding(1, "setup", "a log must start with an encounter-started event"))
    sc = started.scenario
    rs = RULESETS.get(sc.ruleset)
    if rs is None:
        raise _Stop(
            Finding(1, "setup", f"unknown ruleset {sc.ruleset!r} (known: {', '.join(sorted(RULESETS))})")
        )
    try:
        rs.resolve_settings(dict(started.settings), "settings in force")
        chosen = rs.resolve_settings(dict(sc.settings), "scenario settings")
        rs.validate(sc, "scenario")
        state = initial_state(started)
    except InputError as exc:
        raise _Stop(Finding(1, "setup", str(exc))) from None
    except (KeyError, IndexError, ValueError) as exc:
        raise _Stop(Finding(1, "setup", f"the scenario can't be set up: {exc!r}")) from None
    for key in sc.settings:
        if started.settings.get(key) != chosen[key]:
            raise _Stop(
                Finding(
                    1,
                    "setup",
                    f"the settings in force say {key} = {started.settings.get(key)!r}, "
                    f"the scenario chose {chosen[key]!r}",
                )
            )
    for r in recs:
        if r.actor != "gm" or r.at != recs[0].at:
            raise _Stop(
                Finding(r.seq, "order", f"line {r.seq}: the setup batch is the GM's, written at once")
            )
    b = Batch(state)
    try:
        rs.begin(b, Dice())
    except Exception as exc:  # a forged scenario can crash a ruleset: report it, don't crash
        raise _Stop(Finding(1, "setup", f"the first turn can't begin: {exc!r}")) from None
    _compare(b.events, recs[1:], recs[0].seq + 1, "setup", rs.unit)
    return rs


def _compare(
    expected: Sequence[Event], recorded: Sequence[Record], next_seq: int, kind: str, unit: str
) -> None:
    """The first difference between what the rules give and what the log records."""
    for exp, rec in zip(expected, recorded, strict=False):
        if not _same(exp, rec.event):
            rule = (exp.rules or rec.event.rules or ("",))[0]
            raise _Stop(
                Finding(
                    rec.seq,
                    kind,
                    f"event {rec.seq} is not what the rules give: {_explain_gap(exp, rec.event, unit)}",
                    rule,
                    plain(exp),
                    plain(rec.event),
                )
            )
    if len(expected) > len(recorded):
        missing = expected[len(recorded)]
        seq = recorded[-1].seq + 1 if recorded else next_seq
        rule = (missing.rules or ("",))[0]
        raise _Stop(Finding(seq, kind, _explain_gap(missing, None, unit), rule, plain(missing), None))
    if len(recorded) > len(expected):
        extra = recorded[len(expected)]
        rule = (extra.event.rules or ("",))[0]
        raise _Stop(
            Finding(extra.seq, kind, _explain_gap(None, extra.event, unit), rule, None, plain(extra.event))
        )


def _check_batch(scratch: Encounter, recs: list[Record], unit: str) -> str:
    """Re-decide one batch on the state before it; returns its kind ("command", "undo", "redo")."""
    first = recs[0]
    for r in recs[1:]:
        if r.actor != first.actor or r.at != first.at:
            raise _Stop(
                Finding(
                    r.seq,
                    "order",
                    f"line {r.seq} is in batch {r.batch} but its actor or time differ from line {first.seq}",
                )
            )
    head = first.event
    command, text = _command_of(head)
    if command is None:
        raise _Stop(
            Finding(
                first.seq, "order", f"batch {first.batch} starts with a {type(head).__name__}, not a command"
            )
        )
    if first.actor != command.by:
        raise _Stop(
            Finding(
                first.seq,
                "order",
                f"batch {first.batch} is logged as entered by {first.actor}, "
                f"its command says by={command.by}",
            )
        )
    if isinstance(head, Undone | Redone):
        if len(recs) > 1:
            raise _Stop(
                Finding(
                    recs[1].seq, "order", f"an {text} batch holds one event, batch {first.batch} holds more"
                )
            )
        result = scratch.preview(command)
        if isinstance(result, Rejection):
            raise _Stop(
                Finding(
                    first.seq,
                    "undo",
                    f"{text} by {command.by} is not allowed here: {result.reason}",
                    result.rule,
                    {"refused": result.rule, "reason": result.reason},
                    plain(head),
                )
            )
        _compare(result, recs, first.seq, "undo", unit)
        return text
    if isinstance(command, Undo | Redo):
        raise _Stop(
            Finding(first.seq, "order", "undo and redo are logged as undone/redone events, never as commands")
        )
    body = recs[1:]
    cut = tuple(scratch.timeline.undone)
    opens = bool(body) and isinstance(body[0].event, Abandoned)
    if cut and not (opens and body[0].event.batches == cut):  # type: ignore[union-attr]
        seq = body[0].seq if body else first.seq + 1
        raise _Stop(
            Finding(
                seq,
                "undo",
                f"a new command after an undo abandons the redo branch (batches {list(cut)}) first",
                UNDO_RULE,
            )
        )
    if opens and not cut:
        raise _Stop(
            Finding(body[0].seq, "undo", "nothing was undone, so nothing can be abandoned", UNDO_RULE)
        )
    body = body[1:] if opens else body
    try:  # table rolls come with the command; seeded draws follow from the seed and the dice counter
        result = scratch.preview(command)
    except Exception as exc:  # a tampered state can crash a ruleset: report it, don't crash
        raise _Stop(Finding(first.seq, "decision", f"re-deciding {text!r} failed: {exc!r}")) from None
    if isinstance(result, Rejection):
        culprit = next((r for r in body if result.rule in r.event.rules), body[0] if body else first)
        raise _Stop(
            Finding(
                culprit.seq,
                "decision",
                f"the rules refuse {text!r}: {result.reason}",
                result.rule,
                {"refused": result.rule, "reason": result.reason},
                plain(culprit.event),
            )
        )
    _compare(result, body, first.seq + 1, "decision", unit)
    return "command"


def verify_lines(
    lines: Sequence[bytes], name: str = "log", tip: str = "", torn: bool = False
) -> dict[str, Any]:
    """Check a log line by line and batch by batch; the report names the first fault.

    The chain makes every line vouch for the one before it, so the last line is
    vouched for by re-deciding only; `tip` (a line hash noted earlier) anchors it.
    """
    counts = {"command": 0, "undo": 0, "redo": 0}
    rulings: list[dict[str, Any]] = []
    finding: Finding | None = None
    records: list[Record] = []
    try:
        records = _chain(lines, name, torn)
        _tip(lines, tip)
        groups = _groups(records)
        for i, recs in enumerate(groups, start=1):
            if recs[0].batch != i:
                raise _Stop(
                    Finding(
                        recs[0].seq, "order", f"line {recs[0].seq} starts batch {recs[0].batch}, expected {i}"
                    )
                )
        rs = _check_setup(groups[0])
        scratch = Encounter(MemoryStore())  # the recorded history, folded as it is checked
        for recs in groups:
            if recs is not groups[0]:
                counts[_check_batch(scratch, recs, rs.unit)] += 1
            for r in recs:
                try:
                    scratch.timeline.apply(r)
                except (KeyError, ValueError, IndexError, AssertionError, AttributeError) as exc:
                    raise _Stop(
                        Finding(
                            r.seq, "decision", f"event {r.seq} does not fit the board before it ({exc!r})"
                        )
                    ) from None
                scratch.records.append(r)
                if isinstance(r.event, RulingMade):
                    rulings.append(_ruling(r.seq, r.event))
        for ruling in rulings:
            ruling["status"] = _status(scratch.timeline, records[ruling["seq"] - 1].batch)
    except _Stop as stop:
        finding = stop.finding
    return {
        "log": name,
        "ok": finding is None,
        "lines": len(lines),
        "batches": len(_groups(records)),
        "checked": counts,
        "rulings": rulings,
        "tip": line_hash(lines[-1]) if lines else "",
        "anchored": bool(tip) and tip in {line_hash(line) for line in lines},
        "finding": asdict(finding) if finding else None,
    }


def verify_file(path: str | Path, tip: str = "") -> dict[str, Any]:
    """verify_lines on a log file read raw (Encounter.open would stop at the first bad line)."""
    lines, torn = read_lines(path)
    return verify_lines(lines, str(path), tip, torn)


def verify_store(store: Store, tip: str = "") -> dict[str, Any]:
    """verify a store's raw lines: a file is read byte for byte, other stores line by line.

    Then what the store keeps beside its log (issue 13): the tip (version and last
    line hash, kept with every append) must be the log's end, and every snapshot
    must pass its checksum and equal the snapshot the full fold gives at its version.
    """
    if isinstance(store, JsonlStore):
        lines, torn = read_lines(store.path)
        data = verify_lines(lines, str(store.path), tip, torn)
    else:
        lines = list(store.read())
        data = verify_lines(lines, store.name, tip)
    data["warnings"] = []
    if data["ok"]:
        finding = _kept_tip(store, lines, data) or _snapshots(store, data)
        if finding is not None:
            data["ok"], data["finding"] = False, asdict(finding)
    return data


def _kept_tip(store: Store, lines: Sequence[bytes], data: dict[str, Any]) -> Finding | None:
    """The log must end where the store's kept tip says it does: a cut at a batch end is caught."""
    kept_tip = getattr(store, "kept_tip", None)
    kept = kept_tip() if kept_tip is not None else None
    if kept is None:
        if kept_tip is not None:
            data["warnings"].append(
                "no tip is kept beside this log (an older or copied log): a cut at a batch end or an "
                "edit of the last line can't be told from the log alone; pass --tip to anchor it"
            )
        return None
    version, last = kept
    if len(lines) == version and line_hash(lines[-1]) == last:
        data["anchored"] = True
        return None
    return Finding(
        min(version, len(lines)),
        "tip",
        f"the log holds {len(lines)} lines ending in hash {data['tip']}, but the tip kept beside it says "
        f"{version} lines ending in hash {last}: the log was cut or its end edited (or a writer that keeps "
        "no tip appended to it)",
    )


def _snapshots(store: Store, data: dict[str, Any]) -> Finding | None:
    """Every snapshot checked: its checksum, and equal to the one the full fold takes at its version."""
    listed = getattr(store, "snapshots", None)
    if listed is None:
        return None
    stored = dict(listed(SNAPSHOT_FORMAT))
    if not stored:
        return None
    for version, blob in stored.items():
        try:
            loads(blob)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return Finding(version, "snapshot", f"the snapshot at version {version} is damaged: {exc}")
    enc = Encounter(store)
    wrong: list[int] = []
    seen: set[int] = set()

    def compare() -> None:
        version = len(enc.records)
        if version in stored and version not in seen:
            seen.add(version)
            if loads(stored[version]) != take(enc.timeline, enc.last_hash, enc._batch):
                wrong.append(version)

    enc._sink = compare
    enc._fold_all(None, committed=False)
    missed = sorted(set(stored) - seen)  # not at a batch end of this log
    if wrong or missed:
        version = (wrong or missed)[0]
        return Finding(
            version,
            "snapshot",
            f"the snapshot at version {version} does not match the log folded from its first line "
            "(edited, or of another log): `tabletrail repair` rebuilds the snapshots",
        )
    return None


# --- what-if ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WhatIf:
    """The same commands under other settings or rulings: the first divergence and both final boards."""

    changed: dict[str, tuple[Any, Any]]  # setting -> (recorded, what-if)
    divergence: dict[str, Any] | None
    refused: list[dict[str, Any]]
    recorded: EncounterState
    alternative: EncounterState
    differences: list[dict[str, Any]] = field(default_factory=list)
    rulings: list[str] = field(default_factory=list)  # GM rulings made before the first command

    def data(self) -> dict[str, Any]:
        return {
            "changed": {k: {"recorded": a, "what_if": b} for k, (a, b) in self.changed.items()},
            "rulings": self.rulings,
            "divergence": self.divergence,
            "refused": self.refused,
            "differences": self.differences,
            "boards": {"recorded": view(self.recorded), "what_if": view(self.alternative)},
        }


def parse_sets(rs: Ruleset, items: Sequence[str], where: str = "--set") -> dict[str, Any]:
    """SETTING=VALUE words into checked setting values; InputError names the bad one."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise InputError(f"{where} {item!r}: write SETTING=VALUE, e.g. diagonal=euclidean")
        spec, value = setting_value(rs, name.strip(), raw.strip(), where)
        out[spec.name] = value
    return out


def _decided(events: Sequence[Event]) -> list[Event]:
    return [e for e in events if not isinstance(e, CommandIssued | Abandoned)]


def _first_gap(
    seq_of: Callable[[int], int], mine: Sequence[Event], theirs: Sequence[Event], text: str
) -> dict | None:
    for i in range(max(len(mine), len(theirs))):
        a = mine[i] if i < len(mine) else None
        b = theirs[i] if i < len(theirs) else None
        if a is None or b is None or not _same(a, b):
            pa, pb = plain(a) if a is not None else {}, plain(b) if b is not None else {}
            return {
                "seq": seq_of(i),
                "text": text,
                "differs": [k for k in dict.fromkeys([*pa, *pb]) if pa.get(k) != pb.get(k)],
                "recorded": plain(a) if a is not None else None,
                "what_if": plain(b) if b is not None else None,
            }
    return None


def _fighter_differences(a: EncounterState, b: EncounterState) -> list[dict[str, Any]]:
    out = []
    for f in a.fighters:
        g = b.fighter(f.id)
        if g is None:
            continue
        for what in ("pos", "states", "spent", "damage", "marks"):
            x, y = plain(getattr(f, what)), plain(getattr(g, what))
            if x != y:
                out.append({"fighter": f.id, "what": what, "recorded": x, "what_if": y})
    return out


def whatif(
    records: Sequence[Record],
    sets: Sequence[str],
    rulings: Sequence[tuple[Command, str]] = (),
    where: str = "--set",
) -> WhatIf:
    """Re-run every command, undo and redo of a log in memory, under changed settings and
    with GM rulings (commands with their text) made before the first command."""
    started = records[0].event
    assert isinstance(started, EncounterStarted)
    rs = get_ruleset(started.scenario.ruleset)
    if not sets and not rulings:
        raise InputError(
            f"{where}: give at least one SETTING=VALUE (e.g. --set diagonal=euclidean) or a ruling"
        )
    changes = parse_sets(rs, sets, where) if sets else {}
    scenario = replace(started.scenario, settings={**started.settings, **changes})
    alt = Encounter.create(MemoryStore(), scenario, clock=lambda: records[-1].at, where="what-if")
    groups = _groups(records)
    setup = [r.event for r in groups[0][1:]]
    divergence = _first_gap(
        lambda i: groups[0][1 + i].seq if 1 + i < len(groups[0]) else groups[0][-1].seq + 1,
        setup,
        [r.event for r in alt.records[1:]],
        "(setup)",
    )
    for command, text in rulings:
        made = alt.execute(command, text)
        if isinstance(made, Rejection):
            raise InputError(f"what-if ruling {text!r}: {made}")
    recorded_batch: dict[int, int] = {1: 1}  # the what-if's batch numbers -> the log's
    refused: list[dict[str, Any]] = []
    for recs in groups[1:]:
        command, text = _command_of(recs[0].event)
        if command is None:
            continue
        result = alt.execute(command, text)
        body = [r for r in recs if not isinstance(r.event, CommandIssued | Abandoned)]
        if isinstance(result, Rejection):
            refused.append({"seq": recs[0].seq, "text": text, "rule": result.rule, "reason": result.reason})
            if divergence is None:
                divergence = {
                    "seq": body[0].seq if body else recs[0].seq,
                    "text": text,
                    "differs": ["refused"],
                    "recorded": plain(body[0].event) if body else None,
                    "what_if": {"refused": result.rule, "reason": result.reason},
                }
            continue
        recorded_batch[result[0].batch] = recs[0].batch
        if divergence is None:
            theirs = [
                replace(e, batch=recorded_batch.get(e.batch, -e.batch))
                if isinstance(e, Undone | Redone)
                else e
                for e in _decided([r.event for r in result])
            ]
            divergence = _first_gap(
                lambda i, body=body, recs=recs: body[i].seq if i < len(body) else recs[-1].seq + 1,
                [r.event for r in body],
                theirs,
                text,
            )
    recorded = Timeline.of(records).board
    changed = {k: (started.settings.get(k), v) for k, v in changes.items()}
    return WhatIf(
        changed,
        divergence,
        refused,
        recorded,
        alt.state,
        _fighter_differences(recorded, alt.state),
        [text for _, text in rulings],
    )


# --- refused attempts ----------------------------------------------------------------------------


def clock_text(at: str) -> str:
    """An ISO time as people read it at the table: '2026-11-29 21:04 UTC'."""
    try:
        moment = datetime.fromisoformat(at)
    except ValueError:
        return at
    zone = moment.tzname() or ""
    return moment.strftime("%Y-%m-%d %H:%M") + (
        f" {'UTC' if zone in ('UTC', 'UTC+00:00') else zone}" if zone else ""
    )


def refusals(store: Store) -> list[dict[str, Any]]:
    """The refused attempts of the side log, oldest first, each with the words of its rule."""
    try:  # the log itself must be there: a misspelt name is an error, not "no refused attempts"
        first = next(iter(store.read()), b"")
    except TornTail as torn:  # a crash cut the log's tail: its refusals still read
        first = torn.lines[0] if torn.lines else b""
    if not first:
        raise InputError(f"{store.name}: the log is empty")
    refused = store.refused() if hasattr(store, "refused") else []
    try:
        rs = get_ruleset(decode(first, f"{store.name}:1").event.scenario.ruleset)  # type: ignore[attr-defined]
    except (InputError, AttributeError):
        rs = None
    out = []
    for r in refused:
        words = (
            rule_words(rs, r.rule)
            if rs
            else {"id": r.rule, "enforce": ENGINE_RULE_WORDS.get(r.rule, ""), "default": ""}
        )
        out.append({**plain(r), "when": clock_text(r.at), "enforce": words["enforce"]})
    return out
