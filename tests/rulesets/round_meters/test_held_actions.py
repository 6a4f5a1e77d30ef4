"""round-meters held to document 001's own sentences: a fresh review (fidelity review).

Each test cites its rule id and quotes the sentence it holds the engine to.
"""

from __future__ import annotations

from support import do, encounter, of_type
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.types import Marked, Spent, Unmarked
from tabletrail.text import render

from tests.rulesets.round_meters.test_rules import arena, fighter, rule

# --- hold: "You may also Hold an Action by declaring a specific action and a specific trigger,
# such as firing when an enemy enters a doorway." The document's own example names an action and
# a trigger, no target: a hold needs no target to be specific. --------------------------------


def test_firing_when_an_enemy_enters_a_doorway_may_be_held_without_naming_a_target():
    # round-meters/hold
    enc = encounter(arena())
    events = do(enc, 'hold ari shoot "enemy-enters 7,1 7,2"')
    assert [(e.fighter, e.resource, e.amount) for e in of_type(events, Spent)] == [("ari", "ap", 2)]
    held = fighter(enc, "ari").marks["held"]
    assert (held["action"], held["target"]) == ("shoot", "")
    do(enc, "end-turn")  # ari
    do(enc, "end-turn")  # bo
    events = do(enc, "move cyn 7,1")  # cyn steps into the doorway
    fired = [e for e in of_type(events, Unmarked) if e.key == "held"]
    assert fired and fired[0].rules == (rule("hold"),) and "cyn entered 7,1" in fired[0].note
    shot = [e for e in of_type(events, Marked) if e.key == "action" and e.fighter == "ari"]
    assert shot and shot[0].value["kind"] == "shoot" and shot[0].value["held"] is True


def test_an_action_aimed_at_nobody_may_be_held():
    # round-meters/hold: "declaring a specific action": reloading when cyn starts to move is one.
    enc = encounter(arena())
    do(enc, 'hold ari reload "starts-move cyn"')
    assert fighter(enc, "ari").marks["held"]["action"] == "reload"
    assert fighter(enc, "ari").used("ap") == 1


# --- sprint: "Each time they Sprint, they suffer a cumulative −5 penalty to all other tests for
# the remainder of the round." The board tells the table so, not "to attacks". -----------------


def test_the_sprint_penalty_reads_as_a_penalty_to_other_tests():
    # round-meters/sprint
    enc = encounter(arena())
    events = do(enc, "sprint ari roll=14")
    (mark,) = [e for e in of_type(events, Marked) if e.key == "sprint-penalty"]
    words = render.describe(mark, get_ruleset("round-meters"))
    assert words == "ari has sprinted 1 time: -5 to other tests, 2 m sprinted"
