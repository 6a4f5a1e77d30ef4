"""Hosted tables (issue 17): many encounters from one PostgreSQL database, several server processes.

- /e/NAME/ serves each encounter's table view (page, API, live stream); / names none of them
  (tests/web/test_hosted_index.py);
- two `serve URL` processes share the database: a move made through one reaches a
  page following live on the other (PostgreSQL NOTIFY on commit, one LISTEN per
  process, no polling per page), and a page that saw an older version gets a 409
  from either;
- `serve URL --workers 2` runs uvicorn workers sharing one port;
- a database that can't be reached is a 503 naming it and the encounter, and a
  live stream says so in a 200 (so the browser keeps trying) instead of failing.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import psycopg
import pytest
from starlette.testclient import TestClient
from support_postgres import BASE, url
from support_store import fresh
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.web.hosted import create_hosted_app
from tabletrail.web.invites import GM, Invites, encounter_key, keep_for

PY = sys.executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(database: str, workers: int = 1) -> Iterator[str]:
    """`tabletrail serve DATABASE` in a process of its own; its base URL while it runs."""
    port = free_port()
    argv = [PY, "-m", "tabletrail", "serve", database, "--port", str(port), "--workers", str(workers)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ.copy())
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # a guard against a server that never starts, not a measurement
            try:
                if (
                    httpx.get(base + "/", headers={"accept": "application/json"}, timeout=1).status_code
                    == 200
                ):
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, proc.communicate()[1].decode()
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def versions(stream: httpx.Response) -> Iterator[dict]:
    """The data of each `version` event a live stream sends."""
    kind = ""
    for line in stream.iter_lines():
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: ") and kind == "version":
            yield json.loads(line.removeprefix("data: "))


@pytest.fixture
def database(pg_schema: str) -> str:
    for name in ("cellar", "bridge"):
        fresh(PostgresStore(url(pg_schema, name))).store.close()
    return url(pg_schema, None)


def gm(database: str, name: str) -> tuple[str, dict[str, str]]:
    """A GM link's token for the encounter, and the header every API request carries."""
    store = PostgresStore(f"{database}&encounter={name}")
    token = Invites(keep_for(store.name, store), encounter_key(store)).make(GM)[1]
    return token, {"Authorization": f"Bearer {token}"}


def test_each_encounter_is_served_under_its_name(database: str):
    token, cellar = gm(database, "cellar")
    _, bridge = gm(database, "bridge")
    with TestClient(create_hosted_app(database), base_url="http://127.0.0.1", headers=cellar) as client:
        assert client.get("/e/cellar", follow_redirects=False).headers["location"] == "/e/cellar/"
        assert "<script" in client.get(f"/e/cellar/join/{token}").text
        assert client.get("/static/table.js").status_code == 200
        done = client.post("/e/cellar/api/do", json={"version": 4, "text": "move ari 2,2"})
        assert done.status_code == 200 and done.json()["version"] > 4
        assert client.get("/e/cellar/api/state").json()["version"] == done.json()["version"]
        assert client.get("/e/bridge/api/state").status_code == 401, "a link opens its own encounter only"
        assert client.get("/e/bridge/api/state", headers=bridge).json()["version"] == 4, "its own log"
        missing = client.get("/e/crypt/api/state")
        assert missing.status_code == 404 and "no encounter 'crypt'" in missing.json()["message"]
        assert client.get("/e/no%20name/api/state").status_code == 404


def quiet_since(application: str) -> list[bool]:
    """For each connection of that name: has it been idle (no statement run) for the last second?"""
    with psycopg.connect(BASE, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT state_change < now() - interval '1 second' FROM pg_stat_activity "
            "WHERE application_name = %s",
            (application,),
        ).fetchall()
    return [row[0] for row in rows]


def test_a_move_through_one_server_reaches_a_page_on_another_and_a_stale_page_gets_409(database: str):
    application = f"tt-{uuid.uuid4().hex[:12]}"  # libpq takes it from the URL: the server's connections
    token, link = gm(database, "cellar")
    with serving(f"{database}&application_name={application}") as one, serving(database) as three:
        live = f"{one}/e/cellar/api/stream?last=-1&token={token}"
        with httpx.stream("GET", live, timeout=30) as stream:
            seen = versions(stream)
            assert next(seen) == {"version": 4}
            time.sleep(1.5)  # a quiet table with a page following live
            idle = quiet_since(application)
            assert len(idle) == 2 and all(idle), "the store's and the listener's: no polling while quiet"
            move = {"version": 4, "text": "move ari 2,2"}
            done = httpx.post(three + "/e/cellar/api/do", json=move, headers=link)
            assert done.status_code == 200
            assert next(seen) == {"version": done.json()["version"]}, "told through NOTIFY, not by polling"
        late = {"version": 4, "text": "move bo 3,1"}
        stale = httpx.post(one + "/e/cellar/api/do", json=late, headers=link)
        assert stale.status_code == 409 and stale.json()["version"] == done.json()["version"]
        other = httpx.get(three + "/e/bridge/api/state", headers=gm(database, "bridge")[1]).json()
        assert other["version"] == 4


def test_workers_share_one_port_and_every_one_serves_every_encounter(database: str):
    _, link = gm(database, "cellar")
    with serving(database, workers=2) as base:
        version = 4
        for n in range(6):  # requests land on either worker: each must know the latest version
            text = "move ari 2,2" if n == 0 else "end-turn"
            answer = httpx.post(
                base + "/e/cellar/api/do", json={"version": version, "text": text}, headers=link
            )
            assert answer.status_code in (200, 422), answer.text
            version = httpx.get(base + "/e/cellar/api/state", headers=link).json()["version"]
        assert version == PostgresStore(database + "&encounter=cellar").version() > 4


def test_an_unreachable_database_is_a_503_and_a_stream_that_says_so(pg_schema: str):
    gone = "postgresql://gm:s3cret@127.0.0.1:1/test?connect_timeout=2"
    with TestClient(create_hosted_app(gone), base_url="http://127.0.0.1") as client:
        answer = client.post("/e/cellar/api/do", json={"version": 4, "text": "end-turn"})
        body = answer.json()
        assert answer.status_code == 503 and "gm:***@127.0.0.1:1" in body["message"]
        assert "encounter=cellar" in body["message"] and "s3cret" not in body["message"]
        assert client.get("/").status_code == 200, "the plain index reads nothing from the database"
        stream = client.get("/e/cellar/api/stream")
        assert stream.status_code == 200 and "event: unavailable" in stream.text and "retry: " in stream.text
