"""A batch's events made log lines: numbered, hash-chained, the first announcing the batch."""

from collections.abc import Sequence

from tabletrail.events.stores.chain import key_check, line_hash
from tabletrail.events.stores.record import Record, encode
from tabletrail.events.types import SCHEMA_VERSION, Event


def batch_lines(
    events: Sequence[Event],
    *,
    seq: int,
    batch: int,
    prev: str,
    actor: str,
    at: str,
    command_id: str | None = None,
    key: bytes = b"",
) -> list[bytes]:
    """One batch's events as log lines after record `seq` (whose line hashes to `prev`).

    The first record announces the batch's size and carries its command id, so a
    reader can tell a batch cut short; every line carries the hash of the one before
    (keyed by the table's secret when the log's chain is: line 1 then says so).
    """
    lines = []
    for n, event in enumerate(events):
        head = n == 0
        record = Record(
            seq=seq + 1 + n,
            batch=batch,
            actor=actor,
            at=at,
            prev=prev,
            event=event,
            size=len(events) if head else 0,
            command_id=command_id if head else None,
            schema=SCHEMA_VERSION,
            keyed=key_check(key) if key and seq + n == 0 else "",
        )
        line = encode(record)
        prev = line_hash(line, key)
        lines.append(line)
    return lines
