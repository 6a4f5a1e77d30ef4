"""The refused attempts kept in the side log, with the words of their rules."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import ENGINE_RULE_WORDS
from tabletrail.events.errors import InputError
from tabletrail.events.stores.protocol import Store
from tabletrail.events.stores.record import decode
from tabletrail.events.stores.tail import TornTail
from tabletrail.projections.audit.parts import plain, rule_words


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
        rs = get_ruleset(decode(first, f"{store.name}:1").event.scenario.ruleset)
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
