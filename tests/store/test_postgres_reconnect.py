"""A dropped PostgreSQL connection costs no one a 503 (issue 36, item 6).

After the server ended the store's pooled connection (a restart, a failover, a
pooler recycling it) the next one or two requests answered 503 "unavailable",
though PostgreSQL was up: the pool handed out a connection found broken only when
used. A read is now asked once more on a new connection; a write is tried again
only when its batch carries a command id, and then lands exactly once.
"""

from __future__ import annotations

import psycopg
import pytest
from starlette.testclient import TestClient
from support_postgres import BASE, url
from support_store import fresh
from tabletrail.events.commands import EndTurn
from tabletrail.events.errors import Unavailable
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.service.encounter import Encounter
from tabletrail.web.invites import GM
from tabletrail.web.server import create_app


def terminate(store: PostgresStore) -> int:
    """End every connection this store's pool keeps, from another session, as a restart would."""
    pids = [conn.info.backend_pid for conn in store.db.idle]
    assert pids, "the store keeps a pooled connection between requests"
    with psycopg.connect(BASE, autocommit=True) as admin:
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    return len(pids)


@pytest.fixture
def store(pg_schema: str) -> PostgresStore:
    made = PostgresStore(url(pg_schema, "cellar"), private=True)
    fresh(made)
    made.version()  # a connection is now pooled, idle
    return made


def test_a_read_after_the_pooled_connection_was_ended_succeeds(store: PostgresStore):
    before = list(store.read())
    terminate(store)
    assert list(store.read()) == before
    terminate(store)
    assert store.version() == len(before)
    terminate(store)
    assert store.find_command("never-sent") is None


def test_a_write_under_its_command_id_lands_once_after_the_connection_was_ended(store: PostgresStore):
    enc = Encounter.open(store)
    before = len(enc.records)
    terminate(store)
    done = enc.execute(EndTurn(), "end-turn", command_id="turn-key-0001")
    assert done and store.version() == before + len(done)
    assert store.find_command("turn-key-0001") is not None
    again = Encounter.open(store).execute(EndTurn(), "end-turn", command_id="turn-key-0001")
    assert [r.seq for r in again] == [r.seq for r in done] and store.version() == before + len(done)


def test_a_write_whose_answer_was_lost_is_not_appended_twice(store: PostgresStore, monkeypatch):
    """The batch went in, then the connection broke before the answer came back: the retry under the
    same command id finds it there and the log holds it once."""
    real = PostgresStore._append
    calls = []

    def lost_answer(self, conn, *args):  # noqa: ANN001, ANN202
        real(self, conn, *args)
        calls.append(1)
        if len(calls) == 1:
            raise Unavailable("the connection broke after the commit")

    monkeypatch.setattr(PostgresStore, "_append", lost_answer)
    enc = Encounter.open(store)
    before = len(enc.records)
    done = enc.execute(EndTurn(), "end-turn", command_id="turn-key-0002")
    assert store.version() == before + len(done) == len(Encounter.open(store).records)
    assert len(calls) == 1, "the retry found the batch in and appended nothing"


def test_a_write_without_a_command_id_is_not_tried_again(store: PostgresStore):
    enc = Encounter.open(store)
    before = store.version()
    terminate(store)
    with pytest.raises(Unavailable):
        enc.execute(EndTurn(), "end-turn")
    assert store.version() == before


def test_a_page_after_the_pooled_connection_was_ended_gets_its_board(store: PostgresStore):
    app = create_app(store.name, store=store)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        headers = {"Authorization": f"Bearer {app.state.table.invites.make(GM)[1]}"}
        assert client.get("/api/state", headers=headers).status_code == 200
        terminate(store)
        for path in ("/api/state", "/api/events", "/api/me"):
            answer = client.get(path, headers=headers)
            assert answer.status_code == 200, (path, answer.text)
