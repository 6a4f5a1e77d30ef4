"""round-meters, rule by rule, from the words of document 001_f4ae7af380350405.txt.

Each rule id gets tests that it allows what it should, refuses or penalises what
it should, and charges what it should. Delay and hold get a test per sentence.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import do, encounter, grid, of_type, refuse
from tabletrail.cli import main
from tabletrail.core.board.units import CU
from tabletrail.events.errors import InputError
from tabletrail.events.types import (
    CheckRolled,
    Marked,
    Moved,
    OrderChanged,
    PassStarted,
    Refreshed,
    RoundStarted,
    Spent,
    StateChanged,
    TurnStarted,
    Unmarked,
)

SCENARIOS = Path(__file__).resolve().parents[3] / "scenarios"
RS = "round-meters"
ROWS = [
    "############",
    "#..........#",
    "#..~~~.....#",
    "#..~~~.....#",
    "#..........#",
    "#..........#",
    "############",
]


def arena(settings: str = "", ari_ap: int = 3, ari_athletics: int = 2) -> str:
    """Ari and Bo (blue) against Cyn and Dax (red); x 3-5 of rows 2-3 is mud (difficult)."""
    return f"""
[encounter]
name = "mud yard"
ruleset = "{RS}"
seed = 11
initiative = ["ari", "bo", "cyn", "dax"]
[settings]
{settings}
{grid(ROWS)}
[[fighters]]
id = "ari"
side = "blue"
at = [1, 1]
movement = 6
ap = {ari_ap}
athletics = {ari_athletics}
[[fighters]]
id = "bo"
side = "blue"
at = [1, 4]
movement = 4
ap = 2
[[fighters]]
id = "cyn"
side = "red"
at = [10, 1]
movement = 5
ap = 3
[[fighters]]
id = "dax"
side = "red"
at = [10, 4]
movement = 4
ap = 1
"""


def rule(name: str) -> str:
    return f"{RS}/{name}"


def fighter(enc, fid: str):
    return enc.state.fighter(fid)


def ap_used(enc, fid: str) -> int:
    return fighter(enc, fid).used("ap")


def turn_state(enc, fid: str) -> str:
    return fighter(enc, fid).state("turn", "waiting")


def spent(events, resource: str = "ap") -> list[Spent]:
    return [e for e in of_type(events, Spent) if e.resource == resource]


def ends(enc, n: int) -> list:
    events: list = []
    for _ in range(n):
        events += do(enc, "end-turn")
    return events


# --- round-budget: "up to their Movement in meters during each round … divided across any of
# their turns … moving before, after, or between actions" ------------------------------------


def test_movement_is_divided_across_the_turns_of_a_round():
    enc = encounter(arena())
    do(enc, "move ari 4,1")  # 3 m in pass 1
    ends(enc, 4)  # everyone's pass-1 turn; AP is left, so pass 2 follows
    assert enc.state.turn.pass_no == 2 and enc.state.turn.active == "ari"
    m = of_type(do(enc, "move ari 7,1"), Moved)[0]  # the other 3 m in pass 2
    assert sum(s.cost for s in m.steps) == 3 * CU
    assert fighter(enc, "ari").used("movement") == 6 * CU


def test_movement_before_between_and_after_actions():
    enc = encounter(arena())
    do(enc, "move ari 3,1")
    do(enc, "take-action ari aim")
    do(enc, "move ari 5,1")
    do(enc, "take-action ari reload")
    do(enc, "move ari 7,1")
    assert fighter(enc, "ari").pos[:2] == (7, 1)
    assert fighter(enc, "ari").used("movement") == 6 * CU


def test_moving_past_the_rest_of_the_rounds_movement_is_refused_with_the_numbers():
    enc = encounter(arena())
    do(enc, "move ari 4,1")
    r = refuse(enc, "move ari 8,1", rule("round-budget"))
    assert "4 m by 8,1" in r.reason and "only 3 m are left" in r.reason and "Movement 6 m" in r.reason


def test_spent_meters_stay_spent_until_the_next_round_starts():
    enc = encounter(arena())
    do(enc, "move ari 7,1")  # all 6 m
    events = ends(enc, 4)
    assert not of_type(events, RoundStarted)  # pass 2 of the same round: no refresh
    assert not [e for e in of_type(events, Refreshed) if "movement" in e.resources]
    refuse(enc, "move ari 8,1", rule("round-budget"))
    while enc.state.turn.round == 1:
        do(enc, "end-turn")
    refresh = [e for e in of_type(enc.records, Refreshed) if e.fighter == "ari"]
    assert refresh and "movement" in refresh[0].resources and rule("round-budget") in refresh[0].rules
    assert fighter(enc, "ari").used("movement") == 0


def test_each_meter_of_open_ground_costs_one_meter_and_diagonals_follow_the_setting():
    enc = encounter(arena())
    m = of_type(do(enc, "move ari 2,2"), Moved)[0]
    assert [s.cost for s in m.steps] == [141]  # euclidean by default
    enc = encounter(arena('diagonal = "every-1"'))
    m = of_type(do(enc, "move ari 2,2"), Moved)[0]
    assert [s.cost for s in m.steps] == [CU]


def test_walls_and_occupied_ends_are_refused():
    enc = encounter(arena())
    refuse(enc, "move ari 1,0", rule("round-budget"))
    do(enc, "end-turn")
    refuse(enc, "move bo 1,3 1,1", rule("round-budget"))  # ari stands on 1,1


# --- move-free: "Normal movement does not cost AP." ------------------------------------------------


def test_moving_costs_no_ap():
    enc = encounter(arena())
    events = do(enc, "move ari 5,1")
    assert not spent(events)
    assert ap_used(enc, "ari") == 0
    m = of_type(events, Moved)[0]
    assert rule("move-free") in m.rules and "no AP" in m.note


def test_ap_left_does_not_buy_meters():
    enc = encounter(arena())
    r = refuse(enc, "move ari 8,1", rule("round-budget"))  # 7 m > 6 m, with 3 AP unspent
    assert "7 m" in r.reason and "6 m" in r.reason
    assert ap_used(enc, "ari") == 0


def test_a_fighter_with_no_ap_left_still_moves():
    enc = encounter(arena(ari_ap=1))
    do(enc, "take-action ari aim")  # the only AP
    assert fighter(enc, "ari").stats["ap"] - ap_used(enc, "ari") == 0
    m = of_type(do(enc, "move ari 7,1"), Moved)[0]
    assert sum(s.cost for s in m.steps) == 6 * CU


# --- sprint: "a Minor Action that costs 1 AP. Make an Athletics test. For each positive Hit,
# gain +2 meters of Movement for the current round." ---------------------------------------------


def test_a_sprint_costs_1_ap_and_each_positive_hit_gives_2_meters():
    enc = encounter(arena())
    events = do(enc, "sprint ari roll=13")  # 13 + athletics 2 = 15: one Hit
    (ap,) = spent(events)
    assert (ap.amount, ap.rules) == (1, (rule("sprint"),))
    (test,) = of_type(events, CheckRolled)
    assert (test.check, test.number, test.modifier, test.source) == ("Athletics", 13, 2, "table")
    (gain,) = spent(events, "movement")
    assert gain.amount == -2 * CU and "1 positive Hit" in gain.note
    m = of_type(do(enc, "move ari 9,1"), Moved)[0]  # 8 m: 6 + 2
    assert sum(s.cost for s in m.steps) == 8 * CU
    refuse(enc, "move ari 10,1", rule("round-budget"))


@pytest.mark.parametrize(("roll", "hits"), [(7, 0), (12, 0), (13, 1), (17, 1), (18, 2), (20, 2)])
def test_positive_hits_are_whole_steps_of_5_above_10(roll: int, hits: int):
    enc = encounter(arena())
    events = do(enc, f"sprint ari roll={roll}")
    granted = sum(-e.amount for e in spent(events, "movement"))
    assert granted == hits * 2 * CU


def test_sprinting_with_no_ap_left_is_refused_with_the_numbers():
    enc = encounter(arena(ari_ap=1))
    do(enc, "sprint ari roll=10")
    r = refuse(enc, "sprint ari roll=10", rule("sprint"))
    assert "0 of 1 AP" in r.reason and "costs 1 AP" in r.reason


def test_sprinting_out_of_turn_is_refused():
    enc = encounter(arena())
    refuse(enc, "sprint bo roll=10", rule("passes"))


def test_sprints_repeat_and_each_adds_a_cumulative_minus_5_to_other_tests():
    enc = encounter(arena())
    do(enc, "sprint ari roll=13")
    second = do(enc, "sprint ari roll=13")
    # "all other tests": the second Sprint's own Athletics test is not penalised by default.
    assert of_type(second, CheckRolled)[0].modifier == 2
    mark = [e for e in of_type(second, Marked) if e.key == "sprint-penalty"][0]
    assert mark.value["penalty"] == -10 and mark.value["sprints"] == 2
    (test,) = of_type(do(enc, "roll-test ari perception 12 roll=15"), CheckRolled)
    assert test.modifier == -10 and test.passed is False  # 15 - 10 = 5 < 12
    assert "sprint penalty -10" in test.note and rule("sprint") in test.rules


def test_the_penalty_reaches_sprint_tests_when_the_table_says_so():
    enc = encounter(arena("sprint_penalty_on_sprints = true"))
    do(enc, "sprint ari roll=13")
    second = of_type(do(enc, "sprint ari roll=13"), CheckRolled)[0]
    assert second.modifier == 2 - 5 and "sprint penalty -5" in second.note
    assert not spent(do(enc, "sprint ari roll=14"), "movement")  # 14 + 2 - 10 = 6: no Hit


def test_an_action_test_carries_the_penalty_and_it_ends_with_the_round():
    enc = encounter(arena("max_passes = 1"))
    do(enc, "sprint ari roll=13")
    (test,) = of_type(do(enc, "take-action ari shoot target=cyn test=12 roll=15"), CheckRolled)
    assert test.modifier == -5 and test.rules == (rule("passes"), rule("sprint"))
    ends(enc, 4)  # round 2
    assert enc.state.turn.round == 2
    assert "sprint-penalty" not in fighter(enc, "ari").marks
    (later,) = of_type(do(enc, "roll-test ari perception 12 roll=15"), CheckRolled)
    assert later.modifier == 0 and "no sprint penalty" in later.note


def test_a_seeded_athletics_test_records_its_die_and_formula():
    enc = encounter(arena())
    events = do(enc, "sprint ari")
    (test,) = of_type(events, CheckRolled)
    assert test.source == "seeded" and test.formula == "1d20" and len(test.dice) == 1
    hits = max(0, (test.number + test.modifier - 10) // 5)
    assert sum(-e.amount for e in spent(events, "movement")) == hits * 2 * CU


# --- difficult: "Each meter moved through Difficult Terrain costs 2 meters of Movement." --------


def test_a_meter_of_difficult_terrain_costs_two():
    enc = encounter(arena('diagonal = "every-1"'))
    do(enc, "move ari 2,1")
    m = of_type(do(enc, "move ari 3,2 4,2"), Moved)[0]
    assert [s.cost for s in m.steps] == [2 * CU, 2 * CU]
    assert rule("difficult") in m.rules and "difficult terrain at 3,2 4,2" in m.note


def test_a_diagonal_into_difficult_terrain_costs_twice_its_length():
    enc = encounter(arena())
    do(enc, "move ari 2,1")
    m = of_type(do(enc, "move ari 3,2"), Moved)[0]
    assert [s.cost for s in m.steps] == [283]  # 2·√2 m, doubled exactly and rounded once (not 2 x 1.41)


def test_difficult_terrain_runs_the_movement_out_sooner():
    enc = encounter(arena())
    do(enc, "move ari 2,1 2,2")  # 2 m
    r = refuse(enc, "move ari 5,2", rule("round-budget"))  # 3 mud cells: 6 m > 4 m left
    assert "6 m by 5,2" in r.reason


def test_the_gm_may_forbid_crossing_by_a_logged_ruling():
    enc = encounter(arena())
    do(enc, f'forbid 4,2 rule={rule("difficult")} why="sinkhole"')
    do(enc, "move ari 2,1 2,2")
    r = refuse(enc, "move ari 5,2", rule("difficult"))
    assert "sinkhole" in r.reason


def test_the_gm_may_require_a_test_and_a_failed_test_ends_the_move():
    enc = encounter(arena())
    do(enc, f'require-test 3,2 target=12 rule={rule("difficult")} why="loose scree"')
    do(enc, "move ari 2,1 2,2")
    events = do(enc, "move ari 4,2 roll=5")
    (test,) = of_type(events, CheckRolled)
    assert test.rules == (rule("difficult"),) and test.passed is False
    assert fighter(enc, "ari").pos[:2] == (3, 2)
    assert fighter(enc, "ari").used("movement") == 4 * CU  # 2 m, then the 2 m mud cell
    do(enc, "undo")
    do(enc, "move ari 4,2 roll=12")  # 12 reaches the target: the move goes on through 3,2
    assert fighter(enc, "ari").pos[:2] == (4, 2)


def test_a_cost_only_table_refuses_gm_cell_rulings():
    enc = encounter(arena('difficult_rulings = "cost-only"'))
    r = refuse(enc, f'require-test 3,2 target=12 rule={rule("difficult")} why="scree"', rule("difficult"))
    assert "cost-only" in r.reason
    refuse(enc, f'forbid 3,2 rule={rule("difficult")} why="pit"', rule("difficult"))


# --- passes: "initiative order runs in passes within a round; AP per round is a character stat" --


def test_a_second_pass_follows_while_ap_is_left_and_skips_those_without():
    enc = encounter(arena())
    events = ends(enc, 4)  # each turn without an action loses 1 AP: ari 2, bo 1, cyn 2, dax 0 left
    (p2,) = of_type(events, PassStarted)
    assert p2.pass_no == 2 and p2.rules == (rule("passes"),)
    assert (enc.state.turn.round, enc.state.turn.pass_no, enc.state.turn.active) == (1, 2, "ari")
    events = ends(enc, 3)  # ari, bo, cyn; dax has no AP: skipped
    skip = [e for e in of_type(events, StateChanged) if e.trigger == "skip"]
    assert [e.fighter for e in skip] == ["dax"] and "no AP left" in skip[0].note
    assert enc.state.turn.pass_no == 3 and enc.state.turn.active == "ari"


def test_the_round_ends_when_nobody_has_ap_left():
    enc = encounter(arena())
    events = []
    while enc.state.turn.round == 1:
        events += do(enc, "end-turn")
    # 3 AP at most, 1 lost per idle turn: ari's third turn is the round's last.
    assert max(e.pass_no for e in of_type(events, PassStarted)) == 3
    (r2,) = of_type(events, RoundStarted)
    assert "nobody has AP left" in r2.note
    assert all(ap_used(enc, f) == 0 for f in ("ari", "bo", "cyn", "dax"))
    assert (enc.state.turn.pass_no, enc.state.turn.active) == (1, "ari")


def test_max_passes_caps_the_passes_of_a_round():
    enc = encounter(arena("max_passes = 1"))
    events = ends(enc, 4)
    assert not of_type(events, PassStarted)
    assert "max_passes = 1" in of_type(events, RoundStarted)[0].note


def test_acting_out_of_turn_is_refused_by_the_turn_machine():
    enc = encounter(arena())
    r = refuse(enc, "move bo 2,4", rule("passes"))
    assert "ari's turn" in r.reason and "waiting" in r.reason
    refuse(enc, "end-turn bo", rule("passes"))
    refuse(enc, "take-action cyn shoot", rule("passes"))
    do(enc, "end-turn")
    r = refuse(enc, "move ari 2,1", rule("passes"))
    assert "done for pass 1" in r.reason


def test_an_action_pays_its_ap_from_the_round_pool():
    enc = encounter(arena())
    (paid,) = spent(do(enc, "take-action ari shoot target=cyn"))
    assert (paid.amount, paid.rules) == (2, (rule("passes"),))
    r = refuse(enc, "take-action ari shoot target=cyn", rule("passes"))
    assert "1 of 3 AP" in r.reason and "costs 2 AP" in r.reason
    refuse(enc, "take-action ari juggle", rule("passes"))
    refuse(enc, "take-action ari aim target=nobody", rule("passes"))


def test_a_turn_without_an_action_loses_1_ap_and_one_with_an_action_does_not():
    enc = encounter(arena())
    do(enc, "move ari 3,1")
    (idle,) = spent(do(enc, "end-turn"))
    assert (idle.amount, idle.rules) == (1, (rule("passes"),)) and "taking no action" in idle.note
    do(enc, "take-action bo aim")
    assert not spent(do(enc, "end-turn"))


def test_the_action_costs_setting_is_checked_when_the_encounter_starts():
    with pytest.raises(InputError, match="action_costs"):
        encounter(arena('action_costs = "shoot=2"'))
    with pytest.raises(InputError, match="hold_triggers"):
        encounter(arena('hold_triggers = "whenever"'))


def test_fighters_must_carry_movement_and_whole_ap():
    with pytest.raises(InputError, match=r"fighters\[0\] \(ari\): missing stat 'movement'"):
        encounter(arena().replace("movement = 6\n", "", 1))
    with pytest.raises(InputError, match=r"fighters\[0\]\.ap: expected a whole number, got 2.5"):
        encounter(arena().replace("ap = 3", "ap = 2.5", 1))


def test_a_gm_setting_change_to_an_unusable_value_is_refused():
    enc = encounter(arena())
    refuse(enc, 'setting hit_step 0 why="no hits at all"', rule("sprint"))
    refuse(enc, 'setting action_costs value="shoot=2" why="typo"', rule("passes"))
    do(enc, 'setting action_costs "shoot:3" why="heavy crossbows"')
    assert spent(do(enc, "take-action ari shoot"))[0].amount == 3


# --- delay ---------------------------------------------------------------------------------------
# "During your turn, you may Delay by voluntarily lowering your position in the Initiative order."


def test_delay_lowers_your_place_on_your_turn():
    enc = encounter(arena())
    events = do(enc, "delay ari after=cyn")
    (order,) = of_type(events, OrderChanged)
    assert order.order == ("bo", "cyn", "ari", "dax") and order.rules == (rule("delay"),)
    assert turn_state(enc, "ari") == "delayed" and enc.state.turn.active == "bo"


def test_delaying_when_it_is_not_your_turn_is_refused():
    enc = encounter(arena())
    refuse(enc, "delay bo", rule("delay"))


# "Choose a combatant who has not yet acted during the current pass, or choose to act at the end
# of the current pass. Your turn occurs at that later point."


def test_the_delayed_turn_comes_right_after_the_chosen_combatant():
    enc = encounter(arena())
    do(enc, "delay ari after=cyn")
    do(enc, "end-turn")  # bo
    events = do(enc, "end-turn")  # cyn
    (start,) = of_type(events, TurnStarted)
    assert (
        start.fighter == "ari"
        and start.rules
        == (
            rule(
                "delay",
            ),
        )
        and "delayed turn" in start.note
    )
    assert turn_state(enc, "ari") == "acting"


def test_the_delayed_turn_may_be_the_end_of_the_pass():
    enc = encounter(arena())
    do(enc, "delay ari")
    assert enc.state.turn.order == ("bo", "cyn", "dax", "ari")
    ends(enc, 3)
    assert enc.state.turn.active == "ari" and enc.state.turn.pass_no == 1


def test_delaying_behind_someone_who_already_acted_is_refused():
    enc = encounter(arena())
    do(enc, "end-turn")  # ari is done for pass 1
    r = refuse(enc, "delay bo after=ari", rule("delay"))
    assert "pass 2" in r.reason and "later pass" in r.reason
    refuse(enc, "delay bo after=bo", rule("delay"))


# "Once you Delay, your new position becomes your Initiative position for the rest of the combat."


def test_the_new_place_is_kept_in_later_rounds():
    enc = encounter(arena("max_passes = 1"))
    do(enc, "delay ari after=cyn")
    ends(enc, 4)  # bo, cyn, ari (delayed), dax
    assert enc.state.turn.round == 2
    assert enc.state.turn.order == ("bo", "cyn", "ari", "dax")
    assert enc.state.turn.active == "bo"
    ends(enc, 2)
    assert enc.state.turn.active == "ari"


# "You cannot Delay into a later pass."


def test_delaying_into_a_later_pass_is_refused():
    enc = encounter(arena())
    r = refuse(enc, "delay ari into_pass=2", rule("delay"))
    assert "pass 2" in r.reason and "current pass 1" in r.reason
    ends(enc, 3)  # dax is last in pass 1
    r = refuse(enc, "delay dax", rule("delay"))
    assert "nobody is left to act after dax" in r.reason


# "If you choose not to act when your delayed turn arrives, use the normal rule for taking no action
# and lose 1 AP."


def test_not_acting_on_the_delayed_turn_loses_1_ap():
    enc = encounter(arena())
    do(enc, "delay ari after=bo")
    do(enc, "end-turn")  # bo (idle too: 1 AP)
    (lost,) = spent(do(enc, "end-turn"))  # ari's delayed turn, no action
    assert (lost.fighter, lost.amount, lost.rules) == ("ari", 1, (rule("delay"),))
    assert "delayed turn" in lost.note and ap_used(enc, "ari") == 1


def test_acting_on_the_delayed_turn_costs_only_the_action():
    enc = encounter(arena())
    do(enc, "delay ari after=bo")
    do(enc, "end-turn")
    do(enc, "take-action ari aim")
    assert not spent(do(enc, "end-turn"))
    assert ap_used(enc, "ari") == 1


def test_a_delay_comes_before_any_action_of_the_turn():
    enc = encounter(arena())
    do(enc, "move ari 2,1")  # moving is not an action
    do(enc, "take-action ari aim")
    r = refuse(enc, "delay ari", rule("delay"))
    assert "aim" in r.reason


# --- hold ----------------------------------------------------------------------------------------
# "You may also Hold an Action by declaring a specific action and a specific trigger, such as firing
# when an enemy enters a doorway."


def test_a_specific_action_and_trigger_may_be_held():
    enc = encounter(arena())
    do(enc, "end-turn")
    events = do(enc, 'hold bo shoot "enemy-enters 6,4 7,4" target=dax')
    held = [e for e in of_type(events, Marked) if e.key == "held"][0]
    assert held.value["trigger"] == {"kind": "enemy-enters", "cells": [[6, 4], [7, 4]]}
    assert held.rules == (rule("hold"),)
    assert turn_state(enc, "bo") == "acting"  # the turn goes on after the hold
    do(enc, "end-turn")
    assert turn_state(enc, "bo") == "holding" and enc.state.turn.active == "cyn"


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ('hold ari shoot "when an enemy shows up" target=cyn', "too vague"),
        ('hold ari shoot "" target=cyn', "too vague"),
        ('hold ari something "starts-move cyn" target=cyn', "not a specific action"),
        ('hold ari shoot "starts-move nobody" target=cyn', "no fighter 'nobody'"),
        ('hold ari shoot "starts-move ari" target=cyn', "cannot wait for itself"),
        ('hold ari shoot "takes-action cyn dance" target=cyn', "not an action kind"),
        ('hold ari shoot "enemy-enters 40,4" target=cyn', "off the"),
        ('hold ari shoot "enemy-enters" target=cyn', "needs the cells"),
    ],
)
def test_a_vague_or_unclear_hold_is_refused_with_a_reason(command: str, words: str):
    enc = encounter(arena())
    r = refuse(enc, command, rule("hold"))
    assert words in r.reason


def test_a_trigger_outside_the_tables_vocabulary_is_refused():
    enc = encounter(arena('hold_triggers = "enemy-enters"'))
    r = refuse(enc, 'hold ari shoot "starts-move cyn" target=cyn', rule("hold"))
    assert "enemy-enters X,Y" in r.reason and "starts-move" not in r.reason.split("one of")[1]


# "A held action must be specific enough for the GM to determine when it triggers. If the declared
# action or trigger is too broad or unclear, the GM may require it to be narrowed."


def test_a_trigger_watching_too_many_cells_is_too_broad():
    enc = encounter(arena())
    cells = " ".join(f"{x},5" for x in range(1, 11))
    r = refuse(enc, f'hold ari shoot "enemy-enters {cells}" target=cyn', rule("hold"))
    assert "10 cells" in r.reason and "hold_max_cells = 9" in r.reason


# "When you Hold an Action, immediately spend the AP required for that action."


def test_holding_pays_the_actions_ap_at_once():
    enc = encounter(arena())
    events = do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    (paid,) = spent(events)
    assert (paid.amount, paid.rules) == (2, (rule("hold"),))
    assert ap_used(enc, "ari") == 2


def test_holding_without_the_ap_is_refused_with_the_numbers():
    enc = encounter(arena(ari_ap=1))
    r = refuse(enc, 'hold ari shoot "starts-move cyn" target=cyn', rule("hold"))
    assert "1 of 1 AP" in r.reason and "2 AP" in r.reason


# "If the trigger occurs before your next turn, resolve the held action immediately."


def test_an_enemy_entering_the_cell_sets_off_the_held_action_mid_move():
    enc = encounter(arena())
    do(enc, "end-turn")
    do(enc, 'hold bo shoot "enemy-enters 7,4" target=dax')
    do(enc, "end-turn")  # a hold leaves the turn going on (hold_ends_turn = false)
    do(enc, "end-turn")  # cyn
    events = do(enc, "move dax 7,4 7,3")
    kinds = [type(e).__name__ for e in events if isinstance(e, Moved | Unmarked | Marked)]
    assert kinds == ["Moved", "Unmarked", "Marked", "Moved"]  # the shot interrupts at 7,4
    first = of_type(events, Moved)[0]
    assert first.steps[-1].to[:2] == (7, 4)
    action = [e for e in of_type(events, Marked) if e.key == "action"][0]
    assert action.fighter == "bo" and action.value["held"] is True and action.value["target"] == "dax"
    assert "held" not in fighter(enc, "bo").marks and fighter(enc, "dax").pos[:2] == (7, 3)


def test_a_friend_entering_the_cell_sets_nothing_off():
    enc = encounter(arena())
    do(enc, 'hold ari shoot "enemy-enters 2,4" target=cyn')
    do(enc, "end-turn")  # a hold leaves the turn going on (hold_ends_turn = false)
    events = do(enc, "move bo 2,4")
    assert not of_type(events, Unmarked) and "held" in fighter(enc, "ari").marks


def test_a_held_action_on_starts_move_resolves_before_the_first_step():
    enc = encounter(arena())
    do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    do(enc, "end-turn")  # a hold leaves the turn going on (hold_ends_turn = false)
    do(enc, "end-turn")  # bo
    events = do(enc, "move cyn 9,1")
    marks = [i for i, e in enumerate(events) if isinstance(e, Marked) and e.key == "action"]
    moves = [i for i, e in enumerate(events) if isinstance(e, Moved)]
    assert marks and moves and marks[0] < moves[0]


def test_a_held_action_on_takes_action_resolves_before_that_action():
    enc = encounter(arena())
    do(enc, 'hold ari shoot "takes-action cyn shoot" target=cyn')
    do(enc, "end-turn")  # a hold leaves the turn going on (hold_ends_turn = false)
    do(enc, "end-turn")  # bo
    events = do(enc, "take-action cyn shoot target=ari")
    actions = [(e.fighter, e.value["held"]) for e in of_type(events, Marked) if e.key == "action"]
    assert actions == [("ari", True), ("cyn", False)]
    assert [(e.fighter, e.amount) for e in spent(events)] == [("cyn", 2)]  # ari paid when it held


def test_a_gm_placing_an_enemy_in_the_cell_sets_off_the_held_action():
    enc = encounter(arena())
    do(enc, 'hold ari shoot "enemy-enters 5,5" target=cyn')
    do(enc, "end-turn")  # a hold leaves the turn going on (hold_ends_turn = false)
    events = do(enc, 'place dax 5,5 why="knocked back"')
    assert [e.key for e in of_type(events, Unmarked)] == ["held"]


def test_undoing_the_triggering_move_undoes_the_held_action():
    enc = encounter(arena())
    do(enc, "end-turn")
    do(enc, 'hold bo shoot "enemy-enters 7,4" target=dax')
    do(enc, "end-turn")  # a hold leaves the turn going on (hold_ends_turn = false)
    do(enc, "end-turn")
    before = fighter(enc, "bo")
    do(enc, "move dax 7,4")
    assert "held" not in fighter(enc, "bo").marks
    do(enc, "undo")
    assert fighter(enc, "bo") == before and "held" in fighter(enc, "bo").marks
    assert ap_used(enc, "bo") == 2  # the hold's own batch still stands
    do(enc, "redo")
    assert fighter(enc, "bo").marks["action"]["held"] is True


# "If the trigger does not occur before your next turn, the held action is lost and the AP remains
# spent."


def test_a_hold_whose_trigger_never_comes_is_lost_at_the_next_turn_and_the_ap_stays_spent():
    enc = encounter(arena())
    do(enc, 'hold ari shoot "enemy-enters 1,5" target=cyn')
    do(enc, "end-turn")  # a hold leaves the turn going on (hold_ends_turn = false)
    events = ends(enc, 3)  # bo, cyn, dax: pass 2, ari's next turn
    assert enc.state.turn.pass_no == 2 and enc.state.turn.active == "ari"
    lost = [e for e in of_type(events, Unmarked) if e.key == "held"]
    assert lost and lost[0].rules == (rule("hold"),) and "is lost" in lost[0].note
    assert "2 AP stay spent" in lost[0].note
    assert ap_used(enc, "ari") == 2 and "held" not in fighter(enc, "ari").marks
    fired = [e for e in of_type(enc.records, Marked) if e.key == "action" and e.fighter == "ari"]
    assert not [e for e in fired if e.value["held"]]  # the held shot never went off


# --- the catalogue -----------------------------------------------------------------------------


def test_the_rules_listing_names_all_seven_ids(capsys: pytest.CaptureFixture[str]):
    assert main(["rules", RS]) == 0
    out = capsys.readouterr().out
    for name in ("round-budget", "move-free", "sprint", "difficult", "passes", "delay", "hold"):
        assert f"{RS}/{name}:" in out


def test_a_test_the_gm_requires_on_a_cell_carries_the_sprint_penalty():
    """sprint: "a cumulative −5 penalty to all other tests", a GM-required crossing test included."""
    enc = encounter(arena())
    do(enc, f'require-test 2,1 target=10 rule={rule("difficult")} why="ice"')
    do(enc, "sprint ari roll=15")
    events = do(enc, "move ari 2,1 roll=12")
    test = [e for e in of_type(events, CheckRolled) if e.check == "ruled test"][0]
    assert test.modifier == -5 and "sprint penalty -5" in test.note
    assert test.passed is False  # 12 - 5 = 7 < 10: the move stops on the cell


# "Choose a combatant who has not yet acted during the current pass": a combatant who delayed
# has not acted yet, and its delayed turn still comes in this pass.


def test_delaying_behind_a_combatant_who_delayed_and_has_not_acted_yet():
    enc = encounter(arena())
    do(enc, "delay ari")  # bo, cyn, dax, ari
    events = do(enc, "delay bo after=ari")
    assert of_type(events, OrderChanged)[0].order == ("cyn", "dax", "ari", "bo")
    ends(enc, 2)  # cyn, dax
    assert enc.state.turn.active == "ari" and enc.state.turn.pass_no == 1
    do(enc, "end-turn")
    assert enc.state.turn.active == "bo" and enc.state.turn.pass_no == 1


def test_delaying_to_the_end_of_the_pass_when_only_a_delayed_turn_is_left():
    enc = encounter(arena())
    do(enc, "delay ari")  # bo, cyn, dax, ari
    ends(enc, 2)  # bo, cyn
    events = do(enc, "delay dax")  # ari's delayed turn is still to come: dax goes after it
    assert of_type(events, OrderChanged)[0].order == ("bo", "cyn", "ari", "dax")
    assert enc.state.turn.active == "ari" and enc.state.turn.pass_no == 1
    do(enc, "end-turn")
    assert enc.state.turn.active == "dax" and enc.state.turn.pass_no == 1


def test_a_table_without_the_idle_house_rule_keeps_the_documents_1_ap_for_a_delayed_turn():
    """delay: "lose 1 AP" is the document's own number; idle_ap_loss is the house rule for other turns."""
    enc = encounter(arena("idle_ap_loss = 0"))
    do(enc, "delay ari after=bo")
    assert not spent(do(enc, "end-turn"))  # bo's ordinary idle turn: no loss at this table
    (lost,) = spent(do(enc, "end-turn"))  # ari's delayed turn, no action
    assert (lost.fighter, lost.amount, lost.rules) == ("ari", 1, (rule("delay"),))
    assert "1 AP" in lost.note and ap_used(enc, "ari") == 1


def test_no_posture_verbs_are_offered_since_document_001_has_no_prone(capsys: pytest.CaptureFixture[str]):
    """Document 001 never mentions prone: `commands` doesn't list drop-prone or stand-up, and
    `do` refuses them as verbs round-meters doesn't know (once listed, then always refused)."""
    assert main(["commands", "round-meters"]) == 0
    listed = capsys.readouterr().out
    assert "  move FIGHTER" in listed
    assert "drop-prone" not in listed and "stand-up" not in listed
    assert main(["commands", "speed-meters"]) == 0
    assert "drop-prone FIGHTER" in capsys.readouterr().out  # speed-meters has a rule for it
    enc = encounter(arena())
    for verb in ("drop-prone", "stand-up"):
        refusal = refuse(enc, f"{verb} ari", "tabletrail/command")
        assert f"round-meters has no '{verb}' command" in refusal.reason


def test_the_cli_refuses_a_posture_verb_under_round_meters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "ambush.jsonl"
    assert main(["new", str(SCENARIOS / "round-meters-ambush.toml"), "--log", str(log)]) == 0
    before = log.read_bytes()
    assert main(["do", str(log), "drop-prone", "ari"]) == 1  # refused, as another ruleset's verb is
    assert "round-meters has no 'drop-prone' command" in capsys.readouterr().err
    assert log.read_bytes() == before


def test_an_unquoted_trigger_of_several_words_is_refused_with_how_to_quote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`hold ari shoot enemy-enters 9,2` unquoted gives the hold the trigger `enemy-enters` alone
    (9,2 fills target=): the refusal says to quote it, and the quoted form holds."""
    log = tmp_path / "ambush.jsonl"
    assert main(["new", str(SCENARIOS / "round-meters-ambush.toml"), "--log", str(log)]) == 0
    before = log.read_bytes()
    assert main(["do", str(log), "hold", "ari", "shoot", "enemy-enters", "9,2"]) == 1
    assert (
        "a trigger of several words is quoted: hold FIGHTER ACTION 'enemy-enters" in capsys.readouterr().err
    )
    assert log.read_bytes() == before
    assert main(["do", str(log), "hold", "ari", "shoot", "enemy-enters 9,2"]) == 0
    assert "ari holds shoot until enemy-enters 9,2" in capsys.readouterr().out
