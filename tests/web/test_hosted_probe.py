"""The hosted workers' probe (issue 40): what benchmarks/load_tables.py reads from inside the server.

- with TABLETRAIL_PROBE naming a directory, each worker writes there how late its event loop
  woke, how many threads were out, how often a thread waited for a database connection and how
  long each request took inside it;
- without it, nothing is written;
- the connection pool counts a thread that found every connection out, and only such a one.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from support_postgres import url
from support_store import fresh
from tabletrail.events.stores.postgres_store import Database, PostgresStore
from tabletrail.web.hosted import PROBE_ENV, create_hosted_app
from tabletrail.web.invites import GM, Invites, encounter_key, keep_for


def _gm_header(database: str, name: str) -> dict[str, str]:
    store = PostgresStore(f"{database}&encounter={name}")
    token = Invites(keep_for(store.name, store), encounter_key(store)).make(GM)[1]
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def database(pg_schema: str) -> str:
    fresh(PostgresStore(url(pg_schema, "cellar"))).store.close()
    return url(pg_schema, None)


def _written(directory: Path) -> list[Path]:
    """The probe files, once the worker has written one (a guard against never, not a measurement)."""
    for _ in range(100):
        found = sorted(directory.glob("probe-*.json"))
        if found:
            return found
        time.sleep(0.1)
    return []


def test_a_worker_with_the_probe_on_writes_what_it_saw(
    database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PROBE_ENV, str(tmp_path))
    link = _gm_header(database, "cellar")
    with TestClient(create_hosted_app(database), base_url="http://127.0.0.1", headers=link) as client:
        assert client.get("/e/cellar/api/state").status_code == 200
        found = _written(tmp_path)
        assert len(found) == 1
        seen = json.loads(found[0].read_text())
    assert seen["lags"] and len(seen["lags"]) == len(seen["threads"]) == len(seen["queued"])
    assert seen["thread_limit"] >= 1 and seen["pool_size"] == Database.SIZE
    assert seen["pool_taken"] >= 1  # the encounter was opened through the pool
    assert len(seen["took"]["state"]) == 1  # the one request, by what it asked for
    assert 0 <= seen["pool_waits"] <= seen["pool_taken"] and seen["pool_waited"] >= 0


def test_without_the_probe_nothing_is_written(
    database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PROBE_ENV, raising=False)
    link = _gm_header(database, "cellar")
    with TestClient(create_hosted_app(database), base_url="http://127.0.0.1", headers=link) as client:
        assert client.get("/e/cellar/api/state").status_code == 200
    assert not list(tmp_path.iterdir())


def test_the_pool_counts_a_thread_that_waited_for_a_connection(pg_schema: str) -> None:
    db = Database(url(pg_schema, None).split("?")[0], size=1)
    held, let_go = threading.Event(), threading.Event()

    def holder() -> None:
        with db.holding():
            held.set()
            let_go.wait()

    first = threading.Thread(target=holder)
    first.start()
    held.wait()

    def visitor() -> None:
        with db.holding():
            pass

    second = threading.Thread(target=visitor)
    second.start()
    while db.taken < 2:  # the visitor has asked, and waits (a guard against never: not a measurement)
        time.sleep(0.01)
    let_go.set()
    first.join()
    second.join()
    assert (db.taken, db.waits) == (2, 1) and db.waited > 0
    with db.holding():  # a connection free: taken without waiting
        pass
    assert (db.taken, db.waits) == (3, 1)
    db.close()
