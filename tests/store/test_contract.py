"""What every store promises, run on every store: memory, JSON Lines, SQLite and PostgreSQL.

One suite, so a store can't quietly differ (issues 8 and 17):

- the same game writes the same lines, and they read back as the records written;
- a stale writer gets a ConflictError naming both versions, appends nothing, and
  succeeds after reloading;
- a retried command id appends nothing and returns the original records, even
  from a device that is behind;
- the random play of tests/encounter/test_log_promises_stateful.py (moves, refusals, undo,
  redo; replay equals live) runs on JSON Lines, SQLite and PostgreSQL too;
- the databases (SQLite, PostgreSQL) also refuse, by their own keys, lines whose
  versions are taken and a command id they hold, keep where each batch sits, and
  keep snapshots every N events at batch ends that open to the full fold's board.

PostgreSQL runs on the test server (tests/support_postgres.py), each test in a
schema of its own.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, settings
from support_postgres import drop, url
from support_store import END_TURN, clock, fresh, lines_of, play, records_of, timeline_of
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.errors import ConflictError
from tabletrail.events.stores.conflicts import DuplicateCommand, VersionConflict
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.events.stores.protocol import Store
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse

from tests.encounter.test_log_promises_stateful import LogMachine

KINDS = ["memory", "jsonl", "sqlite", "postgres"]
DATABASES = ["sqlite", "postgres"]


class Kind:
    """How to make a store of one kind, and how another device opens the same log."""

    def __init__(self, name: str, make: Callable[..., Store], again: Callable[[Store], Store]) -> None:
        self.name = name
        self.make = make  # make(**options): a new, empty store
        self.again = again  # again(store): the same log through a store object (and connection) of its own

    def __repr__(self) -> str:
        return self.name


def _kind(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> Kind:
    if name == "memory":
        return Kind(name, lambda **_: MemoryStore(), lambda store: store)
    if name == "jsonl":
        path = tmp_path / "fight.jsonl"
        return Kind(name, lambda **_: JsonlStore(path), lambda _: JsonlStore(path))
    if name == "sqlite":
        path = tmp_path / "fight.db"
        return Kind(name, lambda **kw: SqliteStore(path, durable=False, **kw), lambda _: SqliteStore(path))
    schema = request.getfixturevalue("pg_schema")
    where = url(schema)
    return Kind(name, lambda **kw: PostgresStore(where, **kw), lambda _: PostgresStore(where, private=True))


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest, tmp_path: Path) -> Kind:
    return _kind(request.param, request, tmp_path)


@pytest.fixture(params=DATABASES)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Kind:
    return _kind(request.param, request, tmp_path)


def second_writer(enc: Encounter, kind: Kind) -> Encounter:
    """Another device opening the same log (its own store object, its own connection)."""
    return Encounter.open(kind.again(enc.store), clock=clock)


# --- every store plays the same game --------------------------------------------------------------


def test_every_store_writes_the_same_lines_as_memory_and_reads_them_back(kind: Kind):
    mem, enc = fresh(MemoryStore()), fresh(kind.make())
    assert play(mem, 120, seed=5) == play(enc, 120, seed=5)
    assert lines_of(enc.store) == lines_of(mem.store)
    assert records_of(enc.store) == list(enc.records) == list(mem.records)
    again = Encounter.open(kind.again(enc.store), snapshots=False)
    assert view(again.state) == view(mem.state)
    assert timeline_of(again) == timeline_of(mem)
    refused = kind.again(enc.store).refused()  # type: ignore[attr-defined]
    assert refused == mem.store.refused() and refused, "refusals are kept too"


# --- optimistic concurrency -------------------------------------------------------------------------


def test_a_stale_writer_gets_a_conflict_naming_both_versions(kind: Kind):
    first = fresh(kind.make())
    second = second_writer(first, kind)
    v = len(first.records)
    first.execute(END_TURN, "end-turn")
    now = len(first.records)
    before = lines_of(first.store)
    with pytest.raises(ConflictError) as caught:  # decided on the board before the end of ari's turn
        second.execute(parse("move ari 2,2"), "move ari 2,2")
    message = str(caught.value)
    assert f"expected the encounter at version {v}," in message and f"it is at version {now}" in message
    assert isinstance(caught.value, VersionConflict) and (caught.value.expected, caught.value.actual) == (
        v,
        now,
    )
    assert lines_of(first.store) == before, "the stale writer appended nothing"
    assert second.refresh() == now - v
    assert view(second.state) == view(first.state)
    assert not isinstance(second.execute(parse("move bo 3,1"), "move bo 3,1"), Rejection)
    assert len(lines_of(first.store)) > now


def test_a_database_refuses_lines_whose_versions_are_taken(database: Kind):
    """The database's own key, should a writer hand it lines that say where they go (no `expected`)."""
    store = database.make()
    enc = fresh(store)
    enc.execute(END_TURN, "end-turn")
    taken = lines_of(store)[-1:]
    before = lines_of(store)
    with pytest.raises(ConflictError) as caught:
        store.append(taken)
    seq = len(enc.records)
    assert f"version {seq - 1}," in str(caught.value) and f"version {seq} " in str(caught.value)
    assert lines_of(store) == before


# --- idempotent command ids ---------------------------------------------------------------------------


def test_retrying_a_command_id_appends_nothing_and_returns_the_original(kind: Kind):
    enc = fresh(kind.make())
    move = parse("move ari 2,2")
    original = enc.execute(move, "move ari 2,2", command_id="tablet-7")
    assert not isinstance(original, Rejection)
    assert original[0].command_id == "tablet-7" and all(r.command_id is None for r in original[1:])
    after = lines_of(enc.store)
    assert enc.execute(move, "move ari 2,2", command_id="tablet-7") == original
    enc.execute(END_TURN, "end-turn")
    assert enc.execute(move, "move ari 2,2", command_id="tablet-7") == original, "even after other commands"
    assert lines_of(enc.store)[: len(after)] == after
    reopened = second_writer(enc, kind)
    count = len(lines_of(enc.store))
    assert reopened.execute(move, "move ari 2,2", command_id="tablet-7") == original
    assert len(lines_of(enc.store)) == count


def test_a_retry_from_a_stale_device_returns_the_original_too(kind: Kind):
    """The first try committed, but its answer was lost; the retry comes from a device that is behind."""
    enc = fresh(kind.make())
    behind = second_writer(enc, kind)
    original = enc.execute(END_TURN, "end-turn", command_id="lost-answer")
    count = len(lines_of(enc.store))
    assert behind.execute(END_TURN, "end-turn", command_id="lost-answer") == original
    assert len(lines_of(enc.store)) == count
    assert len(behind.records) == count, "the retry caught the device up"


def test_a_database_keeps_where_each_batch_sits_and_its_command_id(database: Kind):
    store = database.make()
    enc = fresh(store)
    enc.execute(END_TURN, "end-turn", command_id="turn-1")
    other = database.again(store)
    assert other.batch_span(1) == (1, 4)  # type: ignore[attr-defined]
    assert other.batch_span(2) == (5, len(enc.records))  # type: ignore[attr-defined]
    assert other.find_command("turn-1") == (5, len(enc.records))  # type: ignore[attr-defined]
    assert other.find_command("never") is None and other.batch_span(3) is None  # type: ignore[attr-defined]


def test_a_database_itself_refuses_a_command_id_it_holds(database: Kind):
    """The unique (encounter, command_id) key, should a writer not have checked its own log."""
    store = database.make()
    enc = fresh(store)
    enc.execute(END_TURN, "end-turn", command_id="x")
    twin = Encounter.open(MemoryStore(lines_of(store)), clock=clock)
    twin.execute(END_TURN, "end-turn", command_id="y")
    batch = lines_of(twin.store)[len(enc.records) :]
    batch[0] = batch[0].replace(b'"command_id":"y"', b'"command_id":"x"')
    before = lines_of(store)
    with pytest.raises(DuplicateCommand) as caught:
        store.append(batch, expected=len(enc.records))
    assert "command id 'x' is already in the log" in str(caught.value)
    assert isinstance(caught.value, ConflictError) and lines_of(store) == before
    assert database.again(store).version() == len(enc.records), "the tip did not move"  # type: ignore[attr-defined]


# --- snapshots ------------------------------------------------------------------------------------------


def test_a_database_keeps_snapshots_every_n_events_at_batch_ends(database: Kind):
    enc = fresh(database.make(snapshot_every=25))
    play(enc, 150, seed=8)
    store = database.again(enc.store)
    assert store.snapshot_every == 25, "the interval is kept in the store"  # type: ignore[attr-defined]
    from tabletrail.projections.snapshot import FORMAT

    versions = []
    upto = len(enc.records)
    while (found := store.latest_snapshot(FORMAT, upto)) is not None:  # type: ignore[attr-defined]
        versions.append(found[0])
        upto = found[0] - 1
    versions.reverse()
    assert len(versions) >= 5
    assert all(b // 25 > a // 25 for a, b in zip([0, *versions], versions, strict=False)), "one per N"
    records = enc.records
    for v in versions:
        assert v == len(records) or records[v].batch != records[v - 1].batch, f"snapshot {v} cuts a batch"
    for upto in (versions[1], versions[-1] + 3, len(records)):
        fast = Encounter.open(database.again(enc.store), upto=upto)
        # the same view folded from every line, no snapshot: `upto` may fall inside a batch
        slow = Encounter.open(MemoryStore(lines_of(enc.store)), upto=upto)
        assert timeline_of(fast) == timeline_of(slow)
    assert store.drop_snapshots() == len(versions)  # type: ignore[attr-defined]
    assert store.latest_snapshot(FORMAT) is None  # type: ignore[attr-defined]
    assert timeline_of(Encounter.open(database.again(enc.store))) == timeline_of(enc), "caches only"


# --- the stateful play, on every durable store ------------------------------------------------------


class StoreLogMachine(LogMachine):
    """tests/encounter/test_log_promises_stateful.py's random play, on a durable store;
    `log_bytes` is what it holds.

    A refusal must leave every line and the side log as they were; replaying (a
    store object of its own on the same log) must give the live board.
    """

    kind: ClassVar[str]

    def new_store(self) -> Any:
        self.folder = Path(tempfile.mkdtemp(prefix="tabletrail-stateful-"))
        if self.kind == "postgres":
            self.schema = f"tt_test_{os.getpid()}_{uuid.uuid4().hex[:10]}"
            self.where: Any = url(self.schema)
            return PostgresStore(self.where)
        if self.kind == "sqlite":
            self.where = self.folder / "fight.db"
            return SqliteStore(self.where, durable=False)
        self.where = self.folder / "fight.jsonl"
        return JsonlStore(self.where, durable=False)

    def reopen(self) -> Encounter:
        again = {"postgres": PostgresStore, "sqlite": SqliteStore, "jsonl": JsonlStore}[self.kind](self.where)
        return Encounter.open(again, clock=clock)

    def log_bytes(self) -> bytes:
        if isinstance(self.enc.store, JsonlStore):
            return self.enc.store.path.read_bytes()  # the file's own bytes
        return b"".join(line + b"\n" for line in self.enc.store.read())

    def teardown(self) -> None:
        if isinstance(self.enc.store, SqliteStore):
            self.enc.store.close()
        if self.kind == "postgres":
            drop(self.schema)
        shutil.rmtree(self.folder, ignore_errors=True)


class JsonlLogMachine(StoreLogMachine):
    kind = "jsonl"


class SqliteLogMachine(StoreLogMachine):
    kind = "sqlite"


class PostgresLogMachine(StoreLogMachine):
    kind = "postgres"


STATEFUL = settings(
    max_examples=20, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestPlayOnJsonl = JsonlLogMachine.TestCase
TestPlayOnJsonl.settings = STATEFUL
TestPlayOnSqlite = SqliteLogMachine.TestCase
TestPlayOnSqlite.settings = STATEFUL
TestPlayOnPostgres = PostgresLogMachine.TestCase
TestPlayOnPostgres.settings = STATEFUL
