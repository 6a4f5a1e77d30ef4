"""What-if: the same commands under other settings or with GM rulings made first."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from msgspec.structs import replace
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.state import EncounterState
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import Ruleset
from tabletrail.core.engine.rulings import setting_value
from tabletrail.events.commands import Command
from tabletrail.events.errors import InputError
from tabletrail.events.stores.record import Record
from tabletrail.events.types import Abandoned, CommandIssued, EncounterStarted, Event, Redone, Undone
from tabletrail.projections.audit.inputs import Decide, Replay, decide_on
from tabletrail.projections.audit.parts import _command_of, _groups, _same, plain
from tabletrail.projections.board import view
from tabletrail.projections.timeline import Timeline


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
) -> dict[str, Any] | None:
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
    *,
    decide: Decide = decide_on,
) -> WhatIf:
    """Re-run every command, undo and redo of a log in memory, under changed settings and
    with GM rulings (commands with their text) made before the first command; `decide`
    is the decision each is re-run with."""
    started = records[0].event
    assert isinstance(started, EncounterStarted)
    rs = get_ruleset(started.scenario.ruleset)
    if not sets and not rulings:
        raise InputError(
            f"{where}: give at least one SETTING=VALUE (e.g. --set diagonal=euclidean) or a ruling"
        )
    changes = parse_sets(rs, sets, where) if sets else {}
    scenario = replace(started.scenario, settings={**started.settings, **changes})
    # begun under the log's own rules version: only what is set changes, never the log's arithmetic
    alt = Replay.start(
        scenario,
        decide=decide,
        clock=lambda: records[-1].at,
        where="what-if",
        rules_version=started.rules_version,
    )
    groups = _groups(records)
    setup = [r.event for r in groups[0][1:]]
    divergence = _first_gap(
        lambda i: groups[0][1 + i].seq if 1 + i < len(groups[0]) else groups[0][-1].seq + 1,
        setup,
        [r.event for r in alt.records[1:]],
        "(setup)",
    )
    for ruling, text in rulings:
        made = alt.execute(ruling, text)
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

            def seq_of(i: int, body: list[Record] = body, recs: Sequence[Record] = recs) -> int:
                return body[i].seq if i < len(body) else recs[-1].seq + 1

            divergence = _first_gap(
                seq_of,
                [r.event for r in body],
                theirs,
                text,
            )
    recorded = Timeline.of(records).board
    in_force = {**{s.name: s.default for s in rs.all_settings()}, **started.settings}  # older logs: defaults
    changed = {k: (in_force.get(k), v) for k, v in changes.items()}
    return WhatIf(
        changed,
        divergence,
        refused,
        recorded,
        alt.state,
        _fighter_differences(recorded, alt.state),
        [text for _, text in rulings],
    )
