"""Snapshots written before the batch lists were packed, and sidecars written before they kept the
interval, are still read: an encounter opens from them to the very timeline a fold from zero gives.

old_snapshots/ holds a JSON Lines log and the sidecar tabletrail wrote beside it as of commit ee0c665
(make_old_snapshots.py there says how): format-5 snapshots whose batches in force, redo stack and
abandoned batches are msgpack tuples, in a sidecar of the first layout (its entries alone). The same
snapshot bytes are put in a SQLite file and a PostgreSQL schema, as a store of that age holds them.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from support_postgres import url
from support_store import clock, lines_of, timeline_of
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.commands import Redo, Undo
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.events.stores.protocol import SnapshotStore
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.audit import verify_store
from tabletrail.projections.snapshot import FORMAT, loads, take
from tabletrail.service.encounter import Encounter
from tabletrail.service.lazy_records import LazyRecords
from tabletrail.service.syntax import parse

OLD = Path(__file__).resolve().parent / "old_snapshots"
OLD_MAGIC = b"tabletrail snapshots 1\n"


def old_log(tmp_path: Path) -> Path:
    for name in ("fight.jsonl", "fight.jsonl.snapshots", "fight.jsonl.tip"):
        shutil.copyfile(OLD / name, tmp_path / name)
    return tmp_path / "fight.jsonl"


def old_snapshots(tmp_path: Path) -> list[tuple[int, bytes]]:
    """The snapshots the old sidecar holds, as bytes the old tabletrail wrote."""
    return JsonlStore(old_log(tmp_path)).snapshots(FORMAT)


def test_the_fixture_is_of_the_old_layouts():
    assert (OLD / "fight.jsonl.snapshots").read_bytes().startswith(OLD_MAGIC)
    for _, data in JsonlStore(OLD / "fight.jsonl").snapshots(FORMAT):
        old = msgspec.msgpack.decode(data[16:])
        assert isinstance(old["applied"], list) and isinstance(old["undone"], list)
        assert isinstance(old["abandoned"], list)
    newest = msgspec.msgpack.decode(JsonlStore(OLD / "fight.jsonl").snapshots(FORMAT)[-1][1][16:])
    assert len(newest["undone"]) >= 2 and newest["abandoned"] and len(newest["applied"]) >= 3


def test_an_old_snapshot_loads_as_the_snapshot_the_fold_takes_now(tmp_path: Path):
    """Read back, its lists are packed exactly as `take` packs them: `verify` finds it equal."""
    path = old_log(tmp_path)
    for version, data in JsonlStore(path).snapshots(FORMAT):
        fold = Encounter.open(JsonlStore(path), upto=version, snapshots=False)
        now = take(fold.timeline, fold.last_hash, fold.records[-1].batch)
        kept = loads(data)
        assert kept == msgspec.structs.replace(now, rules_version=kept.rules_version), version


def jsonl(tmp_path: Path, _: str) -> Callable[[], SnapshotStore]:
    path = old_log(tmp_path)
    return lambda: JsonlStore(path, durable=False)


def sqlite(tmp_path: Path, _: str) -> Callable[[], SnapshotStore]:
    path = tmp_path / "fight.db"
    filled(SqliteStore(path, durable=False), tmp_path)
    return lambda: SqliteStore(path, durable=False)


def postgres(tmp_path: Path, schema: str) -> Callable[[], SnapshotStore]:
    filled(PostgresStore(url(schema)), tmp_path)
    return lambda: PostgresStore(url(schema))


def filled(store: SqliteStore | PostgresStore, tmp_path: Path) -> None:
    """The old log's lines, and its old snapshots byte for byte, in a new database store."""
    store.create(lines_of(JsonlStore(OLD / "fight.jsonl")))
    store.save_snapshots(FORMAT, old_snapshots(tmp_path))
    store.close()


@pytest.mark.parametrize("kind", [jsonl, sqlite, postgres], ids=["jsonl", "sqlite", "postgres"])
def test_an_encounter_opens_from_an_old_snapshot_and_undoes_and_redoes_as_the_fold_from_zero(
    tmp_path: Path, kind: Callable[[Path, str], Callable[[], SnapshotStore]], request: pytest.FixtureRequest
):
    schema = request.getfixturevalue("pg_schema") if kind is postgres else ""
    store_of_the_log = kind(tmp_path, schema)
    store = store_of_the_log()
    newest = max(v for v, _ in store.snapshots(FORMAT))
    told: list[str] = []
    store.warn = told.append  # type: ignore[attr-defined]
    fast = Encounter.open(store, clock=clock)
    assert isinstance(fast.records, LazyRecords) and fast.records.base == newest, "opened from it"
    assert told == [], "nothing said: the old snapshot is used, not set aside"
    slow = Encounter.open(MemoryStore(lines_of(store)), clock=clock)
    assert timeline_of(fast) == timeline_of(slow) and fast.timeline.undone, "with a redo stack to redo"
    assert verify_store(store)["ok"], "the old snapshots pass verify"
    active = slow.state.turn.active
    commands = [Redo(), Undo(by="gm"), *[Undo(by="gm")] * 30, *[Redo()] * 10, parse(f"move {active} 5,5")]
    for command in commands:  # across the snapshot point, and a new command that abandons
        a, b = fast.execute(command, "test"), slow.execute(command, "test")
        assert isinstance(a, Rejection) == isinstance(b, Rejection), command
        assert timeline_of(fast) == timeline_of(slow), command
    assert lines_of(store) == lines_of(slow.store)
    assert timeline_of(Encounter.open(store_of_the_log(), clock=clock)) == timeline_of(slow)


def test_an_old_sidecar_keeps_its_snapshots_and_gives_the_default_interval(tmp_path: Path):
    from tabletrail.events.stores.db_store import DEFAULT_SNAPSHOT_EVERY

    path = old_log(tmp_path)
    store = JsonlStore(path)
    assert len(store.snapshots(FORMAT)) == 3 and store.snapshot_every == DEFAULT_SNAPSHOT_EVERY
