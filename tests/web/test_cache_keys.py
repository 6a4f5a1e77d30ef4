"""A side's name can't reach another side's cached answer (issue 36, item 1).

A table view encodes each side's board and event list once a version and keeps
them by key. The keys were strings glued from names: the board under the side's
name, the event list under "events<TAB>role". A side named "events<TAB>gm" then
read the GM's unredacted event list as its board (a ruling's reason included), and
the GM's page got a side's board as its event list. The scenario reader refuses
such names now, so these logs are made as one started before it did.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from starlette.testclient import TestClient
from support import CLOCK
from support_postgres import url
from support_web import scenario_toml
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.scenario_spec import Scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.service.encounter import Encounter
from tabletrail.web.invites import GM
from tabletrail.web.live import Broker, Heard
from tabletrail.web.server import create_app

SIDES = ["events\tgm", "events.gz\tgm"]
BASE = "http://127.0.0.1"


def named(side: str) -> Scenario:
    """The web test's scenario with its red side renamed `side`, as an older reader let through."""
    scenario = parse_scenario(tomllib.loads(scenario_toml()), source="cache keys test")
    fighters = tuple(
        msgspec.structs.replace(f, side=side) if f.side == "red" else f for f in scenario.fighters
    )
    return msgspec.structs.replace(scenario, fighters=fighters)


class Page:
    """A table view and a link for the GM and for the oddly named side."""

    def __init__(self, app, side: str, query: str = "") -> None:  # noqa: ANN001
        self.client = TestClient(app, base_url=BASE)
        invites = app.state.table.invites
        self.tokens = {"gm": invites.make(GM)[1], "side": invites.make(side)[1]}
        self.side = side
        self.query = query

    def get(self, who: str, path: str, encoding: str) -> dict:
        answer = self.client.get(
            path + self.query,
            headers={"Authorization": f"Bearer {self.tokens[who]}", "Accept-Encoding": encoding},
        )
        assert answer.status_code == 200, answer.text
        return answer.json()


@pytest.fixture(params=["file", "hosted"])
def opened(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], Page]:
    """A table view of a log whose red side is renamed: `serve LOG`, or a listening hosted worker."""

    def open_one(side: str) -> Page:
        if request.param == "file":
            log = tmp_path / "odd.jsonl"
            Encounter.create(JsonlStore(log, durable=False), named(side), clock=lambda: CLOCK)
            return Page(create_app(log), side)
        store = PostgresStore(url(request.getfixturevalue("pg_schema"), "odd"))
        Encounter.create(store, named(side), clock=lambda: CLOCK)
        broker = Broker("", store.schema, "tabletrail")
        broker.up = True  # a listening worker: what it heard answers pages without a query
        version = store.version()
        broker._heard(f"{store.schema}\todd\t{version}")
        app = create_app(store.name, store=store, heard=Heard(broker, "odd"))
        return Page(app, side, f"?seen={version}")

    return open_one


def is_board(answer: dict, side: str) -> None:
    assert "fighters" in answer and "events" not in answer, sorted(answer)[:8]
    assert answer["me"]["role"] == side


def is_event_list(answer: dict) -> None:
    assert "events" in answer and "fighters" not in answer and "me" not in answer, sorted(answer)[:8]


@pytest.mark.parametrize("encoding", ["gzip", "identity"])
@pytest.mark.parametrize("side", SIDES)
def test_a_side_named_like_a_key_reads_its_own_board_after_the_gm_read_the_events(opened, side, encoding):  # noqa: ANN001
    page = opened(side)
    with page.client:
        is_event_list(page.get("gm", "/api/events", encoding))
        is_board(page.get("side", "/api/state", encoding), side)


@pytest.mark.parametrize("encoding", ["gzip", "identity"])
@pytest.mark.parametrize("side", SIDES)
def test_the_gm_reads_the_event_list_after_a_side_named_like_a_key_read_its_board(opened, side, encoding):  # noqa: ANN001
    page = opened(side)
    with page.client:
        is_board(page.get("side", "/api/state", encoding), side)
        is_event_list(page.get("gm", "/api/events", encoding))
        is_board(page.get("gm", "/api/state", encoding), GM)
