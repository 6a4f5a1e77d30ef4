"""A refusal names what really shuts the way (issue 28, item 5; rule tabletrail/walls).

A move sent through a wall was refused for the first wall on its straight line, though what
kept the fighter from the cell was a closed door on the way round. Now a step a wall stops
also names what shuts the way the engine would take round it (core/search/way.py: the cheapest way
priced by the ruleset's own step policy, through at most two things that stop a step): a
closed or locked door, a fighter, a forbidden cell, else the budget; or it says the way round
is open and how. The table view's drop on a cell out of reach sends that way, so its dry run
is refused by the rule that really applies.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import do, encounter, refuse
from support_web import bearer, invite
from tabletrail.cli import main
from tabletrail.core.board.walls import WALLS
from tabletrail.core.search.way import way_to

from tests.core.test_doors import STATS

#    0123456
#  0 .......
#  1 .m.....
#  2 .......      a wall along y = 3, with a door in it between 3,2 and 3,3
#  3 ---D---
#  4 .......
DOOR = "3,2|3,3"


def scene(
    ruleset: str, n: int = 6, door: str = "closed = true", foe: tuple[int, int] = (6, 0), gap: str = ""
) -> str:
    stats = STATS[ruleset]
    walls = '"0,3-3,3", "4,3-7,3"' + (f', "{gap}"' if gap else "")
    doors = "" if gap else f'doors = [{{ at = "{DOOR}", {door} }}]'
    return f"""
[encounter]
name = "the way round under {ruleset}"
ruleset = "{ruleset}"
[map]
rows = [".......", ".......", ".......", ".......", "......."]
legend = {{ "." = "floor" }}
walls = [{walls}]
{doors}
[[fighters]]
id = "m"
side = "blue"
at = [1, 1]
{stats.format(n=n)}
[[fighters]]
id = "foe"
side = "red"
at = [{foe[0]}, {foe[1]}]
{stats.format(n=2)}
"""


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_a_wall_on_the_straight_line_names_the_closed_door_that_shuts_the_way_round(ruleset: str):
    enc = encounter(scene(ruleset))
    why = refuse(enc, "move m 1,4", WALLS).reason
    assert "can't step from 1,2 to 1,3: a wall between 1,2 and 1,3" in why  # what the line meets
    assert why.endswith("; the way round is shut: the door at 3,2|3,3 is closed")  # what really shuts it


def test_a_locked_door_is_named_locked():
    enc = encounter(scene("speed-meters", door="locked = true"))
    assert refuse(enc, "move m 1,4", WALLS).reason.endswith("the door at 3,2|3,3 is locked")


def test_a_way_round_too_long_names_the_budget_with_its_numbers():
    enc = encounter(scene("speed-meters", n=3, door="closed = false"))
    why = refuse(enc, "move m 1,4", WALLS).reason
    assert why.endswith("; the way round is shut: the cheapest way to 1,4 costs 5 m, but only 3 m are left")


def test_a_fighter_in_the_doorway_is_named():
    """speed-meters: "Cannot move through spaces occupied by enemies" — the foe in the doorway shuts it."""
    enc = encounter(scene("speed-meters", door="closed = false", foe=(3, 3)))
    why = refuse(enc, "move m 1,4", WALLS).reason
    assert "; the way round is shut: " in why and "foe" in why.split("the way round is shut: ")[1]


def test_an_open_way_round_is_given_and_it_walks():
    enc = encounter(scene("speed-meters", door="closed = false"))
    why = refuse(enc, "move m 1,4", WALLS).reason
    assert "; the way round is open: by " in why and why.endswith("(5 m)")
    by = why.split("the way round is open: by ")[1].split(" (")[0]
    do(enc, f"move m {by}")
    assert enc.state.fighter("m").pos[:2] == (1, 4)


def test_a_cell_walled_off_says_no_way_reaches_it():
    enc = encounter(scene("speed-meters", gap="3,3-4,3"))
    assert refuse(enc, "move m 1,4", WALLS).reason.endswith("; no way round reaches 1,4")


def test_the_way_passes_the_fewest_stops_within_the_budget_then_the_cheapest():
    enc = encounter(scene("speed-meters"))
    way = way_to(enc.state, "m", (1, 4))
    assert way is not None and [s.words for s in way.stops] == ["the door at 3,2|3,3 is closed"]
    assert way.cells[-1] == (1, 4) and ((3, 2), (3, 3)) in list(zip(way.cells, way.cells[1:], strict=False))
    assert way.cost <= way.budget and not way.open
    assert way_to(enc.state, "m", (1, 1)) is None  # where it stands: no way to name
    walled = way_to(encounter(scene("speed-meters", gap="3,3-4,3")).state, "m", (1, 4))
    assert walled is not None and walled.cells == () and walled.cause() == "no way leads there"


def test_a_way_too_far_to_look_for_adds_nothing_to_the_wall(monkeypatch):
    """The search past the budget looks at MOST_NODES positions at most: a refusal stays quick."""
    from tabletrail.core.search import way

    monkeypatch.setattr(way, "MOST_NODES", 3)
    enc = encounter(scene("speed-meters", n=2, door="closed = false"))
    assert refuse(enc, "move m 1,4", WALLS).reason == (
        "the Movement can't step from 1,2 to 1,3: a wall between 1,2 and 1,3"
    )


# --- the table view: a drop out of reach previews the way, refused for what shuts it ------------------


@pytest.fixture
def table(tmp_path: Path):
    import warnings

    with warnings.catch_warnings():  # starlette asks for httpx2; httpx is what the test extra installs
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from tabletrail.web.server import create_app

    def make(text: str) -> TestClient:
        source = tmp_path / "s.toml"
        source.write_text(text, encoding="utf-8")
        log = tmp_path / "s.jsonl"
        assert main(["new", str(source), "--log", str(log)]) == 0
        return TestClient(create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log)[1]))

    return make


def test_a_drop_beyond_a_closed_door_is_refused_naming_the_door(table):
    client = table(scene("speed-meters"))
    p = client.post("/api/preview", json={"move": {"fighter": "m", "to": [1, 4]}}).json()
    assert p["ok"] is False and p["rule"] == WALLS and p["route"] == "blocked"
    assert "the closed door 3,2|3,3" in p["reason"] and "a wall between 1,2 and 1,3" not in p["reason"]
    assert [3, 2] in p["path"] and p["path"][-1] == [1, 4]


def test_a_drop_too_far_round_is_refused_by_the_budget(table):
    client = table(scene("speed-meters", n=2, door="closed = false"))
    p = client.post("/api/preview", json={"move": {"fighter": "m", "to": [1, 4]}}).json()
    assert p["ok"] is False and p["rule"].startswith("speed-meters/") and p["route"] == "blocked"
    assert "only" in p["reason"] and "wall" not in p["reason"]
