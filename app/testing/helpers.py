"""Playing a ruleset in a test: an encounter from inline TOML, commands that must pass or be refused."""

from __future__ import annotations

import tomllib
from typing import Any

from tabletrail.core.board.refusal import Rejection
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.record import Record
from tabletrail.events.types import Event
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse

CLOCK = "2026-11-29T00:00:00+00:00"  # every record's time in a test: logs compare byte for byte


def encounter(toml_text: str) -> Encounter:
    """A fresh in-memory encounter from a scenario written inline."""
    scenario = parse_scenario(tomllib.loads(toml_text), source="test scenario")
    return Encounter.create(MemoryStore(), scenario, clock=lambda: CLOCK)


def do(enc: Encounter, text: str) -> list[Event]:
    """Run a command that must be accepted; returns the events of its batch."""
    result = enc.execute(parse(text), text)
    assert not isinstance(result, Rejection), f"{text!r} was {result}"
    return [r.event for r in result]


def refuse(enc: Encounter, text: str, rule: str) -> Rejection:
    """Run a command that must be refused by `rule`; checks nothing was appended."""
    store = enc.store
    before = list(store.lines) if isinstance(store, MemoryStore) else None
    count = len(enc.records)
    result = enc.execute(parse(text), text)
    assert isinstance(result, Rejection), f"{text!r} was accepted: {result}"
    assert result.rule == rule, f"{text!r} refused by {result.rule}, expected {rule}: {result.reason}"
    assert len(enc.records) == count
    if isinstance(store, MemoryStore):
        assert store.lines == before
    return result


def of_type(events: list[Event] | list[Record], kind: type) -> list[Any]:
    """The events of one type, from a batch's events or records."""
    out = []
    for e in events:
        e = e.event if isinstance(e, Record) else e
        if isinstance(e, kind):
            out.append(e)
    return out


def grid(rows: list[str], legend: str = "") -> str:
    """TOML for a [map] table from rows; `legend` adds entries to the default ones (# . and ~)."""
    quoted = ",\n".join(f'  "{r}"' for r in rows)
    return f"""
[map]
rows = [
{quoted}
]
[map.legend]
"#" = "wall"
"." = "floor"
"~" = "rough"
{legend}
"""
