"""Helpers for tests: build an encounter from inline TOML and run commands on it."""

from __future__ import annotations

import json
import tomllib

from tabletrail.core.refusal import Rejection
from tabletrail.encounter import Encounter
from tabletrail.events.log import MemoryStore, Record, line_hash
from tabletrail.events.scenario import parse_scenario
from tabletrail.events.types import Event
from tabletrail.syntax import parse

CLOCK = "2026-11-29T00:00:00+00:00"


def rechain(lines: list[bytes]) -> list[bytes]:
    """Renumber and re-hash JSON lines, as a forger who knows the format would: only their content
    can be wrong (an unkeyed log's chain can be re-made by anyone)."""
    out, prev = [], ""
    for n, line in enumerate(lines, start=1):
        record = json.loads(line)
        record["seq"], record["prev"] = n, prev
        data = json.dumps(record, separators=(",", ":")).encode()
        out.append(data)
        prev = line_hash(data)
    return out


def encounter(toml_text: str) -> Encounter:
    """A fresh in-memory encounter from a scenario written inline."""
    scenario = parse_scenario(tomllib.loads(toml_text), source="test scenario")
    return Encounter.create(MemoryStore(), scenario, clock=lambda: CLOCK)


def begun_under(enc: Encounter, version: str) -> Encounter:
    """The encounter as a log begun under another rules version ("": one that records none, 0.1), as
    an older tabletrail wrote line 1: what is decided from then on is decided under that version."""
    lines = [json.loads(line) for line in enc.store.lines]
    lines[0]["event"]["rules_version"] = version
    return Encounter.open(
        MemoryStore(rechain([json.dumps(line).encode() for line in lines])), clock=lambda: CLOCK
    )


def do(enc: Encounter, text: str) -> list[Event]:
    """Run a command that must be accepted; returns the events of its batch."""
    result = enc.execute(parse(text), text)
    assert not isinstance(result, Rejection), f"{text!r} was {result}"
    return [r.event for r in result]


def refuse(enc: Encounter, text: str, rule: str) -> Rejection:
    """Run a command that must be refused by `rule`; checks nothing was appended."""
    before = list(enc.store.lines) if isinstance(enc.store, MemoryStore) else None
    count = len(enc.records)
    result = enc.execute(parse(text), text)
    assert isinstance(result, Rejection), f"{text!r} was accepted: {result}"
    assert result.rule == rule, f"{text!r} refused by {result.rule}, expected {rule}: {result.reason}"
    assert len(enc.records) == count
    if before is not None:
        assert enc.store.lines == before
    return result


def of_type(events: list[Event] | list[Record], kind: type) -> list:
    out = []
    for e in events:
        e = e.event if isinstance(e, Record) else e
        if isinstance(e, kind):
            out.append(e)
    return out


def grid(rows: list[str], legend: str = "") -> str:
    """TOML for a [map] table from rows; `legend` adds entries to the default ones."""
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
