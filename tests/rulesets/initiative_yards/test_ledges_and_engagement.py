"""initiative-yards checked against document 000's own sentences (issue 12, items 1-4).

Checks use table rolls: 1d20 + Initiative 8 >= 15, so roll=7 passes and roll=1 fails.
"""

from __future__ import annotations

from support import do, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import Damaged, Linked, Placed

from tests.rulesets.initiative_yards.test_rules import FAIL, IY, PASS, arena, at, engagement, fighter, posture

# --- engage: "If a fighter moves into the Reach of an enemy, or an enemy becomes within their
# Reaching during a move; both fighters become engaged! … Prone fighters become engaged as normal."
# Every way a fighter arrives somewhere counts. ---------------------------------------------------

DITCH = [
    "##########",
    "#..___...#",
    "#........#",
    "##########",
]


def linked(events) -> set[tuple[str, str]]:
    return {(e.a, e.b) for e in of_type(events, Linked)}


def test_falling_from_a_failed_leap_into_an_enemys_reach_engages_both():
    # e stands on the ditch floor at 5,1; a misses and falls into the middle, 4,1: 1 yd from e.
    enc = arena(DITCH, fighter("a", "blue", (2, 1)) + fighter("e", "red", (5, 1)))
    events = do(enc, f"leap a 6,1 {FAIL}")
    assert at(enc, "a") == (4, 1, -4 * CU) and posture(enc, "a") == "prone"
    assert linked(events) == {("a", "e")}
    assert engagement(enc, "a") == engagement(enc, "e") == "engaged"


def test_a_dragged_friend_set_down_in_an_enemys_reach_is_engaged():
    # a drags b from 2,1 to beside 3,1 and puts b at 3,2, 1 yd from e at 3,3; a stays out of reach.
    rows = ["########", "#......#", "#......#", "#......#", "########"]
    enc = arena(
        rows, fighter("a", "blue", (1, 1)) + fighter("b", "blue", (2, 1)) + fighter("e", "red", (3, 3))
    )
    events = do(enc, "drag a b 3,1 put=3,2")
    assert at(enc, "b")[:2] == (3, 2)
    assert linked(events) == {("b", "e")}
    assert engagement(enc, "b") == engagement(enc, "e") == "engaged"
    assert engagement(enc, "a") == "free"


def test_a_vault_landing_in_reach_engages_as_a_step_does():
    rows = ["#########", "#..o....#", "#.......#", "#########"]
    enc = arena(rows, fighter("a", "blue", (2, 1)) + fighter("e", "red", (5, 1)))
    events = do(enc, f"vault a 4,1 {PASS}")
    assert linked(events) == {("a", "e")}


# --- ledge + vault: "without having to spend the movement to climb up on top of the piece of
# terrain": terrain too tall to vault may be climbed onto under the ledge rule. -------------------

CRATES = [
    "#########",
    "#..OO...#",
    "#.......#",
    "#########",
]


def crate_arena(**stats: object):
    return arena(CRATES, fighter("a", "blue", (2, 1), **stats) + fighter("e", "red", (7, 2)))


def test_pulling_up_onto_a_crate_too_tall_to_vault():
    enc = crate_arena()  # 1.5 yd tall: the 1 yd crate is not lower than half height, within 1.5x
    do(enc, f"pull-up a 3,1 {PASS}")
    assert at(enc, "a") == (3, 1, CU)
    assert enc.state.fighter("a").used("movement") == CU  # its height in movement


def test_walking_along_the_top_of_the_crates_but_not_into_their_side():
    enc = crate_arena()
    refuse(enc, "move a 3,1", f"{IY}/vault")
    do(enc, f"pull-up a 3,1 {PASS}")
    do(enc, "move a 4,1")  # level along the top
    assert at(enc, "a") == (4, 1, CU)


def test_a_crate_taller_than_one_and_a_half_heights_is_still_refused():
    enc = crate_arena(height=0.6)
    r = refuse(enc, f"pull-up a 3,1 {PASS}", f"{IY}/ledge")
    assert "1.5 x own height" in r.reason


# --- a way down: "When falling, a fighter falls strait down and drops prone." A fighter who climbed
# up can step off (setting step_off, default fall) rather than wait for the GM to place it. ---------

ROOF = ["#######", "#.T...#", "#.....#", "#######"]  # a 3 yd ledge at 2,1


def test_stepping_off_a_ledge_falls_straight_down_prone_and_ends_the_move():
    enc = arena(ROOF, fighter("a", "blue", (1, 1), height=2) + fighter("e", "red", (5, 2)))
    do(enc, f"pull-up a 2,1 {PASS}")
    events = do(enc, "move a 3,1 4,1")
    assert at(enc, "a") == (3, 1, 0) and posture(enc, "a") == "prone"
    fall = [e for e in of_type(events, Placed) if e.how == "fall"]
    assert fall and f"{IY}/fall" in fall[0].rules
    assert [d.amount for d in of_type(events, Damaged)] == [1]  # 3 yd, 1 yd past 2 yd tall
    assert enc.state.fighter("a").used("movement") == 3 * CU + CU  # the ledge, then one step off


def test_step_off_refuse_keeps_a_fighter_to_stairs_and_ladders():
    enc = arena(
        ROOF, fighter("a", "blue", (1, 1), height=2) + fighter("e", "red", (5, 2)), 'step_off = "refuse"'
    )
    do(enc, f"pull-up a 2,1 {PASS}")
    refuse(enc, "move a 3,1", f"{IY}/climb")


def test_stepping_off_into_an_enemys_reach_engages_on_landing():
    enc = arena(ROOF, fighter("a", "blue", (1, 1), height=2) + fighter("e", "red", (4, 1)))
    do(enc, f"pull-up a 2,1 {PASS}")
    events = do(enc, "move a 3,1")
    assert linked(events) == {("a", "e")}


def test_walking_into_a_gap_steps_off_its_edge_and_falls_to_its_floor():
    enc = arena(DITCH, fighter("a", "blue", (2, 1)) + fighter("e", "red", (8, 2)))
    events = do(enc, "move a 3,1 5,1")
    assert at(enc, "a") == (3, 1, -4 * CU) and posture(enc, "a") == "prone"
    assert [d.amount for d in of_type(events, Damaged)] == [2]  # 4 yd, 2.5 past 1.5 yd tall
