"""The dry run: what a command would do on the current board, before anything happens."""

from __future__ import annotations

from typing import Any

import msgspec
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.state import EncounterState
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.fold.evolve import fold
from tabletrail.events.commands import Command
from tabletrail.events.types import CheckRolled, Event, Moved, Redone, Undone
from tabletrail.projections.audit.inputs import Live
from tabletrail.projections.audit.parts import (
    _cited,
    cell_rulings,
    checks,
    fighter_card,
    involved,
    moves,
    plain,
    rule_words,
)


def dry_run(live: Live, command: Command, text: str = "", reveal: bool = False) -> dict[str, Any]:
    """What a command would do, decided on the current board; nothing is appended or noted.

    `live` is the encounter as it stands (the app's `Encounter`, or a `Replay` of a log).

    A seeded check's number is the next draw of the encounter's dice, and undo can't
    re-roll it; so unless `reveal` (the GM's choice) the dry run stops at the first
    seeded check: it shows the check, not its number, nor what follows from it.
    """
    state = live.state
    rs = get_ruleset(state.ruleset)
    text = text or str(command.__struct_config__.tag)
    base: dict[str, Any] = {
        "text": text,
        "by": command.by,
        "ruleset": rs.id,
        "unit": rs.unit,
        "centi": list(rs.centi_resources),
    }
    result = live.preview(command)
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
        target = [r for r in live.records if r.batch == head.batch]
        touched = [r.event for r in target]
        numbered = [(r.seq, r.event) for r in target]
        tl = live.timeline
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
