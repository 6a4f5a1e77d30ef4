"""The PostgreSQL store's shared reads (issue 29): threads asking at once may share one query, but no
caller is ever handed a read older than its own question (a commit finished before it asked is seen)."""

from __future__ import annotations

import threading
import time

from support_postgres import url
from support_store import fresh
from tabletrail.events.commands import EndTurn
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.service.encounter import Encounter
from tabletrail.web.invites import Invites, encounter_key, keep_for


def test_a_commit_made_elsewhere_is_seen_by_the_next_version_read(pg_schema: str):
    here = PostgresStore(url(pg_schema))
    fresh(here)
    before = here.version()
    other = Encounter.open(PostgresStore(url(pg_schema), private=True))  # another server's connection
    other.execute(EndTurn(), "end-turn")
    after = len(other.records)
    assert after > before
    assert here.version() == after


def test_threads_reading_at_once_never_see_a_version_older_than_their_question(pg_schema: str):
    here = PostgresStore(url(pg_schema))
    fresh(here)
    writer = Encounter.open(PostgresStore(url(pg_schema), private=True))
    committed = [len(writer.records)]  # the version every commit so far has reached
    stale: list[tuple[int, int]] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            floor = committed[-1]  # committed before this question was asked
            seen = here.version()
            if seen < floor:
                stale.append((seen, floor))

    readers = [threading.Thread(target=read) for _ in range(6)]
    for t in readers:
        t.start()
    for _ in range(15):
        writer.execute(EndTurn(), "end-turn")
        committed.append(len(writer.records))
    stop.set()
    for t in readers:
        t.join()
    assert stale == []
    assert here.version() == committed[-1]


def test_a_link_revoked_through_another_connection_is_refused_at_the_next_check(pg_schema: str):
    here = PostgresStore(url(pg_schema))
    fresh(here)
    mine = Invites(keep_for(here.name, here), encounter_key(here))
    made, token = mine.make("blue")
    assert mine.check(token).id == made.id
    there = PostgresStore(url(pg_schema), private=True)
    Invites(keep_for(there.name, there), encounter_key(there)).revoke(made.id)
    assert mine.all()[0].revoked is not None


def test_a_slow_round_trip_does_not_hold_up_another_threads_read(pg_schema: str):
    """One connection per process made every page and command of a worker queue behind each other."""
    here = PostgresStore(url(pg_schema))
    fresh(here)
    slow_done = threading.Event()
    read_at: list[bool] = []

    def slow() -> None:
        with here._conn("sleeping") as conn:
            conn.execute("SELECT pg_sleep(3)")
        slow_done.set()

    t = threading.Thread(target=slow)
    t.start()
    time.sleep(0.3)  # the slow query is under way on its connection
    here.version()
    read_at.append(slow_done.is_set())
    t.join()
    assert read_at == [False]


def test_a_nested_use_in_one_thread_keeps_its_connection(pg_schema: str):
    here = PostgresStore(url(pg_schema))
    fresh(here)
    with here._conn("outer") as outer, here._conn("inner") as inner:
        assert inner is outer
