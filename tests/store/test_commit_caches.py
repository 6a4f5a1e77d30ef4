"""Issue 13, items 1b, 2 and 7: the answer is fixed by the commit; caches and the tip are checked.

"snapshots and any other after-commit work can't turn an acknowledged command
into an error (log it as a warning, retry at the next snapshot point)."
"A snapshot must carry the hash of the record it folds up to and a checksum of
its own bytes; open falls back to folding when either fails (and says so);
verify re-folds and compares every snapshot; repair rebuilds them."
"the tip is also kept outside the log (the SQLite store's meta table and a small
LOG.tip beside a JSONL file, updated atomically with each append) and verify
compares with it, warning when none is available; notes are covered by the hash."
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgspec
import pytest
from tabletrail.cli import main
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.audit import verify_store
from tabletrail.projections.board import view
from tabletrail.projections.snapshot import FORMAT, dumps, loads
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = load_scenario(ROOT / "scenarios" / "speed-meters-brawl.toml")


def play(enc: Encounter, n: int) -> None:
    for _ in range(n):
        enc.execute(parse("end-turn"), "end-turn")


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "fight.db"
    store = SqliteStore(path, snapshot_every=10)
    play(Encounter.create(store, SCENARIO), 12)
    store.close()
    return path


def snapshot_rows(path: Path) -> list[tuple[int, bytes]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT version, data FROM snapshots ORDER BY version").fetchall()


def set_snapshot(path: Path, version: int, data: bytes) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE snapshots SET data = ? WHERE version = ?", (data, version))


# --- 1b: nothing after the commit turns it into an error ------------------------------------------


class BrokenSnapshots(SqliteStore):
    fail = True

    def save_snapshots(self, fmt: int, snapshots: list[tuple[int, bytes]]) -> None:
        if self.fail:
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        super().save_snapshots(fmt, snapshots)


def test_a_snapshot_that_fails_after_the_commit_is_a_warning_and_is_retried(tmp_path: Path):
    told: list[str] = []
    store = BrokenSnapshots(tmp_path / "fight.db", snapshot_every=5, warn=told.append)
    enc = Encounter.create(store, SCENARIO)
    before = store.version()
    result = enc.execute(parse("end-turn"), "end-turn")  # crosses the snapshot point
    assert isinstance(result, list) and store.version() == before + len(result)
    assert len(told) == 1 and "the batch is committed" in told[0] and "OverflowError" in told[0]
    assert store.snapshots(FORMAT) == []
    store.fail = False
    enc.execute(parse("end-turn"), "end-turn")  # the next command tries again, and succeeds
    assert [v for v, _ in store.snapshots(FORMAT)] == [store.version()]


# --- 2: snapshots are checked ---------------------------------------------------------------------


def test_an_edited_snapshot_is_not_used_and_the_opener_says_so(db: Path):
    version, data = snapshot_rows(db)[-1]
    truth = view(Encounter.open(SqliteStore(db), snapshots=False).state)
    set_snapshot(db, version, data[:-3] + bytes([data[-3] ^ 1]) + data[-2:])
    told: list[str] = []
    enc = Encounter.open(SqliteStore(db, warn=told.append))
    assert view(enc.state) == truth
    assert len(told) == 1 and f"snapshot at version {version} is not used" in told[0]
    assert "checksum" in told[0]


def test_a_snapshot_of_another_record_is_not_used(db: Path):
    rows = snapshot_rows(db)
    (_, d1), (v2, _) = rows[0], rows[-1]
    set_snapshot(db, v2, d1)  # a whole, checksummed snapshot, but of another version
    told: list[str] = []
    Encounter.open(SqliteStore(db, warn=told.append))
    assert any(f"snapshot at version {v2} is not used" in t for t in told)


def test_verify_refolds_every_snapshot_and_repair_rebuilds_them(db: Path, capsys: pytest.CaptureFixture[str]):
    assert verify_store(SqliteStore(db))["ok"]
    version, data = snapshot_rows(db)[0]
    snap = loads(data)
    fighters = tuple(msgspec.structs.replace(f, pos=(1, 1, 0)) for f in snap.board.fighters)
    forged = msgspec.structs.replace(snap, board=msgspec.structs.replace(snap.board, fighters=fighters))
    set_snapshot(db, version, dumps(forged))  # a valid checksum: only a re-fold can tell
    result = verify_store(SqliteStore(db))
    assert not result["ok"] and result["finding"]["kind"] == "snapshot"
    assert result["finding"]["seq"] == version
    code, out, _ = run(capsys, "verify", db)
    assert code == 1 and f"snapshot at version {version}" in out
    assert run(capsys, "repair", db)[0] == 0
    assert verify_store(SqliteStore(db))["ok"]


# --- 7: the tip is kept beside the log ------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_the_tip_is_kept_with_every_append(tmp_path: Path, suffix: str):
    path = tmp_path / f"fight{suffix}"
    store = JsonlStore(path) if suffix == ".jsonl" else SqliteStore(path)
    enc = Encounter.create(store, SCENARIO)
    for n in range(3):
        lines = list(store.read())
        assert store.kept_tip() == (len(lines), line_hash(lines[-1]))
        play(enc, 1 + n)


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_a_cut_at_a_batch_end_is_caught_with_the_kept_tip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
):
    path = tmp_path / f"fight{suffix}"
    store = JsonlStore(path) if suffix == ".jsonl" else SqliteStore(path)
    enc = Encounter.create(store, SCENARIO)
    play(enc, 4)
    first_of_last = next(r.seq for r in enc.records if r.batch == enc.records[-1].batch)
    if suffix == ".jsonl":
        kept = path.read_bytes().split(b"\n")[: first_of_last - 1]
        path.write_bytes(b"".join(line + b"\n" for line in kept))
    else:
        store.close()
        with sqlite3.connect(path) as conn:
            conn.execute("DELETE FROM events WHERE version >= ?", (first_of_last,))
            conn.execute("DELETE FROM batches WHERE first >= ?", (first_of_last,))
    code, out, _ = run(capsys, "verify", path)
    assert code == 1 and "(tip)" in out and f"the tip kept beside it says {len(enc.records)} lines" in out


def test_an_edit_of_the_last_lines_note_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "fight.jsonl"
    play(Encounter.create(JsonlStore(path), SCENARIO), 2)
    lines = path.read_bytes().split(b"\n")[:-1]
    record = json.loads(lines[-1])
    record["event"]["note"] = record["event"].get("note", "") + " (and the GM said so)"
    lines[-1] = json.dumps(record, separators=(",", ":")).encode()
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    code, out, _ = run(capsys, "verify", path)
    assert code == 1 and "(tip)" in out


def test_without_a_kept_tip_verify_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "fight.jsonl"
    play(Encounter.create(JsonlStore(path), SCENARIO), 2)
    path.with_name("fight.jsonl.tip").unlink()
    code, out, _ = run(capsys, "verify", path)
    assert code == 0 and "warning: no tip is kept beside this log" in out
