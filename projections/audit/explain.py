"""Explain: everything behind one event of a log."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
from tabletrail.core.board.state import EncounterState
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import Ruleset
from tabletrail.events.errors import InputError
from tabletrail.events.stores.record import Record
from tabletrail.events.types import CommandIssued, EncounterStarted, Event, Moved, Redone, RulingMade, Undone
from tabletrail.projections.audit.parts import (
    _cited,
    _command_of,
    _ruling,
    _status,
    cell_rulings,
    checks,
    fighter_card,
    involved,
    moves,
    plain,
    rule_words,
    rulings_in_force,
    settings_view,
)
from tabletrail.projections.timeline import Timeline


def _command_view(recs: Sequence[Record], commands: Mapping[int, CommandIssued]) -> dict[str, Any]:
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


def _batch_around(records: Sequence[Record], i: int) -> list[Record]:
    """The run of records of record i's batch (a batch's lines are consecutive): O(its size), not O(log)."""
    batch = records[i].batch
    lo = hi = i
    while lo > 0 and records[lo - 1].batch == batch:
        lo -= 1
    while hi + 1 < len(records) and records[hi + 1].batch == batch:
        hi += 1
    return list(records[lo : hi + 1])


def explain(
    records: Sequence[Record],
    seq: int,
    refused: Sequence[Any] = (),
    where: str = "log",
) -> dict[str, Any]:
    """Everything behind one event; InputError when the log has no such sequence number."""
    if not records:
        raise InputError(f"{where}: the log is empty")
    last = records[-1].seq
    if not 1 <= seq <= last:
        raise InputError(f"{where}: no event {seq}: the log holds events 1 to {last}")
    batch = _batch_around(records, seq - 1)
    first, end = batch[0].seq, batch[-1].seq
    before_tl = Timeline.of(records[: first - 1]) if first > 1 else None
    whole = Timeline.of(records)
    head = batch[0].event
    target = target_batch(records, whole, head)
    return explain_batch(
        batch,
        seq,
        Around(
            before=before_tl.state if before_tl else None,
            after=Timeline.of(records[:end]).state,  # type: ignore[arg-type]
            whole=whole,
            rulings=rulings_in_force(records, before_tl) if before_tl else [],
            target=target,
            refused=[x for x in refused if getattr(x, "after_seq", None) == first - 1],
            status=_status(whole, batch[0].batch),
        ),
    )


def target_batch(records: Sequence[Record], whole: Timeline, head: Any) -> list[Record]:
    """The batch an undo or redo takes back or puts back (none for any other batch)."""
    if not isinstance(head, Undone | Redone):
        return []
    first = whole.first_seq.get(head.batch)
    return _batch_around(records, first - 1) if first else []


# A fighter's card on a board (parts.fighter_card's answer, None where the board has no such fighter).
Cards = Callable[[Ruleset, EncounterState | None, str], dict[str, Any] | None]


@dataclass(frozen=True)
class Around:
    """What one batch's explanation reads besides the batch: the boards before and after it, the
    whole log's timeline, the GM's rulings in force before it, the batch an undo or redo targets,
    the attempts refused just before it, and its status in the whole log. `explain` folds them;
    a replay bundle keeps them as it folds the log once (app/bundle/data.py). `cards`: where the
    fighters' cards on the two boards are asked, when the caller keeps them (a replay bundle, by
    the fighters' views it draws: bundle.data.FighterViews.card); none: kept here by the state's
    identity (`_Kept.card`), each the very answer of parts.fighter_card."""

    before: EncounterState | None
    after: EncounterState
    whole: Timeline
    rulings: list[dict[str, Any]]
    target: Sequence[Record]
    refused: Sequence[Any]
    status: str  # the batch's (parts.Statuses)
    cards: Cards | None = None


# Whether an explanation's events are made plain, and its moves told, once a value (`_Kept.plain`,
# `_Kept.moves`): off, each batch's afresh (the same words either way: a test turns this off).
KEEP_BY_VALUE = True
_KEPT_BY_VALUE = 512  # entries of each memo by value below (as app/text/audit.py's): bounded
_ENCODE = msgspec.json.encode


class _Kept:
    """The answers one batch's explanation shares with the next, kept by the identity of what they
    are made of (a folded state is never changed, so the same object gives the same answer): the
    fighters' cards of the board after a batch are the next batch's cards before it, and the
    settings in force are mostly the same dict from batch to batch. A few entries each, the object
    held beside its answer so that an id is never mistaken; a replay bundle asks at every batch.

    And kept by value, an event's plain form and its move told step by step (parts.plain and
    parts.moves, each a function of the event's value alone, which its JSON holds whole): a fight
    repeats its events (a fighter walking back and forth, turn after turn) wherever in the log."""

    def __init__(self) -> None:
        self.cards: dict[int, tuple[EncounterState, dict[str, dict[str, Any] | None]]] = {}
        # (id(rs), id(settings dict), cited) -> (rs, settings dict, the settings' view): a few, since
        # batches that cite different rules (a move, an end of turn) take turns along a fight
        self.said: dict[tuple[int, int, tuple[str, ...]], tuple[Ruleset, Any, list[dict[str, Any]]]] = {}
        self.plains: dict[bytes, Any] = {}  # an event as JSON -> its plain form
        # (a move as JSON, the unit, the centi resources) -> its parts.moves entry, "seq" None
        self.moved: dict[tuple[bytes, str, tuple[str, ...]], dict[str, Any]] = {}

    def card(self, rs: Ruleset, state: EncounterState | None, fid: str) -> dict[str, Any] | None:
        if state is None:
            return None
        kept = self.cards.get(id(state))
        if kept is None or kept[0] is not state:
            if len(self.cards) >= 4:
                self.cards.clear()
            kept = self.cards[id(state)] = (state, {})
        if fid not in kept[1]:
            kept[1][fid] = fighter_card(rs, state, fid)
        return kept[1][fid]

    def plain(self, event: Event) -> Any:
        """parts.plain(event), made once a value: the same object for equal events."""
        code = _ENCODE(event)
        kept = self.plains.get(code)
        if kept is None:
            if len(self.plains) >= _KEPT_BY_VALUE:
                self.plains.clear()
            kept = self.plains[code] = plain(event)
        return kept

    def moves(
        self, numbered: Sequence[tuple[int, Event]], unit: str, centi: tuple[str, ...]
    ) -> list[dict[str, Any]]:
        """parts.moves(numbered, unit, centi), each move's entry made once a value and given its seq
        (the entry's first key: its place kept); its steps the same list for equal moves."""
        others = [(seq, e) for seq, e in numbered if not isinstance(e, Moved)]
        if others and moves(others, unit, centi):  # told of another event than a Moved: all afresh, in order
            return moves(numbered, unit, centi)
        out: list[dict[str, Any]] = []
        for seq, e in numbered:
            if not isinstance(e, Moved):
                continue
            key = (_ENCODE(e), unit, centi)
            kept = self.moved.get(key)
            if kept is None:
                if len(self.moved) >= _KEPT_BY_VALUE:
                    self.moved.clear()
                (kept,) = moves([(None, e)], unit, centi)
                self.moved[key] = kept
            out.append({**kept, "seq": seq})
        return out

    def settings(self, rs: Ruleset, state: EncounterState | None, cited: list[str]) -> list[dict[str, Any]]:
        if state is None:
            return settings_view(rs, state, cited)
        key = (id(rs), id(state.settings), tuple(cited))
        kept = self.said.get(key)
        if kept is not None and kept[0] is rs and kept[1] is state.settings:
            return kept[2]
        view_ = settings_view(rs, state, cited)
        if len(self.said) >= 8:
            self.said.clear()
        self.said[key] = (rs, state.settings, view_)
        return view_


_KEPT = _Kept()


def explain_batch(batch: Sequence[Record], seq: int, around: Around) -> dict[str, Any]:
    """Everything behind event `seq` of `batch` (its records, in order), from what is around it."""
    at, record = next((i, r) for i, r in enumerate(batch) if r.seq == seq)
    state_before, state_after, whole = around.before, around.after, around.whole
    rs = get_ruleset((state_before or state_after).ruleset)
    events = [r.event for r in batch]
    numbered = [(r.seq, r.event) for r in batch]
    head = batch[0].event
    command, _ = _command_of(head)
    touched = events
    if isinstance(head, Undone | Redone):  # what was taken back or put back
        touched = [r.event for r in around.target]
        numbered = [(r.seq, r.event) for r in around.target]
    cited = _cited(events if not isinstance(head, Undone | Redone) else touched)
    card = around.cards or _KEPT.card
    plains = [_KEPT.plain(r.event) if KEEP_BY_VALUE else plain(r.event) for r in batch]
    told = (
        _KEPT.moves(numbered, rs.unit, rs.centi_resources)
        if KEEP_BY_VALUE
        else moves(numbered, rs.unit, rs.centi_resources)
    )
    fighters = [
        {
            "id": fid,
            "before": card(rs, state_before, fid),
            "after": card(rs, state_after, fid),
        }
        for fid in involved(touched, command)
    ]
    return {
        "seq": seq,
        "batch": record.batch,
        "status": around.status,
        "ruleset": rs.id,
        "unit": rs.unit,
        "centi": list(rs.centi_resources),
        "event": plains[at],
        "rules": [rule_words(rs, r) for r in record.event.rules],
        "command": _command_view(batch, whole.commands),
        "batch_rules": [rule_words(rs, r) for r in cited],
        "moves": told,
        "checks": checks(numbered),
        "settings": _KEPT.settings(rs, state_before or state_after, cited),
        "rulings": {
            "in_force": around.rulings,
            "cells": cell_rulings(state_before),
            "made_here": [_ruling(s, e) for s, e in numbered if isinstance(e, RulingMade)],
        },
        "fighters": fighters,
        "events": [{"seq": r.seq, "event": p} for r, p in zip(batch, plains, strict=True)],
        "refused_before": [plain(x) for x in around.refused],
    }
