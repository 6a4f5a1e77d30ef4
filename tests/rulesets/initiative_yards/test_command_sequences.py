"""initiative-yards, sequences of commands held to document 000's own sentences.

Each test quotes the sentence it holds the engine to and names its rule id. Checks use
table rolls: 1d20 + Initiative (whole yards) >= 15.
"""

from __future__ import annotations

from support import do, refuse
from tabletrail.core.board.units import CU

from tests.rulesets.initiative_yards.test_rules import IY, OPEN, arena, at, cost, fighter

# --- leap + drag: "as long as the distance being jumped isn't greater than half the fighter's
# maximum movement" (leap) and "When doing a move while dragging an item, perform a move as
# normal but half their maximum movement" (drag): while the move action drags, the maximum
# movement is halved, and so is the widest gap. --------------------------------------------

ROOFTOPS = [
    "##########",
    "#^^...^^^#",
    "#^^...^^^#",
    "##########",
]


def rooftops():
    # Initiative 10: a move action of 10 yd, 5 yd while dragging; the street is 3 yd wide.
    return arena(
        ROOFTOPS,
        fighter("a", "blue", (6, 1), initiative=10)
        + fighter("b", "blue", (7, 1))
        + fighter("e", "red", (8, 2)),
    )


def test_a_leap_after_a_drag_is_limited_to_half_the_halved_movement():
    # initiative-yards/leap, drag: the street 3 yd > half of 5 yd; the 4 yd it costs would fit.
    enc = rooftops()
    do(enc, "drag a b 6,2 put=6,1")
    r = refuse(enc, "leap a 2,2 roll=5", f"{IY}/leap")
    assert r.reason == "gap 3 yd > half of max movement 2.5 yd"
    assert at(enc, "a") == (6, 2, 3 * CU)


def test_the_same_leap_without_a_drag_is_within_half_the_movement():
    # initiative-yards/leap: 3 yd <= half of 10 yd.
    enc = rooftops()
    do(enc, "move a 6,2")
    events = do(enc, "leap a 2,2 roll=5")
    assert at(enc, "a") == (2, 2, 3 * CU) and cost(events) == 4 * CU


# --- drag: "At the end of the movement place the target of your dragging anywhere within a
# yard of the moving fighter." The top of a low obstacle is a place (vault: "climb up on top of
# the piece of terrain"), so a crate half a yard high next to the end is within a yard. -------


def test_a_dragged_friend_may_be_put_on_top_of_a_low_obstacle_within_a_yard():
    rows = list(OPEN)
    rows[2] = "#..o.........#"
    enc = arena(
        rows, fighter("a", "blue", (1, 1)) + fighter("b", "blue", (2, 1)) + fighter("e", "red", (12, 4))
    )
    do(enc, "drag a b 3,1 put=3,2")
    assert at(enc, "a") == (3, 1, 0) and at(enc, "b") == (3, 2, CU // 2)


# --- move, combined: "If a fighter is going to perform a +move+ action and a non-move action, they
# can perform the non-move action at any point during their move." A move split around the action
# is still one move: under the alternating diagonal ruling (1, 2, 1, 2...) its count runs on. ------


def test_a_move_split_around_an_action_pays_the_same_alternating_diagonals():
    settings = 'diagonal = "alternating"'
    whole = arena(settings=settings)
    assert cost(do(whole, "move a 2,2 3,1")) == 3 * CU
    split = arena(settings=settings)
    assert cost(do(split, "move a 2,2")) == CU
    do(split, "act a command")
    assert cost(do(split, "move a 3,1")) == 2 * CU  # the move's second diagonal
    do(split, "end-turn")
    do(split, "end-turn")
    assert cost(do(split, "move a 4,2")) == CU  # a new move action counts from 1 again


def test_a_pull_up_from_a_corner_pays_its_height_and_no_diagonal():
    # initiative-yards/ledge: "they spend movement moving vertically equal to the height of the
    # ledge"; the diagonal that follows along the ledge top is still the move's first.
    rows = list(OPEN)
    rows[2] = rows[3] = "#.LLL........#"
    enc = arena(rows, settings='diagonal = "alternating"')
    assert cost(do(enc, "pull-up a 2,2 roll=7")) == 2 * CU
    assert cost(do(enc, "move a 3,3")) == CU
    assert at(enc, "a") == (3, 3, 2 * CU)
