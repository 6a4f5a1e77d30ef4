"""Reads never queue behind commits for a pooled connection (issue 40, hosted capacity).

A commit holds its connection until its WAL is on disk; when the disk stalls, a
worker's commits pile up. With one shared pool they took every connection and the
reads that tell the other tables' pages their moves waited behind them. Now writes
hold at most `Database.writers` connections at once:

- with every write slot held, another write waits, and a read still gets a connection
  at once;
- a write held back by the cap goes on as soon as a write slot is given back;
- a read that finds every connection out waits like before, and is counted as a read
  that waited (benchmarks/load_tables.py prints it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from support_postgres import BASE
from tabletrail.events.stores.postgres_store import Database


def _hold(db: Database, write: bool, entered: threading.Event, release: threading.Event) -> threading.Thread:
    """A thread that takes a connection (for a write or a read), asks the server once, and holds it."""

    def run() -> None:
        with db.holding(write=write):
            db.connect().execute("SELECT 1")
            entered.set()
            release.wait()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _until(done: Callable[[], bool]) -> bool:
    """Wait for another thread to get somewhere (a guard against never, not a measurement)."""
    for _ in range(500):
        if done():
            return True
        time.sleep(0.01)
    return done()


def test_a_read_gets_a_connection_while_every_write_slot_is_held_and_a_write_waits() -> None:
    db = Database(BASE, size=3, writers=2)
    release = threading.Event()
    held = [threading.Event(), threading.Event()]
    writers = [_hold(db, True, entered, release) for entered in held]
    assert all(entered.wait(10) for entered in held)
    third = threading.Event()
    waiting = _hold(db, True, third, release)
    assert _until(lambda: db.taken == 3)  # the third write has asked, and found no write slot
    assert not third.is_set()
    with db.holding():  # a read: the connection left over is its to take
        assert db.connect().execute("SELECT 2").fetchone() == (2,)
    assert db.read_taken == 1 and db.read_waits == 0
    assert not third.is_set()  # the read given back did not open a write slot
    release.set()
    for thread in [*writers, waiting]:
        thread.join(10)
    assert third.is_set()  # went on once a write slot was free
    assert db.waits == 1 and db.writing == 0 and db.out == 0
    db.close()


def test_a_read_that_finds_every_connection_out_waits_and_is_counted() -> None:
    db = Database(BASE, size=2, writers=1)
    release = threading.Event()
    held = [threading.Event(), threading.Event()]
    holders = [_hold(db, write, entered, release) for write, entered in zip((True, False), held, strict=True)]
    assert all(entered.wait(10) for entered in held)
    late, done = threading.Event(), threading.Event()
    reader = _hold(db, False, late, done)
    assert _until(lambda: db.taken == 3)
    assert not late.is_set()
    release.set()
    assert late.wait(10)  # one of the two given back went to the waiting read
    for thread in holders:
        thread.join(10)
    done.set()
    reader.join(10)
    assert db.read_taken == 2 and db.read_waits == 1 and db.read_waited >= 0
    assert db.out == 0
    db.close()
