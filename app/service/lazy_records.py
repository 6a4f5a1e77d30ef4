"""Lazy record paging: the records of an encounter opened from a snapshot, or from a database.

Those after the snapshot are in memory; those before it are read from the store
when someone asks for them (undo reaching back, explain, a retried command id).
An encounter folded whole from a database store keeps only its latest records
the same way (`trim`): a decoded record takes about three times its line's bytes,
and the database can read any of them back (issue 29).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import overload

from tabletrail.events.stores.record import Record


class LazyRecords(Sequence[Record]):
    """The records of an encounter opened from a snapshot: those before it are read when asked for."""

    def __init__(self, base: int, load: Callable[[int, int], list[Record]]) -> None:
        self.base = base  # records 1..base are in the store, not in memory
        self.tail: list[Record] = []
        self._load = load  # (first seq, last seq) -> records
        self._prefix: list[Record] | None = None

    def __len__(self) -> int:
        return self.base + len(self.tail)

    def append(self, record: Record) -> None:
        self.tail.append(record)

    def extend(self, records: list[Record]) -> None:
        self.tail.extend(records)

    def trim(self, keep: int) -> None:
        """Keep only the latest `keep` records in memory; the store reads the others back when asked."""
        drop = len(self.tail) - keep
        if drop > 0 and self._prefix is None:
            del self.tail[:drop]
            self.base += drop

    @overload
    def __getitem__(self, index: int) -> Record: ...

    @overload
    def __getitem__(self, index: slice) -> list[Record]: ...

    def __getitem__(self, index: int | slice) -> Record | list[Record]:
        n = len(self)
        if isinstance(index, slice):
            lo, hi, step = index.indices(n)
            if step != 1:
                return [self[i] for i in range(lo, hi, step)]
            return self._range(lo, hi) if hi > lo else []
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError("record index out of range")
        return self.tail[i - self.base] if i >= self.base else self._range(i, i + 1)[0]

    def _range(self, lo: int, hi: int) -> list[Record]:
        """Records lo..hi-1 (0-based), read from the store where they are not in memory."""
        out: list[Record] = []
        if lo < self.base:
            top = min(hi, self.base)
            out = self._prefix[lo:top] if self._prefix is not None else self._load(lo + 1, top)
        if hi > self.base:
            out = out + self.tail[max(lo, self.base) - self.base : hi - self.base]
        return out

    def __iter__(self) -> Iterator[Record]:
        if self._prefix is None:
            self._prefix = self._load(1, self.base)
        yield from self._prefix
        yield from self.tail

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyRecords | list):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyRecords({self.base} before the snapshot, {len(self.tail)} after)"
