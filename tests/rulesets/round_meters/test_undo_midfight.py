"""round-meters (001), pass 6: a table undoes, redoes, replays and rules mid-fight, rule by rule.

For every stateful rule of document 001_f4ae7af380350405.txt (the round's Movement, AP, sprints and
their penalty, passes and rounds, delays, holds, difficult-terrain rulings, doors), each test checks:

1. undo of the batch gives back exactly the state before it, and redo exactly the state after it
   (`enc.state` compared as values: positions, budgets, machine states, marks, links, the dice
   counter, turn, pass and round), with no rule re-run and no die re-rolled;
2. the log replays to the same board and `verify` passes it;
3. a command after an undo abandons the redo branch and is decided from the restored state;
4. GM rulings take effect from their batch, undo like any batch, and later decisions follow them;
5. a side undoes only its own batches; with undo_seeded = gm a seeded batch is the GM's to undo.

The catalogue's words: "Replay, redo and audit never roll again: they read the recorded numbers."
The arena is test_rules' mud yard (ari > bo > cyn > dax; ari Movement 6, 3 AP, Athletics +2;
x 3-5 of rows 2-3 is mud).
"""

from __future__ import annotations

import msgspec
from support import CLOCK, do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.types import Abandoned, CheckRolled, Marked, Moved, Redone, Undone
from tabletrail.projections.audit.verify import verify_lines
from tabletrail.service.encounter import Encounter

from tests.rulesets.round_meters.test_rules import ap_used, arena, ends, fighter, rule

UNDO = "tabletrail/undo"


# --- the three checks every batch owes ----------------------------------------------------------------


def value(state):
    """The state as a value: every field but the grid, a map decoded from the scenario (which is
    compared) that has no equality of its own, so two folds of one log hold two equal grids."""
    return msgspec.structs.replace(state, grid=None)


def replays(enc) -> None:
    """The log's lines alone fold to the live state, and verify passes them."""
    lines = list(enc.store.read())
    again = Encounter.open(MemoryStore(lines), clock=lambda: CLOCK)
    assert value(again.state) == value(enc.state), "replaying the log gives another state"
    assert again.timeline.applied == enc.timeline.applied
    assert again.timeline.undone == enc.timeline.undone
    report = verify_lines(lines)
    assert report["ok"], report


def round_trip(enc, text: str, by: str = "gm") -> list:
    """Run `text`; undo gives back the state before, redo the state after, each replays and verifies.

    Redo appends a single Redone: no rule runs and no die is rolled again (the dice counter included).
    """
    before = enc.state
    events = do(enc, text)
    after = enc.state
    replays(enc)
    assert of_type(do(enc, f"undo by={by}"), Undone)
    assert enc.state == before, f"undoing {text!r} did not give back the state before it"
    replays(enc)
    redone = do(enc, f"redo by={by}")
    assert [type(e) for e in redone] == [Redone], "redo decided or rolled again"
    assert enc.state == after, f"redoing {text!r} did not give back the state after it"
    assert enc.state.dice == after.dice
    replays(enc)
    return events


def meters_left(enc, fid: str) -> int:
    f = fighter(enc, fid)
    return round(f.stats["movement"] * CU) - f.used("movement")


def left_ap(enc, fid: str) -> int:
    f = fighter(enc, fid)
    return int(f.stats["ap"]) - f.used("ap")


# --- 1 and 2: every stateful rule's batch undoes to the state before it and redoes to the one after ----


def test_a_move_through_mud_undoes_and_redoes_its_meters_and_place():
    # round-budget: "Movement already used during the round remains spent until the start of the next
    # round"; difficult: "Each meter moved through Difficult Terrain costs 2 meters of Movement."
    enc = encounter(arena('diagonal = "alternating"'))
    round_trip(enc, "move ari 2,2")  # the round's first diagonal
    assert fighter(enc, "ari").pos[:2] == (2, 2) and meters_left(enc, "ari") == 5 * CU
    round_trip(enc, "move ari 3,3")  # the second diagonal of the round, into mud


def test_a_seeded_sprint_undoes_its_ap_meters_penalty_and_draw_and_redo_rolls_nothing():
    # sprint: "Sprinting is a Minor Action that costs 1 AP. Make an Athletics test. For each positive
    # Hit, gain +2 meters of Movement for the current round." Catalogue: "Replay, redo and audit never
    # roll again: they read the recorded numbers."
    enc = encounter(arena())
    dice = enc.state.dice
    events = round_trip(enc, "sprint ari")
    assert of_type(events, CheckRolled)[0].source == "seeded" and enc.state.dice > dice
    do(enc, "undo")
    assert enc.state.dice == dice  # the dice counter is put back too: the draw is not spent
    do(enc, "redo")
    round_trip(enc, "sprint ari roll=15")  # the second Sprint: its penalty is cumulative


def test_an_action_and_a_test_under_the_sprint_penalty_undo_and_redo():
    # sprint: "Each time they Sprint, they suffer a cumulative −5 penalty to all other tests for the
    # remainder of the round."
    enc = encounter(arena())
    do(enc, "sprint ari roll=13")
    round_trip(enc, "take-action ari shoot test=12 roll=16")
    (test,) = of_type(round_trip(enc, "roll-test ari perception 10 roll=12"), CheckRolled)
    assert test.modifier == -5


def test_a_delay_undoes_to_the_old_order_and_redoes_to_the_new():
    # delay: "Choose a combatant who has not yet acted during the current pass, or choose to act at the
    # end of the current pass. Your turn occurs at that later point."
    enc = encounter(arena())
    order = enc.state.turn.order
    round_trip(enc, "delay ari after=cyn")
    assert enc.state.turn.order != order and enc.state.turn.active == "bo"
    do(enc, "undo")
    assert enc.state.turn.order == order and enc.state.turn.active == "ari"
    do(enc, "redo")
    round_trip(enc, "delay bo")  # bo to the end of the pass


def test_a_delayed_turn_that_comes_and_goes_idle_undoes_its_lost_ap():
    # delay: "If you choose not to act when your delayed turn arrives, use the normal rule for taking
    # no action and lose 1 AP."
    enc = encounter(arena())
    do(enc, "delay ari after=bo")
    do(enc, "end-turn")  # bo; ari's delayed turn arrives
    assert enc.state.turn.active == "ari"
    round_trip(enc, "end-turn")
    assert ap_used(enc, "ari") == 1


def test_a_hold_its_trigger_and_its_loss_each_undo_and_redo():
    # hold: "When you Hold an Action, immediately spend the AP required for that action. If the trigger
    # occurs before your next turn, resolve the held action immediately. If the trigger does not occur
    # before your next turn, the held action is lost and the AP remains spent."
    enc = encounter(arena())
    round_trip(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    round_trip(enc, "end-turn")  # ari's turn ends holding
    ends(enc, 1)  # bo
    round_trip(enc, "move cyn 9,1")  # sets the held shot off, interrupting the move
    assert "held" not in fighter(enc, "ari").marks
    enc = encounter(arena())
    do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    ends(enc, 3)  # ari (holding), bo, cyn: nobody moved
    round_trip(enc, "end-turn")  # dax ends pass 1; ari's next turn comes, and the held shot is lost
    assert enc.state.turn.active == "ari" and "held" not in fighter(enc, "ari").marks
    assert ap_used(enc, "ari") == 2  # "the AP remains spent"
    do(enc, "undo")
    assert "held" in fighter(enc, "ari").marks and ap_used(enc, "ari") == 2


def test_the_end_of_a_pass_and_the_end_of_a_round_undo_and_redo():
    # passes: "initiative order runs in passes within a round"; round-budget: "Movement already used
    # during the round remains spent until the start of the next round."
    enc = encounter(arena('diagonal = "alternating"'))
    do(enc, "sprint ari roll=13")
    do(enc, "move ari 2,2")  # the round's first diagonal
    ends(enc, 3)
    round_trip(enc, "end-turn")  # dax ends pass 1: pass 2 begins
    assert enc.state.turn.pass_no == 2
    while True:
        before = enc.state
        do(enc, "end-turn")
        if enc.state.turn.round == 2:
            break
    do(enc, "undo")
    assert enc.state == before and enc.state.turn.round == 1
    assert {"sprint-penalty", "diagonals"} <= fighter(enc, "ari").marks.keys()  # round 1's, back
    do(enc, "redo")
    assert enc.state.turn.round == 2 and meters_left(enc, "ari") == 6 * CU
    assert not {"sprint-penalty", "diagonals"} & fighter(enc, "ari").marks.keys()
    replays(enc)


# --- 3: a command after an undo abandons the redo branch and is decided from the restored state -------


def test_a_move_after_an_undone_move_spends_the_round_budget_once_and_abandons_the_redo():
    # round-budget: "A character may move up to their Movement in meters during each round."
    enc = encounter(arena())
    do(enc, "move ari 7,1")  # 6 m: the whole round's Movement
    do(enc, "undo")
    events = do(enc, "move ari 4,1")  # decided on the restored 6 m, so 3 m are left after it
    (gone,) = of_type(events, Abandoned)
    assert meters_left(enc, "ari") == 3 * CU
    refuse(enc, "redo", UNDO)  # the undone 6 m move was cut off
    replays(enc)
    refuse(enc, "move ari 8,1", rule("round-budget"))  # 4 m more than the 3 m left


def test_a_round_end_comes_again_after_an_undone_turn_end_and_is_decided_afresh():
    # passes: a new round after the pass in which nobody has AP left; round-budget: Movement and AP
    # come back whole at the start of the next round.
    enc = encounter(arena("max_passes = 1\nidle_ap_loss = 0"))
    ends(enc, 3)
    do(enc, "end-turn")  # dax ends pass 1, and with max_passes 1 the round
    assert enc.state.turn.round == 2
    do(enc, "undo")
    assert (enc.state.turn.round, enc.state.turn.active) == (1, "dax")
    do(enc, "take-action dax aim")  # the table changes its mind: dax aims first (1 AP: dax's all)
    assert left_ap(enc, "dax") == 0
    do(enc, "end-turn")
    assert enc.state.turn.round == 2
    assert [left_ap(enc, f) for f in ("ari", "bo", "cyn", "dax")] == [3, 2, 3, 1]  # AP whole again
    replays(enc)


def test_an_undone_sprint_leaves_no_penalty_on_the_test_that_replaces_it():
    # sprint: "a cumulative −5 penalty to all other tests for the remainder of the round" — only
    # while the Sprint stands.
    enc = encounter(arena())
    do(enc, "sprint ari roll=13")
    do(enc, "undo")
    (test,) = of_type(do(enc, "roll-test ari perception 10 roll=12"), CheckRolled)
    assert test.modifier == 0 and test.passed is True


def test_an_undone_delay_gives_the_turn_back_and_the_old_place_in_the_order_holds():
    # delay: "Once you Delay, your new position becomes your Initiative position for the rest of the
    # combat" — an undone Delay was never made.
    enc = encounter(arena())
    do(enc, "delay ari after=dax")
    do(enc, "undo")
    do(enc, "take-action ari shoot")
    ends(enc, 4)
    assert enc.state.turn.order == ("ari", "bo", "cyn", "dax") and enc.state.turn.active == "ari"


def test_an_undone_hold_does_not_fire_when_its_trigger_comes_later():
    # hold: "If the trigger occurs before your next turn, resolve the held action immediately" —
    # the held action must still be held.
    enc = encounter(arena())
    do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    do(enc, "undo")
    assert left_ap(enc, "ari") == 3
    do(enc, "take-action ari aim")
    ends(enc, 2)
    events = do(enc, "move cyn 9,1")
    assert not [e for e in events if getattr(e, "key", "") == "action" and e.fighter == "ari"]
    assert left_ap(enc, "ari") == 2


# --- 4: the GM's rulings take effect from their batch, undo like any batch, and bind what follows ------


def test_setting_idle_ap_loss_mid_fight_binds_the_next_idle_turn_and_its_undo_restores_the_default():
    # delay/passes: "use the normal rule for taking no action and lose 1 AP"; idle_ap_loss: "AP a
    # combatant loses when an ordinary turn ends with no action taken".
    enc = encounter(arena())
    round_trip(enc, 'setting idle_ap_loss 0 why="a calm round"')
    do(enc, "end-turn")
    assert ap_used(enc, "ari") == 0
    do(enc, "undo")  # the end-turn
    do(enc, "undo")  # the setting
    do(enc, "end-turn")
    assert ap_used(enc, "ari") == 1


def test_setting_hold_ends_turn_mid_fight_ends_the_holders_turn_until_undone():
    # hold_ends_turn: "yes ends the turn on the hold"; the default "no": "the Hold section never ends
    # the turn".
    enc = encounter(arena())
    do(enc, 'setting hold_ends_turn yes why="house rule"')
    round_trip(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    assert enc.state.turn.active == "bo"
    do(enc, "undo")
    do(enc, "undo")
    do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    assert enc.state.turn.active == "ari"


def test_setting_max_passes_mid_round_ends_the_round_after_the_current_pass():
    # max_passes: "most initiative passes in a round"; passes: "AP per round is a character stat".
    enc = encounter(arena("idle_ap_loss = 0"))
    round_trip(enc, 'setting max_passes 1 why="one pass a round tonight"')
    ends(enc, 4)
    assert (enc.state.turn.round, enc.state.turn.pass_no) == (2, 1)
    enc = encounter(arena("idle_ap_loss = 0"))
    do(enc, 'setting max_passes 1 why="one pass a round tonight"')
    do(enc, "undo")
    ends(enc, 4)
    assert (enc.state.turn.round, enc.state.turn.pass_no) == (1, 2)  # AP is left: another pass


def test_setting_checks_to_table_refuses_a_sprint_with_no_roll_and_undoing_it_draws_again():
    # checks: "'table' refuses until the table enters the roll".
    enc = encounter(arena())
    round_trip(enc, 'setting checks table why="we roll at the table"')
    refuse(enc, "sprint ari", "tabletrail/checks")
    do(enc, "undo")
    (roll,) = of_type(do(enc, "sprint ari"), CheckRolled)
    assert roll.source == "seeded"


def test_setting_sprint_penalty_on_sprints_mid_round_gives_the_next_sprint_the_penalty():
    # sprint: "a cumulative −5 penalty to all other tests"; sprint_penalty_on_sprints: "whether a later
    # Sprint's own Athletics test carries the penalty of earlier Sprints".
    enc = encounter(arena())
    do(enc, "sprint ari roll=13")
    round_trip(enc, 'setting sprint_penalty_on_sprints yes why="tired legs"')
    (second,) = of_type(do(enc, "sprint ari roll=13"), CheckRolled)
    assert second.modifier == 2 - 5
    do(enc, "undo")
    do(enc, "undo")
    (second,) = of_type(do(enc, "sprint ari roll=13"), CheckRolled)
    assert second.modifier == 2


def test_setting_delay_before_action_no_lets_a_combatant_delay_after_acting_until_undone():
    # delay_before_action: "no lets a combatant delay after acting".
    enc = encounter(arena())
    do(enc, "take-action ari aim")
    refuse(enc, "delay ari after=cyn", rule("delay"))
    round_trip(enc, 'setting delay_before_action no why="loose table"')
    round_trip(enc, "delay ari after=cyn")
    assert enc.state.turn.active == "bo"


def test_setting_action_costs_mid_fight_prices_the_next_action_and_hold():
    # action_costs: "the actions a combatant may take or hold and their AP"; hold: "When you Hold an
    # Action, immediately spend the AP required for that action."
    enc = encounter(arena())
    round_trip(enc, 'setting action_costs "shoot:3,aim:1" why="heavy crossbows"')
    do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    assert ap_used(enc, "ari") == 3
    do(enc, "undo")
    do(enc, "undo")
    do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    assert ap_used(enc, "ari") == 2


def test_adjust_gives_and_takes_round_budgets_and_undoes_like_any_batch():
    # round-budget: the GM's adjust gives (positive) or takes (negative) remaining movement or AP.
    enc = encounter(arena())
    round_trip(enc, 'adjust ari 2 why="a tailwind"')
    assert meters_left(enc, "ari") >= 6 * CU
    do(enc, "move ari 9,1")  # 8 m: the 6 of the round and the 2 the GM gave
    assert fighter(enc, "ari").pos[:2] == (9, 1)
    do(enc, "undo")
    do(enc, "undo")
    refuse(enc, "move ari 9,1", rule("round-budget"))
    round_trip(enc, 'adjust ari -2 resource=ap why="winded"')
    refuse(enc, "take-action ari shoot", rule("passes"))  # 1 AP left, shoot costs 2


def test_forbid_and_lift_bind_moves_from_their_batch_on_and_undo_like_any_batch():
    # difficult: "the GM may, by a logged ruling, require a test or forbid a crossing".
    enc = encounter(arena())
    round_trip(enc, f'forbid 3,1 rule={rule("difficult")} why="a sinkhole"')
    refuse(enc, "move ari 4,1", rule("difficult"))
    round_trip(enc, "lift 3,1 why='filled in'")
    do(enc, "move ari 4,1")
    do(enc, "undo")
    do(enc, "undo")  # the lift: the forbid is in force again
    refuse(enc, "move ari 4,1", rule("difficult"))
    do(enc, "undo")  # the forbid
    do(enc, "move ari 4,1")


def test_require_test_binds_from_its_batch_and_a_seeded_test_redoes_without_rolling():
    # difficult: "The GM may require an appropriate test when terrain is especially unstable or
    # dangerous"; catalogue: "Replay, redo and audit never roll again".
    enc = encounter(arena())
    round_trip(enc, f'require-test 3,1 target=12 rule={rule("difficult")} why="loose scree"')
    events = round_trip(enc, "move ari 4,1")
    (test,) = of_type(events, CheckRolled)
    assert test.source == "seeded"


def test_place_and_override_undo_like_any_batch_and_the_budget_follows_the_override():
    # override: the GM places the fighter where the refused command would have put it, at the cost
    # given; place: "Put a fighter … on a cell by hand."
    enc = encounter(arena())
    round_trip(enc, 'place cyn 8,1 why="knocked back"')
    refuse(enc, "move ari 10,1", rule("round-budget"))
    events = round_trip(
        enc, f'override ari 10,1 {rule("round-budget")} cost=6 attempt="move ari 10,1" why="a dash"'
    )
    assert events and fighter(enc, "ari").pos[:2] == (10, 1) and meters_left(enc, "ari") == 0


def test_cost_only_set_after_a_forbid_refuses_new_rulings_and_the_old_one_stands_until_lifted():
    # difficult_rulings: "'cost-only': difficult terrain is its cost alone and such rulings are
    # refused". A setting takes effect from its batch on: a forbid made before it is a logged ruling in
    # force, which the GM may still lift (the engine's reading; the catalogue does not say).
    enc = encounter(arena())
    do(enc, f'forbid 3,1 rule={rule("difficult")} why="a sinkhole"')
    round_trip(enc, 'setting difficult_rulings cost-only why="no more rulings"')
    refuse(enc, f'forbid 4,1 rule={rule("difficult")} why="x"', rule("difficult"))
    assert "sinkhole" in refuse(enc, "move ari 4,1", rule("difficult")).reason
    round_trip(enc, "lift 3,1 why='filled in'")
    do(enc, "move ari 4,1")


def test_switching_to_alternating_diagonals_mid_round_counts_from_the_switch():
    # diagonal: "alternating (1, 2, 1, 2... counted over the round's Movement, across commands and
    # turns)". A setting binds from its batch on: a diagonal walked before it, at the euclidean price,
    # is not counted again (the engine's reading; neither the document nor the catalogue says).
    enc = encounter(arena())
    (first,) = of_type(do(enc, "move ari 2,2"), Moved)
    assert first.steps[0].cost == 141
    round_trip(enc, 'setting diagonal alternating why="simpler counting"')
    (second,) = of_type(do(enc, "move ari 3,1"), Moved)
    assert second.steps[0].cost == CU  # the first diagonal counted under the new setting
    do(enc, "undo")
    do(enc, "undo")
    (again,) = of_type(do(enc, "move ari 3,1"), Moved)
    assert again.steps[0].cost == 141


# --- 5: a side undoes only its own batches; undo_seeded = gm keeps seeded rolls for the GM -----------


def test_a_side_undoes_its_own_move_but_not_the_other_sides_nor_the_gms_ruling():
    # tabletrail/undo: "players undo only their own side's batches, the GM any".
    enc = encounter(arena())
    round_trip(enc, "move ari 3,1 by=blue", by="blue")
    do(enc, 'setting idle_ap_loss 0 why="calm"')
    refuse(enc, "undo by=blue", UNDO)
    do(enc, "undo")
    do(enc, "end-turn by=blue")  # ari's; bo's turn
    do(enc, "end-turn by=blue")  # bo's; cyn's turn
    do(enc, "move cyn 8,1 by=red")
    refuse(enc, "undo by=blue", UNDO)
    round_trip(enc, "sprint cyn roll=3 by=red", by="red")


def test_a_held_action_set_off_by_the_other_side_is_theirs_to_undo_not_the_holders():
    # hold: "If the trigger occurs before your next turn, resolve the held action immediately" — in
    # the batch of the move that set it off, which is the mover's side's batch.
    enc = encounter(arena())
    do(enc, 'hold ari shoot "starts-move cyn" target=cyn by=blue')
    ends(enc, 2)
    do(enc, "move cyn 9,1 by=red")
    refuse(enc, "undo by=blue", UNDO)
    do(enc, "undo by=red")
    assert "held" in fighter(enc, "ari").marks
    do(enc, "redo by=red")
    assert "held" not in fighter(enc, "ari").marks


def test_a_player_redoes_their_own_batch_the_gm_undid():
    # tabletrail/undo: redo follows the same policy as undo: a player's own side's batch is theirs.
    enc = encounter(arena())
    do(enc, "move ari 3,1 by=blue")
    do(enc, "undo")
    do(enc, "redo by=blue")
    assert fighter(enc, "ari").pos[:2] == (3, 1)


def test_with_undo_seeded_gm_a_seeded_sprint_is_the_gms_to_undo_and_a_table_roll_the_players():
    # tabletrail/undo: "undo_seeded = gm keeps batches with seeded rolls for the GM"; the setting:
    # "'gm' (no re-rolls by undo)".
    enc = encounter(arena('undo_seeded = "gm"'))
    do(enc, "sprint ari by=blue")
    r = refuse(enc, "undo by=blue", UNDO)
    assert "seeded" in r.reason
    do(enc, "undo")
    refuse(enc, "redo by=blue", UNDO)  # redoing it would be no re-roll, but the batch is the GM's now
    do(enc, "redo")
    do(enc, "sprint ari roll=14 by=blue")
    round_trip(enc, "roll-test ari perception 10 roll=12 by=blue", by="blue")
    do(enc, "undo by=blue")  # the table roll's batch is blue's own
    do(enc, "undo by=blue")


def test_undo_seeded_set_mid_fight_binds_the_seeded_batches_after_it_until_undone():
    # "undo_seeded = gm keeps batches with seeded rolls for the GM", from the ruling's batch on.
    enc = encounter(arena())
    round_trip(enc, 'setting undo_seeded gm why="no fishing for rolls"')
    do(enc, "sprint ari by=blue")
    refuse(enc, "undo by=blue", UNDO)
    do(enc, "undo")  # the sprint (the GM may)
    do(enc, "undo")  # the setting
    do(enc, "sprint ari by=blue")  # the same seeded draw: undo re-rolls nothing
    do(enc, "undo by=blue")  # anyone again: blue's own batch


def test_a_door_opened_under_a_door_cost_set_mid_round_is_paid_from_the_rounds_movement():
    # tabletrail/doors: "opens a closed door or closes an open one, for the ruleset's door_cost";
    # door_cost: "in m of movement"; round-budget: spent meters "remain spent until the start of the
    # next round".
    from tests.core.test_doors import DOOR
    from tests.core.test_doors import scene as door_scene

    enc = encounter(door_scene("round-meters"))
    round_trip(enc, 'setting door_cost 1 why="rusted hinges"')
    round_trip(enc, f"open m {DOOR}")
    assert fighter(enc, "m").used("movement") == CU and enc.state.doors == {DOOR: "open"}
    round_trip(enc, f"close m {DOOR}")
    round_trip(enc, f"lock m {DOOR}")
    refuse(enc, f"open m {DOOR}", "tabletrail/doors")
    do(enc, "undo")  # the lock
    do(enc, "undo")  # the close
    do(enc, "undo")  # the open
    do(enc, "undo")  # the setting: doors are free again
    do(enc, f"open m {DOOR}")
    assert fighter(enc, "m").used("movement") == 0


def test_a_hold_declared_before_a_setting_change_resolves_as_declared_and_paid():
    # hold: "When you Hold an Action, immediately spend the AP required for that action" — the price
    # is paid when it is held, so a later action_costs does not re-price it; "A held action must be
    # specific enough for the GM to determine when it triggers" — judged when it is held, so a later
    # hold_triggers that drops its kind does not cancel it (the engine's reading: a setting binds the
    # decisions after it, and the hold was decided before).
    enc = encounter(arena())
    do(enc, 'hold ari shoot "starts-move cyn" target=cyn')
    round_trip(enc, 'setting hold_triggers enemy-enters why="only doorways from now on"')
    round_trip(enc, 'setting action_costs "shoot:3,aim:1" why="heavy crossbows"')
    ends(enc, 2)
    events = round_trip(enc, "move cyn 9,1")
    (shot,) = [e for e in of_type(events, Marked) if e.key == "action" and e.fighter == "ari"]
    assert shot.value["held"] is True and shot.value["ap"] == 2 and ap_used(enc, "ari") == 2
    refuse(enc, 'hold cyn shoot "starts-move ari" target=ari', rule("hold"))  # the new trigger list
