"""speed-meters jump: one jump both across and up (setting jump_up_and_across).

jump: "You can jump 1 meter vertically or 2 meters horizontally as a part of any Movement"; maneuver:
"jump, roll, slide … for no more than 2 meters of the movement". Read as written, one jump goes up or
across (jump_up_and_across = either, the default); the other reading lets one jump cross the air and
come down on a shelf 1 m up, the climb and the spaces crossed counted together within the 2 m of
maneuver (jump_up_and_across = both).
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.core.engine.registry import get
from tabletrail.events.types import Moved, Spent

from tests.rulesets.speed_meters.test_scenes import fighter, scene

ONE_ACROSS = ["#####", "#._^#", "#####"]  # 1 m of air at 2,1, then a shelf 1 m up at 3,1
TWO_ACROSS = ["######", "#.__^#", "######"]  # 2 m of air, then the shelf
BOTH = 'jump_up_and_across = "both"'


def test_by_default_one_jump_goes_up_or_across_and_the_refusal_names_the_setting():
    enc = encounter(scene(ONE_ACROSS, fighter("a")))
    r = refuse(enc, "move a 3,1", "speed-meters/jump")
    assert "not both" in r.reason and "jump_up_and_across = either" in r.reason


def test_a_table_may_let_one_jump_go_across_and_up_within_the_two_meters_of_maneuver():
    enc = encounter(scene(ONE_ACROSS, fighter("a"), settings=BOTH))
    events = do(enc, "move a 3,1")
    assert enc.state.fighter("a").pos == (3, 1, CU)
    assert [(s.to, s.mode) for m in of_type(events, Moved) for s in m.steps] == [
        ((2, 1, 0), "jump"),
        ((3, 1, CU), "jump"),
    ]
    maneuver = [e.amount for e in of_type(events, Spent) if e.resource == "maneuver"]
    assert maneuver == [2 * CU]  # 1 m across + 1 m up


def test_across_and_up_still_may_not_pass_the_two_meters_of_maneuver():
    enc = encounter(scene(TWO_ACROSS, fighter("a"), settings=BOTH))
    r = refuse(enc, "move a 4,1", "speed-meters/maneuver")
    assert "3 m" in r.reason


def test_the_rules_listing_names_the_ruling_and_its_alternative():
    rs = get("speed-meters")
    s = {s.name: s for s in rs.settings}["jump_up_and_across"]
    assert s.default == "either" and s.choices == ("either", "both") and s.rule == "speed-meters/jump"
    assert "jump_up_and_across" in {r.name: r for r in rs.rules}["jump"].default
