"""Replay decodes every line on its own: lines that would decode as records only when joined (a
record cut in two at a comma, and another line holding two records, the chain re-hashed to fit) are
refused at the first bad line, by the fast open exactly as by the plain line-by-line loop."""

from __future__ import annotations

import msgspec
import pytest
from support_store import fresh, play
from tabletrail.events.errors import InputError
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.record import decode, decode_many
from tabletrail.service.encounter import Encounter


def good_log() -> list[bytes]:
    enc = fresh(MemoryStore())
    play(enc, 60)
    return list(enc.store.lines)  # type: ignore[attr-defined]


def realigned(lines: list[bytes], k: int) -> list[bytes]:
    """Line k+1 cut at its first comma, records k+2 and k+3 on one line, every `prev` re-hashed to fit
    the lines as they now stand: as many lines as records, seq and chain in order, joined."""
    records = [msgspec.json.decode(line) for line in lines]
    head, tail = lines[k].split(b",", 1)
    out = [*lines[:k], head, tail]
    first, second = dict(records[k + 1], prev=line_hash(head)), dict(records[k + 2], prev=line_hash(tail))
    out.append(msgspec.json.encode(first) + b"," + msgspec.json.encode(second))
    prev = line_hash(out[-1])
    for record in records[k + 3 :]:
        out.append(msgspec.json.encode(dict(record, prev=prev)))
        prev = line_hash(out[-1])
    assert len(out) == len(lines)
    return out


def plain_open(lines: list[bytes]) -> str:
    """The error the plain loop gives (every line decoded, checked and folded in turn)."""
    enc = Encounter(MemoryStore(lines))
    try:
        enc._ingest_each(lines, 0, None)
    except InputError as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize("k", [1, 7, 30])
def test_lines_that_decode_only_when_joined_are_refused_at_the_first_bad_line(k: int) -> None:
    lines = realigned(good_log(), k)
    with pytest.raises(InputError) as by_line:
        decode(lines[k], f"<memory>:{k + 1}")
    with pytest.raises(InputError) as many:
        decode_many(lines, lambda i: f"<memory>:{i + 1}")
    assert str(many.value) == str(by_line.value)
    with pytest.raises(InputError) as opened:
        Encounter.open(MemoryStore(lines))
    assert str(opened.value) == plain_open(lines) == str(by_line.value)
    assert str(opened.value).startswith(f"<memory>:{k + 1}: not a log record")
