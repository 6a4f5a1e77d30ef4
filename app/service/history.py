"""The past-state history of an encounter opened from a snapshot.

The timeline keeps, for every batch, the board before and after it, its command,
its actor and whether it drew seeded dice. Opened from a snapshot, those of the
batches before the snapshot are fetched from the store on demand, not held.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import msgspec
from tabletrail.core.board.state import EncounterState
from tabletrail.events.errors import unfit
from tabletrail.events.stores.record import Record, decode
from tabletrail.events.types import (
    CheckRolled,
    CommandIssued,
    Redone,
    Undone,
)
from tabletrail.projections.snapshot import (
    FORMAT,
    Lazy,
    LazyMap,
    LazySet,
    Snapshot,
    loads,
    restore,
)
from tabletrail.projections.timeline import Timeline


class Folded(Protocol):
    """What the history reads of the log folded whole up to the snapshot: an `Encounter` (the service
    passes the opener, app/service/encounter.py), named by its shape so this module sits under the service."""

    @property
    def records(self) -> Sequence[Record]: ...

    @property
    def timeline(self) -> Timeline: ...


class History:
    """What an encounter opened from a snapshot knows of the batches before it, fetched on demand.

    Each batch's facts come from its own records (SQLite finds them by batch);
    the state before or after a batch is folded from the nearest snapshot at or
    before it. Asking for a whole collection folds the log up to the snapshot once.
    """

    def __init__(self, store: Any, snap: Snapshot, open_whole: Callable[[], Folded]) -> None:
        self.store = store
        self.snap = snap
        self._open_whole = open_whole  # opens the log up to the snapshot without it (the service's job)
        self._whole: Folded | None = None
        limit = snap.batch
        self.lazy = Lazy(
            before=LazyMap(self._before, lambda: self.whole().timeline.before, limit),
            after=LazyMap(self._after, lambda: self.whole().timeline.after, limit),
            commands=LazyMap(self._command, lambda: self.whole().timeline.commands, limit),
            actors=LazyMap(self._actor, lambda: self.whole().timeline.actors, limit),
            first_seq=LazyMap(self._first_seq, lambda: self.whole().timeline.first_seq, limit),
            seeded=LazySet(self._seeded, lambda: self.whole().timeline.seeded, limit),
        )

    def whole(self) -> Folded:
        """The log up to the snapshot, folded in full (once)."""
        if self._whole is None:
            self._whole = self._open_whole()
        return self._whole

    def records(self, first: int, last: int) -> list[Record]:
        if self._whole is not None:
            return list(self._whole.records[first - 1 : last])
        name = self.store.name
        return [decode(line, f"{name}:{n}") for n, line in enumerate(self.store.read(first - 1, last), first)]

    def _span(self, batch: int) -> tuple[int, int]:
        span: tuple[int, int] | None = self.store.batch_span(batch)
        if span is None:
            raise KeyError(batch)
        return span

    def _command_batch(self, batch: int) -> list[Record]:
        """A batch's records; KeyError for undo and redo batches, which the timeline keeps nothing of."""
        records = self.records(*self._span(batch))
        if not records or type(records[0].event) in (Undone, Redone):
            raise KeyError(batch)
        return records

    def _before(self, batch: int) -> EncounterState:
        first = self._command_batch(batch)[0].seq
        if first == 1:
            raise KeyError(batch)  # nothing comes before the encounter starts
        return self.state_at(first - 1)

    def _after(self, batch: int) -> EncounterState:
        return self.state_at(self._command_batch(batch)[-1].seq)

    def _command(self, batch: int) -> CommandIssued:
        for r in self._command_batch(batch):
            if type(r.event) is CommandIssued:
                return r.event
        raise KeyError(batch)

    def _actor(self, batch: int) -> str:
        return self._command_batch(batch)[0].actor

    def _first_seq(self, batch: int) -> int:
        return self._command_batch(batch)[0].seq

    def _seeded(self, batch: int) -> bool:
        try:
            records = self._command_batch(batch)
        except KeyError:
            return False
        return any(type(r.event) is CheckRolled and r.event.source == "seeded" for r in records)

    def state_at(self, seq: int) -> EncounterState:
        """The board after record `seq` (a batch end), folded from the nearest snapshot before it."""
        t: Timeline | None = None
        start = 0
        found = self.store.latest_snapshot(FORMAT, seq)
        if found is not None:
            try:
                snap = loads(found[1])
                t, start = restore(snap, self.lazy), snap.version
            except (msgspec.DecodeError, msgspec.ValidationError):
                t = None
        if t is None:
            t, start = Timeline(), 0
            t.before, t.after, t.commands, t.actors, t.first_seq = (
                self.lazy.before,
                self.lazy.after,
                self.lazy.commands,
                self.lazy.actors,
                self.lazy.first_seq,
            )
            t.seeded = self.lazy.seeded
        name = self.store.name
        for n, line in enumerate(self.store.read(start, seq), start=start + 1):
            where = f"{name}:{n}"
            record = decode(line, where)
            try:
                t.apply(record)
            except Exception as exc:  # a fact the fold cannot take: name the line, as opening does
                raise unfit(where, exc) from None
        return t.board
