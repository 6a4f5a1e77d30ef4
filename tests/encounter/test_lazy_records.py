"""A database-backed encounter keeps only its latest records decoded, and answers as the full list does.

Issue 29: a decoded record takes about three times its line's bytes, and every one
was held. On a database store the encounter now keeps the latest KEEP of them
(app/service/lazy_records.py `trim`) and reads older ones back when asked; the timeline still
holds every batch's boards, so undo at any depth is a lookup, equal to a refold.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support_store import clock, fresh, lines_of, play, timeline_of
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.commands import Redo, Undo
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.snapshot import same_state
from tabletrail.service import encounter as encounter_module
from tabletrail.service.encounter import Encounter
from tabletrail.service.lazy_records import LazyRecords


@pytest.mark.parametrize("seed", [4, 11])
def test_a_trimmed_encounter_gives_the_records_and_boards_of_the_whole_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
):
    monkeypatch.setattr(encounter_module, "KEEP", 16)
    path = tmp_path / "fight.db"
    enc = fresh(SqliteStore(path, durable=False, snapshot_every=10**9))
    play(enc, 200, seed=seed)
    assert isinstance(enc.records, LazyRecords) and len(enc.records.tail) <= 32, "only the latest held"
    lines = lines_of(enc.store)
    enc.store.close()
    slow = Encounter.open(MemoryStore(lines), clock=clock)
    fast = Encounter.open(SqliteStore(path, durable=False), clock=clock, snapshots=False)
    assert isinstance(fast.records, LazyRecords) and len(fast.records.tail) <= 32
    assert fast.records.base > 0, "the older records are in the store, not in memory"
    assert timeline_of(fast) == timeline_of(slow)
    assert fast.records[0] == slow.records[0] and fast.records[-1] == slow.records[-1]
    assert fast.records[10:60] == slow.records[10:60]
    assert list(fast.records) == list(slow.records)
    for command in [Undo()] * 250 + [Redo()] * 250:  # undo at any depth: a lookup equal to the refold
        a, b = fast.execute(command), slow.execute(command)
        assert a == b, command
        assert same_state(fast.state, slow.state)
        if isinstance(a, Rejection):
            continue
    assert lines_of(fast.store) == lines_of(slow.store)
    fast.store.close()


def test_a_trim_keeps_the_latest_records_and_counts_the_rest():
    kept = LazyRecords(0, lambda first, last: [f"r{i}" for i in range(first, last + 1)])  # type: ignore[misc]
    kept.extend([f"r{i}" for i in range(1, 11)])  # type: ignore[misc]
    kept.trim(3)
    assert (kept.base, kept.tail, len(kept)) == (7, ["r8", "r9", "r10"], 10)
    assert kept[0] == "r1" and kept[6:9] == ["r7", "r8", "r9"]
