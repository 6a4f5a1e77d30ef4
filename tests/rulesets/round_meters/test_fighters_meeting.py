"""round-meters, where one fighter's action meets another fighter: held actions set off by someone
else, several holders at once, a hold crossing a pass, a skipped turn or a delay, played through the
real engine against the words of document 001.

Document 001 has no forced movement, no reach and no falls; what it has of two fighters meeting is the
Hold ("declaring a specific action and a specific trigger") and the initiative order (passes, Delay).
Each test quotes the words it checks. The arena is test_rules' mud yard: initiative
ari > bo > cyn > dax; ari and bo are blue, cyn and dax red; a shot costs 2 AP (action_costs).
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.events.types import Marked, Moved, Unmarked

from tests.rulesets.round_meters.test_rules import ap_used, arena, ends, fighter, rule, spent, turn_state


def actions(events) -> list[tuple[str, bool]]:
    return [(e.fighter, e.value["held"]) for e in of_type(events, Marked) if e.key == "action"]


# --- a held action set off inside the holder's own turn ----------------------------------------------


def test_a_hold_set_off_inside_the_holders_own_turn_is_still_that_turns_action():
    # hold: "When you Hold an Action, immediately spend the AP required for that action." "If the
    # trigger occurs before your next turn, resolve the held action immediately."
    # passes/delay: only a turn with no action taken pays "the normal rule for taking no action".
    # Ari held (its action of the turn, 2 AP paid) and the enemy the GM knocks into the cell sets it
    # off before ari's turn is over: ari took an action this turn, so ending it costs nothing more.
    enc = encounter(arena())
    do(enc, 'hold ari shoot "enemy-enters 5,5" target=cyn')
    events = do(enc, 'place dax 5,5 why="knocked back"')
    assert actions(events) == [("ari", True)]
    assert ap_used(enc, "ari") == 2
    events = do(enc, "end-turn")
    assert not spent(events), "ari acted this turn (the hold): no AP for taking no action"
    assert ap_used(enc, "ari") == 2 and turn_state(enc, "ari") == "done"


def test_a_hold_set_off_on_another_fighters_turn_does_not_count_as_the_holders_next_turns_action():
    # passes: a turn with no action taken pays "the normal rule for taking no action" (idle_ap_loss).
    # Cyn's held shot, paid in pass 1, goes off on bo's turn of pass 2: cyn's own turn of pass 2, spent
    # idle, is still a turn without an action, and bo pays nothing for being shot at.
    enc = encounter(arena())
    ends(enc, 2)  # ari, bo: idle
    do(enc, 'hold cyn shoot "enemy-enters 2,4" target=bo')
    ends(enc, 3)  # cyn (holding), dax; pass 2: ari
    assert (enc.state.turn.pass_no, enc.state.turn.active) == (2, "bo")
    events = do(enc, "move bo 2,4")
    assert actions(events) == [("cyn", True)] and not spent(events)
    do(enc, "end-turn")  # bo
    assert enc.state.turn.active == "cyn"
    events = do(enc, "end-turn")  # cyn, idle
    assert [(e.fighter, e.amount) for e in spent(events)] == [("cyn", 1)]
    assert ap_used(enc, "cyn") == 3


# --- several holders, one happening --------------------------------------------------------------------


def test_one_enemy_entering_a_cell_two_fighters_watch_sets_off_both_in_initiative_order():
    # hold: "If the trigger occurs before your next turn, resolve the held action immediately."
    # Each holder paid its own AP when it held; the mover pays nothing for being shot at and walks on.
    enc = encounter(arena())
    do(enc, 'hold ari shoot "enemy-enters 7,4" target=dax')
    do(enc, "end-turn")
    do(enc, 'hold bo shoot "enemy-enters 7,4" target=dax')
    ends(enc, 2)  # bo, cyn
    events = do(enc, "move dax 7,4 6,4")
    assert actions(events) == [("ari", True), ("bo", True)]
    assert not spent(events)  # the AP were paid at the holds; moving is free (move-free)
    assert [e.fighter for e in of_type(events, Moved)] == ["dax", "dax"]  # interrupted at 7,4, goes on
    assert fighter(enc, "dax").pos[:2] == (6, 4)
    assert (ap_used(enc, "ari"), ap_used(enc, "bo"), ap_used(enc, "dax")) == (2, 2, 0)


def test_a_held_action_goes_off_once_and_a_second_enemy_into_the_cell_finds_nothing_held():
    # hold: the held action resolves when the trigger occurs; then it has been taken. One hold, one shot.
    enc = encounter(arena())
    do(enc, 'hold ari shoot "enemy-enters 8,2" target=cyn')
    ends(enc, 2)  # ari, bo
    assert actions(do(enc, "move cyn 9,2 8,2 7,2")) == [("ari", True)]
    do(enc, "end-turn")
    events = do(enc, "move dax 9,3 8,2 8,1")
    assert actions(events) == [] and not of_type(events, Unmarked)


def test_a_held_action_that_sets_off_another_hold_lets_that_one_resolve_first():
    # hold: "resolve the held action immediately". Ari's held shot is ari taking the action shoot,
    # which is bo's trigger: bo's held shot interrupts it, as ari's interrupts cyn's.
    enc = encounter(arena())
    do(enc, 'hold ari shoot "takes-action cyn shoot" target=cyn')
    do(enc, "end-turn")
    do(enc, 'hold bo aim "takes-action ari shoot"')
    do(enc, "end-turn")
    events = do(enc, "take-action cyn shoot target=ari")
    assert actions(events) == [("bo", True), ("ari", True), ("cyn", False)]
    assert [(e.fighter, e.amount) for e in spent(events)] == [("cyn", 2)]  # holders paid when holding
    assert "held" not in fighter(enc, "ari").marks and "held" not in fighter(enc, "bo").marks


def test_a_refused_move_through_the_watched_cell_sets_nothing_off():
    # hold: only a trigger that "occurs" resolves the held action; a move the rules refuse never
    # happened (round-budget: Movement is "up to their Movement in meters during each round").
    enc = encounter(arena())
    do(enc, 'hold ari shoot "enemy-enters 9,4" target=dax')
    ends(enc, 3)  # ari, bo, cyn
    refuse(enc, "move dax 9,4 8,4 7,4 6,4 5,4", rule("round-budget"))  # 5 m, dax has 4
    assert "held" in fighter(enc, "ari").marks
    assert actions(do(enc, "move dax 9,4")) == [("ari", True)]


# --- a hold meeting the initiative order: passes, skipped turns, delays ------------------------------


def test_a_hold_outlasts_a_pass_in_which_the_holder_is_skipped_for_want_of_ap():
    # hold: "If the trigger does not occur before your next turn, the held action is lost". A holder
    # left with no AP gets no turn in pass 2 (passes), so its next turn is next round's: the hold waits.
    enc = encounter(arena(ari_ap=2))
    do(enc, 'hold ari shoot "enemy-enters 8,1" target=cyn')  # all of ari's 2 AP
    ends(enc, 4)  # ari, bo, cyn, dax: pass 2, ari skipped
    assert (enc.state.turn.pass_no, enc.state.turn.active) == (2, "bo")
    assert "held" in fighter(enc, "ari").marks
    do(enc, "end-turn")  # bo
    events = do(enc, "move cyn 8,1")
    assert actions(events) == [("ari", True)]


def test_a_hold_is_lost_as_the_next_turn_arrives_even_when_the_holder_then_delays_it():
    # hold: "If the trigger does not occur before your next turn, the held action is lost and the AP
    # remains spent." delay: "During your turn, you may Delay": the turn has arrived before it is
    # delayed, so a trigger coming later in that pass finds nothing held.
    enc = encounter(arena())
    do(enc, 'hold ari shoot "enemy-enters 8,1" target=cyn')
    events = ends(enc, 4)  # ari, bo, cyn, dax: pass 2, ari's turn
    assert [e.key for e in of_type(events, Unmarked) if e.fighter == "ari"] == ["held"]
    do(enc, "delay ari")
    assert enc.state.turn.active == "bo"
    do(enc, "end-turn")  # bo
    assert actions(do(enc, "move cyn 8,1")) == []
    assert ap_used(enc, "ari") == 2  # the lost hold's AP stay spent
