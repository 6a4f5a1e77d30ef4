"""round-meters, situations a GM meets at a real table, each combining two or more rules of
document 001, played through the real engine.

Each test quotes the document's words next to what it asserts. The arena is test_rules'
mud yard: initiative ari > bo > cyn > dax; ari has Movement 6, 3 AP and Athletics +2; x 3-5 of rows
2-3 is mud (difficult). An Athletics total scores a positive Hit per full 5 above 10 (house default).
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import CheckRolled, Marked, Moved

from tests.rulesets.round_meters.test_rules import ap_used, arena, ends, fighter, rule, spent


def meters_left(enc, fid: str) -> int:
    f = fighter(enc, fid)
    return round(f.stats["movement"] * CU) - f.used("movement")


def cost(events) -> int:
    return sum(s.cost for m in of_type(events, Moved) for s in m.steps)


# --- sprinted meters across the passes of a round, and at the round's end ---------------------------


def test_sprinted_meters_may_be_walked_in_a_later_pass_and_are_gone_next_round():
    # sprint: "For each positive Hit, gain +2 meters of Movement for the current round."
    # round-budget: "This distance may be divided across any of their turns during that round";
    # "Movement already used during the round remains spent until the start of the next round."
    enc = encounter(arena())
    do(enc, "sprint ari roll=13")  # 13 + 2 = 15: one Hit, 8 m this round
    assert cost(do(enc, "move ari 4,1")) == 3 * CU
    ends(enc, 4)
    assert (enc.state.turn.pass_no, enc.state.turn.active) == (2, "ari")
    assert cost(do(enc, "move ari 9,1")) == 5 * CU  # the sprinted 2 m walked in pass 2
    r = refuse(enc, "move ari 10,1", rule("round-budget"))
    assert "2 m sprinted" in r.reason
    while enc.state.turn.round == 1:
        do(enc, "end-turn")
    assert meters_left(enc, "ari") == 6 * CU  # Movement 6 again: the sprinted meters were this round's
    assert ap_used(enc, "ari") == 0 and "sprint-penalty" not in fighter(enc, "ari").marks


def test_a_sprint_through_mud_buys_one_meter_of_it_per_two_meters_gained():
    # sprint: "+2 meters of Movement"; difficult: "Each meter moved through Difficult Terrain costs
    # 2 meters of Movement."
    enc = encounter(arena('diagonal = "every-1"'))
    r = refuse(enc, "move ari 1,2 2,2 5,2", rule("round-budget"))  # 1 + 1 + 3 x 2 = 8 m > 6 m
    assert "8 m" in r.reason
    do(enc, "sprint ari roll=13")
    events = do(enc, "move ari 1,2 2,2 5,2")
    assert cost(events) == 8 * CU and meters_left(enc, "ari") == 0
    assert rule("difficult") in of_type(events, Moved)[0].rules
    assert ap_used(enc, "ari") == 1  # the Sprint's AP; the move itself costs none (move-free)


def test_the_last_meter_of_movement_does_not_buy_a_meter_of_mud():
    # difficult: "Each meter moved through Difficult Terrain costs 2 meters of Movement."
    enc = encounter(arena('diagonal = "every-1"'))
    assert cost(do(enc, "move ari 6,1")) == 5 * CU
    r = refuse(enc, "move ari 5,2", rule("round-budget"))  # the mud cell costs 2 m, 1 m is left
    assert "2 m by 5,2" in r.reason and "only 1 m" in r.reason
    assert cost(do(enc, "move ari 6,2")) == CU  # open ground: the last meter is walked


def test_a_sprint_without_a_hit_still_costs_its_ap_and_its_penalty():
    # sprint: "Sprinting is a Minor Action that costs 1 AP. Make an Athletics test. For each positive
    # Hit, gain +2 meters"; "Each time they Sprint, they suffer a cumulative −5 penalty to all other
    # tests for the remainder of the round."
    enc = encounter(arena())
    events = do(enc, "sprint ari roll=7")  # 7 + 2 = 9: no Hit
    assert [s.amount for s in spent(events)] == [1]
    assert not spent(events, "movement") and meters_left(enc, "ari") == 6 * CU
    (test,) = of_type(do(enc, "roll-test ari perception 10 roll=12"), CheckRolled)
    assert test.modifier == -5 and test.passed is False  # 12 - 5 = 7 < 10


# --- a delayed turn: moving only, sprinting, or moving before the delay -------------------------------


def test_moving_but_taking_no_action_on_the_delayed_turn_loses_1_ap():
    # delay: "If you choose not to act when your delayed turn arrives, use the normal rule for taking no
    # action and lose 1 AP." round-budget: movement is not an action ("Normal movement does not cost AP").
    enc = encounter(arena())
    do(enc, "delay ari after=bo")
    do(enc, "take-action bo aim")
    do(enc, "end-turn")
    assert enc.state.turn.active == "ari"
    do(enc, "move ari 4,1")
    (lost,) = spent(do(enc, "end-turn"))
    assert (lost.fighter, lost.amount, lost.rules) == ("ari", 1, (rule("delay"),))
    assert ap_used(enc, "ari") == 1 and meters_left(enc, "ari") == 3 * CU


def test_sprinting_on_the_delayed_turn_is_acting_and_loses_nothing_more():
    # delay: "If you choose not to act ... lose 1 AP"; a Sprint "is a Minor Action that costs 1 AP".
    enc = encounter(arena())
    do(enc, "delay ari")  # to the end of pass 1
    ends(enc, 3)
    assert enc.state.turn.active == "ari"
    do(enc, "sprint ari roll=13")
    assert cost(do(enc, "move ari 9,1")) == 8 * CU
    assert not spent(do(enc, "end-turn"))
    assert ap_used(enc, "ari") == 1


def test_meters_moved_before_a_delay_stay_spent_on_the_delayed_turn():
    # round-budget: "Movement already used during the round remains spent until the start of the next
    # round"; moving is no action, so the Delay still comes "before any action" of the turn.
    enc = encounter(arena())
    assert cost(do(enc, "move ari 3,1")) == 2 * CU
    do(enc, "delay ari after=cyn")
    ends(enc, 2)  # bo, cyn
    assert enc.state.turn.active == "ari"
    refuse(enc, "move ari 8,1", rule("round-budget"))  # 5 m > the 4 m left
    assert cost(do(enc, "move ari 7,1")) == 4 * CU


# --- a hold across the round's end; a held action and the move that sets it off ----------------------


def test_a_hold_declared_in_the_last_turn_of_a_round_fires_before_the_holders_turn_next_round():
    # hold: "When you Hold an Action, immediately spend the AP required for that action. If the trigger
    # occurs before your next turn, resolve the held action immediately."
    enc = encounter(arena("max_passes = 1"))
    ends(enc, 3)  # ari, bo, cyn
    assert enc.state.turn.active == "dax"
    do(enc, 'hold dax aim "starts-move ari" target=ari')  # dax's only AP
    assert ap_used(enc, "dax") == 1
    do(enc, "end-turn")  # the round ends (max_passes = 1)
    assert enc.state.turn.round == 2 and enc.state.turn.active == "ari"
    assert "held" in fighter(enc, "dax").marks  # dax's next turn has not come yet
    events = do(enc, "move ari 3,1")
    fired = [e for e in of_type(events, Marked) if e.key == "action" and e.fighter == "dax"]
    assert fired and fired[0].value["held"] is True
    assert ap_used(enc, "dax") == 0  # its AP was paid in round 1, when it was held


def test_a_held_shot_fires_as_an_enemy_enters_the_mud_and_the_enemy_pays_mud_after_it():
    # hold: "resolve the held action immediately"; difficult: "costs 2 meters of Movement"; the move
    # goes on after the interruption.
    enc = encounter(arena('diagonal = "every-1"'))
    do(enc, 'place dax 6,4 why="dax crept up last round"')
    do(enc, "end-turn")
    do(enc, 'hold bo shoot "enemy-enters 5,3" target=dax')
    do(enc, "end-turn")
    do(enc, "end-turn")  # cyn
    events = do(enc, "move dax 5,3 4,3")  # two meters of mud: all 4 m of dax's Movement
    moves = of_type(events, Moved)
    assert [m.steps[-1].to[:2] for m in moves] == [(5, 3), (4, 3)]  # interrupted at 5,3, then on
    assert [s.cost for m in moves for s in m.steps] == [2 * CU, 2 * CU]
    shot = [e for e in of_type(events, Marked) if e.key == "action"]
    assert [(e.fighter, e.value["held"], e.value["target"]) for e in shot] == [("bo", True, "dax")]
    assert fighter(enc, "dax").pos[:2] == (4, 3) and meters_left(enc, "dax") == 0


# --- undo of a batch with a roll --------------------------------------------------------------------


def test_undoing_a_seeded_sprint_gives_back_its_ap_meters_and_penalty_and_never_re_rolls():
    enc = encounter(arena())
    first = of_type(do(enc, "sprint ari"), CheckRolled)[0]
    do(enc, "undo")
    assert ap_used(enc, "ari") == 0 and meters_left(enc, "ari") == 6 * CU
    assert "sprint-penalty" not in fighter(enc, "ari").marks
    again = of_type(do(enc, "sprint ari"), CheckRolled)[0]
    assert (again.number, again.dice) == (first.number, first.dice)


# --- a Delay's new place in the next pass, and a delay behind one who will be skipped ----------------


def test_the_delayed_place_holds_in_the_next_pass_of_the_same_round():
    # delay: "Once you Delay, your new position becomes your Initiative position for the rest of the
    # combat."
    enc = encounter(arena())
    do(enc, "delay ari after=cyn")
    order = []
    while enc.state.turn.pass_no == 1:
        do(enc, "end-turn")
    while enc.state.turn.pass_no == 2:
        order.append(enc.state.turn.active)
        do(enc, "end-turn")
    assert order[:3] == ["bo", "cyn", "ari"]


def test_delaying_behind_a_combatant_with_no_ap_left_comes_when_it_is_skipped():
    # delay: "Choose a combatant who has not yet acted during the current pass"; passes: one with no AP
    # left has no turn in a later pass (house default), so the delayed turn comes in its place.
    enc = encounter(arena())
    ends(enc, 4)  # pass 1 idle: dax's only AP is lost
    assert enc.state.turn.pass_no == 2 and ap_used(enc, "dax") == 1
    do(enc, "delay ari after=dax")
    ends(enc, 2)  # bo, cyn; dax is skipped
    assert (enc.state.turn.pass_no, enc.state.turn.active) == (2, "ari")
    assert cost(do(enc, "move ari 4,1")) == 3 * CU


def test_alternating_diagonals_through_mud_pay_double_each_step_of_the_count():
    # round-budget: the diagonal ruling (alternating 1, 2, 1, ...) prices the step; difficult: "Each
    # meter moved through Difficult Terrain costs 2 meters of Movement."
    enc = encounter(arena('diagonal = "alternating"'))
    do(enc, "move ari 2,1")
    r = refuse(enc, "move ari 3,2 4,3", rule("round-budget"))  # 1 x 2, then 2 x 2: 6 m > 5 m left
    assert "costs 6 m by 4,3" in r.reason
    events = do(enc, "move ari 3,2 4,2")  # a diagonal into mud (1 x 2), then a straight meter of mud
    assert [s.cost for m in of_type(events, Moved) for s in m.steps] == [2 * CU, 2 * CU]
    assert meters_left(enc, "ari") == CU
