"""initiative-yards, rules fidelity pass 7: where one fighter's move meets another fighter.

Each test plays a situation in which two or more fighters meet (a fall onto someone, a drag out of
an engagement, a move past friends and foes) through the real engine, quoting document 000's words
(or the catalogue's default ruling where the text is silent) next to what it asserts: allowed or
refused and by which rule, what it costs and whom, and the state of each fighter after. Checks use
table rolls: an Initiative check passes when 1d20 + Initiative (8) reaches 15, so roll=1 fails.
"""

from __future__ import annotations

from support import do, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import Damaged, Placed, Unlinked

from tests.rulesets.initiative_yards.test_rules import IY, OPEN, arena, at, cost, engagement, fighter, posture

NO_TURNS = "strict_turns = false"

# --- a fall straight down onto a friend -------------------------------------------------------------

ROOF = [
    "##########",
    "#..^^....#",
    "#........#",
    "##########",
]  # a 3 yd roof at 3,1 and 4,1


def test_stepping_off_a_roof_onto_a_friend_below_is_refused_as_ending_on_it():
    # fall: "When falling, a fighter falls strait down and drops prone." move (the engine's ruling
    # where the text is silent, as for any move): a move may pass friends but not end on their cell.
    # A step off the roof ends the move where the fighter lands, straight below: on b. So the step is
    # refused under move, as walking onto b's cell is, and nothing happens to either fighter.
    enc = arena(ROOF, fighter("a", "blue", (3, 1)) + fighter("b", "blue", (5, 1)), NO_TURNS)
    r = refuse(enc, "move a 4,1 5,1", f"{IY}/move")
    assert "5,1" in r.reason and "occupied by b" in r.reason
    assert at(enc, "a") == (3, 1, 3 * CU) and posture(enc, "a") == "standing"
    assert at(enc, "b") == (5, 1, 0) and enc.state.fighter("a").used("movement") == 0
    # Beside b there is nobody below: a steps off there, falls 3 yd and lands prone (1 damage, 1.5
    # yd past its own height of 1.5), b untouched.
    events = do(enc, "move a 4,1 4,2")
    assert at(enc, "a") == (4, 2, 0) and posture(enc, "a") == "prone"
    assert [d.amount for d in of_type(events, Damaged)] == [1]
    assert at(enc, "b") == (5, 1, 0) and posture(enc, "b") == "standing"


def test_a_walk_through_a_friend_standing_in_an_enemys_reach_is_refused_as_ending_on_it():
    # engage: "If a fighter moves into the Reach of an enemy, or an enemy becomes within their
    # Reaching during a move; both fighters become engaged!", and (catalogue) "the move ends there".
    # move (the engine's ruling where the text is silent): friends are passed, a move never ends on
    # someone. b stands 1 yd from e: a walk through b's cell enters e's Reach on it, so the move
    # would end there, on b. Refused under move; nobody moves and nobody is engaged.
    enc = arena(
        OPEN,
        fighter("a", "blue", (1, 2)) + fighter("b", "blue", (2, 2)) + fighter("e", "red", (2, 3)),
        NO_TURNS,
    )
    r = refuse(enc, "move a 3,2", f"{IY}/move")
    assert "would end on 2,2, occupied by b" in r.reason and "e" in r.reason
    assert at(enc, "a") == (1, 2, 0) and engagement(enc, "a") == engagement(enc, "e") == "free"
    # Out of e's Reach the same friend is passed: round by 1,1 and 2,1 (1.41 yd from e) a stops at
    # 3,2, where e's Reach (1.41 yd) does not reach, engaged with nobody; b stays where it is.
    events = do(enc, "move a 1,1 3,1 3,2")
    assert at(enc, "a") == (3, 2, 0) and engagement(enc, "a") == "free" and at(enc, "b") == (2, 2, 0)
    assert cost(events) == 4 * CU


# --- breaking away from a prone foe while dragging a friend ------------------------------------------


def test_a_fighter_engaged_only_with_a_prone_foe_drags_a_friend_away_and_breaks_free():
    # engage-break: "fighters that are engaged with a prone fighter and not prone themselves can
    # freely break the engagement during movements"; drag: "perform a move as normal but half their
    # maximum movement. At the end of the movement place the target of your dragging anywhere within
    # a yard of the moving fighter." A drag is a movement, so a standing a, engaged only with prone
    # e, drags f off: the engagement breaks where a leaves e's Reach, both a and e are free, the drag
    # costs its yards out of the move action, halved (4 of 8, 1 already walked), and f is put within
    # a yard of a.
    enc = arena(
        OPEN,
        fighter("a", "blue", (1, 2)) + fighter("f", "blue", (2, 3)) + fighter("e", "red", (3, 2)),
        NO_TURNS,
    )
    do(enc, "drop-prone e")
    do(enc, "move a 2,2")  # into prone e's Reach: both engaged, the move ends
    assert engagement(enc, "a") == engagement(enc, "e") == "engaged"
    events = do(enc, "drag a f 1,2 1,1 put=1,2")
    (broken,) = of_type(events, Unlinked)
    assert broken.rules == (f"{IY}/engage-break",) and "leaves its Reach at 1,2" in broken.note
    assert engagement(enc, "a") == engagement(enc, "e") == "free"
    assert at(enc, "a") == (1, 1, 0) and at(enc, "f") == (1, 2, 0)
    assert [p.how for p in of_type(events, Placed) if p.fighter == "f"] == ["drag"]
    assert cost(events) == 2 * CU and enc.state.fighter("a").used("movement") == 3 * CU
    assert posture(enc, "e") == "prone" and at(enc, "e") == (3, 2, 0)  # e is not moved by any of it
    refuse(enc, "move a 3,1", f"{IY}/drag")  # 2 yd more, but only 1 of the halved 4 is left


# --- putting a dragged friend down, or landing a vault, where someone stands ---------------------

LOW_WALL = ["##########", "#...o....#", "#........#", "##########"]  # a 0.5 yd obstacle at 4,1


def test_a_drag_or_a_vault_may_not_end_on_someone_and_is_refused_before_any_roll():
    # drag: "At the end of the movement place the target of your dragging anywhere within a yard of
    # the moving fighter"; vault: "they must pass an Initiative check or else fall prone on the other
    # side of the barrier". Neither place may be a fighter's cell (move: never end on someone): both
    # are refused before the check is rolled, spending nothing, and everyone stays put.
    enc = arena(
        LOW_WALL,
        fighter("a", "blue", (3, 1))
        + fighter("f", "blue", (3, 2))
        + fighter("g", "blue", (5, 1))
        + fighter("h", "blue", (5, 2)),
        NO_TURNS,
    )
    r = refuse(enc, "drag a f 4,2 put=5,2", f"{IY}/drag")
    assert "f can't be put on 5,2: h is there" in r.reason
    r = refuse(enc, "vault a 5,1 roll=1", f"{IY}/vault")
    assert "can't land on 5,1: g is there" in r.reason
    assert enc.state.fighter("a").used("movement") == 0
    assert [at(enc, x) for x in "afgh"] == [(3, 1, 0), (3, 2, 0), (5, 1, 0), (5, 2, 0)]
