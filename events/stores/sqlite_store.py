"""The SQLite event store: the embedded, durable default for live encounters.

One file may hold several encounters (the `encounter` column; "main" unless
told otherwise). Its tables:

- events(encounter, version, batch, line): one row per record, `line` the exact
  bytes a JSON Lines log would hold, so export is lossless. The primary key
  (encounter, version) is the optimistic lock: two writers that both saw
  version 41 both try to insert version 42, and only one can.
- batches(encounter, batch, first, last, command_id): where each batch sits;
  a unique (encounter, command_id) makes a retried command id append nothing.
- refused(encounter, n, line): the refusal side log, as JsonlStore keeps in LOG.refused.
- snapshots(encounter, version, format, data): caches of the board (see
  projections/snapshot.py); dropping them loses nothing.
- meta(key, value): settings of the store, e.g. snapshot_every, and `tip`: the
  version and last line hash, written in each append's transaction so `verify`
  can tell a log cut at a batch end (issue 13).

Each batch is one transaction (BEGIN IMMEDIATE ... COMMIT) in WAL mode; with
durable=True (the default) `synchronous=FULL` makes a commit survive power loss,
not only a crash of the process.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
from tabletrail.events.errors import InputError
from tabletrail.events.stores.chain import tip_text
from tabletrail.events.stores.conflicts import DuplicateCommand, VersionConflict
from tabletrail.events.stores.db_store import (
    DEFAULT_SNAPSHOT_EVERY,
    DatabaseReads,
    Spans,
    batch_rows,
    check_order,
)
from tabletrail.events.stores.jsonl import fsync_folder
from tabletrail.events.stores.record import Record
from tabletrail.events.stores.refusals import Refused, Warn, unkept

MAGIC = b"SQLite format 3\x00"  # the first bytes of every SQLite file
APPLICATION_ID = 0x54546C31  # "TTl1": marks a tabletrail store among SQLite files
FORMAT = 1  # PRAGMA user_version of the tables below

TABLES = (
    """CREATE TABLE events (
        encounter TEXT NOT NULL, version INTEGER NOT NULL, batch INTEGER NOT NULL, line BLOB NOT NULL,
        PRIMARY KEY (encounter, version)) WITHOUT ROWID""",
    """CREATE TABLE batches (
        encounter TEXT NOT NULL, batch INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL,
        command_id TEXT, PRIMARY KEY (encounter, batch)) WITHOUT ROWID""",
    "CREATE UNIQUE INDEX batches_command ON batches (encounter, command_id) WHERE command_id IS NOT NULL",
    """CREATE TABLE refused (
        encounter TEXT NOT NULL, n INTEGER NOT NULL, line BLOB NOT NULL,
        PRIMARY KEY (encounter, n)) WITHOUT ROWID""",
    """CREATE TABLE snapshots (
        encounter TEXT NOT NULL, version INTEGER NOT NULL, format INTEGER NOT NULL, data BLOB NOT NULL,
        PRIMARY KEY (encounter, version, format)) WITHOUT ROWID""",
    """CREATE TABLE meta (
        encounter TEXT NOT NULL, key TEXT NOT NULL, value TEXT, PRIMARY KEY (encounter, key))""",
)


class _Shared:
    """One connection to one SQLite file in this process, shared by every SqliteStore on that file.

    Each store used to open its own: a process that opened a store again and again
    without closing the old ones (a verb run in-process after another, a server
    opening a log per request) held two file handles a store, until opening the file
    failed for every command after (issue 28, item 14). One connection a file, under
    one lock, closed when the last store lets go of it (or is collected), as
    PostgreSQL's stores share one a database.
    """

    def __init__(self, conn: sqlite3.Connection, key: tuple[int, int, int, str], synchronous: str) -> None:
        self.conn = conn
        self.key = key
        self.lock = threading.RLock()
        self.users = 0
        self.synchronous = synchronous  # the PRAGMA in force on it: each store sets its own before use


_SHARED: dict[tuple[int, int, int, str], _Shared] = {}  # (pid, device, inode, mode) -> its connection
_SHARING = threading.Lock()


def _release(shared: _Shared) -> None:
    """A store lets go of its file's connection; the last one out closes it."""
    with _SHARING:
        shared.users -= 1
        if shared.users > 0:
            return
        if _SHARED.get(shared.key) is shared:
            del _SHARED[shared.key]
    with shared.lock:
        shared.conn.close()


def is_sqlite(path: Path) -> bool:
    """Does this file start like a SQLite database (whatever its name)?"""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


class SqliteStore(DatabaseReads):
    """An encounter in a SQLite file: versioned appends, command ids, snapshots."""

    versioned = True

    def __init__(
        self,
        path: str | Path,
        *,
        encounter: str = "main",
        durable: bool = True,
        snapshot_every: int | None = None,
        busy_timeout: float = 30.0,
        warn: Warn | None = None,
    ) -> None:
        self.path = Path(path)
        self.warn = warn  # told when a refusal cannot be kept (a read-only file); else that is an error
        self.name = str(self.path)
        self.encounter = encounter
        self.durable = durable
        self.busy_timeout = busy_timeout
        self._snapshot_every = snapshot_every
        self._conn: sqlite3.Connection | None = None
        self._shared: _Shared | None = None  # this file's connection in this process (see _Shared)
        self._let_go: weakref.finalize[[_Shared], SqliteStore] | None = None
        self._lock = threading.RLock()  # one store, shared safely by a web server's threads

    def exists(self) -> bool:
        return self.path.exists()

    # --- the connection ----------------------------------------------------------

    def _connect(self, create: bool = False) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        if self.path.is_dir():
            raise InputError(f"{self.path}: is a folder, not a log file")
        if not create and not self.path.exists():
            raise InputError(f"{self.path}: no such log file")
        if create and not self.path.parent.exists():
            raise InputError(f"{self.path}: no such folder to create the log in")
        mode = "?mode=rwc" if create else self._read_mode()
        key = self._key(mode)
        with _SHARING:
            shared = _SHARED.get(key) if key is not None else None
            if shared is not None:
                shared.users += 1
        if shared is None:
            uri = self.path.resolve().as_uri() + mode
            conn = sqlite3.connect(
                uri, uri=True, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False
            )
            try:
                if not create:
                    self._check_kind(conn)
            except BaseException:
                conn.close()
                raise
            shared = _Shared(conn, self._key(mode) or (0, 0, 0, ""), "")
            shared.users = 1
            with _SHARING:
                if shared.key[0] and shared.key not in _SHARED:
                    _SHARED[shared.key] = shared
        self._shared = shared
        self._let_go = weakref.finalize(self, _release, shared)
        self._conn = shared.conn
        return shared.conn

    def _key(self, mode: str) -> tuple[int, int, int, str] | None:
        """What names its shared connection: this process, the file (not its name), how it is opened."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (os.getpid(), st.st_dev, st.st_ino, mode.replace("rwc", "rw"))

    def _read_mode(self) -> str:
        """How to open an existing file: read-write, or as immutable when it can only be read.

        WAL mode needs a LOG-shm file next to the log even to read it. Where this
        user may not create one (a read-only folder: an archive, a shared drive) and
        none is there, the file is opened as immutable: it reads, and every write
        is refused as read-only.
        """
        shm = Path(f"{self.path}-shm")
        if not os.access(self.path.parent, os.W_OK) and not shm.exists():
            return "?mode=ro&immutable=1"
        return "?mode=rw"

    def _check_kind(self, conn: sqlite3.Connection) -> None:
        """Refuse a SQLite file that is not a tabletrail store, or one from a newer tabletrail."""
        if self.path.stat().st_size == 0:
            raise InputError(f"{self.path}: an empty file, not a tabletrail log")
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        if app != APPLICATION_ID:
            raise InputError(f"{self.path}: a SQLite file, but not a tabletrail log (no tabletrail tables)")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > FORMAT:
            raise InputError(
                f"{self.path}: written by a newer tabletrail (store format {version}; this version reads "
                f"up to {FORMAT}): upgrade tabletrail to open it"
            )

    @contextmanager
    def _db(self, doing: str, create: bool = False) -> Iterator[sqlite3.Connection]:
        """The connection, with SQLite's errors turned into InputErrors that name the file."""
        with self._lock:
            try:
                conn = self._connect(create)
                shared = self._shared
                assert shared is not None
                with shared.lock:  # every store on this file, one statement or transaction at a time
                    wanted = "FULL" if self.durable else "NORMAL"
                    if shared.synchronous != wanted:
                        conn.execute(f"PRAGMA synchronous={wanted}")
                        shared.synchronous = wanted
                    yield conn
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    raise InputError(
                        f"{self.path}: {doing}: the log stayed locked by another writer for "
                        f"{self.busy_timeout:g} s; nothing was changed"
                    ) from None
                if "readonly" in str(exc):
                    raise InputError(
                        f"{self.path}: {doing}: the log is read-only for you ({exc}); "
                        "nothing was appended or changed"
                    ) from None
                raise InputError(f"{self.path}: {doing}: {exc}") from None
            except sqlite3.DatabaseError as exc:
                if "not a database" in str(exc):
                    raise InputError(
                        f"{self.path}: not a SQLite database, nor a tabletrail log of any kind ({exc})"
                    ) from None
                raise InputError(f"{self.path}: {doing}: not a readable tabletrail log ({exc})") from None

    @contextmanager
    def _transaction(self, conn: sqlite3.Connection) -> Iterator[None]:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _one(self, doing: str, query: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
        with self._db(doing) as conn:
            row: tuple[Any, ...] | None = conn.execute(_dialect(query), params).fetchone()
            return row

    def _all(self, doing: str, query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        with self._db(doing) as conn:
            return conn.execute(_dialect(query), params).fetchall()

    def close(self) -> None:
        with self._lock:
            if self._let_go is not None:
                self._let_go()  # once: the finalizer is spent after it runs
            self._conn = self._shared = self._let_go = None

    # --- reading ---------------------------------------------------------------

    def read(self, start: int = 0, stop: int | None = None) -> Iterator[bytes]:
        """The lines with versions after `start` (and up to `stop`), oldest first."""
        with self._db("reading"):
            pass  # fail now, not at the first line, when the file is missing or foreign
        return self._pages(start, stop)

    def version(self) -> int:
        """How many records the encounter holds."""
        with self._db("reading") as conn:
            return self._version(conn)

    def _version(self, conn: sqlite3.Connection) -> int:
        row = conn.execute(
            "SELECT max(version) FROM events WHERE encounter = ?", (self.encounter,)
        ).fetchone()
        return row[0] or 0

    # --- writing ---------------------------------------------------------------

    def append(self, lines: Sequence[bytes], *, expected: int | None = None) -> None:
        """Append one batch in one transaction, only if the encounter is still at version `expected`."""
        if not lines:
            return
        records, batches, expected = self._planned(lines, expected)
        with self._db("appending") as conn, self._transaction(conn):
            actual = self._version(conn)
            if actual != expected:
                raise VersionConflict(self.name, expected, actual)
            self._insert(conn, records, lines, batches)

    def _insert(
        self,
        conn: sqlite3.Connection,
        records: list[Record],
        lines: Sequence[bytes],
        batches: Spans,
    ) -> None:
        try:
            conn.executemany(
                "INSERT INTO events (encounter, version, batch, line) VALUES (?, ?, ?, ?)",
                [
                    (self.encounter, r.seq, r.batch, bytes(line))
                    for r, line in zip(records, lines, strict=True)
                ],
            )
        except sqlite3.IntegrityError:  # the unique (encounter, version) key: someone got there first
            raise VersionConflict(self.name, records[0].seq - 1, self._version(conn)) from None
        try:
            conn.executemany(
                "INSERT INTO batches (encounter, batch, first, last, command_id) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (encounter, batch) DO UPDATE SET last = excluded.last, "
                "command_id = coalesce(batches.command_id, excluded.command_id)",
                [(self.encounter, batch, lo, hi, cid) for batch, (lo, hi, cid) in batches.items()],
            )
            conn.execute(  # the tip kept outside the log, in the same transaction (see `kept_tip`)
                "INSERT OR REPLACE INTO meta (encounter, key, value) VALUES (?, 'tip', ?)",
                (self.encounter, tip_text(records[-1].seq, lines[-1], self._tip_key(records, lines))),
            )
        except sqlite3.IntegrityError:  # the unique (encounter, command_id): this id was appended before
            ids = [cid for _, _, cid in batches.values() if isinstance(cid, str)]
            taken = [
                cid
                for cid in ids
                if conn.execute(
                    "SELECT 1 FROM batches WHERE encounter = ? AND command_id = ?", (self.encounter, cid)
                ).fetchone()
            ]
            raise DuplicateCommand(self.name, (taken or ids or [""])[0]) from None

    def create(self, lines: Sequence[bytes], *, refused: Sequence[bytes] = ()) -> None:
        """Start the encounter in this file (made if missing); refuses if it already has events."""
        records, batches = batch_rows(lines, self.name)
        check_order(records, 0, self.name, "line")
        made = not self.path.exists()
        try:
            with self._db("creating", create=True) as conn:
                self._set_up(conn)
                with self._transaction(conn):
                    if self._version(conn):
                        raise InputError(f"{self.path}: a log already exists here; pick another name")
                    self._insert(conn, records, lines, batches)
                    conn.executemany(
                        "INSERT INTO refused (encounter, n, line) VALUES (?, ?, ?)",
                        [(self.encounter, n, bytes(line)) for n, line in enumerate(refused, start=1)],
                    )
                    every = self._snapshot_every or DEFAULT_SNAPSHOT_EVERY
                    conn.execute(
                        "INSERT OR REPLACE INTO meta (encounter, key, value) VALUES (?, 'snapshot_every', ?)",
                        (self.encounter, str(every)),
                    )
        except BaseException:
            if made:
                self.close()
                for suffix in ("", "-wal", "-shm"):
                    Path(str(self.path) + suffix).unlink(missing_ok=True)
            raise
        if made and self.durable:
            fsync_folder(self.path)

    def _set_up(self, conn: sqlite3.Connection) -> None:
        """Make the tables in a new file; check an existing one is a tabletrail store."""
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        if app == APPLICATION_ID:
            self._check_kind(conn)
            return
        if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            raise InputError(f"{self.path}: a SQLite file of another program; pick another name")
        conn.execute("PRAGMA journal_mode=WAL")
        with self._transaction(conn):
            for sql in TABLES:
                conn.execute(sql)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {FORMAT}")

    # --- the refusal side log ----------------------------------------------------

    def note_refusal(self, refused: Refused) -> None:
        """Keep a refusal in the side table; one that cannot be written is told to `warn` (see JsonlStore)."""
        try:
            self._note(refused)
        except InputError as exc:
            if self.warn is None:
                raise
            why = str(exc).removeprefix(f"{self.path}: ").removeprefix("noting a refusal: ")
            unkept(self.warn, self.path, "the file is read-only for you" if "read-only" in why else why)

    def _note(self, refused: Refused) -> None:
        line = msgspec.json.encode(refused)
        with self._db("noting a refusal") as conn, self._transaction(conn):
            n = conn.execute(
                "SELECT coalesce(max(n), 0) + 1 FROM refused WHERE encounter = ?", (self.encounter,)
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO refused (encounter, n, line) VALUES (?, ?, ?)", (self.encounter, n, line)
            )

    # --- snapshots: caches of the board --------------------------------------------

    @property
    def snapshot_every(self) -> int:
        """Events between snapshots: the constructor's choice, else the file's setting, else 1000."""
        if self._snapshot_every is not None:
            return self._snapshot_every
        if not self.path.exists():
            return DEFAULT_SNAPSHOT_EVERY
        self._snapshot_every = self._kept_every()
        return self._snapshot_every

    def save_snapshots(self, fmt: int, snapshots: Sequence[tuple[int, bytes]]) -> None:
        with self._db("saving snapshots") as conn, self._transaction(conn):
            conn.executemany(
                "INSERT OR REPLACE INTO snapshots (encounter, version, format, data) VALUES (?, ?, ?, ?)",
                [(self.encounter, version, fmt, data) for version, data in snapshots],
            )

    def drop_snapshots(self) -> int:
        with self._db("dropping snapshots") as conn, self._transaction(conn):
            return conn.execute("DELETE FROM snapshots WHERE encounter = ?", (self.encounter,)).rowcount

    def check(self) -> str:
        """SQLite's own integrity check of the file: "ok" or what is wrong."""
        with self._db("checking") as conn:
            rows = conn.execute("PRAGMA integrity_check").fetchall()
        return "; ".join(str(r[0]) for r in rows)


def _dialect(query: str) -> str:
    """A shared query (events/stores/db_store.py) in SQLite's words: one schema, `?` parameters."""
    return query.replace("{s}.", "").replace("%s", "?")
