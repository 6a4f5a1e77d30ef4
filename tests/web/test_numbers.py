"""Numbers sent as text are read one strict way, and a bad one is one 400 everywhere (issue 36, item 2).

`?seen=²` passed `str.isdigit()` but not `int()`: a 500 with a traceback on a hosted
worker whose listener was up; a 5,000-digit one likewise; an empty `seen=` was a 200
on one worker and a 400 on another. Every number a request (or the environment, or
a NOTIFY) carries as text is read by app/web/numbers.py: ASCII digits, bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from support_postgres import url
from support_store import fresh
from support_web import new_log
from tabletrail.events.errors import InputError
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.web import guard
from tabletrail.web.api.stream import resumed
from tabletrail.web.invites import GM
from tabletrail.web.live import Broker, Heard
from tabletrail.web.server import create_app

BAD_SEEN = {
    "superscript two": "²",
    "5,000 digits": "9" * 5000,
    "empty": "",
    "negative": "-1",
    "a fraction": "1.5",
}
BASE = "http://127.0.0.1"


@pytest.fixture(params=["file", "hosted"])
def page(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], tuple[int, dict]]:
    """GET a path as the GM of `serve LOG`, or of a hosted worker that heard the newest version and
    has made the GM's board and event list at it (the answers it gives without a thread)."""
    if request.param == "file":
        app = create_app(new_log(tmp_path))
        query = ""
    else:
        store = PostgresStore(url(request.getfixturevalue("pg_schema"), "cellar"))
        fresh(store)
        broker = Broker("", store.schema, "tabletrail")
        broker.up = True
        version = store.version()
        broker._heard(f"{store.schema}\tcellar\t{version}")
        app = create_app(store.name, store=store, heard=Heard(broker, "cellar"))
        query = f"seen={version}"
    client = TestClient(app, base_url=BASE)
    headers = {"Authorization": f"Bearer {app.state.table.invites.make(GM)[1]}"}
    for path in ("/api/state", "/api/events"):  # made now: the next asks are answered from them
        assert client.get(f"{path}?{query}", headers=headers).status_code == 200

    def get(path: str) -> tuple[int, dict]:
        answer = client.get(path, headers=headers)
        json = answer.headers["content-type"].startswith("application/json")
        return answer.status_code, answer.json() if json else {"text": answer.text}

    with client:
        yield get


@pytest.mark.parametrize("why", sorted(BAD_SEEN))
def test_a_seen_that_is_no_version_number_is_one_400_everywhere(page, why: str):  # noqa: ANN001
    seen = BAD_SEEN[why]
    said = set()
    for path in ("/api/state", "/api/events"):
        status, body = page(f"{path}?seen={seen}")
        assert status == 400, (path, body)
        said.add(body["message"])
    [message] = said  # the same words from both routes (and, by the fixture, from every worker)
    assert message.startswith("seen: expected a version number (ASCII digits, 0 to 999999999999999), got ")
    assert len(message) < 200, "a 5,000-digit value is cut, not echoed"


@pytest.mark.parametrize("why", sorted(BAD_SEEN))
def test_every_worker_says_the_same_words(tmp_path: Path, pg_schema: str, why: str):
    """The two kinds of worker side by side: serve LOG and a listening hosted one."""
    seen = BAD_SEEN[why]
    answers = []
    for app in (create_app(new_log(tmp_path)), _hosted(pg_schema)):
        with TestClient(app, base_url=BASE) as client:
            token = app.state.table.invites.make(GM)[1]
            answers.append(
                client.get(f"/api/state?seen={seen}", headers={"Authorization": f"Bearer {token}"})
            )
    assert [a.status_code for a in answers] == [400, 400]
    assert answers[0].json() == answers[1].json()


def _hosted(schema: str):  # noqa: ANN202
    store = PostgresStore(url(schema, "cellar"))
    fresh(store)
    broker = Broker("", store.schema, "tabletrail")
    broker.up = True
    broker._heard(f"{store.schema}\tcellar\t{store.version()}")
    return create_app(store.name, store=store, heard=Heard(broker, "cellar"))


@pytest.mark.parametrize("seq", ["²", "9" * 5000, "-1", "1.5", "٣"])
def test_an_event_number_that_is_none_is_not_found(page, seq: str):  # noqa: ANN001
    status, body = page(f"/api/events/{seq}")
    assert status == 404 and body["message"].startswith("no event ")


@pytest.mark.parametrize(
    "query", ["last=²", "last=-2", "last=" + "9" * 5000, "seconds=²", "seconds=nan", "seconds=-1"]
)
def test_a_stream_number_that_is_none_is_a_400(page, query: str):  # noqa: ANN001
    status, body = page(f"/api/stream?{query}")
    assert status == 400 and body["message"].startswith("stream: " + query.split("=")[0] + ": expected")


@pytest.mark.parametrize("header", ["²", "٣", "9" * 5000, "-1", "", " 7 x"])
def test_a_last_event_id_that_is_no_version_says_nothing_is_known(header: str):
    assert resumed(header) == -1
    assert resumed(" 7 ") == 7


@pytest.mark.parametrize("raw", ["²", "٣", "9" * 5000, "+5", "0"])
def test_a_per_client_cap_that_is_no_whole_number_is_refused_in_one_line(monkeypatch, raw: str):  # noqa: ANN001
    monkeypatch.setenv(guard.PER_CLIENT_ENV, raw)
    with pytest.raises(InputError) as caught:
        guard.limits_from_env()
    assert guard.PER_CLIENT_ENV in str(caught.value) and len(str(caught.value)) < 200


@pytest.mark.parametrize("version", ["²", "٣", "9" * 5000])
def test_a_notify_whose_version_is_no_number_is_ignored(version: str):
    broker = Broker("", "s", "tabletrail")
    broker.up = True
    broker._heard("s\tcellar\t4")
    broker._heard(f"s\tcellar\t{version}")
    assert broker.version("cellar") == 4


def test_a_stream_asked_from_no_version_says_the_version_at_once(page):  # noqa: ANN001
    """`?last=-1`: the client has no version yet (the one negative the document allows)."""
    status, body = page("/api/stream?last=-1&seconds=0")
    assert status == 200 and "event: version" in body["text"]
