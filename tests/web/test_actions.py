"""The phone view's buttons (app/web/actions.py): every verb from the ruleset's own commands, the engine
saying which are allowed now and what they cost, refusals as sentences, and the reactions awaited.

Each verdict is the engine's: a button is checked against a command run (or refused) the same way.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from support import do, encounter
from support_web import ap_squares_log, bearer, invite, new_log, records
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for
from tabletrail.web import actions
from tabletrail.web.server import create_app

CELLAR = Path(__file__).parents[2] / "scenarios" / "initiative-yards-cellar.toml"


def button(answer: dict, key: str) -> dict:
    found = [a for a in answer["actions"] if a["key"] == key]
    assert found, f"no {key} among {[a['key'] for a in answer['actions']]}"
    return found[0]


def opened(log: Path) -> Encounter:
    return Encounter.open(store_for(str(log)))


# --- speed-meters: posture, targets, costs -----------------------------------------------------


def test_a_posture_change_is_a_button_with_its_cost_in_words_and_standing_follows_dropping(tmp_path: Path):
    enc = opened(new_log(tmp_path))
    drop = button(actions.answer(enc, "blue", "ari"), "drop-prone")
    # speed-meters: dropping prone is an action of the turn; the dry run spends 1 of them.
    assert drop == {**drop, "label": "Drop prone (1 action)", "cost": "1 action", "needs": None, "ok": True}
    assert drop["text"] == "drop-prone ari"
    do(enc, f"{drop['text']} by=blue")
    after = actions.answer(enc, "blue", "ari")
    assert "prone" in after["card"]["states"]
    stand = button(after, "stand-up")
    assert stand["ok"] and stand["cost"] not in (None, "free"), stand
    # the button's text is a command the engine takes as it is
    do(enc, f"{stand['text']} by=blue")
    assert "prone" not in actions.answer(enc, "blue", "ari")["card"]["states"]


def test_a_verb_that_needs_a_fighter_offers_those_within_reach(tmp_path: Path):
    enc = opened(new_log(tmp_path))
    grab = button(actions.answer(enc, "blue", "ari"), "grab")
    assert grab["needs"] == "fighter" and grab["text"] == "grab ari {fighter}"
    assert grab["targets"] == ["bo"]  # cy stands far off, across the room


def test_moving_offers_the_reachable_area_as_its_cells(tmp_path: Path):
    from tabletrail.core.search.reach import reach

    enc = opened(new_log(tmp_path))
    move = button(actions.answer(enc, "blue", "ari"), "move")
    area = reach(enc.state, "ari")
    assert move["needs"] == "cell" and move["text"] == "move ari {cell}"
    assert sorted(map(tuple, move["targets"])) == sorted(c for c in area.costs if c != (1, 1))
    assert move["cost"] == "up to 4 m"


def test_a_refused_verb_says_why_in_a_sentence_naming_whose_turn_it_is(tmp_path: Path):
    enc = opened(new_log(tmp_path))
    answer = actions.answer(enc, "red", "cy")
    drop = button(answer, "drop-prone")
    assert drop["ok"] is False
    assert drop["why"] == "cy can't drop prone yet: it is Ari's turn."
    move = button(answer, "move")
    assert move["why"] == "cy can't move yet: it is Ari's turn." and move["targets"] == []


def test_a_link_gets_no_buttons_for_another_sides_fighter_and_a_watcher_none_at_all(tmp_path: Path):
    enc = opened(new_log(tmp_path))
    assert actions.answer(enc, "red", "ari")["actions"] == []
    watched = actions.answer(enc, "watcher", "ari")
    assert watched["actions"] == [] and watched["mine"] is False
    assert watched["card"]["left"][0] == "4 m to move"  # a watcher still reads the card


def test_the_gms_buttons_include_what_only_the_gm_narrates(tmp_path: Path):
    enc = opened(new_log(tmp_path))
    gm = {a["key"] for a in actions.answer(enc, "gm", "ari")["actions"]}
    blue = {a["key"] for a in actions.answer(enc, "blue", "ari")["actions"]}
    assert "random" in gm and "random" not in blue  # "Move a fighter in a random direction (GM command)"


def test_an_unknown_fighter_is_a_lookup_error_naming_the_fighters(tmp_path: Path):
    with pytest.raises(LookupError, match=r"no fighter 'zed' \(fighters: ari, bo, cy\)"):
        actions.answer(opened(new_log(tmp_path)), "gm", "zed")


# --- initiative-yards: a door, a verb that needs a cell ----------------------------------------


def cellar() -> Encounter:
    return encounter(CELLAR.read_text())


def test_a_door_beside_the_fighter_is_a_button_and_its_edge_the_target():
    enc = cellar()
    assert all(a["key"] != "open" for a in actions.answer(enc, "blue", "ari")["actions"])  # no door beside
    do(enc, "move ari 4,2 by=blue")
    open_ = button(actions.answer(enc, "blue", "ari"), "open")
    assert open_ == {**open_, "label": "Open the door", "needs": "door", "targets": ["4,2|5,2"], "ok": True}
    do(enc, open_["text"].replace("{door}", open_["targets"][0]) + " by=blue")
    after = actions.answer(enc, "blue", "ari")
    assert all(a["key"] != "open" for a in after["actions"])  # it is open now: only closing it is offered
    assert button(after, "close")["targets"] == ["4,2|5,2"]


def test_a_verb_that_needs_a_cell_is_offered_with_the_engines_places_or_asks_the_board():
    enc = cellar()
    leap = button(actions.answer(enc, "blue", "ari"), "leap")
    assert leap["needs"] == "cell" and leap["text"] == "leap ari {cell}"
    for x, y in leap.get("targets", []):  # every place offered is one the engine allows
        result = enc.preview(actions._as("blue", f"leap ari {x},{y}"))  # noqa: SLF001
        assert not isinstance(result, actions.Rejection), (x, y, result)


def test_under_initiative_yards_the_card_counts_yards():
    card = actions.answer(cellar(), "blue", "ari")["card"]
    assert re.fullmatch(r"\d+(\.\d+)? yd to move", card["left"][0]), card


# --- ap-squares: a reaction awaited, answered by its side out of turn ----------------------------


def test_an_invaded_square_awaits_its_occupants_answer_on_its_own_side_only(tmp_path: Path):
    enc = opened(ap_squares_log(tmp_path))
    do(enc, "move ari 3,1 by=blue")  # bo holds 3,1: the move waits before it
    red = actions.awaiting(enc, "red")
    assert len(red) == 1
    wait = red[0]
    assert wait == {
        **wait,
        "kind": "invasion",
        "fighter": "bo",
        "side": "red",
        "mine": True,
        "blocking": True,
    }
    assert wait["prompt"] == "ari is entering bo's square"
    labels = [c["label"] for c in wait["choices"]]
    assert labels == ["Parry", "Body-block (2 AP)", "Let in"]  # the body-block's 2 AP from the dry run
    blue = actions.awaiting(enc, "blue")[0]
    assert blue["mine"] is False and blue["choices"] == [] and blue["prompt"] == wait["prompt"]
    assert actions.awaiting(enc, "gm")[0]["mine"] is True


def test_the_reacting_side_answers_out_of_turn_through_the_server_and_another_side_may_not(tmp_path: Path):
    log = ap_squares_log(tmp_path)
    blue = TestClient(
        create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log, "blue")[1])
    )
    red = TestClient(create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log, "red")[1]))
    version = blue.get("/api/state").json()["version"]
    assert blue.post("/api/do", json={"version": version, "text": "move ari 3,1"}).status_code == 200
    state = red.get("/api/state").json()
    assert state["turn"]["active"] == "ari"  # it is not bo's turn
    choice = next(c for c in state["awaiting"][0]["choices"] if c["label"] == "Let in")
    before = records(log)
    wrong = blue.post("/api/do", json={"version": state["version"], "text": choice["text"]})
    assert wrong.status_code == 403 and "bo fights for red" in wrong.json()["message"]
    assert records(log) == before
    right = red.post("/api/do", json={"version": state["version"], "text": choice["text"]})
    assert right.status_code == 200, right.json()
    assert opened(log).state.fighter("ari").pos[:2] == (3, 1)  # let in: ari entered bo's square
    assert red.get("/api/state").json()["awaiting"] == []


def test_a_waiting_invasion_refuses_other_buttons_with_the_engines_reason(tmp_path: Path):
    enc = opened(ap_squares_log(tmp_path))
    do(enc, "move ari 3,1 by=blue")
    drop = button(actions.answer(enc, "blue", "ari"), "drop-prone")
    assert drop["ok"] is False and drop["why"].startswith(
        "ari can't drop prone: ari's move waits to enter 3,1"
    )
    assert "react-invasion" not in drop["why"] and "by=" not in drop["why"]


def test_an_area_effect_awaits_each_caught_sides_leap_and_the_gms_landing(tmp_path: Path):
    log = ap_squares_log(tmp_path)
    enc = opened(log)
    do(enc, "area-effect 1,1 2,1 3,1 damage=4")  # catches ari (blue) and bo (red); it is ari's turn
    red = {w["fighter"]: w for w in actions.awaiting(enc, "red")}
    assert red["bo"]["mine"] and not red["ari"]["mine"] and red["ari"]["choices"] == []
    leap = next(c for c in red["bo"]["choices"] if c["label"] == "Leap clear")
    assert leap["needs"] == "cell" and [4, 1] in leap["targets"]
    assert all(c[:2] not in ([1, 1], [2, 1], [3, 1]) for c in leap["targets"])  # never inside the area
    assert [w for w in actions.awaiting(enc, "gm") if w["fighter"] is None][0]["choices"][0][
        "text"
    ] == "area-hit"
    assert all(w["fighter"] is not None for w in red.values())  # landing it is the GM's
    red_link = TestClient(
        create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log, "red")[1])
    )
    blue_link = TestClient(
        create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log, "blue")[1])
    )
    version = red_link.get("/api/state").json()["version"]
    text = leap["text"].replace("{cell}", "4,1") + " roll=10"
    assert blue_link.post("/api/do", json={"version": version, "text": text}).status_code == 403
    answered = red_link.post("/api/do", json={"version": version, "text": text})
    assert answered.status_code == 200, answered.json()
    left = {w["fighter"] for w in red_link.get("/api/state").json()["awaiting"]}
    assert "bo" not in left and "ari" in left


DROP = """
[encounter]
name = "drop"
ruleset = "speed-meters"
seed = 1
[map]
rows = [".....", "....."]
[map.legend]
"." = "floor"
[[fighters]]
id = "ari"
side = "blue"
at = [1, 0]
speed = 4
fly = 40
[[fighters]]
id = "bo"
side = "red"
at = [4, 1]
speed = 4
"""


def test_a_long_fall_awaits_the_fallers_skill_feat_also_on_anothers_turn():
    enc = encounter(DROP)
    do(enc, "fly ari 1,0,30 by=blue")
    do(enc, "fall ari")  # the GM's: 30 m, more than a turn's 20 m, so it lands at a later turn start
    do(enc, "end-turn")  # now it is bo's turn, and ari still falls
    blue = actions.awaiting(enc, "blue")
    assert [w["kind"] for w in blue] == ["fall"] and blue[0]["mine"]
    assert blue[0]["prompt"] == "ari is falling: a Skill Feat may soften the landing"
    feat = blue[0]["choices"][0]
    assert feat == {**feat, "label": "Skill Feat: 2 Bumps", "text": "skill-feat ari 2", "ok": True}
    assert actions.awaiting(enc, "red")[0]["mine"] is False
    do(enc, f"{feat['text']} by=blue")  # fall-table: "entered while falling", whoever's turn it is
    assert enc.state.fighter("ari").marks["skill_feat"] == 2


YARD = """
[encounter]
name = "yard"
ruleset = "initiative-yards"
seed = 1
[map]
rows = ["......", "......"]
[map.legend]
"." = "floor"
[[fighters]]
id = "ari"
side = "blue"
at = [1, 0]
initiative = 8
height = 1.8
[[fighters]]
id = "kel"
name = "Kel"
side = "red"
at = [3, 0]
initiative = 6
height = 1.8
"""


def test_a_strike_awaits_its_outcome_and_the_card_says_the_engagement_once():
    enc = encounter(YARD)
    do(enc, "move ari 2,0 by=blue")  # beside Kel: engaged
    do(enc, "act ari strike target=kel by=blue")
    assert actions.answer(enc, "blue", "ari")["card"]["states"] == ["taking its turn", "engaged with Kel"]
    wait = actions.awaiting(enc, "gm")
    assert [w["kind"] for w in wait] == ["strike"] and wait[0][
        "prompt"
    ] == "ari's Strike at Kel awaits its outcome"
    assert [c["text"] for c in wait[0]["choices"]] == ["resolve ari kel hit", "resolve ari kel miss"]
    assert actions.awaiting(enc, "red")[0]["choices"] == []
    do(enc, wait[0]["choices"][1]["text"])
    assert actions.awaiting(enc, "gm") == [] and enc.state.links == ()


def test_get_api_actions_answers_each_link_as_its_role(tmp_path: Path):
    log = new_log(tmp_path)

    def link(role: str) -> TestClient:
        return TestClient(
            create_app(log), base_url="http://127.0.0.1:8000", headers=bearer(invite(log, role)[1])
        )

    blue = link("blue").get("/api/actions?fighter=ari")
    assert blue.status_code == 200
    body = blue.json()
    assert body == {**body, "fighter": "ari", "name": "Ari", "side": "blue", "mine": True, "awaiting": []}
    assert body["version"] == len(records(log))
    assert button(body, "drop-prone")["ok"] is True
    watched = link("watcher").get("/api/actions?fighter=ari").json()
    assert watched["actions"] == [] and watched["card"] == body["card"]
    missing = link("gm").get("/api/actions?fighter=zed")
    assert missing.status_code == 404 and "no fighter 'zed'" in missing.json()["message"]
    assert (
        TestClient(create_app(log), base_url="http://127.0.0.1:8000")
        .get("/api/actions?fighter=ari")
        .status_code
        == 401
    )
