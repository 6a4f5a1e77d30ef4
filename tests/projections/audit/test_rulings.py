"""GM rulings (tabletrail/gm-ruling): each allowed for the GM with a reason, refused otherwise,
charging what it says; logged as RulingMade plus its facts; shown by explain and accepted by verify."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from support import do, encounter, grid, of_type, refuse
from tabletrail.core.engine.cell_rulings import FORBID, TEST
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.types import (
    BoardMarked,
    CheckRolled,
    CommandIssued,
    Moved,
    Placed,
    RulingMade,
    SettingChanged,
    Spent,
)
from tabletrail.projections.audit import explain, verify_lines
from tabletrail.service.encounter import Encounter

from tests.projections.audit.test_verify import rechain, records

RULING = "tabletrail/gm-ruling"
CU = 100


ROWS = ["#########", "#.......#", "#.......#", "#...^...#", "#########"]


def arena(speed: int = 3) -> str:
    return f"""
[encounter]
name = "rulings"
ruleset = "speed-meters"
seed = 11
{grid(ROWS, '"^" = {terrain = "floor", ground = 1}')}
[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = {speed}
[[fighters]]
id = "e"
side = "red"
at = [7, 3]
speed = 4
"""


def ruling(events) -> RulingMade:
    (r,) = of_type(events, RulingMade)
    return r


def verified(enc) -> dict:
    report = verify_lines(enc.store.lines)
    assert report["ok"], report["finding"]
    return report


# --- every ruling: the GM only, and with a reason ---------------------------------------------------

RULINGS = [
    "override a 6,1 speed-meters/movement",
    "adjust a 2",
    "place a 4,2",
    "require-test 3,1 target=4",
    "forbid 3,1",
    "setting diagonal alternating",
]


@pytest.mark.parametrize("text", RULINGS)
def test_a_player_may_not_rule(text: str):
    enc = encounter(arena())
    r = refuse(enc, f"{text} by=blue why='because'", RULING)
    assert "only the GM" in r.reason and "blue" in r.reason


@pytest.mark.parametrize("text", RULINGS)
def test_a_ruling_must_say_why(text: str):
    enc = encounter(arena())
    r = refuse(enc, text, RULING)
    assert "must say why" in r.reason


@pytest.mark.parametrize("text", RULINGS)
def test_every_ruling_is_logged_with_who_and_why_first_and_verify_accepts_it(text: str):
    enc = encounter(arena())
    events = do(enc, f"{text} why='table call'")
    assert isinstance(events[0], CommandIssued) and isinstance(events[1], RulingMade)
    r = ruling(events)
    assert (r.by, r.why) == ("gm", "table call") and RULING in r.rules
    report = verified(enc)
    assert [x["kind"] for x in report["rulings"]] == [r.kind]
    seq = next(rec.seq for rec in enc.records if isinstance(rec.event, RulingMade))
    assert explain(enc.records, seq)["rulings"]["made_here"][0]["why"] == "table call"


def test_rulings_are_not_bound_to_the_turn_order():
    enc = encounter(arena())
    do(enc, "place e 6,3 why='it was there all along'")  # it is a's turn
    assert enc.state.fighter("e").pos[:2] == (6, 3)


# --- override --------------------------------------------------------------------------------------


def test_override_places_the_fighter_where_the_refused_move_would_end_citing_the_rule_set_aside():
    enc = encounter(arena(speed=3))
    refuse(enc, "move a 6,1", "speed-meters/movement")  # 5 m > Speed 3
    events = do(enc, "override a 6,1 speed-meters/movement attempt='move a 6,1' why='the ladder counts'")
    r = ruling(events)
    assert r.kind == "override" and r.detail["rule"] == "speed-meters/movement"
    assert r.detail["attempt"] == "move a 6,1"
    (placed,) = of_type(events, Placed)
    assert placed.to == (6, 1, 0) and placed.rules == (RULING, "speed-meters/movement")
    assert not of_type(events, Spent) and not of_type(events, Moved)  # no cost unless the GM charges one
    assert enc.state.fighter("a").pos[:2] == (6, 1)
    verified(enc)


def test_override_charges_the_cost_the_gm_names():
    enc = encounter(arena())
    events = do(enc, "override a 6,1 speed-meters/movement cost=2.5 why='half the ladder'")
    (spent,) = of_type(events, Spent)
    assert (spent.resource, spent.amount) == ("movement", 250)
    assert enc.state.fighter("a").used("movement") == 250


def test_override_refuses_a_rule_the_ruleset_does_not_have_and_cells_nothing_can_stand_in():
    enc = encounter(arena())
    r = refuse(enc, "override a 6,1 round-meters/sprint why=x", RULING)
    assert "not a rule of speed-meters" in r.reason and "speed-meters/movement" in r.reason
    r = refuse(enc, "override a 0,1 speed-meters/movement why=x", RULING)
    assert "0,1 is wall" in r.reason
    refuse(enc, "override zed 2,1 speed-meters/movement why=x", "tabletrail/fighter")


# --- adjust ------------------------------------------------------------------------------------------


def test_adjust_gives_movement_back_as_a_negative_spent_and_takes_it_as_a_positive_one():
    enc = encounter(arena())
    (give,) = of_type(do(enc, "adjust a 2 why='tailwind'"), Spent)
    assert (give.resource, give.amount) == ("movement", -2 * CU)
    (take,) = of_type(do(enc, "adjust a -0.5 why='mud'"), Spent)
    assert take.amount == 50
    assert enc.state.fighter("a").used("movement") == -150


def test_adjust_an_action_lets_a_fighter_start_one_more_movement():
    enc = encounter(arena(speed=1))
    for x in (2, 3, 4, 5):  # four actions a turn, one Movement each
        do(enc, f"move a {x},1")
    refuse(enc, "move a 6,1", "speed-meters/stop")
    r = ruling(do(enc, "adjust a 1 resource=actions why='haste'"))
    assert r.kind == "adjust-actions" and r.detail == {"fighter": "a", "resource": "actions", "amount": 1}
    do(enc, "move a 6,1")
    verified(enc)


def test_adjust_refuses_nothing_and_fractions_of_a_count():
    enc = encounter(arena())
    assert "changes nothing" in refuse(enc, "adjust a 0 why=x", RULING).reason
    assert "whole numbers" in refuse(enc, "adjust a 0.5 resource=actions why=x", RULING).reason


# --- place -----------------------------------------------------------------------------------------


def test_place_puts_a_fighter_on_the_ground_of_the_cell_with_no_cost():
    enc = encounter(arena())
    events = do(enc, "place a 4,3 why='knocked there'")
    (placed,) = of_type(events, Placed)
    assert placed.to == (4, 3, 100) and placed.how == "gm"  # the platform is 1 m up
    assert not of_type(events, Spent)
    assert ruling(events).detail == {"fighter": "a", "from": [1, 1, 0], "to": [4, 3, 100]}


def test_place_refuses_walls_the_map_edge_and_the_same_cell():
    enc = encounter(arena())
    assert "wall" in refuse(enc, "place a 0,0 why=x", RULING).reason
    assert "off the 9x5 map" in refuse(enc, "place a 9,1 why=x", RULING).reason
    assert "already at 1,1" in refuse(enc, "place a 1,1 why=x", RULING).reason


# --- require-test and forbid: cells, in core/engine/cell_rulings' format, honoured by walk ---


def test_require_test_stores_the_cell_ruling_format_and_a_failed_test_ends_the_move_there():
    enc = encounter(arena(speed=5))
    events = do(enc, "require-test 3,1 4,1 target=4 rule=speed-meters/movement why='oil'")
    (mark,) = of_type(events, BoardMarked)
    assert mark.key == TEST
    assert mark.value == [
        [3, 1, "speed-meters/movement", "oil", 4],
        [4, 1, "speed-meters/movement", "oil", 4],
    ]
    moved = do(enc, "move a 6,1 roll=3")  # 3 < 4: fails at 3,1
    (check,) = of_type(moved, CheckRolled)
    assert (check.number, check.target, check.passed, check.rules) == (
        3,
        4,
        False,
        ("speed-meters/movement",),
    )
    assert enc.state.fighter("a").pos[:2] == (3, 1)
    verified(enc)


def test_require_test_passed_lets_the_move_go_on_with_a_test_per_ruled_cell():
    enc = encounter(arena(speed=5))
    do(enc, "require-test 3,1 4,1 target=4 why='oil'")
    moved = do(enc, "move a 6,1 roll=4 roll=6")
    assert [c.passed for c in of_type(moved, CheckRolled)] == [True, True]
    assert enc.state.fighter("a").pos[:2] == (6, 1)
    assert sum(s.cost for m in of_type(moved, Moved) for s in m.steps) == 5 * CU  # the test costs nothing


def test_forbid_refuses_a_move_across_the_cell_citing_the_ruling_and_lift_allows_it_again():
    enc = encounter(arena(speed=5))
    (mark,) = of_type(do(enc, "forbid 3,1 why='collapsed floor'"), BoardMarked)
    assert (mark.key, mark.value) == (FORBID, [[3, 1, RULING, "collapsed floor"]])
    r = refuse(enc, "move a 5,1", RULING)
    assert "3,1" in r.reason and "collapsed floor" in r.reason
    lifted = do(enc, "lift 3,1 why='shored up'")
    assert of_type(lifted, BoardMarked)[0].value is None and FORBID not in enc.state.marks
    do(enc, "move a 5,1")
    verified(enc)


def test_cell_rulings_refuse_cells_off_the_map_unknown_rules_and_empty_lifts():
    enc = encounter(arena())
    assert "off the 9x5 map" in refuse(enc, "forbid 12,1 why=x", RULING).reason
    assert "not a rule" in refuse(enc, "require-test 2,1 target=3 rule=nope/x why=x", RULING).reason
    assert "no forbid or test ruling" in refuse(enc, "lift 2,1 why=x", RULING).reason


def test_a_new_ruling_on_a_cell_replaces_the_old_one_and_keeps_the_others():
    enc = encounter(arena())
    do(enc, "require-test 2,1 3,1 target=3 why='wet'")
    do(enc, "require-test 3,1 target=5 why='wetter'")
    assert enc.state.marks[TEST] == [[2, 1, RULING, "wet", 3], [3, 1, RULING, "wetter", 5]]


# --- setting -------------------------------------------------------------------------------------


def test_a_setting_ruling_changes_what_later_moves_cost():
    enc = encounter(arena(speed=5))
    events = do(enc, "setting diagonal alternating why='house rule'")
    (changed,) = of_type(events, SettingChanged)
    assert (changed.key, changed.value) == ("diagonal", "alternating")
    assert ruling(events).detail == {"setting": "diagonal", "from": "every-1", "to": "alternating"}
    assert changed.rules == (RULING, "speed-meters/movement")
    moved = do(enc, "move a 3,3")  # two diagonals: 1 then 2 under alternating
    assert [s.cost for m in of_type(moved, Moved) for s in m.steps] == [CU, 2 * CU]


def test_a_setting_ruling_refuses_unknown_settings_bad_values_and_no_change():
    enc = encounter(arena())
    r = refuse(enc, "setting speed 9 why=x", RULING)
    assert "no setting 'speed'" in r.reason and "diagonal" in r.reason
    assert "'sideways' is not one of" in refuse(enc, "setting diagonal sideways why=x", RULING).reason
    assert "already 'every-1'" in refuse(enc, "setting diagonal every-1 why=x", RULING).reason
    assert "true or false" in refuse(enc, "setting strict_turns maybe why=x", RULING).reason


# --- undo, explain and verify see rulings like anything else -----------------------------------------


def test_undoing_a_ruling_takes_back_its_facts():
    enc = encounter(arena(speed=5))
    do(enc, "forbid 3,1 why='pit'")
    do(enc, "undo")
    assert FORBID not in enc.state.marks
    do(enc, "move a 5,1")


def test_explain_lists_the_rulings_in_force_before_an_event():
    enc = encounter(arena(speed=5))
    do(enc, "forbid 2,2 why='pit'")
    do(enc, "adjust a 1 why='haste'")
    do(enc, "move a 4,1")
    seq = next(r.seq for r in enc.records if isinstance(r.event, Moved))
    rulings = explain(enc.records, seq)["rulings"]
    assert [r["kind"] for r in rulings["in_force"]] == ["forbid-crossing", "adjust-movement"]
    assert rulings["cells"][0]["kind"] == "forbid"


def test_verify_refuses_a_ruling_forged_for_a_player():
    enc = encounter(arena())
    do(enc, "place a 4,2 why='knocked there'")
    recs = records(list(enc.store.lines))
    forged = []
    for r in recs:
        if r.batch == 2:
            event = r.event
            if isinstance(event, CommandIssued):
                event = msgspec.structs.replace(
                    event, command=msgspec.structs.replace(event.command, by="blue")
                )
            if isinstance(event, RulingMade):
                event = msgspec.structs.replace(event, by="blue")
            r = msgspec.structs.replace(r, actor="blue", event=event)
        forged.append(r)
    f = verify_lines(rechain(forged))["finding"]
    ruling_seq = next(r.seq for r in recs if isinstance(r.event, RulingMade))
    assert (f["seq"], f["rule"], f["kind"]) == (ruling_seq, RULING, "decision")
    assert "only the GM" in f["reason"]


def test_verify_refuses_a_placement_no_ruling_authorised():
    enc = encounter(arena(speed=5))
    do(enc, "move a 3,1")
    recs = records(list(enc.store.lines))
    sneak = msgspec.structs.replace(
        recs[-1], event=Placed(fighter="a", to=(7, 1, 0), how="gm", rules=(RULING,))
    )
    f = verify_lines(rechain([*recs, sneak]))["finding"]
    assert f["seq"] == len(recs) + 1 and f["recorded"]["type"] == "placed"
    assert "produce nothing here" in f["reason"]


def test_a_setting_ruling_says_a_switch_as_yes_or_no(tmp_path: Path) -> None:
    """A GM's setting change reads as the GM says it, not as Python writes True or 'every-1'."""
    from tabletrail.cli import main

    log = tmp_path / "s.jsonl"
    scenario = Path(__file__).resolve().parents[3] / "scenarios" / "speed-meters-skirmish.toml"
    assert main(["new", str(scenario), "--log", str(log)]) == 0
    assert main(["do", str(log), "setting", "short_fall_prone", "false", "why=table ruling"]) == 0
    assert main(["do", str(log), "setting", "diagonal", "euclidean", "why=table ruling"]) == 0
    notes = {r.event.note for r in Encounter.open(JsonlStore(log)).records}
    assert "short_fall_prone goes from yes to no from here on" in notes
    assert "diagonal goes from every-1 to euclidean from here on" in notes
