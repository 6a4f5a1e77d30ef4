"""The PostgreSQL event store: many encounters in one database, shared by several servers.

The same contract as SqliteStore (events/stores/sqlite_store.py), for a hosted table
service where several `serve` processes on several machines share one durable
log per encounter. A log is named by URL:

    postgresql://[user[:password]@]host[:port]/database?encounter=NAME[&schema=SCHEMA]

`encounter` and `schema` are ours (the schema defaults to `tabletrail`); every
other query parameter goes to libpq as is (sslmode, connect_timeout...). Errors
name the URL with its password masked.

Tables (in the schema, made by an idempotent CREATE ... IF NOT EXISTS migration
the first time an encounter is created there):

- encounters(encounter, version, created): one row per encounter holding its
  tip. An append moves it from the version its writer saw to the new one in the
  same transaction as the rows, so a stale writer finds 0 rows to update (a
  VersionConflict) and two writers at once queue on the row lock.
- events(encounter, version, batch, line): one row per record, `line` the exact
  bytes of the JSON line (export is byte-identical); the primary key
  (encounter, version) is the optimistic lock of last resort.
- batches(encounter, batch, first, last, command_id): unique (encounter,
  command_id) makes a retried command append nothing.
- refused, snapshots, meta: as in SQLite.
- store_format(format): the tables' version; a newer one is refused.

Every batch is one transaction, and once it has committed `NOTIFY tabletrail`
is sent with "schema<TAB>encounter<TAB>version": a server worker listening on
the database (app/web/live.py) hears of every append, whichever worker or CLI
made it. The NOTIFY is a transaction of its own, sent in the same round trip
right behind the batch (libpq's pipeline mode) and only if the encounter is at
that version by then: a NOTIFY inside the batch's transaction holds a lock on
the whole database until that commit is on disk, so every writer's commit waited
for the one before it (issue 29: half the batches per second with 8 writers).
A listener keeps the highest version it heard, so a NOTIFY arriving late is harmless.

A command's NOTIFY carries its batch's lines too when they fit in PostgreSQL's payload
(under NOTIFY_BYTES): "schema<TAB>encounter<TAB>version<TAB>line<LF>line...". A
worker that heard them folds the move without reading it back (app/web/live.py hands
them to `PostgresStore.read`); a NOTIFY without lines (a batch too big, an import, a
NOTIFY lost) leaves it to read them from the database as before. The lines ride only
if they are what the encounter holds at those versions: a writer that lost the race
for them tells nothing.

What a command costs (issue 29): its batch is one prepared statement, its
parameters sent as bytes (`run_prepared`), one round trip with its NOTIFY; a
fold reads windows of versions in binary (`PostgresStore._windows`).
benchmarks/bench_hosted.py measures both against SQLite.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import struct
import threading
import time
import weakref
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal, NamedTuple, Protocol, TypeVar, overload
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec
from tabletrail.events.errors import InputError, Unavailable
from tabletrail.events.stores.chain import tip_text
from tabletrail.events.stores.conflicts import DuplicateCommand, VersionConflict
from tabletrail.events.stores.db_store import (
    DEFAULT_SNAPSHOT_EVERY,
    DatabaseReads,
    Spans,
    batch_rows,
    check_order,
)
from tabletrail.events.stores.pg_names import NAME, SCHEMES, is_url, masked  # noqa: F401  (re-exported)
from tabletrail.events.stores.record import Record
from tabletrail.events.stores.refusals import Refused, Warn, unkept

try:
    import psycopg
    from psycopg import errors as pg_errors
    from psycopg import pq, sql
    from psycopg.generators import execute
    from psycopg.rows import scalar_row
    from psycopg.waiting import Ready, Wait
except ImportError:  # the postgres extra is not installed: store_for says so when a URL is given
    psycopg = None  # type: ignore[assignment]  # the name stays bound: store_for tells what is missing

FORMAT = 1  # store_format of the tables below
DEFAULT_SCHEMA = "tabletrail"
CHANNEL = "tabletrail"  # NOTIFY channel: payload "schema\tencounter\tversion"
INVITES_CHANGED = "invites"  # ... or, in the version's place, this: a link was made or revoked
_T = TypeVar("_T")
HAS_TABLES, HAS_INVITES = "tables", "invites"  # what Database.checked found made, for a schema
_TICKS = itertools.count()  # the order of asks and reads in this process (PostgresStore._shared)
_COMPOSED: dict[tuple[str, str], bytes] = {}  # (schema, statement) -> its bytes (see PostgresStore._q)
WINDOW = (1_000, 64_000)  # versions the first read query asks for, and the most any asks for
COPY_FROM = 1000  # a batch of more rows than this (an import) is written with COPY
CONNECT_TIMEOUT = 5  # seconds before an unreachable server is reported

# One batch, one statement (see PostgresStore._append): every part selects from the tip that moved.
# $1 encounter, $2 the version the writer saw, $3 the new tip, $4 the batch, $5 its lines (bytea[]),
# $6 its command id, $7 the kept tip (their types: APPEND_TYPES).
APPEND = """
WITH tip AS (
    UPDATE {s}.encounters SET version = $3 WHERE encounter = $1 AND version = $2
    RETURNING encounter
), rows AS (
    INSERT INTO {s}.events (encounter, version, batch, line)
    SELECT tip.encounter, $2 + n, $4, line FROM tip, unnest($5) WITH ORDINALITY AS u(line, n)
    RETURNING 1
), span AS (
    INSERT INTO {s}.batches AS old (encounter, batch, first, last, command_id)
    SELECT tip.encounter, $4, $2 + 1, $3, $6 FROM tip
    ON CONFLICT (encounter, batch) DO UPDATE
        SET last = excluded.last, command_id = coalesce(old.command_id, excluded.command_id)
    RETURNING 1
), kept AS (
    INSERT INTO {s}.meta (encounter, key, value) SELECT tip.encounter, 'tip', $7 FROM tip
    ON CONFLICT (encounter, key) DO UPDATE SET value = excluded.value
    RETURNING 1
)
SELECT (SELECT count(*) FROM rows), (SELECT count(*) FROM span), (SELECT count(*) FROM kept)
"""
TEXT, INT8, BYTEA, BYTEA_ARRAY = 25, 20, 17, 1001  # type oids
APPEND_TYPES = (TEXT, INT8, INT8, INT8, BYTEA_ARRAY, TEXT, TEXT)
APPEND_FORMATS = (0, 0, 0, 0, 1, 0, 0)  # every parameter as text but the lines, binary

# The NOTIFY behind a batch ($1 channel, $2 payload), sent only if encounter $3 is at version $4: a
# batch refused (a stale writer, a retried command id) tells nobody, and no NOTIFY names a version
# the encounter has not reached. Its transaction commits without waiting for the WAL to reach the disk
# (synchronous_commit off, for it alone): a NOTIFY holds a lock shared by every database of the server
# until its commit is done, so on a busy disk each one waited for a flush behind the one before (issue 40,
# 75 commands/s: backends waiting on Lock:object). The batch before it was flushed; the NOTIFY carries
# no data, and one lost in a crash is made up by the listeners reading again when they reconnect.
APPENDED = (
    "SELECT pg_notify($1, $2), set_config('synchronous_commit', 'off', true) FROM {s}.encounters"
    " WHERE encounter = $3 AND version = $4"
)
APPENDED_TYPES, APPENDED_FORMATS = (TEXT, TEXT, TEXT, INT8), (0, 0, 0, 0)

# The same NOTIFY when its payload carries the batch's lines ($5, binary; $6 how many): sent only if the
# encounter holds exactly those lines at the versions before the tip. The tip alone is not enough: a
# writer whose batch was refused (another's took those versions first) would tell lines that were never
# committed, at versions that hold the other's.
APPENDED_LINES = (
    "SELECT pg_notify($1, $2), set_config('synchronous_commit', 'off', true) FROM {s}.encounters"
    " WHERE encounter = $3 AND version = $4 AND (SELECT array_agg(line ORDER BY version) FROM {s}.events"
    " WHERE encounter = $3 AND version > $4 - $6 AND version <= $4) = $5"
)
APPENDED_LINES_TYPES, APPENDED_LINES_FORMATS = (TEXT, TEXT, TEXT, INT8, BYTEA_ARRAY, INT8), (0, 0, 0, 0, 1, 0)
# PostgreSQL refuses a NOTIFY payload of this many bytes or more (in the server's encoding; its default
# build): a batch whose payload would not fit is told by its version alone, and read from the database.
NOTIFY_BYTES = 8000
# "0": a NOTIFY carries the version alone, and a worker reads every move back (as before issue 40's change):
# for a database where roles you don't trust can connect (any of them may NOTIFY), or to compare.
NOTIFY_LINES_ENV = "TABLETRAIL_NOTIFY_LINES"


def lines_ride() -> bool:
    """Do NOTIFYs carry the lines of a batch in this process (NOTIFY_LINES_ENV: unset or "1" yes, "0" no)?"""
    said = os.environ.get(NOTIFY_LINES_ENV, "").strip()
    if said not in ("", "0", "1"):
        raise InputError(f"{NOTIFY_LINES_ENV}={said!r}: expected 1 (lines ride the NOTIFY, the default) or 0")
    return said != "0"


# The encounter's tip ($1) and its lines after version $2 up to $3 (or the tip, if lower), in one
# statement: one row (tip, NULL) when none is new, none when the encounter is missing (see `read`).
READ_FROM = """SELECT e.version, v.line FROM {s}.encounters e
    LEFT JOIN {s}.events v
        ON v.encounter = e.encounter AND v.version > %s AND v.version <= least(e.version, %s)
    WHERE e.encounter = %s ORDER BY v.version"""

# A refused command's line ($2, binary) kept in the side table after the encounter's ($1) last one.
# Two writers noting a refusal at once read the same last one: the second to commit collides on the
# key and is run again, up to REFUSE_TRIES times (each try sees the other's row), so none is lost.
REFUSE = """INSERT INTO {s}.refused (encounter, n, line)
    SELECT $1, coalesce(max(n), 0) + 1, $2 FROM {s}.refused WHERE encounter = $1"""
REFUSE_TRIES = 5

# The table view's invitation links (app/web/invites.py), hashed, kept with the encounter.
INVITES = """CREATE TABLE IF NOT EXISTS {s}.invites (
    encounter TEXT NOT NULL, id TEXT NOT NULL, line BYTEA NOT NULL, n BIGSERIAL,
    PRIMARY KEY (encounter, id))"""

TABLES = (
    """CREATE TABLE IF NOT EXISTS store_format (
        one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one), format INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS encounters (
        encounter TEXT PRIMARY KEY, version BIGINT NOT NULL, created TIMESTAMPTZ NOT NULL DEFAULT now())""",
    """CREATE TABLE IF NOT EXISTS events (
        encounter TEXT NOT NULL, version BIGINT NOT NULL, batch BIGINT NOT NULL, line BYTEA NOT NULL,
        PRIMARY KEY (encounter, version))""",
    """CREATE TABLE IF NOT EXISTS batches (
        encounter TEXT NOT NULL, batch BIGINT NOT NULL, first BIGINT NOT NULL, last BIGINT NOT NULL,
        command_id TEXT, PRIMARY KEY (encounter, batch))""",
    """CREATE UNIQUE INDEX IF NOT EXISTS batches_command ON batches (encounter, command_id)
        WHERE command_id IS NOT NULL""",
    """CREATE TABLE IF NOT EXISTS refused (
        encounter TEXT NOT NULL, n BIGINT NOT NULL, line BYTEA NOT NULL, PRIMARY KEY (encounter, n))""",
    """CREATE TABLE IF NOT EXISTS snapshots (
        encounter TEXT NOT NULL, version BIGINT NOT NULL, format INTEGER NOT NULL, data BYTEA NOT NULL,
        PRIMARY KEY (encounter, version, format))""",
    """CREATE TABLE IF NOT EXISTS meta (
        encounter TEXT NOT NULL, key TEXT NOT NULL, value TEXT, PRIMARY KEY (encounter, key))""",
    INVITES,
)


class Location(msgspec.Struct, frozen=True):
    """A URL taken apart: what libpq connects to, our schema, the encounter, and a printable name."""

    conninfo: str
    schema: str
    encounter: str | None
    shown: str  # the URL as given, password masked


def parse_url(url: str, encounter: str | None = None) -> Location:
    """Split a postgresql:// URL into libpq's part and ours; refuse what can't be right, naming it."""
    shown = masked(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError as exc:
        raise InputError(f"{shown}: not a PostgreSQL URL ({exc})") from None
    if parts.scheme.lower() not in SCHEMES:
        raise InputError(f"{shown}: not a PostgreSQL URL (it must start with postgresql://)")
    if parts.fragment:
        raise InputError(f"{shown}: a PostgreSQL URL has no #fragment")
    params = parse_qsl(parts.query, keep_blank_values=True)
    ours = {k: v for k, v in params if k in ("encounter", "schema")}
    rest = [(k, v) for k, v in params if k not in ("encounter", "schema")]
    if not any(k == "connect_timeout" for k, _ in rest):
        rest.append(("connect_timeout", str(CONNECT_TIMEOUT)))
    name = encounter if encounter is not None else ours.get("encounter")
    if name is not None and not NAME.fullmatch(name):
        raise InputError(
            f"{shown}: encounter {name!r}: a name is letters, digits, - and _ (up to 100, "
            "starting with a letter or digit)"
        )
    schema = ours.get("schema", DEFAULT_SCHEMA)
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", schema):
        raise InputError(f"{shown}: schema {schema!r}: lower-case letters, digits and _ only")
    conninfo = urlunsplit(parts._replace(scheme="postgresql", query=urlencode(rest)))
    if encounter is not None and ours.get("encounter") is None:
        shown = f"{shown}{'&' if parts.query else '?'}encounter={encounter}"
    return Location(conninfo, schema, name, shown)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0].strip()


class Database:
    """A few connections to one database, shared by the stores of a process and its threads.

    A web worker serving 200 encounters holds at most SIZE connections, not 200.
    A thread takes one for a whole `holding()` (a transaction never spans two), a
    nested `holding()` in the same thread keeps the one it has, and a thread that
    finds all SIZE in use waits for one. More than one, because a live page's reads
    are round trips, not CPU: one connection made every page and every command of
    the worker queue behind one another's round trips (benchmarks/load_tables.py).
    Writes (`holding(write=True)`) hold at most WRITERS of them at once, so a read
    always finds one a commit can't take: a commit holds its connection until its
    WAL is on disk, and when the disk stalls a worker's commits pile up; the reads
    that tell every page of the other tables their moves must not wait behind them.
    A broken connection (the server restarted) is dropped with every idle one, and
    made again at the next use.
    """

    # Connections a process keeps to one database. A command holds one until its commit is on disk, and a
    # loaded disk makes that tens of ms: with 4, a worker's board reads queued behind the commits (issue
    # 40, 500 tables: a fifth of the takings waited). With 8 shared, a WAL stall of a second (50 commands/s)
    # took all 8 and every read waited behind them; now commits hold at most WRITERS and reads the rest.
    # 12 a worker (4 workers, their listeners: 52) stays well inside max_connections (100).
    SIZE = 12
    WRITERS = 8
    # "SIZE/WRITERS" (e.g. 8/8, as before the cap) for a host whose max_connections is tight, or to compare
    # (benchmarks/load_tables.py --server-env): every process's shared pool takes it.
    ENV = "TABLETRAIL_PG_POOL"
    _open: dict[tuple[int, str], Database] = {}
    _made = threading.Lock()

    def __init__(self, conninfo: str, size: int = SIZE, writers: int = WRITERS) -> None:
        self.conninfo = conninfo
        self.size = size
        self.writers = min(writers, size)
        self.pool = threading.Condition()
        self.idle: list[psycopg.Connection] = []
        self.out = 0  # connections held by threads now
        self.writing = 0  # ... of which held for writes
        self.generation = 0  # moved on by close(): a connection held across it is closed when given back
        self.mine = threading.local()  # this thread's connection, how deep its holding() is, its generation
        # (schema, HAS_TABLES or HAS_INVITES): tables found (or made) on this database; a tuple, never glued
        self.checked: set[tuple[str, str]] = set()
        self.taken = 0  # holdings begun, of which `waits` found every connection out, for `waited` s in all
        self.waits = 0
        self.waited = 0.0
        self.read_taken = 0  # ... the same counts for reads alone (load_tables.py: do reads wait on commits?)
        self.read_waits = 0
        self.read_waited = 0.0

    @classmethod
    def shared(cls, conninfo: str) -> Database:
        """This process's connections to the database (a forked child makes its own)."""
        key = (os.getpid(), conninfo)
        with cls._made:
            db = cls._open.get(key)
            if db is None:
                db = cls._open[key] = Database(conninfo, *cls.sizes())
            return db

    @classmethod
    def sizes(cls) -> tuple[int, int]:
        """(SIZE, WRITERS), or what TABLETRAIL_PG_POOL says ("12/8"; "12" alone keeps WRITERS)."""
        said = os.environ.get(cls.ENV, "").strip()
        if not said:
            return cls.SIZE, cls.WRITERS
        size, _, writers = said.partition("/")
        try:
            return max(1, int(size)), max(1, int(writers)) if writers else cls.WRITERS
        except ValueError:
            raise InputError(f"{cls.ENV}={said!r}: expected SIZE or SIZE/WRITERS, whole numbers") from None

    @property
    def conn(self) -> psycopg.Connection | None:
        """The connection this thread holds (None before its first use in this holding)."""
        return getattr(self.mine, "conn", None)

    def _full(self, write: bool) -> bool:
        """No connection for this holding now: every one is out, or (a write) WRITERS are writing."""
        return (not self.idle and self.out >= self.size) or (write and self.writing >= self.writers)

    @contextmanager
    def holding(self, write: bool = False) -> Iterator[None]:
        """A connection for this thread until the block ends (taken at `connect()`). A nested holding keeps
        the outer one's connection, whichever it was taken for."""
        depth = getattr(self.mine, "depth", 0)
        if depth:
            self.mine.depth = depth + 1
            try:
                yield
            finally:
                self.mine.depth = depth
            return
        with self.pool:
            self.taken += 1
            self.read_taken += not write
            if self._full(write):
                began = time.perf_counter()
                while self._full(write):
                    self.pool.wait()
                waited = time.perf_counter() - began
                self.waits += 1  # counted for benchmarks/load_tables.py: is the pool what a request waits on?
                self.waited += waited
                if not write:
                    self.read_waits += 1
                    self.read_waited += waited
            self.out += 1
            self.writing += write
            self.mine.conn = self.idle.pop() if self.idle else None
            self.mine.generation = self.generation
        self.mine.depth = 1
        try:
            yield
        finally:
            conn, self.mine.conn, self.mine.depth = self.conn, None, 0
            with self.pool:
                self.out -= 1
                self.writing -= write
                keep = conn is not None and not conn.closed and not conn.broken
                if conn is not None and keep and self.mine.generation == self.generation:
                    self.idle.append(conn)
                    conn = None
                # Every waiter looks again: the first in line may be a write still held back by WRITERS
                # while a read behind it could take the connection just given back.
                self.pool.notify_all()
            _close(conn)

    def connect(self) -> psycopg.Connection:
        conn = self.conn
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        self.drop()
        try:
            fresh = psycopg.connect(self.conninfo, autocommit=True)
        except psycopg.OperationalError as exc:
            raise Unavailable(f"cannot reach the PostgreSQL server ({_first_line(exc)})") from None
        except psycopg.ProgrammingError as exc:  # a malformed conninfo
            raise InputError(f"not a usable PostgreSQL URL ({_first_line(exc)})") from None
        self.mine.conn = fresh
        return fresh

    def drop(self) -> None:
        """Close this thread's connection, and the idle ones: the server they reach may be gone too."""
        _close(self.conn)
        self.mine.conn = None
        with self.pool:
            idle, self.idle = self.idle, []
        for conn in idle:
            _close(conn)
        self.checked.clear()

    def close(self) -> None:
        """Close every connection (one held by another thread as soon as it is given back)."""
        with self.pool:
            self.generation += 1
        self.drop()


def _close(conn: psycopg.Connection | None) -> None:
    if conn is not None:
        with contextlib.suppress(Exception):  # closing a dead connection may fail; it is gone anyway
            conn.close()


_PREPARED: weakref.WeakKeyDictionary[psycopg.Connection, dict[bytes, bytes]] = weakref.WeakKeyDictionary()
_NAMES = itertools.count(1)  # a prepared statement's name is never used twice in a process


class Prepared(NamedTuple):
    """A statement to run prepared, with its parameters as the bytes libpq sends."""

    query: bytes
    types: Sequence[int]
    params: Sequence[bytes | None]
    formats: Sequence[int]


def run_prepared(conn: psycopg.Connection, statement: Prepared) -> pq.abc.PGresult:
    """Run a statement prepared once per connection; its error is raised.

    For the statements every command runs (APPEND, REFUSE): psycopg's execute adapts
    each parameter, finds the statement in its own cache and builds a cursor,
    about as much CPU as the rest of the append on the client.
    """
    [outcome] = run_pipelined(conn, [statement])
    if isinstance(outcome, psycopg.Error):
        raise outcome
    return outcome


def run_pipelined(
    conn: psycopg.Connection, statements: Sequence[Prepared]
) -> list[pq.abc.PGresult | psycopg.Error]:
    """Run statements prepared once per connection, each its own transaction, all in one round trip.

    Each statement's result or error is returned in order: one failing does not
    stop the next (libpq's pipeline mode, a sync after each). A statement the
    server forgot (a pooler's DISCARD ALL, a DEALLOCATE) did not run: it is
    prepared again and run again.
    """
    names = _PREPARED.setdefault(conn, {})
    outcomes: list[pq.abc.PGresult | psycopg.Error | None] = [None] * len(statements)
    todo = list(range(len(statements)))
    with conn.lock:
        for attempt in (1, 2):
            for i in todo:
                if statements[i].query not in names:
                    name = f"tabletrail_{next(_NAMES)}".encode()
                    conn.pgconn.send_prepare(name, statements[i].query, param_types=statements[i].types)
                    _raised(conn, _result(conn))
                    names[statements[i].query] = name
            for i, outcome in zip(todo, _sent(conn, [statements[i] for i in todo], names), strict=True):
                outcomes[i] = outcome
            forgotten = [i for i in todo if isinstance(outcomes[i], pg_errors.InvalidSqlStatementName)]
            if not forgotten or attempt == 2:
                break
            for i in forgotten:
                names.pop(statements[i].query, None)
            todo = forgotten
    return [o for o in outcomes if o is not None]


def _sent(
    conn: psycopg.Connection, statements: Sequence[Prepared], names: dict[bytes, bytes]
) -> list[pq.abc.PGresult | psycopg.Error]:
    """The statements sent at once (one flush), each its own transaction; their outcomes in order."""
    pgconn = conn.pgconn
    if len(statements) == 1:
        [one] = statements
        pgconn.send_query_prepared(names[one.query], one.params, param_formats=one.formats)
        return [_raised(conn, _result(conn), keep=True)]
    pgconn.enter_pipeline_mode()
    try:
        for one in statements:
            pgconn.send_query_prepared(names[one.query], one.params, param_formats=one.formats)
            pgconn.pipeline_sync()
        results = conn.wait(_pipeline_results(pgconn, len(statements)))
    except BaseException:
        conn.close()  # results may be left unread in pipeline mode: this connection can't be used again
        raise
    pgconn.exit_pipeline_mode()
    return [_raised(conn, result, keep=True) for result in results]


def _pipeline_results(
    pgconn: pq.abc.PGconn, syncs: int
) -> Generator[Wait, Ready | int, list[pq.abc.PGresult]]:
    """Send what is queued, then each statement's result until the `syncs`-th sync, read as it comes
    (one wait for the lot, where a wait per result and per sync cost a system call each)."""
    while pgconn.flush():
        if (yield Wait.RW) & Ready.R:
            pgconn.consume_input()
    results: list[pq.abc.PGresult] = []
    while syncs:
        while pgconn.is_busy():
            yield Wait.R
            pgconn.consume_input()
        result = pgconn.get_result()
        if result is None:  # the end of one statement's results
            continue
        if result.status == pq.ExecStatus.PIPELINE_SYNC:
            syncs -= 1
        else:
            results.append(result)
    return results


def _result(conn: psycopg.Connection) -> pq.abc.PGresult:
    # psycopg picks its C or Python `execute` at import, so its type is not known statically
    results: list[pq.abc.PGresult] = conn.wait(execute(conn.pgconn))
    return results[-1]


@overload
def _raised(
    conn: psycopg.Connection, result: pq.abc.PGresult, keep: Literal[False] = False
) -> pq.abc.PGresult: ...


@overload
def _raised(
    conn: psycopg.Connection, result: pq.abc.PGresult, keep: Literal[True]
) -> pq.abc.PGresult | psycopg.Error: ...


def _raised(
    conn: psycopg.Connection, result: pq.abc.PGresult, keep: bool = False
) -> pq.abc.PGresult | psycopg.Error:
    """The result, or its error raised (`keep`: returned)."""
    if result.status in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
        return result
    error = pg_errors.error_from_result(result, encoding=conn.info.encoding)
    if keep:
        return error
    raise error


def _utf8(conn: psycopg.Connection) -> bool:
    """Does the server keep text as UTF-8 (so a NOTIFY carries any line as it is)?"""
    return conn.pgconn.parameter_status(b"server_encoding") == b"UTF8"


def _sent_as(param: str | bytes | None) -> bytes | None:
    return param.encode() if isinstance(param, str) else param


def bytea_array(items: Sequence[bytes]) -> bytes:
    """A one-dimensional bytea[] in PostgreSQL's binary form: a header, then each item's length and bytes."""
    head = struct.pack("!5i", 1, 0, BYTEA, len(items), 1)  # dimensions, has nulls, element type, length, base
    return head + b"".join(struct.pack("!i", len(item)) + item for item in items)


class HeardLines(Protocol):
    """What a listener heard of one encounter's lines (app/web/live.py), as its store asks for them."""

    def after(self, start: int, known: int) -> list[bytes] | None:
        """The lines after version `start`, up to at least `known` (the newest version the store read or
        wrote) and whatever was heard; None when they can't be told so (the store reads the database)."""

    def untrue(self) -> None:
        """The database holds fewer lines than were folded: forget what was heard."""


class Notice(NamedTuple):
    """A NOTIFY on CHANNEL taken apart: whose encounter, what changed (a version, or INVITES_CHANGED), and
    the lines of the batch that moved it to that version, when they came with it (else None)."""

    schema: str
    encounter: str
    what: str
    lines: tuple[bytes, ...] | None


def notice_text(schema: str, encounter: str, tip: int, lines: Sequence[bytes], utf8: bool = True) -> str:
    """The NOTIFY payload of a batch that moved the encounter to `tip`: with the batch's lines when they fit.

    They ride only if each is one line of text PostgreSQL can carry unchanged: UTF-8 without NUL or
    newline (a log's lines are; an imported one may not be), ASCII when the server's encoding is
    not UTF-8 (`utf8`), and the whole payload under NOTIFY_BYTES."""
    plain = f"{schema}\t{encounter}\t{tip}"  # names are ASCII (NAME, parse_url's schema)
    if not lines or len(plain) + sum(len(line) + 1 for line in lines) >= NOTIFY_BYTES:
        return plain
    texts = []
    for line in lines:
        if b"\n" in line or b"\0" in line or (not utf8 and not line.isascii()):
            return plain
        try:
            texts.append(bytes(line).decode())
        except UnicodeDecodeError:
            return plain
    return f"{plain}\t" + "\n".join(texts)


def read_notice(payload: str) -> Notice:
    """A NOTIFY payload taken apart (see `notice_text`); missing parts are empty."""
    parts = payload.split("\t", 3)
    schema, encounter, what = [*parts, "", ""][:3]
    lines = tuple(text.encode() for text in parts[3].split("\n")) if len(parts) == 4 else None
    return Notice(schema, encounter, what, lines)


class PostgresStore(DatabaseReads):
    """An encounter in a PostgreSQL database: versioned appends, command ids, snapshots, NOTIFY on commit."""

    versioned = True

    def __init__(
        self,
        url: str,
        *,
        encounter: str | None = None,
        snapshot_every: int | None = None,
        warn: Warn | None = None,
        private: bool = False,
    ) -> None:
        if psycopg is None:
            raise InputError(
                f"{masked(url)}: PostgreSQL logs need the postgres extra: pip install 'tabletrail[postgres]'"
            )
        self.url = url
        self.where = parse_url(url, encounter)
        if self.where.encounter is None:
            raise InputError(
                f"{self.where.shown}: which encounter? add ?encounter=NAME to the URL "
                "(`tabletrail encounters URL` lists them)"
            )
        self.encounter: str = self.where.encounter
        self.schema = self.where.schema
        self.name = self.where.shown
        self.warn = warn
        self._snapshot_every = snapshot_every
        # private: a connection of its own (a second device in tests; a benchmark's client)
        self.db = Database(self.where.conninfo) if private else Database.shared(self.where.conninfo)
        self._reads: dict[str, tuple[int, Any]] = {}  # what `_shared` read last: key -> (began, value)
        # The lines a listener heard in NOTIFYs (a hosted worker's, app/web/live.py): given a version and the
        # newest one this store knows the encounter reached, the lines after it up to at least that one, or
        # None when it can't tell them (`read` then asks the database).
        self.heard_lines: HeardLines | None = None
        self._known = 0  # the newest version this store read, or wrote, or was told by the database
        self._knowing = threading.Lock()
        self._ride = lines_ride()

    # --- the connection ----------------------------------------------------------

    def _q(self, text: str) -> bytes:
        """A statement on this store's schema: {s} stands for the quoted schema name.

        Composed once per schema and kept as bytes: psycopg then finds its converted
        (and, after a few uses, prepared) form by those bytes, with no composing per call.
        """
        key = (self.schema, text)
        query = _COMPOSED.get(key)
        if query is None:
            query = _COMPOSED[key] = sql.SQL(text).format(s=sql.Identifier(self.schema)).as_bytes(None)
        return query

    def _one(self, doing: str, query: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
        return self._read(doing, lambda conn: conn.execute(self._q(query), params).fetchone())

    def _all(self, doing: str, query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        return self._read(doing, lambda conn: conn.execute(self._q(query), params).fetchall())

    def _read(self, doing: str, read: Callable[[psycopg.Connection], _T]) -> _T:
        """`read` on a connection; tried once more, on a new one, if the first was found dropped.

        A pooled connection the server ended (a restart, a failover, a pooler recycling it) is found
        broken only when used: the user's request should not be the one that pays for finding it. A
        read changes nothing, so it is simply asked again; a server really down fails twice, quickly
        (nothing answers the new connection), and says so."""
        try:
            with self._conn(doing) as conn:
                return read(conn)
        except Unavailable:
            with self._conn(doing) as conn:
                return read(conn)

    @contextmanager
    def _conn(
        self, doing: str, create: bool = False, check: bool = True, write: bool = False
    ) -> Iterator[psycopg.Connection]:
        """The connection, its tables checked, with PostgreSQL's errors turned into one-line InputErrors.
        `write`: it is held for a transaction that commits (`Database.holding`)."""
        with self.db.holding(write or create):
            try:
                try:
                    conn = self.db.connect()
                except InputError as exc:  # the connection is shared: the store names itself
                    raise type(exc)(f"{self.name}: {exc}") from None
                if check and (self.schema, HAS_TABLES) not in self.db.checked:
                    self._migrate(conn) if create else self._check_tables(conn)
                    self.db.checked.add((self.schema, HAS_TABLES))
                yield conn
            except psycopg.OperationalError as exc:
                broken = self.db.conn is None or self.db.conn.broken or self.db.conn.closed
                self.db.drop()
                if broken or isinstance(exc, pg_errors.AdminShutdown | pg_errors.CannotConnectNow):
                    raise Unavailable(
                        f"{self.name}: {doing}: the PostgreSQL server is unreachable ({_first_line(exc)}); "
                        "nothing was changed: try again when it is back"
                    ) from None
                raise InputError(f"{self.name}: {doing}: {_first_line(exc)}") from None
            except pg_errors.UndefinedTable:
                self.db.checked.discard((self.schema, HAS_TABLES))
                self.db.checked.discard((self.schema, HAS_INVITES))
                raise InputError(
                    f"{self.name}: {doing}: the database has no tabletrail tables in schema "
                    f"{self.schema!r} (they were dropped?); nothing was changed"
                ) from None
            except pg_errors.InsufficientPrivilege as exc:
                raise InputError(
                    f"{self.name}: {doing}: permission denied ({_first_line(exc)}); nothing was changed"
                ) from None
            except psycopg.Error as exc:
                if isinstance(exc, psycopg.InterfaceError) or self.db.conn is None or self.db.conn.broken:
                    self.db.drop()
                    raise Unavailable(
                        f"{self.name}: {doing}: the connection to the PostgreSQL server was lost "
                        f"({_first_line(exc)}); nothing was changed: try again"
                    ) from None
                raise InputError(f"{self.name}: {doing}: {_first_line(exc)}") from None

    def _check_tables(self, conn: psycopg.Connection) -> None:
        """An existing store: the tables are there, and not from a newer tabletrail."""
        row = conn.execute(
            "SELECT to_regclass(%s), to_regclass(%s)",
            (f'"{self.schema}".store_format', f'"{self.schema}".events'),
        ).fetchone()
        if row is None or row[0] is None or row[1] is None:
            raise InputError(
                f"{self.name}: the database has no tabletrail tables (schema {self.schema!r}): "
                "start an encounter there with `tabletrail new SCENARIO --log URL`"
            )
        version = conn.execute(self._q("SELECT format FROM {s}.store_format")).fetchone()
        if version is not None and version[0] > FORMAT:
            raise InputError(
                f"{self.name}: written by a newer tabletrail (store format {version[0]}; this version reads "
                f"up to {FORMAT}): upgrade tabletrail to open it"
            )

    def _migrate(self, conn: psycopg.Connection) -> None:
        """Make the schema and tables if missing: idempotent, and safe when two processes do it at once."""
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"tabletrail:{self.schema}",))
            conn.execute(self._q("CREATE SCHEMA IF NOT EXISTS {s}"))
            conn.execute(self._q("SET LOCAL search_path TO {s}"))
            for statement in TABLES:
                conn.execute(self._q(statement))
            conn.execute(
                "INSERT INTO store_format (format) VALUES (%s) ON CONFLICT (one) DO NOTHING", (FORMAT,)
            )
        self._check_tables(conn)

    def close(self) -> None:
        """Let go of the connection (a shared one is made again by the next store that needs it)."""
        self.db.close()

    def exists(self) -> bool:
        """Is this encounter in the database? (False too when the tables are missing.)"""
        try:
            return self._head() is not None
        except Unavailable:
            raise
        except InputError:
            return False

    # --- reading ---------------------------------------------------------------

    def _shared(self, key: str, doing: str, read: Callable[[psycopg.Connection], _T]) -> _T:
        """A read that threads asking at the same time share, never one older than the caller.

        A process has a few connections (`Database`), so when six live pages of a
        table wake at one change, their reads queue for them. A caller is handed the
        result of a read that BEGAN after it asked (so it sees every commit a read of
        its own would); only if none did does it run the query itself.
        """
        asked = next(_TICKS)

        def shared(conn: psycopg.Connection) -> _T:
            began, value = self._reads.get(key, (-1, None))
            if began > asked:
                return value  # type: ignore[no-any-return]  # what `read` answered for this key before
            began = next(_TICKS)
            value = read(conn)
            self._reads[key] = (began, value)
            return value

        return self._read(doing, shared)

    def _head(self) -> int | None:
        def read(conn: psycopg.Connection) -> int | None:
            row = conn.execute(
                self._q("SELECT version FROM {s}.encounters WHERE encounter = %s"), (self.encounter,)
            ).fetchone()
            return row[0] if row else None

        head = self._shared("head", "reading", read)
        if head is not None:
            self._knew(head)
        return head

    def _knew(self, version: int) -> None:
        """The encounter reached `version`: a read of what was heard must reach it too (`heard_lines`)."""
        with self._knowing:
            self._known = max(self._known, version)

    def _missing(self) -> InputError:
        return InputError(
            f"{self.name}: no encounter {self.encounter!r} in this database "
            f"(`tabletrail encounters {masked(self.url)}` lists them)"
        )

    def read(self, start: int = 0, stop: int | None = None) -> Iterator[bytes]:
        """The lines with versions after `start` (and up to `stop`), oldest first, up to the tip read now.

        With `heard_lines` (a hosted worker's listener), the lines after `start` come from the NOTIFYs
        that carried them when they reach every version this store and that listener know of: the tip
        as of the newest NOTIFY, which a commit whose NOTIFY is on its way may have passed (a write is
        decided on the version it saw, and refused if the log moved on).

        The tip and the first window of lines come in one statement: a worker folding in a move
        (Table.live, after every move of every table it has pages of) asked for the tip, then for the
        line, two round trips where one does (issue 40)."""
        if stop is None and start > 0 and self.heard_lines is not None:
            heard = self.heard_lines.after(start, self._known)
            if heard is not None:  # the NOTIFYs carried them: no round trip
                return iter(heard)
        first = start + WINDOW[0] if stop is None else min(stop, start + WINDOW[0])

        def read(conn: psycopg.Connection) -> list[tuple[int, bytes | None]]:
            cur = conn.cursor(binary=True)
            return cur.execute(self._q(READ_FROM), (start, first, self.encounter)).fetchall()

        rows = self._read("reading", read)
        if not rows:  # fail now, not at the first line
            raise self._missing()
        head = int(rows[0][0])
        self._knew(head)
        if stop is None and head < start and self.heard_lines is not None:
            # A hosted worker's reader holds lines the log does not: a forged NOTIFY's (any role that can
            # connect may NOTIFY), or a database restored to an earlier time. It reads it all again. (A read
            # past the tip is empty otherwise, as every store's is.)
            self.heard_lines.untrue()
            raise InputError(
                f"{self.name}: the log holds {head} events, fewer than the {start} already read: "
                "it must be read again from the start"
            )
        end = head if stop is None else min(stop, head)
        lines = [bytes(line) for _, line in rows if line is not None]
        if start == 0 and lines:
            self._saw_first(lines[0])
        if first >= end:
            return iter(lines)
        return itertools.chain(lines, self._windows(first, end, WINDOW[0] * 2))

    def _windows(self, start: int, end: int, width: int = WINDOW[0]) -> Iterator[bytes]:
        """The lines of versions (start, end], a window of versions a query, in binary.

        A window bounds the versions, not the row count (no LIMIT): a freshly
        imported table has no statistics yet, and PostgreSQL then planned
        `ORDER BY version LIMIT n` as a scan and sort of every later row, page
        after page (a 1,000,000-event fold took 45 s). Binary results hand over
        each line's bytes as they are, with no hex to undo. The first window is
        small (a reader of one line asks for little); each next one is twice
        as wide, up to WINDOW[1].
        """
        low = start
        while low < end:
            high = min(low + width, end)
            rows = self._lines(low, high)
            if low == 0 and rows:
                self._saw_first(rows[0])
            yield from rows
            low, width = high, min(2 * width, WINDOW[1])

    def _lines(self, low: int, high: int) -> list[bytes]:
        def read(conn: psycopg.Connection) -> list[bytes]:
            cur = conn.cursor(binary=True, row_factory=scalar_row)
            return cur.execute(
                self._q(
                    "SELECT line FROM {s}.events WHERE encounter = %s AND version > %s AND version <= %s "
                    "ORDER BY version"
                ),
                (self.encounter, low, high),
            ).fetchall()

        return self._read("reading", read)

    def version(self) -> int:
        """How many records the encounter holds (its tip)."""
        head = self._head()
        if head is None:
            raise self._missing()
        return head

    # --- writing ---------------------------------------------------------------

    def append(self, lines: Sequence[bytes], *, expected: int | None = None) -> None:
        """Append in one transaction, only if the encounter is still at version `expected`.

        A command's batch (the usual append) is one statement, so one round trip;
        several batches or a long one (an import) take a transaction of a few.
        """
        if not lines:
            return
        records, batches, expected = self._planned(lines, expected)

        def write() -> None:
            with self._conn("appending", write=True) as conn:
                if len(batches) == 1 and len(records) <= COPY_FROM:
                    self._append(conn, records, lines, batches, expected)
                else:
                    self._write(conn, records, lines, batches, expected)

        try:
            write()
        except Unavailable:
            # A dropped connection may have taken the batch in before it broke: the write is tried again
            # only when every batch carries its command id. Then a batch already in is a conflict (the
            # tip moved, or the id is taken) that the caller resolves by finding its command id.
            if not all(command_id is not None for _, _, command_id in batches.values()):
                raise
            write()

    def _append(
        self,
        conn: psycopg.Connection,
        records: list[Record],
        lines: Sequence[bytes],
        batches: Spans,
        expected: int,
    ) -> None:
        """One batch as ONE statement (its own transaction: autocommit), so one round trip.

        The tip moves only from `expected`; the rows are inserted only if it did
        (they select from the tip's RETURNING), and so is the NOTIFY. A stale
        writer inserts nothing and is told the tip it should have seen.
        """
        tip = expected + len(records)
        [(batch, (_, _, command_id))] = batches.items()
        key = self._tip_key(records, lines)  # a keyed log's tip is keyed (events/stores/db_store.py)
        params = (
            self.encounter,
            str(expected),
            str(tip),
            str(batch),
            bytea_array([bytes(line) for line in lines]),
            command_id,
            tip_text(tip, lines[-1], key),  # the tip kept outside the log (see `kept_tip`)
        )
        payload = notice_text(self.schema, self.encounter, tip, lines if self._ride else (), _utf8(conn))
        told = [p.encode() for p in (CHANNEL, payload, self.encounter, str(tip))]
        if payload.count("\t") == 2:  # the version alone
            notify = Prepared(self._q(APPENDED), APPENDED_TYPES, told, APPENDED_FORMATS)
        else:  # ... and the lines, sent again to be checked against the rows (see APPENDED_LINES)
            told += [params[4], str(len(lines)).encode()]
            notify = Prepared(self._q(APPENDED_LINES), APPENDED_LINES_TYPES, told, APPENDED_LINES_FORMATS)
        appended, _ = run_pipelined(
            conn,
            [Prepared(self._q(APPEND), APPEND_TYPES, [_sent_as(p) for p in params], APPEND_FORMATS), notify],
        )  # a NOTIFY that failed (its queue full) leaves the batch in: pages learn of it at their next read
        if isinstance(appended, pg_errors.UniqueViolation):
            if appended.diag.constraint_name == "batches_command":
                raise DuplicateCommand(self.name, command_id or "") from None
            raise VersionConflict(self.name, expected, self._tip(conn) or 0) from None
        if isinstance(appended, psycopg.Error):
            raise appended
        inserted = appended.get_value(0, 0)
        if inserted is None or int(inserted) != len(records):
            raise self._conflict(conn, expected)
        self._knew(tip)

    def _write(
        self,
        conn: psycopg.Connection,
        records: list[Record],
        lines: Sequence[bytes],
        batches: Spans,
        expected: int,
        refused: Sequence[bytes] = (),
        every: int | None = None,
    ) -> None:
        """One transaction: move the tip, insert the rows, notify; a conflict rolls all of it back.

        `every` is given when the encounter is new: its tip row is made here (and
        must not exist yet), with its snapshot interval.
        """
        tip = expected + len(records)
        key = self._tip_key(records, lines)  # a keyed log's tip is keyed (events/stores/db_store.py)
        try:
            with conn.transaction(), conn.cursor() as cur:
                if every is not None:
                    self._start(cur, tip, every, refused)
                elif not cur.execute(
                    self._q("UPDATE {s}.encounters SET version = %s WHERE encounter = %s AND version = %s"),
                    (tip, self.encounter, expected),
                ).rowcount:
                    raise self._conflict(conn, expected)
                self._events(cur, records, lines)
                self._batches(cur, batches)
                cur.execute(  # the tip kept outside the log, in the same transaction (see `kept_tip`)
                    self._q(
                        "INSERT INTO {s}.meta (encounter, key, value) VALUES (%s, 'tip', %s) "
                        "ON CONFLICT (encounter, key) DO UPDATE SET value = excluded.value"
                    ),
                    (self.encounter, tip_text(tip, lines[-1], key)),
                )
                cur.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{self.schema}\t{self.encounter}\t{tip}"))
        except pg_errors.UniqueViolation:  # the (encounter, version) key: a writer that skipped the tip
            raise VersionConflict(self.name, expected, self._tip(conn) or 0) from None

    def _events(self, cur: psycopg.Cursor, records: list[Record], lines: Sequence[bytes]) -> None:
        """One row per record, the line's exact bytes; an import (many rows) goes by COPY, much faster."""
        rows = [(self.encounter, r.seq, r.batch, bytes(b)) for r, b in zip(records, lines, strict=True)]
        if len(rows) <= COPY_FROM:
            cur.executemany(
                self._q("INSERT INTO {s}.events (encounter, version, batch, line) VALUES (%s, %s, %s, %s)"),
                rows,
            )
            return
        with cur.copy(self._q("COPY {s}.events (encounter, version, batch, line) FROM STDIN")) as copy:
            for row in rows:
                copy.write_row(row)

    def _start(self, cur: psycopg.Cursor, tip: int, every: int, refused: Sequence[bytes]) -> None:
        """A new encounter's tip row, refusals and snapshot interval (inside the creating transaction)."""
        made = cur.execute(
            self._q(
                "INSERT INTO {s}.encounters (encounter, version) VALUES (%s, %s) "
                "ON CONFLICT (encounter) DO NOTHING"
            ),
            (self.encounter, tip),
        ).rowcount
        if not made:
            raise InputError(
                f"{self.name}: a log already exists here (encounter {self.encounter!r}); pick another name"
            )
        cur.executemany(
            self._q("INSERT INTO {s}.refused (encounter, n, line) VALUES (%s, %s, %s)"),
            [(self.encounter, n, bytes(line)) for n, line in enumerate(refused, start=1)],
        )
        cur.execute(
            self._q("INSERT INTO {s}.meta (encounter, key, value) VALUES (%s, 'snapshot_every', %s)"),
            (self.encounter, str(every)),
        )

    def _batches(self, cur: psycopg.Cursor, batches: Spans) -> None:
        """Where each batch sits; a command id the encounter holds already is a DuplicateCommand."""
        try:
            cur.executemany(
                self._q(
                    "INSERT INTO {s}.batches AS b (encounter, batch, first, last, command_id) "
                    "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (encounter, batch) DO UPDATE SET "
                    "last = excluded.last, command_id = coalesce(b.command_id, excluded.command_id)"
                ),
                [(self.encounter, n, lo, hi, cid) for n, (lo, hi, cid) in batches.items()],
            )
        except pg_errors.UniqueViolation:
            ids = [cid for _, _, cid in batches.values() if cid is not None]
            raise DuplicateCommand(self.name, (ids or [""])[0]) from None

    def _conflict(self, conn: psycopg.Connection, expected: int) -> InputError:
        actual = self._tip(conn)
        if actual is None:
            return self._missing()
        return VersionConflict(self.name, expected, actual)

    def _tip(self, conn: psycopg.Connection) -> int | None:
        row = conn.execute(
            self._q("SELECT version FROM {s}.encounters WHERE encounter = %s"), (self.encounter,)
        ).fetchone()
        return row[0] if row else None

    def create(self, lines: Sequence[bytes], *, refused: Sequence[bytes] = ()) -> None:
        """Start the encounter in the database (tables made if missing); refuses if it already exists."""
        records, batches = batch_rows(lines, self.name)
        check_order(records, 0, self.name, "line")
        every = self._snapshot_every or DEFAULT_SNAPSHOT_EVERY
        with self._conn("creating", create=True) as conn:
            self._write(conn, records, lines, batches, 0, refused, every)

    # --- the refusal side log ----------------------------------------------------

    def note_refusal(self, refused: Refused) -> None:
        """Keep a refusal in the side table; one that cannot be written is told to `warn` (see JsonlStore)."""
        line = msgspec.json.encode(refused)
        statement = Prepared(self._q(REFUSE), (TEXT, BYTEA), (self.encounter.encode(), line), (0, 1))
        try:
            with self._conn("noting a refusal", write=True) as conn:  # one statement: its own transaction
                for tries_left in reversed(range(REFUSE_TRIES)):
                    try:
                        run_prepared(conn, statement)
                        break
                    except pg_errors.UniqueViolation:
                        # Another writer's refusal took the number ours read, committing first: the
                        # number is read again, after it.
                        if not tries_left:
                            raise
        except InputError as exc:
            if self.warn is None:
                raise
            unkept(self.warn, self.name, str(exc).removeprefix(f"{self.name}: "))

    # --- invitation links (app/web/invites.py keeps them here) ------------------------

    def _invites_table(self, conn: psycopg.Connection) -> None:
        """Make the invites table if an older store lacks it: once a connection, not at every check
        (a live page checks its link at every change; that was one round trip in three)."""
        made = (self.schema, HAS_INVITES)
        if made not in self.db.checked:
            conn.execute(self._q(INVITES))
            self.db.checked.add(made)

    def load_invites(self) -> list[bytes]:
        """The encounter's invites, oldest first (the table is made if an older store lacks it)."""

        def read(conn: psycopg.Connection) -> tuple[bytes, ...]:
            self._invites_table(conn)
            rows = conn.execute(
                self._q("SELECT line FROM {s}.invites WHERE encounter = %s ORDER BY n"), (self.encounter,)
            ).fetchall()
            return tuple(bytes(row[0]) for row in rows)

        return list(self._shared("invites", "reading invitation links", read))

    def save_invite(self, ident: str, line: bytes) -> None:
        with self._conn("keeping an invitation link", write=True) as conn:
            self._invites_table(conn)
            conn.execute(
                self._q(
                    "INSERT INTO {s}.invites (encounter, id, line) VALUES (%s, %s, %s) "
                    "ON CONFLICT (encounter, id) DO UPDATE SET line = excluded.line"
                ),
                (self.encounter, ident, line),
            )
            # Every worker keeps the links it has read; this tells them to read again (app/web/live.py).
            conn.execute(
                "SELECT pg_notify(%s, %s)", (CHANNEL, f"{self.schema}\t{self.encounter}\t{INVITES_CHANGED}")
            )

    # --- snapshots: caches of the board --------------------------------------------

    @property
    def snapshot_every(self) -> int:
        """Events between snapshots: the constructor's choice, else the encounter's setting, else 1000."""
        if self._snapshot_every is not None:
            return self._snapshot_every
        try:
            self._snapshot_every = self._kept_every()
        except Unavailable:
            raise
        except InputError:  # no tables yet: a store about to be created
            return DEFAULT_SNAPSHOT_EVERY
        return self._snapshot_every

    def save_snapshots(self, fmt: int, snapshots: Sequence[tuple[int, bytes]]) -> None:
        with self._conn("saving snapshots", write=True) as conn, conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                self._q(
                    "INSERT INTO {s}.snapshots (encounter, version, format, data) VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (encounter, version, format) DO UPDATE SET data = excluded.data"
                ),
                [(self.encounter, version, fmt, data) for version, data in snapshots],
            )

    def drop_snapshots(self) -> int:
        with self._conn("dropping snapshots", write=True) as conn, conn.transaction():
            return conn.execute(
                self._q("DELETE FROM {s}.snapshots WHERE encounter = %s"), (self.encounter,)
            ).rowcount

    def check(self) -> str:
        """The tip agrees with the rows: "ok", or what is wrong."""
        with self._conn("checking") as conn:
            row = conn.execute(
                self._q(
                    "SELECT e.version, count(v.version), coalesce(max(v.version), 0) FROM {s}.encounters e "
                    "LEFT JOIN {s}.events v USING (encounter) WHERE e.encounter = %s GROUP BY e.version"
                ),
                (self.encounter,),
            ).fetchone()
        if row is None:
            raise self._missing()
        tip, count, top = row
        if tip == count == top:
            return "ok"
        return f"the tip says {tip} events, the table holds {count} up to version {top}"


def encounters(url: str) -> list[tuple[str, int, str]]:
    """The encounters of a database: (name, events, created), by name."""
    where = parse_url(url)
    store = PostgresStore(url, encounter=where.encounter or "x")
    store.name = where.shown  # errors name the database, not an encounter
    with store._conn("listing encounters", check=False) as conn:
        found = conn.execute("SELECT to_regclass(%s)", (f'"{store.schema}".encounters',)).fetchone()
        if found is None or found[0] is None:
            return []  # no encounter was ever started in this database: there are none yet
        rows = conn.execute(
            store._q("SELECT encounter, version, created FROM {s}.encounters ORDER BY encounter")
        ).fetchall()
    return [(name, version, created.isoformat(timespec="seconds")) for name, version, created in rows]
