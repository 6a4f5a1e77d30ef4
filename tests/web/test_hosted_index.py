"""The hosted index tells a visitor nothing about the database's encounters (issue 28, item 11).

`serve postgresql://…` answered `GET /` without any token with every encounter's
name, its event count and when it started. Now / is a plain page saying a table
opens from its link, to anyone and in any format asked for; the host lists its
encounters with `tabletrail encounters URL`, which needs the database itself.
"""

from __future__ import annotations

from starlette.testclient import TestClient
from support_postgres import url
from support_store import fresh
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.web.hosted import create_hosted_app


def test_the_index_names_no_encounter_and_counts_nothing(pg_schema: str):
    for name in ("cellar", "bridge"):
        fresh(PostgresStore(url(pg_schema, name))).store.close()
    with TestClient(create_hosted_app(url(pg_schema, None)), base_url="http://127.0.0.1") as client:
        for accept in ("text/html", "application/json", "*/*"):
            page = client.get("/", headers={"accept": accept})
            assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
            assert "invitation link" in page.text
            for told in ("cellar", "bridge", "/e/", "events", "started"):
                assert told not in page.text, (accept, told)
        with_token = client.get("/", headers={"authorization": "Bearer tt1.000000000000." + "a" * 43})
        assert "cellar" not in with_token.text


def test_the_index_answers_while_the_database_is_down():
    """It reads nothing from the database, so it can't fail with it (nor tell it is there)."""
    gone = "postgresql://gm:s3cret@127.0.0.1:1/test?connect_timeout=2"
    with TestClient(create_hosted_app(gone), base_url="http://127.0.0.1") as client:
        page = client.get("/")
        assert page.status_code == 200 and "s3cret" not in page.text and "127.0.0.1:1" not in page.text
