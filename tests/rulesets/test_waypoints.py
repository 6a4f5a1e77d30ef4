"""Every ruleset reads a move's waypoints the same way (core.engine.movement.path_cells), under its own rule.

Off the map, a waypoint that is not x,y, and a path that goes nowhere are each
refused by the ruleset's move rule, with nothing appended; a good path is walked
through the straight lines between its waypoints.
"""

from __future__ import annotations

import pytest
from support import encounter, of_type, refuse
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.commands import Move
from tabletrail.events.types import Moved

from tests.core.test_reach_rulesets import STATS, scene

MOVE_RULE = {
    "speed-meters": "speed-meters/movement",
    "initiative-yards": "initiative-yards/move",
    "round-meters": "round-meters/round-budget",
    "ap-squares": "ap-squares/walk",
}


def test_every_ruleset_is_covered():
    assert set(MOVE_RULE) == set(STATS)


@pytest.mark.parametrize("ruleset", sorted(MOVE_RULE))
def test_a_waypoint_off_the_map_is_refused_by_the_move_rule(ruleset: str):
    enc = encounter(scene(ruleset, "every-1"))
    result = refuse(enc, "move m 2,2 9,9", MOVE_RULE[ruleset])
    assert "9,9 is off the 8x6 map" in result.reason


@pytest.mark.parametrize("ruleset", sorted(MOVE_RULE))
def test_a_path_that_goes_nowhere_is_refused(ruleset: str):
    enc = encounter(scene(ruleset, "every-1"))
    result = refuse(enc, "move m 1,1", MOVE_RULE[ruleset])
    assert "m is already at 1,1" in result.reason


@pytest.mark.parametrize("ruleset", sorted(MOVE_RULE))
def test_a_waypoint_with_one_number_is_refused_not_a_crash(ruleset: str):
    enc = encounter(scene(ruleset, "every-1"))
    result = enc.preview(Move(fighter="m", path=((2, 2), (3,))))
    assert isinstance(result, Rejection) and result.rule == MOVE_RULE[ruleset], result
    assert "(3,) is not a cell; write x,y" in result.reason


@pytest.mark.parametrize("ruleset", sorted(MOVE_RULE))
def test_waypoints_are_joined_by_straight_lines(ruleset: str):
    enc = encounter(scene(ruleset, "every-1"))
    result = enc.preview(Move(fighter="m", path=((1, 1), (1, 3), (2, 4))))
    assert not isinstance(result, Rejection), result
    cells = [s.to[:2] for m in of_type(result, Moved) for s in m.steps]
    assert cells == [(1, 2), (1, 3), (2, 4)]


ALONE = ["initiative-yards", "round-meters"]  # the others: speed-meters by height, ap-squares shares


@pytest.mark.parametrize("ruleset", ALONE)
def test_a_move_may_pass_a_friend_but_not_end_on_its_cell(ruleset: str):
    enc = encounter(scene(ruleset, "every-1"))
    result = refuse(enc, "move m 2,1", MOVE_RULE[ruleset])
    assert result.reason.startswith("the move would end on 2,1, occupied by pal")
    if ruleset == "round-meters":  # the document is silent: the refusal names the table's setting
        assert result.reason.endswith("fighters_in_the_way = pass-anyone)"), result.reason
    result = enc.preview(Move(fighter="m", path=((3, 1),)))
    assert not isinstance(result, Rejection), result
    assert of_type(result, Moved)[-1].steps[-1].to[:2] == (3, 1)
