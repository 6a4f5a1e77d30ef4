"""A hosted worker answers the live board from what its listener heard (issue 29, api_board.state).

After a move every page of the table asks for the board at once. When this worker
has heard of the newest version, and that side's board at that version is made,
the answer needs no query and no thread. It must never be older than what the page
knows: the version the stream told it of (`seen`), or the worker's own last write.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient
from tabletrail.events.commands import EndTurn
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.service.encounter import Encounter
from tabletrail.web import views
from tabletrail.web.invites import GM
from tabletrail.web.live import Broker, Heard
from tabletrail.web.server import create_app

from tests.web.test_hosted import database  # noqa: F401  (the fixture)

NAME = "cellar"


class Served:
    """A table view of one hosted encounter whose listener hears only what the test says it heard."""

    def __init__(self, where: str) -> None:
        self.store = PostgresStore(f"{where}&encounter={NAME}")
        self.broker = Broker("", self.store.schema, "tabletrail")
        self.broker.up = True
        app = create_app(self.store.name, store=self.store, heard=Heard(self.broker, NAME))
        self.table = app.state.table
        self.client = TestClient(app, base_url="http://127.0.0.1")
        self.links = {who: self.table.invites.make(role)[1] for who, role in
                      (("gm", GM), ("blue", "blue"), ("blue 2", "blue"), ("red", "red"))}  # fmt: skip
        self.asked = 0  # how often the log's version was read from the database
        version = self.store.version

        def counted() -> int:
            self.asked += 1
            return version()

        self.store.version = counted  # type: ignore[method-assign]

    def heard(self, version: int) -> None:
        self.broker._heard(f"{self.store.schema}\t{NAME}\t{version}")

    def board(self, who: str, seen: int | str | None = None) -> dict:
        query = "" if seen is None else f"?seen={seen}"
        answer = self.client.get(f"/api/state{query}", headers={"Authorization": f"Bearer {self.links[who]}"})
        assert answer.status_code == 200, answer.text
        return answer.json()


@pytest.fixture
def served(database: str) -> Iterator[Served]:  # noqa: F811
    served = Served(database)
    with served.client:
        yield served


def without_me(board: dict) -> dict:
    return {k: v for k, v in board.items() if k not in ("me", "exposed")}


def test_a_heard_version_spares_every_page_the_database(served: Served):
    served.heard(4)
    first = served.board("blue", seen=4)  # made on a worker thread, from the encounter as heard
    second = served.board("blue 2", seen=4)  # made already: answered on the event loop
    assert served.asked == 0, "the version was heard: nothing to ask"
    assert without_me(second) == without_me(first) and second["version"] == 4
    assert second["me"]["invite"] != first["me"]["invite"], "each page still reads its own link"
    red = served.board("red", seen=4)
    assert red["version"] == 4 and red["me"]["role"] == "red", "another side's board is its own"


def test_a_page_told_of_a_version_not_heard_yet_gets_that_version(served: Served):
    served.heard(4)
    served.board("blue", seen=4)  # blue's board at 4 is made
    elsewhere = Encounter.open(PostgresStore(served.store.name, private=True))
    elsewhere.execute(EndTurn(), "end-turn")  # another worker's move; this one has not heard of it yet
    now = len(elsewhere.records)
    assert served.broker.version(NAME) == 4
    assert served.board("blue 2", seen=now)["version"] == now, "never older than what the stream told"


def test_the_workers_own_move_is_shown_before_its_notify_comes_back(served: Served):
    served.heard(4)
    served.board("blue", seen=4)
    moved = served.client.post(
        "/api/do",
        json={"version": 4, "text": "end-turn"},
        headers={"Authorization": f"Bearer {served.links['gm']}"},
    )
    assert moved.status_code == 200, moved.text
    assert served.board("blue")["version"] == moved.json()["version"], "not the board heard before it"


@pytest.mark.parametrize("seen", ["abc", "-1", "4.0"])
def test_a_seen_that_is_not_a_version_is_a_bad_request(served: Served, seen: str):
    answer = served.client.get(
        f"/api/state?seen={seen}", headers={"Authorization": f"Bearer {served.links['blue']}"}
    )
    assert answer.status_code == 400 and "seen" in answer.json()["message"]


def test_the_event_list_is_made_once_per_side_and_never_older_than_the_board(served: Served, monkeypatch):
    made: list[str] = []
    records = views.records

    def counted(enc, role, *span):  # noqa: ANN001, ANN002, ANN202
        made.append(role)
        return records(enc, role, *span)

    monkeypatch.setattr(views, "records", counted)
    served.heard(4)
    lists = {who: events(served, who, seen=4) for who in ("blue", "blue 2", "red", "gm")}
    assert sorted(made) == ["blue", "gm", "red"] and served.asked == 0
    assert lists["blue"] == lists["blue 2"] and lists["blue"]["version"] == 4
    elsewhere = Encounter.open(PostgresStore(served.store.name, private=True))
    elsewhere.execute(EndTurn(), "end-turn")
    now = len(elsewhere.records)
    newer = events(served, "blue", seen=now)  # this worker has not heard of it yet: the log is read
    assert newer["version"] == now and [e["seq"] for e in newer["events"]][-1] == now


def events(served: Served, who: str, seen: int) -> dict:
    answer = served.client.get(
        f"/api/events?seen={seen}", headers={"Authorization": f"Bearer {served.links[who]}"}
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_pages_board_makes_no_event_list_and_what_changed_since_is_made_once_per_side(
    served: Served, monkeypatch
):
    """The board no longer makes the whole event list beside it (at 100,000 events a second of CPU
    a version): a page asks for what changed since its version (`?after=V`), made once per side."""
    made: list[str] = []
    records = views.records
    monkeypatch.setattr(views, "records", lambda enc, role, *at: made.append(role) or records(enc, role, *at))
    served.heard(4)
    served.board("blue", seen=4)
    assert made == []
    for who in ("blue", "blue 2"):
        answer = served.client.get(
            "/api/events?seen=4&after=2", headers={"Authorization": f"Bearer {served.links[who]}"}
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["after"] == 2 and [e["seq"] for e in answer.json()["events"]] == [3, 4]
    assert made == ["blue"] and served.asked == 0
