"""The first undo (or redo) after opening from a snapshot folds nothing; undo at any depth equals a refold.

Issue 29: opened from its snapshot, an encounter found the board before its latest
batch by folding the log from the snapshot before that one (9 to 119 ms on long logs).
A snapshot now carries that board, and the board redo would bring back, as their
differences from the board in force (projections/snapshot.py `Delta`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support_store import clock, fresh, lines_of, play, timeline_of
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.commands import Redo, Undo
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.board import view
from tabletrail.projections.snapshot import FORMAT, dumps, loads, same_state
from tabletrail.service.encounter import Encounter
from tabletrail.service.history import History


def snapshot_at(tmp_path: Path, lines: list[bytes], name: str) -> Path:
    """A SQLite copy of `lines` with one snapshot, at its last line, from the full fold."""
    path = tmp_path / f"{name}.db"
    store = SqliteStore(path, durable=False, snapshot_every=10**9)
    store.create(lines)
    full = Encounter.open(MemoryStore(lines), clock=clock)
    store.save_snapshots(FORMAT, [(len(lines), dumps(full.snapshot()))])
    store.close()
    return path


def no_refold(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(self, seq):  # noqa: ANN001, ANN202
        raise AssertionError(f"the board after seq {seq} was folded from the log")

    monkeypatch.setattr(History, "state_at", refused)
    monkeypatch.setattr(History, "whole", lambda self: refused(self, "all"))


def batch_ends(lines: list[bytes]) -> list[int]:
    records = Encounter.open(MemoryStore(lines), clock=clock).records
    return [i for i in range(2, len(records)) if records[i].batch != records[i - 1].batch]


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_the_first_undo_and_redo_after_a_snapshot_open_fold_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
):
    enc = fresh(MemoryStore())
    play(enc, 120, seed=seed)
    lines = lines_of(enc.store)
    ends = batch_ends(lines)
    for cut in ends[len(ends) // 3 :: max(1, len(ends) // 6)]:
        head = lines[:cut]
        path = snapshot_at(tmp_path, head, f"s{seed}-{cut}")
        for command in (Undo(), Redo()):  # each on its own copy: the first one appends to the log
            copy = tmp_path / f"{path.stem}-{type(command).__name__}.db"
            copy.write_bytes(path.read_bytes())
            fast = Encounter.open(SqliteStore(copy, durable=False), clock=clock)
            assert fast.records.base == cut  # type: ignore[attr-defined]
            twin = Encounter.open(MemoryStore(head), clock=clock)
            with monkeypatch.context() as m:
                no_refold(m)
                a = fast.execute(command)
            b = twin.execute(command)
            assert a == b, (cut, command)
            assert same_state(fast.state, twin.state)
            assert view(fast.state) == view(twin.state)
            fast.store.close()


@pytest.mark.parametrize("seed", [5, 13])
def test_undo_and_redo_at_any_depth_after_a_snapshot_open_equal_a_refold(tmp_path: Path, seed: int):
    """Undo everything from a snapshot open, then redo it all: every board equals the full fold's."""
    enc = fresh(MemoryStore())
    play(enc, 150, seed=seed)
    lines = lines_of(enc.store)
    path = snapshot_at(tmp_path, lines, f"deep{seed}")
    snap = SqliteStore(path).latest_snapshot(FORMAT, None)
    assert snap is not None and loads(snap[1]).prior is not None, "the snapshot keeps the first undo's board"
    fast = Encounter.open(SqliteStore(path, durable=False), clock=clock)
    slow = Encounter.open(MemoryStore(lines), clock=clock)
    steps = 0
    for command in [Undo()] * 300 + [Redo()] * 300:
        a, b = fast.execute(command), slow.execute(command)
        assert a == b, command
        assert same_state(fast.state, slow.state)
        steps += not isinstance(a, Rejection)
    assert steps > 20
    assert timeline_of(fast) == timeline_of(slow)
    assert lines_of(fast.store) == lines_of(slow.store)
    fast.store.close()


def test_a_snapshot_without_the_first_undos_board_still_reaches_back(tmp_path: Path):
    """A snapshot written before issue 29 has no `prior`: undo folds from the snapshot before, as it did."""
    import msgspec

    enc = fresh(MemoryStore())
    play(enc, 80, seed=2)
    lines = lines_of(enc.store)
    path = tmp_path / "old.db"
    store = SqliteStore(path, durable=False, snapshot_every=10**9)
    store.create(lines)
    snap = Encounter.open(MemoryStore(lines), clock=clock).snapshot()
    store.save_snapshots(FORMAT, [(len(lines), dumps(msgspec.structs.replace(snap, prior=None, redo=None)))])
    store.close()
    fast = Encounter.open(SqliteStore(path, durable=False), clock=clock)
    slow = Encounter.open(MemoryStore(lines), clock=clock)
    for _ in range(5):
        assert fast.execute(Undo()) == slow.execute(Undo())
        assert same_state(fast.state, slow.state)
    fast.store.close()
