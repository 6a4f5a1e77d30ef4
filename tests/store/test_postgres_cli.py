"""PostgreSQL logs on the command line (issue 17): URLs wherever a LOG goes, many encounters per database.

- `--log postgresql://…?encounter=NAME`, or TABLETRAIL_DB and a plain NAME;
- `tabletrail encounters URL` lists a database's encounters;
- import/export move an encounter between any two stores, losslessly;
- bad input (a wrong URL, an unreachable server, a database without the tables,
  a row that doesn't decode, an encounter that isn't there) is one line naming the
  URL, password masked, and the encounter: exit 2, nothing written.

What every store promises (appends, conflicts, command ids, snapshots) is in
tests/store/test_contract.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psycopg
import pytest
from support_postgres import BASE, url
from support_store import GOLDEN, SCENARIO, fresh, lines_of, play, timeline_of
from tabletrail.cli import main
from tabletrail.events.errors import InputError, Unavailable
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.postgres_store import PostgresStore, masked, parse_url
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.service.encounter import Encounter


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def error(capsys: pytest.CaptureFixture[str], *argv: object) -> str:
    """The one-line error of a command that must fail with exit 2."""
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    return err


def test_a_url_is_a_log_for_every_verb(pg_schema: str, capsys: pytest.CaptureFixture[str]):
    log = url(pg_schema, "cellar-fight")
    code, out, _ = run(capsys, "new", SCENARIO, "--log", log)
    assert code == 0 and "cellar-fight" in out
    for argv in (
        ["do", log, "move", "ari", "2,2", "4,2"],
        ["undo", log],
        ["redo", log],
        ["do", log, "end-turn", "--id", "t1"],
        ["do", log, "end-turn", "--id", "t1"],  # a retry: nothing new
        ["show", log, "--at", "7"],
        ["log", log],
        ["replay", log, "--json"],
        ["verify", log],
    ):
        assert run(capsys, *argv)[0] == 0, argv
    assert run(capsys, "do", log, "move", "bo", "40,40")[0] == 1, "refused"
    store = PostgresStore(log)
    assert len(store.refused()) == 1
    batches = {r.batch for r in Encounter.open(store).records}
    assert len(batches) == 5, "new, move, undo, redo, one end-turn: the retry appended nothing"


def test_tabletrail_db_and_a_plain_name(
    pg_schema: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TABLETRAIL_DB", url(pg_schema, None))
    assert run(capsys, "new", SCENARIO, "--log", "cellar")[0] == 0
    assert run(capsys, "new", SCENARIO, "--log", "bridge")[0] == 0
    assert run(capsys, "do", "cellar", "end-turn")[0] == 0
    assert not (tmp_path / "cellar").exists(), "a name in the database, not a file"
    code, out, _ = run(capsys, "encounters", "--json")
    listed = json.loads(out)["data"]
    assert code == 0 and [e["encounter"] for e in listed["encounters"]] == ["bridge", "cellar"]
    events = {e["encounter"]: e["events"] for e in listed["encounters"]}
    assert events["cellar"] > events["bridge"] == 4
    code, out, _ = run(capsys, "encounters", url(pg_schema, None))
    assert code == 0 and out.splitlines()[0].startswith("bridge  4 events")
    (tmp_path / "cellar").write_text("a file of that name wins: the folder is what you see\n")
    err = error(capsys, "show", "cellar")
    assert err.startswith("error: cellar:1: not a log record")


# --- import and export between any two stores -------------------------------------------------------


@pytest.mark.parametrize("middle", ["postgres", "sqlite"])
def test_jsonl_through_any_store_and_back_is_byte_identical(
    middle: str, pg_schema: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    log = tmp_path / "golden.jsonl"
    shutil.copy(GOLDEN / "golden.jsonl", log)
    shutil.copy(GOLDEN / "golden.jsonl.refused", tmp_path / "golden.jsonl.refused")
    db = url(pg_schema, "golden") if middle == "postgres" else tmp_path / "golden.db"
    pg = url(pg_schema, "again")
    back = tmp_path / "back.jsonl"
    code, out, _ = run(capsys, "import", log, db, "--snapshot-every", "10")
    assert code == 0 and f"copied {len(log.read_bytes().splitlines())} events" in out
    assert run(capsys, "import", db, pg)[0] == 0, "database to database"
    assert run(capsys, "export", pg, back)[0] == 0
    assert back.read_bytes() == log.read_bytes()
    assert (tmp_path / "back.jsonl.refused").read_bytes() == (tmp_path / "golden.jsonl.refused").read_bytes()
    assert timeline_of(Encounter.open(PostgresStore(pg))) == timeline_of(Encounter.open(JsonlStore(log)))


def test_a_played_postgres_encounter_exports_to_sqlite_and_back(
    pg_schema: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    first = PostgresStore(url(pg_schema, "first"), snapshot_every=30)
    enc = fresh(first)
    play(enc, 150, seed=13)
    db, second = tmp_path / "middle.db", url(pg_schema, "second")
    assert run(capsys, "export", first.name, db)[0] == 0
    assert run(capsys, "import", db, second)[0] == 0
    a, b = PostgresStore(first.name), PostgresStore(second)
    assert lines_of(a) == lines_of(b) == lines_of(SqliteStore(db))
    assert a.refused_lines() == b.refused_lines() and a.refused_lines()
    assert timeline_of(Encounter.open(b)) == timeline_of(Encounter.open(a, snapshots=False))
    assert "already exists" in error(capsys, "import", db, second), "never overwrites"
    assert "another log" in error(capsys, "import", second, second)


# --- bad input ------------------------------------------------------------------------------------------


def test_a_password_never_shows_and_a_wrong_url_is_named():
    assert masked("postgresql://gm:s3cret@db.example/tables?encounter=x") == (
        "postgresql://gm:***@db.example/tables?encounter=x"
    )
    with pytest.raises(InputError) as caught:
        parse_url("postgresql://gm:s3cret@db.example:port/tables")
    assert "s3cret" not in str(caught.value) and "gm:***@db.example" in str(caught.value)
    with pytest.raises(InputError, match="encounter 'a b'"):
        PostgresStore("postgresql://db.example/tables?encounter=a b")
    with pytest.raises(InputError, match=r"which encounter\? add \?encounter=NAME"):
        PostgresStore("postgresql://db.example/tables")


def test_an_unreachable_server_is_one_line_naming_the_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    gone = "postgresql://gm:s3cret@127.0.0.1:1/test?encounter=cellar&connect_timeout=2"
    for argv in (["show", gone], ["do", gone, "end-turn"], ["new", SCENARIO, "--log", gone]):
        err = error(capsys, *argv)
        assert "postgresql://gm:***@127.0.0.1:1/test?encounter=cellar" in err and "s3cret" not in err
        assert "cannot reach the PostgreSQL server" in err
    with pytest.raises(Unavailable):
        PostgresStore(gone).version()


def test_missing_tables_a_missing_encounter_and_a_row_that_does_not_decode(
    pg_schema: str, capsys: pytest.CaptureFixture[str]
):
    log = url(pg_schema, "cellar")
    err = error(capsys, "show", log)
    assert f"{log}: the database has no tabletrail tables (schema '{pg_schema}')" in err
    code, out, _ = run(capsys, "encounters", url(pg_schema, None))
    assert code == 0 and "no encounters yet" in out, "a database nobody has played in lists none"
    assert run(capsys, "new", SCENARIO, "--log", log)[0] == 0
    other = url(pg_schema, "crypt")
    assert f"{other}: no encounter 'crypt' in this database" in error(capsys, "do", other, "end-turn")
    with psycopg.connect(BASE, autocommit=True) as conn:
        conn.execute(f"UPDATE {pg_schema}.events SET line = 'not json' WHERE version = 3")
    err = error(capsys, "show", log)
    assert f"{log}:3: not a log record" in err
    before = PostgresStore(log).version()
    error(capsys, "do", log, "end-turn")
    assert PostgresStore(log).version() == before, "nothing written"
    with psycopg.connect(BASE, autocommit=True) as conn:
        conn.execute(f"DROP TABLE {pg_schema}.events CASCADE")
    err = error(capsys, "show", log)
    assert log in err and "no tabletrail tables" in err
