"""`--snapshot-every` reaches a JSON Lines target of `export` as it reaches a database one."""

from __future__ import annotations

from pathlib import Path

import pytest
from support_store import fresh, play
from tabletrail.cli import main
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.jsonl_snapshots import KEPT_SNAPSHOTS
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.snapshot import FORMAT
from tabletrail.service.stores import store_for


def test_store_for_gives_a_jsonl_log_the_interval_asked_for(tmp_path: Path):
    assert store_for(str(tmp_path / "fight.jsonl"), 20).snapshot_every == 20


def test_an_export_to_jsonl_keeps_snapshots_at_the_interval_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    db = tmp_path / "fight.db"
    enc = fresh(SqliteStore(db, durable=False, snapshot_every=10**9))
    play(enc, 120, seed=4)
    enc.store.close()  # type: ignore[attr-defined]
    every = 20
    out = tmp_path / "fight.jsonl"
    assert main(["export", str(db), str(out), "--snapshot-every", str(every)]) == 0
    versions = [v for v, _ in JsonlStore(out).snapshots(FORMAT)]
    assert len(versions) == KEPT_SNAPSHOTS, versions
    assert capsys.readouterr().out.rstrip().endswith(f", {KEPT_SNAPSHOTS} snapshots")  # what it keeps, said
    # one a batch end after each multiple of `every`: the newest three of them, every apart or nearly
    last = len(list(JsonlStore(out).read()))
    assert versions[-1] > last - 2 * every
    assert all(b // every > a // every for a, b in zip(versions, versions[1:], strict=False))
