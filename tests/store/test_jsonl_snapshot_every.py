"""A JSON Lines log keeps its snapshot interval in its sidecar, as a SQLite file keeps it in its settings.

`tabletrail export --snapshot-every N` to a JSON Lines file shapes the sidecar it writes; the commands
that follow on that log go on taking a snapshot every N events, not every 1,000, and the sidecar they
rewrite keeps saying N. A log too short for a snapshot keeps N all the same. A missing, damaged or
foreign sidecar says nothing: the default holds, and the log opens as ever.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support_store import clock, fresh, play
from tabletrail.cli import main
from tabletrail.events.stores.chain import KEY_VARIABLE
from tabletrail.events.stores.db_store import DEFAULT_SNAPSHOT_EVERY
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.snapshot import FORMAT
from tabletrail.service.encounter import Encounter


def exported(tmp_path: Path, commands: int, every: int) -> Path:
    """A SQLite log of `commands` seeded commands (no snapshot of its own), exported to JSON Lines."""
    db = tmp_path / "fight.db"
    enc = fresh(SqliteStore(db, durable=False, snapshot_every=10**9))
    play(enc, commands, seed=4)
    enc.store.close()  # type: ignore[attr-defined]
    out = tmp_path / "fight.jsonl"
    assert main(["export", str(db), str(out), "--snapshot-every", str(every)]) == 0
    return out


def versions(path: Path) -> list[int]:
    return [v for v, _ in JsonlStore(path).snapshots(FORMAT)]


def end_turns(path: Path, times: int) -> None:
    """What a table does between exports: commands through the CLI, each a new process's store."""
    for _ in range(times):
        assert main(["do", str(path), "end-turn"]) == 0


def test_commands_on_an_exported_log_keep_taking_snapshots_at_its_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    every = 20
    out = exported(tmp_path, 120, every)
    at_export = versions(out)
    assert at_export and JsonlStore(out).snapshot_every == every
    end_turns(out, 12)  # a turn's end is a handful of events: several intervals of 20 go by
    capsys.readouterr()
    after = versions(out)
    last = len(list(JsonlStore(out).read()))
    assert after[-1] > at_export[-1], "the commands took snapshots of their own (not every 1,000)"
    assert after[-1] > last - 2 * every, "the newest is within an interval or two of the end"
    assert all(b // every > a // every for a, b in zip(after, after[1:], strict=False)), after
    assert JsonlStore(out).snapshot_every == every, "the sidecar they rewrote still says it"
    assert Encounter.open(JsonlStore(out), clock=clock).records.base == after[-1]  # type: ignore[union-attr]


def test_a_log_too_short_for_a_snapshot_keeps_its_interval_and_takes_none_at_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    every = 5000
    out = exported(tmp_path, 400, every)  # past 1,000 events, short of 5,000
    assert len(list(JsonlStore(out).read())) > DEFAULT_SNAPSHOT_EVERY
    assert versions(out) == [] and JsonlStore(out).snapshot_every == every
    end_turns(out, 2)
    capsys.readouterr()
    assert versions(out) == [], "no snapshot at 1,000: the log's interval is 5,000"
    assert JsonlStore(out).snapshot_every == every


def test_the_constructors_interval_still_comes_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = exported(tmp_path, 40, 20)
    capsys.readouterr()
    assert JsonlStore(out, snapshot_every=7).snapshot_every == 7
    assert JsonlStore(out).snapshot_every == 20


def damage_missing(side: Path) -> None:
    side.unlink()


def damage_garbage(side: Path) -> None:
    side.write_bytes(os.urandom(200))


def damage_flipped(side: Path) -> None:
    data = bytearray(side.read_bytes())
    data[-1] ^= 1  # the seal no longer matches
    side.write_bytes(bytes(data))


def damage_another_logs(side: Path) -> None:
    """The sidecar of another log, keyed with a secret this one does not hold, under this log's name."""
    other = side.parent / "other"
    other.mkdir()
    os.environ[KEY_VARIABLE] = "another table's secret"
    try:
        play(fresh(JsonlStore(other / "keyed.jsonl", durable=False, snapshot_every=30)), 30, seed=1)
    finally:
        del os.environ[KEY_VARIABLE]
    assert JsonlStore(other / "keyed.jsonl").snapshots(FORMAT) == [], "its secret is needed to read it"
    shutil.copyfile(other / "keyed.jsonl.snapshots", side)


@pytest.mark.parametrize("damage", [damage_missing, damage_garbage, damage_flipped, damage_another_logs])
def test_a_missing_or_unreadable_sidecar_gives_the_default(
    tmp_path: Path,
    damage,
    capsys: pytest.CaptureFixture[str],  # noqa: ANN001
):
    out = exported(tmp_path, 120, 20)
    damage(out.with_name(out.name + ".snapshots"))
    assert JsonlStore(out).snapshot_every == DEFAULT_SNAPSHOT_EVERY
    assert versions(out) == []
    end_turns(out, 2)  # and the log goes on as ever, from zero
    assert "not used" not in capsys.readouterr().err


@pytest.mark.parametrize("there, back", [("fight.jsonl", "again.db"), ("fight.db", "again.jsonl")])
def test_a_copy_keeps_its_sources_interval_unless_told_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], there: str, back: str
):
    """export/import without --snapshot-every: the log goes on at the interval its table chose."""
    every = 25
    source = exported(tmp_path, 120, every)  # a JSON Lines log at 25
    middle, last = tmp_path / there.replace("fight", "middle"), tmp_path / back
    assert main(["export", str(source), str(middle)]) == 0
    assert main(["export", str(middle), str(last)]) == 0
    for path in (middle, last):
        store = JsonlStore(path) if path.suffix == ".jsonl" else SqliteStore(path)
        assert store.snapshot_every == every, path
        if isinstance(store, SqliteStore):
            store.close()
    told = tmp_path / "told.jsonl"
    assert main(["export", str(middle), str(told), "--snapshot-every", "40"]) == 0
    capsys.readouterr()
    assert JsonlStore(told).snapshot_every == 40
