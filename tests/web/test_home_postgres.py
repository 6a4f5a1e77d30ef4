"""The GM's home page of a PostgreSQL database (`serve postgresql://…`, app/web/home_db.py): its
encounters listed and opened, drafts kept in the database across a restart, Start as `tabletrail new`
into the database, archive, and no encounter's link reaching it."""

from __future__ import annotations

import warnings

import pytest
from support_postgres import url
from support_store import fresh
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.postgres_store import PostgresStore, encounters
from tabletrail.projections.audit import verify_store
from tabletrail.service.encounter import Encounter
from tabletrail.web.home_db import HOME, home_link
from tabletrail.web.hosted import create_hosted_app
from tabletrail.web.invites import Invites, encounter_key, keep_for

from tests.web.test_home import CAVE, room

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytest.importorskip("psycopg")


@pytest.fixture
def database(pg_schema: str) -> str:
    fresh(PostgresStore(url(pg_schema, "cellar"))).store.close()
    return url(pg_schema, None)


def client(database: str) -> TestClient:
    token = home_link(database)  # as `serve URL` prints it
    app = create_hosted_app(database, ("127.0.0.1", "testserver"))
    return TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"})


def test_the_database_home_lists_opens_and_refuses_an_encounters_link(database: str):
    c = client(database)
    (row,) = c.get("/api/home").json()["encounters"]
    store = PostgresStore(f"{database}&encounter=cellar")
    state = Encounter.open(store).state
    assert (row["name"], row["ruleset"], row["round"]) == ("cellar", state.ruleset, state.turn.round)
    assert row["acting"] == state.fighter(state.turn.active).name
    opened = c.post("/api/home/encounters/cellar/open").json()["url"]
    token = opened.rsplit("/", 1)[1]
    assert c.get("/e/cellar/api/me", headers={"Authorization": f"Bearer {token}"}).json()["gm"]
    for role in ("gm", "watcher"):  # an encounter's links, even its GM's, never open the home
        other = Invites(keep_for(store.name, store), encounter_key(store)).make(role)[1]
        assert c.get("/api/home", headers={"Authorization": f"Bearer {other}"}).status_code == 401
    assert c.get("/api/home/encounters/crypt/export", params={"as": "toml"}).status_code == 404


def test_a_draft_is_a_row_of_the_database_and_starts_as_tabletrail_new_would(database: str):
    c = client(database)
    draft = c.post("/api/home/drafts", json={"name": "Cellar room", "ruleset": "initiative-yards"}).json()
    scenario = room(draft)
    assert c.put(f"/api/home/drafts/{draft['name']}", json={"scenario": scenario}).status_code == 200
    bad = {**scenario, "fighters": [{**scenario["fighters"][0], "at": [0, 40]}, *scenario["fighters"][1:]]}
    r = c.put(f"/api/home/drafts/{draft['name']}", json={"scenario": bad})
    assert r.status_code == 422 and r.json()["field"] == "fighters[0].at"
    c = client(database)  # a restart: the draft is in the database
    assert c.get(f"/api/home/drafts/{draft['name']}").json()["scenario"] == scenario
    started = c.post(f"/api/home/drafts/{draft['name']}/start")
    assert started.status_code == 200, started.text
    name = started.json()["encounter"]
    store = PostgresStore(f"{database}&encounter={name}")
    assert verify_store(store)["ok"]
    assert Encounter.open(store).state.scenario == parse_scenario(scenario, source="draft")
    assert name in [r["name"] for r in c.get("/api/home").json()["encounters"]]
    assert c.get("/api/home").json()["drafts"] == []
    assert HOME not in [n for n, _, _ in encounters(database)]  # the home's links make no encounter


def test_a_universal_vtt_map_in_a_database_keeps_its_walls_and_says_its_picture_is_not_kept(database: str):
    c = client(database)
    draft = c.post("/api/home/drafts", json={"name": "Cave", "ruleset": "speed-meters"}).json()
    r = c.post(f"/api/home/drafts/{draft['name']}/map", content=CAVE.read_bytes())
    assert r.status_code == 200, r.text
    assert r.json()["scenario"]["map"]["walls"] and "picture" not in r.json()["scenario"]
    assert any(line.startswith("picture: not kept") for line in r.json()["report"])


def test_archive_takes_it_off_the_list_and_keeps_it_in_the_database(database: str):
    c = client(database)
    assert c.post("/api/home/encounters/cellar/archive").status_code == 200
    assert c.get("/api/home").json()["encounters"] == []
    assert "cellar" in [n for n, _, _ in encounters(database)]
    assert c.post("/api/home/encounters/cellar/archive").status_code == 404


def test_the_home_of_an_unreachable_database_is_a_503_naming_it(pg_schema: str):
    gone = url(pg_schema, None, base="postgresql://gm@127.0.0.1:1/test")
    app = create_hosted_app(gone, ("127.0.0.1", "testserver"))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        r = c.get("/api/home", headers={"Authorization": "Bearer tt1.0123456789ab." + "a" * 43})
        assert r.status_code == 503 and "127.0.0.1" in r.json()["message"]
