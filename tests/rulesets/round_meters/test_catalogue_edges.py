"""round-meters, row by row of the catalogue: what each rule allows, refuses and costs at its
edges, and which rule id the engine cites. Only items no earlier test pins.

The arena is test_rules' mud yard: initiative ari > bo > cyn > dax; ari has Movement 6,
3 AP and Athletics +2; x 3-5 of rows 2-3 is mud (difficult). An Athletics total scores a positive
Hit per full 5 above 10 (house default), so roll=13 is one Hit.
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import Marked, Moved, OrderChanged

from tests.rulesets.round_meters.test_rules import ap_used, arena, ends, fighter, rule, spent


def cost(events) -> int:
    return sum(s.cost for m in of_type(events, Moved) for s in m.steps)


# --- round-budget: "A character may move up to their Movement in meters during each round." ---


def test_the_last_two_meters_buy_exactly_one_meter_of_mud():
    # difficult: "Each meter moved through Difficult Terrain costs 2 meters of Movement."
    enc = encounter(arena('diagonal = "every-1"'))
    assert cost(do(enc, "move ari 5,1")) == 4 * CU
    m = of_type(do(enc, "move ari 5,2"), Moved)[0]  # exactly the 2 m left
    assert [s.cost for s in m.steps] == [2 * CU]
    assert {rule("round-budget"), rule("difficult")} <= set(m.rules)
    assert fighter(enc, "ari").used("movement") == 6 * CU
    refuse(enc, "move ari 6,2", rule("round-budget"))  # nothing left, even on open ground


def test_sprinted_meters_are_walked_to_the_last_meter_and_no_further():
    # sprint: "For each positive Hit, gain +2 meters of Movement for the current round."
    enc = encounter(arena())
    do(enc, "sprint ari roll=13")  # one Hit: 6 + 2 = 8 m this round
    refuse(enc, "move ari 10,1", rule("round-budget"))  # 9 m: one over
    assert cost(do(enc, "move ari 9,1")) == 8 * CU  # exactly 8 m
    assert ap_used(enc, "ari") == 1  # the sprint's 1 AP; the walk cost none (move-free)


def test_a_walk_records_no_ap_spent():
    # move-free: "Normal movement does not cost AP."
    enc = encounter(arena())
    events = do(enc, "move ari 7,1")
    assert spent(events, "ap") == [] and ap_used(enc, "ari") == 0
    assert rule("move-free") in of_type(events, Moved)[0].rules


# --- sprint: "Sprinting is a Minor Action that costs 1 AP." ---------------------------------------


def test_a_sprint_with_exactly_one_ap_left_is_allowed_and_the_next_refused():
    enc = encounter(arena(ari_ap=2))
    do(enc, "sprint ari roll=13")
    events = do(enc, "sprint ari roll=13")  # the second use, with exactly 1 AP left
    assert [(s.amount, s.rules) for s in spent(events, "ap")] == [(1, (rule("sprint"),))]
    assert ap_used(enc, "ari") == 2
    refuse(enc, "sprint ari roll=13", rule("sprint"))


# --- delay: "Choose a combatant who has not yet acted during the current pass, or choose to act
# at the end of the current pass." -------------------------------------------------------------


def test_delaying_behind_yourself_is_refused():
    enc = encounter(arena())
    refuse(enc, "delay ari after=ari", rule("delay"))


def test_delaying_behind_someone_not_in_the_encounter_is_refused():
    # an unknown name is the engine's input check, as for every command, not the delay rule
    enc = encounter(arena())
    r = refuse(enc, "delay ari after=zed", "tabletrail/fighter")
    assert "zed" in r.reason


def test_the_delayed_turn_is_your_turn_and_may_be_delayed_again_within_the_pass():
    # "During your turn, you may Delay"; the delayed turn is the character's turn.
    enc = encounter(arena())
    do(enc, "delay ari after=bo")
    ends(enc, 1)  # bo's turn ends: ari's delayed turn
    assert enc.state.turn.active == "ari"
    events = do(enc, "delay ari after=cyn")
    (order,) = of_type(events, OrderChanged)
    assert order.order == ("bo", "cyn", "ari", "dax") and order.rules == (rule("delay"),)
    assert enc.state.turn.active == "cyn"


# --- hold: "When you Hold an Action, immediately spend the AP required for that action." ---------


def test_holding_with_exactly_the_actions_ap_is_allowed():
    enc = encounter(arena(ari_ap=2))
    events = do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    assert [(s.amount, s.rules) for s in spent(events, "ap")] == [(2, (rule("hold"),))]
    assert ap_used(enc, "ari") == 2


def test_a_second_hold_never_silently_drops_the_first_paid_one():
    # hold: "When you Hold an Action, immediately spend the AP required for that action. If the
    # trigger occurs before your next turn, resolve the held action immediately." A paid held action
    # must stay held until its trigger or the holder's next turn: a second hold while it is pending
    # is refused (one held action at a time) and appends nothing; the first still fires.
    enc = encounter(arena(ari_ap=5))
    do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    r = refuse(enc, 'hold ari shoot "starts-move dax" target=dax', rule("hold"))
    assert "already holds shoot at cyn" in r.reason and "starts-move cyn" in r.reason
    assert ap_used(enc, "ari") == 2
    do(enc, "end-turn")
    ends(enc, 1)  # bo
    events = do(enc, "move cyn 9,1")
    fired = [m for m in of_type(events, Marked) if m.key == "action" and m.fighter == "ari"]
    assert fired and fired[0].value["held"] and fired[0].value["target"] == "cyn"
