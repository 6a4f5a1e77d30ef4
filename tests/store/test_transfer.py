"""Import and export between JSON Lines and SQLite (issue 8): lossless both ways.

"A round trip gives a byte-identical JSONL": the log and its refusal side log.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support_store import GOLDEN, fresh, lines_of, play, snapshot_rows, timeline_of
from tabletrail.cli import main
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.service.encounter import Encounter


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def played(tmp_path: Path) -> Path:
    enc = fresh(JsonlStore(tmp_path / "fight.jsonl"))
    refused = play(enc, 150, seed=12)
    assert refused, "the game has refusals, so the side log is copied too"
    return tmp_path / "fight.jsonl"


@pytest.mark.parametrize("source", ["played", "golden"])
def test_jsonl_to_sqlite_to_jsonl_is_byte_identical(
    source: str, played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    log = played if source == "played" else tmp_path / "golden.jsonl"
    if source == "golden":
        shutil.copy(GOLDEN / "golden.jsonl", log)
        shutil.copy(GOLDEN / "golden.jsonl.refused", tmp_path / "golden.jsonl.refused")
    db, back = tmp_path / "fight.db", tmp_path / "back.jsonl"
    code, out, _ = run(capsys, "import", log, db)
    assert code == 0 and f"copied {len(log.read_bytes().splitlines())} events" in out
    assert run(capsys, "export", db, back)[0] == 0
    assert back.read_bytes() == log.read_bytes()
    side = log.with_name(log.name + ".refused")
    assert back.with_name("back.jsonl.refused").read_bytes() == side.read_bytes()
    assert side.read_bytes(), "the refusals made the trip"


def test_sqlite_to_jsonl_to_sqlite_keeps_every_line_and_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    first = tmp_path / "first.db"
    enc = fresh(SqliteStore(first, snapshot_every=50))
    play(enc, 150, seed=13)
    middle, second = tmp_path / "middle.jsonl", tmp_path / "second.db"
    assert run(capsys, "export", first, middle)[0] == 0
    assert run(capsys, "import", middle, second)[0] == 0
    a, b = SqliteStore(first), SqliteStore(second)
    assert lines_of(a) == lines_of(b)
    assert a.refused_lines() == b.refused_lines() and a.refused_lines()
    assert timeline_of(Encounter.open(b)) == timeline_of(Encounter.open(a, snapshots=False))


def test_import_builds_snapshots_at_the_interval_asked(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    db = tmp_path / "fight.db"
    code, out, _ = run(capsys, "import", played, db, "--snapshot-every", "25")
    versions = [v for v, _ in snapshot_rows(db)]
    assert code == 0 and f"{len(versions)} snapshots" in out and len(versions) >= 5
    assert SqliteStore(db).snapshot_every == 25
    assert all(b // 25 > a // 25 for a, b in zip([0, *versions], versions, strict=False))
    assert timeline_of(Encounter.open(SqliteStore(db))) == timeline_of(Encounter.open(JsonlStore(played)))


def test_a_copy_never_overwrites_and_never_copies_a_damaged_log(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    db = tmp_path / "fight.db"
    assert run(capsys, "import", played, db)[0] == 0
    before = lines_of(SqliteStore(db))
    code, _, err = run(capsys, "import", played, db)
    assert code == 2 and "already exists" in err and lines_of(SqliteStore(db)) == before
    code, _, err = run(capsys, "export", db, played)
    assert code == 2 and "already exists" in err
    code, _, err = run(capsys, "import", played, played)
    assert code == 2 and "another file" in err
    data = played.read_bytes()
    played.write_bytes(data[:-9])
    code, _, err = run(capsys, "import", played, tmp_path / "torn.db")
    assert code == 2 and "torn" in err and not (tmp_path / "torn.db").exists()
    code, _, err = run(capsys, "import", played, tmp_path / "x.db", "--snapshot-every", "0")
    assert code == 2 and "--snapshot-every" in err and not (tmp_path / "x.db").exists()
