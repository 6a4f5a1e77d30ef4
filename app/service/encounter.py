"""An encounter: a log store, the timeline folded from it, and `decide` in between.

This is where a command becomes a batch: decide, wrap each event in a record
(sequence number, batch, actor, time, hash of the previous line), append the
whole batch to the store at once, then fold it into the timeline.

Durability and sharing, store by store:

- The encounter's version is its number of records. Every append says which
  version it was decided on; a store that has moved on since (another device at
  the table appended first) refuses with a ConflictError naming both versions,
  and nothing is appended. `refresh()` folds what the other writer added; the
  command can then be decided again.
- `execute(..., command_id=...)` makes a command idempotent: an id already in
  the log appends nothing and returns the records that id appended first.
- A store with snapshots (SQLite) is opened from its newest snapshot and the
  records after it; undo and redo reach back before the snapshot lazily
  (`history.py` fetches the past states, `lazy_records.py` the records, and
  projections/snapshot.py stores the board). `open(..., snapshots=False)` folds
  the whole log.
- A log a crash cut mid-batch (a torn last line, or a batch missing records)
  is refused with the byte or line where the damage starts; `open(...,
  committed=True)` opens the whole batches before it, read-only.
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from operator import attrgetter, itemgetter
from typing import Any

import msgspec
from tabletrail.core.board.geometry import Grid
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.state import EncounterState
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.commands import Command, Redo, Undo
from tabletrail.events.errors import ConflictError, InputError, unfit
from tabletrail.events.scenario_spec import Scenario
from tabletrail.events.stores.appending import batch_lines
from tabletrail.events.stores.chain import (
    KEY_VARIABLE,
    chain_broken,
    chain_key,
    line_hash,
    line_hashes,
    table_key,
)
from tabletrail.events.stores.db_store import DatabaseReads
from tabletrail.events.stores.protocol import Store, is_versioned, keeps_snapshots
from tabletrail.events.stores.record import Record, decode, decode_many, now
from tabletrail.events.stores.refusals import Refused
from tabletrail.events.stores.tail import TornTail
from tabletrail.events.types import (
    SCHEMA_VERSION,
    CommandIssued,
    EncounterStarted,
    Event,
    Moved,
    Placed,
    Redone,
    Undone,
)
from tabletrail.projections.decider import (
    batch_events,
    check_places,
    decide_on,
    setup_events,
    started_event,
)
from tabletrail.projections.snapshot import (
    FORMAT,
    Snapshot,
    dumps,
    loads,
    restore,
    take,
)
from tabletrail.projections.timeline import FoldError, Timeline
from tabletrail.service.history import History
from tabletrail.service.lazy_records import LazyRecords

_to_of = attrgetter("to")
_y_of = itemgetter(1)
_LOOKED_AT = frozenset({Moved, Placed, EncounterStarted})  # what `_batches_whole` checks beyond batches
_CHUNK = 16_384  # lines checked and folded together when opening a log
KEEP = 4096  # records a database-backed encounter keeps decoded in memory; older ones are read back


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause CPython's cyclic garbage collector while a log is folded in bulk.

    Folding allocates a few containers a record and frees almost none, so the
    collector would walk the growing heap again and again, looking for cycles
    that records and board states (frozen, acyclic structs) never form. About a
    tenth of a long replay (benchmarks/bench_vs_eventsourcing.py).

    On the way out, what the fold made is moved to the oldest generation at once
    (`freeze` then `unfreeze`: two list splices), as surviving collections would
    move it anyway; otherwise the first allocation after `enable` starts a young
    collection that walks every object the fold made (another seventh of a replay).
    They stay collectable. Objects someone else froze are left as they are.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


class Encounter:
    def __init__(self, store: Store, clock: Callable[[], str] = now) -> None:
        self.store = store
        self.clock = clock
        # A LazyRecords when opened from a snapshot, or on a database store (only the latest are held).
        self.records: list[Record] | LazyRecords = []
        if isinstance(store, DatabaseReads):
            self.records = self._paged(store)
        self.timeline = Timeline()
        self.last_hash = ""
        self.key = b""  # the table's secret when this log's chain is keyed (events/stores/chain.py table_key)
        self.read_only = ""  # why nothing may be appended through this encounter ("" when it may)
        self._batch = 0  # the last record's batch
        self._size = 0  # how many records the last batch's first line announced (0: not said)
        self._held = 0  # how many of them have been read
        self._head = 0  # the last batch's first seq
        self._ids: dict[str, int] = {}  # command id -> seq of the first record of its batch
        self._snapped = 0  # version of the newest snapshot this encounter knows of
        self._sink: Callable[[], None] | None = None  # called at every batch end while folding
        self._short = False  # stopped at `upto`, before the end of the log
        self._unused = ""  # why the store's snapshot was not used, when it failed its checks

    @staticmethod
    def _paged(store: DatabaseReads) -> LazyRecords:
        """Records kept as the latest KEEP in memory, the rest read back from the database on demand."""

        def load(first: int, last: int) -> list[Record]:
            name = store.name
            lines = store.read(first - 1, last)
            return [decode(line, f"{name}:{n}") for n, line in enumerate(lines, first)]

        return LazyRecords(0, load)

    def _trim(self) -> None:
        """Keep the latest KEEP records decoded, and pack what the timeline keeps of older batches."""
        if isinstance(self.records, LazyRecords) and len(self.records.tail) > 2 * KEEP:
            self.records.trim(KEEP)
            self.timeline.pack(self.records.tail[0].batch)

    # --- opening and creating --------------------------------------------------

    @classmethod
    def open(
        cls,
        store: Store,
        clock: Callable[[], str] = now,
        upto: int | None = None,
        *,
        snapshots: bool = True,
        committed: bool = False,
    ) -> Encounter:
        """Read and fold a log; `upto` stops after that sequence number (a read-only view).

        snapshots: start from the store's newest snapshot that fits, if it keeps any.
        committed: when a crash cut the log mid-batch, open the whole batches before
        the damage, read-only, instead of refusing.
        """
        enc = cls(store, clock)
        # committed: a damaged tail is handled by the whole fold alone (a JSON Lines log can have one)
        if not (snapshots and not committed and enc._from_snapshot(upto)):
            enc._fold_all(upto, committed)
            if enc._unused:  # said once the log has folded: a broken log says only what is wrong with it
                warn = getattr(store, "warn", None)
                if warn is not None:
                    warn(enc._unused)
        return enc

    def _fold_all(self, upto: int | None, committed: bool) -> None:
        try:
            lines: Iterable[bytes] = self.store.read()
        except TornTail as torn:
            if not committed:
                raise
            lines = torn.lines
            self._damaged(str(torn))
        self._ingest(lines, 0, upto)
        if not self.records:
            raise InputError(self.read_only or f"{self.store.name}: the log is empty")
        cut = self._partial()
        if cut:
            if not committed:
                raise InputError(cut)
            head, was_torn = self._head, self.read_only
            self.__init__(self.store, self.clock)  # type: ignore[misc]  # mypy forbids calling __init__; a fresh start
            self._ingest(lines if isinstance(lines, list) else self.store.read(), 0, head - 1)
            self._damaged(f"{was_torn}; and {cut}" if was_torn else cut)

    def _damaged(self, why: str) -> None:
        self.read_only = why
        warn = getattr(self.store, "warn", None)
        if warn is not None:
            warn(why)

    def _partial(self) -> str:
        """Why the last batch is not whole, or "" if it is (or cannot tell: older logs)."""
        if not self._size or self._held >= self._size or self._short:
            return ""
        name = self.store.name
        return (
            f"{name}:{self._head}: the last batch (batch {self._batch}) holds {self._held} of the "
            f"{self._size} records its first line announces: the log was cut mid-write; the "
            f"{self._head - 1} records before line {self._head} open read-only; "
            f"`tabletrail repair {name}` cuts the partial batch and keeps a backup"
        )

    def _from_snapshot(self, upto: int | None) -> bool:
        """Open from the newest snapshot at or before `upto` that fits this log; False if none does."""
        store = self.store
        if not keeps_snapshots(store):
            return False
        found = store.latest_snapshot(FORMAT, upto)
        if found is None:
            return False
        try:
            snap = loads(found[1])
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return self._unfit(found[0], str(exc))  # a cache we cannot read is no cache: fold the log
        at = list(store.read(snap.version - 1, snap.version))
        if snap.schema != SCHEMA_VERSION:
            return False  # an older vocabulary's snapshot: ignored quietly, as `repair` will replace it
        for first in store.read(0, 1):
            self.key = chain_key(decode(first, f"{self.store.name}:1"), f"{self.store.name}:1")
        if len(at) != 1 or line_hash(at[0], self.key) != snap.line_hash or snap.version != found[0]:
            return self._unfit(found[0], "it names another record than the log holds at that version")
        history = History(store, snap, lambda: Encounter.open(store, upto=snap.version, snapshots=False))
        self.timeline = restore(snap, history.lazy)
        self.records = LazyRecords(snap.version, history.records)
        self.last_hash = snap.line_hash
        self._batch = snap.batch
        self._snapped = snap.version
        self._ingest(self.store.read(snap.version), snap.version, upto)
        cut = self._partial()
        if cut:
            raise InputError(cut)
        return True

    def _unfit(self, version: int, why: str) -> bool:
        """A snapshot that fails its checks is not used; `open` tells the store's listener (issue 13)."""
        self._unused = (
            f"{self.store.name}: the snapshot at version {version} is not used ({why}); the log is "
            "folded from its first line instead (`tabletrail repair` rebuilds the snapshots)"
        )
        return False

    def refresh(self) -> int:
        """Fold what other writers appended since this encounter last read; how many records came."""
        if self.read_only:
            raise InputError(self.read_only)
        start = len(self.records)
        if getattr(self.store, "versioned", False):
            lines = self.store.read(start)
        else:
            lines = itertools.islice(self.store.read(), start, None)
        self._ingest(lines, start, None)
        cut = self._partial()
        if cut:
            raise InputError(cut)
        return len(self.records) - start

    def _ingest(self, lines: Iterable[bytes], start: int, upto: int | None) -> None:
        """Check and fold lines that follow record `start`; InputError names the line at fault.

        The fast way first, a chunk of lines at a time: decode each line on its own (C
        loops), hash each, check the batches, then fold them in one tight loop that also
        checks each record's sequence number and `prev` hash. From the first line that fails
        any of those checks on, the plain loop (`_ingest_each`) takes over, and names the
        first line at fault exactly as it always has.
        """
        lines = lines if isinstance(lines, list) else list(lines)
        if upto is not None and start + len(lines) > upto:
            self._ingest_each(lines[: max(0, upto - start) + 1], start, upto)
            return
        done = 0  # lines folded the fast way, a chunk at a time (memory stays bounded on long logs)
        if self._sink is None:  # fold_with_snapshots listens at every batch end: the plain loop does
            with _collector_paused():
                while done < len(lines):
                    chunk = lines[done : done + _CHUNK]
                    folded = self._ingest_checked(chunk, start + done)
                    done += folded
                    if folded < len(chunk):
                        break
            if done >= len(lines):
                return
        self._ingest_each(lines[done:] if done else lines, start + done, upto)

    def _ingest_checked(self, lines: list[bytes], start: int) -> int:
        """Check the lines and fold them; how many were folded (all of them, or those before the first
        line a check refuses, which the plain loop then names; 0: nothing changed)."""
        name = self.store.name
        try:
            records = decode_many(lines, lambda i: f"{name}:{start + i + 1}")
        except InputError:
            return 0
        if start == 0 and records:
            try:
                self.key = chain_key(records[0], f"{name}:1")
            except InputError:
                return 0  # the plain loop says why
        hashes = line_hashes(lines, self.key)
        tracked = self._batches_whole(records, start)
        if tracked is None:
            return 0
        links = [self.last_hash, *hashes[:-1]]  # the `prev` each record must carry
        try:
            folded = self.timeline.extend(records, links, start + 1)
        except FoldError as failed:
            self.records.extend(records[: failed.index + 1])  # as the plain loop leaves them
            if isinstance(failed.cause, InputError):
                raise failed.cause from None
            raise unfit(f"{name}:{start + failed.index + 1}", failed.cause) from None
        if folded < len(records):  # a record out of sequence or off the chain: those before it stand
            records, hashes = records[:folded], hashes[:folded]
            tracked = self._batches_whole(records, start)  # where the batches stand after them
            if tracked is None:  # cannot be: a prefix of batches that passed passes
                raise AssertionError("the batches before a record off the chain failed their checks")
        self.records.extend(records)
        self._trim()
        self._batch, self._size, self._held, self._head, ids = tracked
        self._ids.update(ids)
        if hashes:
            self.last_hash = hashes[-1]
        return folded

    def _batches_whole(
        self, records: list[Record], start: int
    ) -> tuple[int, int, int, int, dict[str, int]] | None:
        """`_track`'s checks, the start event's and the map's, on records not yet folded; None if any fails.

        Returns where the batches stand after them (batch, size, held, head, new command ids).
        The loop does as little as it can for a record inside a batch (the most): a batch's
        length is counted when the next one begins, and the cells moves and places reach
        are checked all at once, after it (C loops: min and max of their x and y).
        """
        batch, size, head = self._batch, self._size, self._head
        began = -self._held  # index of the current batch's first record (before these: negative)
        ids: dict[str, int] = {}
        known = self._ids
        grid = self.timeline.state.grid if self.timeline.state is not None else None
        steps: list[tuple[Any, ...]] = []  # the steps of every move, and every place
        if start == 0 and records and type(records[0].event) is not EncounterStarted:
            return None
        for i, record in enumerate(records):
            if record.batch != batch:  # a batch begins: the one before must be whole
                if record.batch != batch + 1 or (size and i - began != size):
                    return None
                batch, size, began, head = record.batch, record.size, i, start + i + 1
                cid = record.command_id
                if cid is not None:
                    if cid in known or cid in ids:
                        return None
                    ids[cid] = head
            kind = type(record.event)
            if kind not in _LOOKED_AT:
                continue
            if kind is Moved:
                steps.append(record.event.steps)
            elif kind is Placed:
                steps.append((record.event,))  # its `to` is read as a step's
            else:  # the start, which only line 1 may be
                if start + i:
                    return None
                try:
                    _check_start(record.event, f"{self.store.name}:1")
                    grid = Grid.of(record.event.scenario)
                except Exception:  # noqa: BLE001 - the plain loop names what is wrong
                    return None
        held = len(records) - began
        if size and held > size:
            return None
        if steps:  # every cell a move or a place reaches is on the map: the least and most x and y
            if grid is None:
                return None
            # The cells as a set: a map has few cells and moves cross them again and again, so the
            # least and most x and y are taken over far fewer than every step (half the time).
            cells = set(map(_to_of, itertools.chain.from_iterable(steps)))
            ys = list(map(_y_of, cells))
            if cells and not (
                min(cells)[0] >= 0 and max(cells)[0] < grid.width and min(ys) >= 0 and max(ys) < grid.height
            ):
                return None
        return batch, size, held, head, ids

    def _ingest_each(self, lines: Iterable[bytes], start: int, upto: int | None) -> None:
        """The plain loop: each line decoded, checked and folded in turn."""
        name = self.store.name
        prev = self.last_hash
        seq = start
        for line in lines:
            seq += 1
            if upto is not None and seq > upto:
                self._short = True
                self.read_only = self.read_only or (
                    f"{name}: opened as it stood after seq {upto}; this view of the past is read-only"
                )
                break
            where = f"{name}:{seq}"
            record = decode(line, where)
            if record.seq != seq:
                raise InputError(f"{where}: seq is {record.seq}, expected {seq}")
            if record.prev != prev:
                raise InputError(f"{where}: {chain_broken(seq)}")
            if (seq == 1) != (type(record.event) is EncounterStarted):
                raise InputError(
                    f"{where}: a log must start with an encounter-started event"
                    if seq == 1
                    else f"{where}: an encounter-started event may only be the first line"
                )
            if seq == 1:
                self.key = chain_key(record, where)
            self._track(record, where)
            self.records.append(record)
            self._apply(record, where)
            prev = self.last_hash = line_hash(line, self.key)
        if self._sink is not None:
            self._sink()

    def _track(self, record: Record, where: str) -> None:
        """Batches follow one another whole: numbered in order, each as long as it announced."""
        if record.batch != self._batch:
            if record.batch != self._batch + 1:
                raise InputError(
                    f"{where}: batch {record.batch} follows batch {self._batch}: "
                    "batches are numbered in order"
                )
            if self._size and self._held != self._size:
                raise InputError(
                    f"{where}: batch {self._batch} ended after {self._held} of the {self._size} records "
                    "its first line announces"
                )
            if self._sink is not None and self._batch:
                self._sink()
            self._batch, self._size, self._held, self._head = record.batch, record.size, 0, record.seq
            if record.command_id is not None:
                if record.command_id in self._ids:
                    raise InputError(
                        f"{where}: command id {record.command_id!r} was already used by the batch at "
                        f"seq {self._ids[record.command_id]}"
                    )
                self._ids[record.command_id] = record.seq
        self._held += 1
        if self._size and self._held > self._size:
            raise InputError(
                f"{where}: batch {self._batch} holds more than the {self._size} records it announces"
            )

    def _apply(self, record: Record, where: str) -> None:
        """Fold one record; a fact that cannot stand on the board before it is an InputError."""
        event = record.event
        try:
            if type(event) is EncounterStarted:
                _check_start(event, where)
            self.timeline.apply(record)
            if type(event) is Moved or type(event) is Placed:
                _check_on_map(self.timeline.board, event, where)
        except InputError:
            raise
        except Exception as exc:  # a fact the fold cannot take: name the line, never a traceback
            raise unfit(where, exc) from None

    @classmethod
    def create(
        cls, store: Store, scenario: Scenario, clock: Callable[[], str] = now, where: str = "scenario"
    ) -> Encounter:
        enc = cls(store, clock)
        enc.key = table_key()
        lines = enc._records_for(setup_events(started_event(scenario, where)), actor="gm")
        if hasattr(store, "create"):
            store.create(lines)
        else:
            store.append(lines)
        for line in lines:
            enc._fold(line)
        return enc

    # --- acting --------------------------------------------------------------

    @property
    def state(self) -> EncounterState:
        return self.timeline.board

    def execute(
        self, command: Command, text: str = "", command_id: str | None = None
    ) -> list[Record] | Rejection:
        """Decide and append one command as one batch; a rejection appends nothing.

        With a command id, a retry is safe: if the log already holds a batch with
        that id, nothing is appended and that batch's records are returned.
        A stale encounter (another writer appended first) raises ConflictError.
        """
        if command_id is not None:
            done = self.recorded(command_id)
            if done is not None:
                same_command(done, command, command_id, text, self.store.name)
                return done
        if self.read_only:
            raise InputError(f"{self.read_only}; nothing was appended")
        if not self.key and table_key():
            raise InputError(
                f"{self.store.name}: {KEY_VARIABLE} is set but this log's chain is not keyed: it was started "
                "without the table's secret, or re-chained by someone who does not hold it; nothing was "
                f"appended (`tabletrail verify` says more; unset {KEY_VARIABLE} to play on a plain log)"
            )
        events = self.preview(command)
        if isinstance(events, Rejection):
            note = getattr(self.store, "note_refusal", None)
            if note is not None:
                note(
                    Refused(
                        at=self.clock(),
                        by=command.by,
                        text=text,
                        rule=events.rule,
                        reason=events.reason,
                        after_seq=len(self.records),
                    )
                )
            return events
        events = batch_events(self.timeline, command, text, events)
        for event in events:  # undo and redo fold to a kept state: an encounter opened from a
            # snapshot reads it from older lines now, so a damaged one refuses before anything is written
            if isinstance(event, Undone):
                self.timeline.before[event.batch]  # noqa: B018 - loaded for its check
            elif isinstance(event, Redone):
                self.timeline.after[event.batch]  # noqa: B018
        lines = self._records_for(events, actor=command.by, command_id=command_id)
        try:
            if is_versioned(self.store):
                self.store.append(lines, expected=len(self.records))
            else:
                self.store.append(lines)
        except ConflictError:
            if command_id is not None:  # was it this very command, appended by an earlier try?
                self.refresh()
                done = self.recorded(command_id)
                if done is not None:
                    return done
            raise
        first = len(self.records)
        for line in lines:
            self._fold(line)
        self._snapshot_if_due()
        done = self.records[first:]
        self._trim()
        return done

    def recorded(self, command_id: str) -> list[Record] | None:
        """The records a command id appended, if it is in the log (as this encounter last read it)."""
        first = self._ids.get(command_id)
        if first is not None:
            out = []
            for r in self.records[first - 1 :]:
                if r.batch != self.records[first - 1].batch:
                    break
                out.append(r)
            return out
        find = getattr(self.store, "find_command", None)
        if find is None or not isinstance(self.records, LazyRecords):
            return None
        span = find(command_id)  # in the part of the log before the snapshot it was opened from
        if span is None or span[1] > len(self.records):
            return None
        return self.records[span[0] - 1 : span[1]]

    def preview(self, command: Command) -> list[Event] | Rejection:
        """What the command would do, without appending anything (the dry run)."""
        return decide_on(self.timeline, command)

    # --- records ---------------------------------------------------------------

    def _records_for(self, events: list[Event], actor: str, command_id: str | None = None) -> list[bytes]:
        return batch_lines(
            events,
            seq=len(self.records),
            batch=self._batch + 1,
            prev=self.last_hash,
            actor=actor,
            at=self.clock(),
            command_id=command_id,
            key=self.key,
        )

    def _fold(self, line: bytes) -> None:
        record = msgspec.json.decode(line, type=Record)
        self._track(record, f"{self.store.name}:{record.seq}")
        self.records.append(record)
        self.timeline.apply(record)
        self.last_hash = line_hash(line, self.key)

    # --- snapshots -------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The timeline as it stands now (after a whole batch), ready to be stored."""
        return take(self.timeline, self.last_hash, self._batch)

    def _snapshot_if_due(self) -> None:
        """Save a snapshot at each `snapshot_every` point; never an error (the batch is committed)."""
        try:
            store = self.store
            every = store.snapshot_every if keeps_snapshots(store) else 0
            version = len(self.records)
            if keeps_snapshots(store) and every > 0 and version // every > self._snapped // every:
                store.save_snapshots(FORMAT, [(version, dumps(self.snapshot()))])
                self._snapped = version
        except Exception as exc:  # noqa: BLE001 - after the commit nothing may turn it into an error
            # A snapshot is a cache and the batch is committed: the answer is fixed by the commit
            # (issue 13, 1b). Say so; the next command tries again.
            warn = getattr(self.store, "warn", None)
            if warn is not None:
                warn(
                    f"{self.store.name}: the batch is committed, but its snapshot could not be saved "
                    f"({type(exc).__name__}: {exc}); the next command tries again"
                )


def fold_with_snapshots(store: Store, every: int) -> tuple[Encounter, list[tuple[int, bytes]]]:
    """Fold a whole log (every check made) and take a snapshot each `every` records, at batch ends."""
    enc = Encounter(store)
    taken: list[tuple[int, bytes]] = []

    def sink() -> None:
        version = len(enc.records)
        last = taken[-1][0] if taken else 0
        if every > 0 and version // every > last // every and enc._batch:
            taken.append((version, dumps(enc.snapshot())))

    enc._sink = sink
    enc._fold_all(None, committed=False)
    enc._sink = None
    return enc, taken


def same_command(done: list[Record], command: Command, command_id: str, text: str, log: str) -> None:
    """A retried id must carry the command it was first used for; another command is a mistake."""
    head = done[0].event
    if isinstance(head, CommandIssued):
        same, was = head.command == command, head.text
    elif isinstance(head, Undone | Redone):
        same = isinstance(command, Undo if isinstance(head, Undone) else Redo)
        was = "undo" if isinstance(head, Undone) else "redo"
    else:
        same, was = False, type(head).__struct_config__.tag
    if not same:
        raise InputError(
            f"{log}: command id {command_id!r} was used for {was!r} (batch {done[0].batch}), "
            f"not for {text!r}: nothing was appended; give this command its own id"
        )


def _check_start(event: EncounterStarted, where: str) -> None:
    """The scenario a log starts from passes the checks `create` made, or the line is named."""
    try:
        ruleset = get_ruleset(event.scenario.ruleset)
    except InputError as exc:
        raise InputError(f"{where}: scenario.ruleset: {exc}") from None
    ruleset.validate(event.scenario, f"{where}: scenario")
    check_places(event.scenario, f"{where}: scenario")
    # Unknown or ill-typed settings are named; missing ones take their defaults (schema evolution).
    ruleset.resolve_settings(event.settings, f"{where}: settings")


def _check_on_map(state: EncounterState, event: Moved | Placed, where: str) -> None:
    cells = [s.to for s in event.steps] if isinstance(event, Moved) else [event.to]
    for x, y, *_ in cells:
        if not state.grid.inside(x, y):
            raise InputError(
                f"{where}: this {type(event).__name__.lower()} event takes {event.fighter} to {x},{y}, "
                f"off the {state.grid.width} x {state.grid.height} map"
            )
