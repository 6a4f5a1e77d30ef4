"""The table view's HTTP API, endpoint by endpoint: answers, refusals, stale versions, bad input.

Every write that must change nothing is checked against the log file's bytes.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():  # starlette 1.x asks for httpx2; httpx is what the test extra installs
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from support import CLOCK, encounter
from support import do as support_do
from support_web import STATES, ap_squares_log, append_facts, bearer, invite, new_log, records
from tabletrail.core.board.geometry import expand
from tabletrail.core.board.units import CU, fmt
from tabletrail.core.engine.machines import GRAPHS
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import Ruleset
from tabletrail.core.rulesets.ap_squares.zero_g import DIRECTIONS
from tabletrail.core.search.reach import reach
from tabletrail.events.errors import InputError
from tabletrail.service.encounter import Encounter
from tabletrail.service.stores import store_for
from tabletrail.service.syntax import parse
from tabletrail.text.render import Words
from tabletrail.web import views
from tabletrail.web.server import create_app

from tests.rulesets.round_meters.test_rules import arena as round_meters_arena


@pytest.fixture(params=["web.jsonl", "web.db"])
def log(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """The same encounter as a JSON Lines log and as a SQLite store."""
    return new_log(tmp_path, name=request.param)


def opened(log: Path) -> Encounter:
    return Encounter.open(store_for(str(log)))


def as_role(log: Path, role: str = "gm", base_url: str = "http://127.0.0.1:8000") -> TestClient:
    """A client holding a fresh invitation link's token for `role` (the GM unless told)."""
    return TestClient(create_app(log), base_url=base_url, headers=bearer(invite(log, role)[1]))


@pytest.fixture
def client(log: Path) -> TestClient:
    return as_role(log)


def version(client: TestClient) -> int:
    return client.get("/api/state").json()["version"]


def lines(log: Path) -> int:
    return len(records(log))


def do(client: TestClient, text: str) -> dict:
    r = client.post("/api/do", json={"version": version(client), "text": text})
    assert r.status_code == 200, r.json()
    return r.json()


def fighter(board: dict, fid: str) -> dict:
    return next(f for f in board["fighters"] if f["id"] == fid)


# --- the page ---------------------------------------------------------------------------------


def test_the_page_and_its_script_are_served(client: TestClient, log: Path):
    page = client.get(f"/join/{invite(log, 'blue')[1]}")
    assert page.status_code == 200 and '<svg id="board"' in page.text
    assert page.headers["referrer-policy"] == "no-referrer"  # the token in the address stays here
    bare = client.get("/")
    assert bare.status_code == 401 and "invitation link" in bare.text and "<svg" not in bare.text
    assert "/static/table.js" in page.text
    script = client.get("/static/table.js")  # the page's glue, an ES module importing the rest
    assert script.status_code == 200 and "./api.js" in script.text
    api = client.get("/static/api.js")
    assert api.status_code == 200 and "EventSource" in api.text


# --- GET /api/state -----------------------------------------------------------------------------


def test_state_is_the_board_at_the_latest_version(client: TestClient, log: Path):
    board = client.get("/api/state").json()
    assert board["version"] == board["at"] == lines(log)
    assert board["live"] is True
    assert board["map"]["rows"][2] == "#..~~....#"
    assert board["map"]["legend"]["^"]["ground"] == CU
    assert fighter(board, "ari")["pos"] == [1, 1, 0] and fighter(board, "ari")["active"] is True
    assert board["turn"]["active"] == "ari"
    assert board["undo"] is None and board["redo"] is None
    assert "move" in {c["verb"] for c in board["commands"]}


def test_state_at_a_past_point_is_read_only_and_shows_the_board_then(client: TestClient):
    before = version(client)
    do(client, "move ari 4,1")
    now = client.get("/api/state").json()
    assert fighter(now, "ari")["pos"][:2] == [4, 1]
    past = client.get(f"/api/state?at={before}").json()
    assert past["live"] is False and past["at"] == before and past["version"] == now["version"]
    assert fighter(past, "ari")["pos"][:2] == [1, 1]


@pytest.mark.parametrize("at", ["0", "x", "-1", "²"])
def test_state_at_that_is_no_sequence_number_is_a_clear_400(client: TestClient, at: str):
    r = client.get(f"/api/state?at={at}")
    assert r.status_code == 400 and r.json()["message"].startswith("at:")


def test_state_at_past_the_log_is_a_404_naming_the_log(client: TestClient):
    """A sequence number the document allows but the log has not reached: no such event (yet)."""
    r = client.get("/api/state?at=999")
    assert r.status_code == 404 and r.json()["message"].startswith("at: no event 999")


def test_state_carries_every_fighter_state_link_mark_and_height(client: TestClient, log: Path):
    append_facts(log, STATES)
    board = client.get("/api/state").json()
    ari, bo, cy = (fighter(board, fid) for fid in ("ari", "bo", "cy"))
    assert bo["states"]["posture"] == "prone"
    assert ["engaged", "ari", "cy"] in board["links"] and ["grab", "bo", "cy"] in board["links"]
    assert cy["states"]["gravity"] == "drifting" and cy["marks"] == {"trajectory": {"dir": "e", "speed": 1}}
    # a drift's heading is ap-squares' to read (Ruleset.heading): this speed-meters board draws none;
    # tests/rulesets/test_presentation.py draws it on an ap-squares board
    assert cy["heading"] is None
    assert cy["damage"] == 3
    assert ari["states"]["mode"] == "flying" and ari["pos"][2] == 150 and ari["ground"] == 0


def test_state_names_each_machines_resting_state_so_the_board_can_leave_it_unsaid(client: TestClient):
    machines = client.get("/api/state").json()["machines"]
    assert machines == {name: g.initial for name, g in GRAPHS.items()}
    assert machines["gravity"] == "grounded" and machines["mode"] == "walking"


def test_a_drift_the_engine_draws_is_sent_as_the_heading_it_carries(tmp_path: Path):
    log = ap_squares_log(tmp_path)
    client = as_role(log, base_url="http://127.0.0.1:8000")
    do(client, "gravity-off 1,1 5,3")  # nobody grabs hold: both drift, the seeded dice draw the ways
    board = client.get("/api/state").json()
    for f in board["fighters"]:
        mark = opened(log).state.fighter(f["id"]).marks["trajectory"]
        assert f["states"]["gravity"] == "drifting"
        assert (f["heading"]["dx"], f["heading"]["dy"]) == DIRECTIONS[mark["dir"]]
        assert f["heading"]["speed"] == mark["speed"] and mark["dir"] in f["heading"]["why"]


def test_spent_budgets_are_sent_in_the_rulesets_words_not_hundredths(client: TestClient, log: Path):
    do(client, "move ari 4,1")
    ari = fighter(client.get("/api/state").json(), "ari")
    engine = opened(log).state.fighter("ari")
    rs = get_ruleset("speed-meters")
    assert ari["spent_text"] == [Words(rs).amount(k, v) for k, v in sorted(engine.spent.items()) if v]
    assert f"{fmt(engine.spent['movement'])} m" in ari["spent_text"]
    assert str(engine.spent["movement"]) not in " ".join(ari["spent_text"])  # 300 would be hundredths
    assert ari["move_unit"] == "m"


def test_before_and_after_cards_carry_budgets_in_words(client: TestClient):
    p = client.post("/api/preview", json={"move": {"fighter": "ari", "to": [4, 1]}}).json()
    after = next(f for f in p["fighters"] if f["id"] == "ari")["after"]
    assert f"{fmt(after['spent']['movement'])} m" in after["spent_text"]
    assert after["move_left_text"] == f"{fmt(after['move_left'])} m"
    do(client, "move ari 4,1")
    seq = next(e["seq"] for e in client.get("/api/events").json()["events"] if e["type"] == "moved")
    card = next(f for f in client.get(f"/api/events/{seq}").json()["fighters"] if f["id"] == "ari")
    assert card["after"]["spent_text"] == after["spent_text"]


# --- GET /api/events and /api/events/{seq} -------------------------------------------------------


def test_events_list_every_record_with_its_rule_ids_and_status(client: TestClient):
    do(client, "move ari 3,1")
    r = client.post("/api/undo", json={"version": version(client)})
    assert r.status_code == 200
    events = client.get("/api/events").json()["events"]
    moved = next(e for e in events if e["type"] == "moved")
    assert moved["rules"] == ["speed-meters/movement", "speed-meters/occupancy"]  # through bo, an ally
    assert moved["status"] == "undone"
    assert events[-1]["type"] == "undone" and events[-1]["rules"] == ["tabletrail/undo"]


def test_the_event_list_and_the_preview_say_what_do_prints(client: TestClient, log: Path):
    """One presentation layer: each event reads on the page as `do` prints it, in the ruleset's unit."""
    from tabletrail.text.render import event_line

    done = do(client, "move ari 2,2 3,2")
    enc = opened(log)
    rs = get_ruleset(enc.state.ruleset)
    listed = client.get("/api/events").json()["events"]
    for e, r in zip(listed, enc.records, strict=True):
        if e["type"] == "command":  # a command in words, never as typed (issue 38): "Ari: Move to 3,2 …"
            assert e["text"] == views.said(enc.state, r.event.command) and "move ari" not in e["text"]
            continue
        line = event_line(r.event, rs)  # what `do` and `log` print after the sequence number
        assert line.startswith(e["text"]) and (not e["note"] or line.endswith(f"— {e['note']}"))
    moved = next(e for e in listed if e["type"] == "moved")
    assert moved["text"] == "ari moved 2,2 (1 m), 3,2 (2 m, rough): 3 m of 4 m", moved
    assert [r["text"] for r in done["records"]] == [e["text"] for e in listed[-len(done["records"]) :]]
    r = client.post("/api/preview", json={"version": version(client), "text": "move ari 4,2"})
    consequences = r.json()["events"]
    assert any(e["text"] == "ari moved 4,2 (2 m, rough): 2 m of 4 m" for e in consequences), consequences


def test_explain_gives_rules_in_words_the_steps_and_the_fighter_before_and_after(client: TestClient):
    do(client, "move ari 2,2 3,2")
    events = client.get("/api/events").json()["events"]
    seq = next(e["seq"] for e in events if e["type"] == "moved")
    x = client.get(f"/api/events/{seq}").json()
    assert x["rules"][0]["id"] == "speed-meters/movement"
    assert "Speed meters" in x["rules"][0]["enforce"]
    assert x["command"]["text"] == "move ari 2,2 3,2" and x["text"].startswith("ari moved")
    assert [s["cost"] for s in x["moves"][0]["steps"]] == [CU, 2 * CU]  # sand costs 2 (rough)
    ari = next(f for f in x["fighters"] if f["id"] == "ari")
    assert ari["before"]["pos"][:2] == [1, 1] and ari["after"]["pos"][:2] == [3, 2]


@pytest.mark.parametrize("seq", ["0", "9999", "abc"])
def test_explain_of_an_unknown_event_is_a_404(client: TestClient, seq: str):
    r = client.get(f"/api/events/{seq}")
    assert r.status_code == 404 and "no event" in r.json()["message"]


# --- GET /api/reach -----------------------------------------------------------------------------


def test_reach_is_the_engines_reachable_area(client: TestClient, log: Path):
    r = client.get("/api/reach?fighter=ari").json()
    engine = reach(opened(log).state, "ari")
    assert {(x, y): c for x, y, c in r["cells"]} == engine.costs
    assert r["budget"] == 4 * CU
    assert [2, 1] not in [[x, y] for x, y, _ in r["cells"]]  # bo's space: passed, never ended on
    assert [3, 2, 3 * CU] in r["cells"]  # 1 m to 2,2, then 2 m onto the sand (rough)


def test_reach_names_the_cells_a_second_movement_action_would_reach(client: TestClient, log: Path):
    """speed-meters movement: each action may be a Movement of a fresh Speed (ari: Speed 4, 4 actions)."""
    r = client.get("/api/reach?fighter=ari").json()
    further = r["further"]
    assert further["action"] == "a second Movement action" and further["budget"] == 8 * CU
    state = opened(log).state
    one, two = reach(state, "ari").costs, reach(state, "ari", extra=4 * CU).costs
    assert {(x, y): c for x, y, c in further["cells"]} == {c: v for c, v in two.items() if c not in one}
    assert further["cells"] and all(c > r["budget"] for _, _, c in further["cells"])
    assert set(further["routes"]) == {f"{x},{y}" for x, y, _ in further["cells"]}
    for cell in ("2,2", "1,1", "2,2"):  # three of ari's four actions spent: no second Movement left
        do(client, f"move ari {cell}")
    assert client.get("/api/reach?fighter=ari").json()["further"] is None


def test_a_drop_in_the_further_band_previews_the_route_the_ruler_drew(client: TestClient):
    """The preview of a cell one more action would reach follows that cheapest route (not a straight
    line through whatever stands between) and is refused for its cost, as the ruler said."""
    r = client.get("/api/reach?fighter=ari").json()
    cell = max(r["further"]["cells"], key=lambda c: c[2])
    route = r["further"]["routes"][f"{cell[0]},{cell[1]}"]
    answer = client.post("/api/preview", json={"move": {"fighter": "ari", "to": cell[:2]}}).json()
    assert answer["ok"] is False and answer["route"] == "cheapest"
    assert answer["path"] == [[x, y] for x, y, _ in route]
    assert answer["rule"].startswith("speed-meters/")


def test_reach_under_round_meters_names_a_sprints_two_meters():
    """sprint: 1 AP buys +2 m per positive Hit; the band shows one Hit's worth, while 1 AP is left."""
    rs = get_ruleset("round-meters")
    enc = encounter(round_meters_arena(ari_ap=1))
    assert rs.further_budget(enc.state, enc.state.fighter("ari")) == (
        2 * CU,
        "a Sprint (1 AP) with one positive Hit",
    )
    support_do(enc, "take-action ari aim")  # its last AP
    assert rs.further_budget(enc.state, enc.state.fighter("ari")) == (0, "")


@pytest.mark.parametrize("ruleset", ["ap-squares", "initiative-yards"])
def test_reach_has_no_further_band_where_no_action_lengthens_a_move(ruleset: str):
    """ap-squares: the AP are the move's budget already; initiative-yards: one +Move+ action."""
    rs = get_ruleset(ruleset)
    assert type(rs).further_budget is Ruleset.further_budget


def test_the_turn_strip_says_who_delayed_who_holds_and_who_is_done():
    """round-meters delay and hold: the strip's words for a turn moved, an action held, a turn over."""
    enc = encounter(round_meters_arena())

    def words(fid: str) -> str:
        return views.fighter(enc.state, enc.state.fighter(fid))["turn_text"]

    assert words("ari") == "" and words("bo") == ""  # acting, waiting
    support_do(enc, "delay ari after=cyn")
    assert words("ari") == "delayed behind cyn"
    support_do(enc, 'hold bo shoot "starts-move dax" target=dax')
    support_do(enc, "end-turn")
    assert words("bo") == "holding shoot at dax"
    support_do(enc, "end-turn")  # cyn's
    assert words("cyn") == "done this pass"


def test_reach_of_the_fighter_to_act_is_not_blocked(client: TestClient):
    assert client.get("/api/reach?fighter=ari").json()["blocked"] is None


def test_reach_of_a_fighter_out_of_turn_says_why_it_cant_move_now(client: TestClient, log: Path):
    r = client.get("/api/reach?fighter=cy").json()
    assert {(x, y): c for x, y, c in r["cells"]} == reach(opened(log).state, "cy").costs  # still priced
    assert r["blocked"]["rule"] == "tabletrail/turn-order" and "ari's turn" in r["blocked"]["reason"]


def test_reach_while_a_move_waits_for_an_answer_says_so(tmp_path: Path):
    log = ap_squares_log(tmp_path)
    client = as_role(log, base_url="http://127.0.0.1:8000")
    assert client.get("/api/reach?fighter=ari").json()["blocked"] is None
    do(client, "move ari 3,1")  # bo's square: the move waits for bo to parry, block or allow
    r = client.get("/api/reach?fighter=ari").json()
    assert r["cells"] and r["blocked"]["rule"] == "ap-squares/invade"
    assert "bo must answer first" in r["blocked"]["reason"]
    refused = client.post("/api/preview", json={"text": r["blocked"]["tried"]}).json()
    assert refused["ok"] is False and refused["reason"] == r["blocked"]["reason"]  # as the engine says


def test_reach_with_the_budget_spent_says_why_nothing_is_in_reach(client: TestClient, log: Path):
    for cell in ("2,2", "1,1", "2,2", "1,1"):  # ari's four actions, each a Movement
        do(client, f"move ari {cell}")
    r = client.get("/api/reach?fighter=ari").json()
    assert r["cells"] == [] and r["budget"] == 0
    assert r["blocked"]["rule"] == "speed-meters/stop" and "all 4 actions" in r["blocked"]["reason"]
    refused = client.post("/api/preview", json={"text": r["blocked"]["tried"]}).json()
    assert refused["ok"] is False and r["blocked"]["rule"] == refused["rule"]
    assert r["blocked"]["reason"] == refused["reason"]


def test_reach_of_an_unknown_fighter_is_a_404_naming_the_fighters(client: TestClient):
    r = client.get("/api/reach?fighter=zed")
    assert r.status_code == 404
    assert "no fighter 'zed'" in r.json()["message"] and "ari, bo, cy" in r.json()["message"]


# --- POST /api/preview --------------------------------------------------------------------------


def test_preview_of_a_destination_takes_the_cheapest_path_and_appends_nothing(client: TestClient, log: Path):
    before = records(log)
    r = client.post(
        "/api/preview", json={"version": version(client), "move": {"fighter": "ari", "to": [5, 2]}}
    )
    p = r.json()
    assert r.status_code == 200 and p["ok"] is True and p["route"] == "cheapest"
    costs = {(x, y): c for x, y, c in client.get("/api/reach?fighter=ari").json()["cells"]}
    assert p["moves"][0]["total"] == costs[(5, 2)] == 4 * CU  # round the sand: 4 steps of 1 m
    assert {"spent", "moved"} <= {e["type"] for e in p["events"]}
    assert records(log) == before


def test_preview_of_waypoints_follows_straight_lines(client: TestClient):
    body = {"move": {"fighter": "ari", "waypoints": [[1, 2], [3, 2]]}}
    p = client.post("/api/preview", json=body).json()
    assert p["text"] == "move ari 1,2 3,2"
    assert [s["cell"][:2] for s in p["moves"][0]["steps"]] == [[1, 2], [2, 2], [3, 2]]
    assert [s["cost"] for s in p["moves"][0]["steps"]] == [CU, CU, 2 * CU]


def test_preview_of_a_refused_move_names_the_rule_and_why(client: TestClient, log: Path):
    before = records(log)
    p = client.post("/api/preview", json={"text": "move ari 6,1"}).json()
    assert p["ok"] is False and p["rule"] == "speed-meters/movement" and "Speed meters" in p["enforce"]
    assert "5 m" in p["reason"] and "4 m" in p["reason"]
    assert p["needs_roll"] is False
    assert records(log) == before


def test_a_refused_move_preview_carries_the_route_asked_for(client: TestClient):
    # cy's cell: no move may end there, with this action or one more, so no route is the engine's
    p = client.post("/api/preview", json={"move": {"fighter": "ari", "to": [7, 3]}}).json()
    assert p["ok"] is False and p["route"] == "straight"
    assert p["path"] == [list(c) for c in expand((1, 1), [(7, 3)])] and p["from"][:2] == [1, 1]
    cheapest = client.post("/api/preview", json={"move": {"fighter": "ari", "to": [5, 2]}}).json()
    assert cheapest["path"] == [s["cell"][:2] for s in cheapest["moves"][0]["steps"]]


def test_preview_with_a_stale_version_is_a_409(client: TestClient):
    r = client.post("/api/preview", json={"version": 1, "text": "end-turn"})
    assert r.status_code == 409 and r.json()["error"] == "stale"


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"{not json", 400, "not JSON"),
        (b"", 400, "no body"),
        (b"[1, 2]", 400, "Expected `object`"),
        (json.dumps({"text": "end-turn", "colour": "red"}).encode(), 400, "unknown field"),
        (json.dumps({"version": "ten", "text": "end-turn"}).encode(), 400, "$.version"),
        (
            json.dumps({"text": "end-turn", "move": {"fighter": "ari", "to": [2, 2]}}).encode(),
            400,
            "not both",
        ),
        (json.dumps({}).encode(), 400, "either text"),
        (json.dumps({"text": "dance ari 3,3"}).encode(), 400, "unknown command 'dance'"),
        (json.dumps({"text": "move ari three"}).encode(), 400, "not a cell"),
        (json.dumps({"move": {"fighter": "ari", "to": [40, 2]}}).encode(), 400, "off the 10x6 map"),
        (json.dumps({"move": {"fighter": "ari", "to": [1]}}).encode(), 400, "$.move.to"),
        (json.dumps({"move": {"fighter": "ari"}}).encode(), 400, "destination"),
        (
            json.dumps({"move": {"fighter": "ari", "to": [2, 2], "waypoints": [[3, 3]]}}).encode(),
            400,
            "waypoints, not both",
        ),
        (json.dumps({"move": {"fighter": "zed", "to": [2, 2]}}).encode(), 404, "no fighter 'zed'"),
    ],
)
def test_malformed_previews_get_a_clear_4xx(
    client: TestClient, log: Path, body: bytes, status: int, words: str
):
    before = records(log)
    r = client.post("/api/preview", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status, r.json()
    assert words in r.json()["message"]
    assert records(log) == before


# --- POST /api/do -------------------------------------------------------------------------------


def test_do_appends_the_batch_and_moves_the_fighter(client: TestClient, log: Path):
    n = lines(log)
    r = client.post("/api/do", json={"version": n, "move": {"fighter": "ari", "to": [4, 1]}})
    assert r.status_code == 200
    body = r.json()
    assert body["version"] == lines(log) > n
    assert body["records"][0]["type"] == "command" and body["text"] == "move ari 4,1"
    assert fighter(client.get("/api/state").json(), "ari")["pos"][:2] == [4, 1]
    assert opened(log).state.fighter("ari").pos[:2] == (4, 1)  # the file says so too


def test_a_refused_do_is_a_422_with_rule_and_reason_and_appends_nothing(client: TestClient, log: Path):
    before = records(log)
    r = client.post("/api/do", json={"version": lines(log), "text": "move ari 2,1"})
    assert r.status_code == 422
    body = r.json()
    assert body["rule"] == "speed-meters/occupancy" and "occupied by bo" in body["reason"]
    assert records(log) == before


def test_an_out_of_turn_do_is_refused_by_the_turn_order(client: TestClient, log: Path):
    before = records(log)
    r = client.post("/api/do", json={"version": lines(log), "move": {"fighter": "cy", "to": [7, 4]}})
    assert r.status_code == 422 and r.json()["rule"] == "tabletrail/turn-order"
    assert records(log) == before


def test_a_stale_do_is_a_409_and_changes_nothing(client: TestClient, log: Path):
    seen = lines(log)
    do(client, "end-turn")  # the other GM was quicker
    before = records(log)
    r = client.post("/api/do", json={"version": seen, "text": "move ari 3,1"})
    assert r.status_code == 409
    body = r.json()
    assert body["error"] == "stale" and body["seen"] == seen and body["version"] == lines(log)
    assert "someone else changed the encounter" in body["message"]
    assert records(log) == before


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"text": "end-turn"}, "missing required field `version`"),
        ({"version": 4, "text": "end-turn", "reveal": True}, "unknown field `reveal`"),
        ({"version": None, "text": "end-turn"}, "$.version"),
        ({"version": 4, "text": "end-turn", "command_id": ""}, "$.command_id"),
        ({"version": 4, "text": "move"}, "move needs fighter"),
        ({"version": 4, "text": "end-turn", "rolls": ["six"]}, "$.rolls[0]"),
        ({"version": 4, "text": 'move ari "3,1'}, "No closing quotation"),
    ],
)
def test_malformed_dos_are_a_400_and_append_nothing(client: TestClient, log: Path, body: dict, words: str):
    before = records(log)
    r = client.post("/api/do", json=body)
    assert r.status_code == 400 and words in r.json()["message"]
    assert records(log) == before


# --- table rolls (tabletrail/checks) ----------------------------------------------------------------


def test_a_table_check_asks_for_the_roll_and_takes_it(tmp_path: Path):
    log = new_log(tmp_path, checks="table")
    client = as_role(log, base_url="http://127.0.0.1:8000")
    do(client, 'require-test 2,2 target=4 why="oil on the floor"')
    before = records(log)
    body = {"version": version(client), "move": {"fighter": "ari", "to": [2, 2]}}
    asked = client.post("/api/preview", json=body).json()
    assert asked["ok"] is False and asked["needs_roll"] is True and asked["rule"] == "tabletrail/checks"
    assert "roll" in asked["reason"]
    refused = client.post("/api/do", json=body)
    assert refused.status_code == 422 and refused.json()["needs_roll"] is True
    assert records(log) == before
    rolled = client.post("/api/preview", json={**body, "rolls": [5]}).json()
    assert rolled["ok"] is True and rolled["text"].endswith("roll=5")
    done = client.post("/api/do", json={**body, "rolls": [5]})
    assert done.status_code == 200
    check = next(r for r in opened(log).records if r.event.__class__.__name__ == "CheckRolled")
    assert check.event.source == "table" and check.event.number == 5 and check.event.passed is True


def test_a_preview_hides_a_seeded_roll_unless_the_gm_reveals_it(client: TestClient, log: Path):
    do(client, 'require-test 2,2 target=4 why="oil on the floor"')
    before = records(log)
    body = {"version": version(client), "move": {"fighter": "ari", "to": [2, 2]}}
    hidden = client.post("/api/preview", json=body).json()
    assert hidden["ok"] is True and hidden["checks"][0]["hidden"] is True
    assert hidden["checks"][0]["number"] is None and hidden["checks"][0]["passed"] is None
    assert hidden["events"][-1]["type"] == "check" and "drawn on confirming" in hidden["events"][-1]["text"]
    assert "number=" not in json.dumps(hidden["events"]) and "rolled" not in json.dumps(hidden["events"])
    assert all(m["stopped"] == "" for m in hidden["moves"])  # a stop would tell a failed test
    assert "hidden" not in hidden  # nor how many events follow (a passed test lets the move go on)
    shown = client.post("/api/preview", json={**body, "reveal": True}).json()
    number = shown["checks"][0]["number"]
    assert shown["checks"][0]["hidden"] is False and number is not None
    assert f"rolled {number}" in json.dumps(shown["events"])
    assert records(log) == before  # neither preview drew the die
    client.post("/api/do", json=body)
    check = next(r.event for r in opened(log).records if r.event.__class__.__name__ == "CheckRolled")
    assert check.source == "seeded" and check.number == number


# --- POST /api/undo and /api/redo -------------------------------------------------------------------


def test_undo_and_redo_move_the_fighter_back_and_forth(client: TestClient, log: Path):
    do(client, "move ari 3,1")
    r = client.post("/api/undo", json={"version": lines(log), "why": "wrong square"})
    assert r.status_code == 200 and r.json()["records"][0]["type"] == "undone"
    board = client.get("/api/state").json()
    assert fighter(board, "ari")["pos"][:2] == [1, 1] and board["redo"]["text"] == "move ari 3,1"
    r = client.post("/api/redo", json={"version": lines(log)})
    assert r.status_code == 200
    assert fighter(client.get("/api/state").json(), "ari")["pos"][:2] == [3, 1]


def test_nothing_to_undo_or_redo_is_a_422_citing_the_undo_rule(client: TestClient, log: Path):
    before = records(log)
    for verb in ("undo", "redo"):
        r = client.post(f"/api/{verb}", json={"version": lines(log)})
        assert r.status_code == 422 and r.json()["rule"] == "tabletrail/undo"
        assert f"nothing to {verb}" in r.json()["reason"]
    assert records(log) == before


def test_a_player_may_not_undo_the_gms_command(client: TestClient, log: Path):
    do(client, "move ari 3,1")
    before = records(log)
    r = as_role(log, "blue").post("/api/undo", json={"version": lines(log)})
    assert r.status_code == 403 and "entered by gm" in r.json()["message"]
    assert records(log) == before


@pytest.mark.parametrize("body", [{}, {"version": "4"}, {"version": 4, "extra": 1}])
def test_malformed_and_stale_undos_change_nothing(client: TestClient, log: Path, body: dict):
    do(client, "move ari 3,1")
    before = records(log)
    assert client.post("/api/undo", json=body).status_code == 400
    assert client.post("/api/undo", json={"version": 2}).status_code == 409
    assert client.post("/api/redo", json={"version": 2}).status_code == 409
    assert records(log) == before


# --- GET /api/stream (server-sent events) ------------------------------------------------------------


def test_the_stream_sends_the_version_when_it_differs_from_what_the_page_has(client: TestClient, log: Path):
    r = client.get("/api/stream?seconds=0&last=1")
    assert r.headers["content-type"].startswith("text/event-stream")
    assert f'event: version\nid: {lines(log)}\ndata: {{"version": {lines(log)}}}' in r.text
    quiet = client.get(f"/api/stream?seconds=0&last={lines(log)}")
    assert "event: version" not in quiet.text


@pytest.mark.parametrize("query", ["seconds=soon", "seconds=nan", "seconds=inf", "seconds=-1", "last=x"])
def test_the_stream_rejects_nonsense_parameters(client: TestClient, query: str):
    r = client.get(f"/api/stream?{query}")
    assert r.status_code == 400 and r.json()["message"].startswith("stream:")


# --- the log on disk is the source of truth ---------------------------------------------------------


def test_a_change_made_outside_the_server_is_seen_at_once(client: TestClient, log: Path):
    v = version(client)
    enc = Encounter.open(store_for(str(log)), clock=lambda: CLOCK)  # e.g. `tabletrail do` in a terminal
    enc.execute(parse("move ari 1,3"), "move ari 1,3")
    board = client.get("/api/state").json()
    assert board["version"] > v and fighter(board, "ari")["pos"][:2] == [1, 3]
    r = client.post("/api/do", json={"version": v, "text": "end-turn"})
    assert r.status_code == 409  # the page that saw the old version may not write


def test_a_body_that_is_not_sent_as_json_is_refused_and_changes_nothing(client: TestClient, log: Path):
    before = records(log)
    body = json.dumps({"version": lines(log), "text": "move ari 3,1"})
    r = client.post("/api/do", content=body, headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and "application/json" in r.json()["message"]
    assert records(log) == before


def test_requests_to_another_host_name_are_refused(log: Path):
    stranger = as_role(log, base_url="http://attacker.example")
    assert stranger.get("/api/state").status_code == 400
    assert stranger.post("/api/undo", json={"version": 4}).status_code == 400


def test_an_unknown_fighter_in_a_typed_command_is_refused_and_changes_nothing(client: TestClient, log: Path):
    before = records(log)
    r = client.post("/api/do", json={"version": lines(log), "text": "move zed 3,1"})
    assert r.status_code == 422 and r.json()["rule"] == "tabletrail/fighter"
    assert "no fighter 'zed'" in r.json()["reason"]
    assert records(log) == before


def test_a_missing_log_is_an_error_before_serving(tmp_path: Path):
    with pytest.raises(InputError, match="no such log file"):
        create_app(tmp_path / "nope.jsonl")


def test_a_log_broken_while_serving_is_a_500_naming_the_line(tmp_path: Path):
    log = new_log(tmp_path)  # a JSON Lines file someone edits by hand
    client = as_role(log, base_url="http://127.0.0.1:8000")
    with open(log, "ab") as fh:
        fh.write(b"garbage\n")
    r = client.get("/api/state")
    assert r.status_code == 500 and r.json()["error"] == "log unreadable"
    assert f"{log}:" in r.json()["message"]


# --- what the board needs to draw: routes for the drag ruler, quick options, names, colours, pictures ---


def test_reach_sends_the_engines_cheapest_route_to_every_cell(client: TestClient, log: Path):
    data = client.get("/api/reach?fighter=ari").json()
    area = reach(opened(log).state, "ari")
    assert set(data["routes"]) == {f"{x},{y}" for x, y in area.costs}
    for (x, y), cost in area.costs.items():
        route = data["routes"][f"{x},{y}"]
        assert [tuple(c[:2]) for c in route] == area.path((x, y))
        assert route[-1][2] == cost  # the running cost at the cell is the area's cost


def test_options_are_every_quick_command_dry_run_now(client: TestClient, log: Path):
    before = records(log)
    data = client.get("/api/options?fighter=ari").json()
    enc = opened(log)
    verbs = {o["verb"] for o in data["options"]}
    assert "end-turn" in verbs and "move" not in verbs
    assert not verbs & {"forbid", "setting", "override"}  # rulings are not quick commands
    for o in data["options"]:
        result = enc.preview(parse(o["text"]))
        refused = hasattr(result, "rule")
        assert o["ok"] == (not refused or "needs a roll" in result.reason), o
        if not o["ok"]:
            assert o["rule"] == result.rule and o["reason"] == result.reason
    assert any(o["ok"] for o in data["options"]) and any(not o["ok"] for o in data["options"])
    assert records(log) == before  # a dry run appends nothing
    assert client.get("/api/options?fighter=zed").status_code == 404


def test_a_players_options_leave_out_what_its_link_may_not_ask(log: Path):
    red = as_role(log, "red")
    assert red.get("/api/options?fighter=ari").json()["options"] == []  # blue's fighter
    own = red.get("/api/options?fighter=cy").json()["options"]
    assert own and all(o["text"].startswith(f"{o['verb']} cy") for o in own)


def test_names_colours_and_pictures_come_from_the_scenario(tmp_path: Path):
    from support_web import big_log, token_png

    log = big_log(tmp_path / "hall")
    c = as_role(log, "red")
    board = c.get("/api/state").json()
    assert board["side_colours"] == {"blue": "#1f5fbf", "red": "#b3261e"}
    assert fighter(board, "cy")["name"] == "Cyrene the Grey"
    assert fighter(board, "ari")["image"] is True and fighter(board, "bo")["image"] is False
    picture = c.get("/api/image/ari")
    assert picture.status_code == 200 and picture.content == token_png()
    assert c.get("/api/image/bo").status_code == 404
    assert c.get("/api/image/zed").status_code == 404
    assert as_role(log, "blue").get("/api/image/ari", headers={"Authorization": ""}).status_code == 401


def test_a_command_sent_again_with_its_key_appends_nothing_new(client: TestClient, log: Path):
    v = version(client)
    body = {"version": v, "move": {"fighter": "ari", "to": [4, 1]}, "command_id": "page-key-0001"}
    first = client.post("/api/do", json=body)
    assert first.status_code == 200
    after = records(log)
    again = client.post("/api/do", json=body)  # the answer was lost; the page sends it again
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert [r["seq"] for r in again.json()["records"]] == [r["seq"] for r in first.json()["records"]]
    assert records(log) == after
    undo = {"version": len(after), "command_id": "page-key-0002"}
    assert client.post("/api/undo", json=undo).status_code == 200
    undone = records(log)
    assert client.post("/api/undo", json=undo).json()["replayed"] is True
    assert records(log) == undone
    bad = client.post("/api/do", json={**body, "command_id": "no spaces allowed"})
    assert bad.status_code == 400 and "command_id" in bad.json()["message"]
    blue = as_role(log, "blue")  # another link can't claim the GM's key
    assert blue.post("/api/do", json={**body, "version": len(undone)}).status_code == 409
    assert records(log) == undone
