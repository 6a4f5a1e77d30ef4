"""The SQLite event store (issue 8); what every store promises is tests/store/test_contract.py.

- one transaction per batch, WAL, durable settings;
- `tabletrail new SCENARIO` without --log makes a SQLite store at ./NAME.db, and
  every verb takes it like a JSONL log.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support_store import END_TURN, SCENARIO, clock, fresh, lines_of
from tabletrail.cli import main
from tabletrail.cli import store as cli_store
from tabletrail.events.errors import InputError
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.sqlite_store import SqliteStore, is_sqlite
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse

# --- the SQLite store plays like the others -------------------------------------------------------


def test_each_batch_is_one_transaction_in_wal_with_durable_sync(tmp_path: Path):
    store = SqliteStore(tmp_path / "fight.db")
    enc = fresh(store)
    conn = store._connect()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2, "FULL: a commit survives power loss"
    said: list[str] = []
    conn.set_trace_callback(said.append)
    enc.execute(parse("move ari 2,2"), "move ari 2,2")
    conn.set_trace_callback(None)
    assert said.count("BEGIN IMMEDIATE") == 1 and said.count("COMMIT") == 1
    transaction = said[said.index("BEGIN IMMEDIATE") : said.index("COMMIT")]
    inserts = [s for s in transaction if s.startswith("INSERT INTO events")]
    assert len(inserts) == 3, "the move's three records, all in the one transaction"
    assert not any(s.startswith("INSERT INTO events") for s in said if s not in transaction)


def test_a_sqlite_encounter_keeps_batches_and_command_ids(tmp_path: Path):
    enc = fresh(SqliteStore(tmp_path / "fight.db"))
    enc.execute(END_TURN, "end-turn", command_id="turn-1")
    with sqlite3.connect(tmp_path / "fight.db") as db:
        rows = db.execute("SELECT batch, first, last, command_id FROM batches ORDER BY batch").fetchall()
    assert rows == [(1, 1, 4, None), (2, 5, len(enc.records), "turn-1")]


# --- command ids ---------------------------------------------------------------------------------------


def test_a_command_id_used_twice_in_a_log_is_named(tmp_path: Path):
    enc = fresh(MemoryStore())
    enc.execute(END_TURN, "end-turn", command_id="same")
    lines = lines_of(enc.store)
    enc2 = Encounter.open(MemoryStore(lines), clock=clock)
    enc2.execute(END_TURN, "end-turn", command_id="other")
    forged = [line.replace(b'"command_id":"other"', b'"command_id":"same"') for line in lines_of(enc2.store)]
    from tests.cli.test_bad_input import rechain

    with pytest.raises(InputError) as caught:
        Encounter.open(MemoryStore(rechain(forged)))
    assert "command id 'same' was already used" in str(caught.value)


# --- the command line -----------------------------------------------------------------------------------


def test_new_without_log_makes_a_sqlite_store_at_the_documented_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.chdir(tmp_path)
    assert main(["new", str(SCENARIO)]) == 0
    path = tmp_path / "speed-meters-skirmish.db"
    assert cli_store.default_log(str(SCENARIO)) == path.name
    assert is_sqlite(path) and f"in {path.name}" in capsys.readouterr().out
    for argv in (
        ["do", path.name, "move", "ari", "2,2", "4,2"],
        ["undo", path.name],
        ["redo", path.name],
        ["do", path.name, "end-turn"],
        ["show", path.name, "--at", "7"],
        ["log", path.name],
        ["replay", path.name, "--json"],
    ):
        assert main(argv) == 0, argv
    out = capsys.readouterr().out
    assert "ari moved" in out and '"dice_drawn"' in out
    assert main(["do", path.name, "move", "ari", "10,2"]) == 1
    assert len(SqliteStore(path).refused()) == 1


def test_store_for_picks_the_store_by_extension_then_by_content(tmp_path: Path):
    for name in ("a.db", "a.sqlite", "a.SQLITE3"):
        assert isinstance(cli_store.store_for(str(tmp_path / name)), SqliteStore)
    assert isinstance(cli_store.store_for(str(tmp_path / "a.jsonl")), JsonlStore)
    assert isinstance(cli_store.store_for(str(tmp_path / "a.log")), JsonlStore)
    fresh(SqliteStore(tmp_path / "renamed.db")).store.close()
    (tmp_path / "renamed.db").rename(tmp_path / "renamed.log")
    store = cli_store.store_for(str(tmp_path / "renamed.log"))
    assert isinstance(store, SqliteStore) and Encounter.open(store).state.turn.active == "ari"


def test_missing_and_foreign_sqlite_files_are_named_and_never_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    def error(*argv: str | Path) -> str:
        assert main([str(a) for a in argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
        return err

    gone = tmp_path / "gone.db"
    assert "gone.db: no such log file" in error("show", gone)
    assert "gone.db: no such log file" in error("do", gone, "end-turn")
    assert not gone.exists()
    text = tmp_path / "text.db"
    text.write_text("not a database at all, just words\n" * 40)
    assert "text.db" in error("show", text) and text.read_text().startswith("not a database")
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE songs (title TEXT)")
    assert "foreign.db: a SQLite file, but not a tabletrail log" in error("log", foreign)
    assert "foreign.db: a SQLite file of another program" in error("new", SCENARIO, "--log", foreign)
    taken = tmp_path / "taken.db"
    fresh(SqliteStore(taken))
    before = lines_of(SqliteStore(taken))
    assert "taken.db: a log already exists here" in error("new", SCENARIO, "--log", taken)
    assert lines_of(SqliteStore(taken)) == before
    bad = tmp_path / "bad.toml"
    bad.write_text(SCENARIO.read_text().replace("speed = 6", "speed = -6"))
    assert "bad.toml" in error("new", bad, "--log", tmp_path / "never.db")
    assert not (tmp_path / "never.db").exists()


def test_a_log_from_a_newer_store_format_is_refused(tmp_path: Path):
    path = tmp_path / "fight.db"
    fresh(SqliteStore(path))
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(InputError) as caught:
        Encounter.open(SqliteStore(path))
    assert "newer tabletrail (store format 99" in str(caught.value)


def test_a_command_id_reused_for_another_command_is_an_error_through_the_api_too():
    """Encounter.execute (what the web view calls), not only the CLI, refuses a reused id."""
    import tomllib

    from tabletrail.events.errors import InputError as _InputError
    from tabletrail.events.scenario.reader import parse_scenario
    from tabletrail.events.stores.memory import MemoryStore
    from tabletrail.service.encounter import Encounter
    from tabletrail.service.syntax import parse as _parse

    root = Path(__file__).resolve().parents[2]
    raw = tomllib.loads((root / "scenarios" / "speed-meters-skirmish.toml").read_text(encoding="utf-8"))
    enc = Encounter.create(MemoryStore(), parse_scenario(raw))
    first = enc.execute(_parse("move ari 2,2"), "move ari 2,2", command_id="c1")
    assert enc.execute(_parse("move ari 2,2"), "move ari 2,2", command_id="c1") == first
    count = len(enc.records)
    with pytest.raises(_InputError, match="c1"):
        enc.execute(_parse("move ari 3,1"), "move ari 3,1", command_id="c1")
    assert len(enc.records) == count
