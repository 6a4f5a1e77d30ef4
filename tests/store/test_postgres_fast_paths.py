"""The PostgreSQL store's fast paths say exactly what the slow ones said (issue 29).

- A read goes in windows of versions, in binary (PostgresStore._windows): for any
  start and stop, inside one window, across many, past the tip, empty, with a row
  missing, it returns the very lines a plain SELECT of that range returns.
- A command's batch is one statement (PostgresStore._append): a stale writer and a
  retried command id still append nothing at all, no row in any table, no NOTIFY;
  so does an append of several batches, which takes the transaction path.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import msgspec
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support_postgres import BASE, own_schema, url
from support_store import fresh, play
from tabletrail.events.stores import postgres_store
from tabletrail.events.stores.conflicts import DuplicateCommand, VersionConflict
from tabletrail.events.stores.postgres_store import CHANNEL, PostgresStore
from tabletrail.events.stores.record import Record, decode

NAME = "fight"


@pytest.fixture(scope="module")
def played() -> Iterator[tuple[str, int]]:
    """One encounter of a few hundred lines, shared by the read tests (they only read): (URL, tip)."""
    with own_schema() as schema:
        enc = fresh(PostgresStore(url(schema, NAME)))
        play(enc, 60)
        yield url(schema, NAME), len(enc.records)


def selected(where: str, start: int, stop: int | None) -> list[bytes]:
    """The slow path: one plain SELECT of the range."""
    store = PostgresStore(where)
    with psycopg.connect(BASE, autocommit=True) as conn:
        rows = conn.execute(
            f'SELECT line FROM "{store.schema}".events WHERE encounter = %s AND version > %s '
            "AND version <= %s ORDER BY version",
            (NAME, start, 2**62 if stop is None else stop),
        ).fetchall()
    return [bytes(line) for (line,) in rows]


def read_in_windows(where: str, start: int, stop: int | None, windows: tuple[int, int]) -> list[bytes]:
    previous = postgres_store.WINDOW
    postgres_store.WINDOW = windows
    try:
        return list(PostgresStore(where, private=True).read(start, stop))
    finally:
        postgres_store.WINDOW = previous


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.data(),
    first=st.integers(1, 40),
    most=st.integers(1, 200),
)
def test_a_read_in_windows_returns_what_one_select_returns(
    played: tuple[str, int], data: st.DataObject, first: int, most: int
):
    where, tip = played
    start = data.draw(st.integers(0, tip + 3), label="start")
    stop = data.draw(st.none() | st.integers(0, tip + 3), label="stop")
    windows = (first, max(first, most))
    assert read_in_windows(where, start, stop, windows) == selected(where, start, stop)


@pytest.mark.parametrize(
    ("start", "stop"),
    [(0, None), (0, 0), (5, 5), (7, 3), (0, 1), (9, 10), (10, 30), (29, 31), ("tip", None), ("tip", 10**6)],
)
def test_window_edges_and_empty_ranges(played: tuple[str, int], start: int | str, stop: int | None):
    where, tip = played
    begin = tip if start == "tip" else int(start)
    lines = read_in_windows(where, begin, stop, (10, 20))  # windows (0,10], (10,30], (30,50]...
    assert lines == selected(where, begin, stop)
    expected = max(0, min(tip, stop if stop is not None else tip) - begin)
    assert len(lines) == expected
    assert [decode(line, "x").seq for line in lines] == list(range(begin + 1, begin + 1 + expected))


def test_a_read_of_a_log_with_a_row_missing_still_returns_every_other_row(pg_schema: str):
    """A damaged table (a row deleted by hand): the windows still cover every version up to the tip."""
    store = PostgresStore(url(pg_schema, NAME))
    play(fresh(store), 20)
    with psycopg.connect(BASE, autocommit=True) as conn:
        conn.execute(f'DELETE FROM "{pg_schema}".events WHERE encounter = %s AND version = 12', (NAME,))
    where = url(pg_schema, NAME)
    lines = read_in_windows(where, 0, None, (4, 8))
    assert lines == selected(where, 0, None)
    assert 12 not in [decode(line, "x").seq for line in lines]


def test_a_read_hands_over_bytes(played: tuple[str, int]):
    where, _ = played
    assert all(type(line) is bytes for line in PostgresStore(where).read(0, 5))


# --- an append is still all or nothing -------------------------------------------------------------------


def everything(schema: str) -> tuple[list, ...]:
    """Every row of every table the store writes, for 'nothing changed' checks."""
    with psycopg.connect(BASE, autocommit=True) as conn:
        return tuple(
            conn.execute(f'SELECT * FROM "{schema}".{table} ORDER BY 1, 2').fetchall()
            for table in ("encounters", "events", "batches", "meta", "refused")
        )


def moved_on(lines: Sequence[bytes], by: int, command_id: str | None = None) -> list[bytes]:
    """The same batch again, `by` versions and one batch later (the store checks order, not hashes)."""
    records = [decode(line, "x") for line in lines]
    return [
        msgspec.json.encode(
            msgspec.structs.replace(
                r,
                seq=r.seq + by,
                batch=r.batch + 1,
                command_id=command_id if n == 0 else r.command_id,
            )
        )
        for n, r in enumerate(records)
    ]


def last_batch(store: PostgresStore) -> list[bytes]:
    lines = list(store.read())
    records: list[Record] = [decode(line, "x") for line in lines]
    return [line for line, r in zip(lines, records, strict=True) if r.batch == records[-1].batch]


def notified(conn: psycopg.Connection, schema: str) -> list[str]:
    """The notifications about this schema's encounters (others share the server and the channel)."""
    return [n.payload for n in conn.notifies(timeout=0.3) if n.payload.startswith(f"{schema}\t")]


@pytest.fixture
def listening(pg_schema: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(BASE, autocommit=True) as conn:
        conn.execute(f"LISTEN {CHANNEL}")
        yield conn


def test_a_stale_writer_appends_nothing_anywhere(pg_schema: str, listening: psycopg.Connection):
    store = PostgresStore(url(pg_schema, NAME))
    enc = fresh(store)
    play(enc, 5)
    tip = len(enc.records)
    last = last_batch(store)
    stale = moved_on(last, len(last) - 1)  # written by one who saw one version less than there is
    batch = moved_on(last, len(last))
    before = everything(pg_schema)
    notified(listening, pg_schema)
    with pytest.raises(VersionConflict) as caught:
        store.append(stale, expected=tip - 1)
    assert (caught.value.expected, caught.value.actual) == (tip - 1, tip)
    assert everything(pg_schema) == before
    assert notified(listening, pg_schema) == []
    store.append(batch, expected=tip)  # the same batch at the right version goes in, and is told
    assert store.version() == tip + len(batch)
    told = f"{pg_schema}\t{NAME}\t{tip + len(batch)}\t" + b"\n".join(batch).decode()  # with its lines
    assert notified(listening, pg_schema) == [told]


def one_appended(pg_schema: str, command_id: str) -> tuple[PostgresStore, list[bytes], int]:
    """A played encounter, one more batch appended under `command_id`: the store, that batch, the tip."""
    store = PostgresStore(url(pg_schema, NAME))
    enc = fresh(store)
    play(enc, 3)
    done = moved_on(last_batch(store), len(last_batch(store)), command_id=command_id)
    store.append(done, expected=len(enc.records))
    return store, done, store.version()


def test_a_retried_command_id_appends_nothing_anywhere(pg_schema: str, listening: psycopg.Connection):
    store, done, tip = one_appended(pg_schema, "tablet-7")
    retry = moved_on(done, len(done), command_id="tablet-7")  # the same id, at the right version
    before = everything(pg_schema)
    notified(listening, pg_schema)
    with pytest.raises(DuplicateCommand) as caught:
        store.append(retry, expected=tip)
    assert caught.value.command_id == "tablet-7"
    assert everything(pg_schema) == before
    assert notified(listening, pg_schema) == []
    assert store.find_command("tablet-7") == (tip - len(done) + 1, tip)


def test_an_append_of_several_batches_is_one_transaction_too(pg_schema: str):
    """Two batches in one append take the transaction path: the second's duplicate id undoes the first."""
    store, one, tip = one_appended(pg_schema, "a")
    two = moved_on(one, len(one), command_id="b")
    three = moved_on(two, len(two), command_id="a")  # "a" again: refused
    before = everything(pg_schema)
    with pytest.raises(DuplicateCommand):
        store.append(two + three, expected=tip)
    assert everything(pg_schema) == before
    store.append(two + moved_on(two, len(two), command_id="c"), expected=tip)
    assert store.version() == tip + 2 * len(two)
    assert store.find_command("b") == (tip + 1, tip + len(two))


def test_an_append_prepares_its_statement_again_when_the_server_forgot_it(pg_schema: str):
    """A pooler's DISCARD ALL (or a DEALLOCATE) drops prepared statements: the next append still goes in."""
    store = PostgresStore(url(pg_schema, NAME))
    enc = fresh(store)
    play(enc, 3)
    with store._conn("testing") as conn:
        conn.execute("DEALLOCATE ALL")
    play(enc, 3, seed=2)
    assert list(store.read()) == [bytes(line) for line in selected(url(pg_schema, NAME), 0, None)]
    assert store.version() == len(enc.records) and store.check() == "ok"
