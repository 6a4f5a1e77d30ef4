"""A hosted table's refusal side log when two refusals are written at once.

Each refused command keeps one row in `refused`, numbered after the encounter's last
one. On PostgreSQL two servers (or two worker threads) may note a refusal of the same
encounter at the same moment: both read the same last number, and the second to
commit collides with the first. That refusal must still be kept, numbered after the
other, never lost to a warning nor raised as an error.
"""

from __future__ import annotations

import threading
import time

import psycopg
from support_postgres import BASE, url
from support_store import SCENARIO
from tabletrail.events.commands import Move
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.service.encounter import Encounter


def clock() -> str:
    return "2026-12-03T00:00:00+00:00"


def waiting_on_a_lock(admin: psycopg.Connection, schema: str) -> bool:
    """Is a backend inserting into this schema's refusals waiting for another's row lock?"""
    row = admin.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE %s",
        (f'%"{schema}".refused%',),
    ).fetchone()
    return bool(row and row[0])


def test_two_refusals_at_once_are_both_kept_in_order(pg_schema: str):
    warned: list[str] = []
    store = PostgresStore(url(pg_schema), warn=warned.append)
    enc = Encounter.create(store, load_scenario(SCENARIO), clock=clock)
    refused = enc.execute(Move(fighter="ari", path=((40, 40),)), "move ari 40,40")
    assert not isinstance(refused, list), "a move off the map is refused"
    [first] = store.refused()
    line = store.refused_lines()[0]

    # Another writer's refusal, numbered 2, in flight: inserted, not yet committed.
    other = psycopg.connect(BASE)
    other.execute(
        f'INSERT INTO "{pg_schema}".refused (encounter, n, line) VALUES (%s, 2, %s)', (store.encounter, line)
    )
    failed: list[BaseException] = []

    def note() -> None:
        try:
            PostgresStore(url(pg_schema), warn=warned.append, private=True).note_refusal(first)
        except BaseException as exc:  # noqa: BLE001 - said by the test below
            failed.append(exc)

    ours = threading.Thread(target=note)
    ours.start()
    with psycopg.connect(BASE, autocommit=True) as admin:
        deadline = time.monotonic() + 30
        while not waiting_on_a_lock(admin, pg_schema) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert waiting_on_a_lock(admin, pg_schema), "ours reads the same last number and waits for the other"
    other.commit()
    other.close()
    ours.join(timeout=30)

    assert not failed and not warned, (failed, warned)
    assert len(store.refused()) == 3, "the first, the other writer's and ours: none lost"
    with psycopg.connect(BASE) as admin:
        numbers = admin.execute(
            f'SELECT n FROM "{pg_schema}".refused WHERE encounter = %s ORDER BY n', (store.encounter,)
        ).fetchall()
    assert [n for (n,) in numbers] == [1, 2, 3]
