"""The pieces every audit answer is built from: rule words, moves step by step, checks,
fighters before and after, rulings and settings in force, the batches of a log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from tabletrail.core.board.state import EncounterState
from tabletrail.core.engine.cell_rulings import FORBID, TEST, exempted
from tabletrail.core.engine.movement import length_of
from tabletrail.core.engine.ruleset import ENGINE_RULE_WORDS, Ruleset
from tabletrail.core.engine.rulings import LENGTH_RESOURCES
from tabletrail.events.commands import Command, Redo, Undo
from tabletrail.events.stores.record import Record
from tabletrail.events.types import CheckRolled, CommandIssued, Event, Moved, Redone, RulingMade, Undone
from tabletrail.projections.timeline import Timeline


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
            total = length_of(e.steps[:n])  # the exact running length, rounded once (1.41, 2.83, 4.24)
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
        "spent": dict(sorted(rs.spent_counted(state, f).items())),  # as its document counts it
        "damage": f.damage,
        "marks": plain(f.marks),
        "move_left": rs.move_budget(state, f),
        "move_unit": rs.budget_unit(state, f),
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


class RulingsInForce:
    """`rulings_in_force` folded record by record, in log order, as the timeline folds its batches.

    The batches in force are a stack (a new batch goes on top, undo takes the top one off,
    redo puts it back; tabletrail/undo), so the rulings in force are those of a stack of
    the batches that made any: a replay bundle asks before every batch, in O(the answer).
    """

    def __init__(self) -> None:
        self.made: dict[int, list[dict[str, Any]]] = {}  # each batch's rulings, as `explain` words them
        self.held: list[int] = []  # the batches in force that made any, oldest first

    def apply(self, record: Record) -> None:
        event = record.event
        kind = type(event)
        if kind is RulingMade:
            made = self.made.setdefault(record.batch, [])
            if not made:
                self.held.append(record.batch)
            made.append(_ruling(record.seq, event, "in force"))
        elif kind is Undone:
            if self.held and self.held[-1] == event.batch:
                self.held.pop()
        elif kind is Redone and event.batch in self.made:
            self.held.append(event.batch)

    def now(self) -> list[dict[str, Any]]:
        """The rulings in force after the records applied so far, oldest first."""
        return [r for batch in self.held for r in self.made[batch]]


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
    return Statuses(timeline).of(batch)


class Statuses:
    """Each batch's status in a timeline (in force, undone, abandoned, or an undo/redo itself),
    asked in O(1): a replay bundle asks it of every batch of a long log."""

    def __init__(self, timeline: Timeline) -> None:
        self.abandoned = timeline.abandoned
        self.undone = set(timeline.undone)
        self.applied = set(timeline.applied)

    def of(self, batch: int) -> str:
        if batch in self.abandoned:
            return "abandoned"
        if batch in self.undone:
            return "undone"
        if batch in self.applied:
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


# Words a later version may put better; the facts and rule ids around them may not change.
# (An edited note in a stored log is still caught: by the hash chain.)
PROSE = ("note",)
CITATIONS = ("rules",)  # which rule ids an event cites: the audit's words, not the board's facts


def _same(a: Event, b: Event, *also_ignored: str) -> bool:
    """Equal but for their prose (and any field named in also_ignored)."""
    pa, pb = plain(a), plain(b)
    for key in (*PROSE, *also_ignored):
        pa.pop(key, None)
        pb.pop(key, None)
    return bool(pa == pb)
