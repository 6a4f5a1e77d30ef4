"""initiative-yards: what is left of the movement after a fall (setting fall_rest).

fall: "When falling, a fighter falls strait down and drops prone." Unlike slippery terrain ("drop
prone and lose the rest of their movement"), the document never says a faller loses the rest of its
movement. By default (fall_rest = keep) the fall stops the walk where the faller lands, prone, and
what is left may still be crawled at 2 a yard; a table may rule it lost (fall_rest = lost).

Checks use table rolls: 1d20 + Initiative 8 >= 15, so roll=7 passes and roll=1 fails.
"""

from __future__ import annotations

from support import do, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.core.engine.registry import get
from tabletrail.events.types import Moved, Spent
from tabletrail.projections.audit import whatif

from tests.rulesets.initiative_yards.test_rules import FAIL, IY, PASS, arena, at, fighter, posture

ROOF = ["#######", "#.T...#", "#.....#", "#######"]  # a 3 yd ledge at 2,1
DITCH = ["##########", "#..___...#", "#........#", "##########"]  # a gap 4 yd deep at 3..5,1


def stepped_off(settings: str = ""):
    enc = arena(ROOF, fighter("a", "blue", (1, 1), height=2) + fighter("e", "red", (5, 2)), settings)
    do(enc, f"pull-up a 2,1 {PASS}")  # 3 yd of the 8
    events = do(enc, "move a 3,1 4,1")  # steps off at 3,1 (1 yd), falls; 4,1 is dropped
    assert at(enc, "a") == (3, 1, 0) and posture(enc, "a") == "prone"
    return enc, events


def test_by_default_a_faller_keeps_what_is_left_of_its_movement_and_crawls_on():
    enc, events = stepped_off()
    assert enc.state.fighter("a").used("movement") == 4 * CU  # the ledge 3, the step off 1
    assert not [s for s in of_type(events, Spent) if s.resource == "movement"]
    moved = do(enc, "move a 4,1")  # prone: 1 yd crawled costs 2 of the 4 left
    assert [sum(s.cost for s in m.steps) for m in of_type(moved, Moved)] == [2 * CU]
    assert at(enc, "a") == (4, 1, 0)


def test_a_table_may_rule_the_rest_of_the_movement_lost_in_the_fall():
    enc, events = stepped_off('fall_rest = "lost"')
    lost = [s for s in of_type(events, Spent) if s.resource == "movement"]
    assert [s.amount for s in lost] == [4 * CU] and f"{IY}/fall" in lost[0].rules
    assert "fall_rest = lost" in lost[0].note
    r = refuse(enc, "move a 4,1", f"{IY}/fall")
    assert "fall_rest = lost" in r.reason


def test_the_setting_covers_every_fall_a_failed_leap_too():
    enc = arena(DITCH, fighter("a", "blue", (2, 1)) + fighter("e", "red", (8, 2)), 'fall_rest = "lost"')
    do(enc, f"leap a 6,1 {FAIL}")
    assert enc.state.fighter("a").used("movement") == 8 * CU
    enc = arena(DITCH, fighter("a", "blue", (2, 1)) + fighter("e", "red", (8, 2)))
    do(enc, f"leap a 6,1 {FAIL}")
    assert enc.state.fighter("a").used("movement") < 8 * CU


def test_the_rules_listing_says_what_a_faller_keeps_and_names_the_setting():
    rs = get(IY)
    settings = {s.name: s for s in rs.settings}
    s = settings["fall_rest"]
    assert s.default == "keep" and s.choices == ("keep", "lost") and s.rule == f"{IY}/fall"
    fall = {r.name: r for r in rs.rules}["fall"].default
    assert "(setting fall_rest)" in fall and "ending the move" not in fall
    assert "ending the move" not in settings["step_off"].doc


def test_whatif_the_rest_lost_refuses_the_crawl_after_the_fall():
    enc, _ = stepped_off()
    do(enc, "move a 4,1")
    result = whatif(enc.records, ["fall_rest=lost"])
    assert result.changed == {"fall_rest": ("keep", "lost")}
    (refused,) = result.refused
    assert refused["rule"] == f"{IY}/fall" and "fall_rest = lost" in refused["reason"]
