"""Which store a log named on the command line or in a served folder means, opened once and closed at exit.

Which store: any existing file that is a SQLite database, or a path ending in .db,
.sqlite or .sqlite3 that is not already a JSON Lines log, is a SQLite store
(events/stores/sqlite_store.py); anything else is a JSON Lines log. An existing file is
what its bytes say, whatever its name. Every verb takes either.

A PostgreSQL URL (postgresql://host/db?encounter=NAME) is an encounter in a
PostgreSQL database (events/stores/postgres_store.py); so is a plain encounter NAME
(letters, digits, - and _) that is not an existing file while TABLETRAIL_DB holds
the database's URL.

Default: `tabletrail new SCENARIO` without --log keeps the encounter in SQLite,
the durable store, in the current folder under the scenario's file name with
`.db`: `tabletrail new scenarios/skirmish.toml` creates `./skirmish.db`.

Below the CLI, the web and the builder's drafts, which all open logs by name.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tabletrail.events.errors import InputError
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.pg_names import NAME, is_url
from tabletrail.events.stores.protocol import Store
from tabletrail.events.stores.sqlite_store import SqliteStore, is_sqlite

if TYPE_CHECKING:
    from tabletrail.events.stores.postgres_store import PostgresStore

# Every verb opens a store through this module, so it imports no more than that: the PostgreSQL
# store (and psycopg, ~200 ms) only when a URL or NAME asks for it (benchmarks/bench_cli.py).

SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
LOG_HELP = (
    "the encounter's log: NAME.jsonl (JSON Lines), NAME.db (SQLite), or postgresql://HOST/DB?encounter=NAME "
    "(or a plain NAME with TABLETRAIL_DB set to the database's URL)"
)
DB_ENV = "TABLETRAIL_DB"


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


OPENED: list[Store] = []  # every store a verb opened, closed by `close_opened` before a fast exit


def close_opened() -> None:
    """Close what the verb opened: SQLite folds its write-ahead log back, so the .db file is whole."""
    while OPENED:
        close = getattr(OPENED.pop(), "close", None)
        if close is not None:
            close()


def store_for(
    path: str, snapshot_every: int | None = None, *, heal: bool = True
) -> JsonlStore | SqliteStore | PostgresStore:
    """The store behind a log path given on the command line (see the module docstring).

    heal: a JSONL log a crash left mid-batch is cut back to its last whole batch by
    whoever opens it next (the cut bytes kept in LOG.torn-<time>), as SQLite rolls
    back its own unfinished transactions; `repair` and `verify` look without healing.
    """
    store = _store_for(path, snapshot_every, heal=heal)
    OPENED.append(store)
    return store


def _store_for(
    path: str, snapshot_every: int | None, *, heal: bool
) -> JsonlStore | SqliteStore | PostgresStore:
    if is_url(path):
        from tabletrail.events.stores.postgres_store import PostgresStore

        return PostgresStore(path, snapshot_every=snapshot_every, warn=_warn)
    database = os.environ.get(DB_ENV)
    if database and NAME.fullmatch(path) and not Path(path).exists():
        from tabletrail.events.stores.postgres_store import PostgresStore

        return PostgresStore(database, encounter=path, snapshot_every=snapshot_every, warn=_warn)
    p = Path(path)
    if p.suffix.lower() == ".toml" and p.is_file():
        raise InputError(
            f"{p}: a scenario file, not a log: start an encounter from it with "
            f"`tabletrail new {p} --log fight.jsonl`"
        )
    if is_sqlite(p) or (p.suffix.lower() in SQLITE_SUFFIXES and not _is_jsonl(p)):
        return SqliteStore(p, snapshot_every=snapshot_every, warn=_warn)
    return JsonlStore(p, snapshot_every=snapshot_every, warn=_warn, heal=heal)


def _is_jsonl(path: Path) -> bool:
    """Does an existing file start like a JSON Lines log (a record's `{`), whatever its name?"""
    try:
        with open(path, "rb") as fh:
            return fh.read(1) == b"{"
    except OSError:
        return False


def default_log(scenario_path: str) -> str:
    """Where `tabletrail new SCENARIO` keeps the log when --log is not given: ./NAME.db (SQLite)."""
    return str(Path(scenario_path).with_suffix(".db").name)
