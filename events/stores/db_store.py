"""What the two database stores (events/stores/sqlite_store.py, events/stores/postgres_store.py) share,
written once.

Both keep the same tables (events, batches, refused, snapshots, meta: one row set
per encounter) and read them with the same SQL. Each store brings two primitives,
`_one` and `_all`, that run a query on its connection with its own errors turned
into one-line InputErrors; the queries are written here once, naming a table
`{s}.table` and a parameter `%s` (PostgreSQL's spelling: SQLite's store drops the
schema and writes `?`). Writing stays each store's own: a batch is one transaction,
and the two databases make it differently.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from tabletrail.events.errors import InputError
from tabletrail.events.stores.chain import parse_tip, tip_key
from tabletrail.events.stores.record import Record, decode
from tabletrail.events.stores.refusals import Refused, decode_refusals

DEFAULT_SNAPSHOT_EVERY = 1000  # events between snapshots unless the store says otherwise
PAGE = 20_000  # rows per query when reading a long log

Spans = dict[int, tuple[int, int, str | None]]  # batch -> (first version, last version, command id or None)


def batch_rows(lines: Sequence[bytes], name: str) -> tuple[list[Record], Spans]:
    """Decode the lines to be written: their versions and batches, each line checked."""
    records = [decode(line, f"{name}: new line {n}") for n, line in enumerate(lines, start=1)]
    batches: Spans = {}
    for r in records:  # a batch's command id: the first of its lines that carries one
        first, _, command_id = batches.get(r.batch, (r.seq, r.seq, None))
        batches[r.batch] = (first, r.seq, r.command_id if command_id is None else command_id)
    return records, batches


def check_order(records: Sequence[Record], expected: int, name: str, label: str) -> None:
    """The lines follow version `expected` one by one; else an InputError names the first that doesn't."""
    for n, r in enumerate(records, start=1):
        if r.seq != expected + n:
            raise InputError(f"{name}: {label} {n}: seq is {r.seq}, expected {expected + n}")


class DatabaseReads:
    """The reading half of a database store: every query here is the same on SQLite and PostgreSQL."""

    name: str
    encounter: str
    _kept_key: bytes | None = None  # the key of this encounter's kept tip, once line 1 was read
    _line_one: bytes | None = None  # line 1, once a read passed it (see `_tip_key`)

    def _one(self, doing: str, query: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
        """The first row of a query, or None (the store's connection, its errors named)."""
        raise NotImplementedError

    def read(self, start: int = 0, stop: int | None = None) -> Iterator[bytes]:
        """The log's lines from version `start` (0: the first) up to `stop` (None: the end)."""
        raise NotImplementedError

    def _all(self, doing: str, query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Every row of a query."""
        raise NotImplementedError

    def _tip_key(self, records: Sequence[Record], lines: Sequence[bytes]) -> bytes:
        """The key this encounter's kept tip is hashed with (a keyed chain's: issue 28, 9), b"" if plain.

        Read off line 1: the batch's own when it starts the log, else the one a read
        of this store passed (`_saw_first`), else the stored one; once per store, as
        line 1 never changes.
        """
        key = self._kept_key
        if key is None:
            first = lines[0] if records and records[0].seq == 1 else self._line_one
            if first is None:
                row = self._one(
                    "reading",
                    "SELECT line FROM {s}.events WHERE encounter = %s AND version = 1",
                    (self.encounter,),
                )
                first = bytes(row[0]) if row else b""
            key = self._kept_key = tip_key(first, f"{self.name}: line 1")
        return key

    def _saw_first(self, line: bytes) -> None:
        """A read passed line 1: kept, so that the first append of this store need not read it again."""
        if self._line_one is None:
            self._line_one = line

    def _planned(self, lines: Sequence[bytes], expected: int | None) -> tuple[list[Record], Spans, int]:
        """A batch about to be appended: its records and spans, and the version it must follow."""
        records, batches = batch_rows(lines, self.name)
        if expected is None:
            expected = records[0].seq - 1  # the lines say where they go
        check_order(records, expected, self.name, "new line")
        return records, batches, expected

    def _pages(self, start: int, stop: int | None) -> Iterator[bytes]:
        """The lines after version `start` (up to `stop`), PAGE rows a query, oldest first."""
        last = start
        end = stop if stop is not None else 2**62
        while True:
            rows = self._all(
                "reading",
                "SELECT version, line FROM {s}.events WHERE encounter = %s AND version > %s "
                "AND version <= %s ORDER BY version LIMIT %s",
                (self.encounter, last, end, PAGE),
            )
            if start == 0 and last == 0 and rows:
                self._saw_first(bytes(rows[0][1]))
            for version, line in rows:
                yield bytes(line)
                last = version
            if len(rows) < PAGE:
                return

    def find_command(self, command_id: str) -> tuple[int, int] | None:
        """The first and last version of the batch this command id appended, if any."""
        row = self._one(
            "reading",
            "SELECT first, last FROM {s}.batches WHERE encounter = %s AND command_id = %s",
            (self.encounter, command_id),
        )
        return (row[0], row[1]) if row else None

    def batch_span(self, batch: int) -> tuple[int, int] | None:
        """The first and last version of a batch, if it is in the log."""
        row = self._one(
            "reading",
            "SELECT first, last FROM {s}.batches WHERE encounter = %s AND batch = %s",
            (self.encounter, batch),
        )
        return (row[0], row[1]) if row else None

    def refused_lines(self) -> list[bytes]:
        rows = self._all(
            "reading refusals",
            "SELECT line FROM {s}.refused WHERE encounter = %s ORDER BY n",
            (self.encounter,),
        )
        return [bytes(row[0]) for row in rows]

    def refused(self) -> list[Refused]:
        return decode_refusals(self.refused_lines(), lambda n: f"{self.name}: refusal {n}")

    def _kept_every(self) -> int:
        """The snapshot interval kept in meta for this encounter (the default when none or unreadable)."""
        row = self._one(
            "reading settings",
            "SELECT value FROM {s}.meta WHERE encounter = %s AND key = 'snapshot_every'",
            (self.encounter,),
        )
        try:
            return int(row[0]) if row else DEFAULT_SNAPSHOT_EVERY
        except ValueError:
            return DEFAULT_SNAPSHOT_EVERY

    def latest_snapshot(self, fmt: int, upto: int | None = None) -> tuple[int, bytes] | None:
        """The newest snapshot in this format at or before version `upto`."""
        row = self._one(
            "reading snapshots",
            "SELECT version, data FROM {s}.snapshots WHERE encounter = %s AND format = %s "
            "AND version <= %s ORDER BY version DESC LIMIT 1",
            (self.encounter, fmt, upto if upto is not None else 2**62),
        )
        return (row[0], bytes(row[1])) if row else None

    def snapshots(self, fmt: int) -> list[tuple[int, bytes]]:
        """Every snapshot in this format, oldest first: `verify` checks each against the fold."""
        rows = self._all(
            "reading snapshots",
            "SELECT version, data FROM {s}.snapshots WHERE encounter = %s AND format = %s ORDER BY version",
            (self.encounter, fmt),
        )
        return [(row[0], bytes(row[1])) for row in rows]

    def kept_tip(self) -> tuple[int, str] | None:
        """The version and last line hash kept in meta with every append (None: an older log)."""
        row = self._one(
            "reading the tip",
            "SELECT value FROM {s}.meta WHERE encounter = %s AND key = 'tip'",
            (self.encounter,),
        )
        return parse_tip(row[0]) if row else None
