"""Snapshots (issue 8): persisted every N events, used to open fast, always rebuildable.

A snapshot is checked against the fold it replaces: the one stored is the very
bytes a full fold up to its version gives, and an encounter opened from it
agrees with one folded from the start on the board, the undo/redo cursor, the
records, and on every undo and redo that reaches back before the snapshot.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support_store import END_TURN, clock, fresh, lines_of, play, snapshot_rows, timeline_of
from tabletrail.cli import main
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.commands import Redo, Undo
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.batch_runs import RunSet, RunStack
from tabletrail.projections.board import view
from tabletrail.projections.snapshot import (
    FORMAT,
    dumps,
    loads,
    same_state,
    state_of,
    take,
)
from tabletrail.service.encounter import Encounter
from tabletrail.service.lazy_records import LazyRecords

EVERY = 40


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite encounter of a few hundred commands with a snapshot every 40 events."""
    path = tmp_path_factory.mktemp("snap") / "fight.db"
    enc = fresh(SqliteStore(path, durable=False, snapshot_every=EVERY))
    play(enc, 300, seed=8)
    enc.store.close()
    return path


def twin(path: Path) -> Encounter:
    """The same log in memory, folded from the start: what a snapshot must agree with."""
    return Encounter.open(MemoryStore(lines_of(SqliteStore(path))), clock=clock)


def test_snapshots_are_taken_every_n_events_at_batch_ends(played: Path):
    rows = snapshot_rows(played)
    versions = [v for v, _ in rows]
    assert len(versions) >= 10
    assert [v // EVERY for v in versions] == sorted(set(v // EVERY for v in versions)), "one per N events"
    records = Encounter.open(SqliteStore(played), snapshots=False).records
    for v in versions:
        assert v == len(records) or records[v].batch != records[v - 1].batch, f"snapshot {v} cuts a batch"


def test_every_snapshot_equals_the_fold_it_replaces(played: Path):
    store = SqliteStore(played)
    for version, blob in snapshot_rows(played):
        fold = Encounter.open(store, upto=version, snapshots=False)
        assert blob == dumps(take(fold.timeline, fold.last_hash, fold.records[-1].batch)), version
        snap = loads(blob)
        assert same_state(state_of(snap.board), fold.state)
        assert (snap.version, snap.line_hash) == (version, fold.last_hash)
        assert list(RunStack.unpacked(snap.applied)) == fold.timeline.applied
        assert list(RunStack.unpacked(snap.undone)) == fold.timeline.undone
        assert set(RunSet.unpacked(snap.abandoned)) == fold.timeline.abandoned


def test_opening_from_a_snapshot_gives_what_the_full_fold_gives(played: Path):
    full = twin(played)
    for upto in (None, 100, 257, len(full.records) - 3):
        fast = Encounter.open(SqliteStore(played), upto=upto)
        slow = Encounter.open(SqliteStore(played), upto=upto, snapshots=False)
        assert isinstance(fast.records, LazyRecords), "a SQLite store with snapshots opens from one"
        assert timeline_of(fast) == timeline_of(slow)
        assert fast.last_hash == slow.last_hash
        assert fast.records[-1] == slow.records[-1] and fast.records[5] == slow.records[5]
        assert fast.records[10:20] == slow.records[10:20]
        assert list(fast.records) == list(slow.records)
    assert timeline_of(Encounter.open(SqliteStore(played))) == timeline_of(full)


def test_undo_and_redo_reach_back_past_the_snapshot_like_the_full_fold(tmp_path: Path, played: Path):
    """Undo everything, then redo it all, on both; the snapshot sits right at the end."""
    path = tmp_path / "copy.db"
    path.write_bytes(played.read_bytes())
    store = SqliteStore(path, durable=False, snapshot_every=EVERY)
    fast = Encounter.open(store, clock=clock)
    version = len(fast.records)
    store.save_snapshots(FORMAT, [(version, dumps(fast.snapshot()))])
    fast = Encounter.open(SqliteStore(path, durable=False, snapshot_every=EVERY), clock=clock)
    assert isinstance(fast.records, LazyRecords) and fast.records.base == version
    slow = twin(path)
    steps = 0
    for command in [Undo(by="blue"), Undo(by="red")] + [Undo()] * 400 + [Redo(by="blue")] + [Redo()] * 400:
        a, b = fast.execute(command), slow.execute(command)
        assert a == b, command
        assert view(fast.state) == view(slow.state)
        if isinstance(a, Rejection) and "nothing to" in a.reason:
            continue
        steps += 1
    assert steps > 20, "the game had commands to undo and redo"
    assert fast.timeline.undo_target() is None or fast.timeline.redo_target() is None
    lazy = fast.timeline
    assert not (lazy.before._full or lazy.after._full or lazy.actors._full), "undo read only what it needed"
    assert lines_of(fast.store) == lines_of(slow.store)


def test_a_new_command_after_undoing_past_the_snapshot_abandons_like_the_full_fold(
    played: Path, tmp_path: Path
):
    path = tmp_path / "copy.db"
    path.write_bytes(played.read_bytes())
    fast = Encounter.open(SqliteStore(path, durable=False), clock=clock)
    slow = twin(path)
    for enc in (fast, slow):
        for _ in range(12):
            enc.execute(Undo())
        enc.execute(END_TURN, "end-turn")
    assert timeline_of(fast) == timeline_of(slow)
    assert lines_of(fast.store) == lines_of(slow.store)


def test_whole_collections_of_a_snapshot_open_fill_in_from_the_log(played: Path):
    fast = Encounter.open(SqliteStore(played))
    slow = twin(played)
    ft, st = fast.timeline, slow.timeline
    assert dict(ft.actors) == st.actors
    assert dict(ft.commands) == st.commands
    assert dict(ft.first_seq) == st.first_seq
    assert set(ft.seeded) == st.seeded
    assert set(ft.before) == set(st.before) and set(ft.after) == set(st.after)
    assert all(same_state(ft.before[b], st.before[b]) for b in st.before)
    assert all(same_state(ft.after[b], st.after[b]) for b in st.after)


def test_a_snapshot_of_another_log_or_garbage_is_ignored(played: Path, tmp_path: Path):
    other = tmp_path / "other.db"
    enc = fresh(SqliteStore(other, durable=False, snapshot_every=EVERY))
    play(enc, 120, seed=99)
    truth = timeline_of(Encounter.open(SqliteStore(other), snapshots=False))
    version = len(enc.records)
    foreign = dict(snapshot_rows(played))
    mine = max(v for v, _ in snapshot_rows(other))
    with sqlite3.connect(other) as db:  # the other log's snapshot, at a version this log has
        db.execute("UPDATE snapshots SET data = ? WHERE version = ?", (next(iter(foreign.values())), mine))
    assert timeline_of(Encounter.open(SqliteStore(other))) == truth
    with sqlite3.connect(other) as db:
        db.execute("INSERT INTO snapshots VALUES ('main', ?, ?, ?)", (version, FORMAT, b"\x00garbage"))
    assert timeline_of(Encounter.open(SqliteStore(other))) == truth


def test_snapshots_are_rebuilt_by_repair(played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "copy.db"
    path.write_bytes(played.read_bytes())
    before = snapshot_rows(path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM snapshots")
    assert main(["repair", str(path)]) == 0
    assert f"{len(before)} rebuilt" in capsys.readouterr().out
    assert snapshot_rows(path) == before


def test_the_snapshot_interval_is_a_setting_kept_in_the_store(tmp_path: Path):
    path = tmp_path / "fight.db"
    enc = fresh(SqliteStore(path, durable=False, snapshot_every=7))
    play(enc, 40, seed=3)
    assert SqliteStore(path).snapshot_every == 7
    versions = [v for v, _ in snapshot_rows(path)]
    assert versions and all(b // 7 > a // 7 for a, b in zip([0, *versions], versions, strict=False))
    enc = Encounter.open(SqliteStore(path, durable=False), clock=clock)  # the file's setting, not the default
    play(enc, 20, seed=4)
    later = [v for v, _ in snapshot_rows(path)][len(versions) :]
    assert later and all(b // 7 > a // 7 for a, b in zip([versions[-1], *later], later, strict=False))


def test_runs_keep_order_and_merge_neighbours():
    assert RunStack([1, 2, 3, 5, 6, 9]).runs() == [(1, 3), (5, 6), (9, 9)]
    assert RunStack([4, 2, 3]).runs() == [(4, 4), (2, 3)]
    assert RunStack([9, 8, 7, 4]).runs() == [(9, 7), (4, 4)]  # a descending run, as a redo stack holds
    assert list(RunStack.unpacked(RunStack([1, 2, 3, 5, 6, 9]).packed())) == [1, 2, 3, 5, 6, 9]
    assert RunStack([]).runs() == [] and RunSet([9, 2, 3, 1]).runs() == [(1, 3), (9, 9)]
