"""The SQLite event store and what every store promises (issue 8).

- one transaction per batch, WAL, durable settings;
- a stale writer gets a ConflictError naming both versions, appends nothing, and
  succeeds after reloading;
- a retried command id appends nothing and returns the original records;
- `tabletrail new SCENARIO` without --log makes a SQLite store at ./NAME.db, and
  every verb takes it like a JSONL log.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tabletrail import cli_store
from tabletrail.cli import main
from tabletrail.core.refusal import Rejection
from tabletrail.encounter import Encounter
from tabletrail.events.errors import ConflictError, InputError
from tabletrail.events.log import JsonlStore, MemoryStore, VersionConflict
from tabletrail.events.sqlite_store import SqliteStore, is_sqlite
from tabletrail.projections.board import view
from tabletrail.syntax import parse
from test_store_support import END_TURN, SCENARIO, clock, fresh, lines_of, play, records_of

KINDS = ["memory", "jsonl", "sqlite"]


def new_store(kind: str, folder: Path):  # noqa: ANN201 - one of the three stores
    if kind == "memory":
        return MemoryStore()
    if kind == "jsonl":
        return JsonlStore(folder / "fight.jsonl")
    return SqliteStore(folder / "fight.db")


def second_writer(enc: Encounter, kind: str) -> Encounter:
    """Another device opening the same log (its own store object, its own connection)."""
    store = enc.store
    other = store if kind == "memory" else type(store)(store.path)
    return Encounter.open(other, clock=clock)


# --- the SQLite store plays like the others -------------------------------------------------------


def test_a_sqlite_encounter_writes_the_same_lines_as_memory(tmp_path: Path):
    mem, db = fresh(MemoryStore()), fresh(SqliteStore(tmp_path / "fight.db"))
    assert play(mem, 120, seed=5) == play(db, 120, seed=5)
    assert lines_of(db.store) == lines_of(mem.store)
    again = Encounter.open(SqliteStore(tmp_path / "fight.db"), snapshots=False)
    assert view(again.state) == view(mem.state)
    assert db.store.refused() == mem.store.refused() and mem.store.refused(), "refusals are kept too"


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


# --- optimistic concurrency -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_stale_writer_gets_a_conflict_naming_both_versions(kind: str, tmp_path: Path):
    first = fresh(new_store(kind, tmp_path))
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


def test_a_writer_that_raced_ahead_cannot_be_overwritten_by_an_insert(tmp_path: Path):
    """The unique (encounter, version) key: lines whose versions are taken are refused."""
    store = SqliteStore(tmp_path / "fight.db")
    enc = fresh(store)
    taken = lines_of(store)[-1:]
    with pytest.raises(ConflictError) as caught:
        store.append(taken)
    assert "version 3" in str(caught.value) and f"version {len(enc.records)}" in str(caught.value)


# --- idempotent command ids ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_retrying_a_command_id_appends_nothing_and_returns_the_original(kind: str, tmp_path: Path):
    enc = fresh(new_store(kind, tmp_path))
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


@pytest.mark.parametrize("kind", KINDS)
def test_a_retry_from_a_stale_device_returns_the_original_too(kind: str, tmp_path: Path):
    """The first try committed, but its answer was lost; the retry comes from a device that is behind."""
    enc = fresh(new_store(kind, tmp_path))
    behind = second_writer(enc, kind)
    original = enc.execute(END_TURN, "end-turn", command_id="lost-answer")
    count = len(lines_of(enc.store))
    assert behind.execute(END_TURN, "end-turn", command_id="lost-answer") == original
    assert len(lines_of(enc.store)) == count
    assert len(behind.records) == count, "the retry caught the device up"


def test_a_command_id_used_twice_in_a_log_is_named(tmp_path: Path):
    enc = fresh(MemoryStore())
    enc.execute(END_TURN, "end-turn", command_id="same")
    lines = lines_of(enc.store)
    enc2 = Encounter.open(MemoryStore(lines), clock=clock)
    enc2.execute(END_TURN, "end-turn", command_id="other")
    forged = [line.replace(b'"command_id":"other"', b'"command_id":"same"') for line in lines_of(enc2.store)]
    from test_foundation_bad_input import rechain

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


def test_records_read_back_from_sqlite_are_the_records_written(tmp_path: Path):
    enc = fresh(SqliteStore(tmp_path / "fight.db"))
    play(enc, 60, seed=2)
    assert records_of(enc.store) == list(enc.records)


def test_the_store_itself_refuses_a_command_id_it_holds(tmp_path: Path):
    """The unique (encounter, command_id) key, should a writer not have checked its own log."""
    from tabletrail.events.log import DuplicateCommand

    store = SqliteStore(tmp_path / "fight.db")
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


def test_a_command_id_reused_for_another_command_is_an_error_through_the_api_too():
    """Encounter.execute (what the web view calls), not only the CLI, refuses a reused id."""
    import tomllib

    from tabletrail.encounter import Encounter
    from tabletrail.events.errors import InputError as _InputError
    from tabletrail.events.log import MemoryStore
    from tabletrail.events.scenario import parse_scenario
    from tabletrail.syntax import parse as _parse

    root = Path(__file__).resolve().parent.parent
    raw = tomllib.loads((root / "scenarios" / "speed-meters-skirmish.toml").read_text(encoding="utf-8"))
    enc = Encounter.create(MemoryStore(), parse_scenario(raw))
    first = enc.execute(_parse("move ari 2,2"), "move ari 2,2", command_id="c1")
    assert enc.execute(_parse("move ari 2,2"), "move ari 2,2", command_id="c1") == first
    count = len(enc.records)
    with pytest.raises(_InputError, match="c1"):
        enc.execute(_parse("move ari 3,1"), "move ari 3,1", command_id="c1")
    assert len(enc.records) == count
