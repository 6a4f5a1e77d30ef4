"""speed-meters, a fidelity review against document 004's own words.

Each test quotes the sentence it holds the engine to and cites its rule id.
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import CheckRolled

from tests.rulesets.speed_meters.test_scenes import fighter, scene

WALL = ["#######", "#.CCB.#", "#.....#", "#######"]  # 6 m blocks: C brick (difficulty 2), B glass (3)


def test_a_climber_at_the_lip_climbs_onto_the_top():
    # speed-meters/climb: "With a roll +Brawn, you may climb almost any surface. This roll is
    # required each time you move via climbing". A climber who stops level with the top of the
    # face may climb on over its edge with its next climbing Movement (not be stuck on the wall).
    enc = encounter(scene(WALL, fighter("a", at=(1, 1), speed=4)))
    for z in (2, 4, 6):
        do(enc, f"climb a 1,1,{z} roll=6")  # 2 m a Movement, half of Speed 4
    assert enc.state.fighter("a").pos == (1, 1, 6 * CU)
    events = do(enc, "climb a 2,1 roll=2")  # from the hold at the lip onto the brick's top
    roll = of_type(events, CheckRolled)[0]
    assert (roll.check, roll.target, roll.passed) == ("climb", 2, True)
    a = enc.state.fighter("a")
    assert a.pos == (2, 1, 6 * CU) and a.states["mode"] == "walking" and a.spent["actions"] == 4


SHELF = ["######", "#.:..#", "######"]  # a 2.5 m shelf at 2,1 above the floor


def test_stepping_off_a_ledge_onto_someone_is_refused():
    # speed-meters/occupancy: "Can move through spaces occupied by allies, but can't end a Movement
    # in an occupied space." A step off a ledge (ledge_drop = fall) ends the Movement where it lands,
    # so landing on the fighter below is refused, as walking onto it would be.
    enc = encounter(
        scene(SHELF, fighter("a", at=(2, 1)), fighter("e", "red", at=(3, 1)), settings='ledge_drop = "fall"')
    )
    r = refuse(enc, "move a 3,1", "speed-meters/occupancy")
    assert "would end on 3,1, occupied by e" in r.reason
    assert enc.state.fighter("a").pos == (2, 1, 250)
    do(enc, "move a 4,1")  # past e: nobody below there, so a drops the 2.5 m and lands prone
    a = enc.state.fighter("a")
    assert a.pos == (4, 1, 0) and a.states["posture"] == "prone"
