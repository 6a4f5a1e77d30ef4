"""The free ruler (`GET /api/ruler`, app/web/api/ruler.py, issue 38 item 4): the distance between two
cells under the ruleset's own diagonal rule, and a fighter's cost to go there now, its reachable
area's number; anyone with a link may measure; a cell that is no cell is a 400 naming it."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from support_web import bearer, invite, new_log
from tabletrail.core.board.geometry import distance
from tabletrail.core.search.reach import reach
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for
from tabletrail.web.api.reach import further
from tabletrail.web.server import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return new_log(tmp_path)


def client(log: Path, role: str) -> TestClient:
    return TestClient(create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log, role)[1]))


def test_the_distance_is_the_rulesets_and_anyone_may_measure(log: Path):
    state = Encounter.open(store_for(str(log))).state
    for role in ("watcher", "blue", "gm"):
        r = client(log, role).get("/api/ruler", params={"from": "0,0", "to": "3,2"})
        assert r.status_code == 200, r.text
        assert r.json()["distance"] == distance(state.settings["diagonal"], (0, 0), (3, 2))
        assert "fighter" not in r.json()  # no one stands on 0,0


def test_from_a_fighters_cell_the_cost_is_its_reachable_areas(log: Path):
    state = Encounter.open(store_for(str(log))).state
    f = state.fighters[0]
    area = reach(state, f.id)
    near = min((c for c in area.costs if c != tuple(f.pos[:2])), key=lambda c: (area.costs[c], c))
    r = client(log, "watcher").get(
        "/api/ruler", params={"from": f"{f.pos[0]},{f.pos[1]}", "to": f"{near[0]},{near[1]}"}
    )
    mine = r.json()["fighter"]
    assert mine["id"] == f.id and mine["cost"] == area.costs[near]
    assert f.name in mine["words"] and f.id not in mine["words"].replace(f.name, "")
    grid = state.grid
    beyond = max(
        ((x, y) for x in range(grid.width) for y in range(grid.height) if not grid.blocked(x, y)),
        key=lambda c: distance("euclidean", c, f.pos[:2]),
    )
    assert beyond not in area.costs  # the far corner: out of this move's reach
    far = client(log, "gm").get(
        "/api/ruler", params={"from": "0,0", "to": f"{beyond[0]},{beyond[1]}", "fighter": f.id}
    )
    told = far.json()["fighter"]
    more = further(state, f, area)
    band = {(x, y): c for x, y, c in more.cells} if more else {}
    if beyond in band:
        assert told["cost"] == band[beyond] and "one more action" in told["words"]
    else:
        assert told["cost"] is None and told["words"].startswith(f"{f.name} can't get there now")


@pytest.mark.parametrize(
    ("params", "status", "words"),
    [
        ({"from": "a,b", "to": "1,1"}, 400, "from:"),
        ({"from": "1,1"}, 400, "to:"),
        ({"from": "1,1", "to": "99,1"}, 404, "off the"),  # a cell, but not one of this map
        ({"from": "1,1", "to": "2,1", "fighter": "nobody"}, 404, "no fighter 'nobody'"),
    ],
)
def test_a_cell_that_is_no_cell_is_refused_naming_it(log: Path, params: dict, status: int, words: str):
    r = client(log, "watcher").get("/api/ruler", params=params)
    assert r.status_code == status and words in r.json()["message"]
