"""The GM at the table over HTTP: the Add fighter form's makings (GET /api/gm/roster, the GM's only), and
`join`, `leave` and `place` sent through /api/do as any command is: the GM's alone, refused with the
field named and nothing written, and the newcomer on every screen's board at once."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from support_web import bearer, invite, new_log, records
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.web.server import create_app


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return new_log(tmp_path)


def as_role(log: Path, role: str) -> TestClient:
    return TestClient(create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log, role)[1]))


def version(client: TestClient) -> int:
    return client.get("/api/state").json()["version"]


def send(client: TestClient, text: str):
    return client.post("/api/do", json={"version": version(client), "text": text})


def test_the_roster_is_the_rulesets_stat_catalogue_the_sizes_sides_and_order(log: Path):
    r = as_role(log, "gm").get("/api/gm/roster")
    assert r.status_code == 200
    body = r.json()
    rs = get_ruleset("speed-meters")
    assert [s["name"] for s in body["stats"]] == [s.name for s in rs.stats]
    speed = next(s for s in body["stats"] if s["name"] == "speed")
    assert speed["unit"] == "m" and speed["min"] == 0 and speed["doc"]
    assert body["sides"] == ["blue", "red"] and "medium" in body["sizes"]
    assert [o["name"] for o in body["order"]] == ["Ari", "bo", "cy"]


@pytest.mark.parametrize("role", ["blue", "watcher"])
def test_only_the_gm_reads_the_roster(log: Path, role: str):
    assert as_role(log, role).get("/api/gm/roster").status_code == 403


def test_the_gm_adds_a_fighter_and_a_players_board_shows_it(log: Path):
    gm, blue = as_role(log, "gm"), as_role(log, "blue")
    r = send(gm, "join gob 5,1 side=red name='Gob the Tall' stats=speed:5 why='the door bursts open'")
    assert r.status_code == 200, r.json()
    board = blue.get("/api/state").json()
    gob = next(f for f in board["fighters"] if f["id"] == "gob")
    assert gob["name"] == "Gob the Tall" and gob["pos"][:2] == [5, 1]
    assert board["turn"]["order"][-1] == "gob"
    # a player's list says a ruling happened (app/web/redact.py keeps its words the GM's); the GM's says what
    assert blue.get("/api/events").json()["events"][-1]["text"] == "the GM made a ruling"
    texts = [e["text"] for e in gm.get("/api/events").json()["events"]]
    assert any("Gob the Tall (red) joins the fight at 5,1" in t for t in texts)


def test_a_player_may_not_add_or_remove_a_fighter_and_nothing_is_written(log: Path):
    blue = as_role(log, "blue")
    before = records(log)
    for text in ("join gob 5,1 side=blue stats=speed:5 why=help", "leave cy why=gone"):
        r = send(blue, text)
        assert r.status_code in (403, 422), r.json()
    assert records(log) == before


def test_a_wrong_field_is_refused_in_one_line_naming_it_and_nothing_is_written(log: Path):
    gm = as_role(log, "gm")
    before = records(log)
    r = send(gm, "join gob 5,1 side=red stats=speed:-5 why=help")
    assert r.status_code == 422
    assert r.json()["reason"] == "join: stats.speed: must not be negative, got -5"
    r = send(gm, "join gob 0,0 side=red stats=speed:5 why=help")
    assert r.status_code == 422 and r.json()["reason"].startswith("join: at: 0,0 is wall")
    assert records(log) == before


def test_the_gm_removes_a_fighter_and_undo_brings_it_back(log: Path):
    gm = as_role(log, "gm")
    assert send(gm, "leave cy why='knocked out'").status_code == 200
    assert "cy" not in [f["id"] for f in gm.get("/api/state").json()["fighters"]]
    r = gm.post("/api/undo", json={"version": version(gm)})
    assert r.status_code == 200
    assert "cy" in [f["id"] for f in gm.get("/api/state").json()["fighters"]]


def test_a_token_dragged_by_the_gm_is_a_place_ruling_with_its_reason(log: Path):
    gm = as_role(log, "gm")
    r = send(gm, "place cy 6,4 why='thrown by the blast'")
    assert r.status_code == 200
    board = gm.get("/api/state").json()
    assert next(f for f in board["fighters"] if f["id"] == "cy")["pos"][:2] == [6, 4]
