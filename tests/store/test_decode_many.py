"""`decode_many` (replay's decoder: msgspec's typed decoder mapped over the lines, the loop in C) reads a
log as `decode` reads it line by line: the same records, and for a line `decode` refuses, the same
one-line error naming that line.

A line `decode` checks beyond its types (the start, a door, an older line) is decoded again by `decode`
alone; the others stand as the mapped decoder gave them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import do, encounter
from tabletrail.events.errors import InputError
from tabletrail.events.stores.record import decode, decode_many

from tests.core.test_doors import DOOR, scene

ROOT = Path(__file__).resolve().parents[2]
LOGS = sorted((ROOT / "replays").glob("*.jsonl")) + sorted((ROOT / "tests" / "golden").glob("**/*.jsonl"))


def one_by_one(lines: list[bytes], name: str) -> list:
    return [decode(line, f"{name}:{i + 1}") for i, line in enumerate(lines)]


def many(lines: list[bytes], name: str) -> list:
    return decode_many(lines, lambda i: f"{name}:{i + 1}")


def door_log() -> list[bytes]:
    """A played log with doors opened and closed between moves (DoorChanged lines amid the rest)."""
    enc = encounter(scene("speed-meters"))
    for text in ("open m 3,2|2,2", "move m 3,2", f"close m {DOOR}", "undo", "move m 2,2", "end-turn"):
        do(enc, text)
    return list(enc.store.lines)


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_a_kept_log_decodes_as_line_by_line(path: Path):
    lines = [line for line in path.read_bytes().split(b"\n") if line]
    try:
        expected = one_by_one(lines, path.name)
    except InputError as exc:  # a log kept to be refused: refused alike
        with pytest.raises(InputError) as caught:
            many(lines, path.name)
        assert str(caught.value) == str(exc)
        return
    assert many(lines, path.name) == expected


def test_a_log_with_doors_decodes_as_line_by_line():
    lines = door_log()
    assert sum(b'"type":"door"' in line for line in lines) == 2, "opened, closed (then taken back)"
    assert many(lines, "doors") == one_by_one(lines, "doors")


def test_a_door_misnamed_mid_chunk_is_the_error_decode_gives_for_its_line():
    lines = door_log()
    at = next(i for i, line in enumerate(lines) if DOOR.encode() in line and i > 0)
    lines[at] = lines[at].replace(DOOR.encode(), b"3,2|2,2")  # a door named the other way round
    with pytest.raises(InputError) as line_by_line:
        one_by_one(lines, "doors")
    with pytest.raises(InputError) as chunked:
        many(lines, "doors")
    assert str(chunked.value) == str(line_by_line.value)
    assert str(chunked.value).startswith(f"doors:{at + 1}: ")
