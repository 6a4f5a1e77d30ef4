"""Helpers for tests: the conformance kit's (tabletrail.testing: encounter, do, refuse…) and a forger's."""

from __future__ import annotations

import json
from pathlib import Path

from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.service.encounter import Encounter
from tabletrail.testing.helpers import CLOCK, do, encounter, grid, of_type, refuse  # noqa: F401  (the kit's)


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


def forged_replay(replay: Path, into: Path, kind: str, field: str, value: object) -> tuple[Path, int]:
    """A copy of a shipped replay in folder `into` whose first `kind` line has its event's `field` set to
    `value`, re-chained as a forger would (`rechain`); and that line's number."""
    lines = replay.read_bytes().splitlines()
    at = next(n for n, line in enumerate(lines) if f'"type":"{kind}"'.encode() in line)
    raw = json.loads(lines[at])
    raw["event"][field] = value
    path = into / replay.name
    forged = rechain([*lines[:at], json.dumps(raw).encode(), *lines[at + 1 :]])
    path.write_bytes(b"".join(line + b"\n" for line in forged))
    return path, at + 1


def begun_under(enc: Encounter, version: str) -> Encounter:
    """The encounter as a log begun under another rules version ("": one that records none, 0.1), as
    an older tabletrail wrote line 1: what is decided from then on is decided under that version."""
    lines = [json.loads(line) for line in enc.store.lines]
    lines[0]["event"]["rules_version"] = version
    return Encounter.open(
        MemoryStore(rechain([json.dumps(line).encode() for line in lines])), clock=lambda: CLOCK
    )
