"""round-meters, row by row against the catalogue and document 001: what each rule allows,
refuses and costs, the rule ids its events cite, and the settings those rules bear.

Each test quotes the words it holds the engine to and cites its rule id.
"""

from __future__ import annotations

from support import do, encounter, of_type
from tabletrail.core.engine.registry import RULESETS
from tabletrail.events.types import Marked, Spent
from tabletrail.text.render import describe

from tests.rulesets.round_meters.test_rules import arena


def _bears_on(name: str) -> str:
    return next(s.rule for s in RULESETS["round-meters"].settings if s.name == name)


def test_the_idle_turn_loss_cites_the_rule_its_setting_bears_on():
    # round-meters/passes, setting idle_ap_loss: "AP a combatant loses when an ordinary turn ends
    # with no action taken ... (1 AP for a delayed turn, which stays 1 whatever this says)". The
    # setting prices ordinary turns only, so it bears on the rule the ordinary turn's loss cites
    # (explain lists a setting against the events that cite its rule).
    enc = encounter(arena("idle_ap_loss = 2"))
    spent = of_type(do(enc, "end-turn"), Spent)[0]
    assert (spent.fighter, spent.resource, spent.amount) == ("ari", "ap", 2)
    assert _bears_on("idle_ap_loss") in spent.rules


def test_a_delayed_turn_taken_idle_loses_1_ap_whatever_idle_ap_loss_says():
    # round-meters/delay: "If you choose not to act when your delayed turn arrives, use the normal
    # rule for taking no action and lose 1 AP."
    enc = encounter(arena("idle_ap_loss = 2"))
    do(enc, "delay ari")  # bo, cyn, dax, ari
    for _ in range(3):
        do(enc, "end-turn")
    spent = of_type(do(enc, "end-turn"), Spent)[0]
    assert (spent.fighter, spent.amount, spent.rules) == ("ari", 1, ("round-meters/delay",))


def test_a_delay_to_the_end_of_the_pass_reads_as_one():
    # round-meters/delay: "Choose a combatant who has not yet acted during the current pass, or
    # choose to act at the end of the current pass." With no combatant named, the log says the turn
    # goes to the end of the pass (it said "delays until after" and nobody).
    enc = encounter(arena())
    marked = [e for e in of_type(do(enc, "delay ari"), Marked) if e.key == "delayed"][0]
    assert describe(marked) == "ari delays to the end of pass 1"
    enc = encounter(arena())
    marked = [e for e in of_type(do(enc, "delay ari after=cyn"), Marked) if e.key == "delayed"][0]
    assert describe(marked) == "ari delays until after cyn"
