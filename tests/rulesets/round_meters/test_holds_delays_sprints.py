"""round-meters checked against document 001's own sentences (issue 12, items 5-7).

Each test quotes the sentence it holds the engine to.
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.core.engine.registry import RULESETS
from tabletrail.events.types import CheckRolled, Marked, Spent

from tests.rulesets.round_meters.test_rules import arena, rule

# --- hold and round-budget: "moving before, after, or between actions unless a rule or circumstance
# prevents it"; the Hold section never ends the turn. A table that wants it to names a setting. ---


def test_whether_a_hold_ends_the_turn_is_a_listed_setting_false_by_default():
    names = {s.name: s for s in RULESETS["round-meters"].all_settings()}
    assert names["hold_ends_turn"].rule == rule("hold") and names["hold_ends_turn"].default is False
    assert names["delay_before_action"].rule == rule("delay") and names["delay_before_action"].default is True


def test_by_default_the_holder_moves_on_after_holding_and_ends_its_turn_holding():
    enc = encounter(arena())
    do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    assert enc.state.turn.active == "ari"
    do(enc, "move ari 3,1")  # moving after an action
    events = do(enc, "end-turn")
    assert not [e for e in of_type(events, Spent) if e.fighter == "ari"]  # the hold was its action
    assert "held" in enc.state.fighter("ari").marks
    assert enc.state.fighter("ari").state("turn", "") == "holding" and enc.state.turn.active == "bo"


def test_with_hold_ends_turn_true_a_hold_ends_the_turn():
    enc = encounter(arena("hold_ends_turn = true"))
    do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    assert enc.state.turn.active == "bo"
    refuse(enc, "move ari 3,1", rule("passes"))


def test_delay_after_an_action_follows_the_setting():
    enc = encounter(arena())
    do(enc, "take-action ari aim")
    refuse(enc, "delay ari", rule("delay"))
    enc = encounter(arena("delay_before_action = false"))
    do(enc, "take-action ari aim")
    do(enc, "delay ari after=cyn")
    assert enc.state.turn.active == "bo"


# --- hold + sprint: "Sprinting is a Minor Action that costs 1 AP", a specific action to hold. -------


def test_a_sprint_can_be_held_and_resolves_with_its_test_when_triggered():
    enc = encounter(arena())
    events = do(enc, 'hold ari sprint "starts-move bo"')
    assert [(e.fighter, e.amount) for e in of_type(events, Spent)] == [("ari", 1)]
    do(enc, "end-turn")
    events = do(enc, "move bo 2,4 roll=15")  # ari's Athletics: 15 + 2 = 17, one positive Hit
    (test,) = of_type(events, CheckRolled)
    assert (test.fighter, test.check, test.number) == ("ari", "Athletics", 15)
    gain = [e for e in of_type(events, Spent) if e.fighter == "ari" and e.resource == "movement"]
    assert gain and gain[0].amount == -2 * CU
    sprints = [e for e in of_type(events, Marked) if e.key == "sprint-penalty"]
    assert sprints and sprints[0].value["penalty"] == -5


# --- sprint + difficult: "a cumulative −5 penalty to all other tests", the GM's terrain test too. --


def test_a_gm_required_terrain_test_cites_the_sprint_penalty_it_carries():
    enc = encounter(arena())
    do(enc, "sprint ari roll=14")
    do(enc, f'require-test 3,1 target=5 rule={rule("difficult")} why="loose scree"')
    events = do(enc, "move ari 3,1 roll=12")
    (test,) = [c for c in of_type(events, CheckRolled) if c.check == "ruled test"]
    assert test.modifier == -5
    assert rule("sprint") in test.rules and rule("difficult") in test.rules
