"""initiative-yards, a fidelity review against document 000's own sentences.

Each test quotes the sentence it holds the engine to and names its rule id. Checks use
table rolls: 1d20 + Initiative 8 >= 15, so roll=7 passes and roll=1 fails.
"""

from __future__ import annotations

from support import do, encounter, grid, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import Damaged, DoorChanged, Placed
from tabletrail.service.encounter import Encounter

from tests.rulesets.initiative_yards.test_rules import (
    FAIL,
    IY,
    PASS,
    arena,
    at,
    cost,
    engagement,
    fighter,
    posture,
)

# --- leap: "Fighters can jump from on ledge over to another over a gap as long as the distance
# being jumped isn't greater than half the fighter's maximum movement. When doing so the fighter
# will have to pass an Initiative check or else fall to the ground in the middle of the gap."
# Two ledges (or roofs) with lower ground between them have a gap between them, whether or not
# the map draws that ground as `gap`. ----------------------------------------------------------

ROOFS = [
    "##########",
    "#LL..LL..#",
    "#^^...^^.#",
    "##########",
]


def test_leaping_from_one_ledge_over_to_another_across_lower_ground():
    # initiative-yards/leap: L is a ledge 2 yd high; the 2 yd of floor between is the gap.
    enc = arena(ROOFS, fighter("a", "blue", (2, 1)) + fighter("e", "red", (8, 2)))
    events = do(enc, f"leap a 5,1 {PASS}")
    assert at(enc, "a") == (5, 1, 2 * CU) and posture(enc, "a") == "standing"
    assert cost(events) == 3 * CU  # the way across, 2 yd of it over the gap


def test_missing_a_leap_between_roofs_falls_to_the_ground_in_the_middle():
    # initiative-yards/leap, fall: roofs 3 yd up, 3 yd of street between: a miss lands on 4,2.
    enc = arena(ROOFS, fighter("a", "blue", (2, 2)) + fighter("e", "red", (8, 1)))
    events = do(enc, f"leap a 6,2 {FAIL}")
    assert at(enc, "a") == (4, 2, 0) and posture(enc, "a") == "prone"
    assert of_type(events, Placed)[0].rules == (f"{IY}/leap", f"{IY}/fall")
    assert [d.amount for d in of_type(events, Damaged)] == [1]  # 3 yd, 1.5 past own height 1.5


def test_a_street_wider_than_half_the_movement_is_still_refused():
    # initiative-yards/leap: "isn't greater than half the fighter's maximum movement": 3 > 2.5.
    enc = arena(ROOFS, fighter("a", "blue", (2, 2), initiative=5) + fighter("e", "red", (8, 1)))
    r = refuse(enc, f"leap a 6,2 {PASS}", f"{IY}/leap")
    assert r.reason == "gap 3 yd > half of max movement 2.5 yd"


def test_ground_level_with_the_take_off_is_no_gap():
    # initiative-yards/leap: from the street there is nothing lower to leap over.
    enc = arena(ROOFS, fighter("a", "blue", (3, 2)) + fighter("e", "red", (8, 1)))
    r = refuse(enc, f"leap a 5,2 {PASS}", f"{IY}/leap")
    assert r.reason == "4,2 on the way is not part of the gap: land there first"


# --- engaged-actions: "While engaged, fighters can only use the Strike, Command, and Manifest
# actions." A door is opened as part of the move (door_cost): not while the engagement holds. ------

CELLAR = """
[encounter]
name = "a cellar door"
ruleset = "initiative-yards"
seed = 3
[map]
rows = ["......", "......", "......"]
walls = ["3,0-3,1", "3,2-3,3"]
doors = [{ at = "2,1|3,1", closed = true }]
[map.legend]
"." = "floor"
"""


def cellar() -> Encounter:
    enc = encounter(CELLAR + fighter("a", "blue", (2, 1)) + fighter("e", "red", (0, 1)))
    do(enc, "end-turn")
    do(enc, "move e 1,1")  # into a's Reach: both engaged
    do(enc, "end-turn")
    return enc


def test_an_engaged_fighter_may_not_open_a_door():
    # initiative-yards/engaged-actions
    enc = cellar()
    assert engagement(enc, "a") == "engaged"
    r = refuse(enc, "open a 2,1|3,1", f"{IY}/engaged-actions")
    assert "opening a door" in r.reason
    do(enc, "act a strike target=e")  # a Strike is allowed
    do(enc, "resolve a e miss")  # "they can only break the engagement by resolving a combat"
    events = do(enc, "open a 2,1|3,1")
    assert [e.dest for e in of_type(events, DoorChanged)] == ["open"]


# --- vault: "Fighters can attempt to vault over anything less than half height without having
# to spend the movement to climb up on top of the piece of terrain." Anything: a crate drawn as
# raised ground or a low wall drawn as a ledge is vaulted like a cell drawn as an obstacle. -------

LOW_THINGS = [
    "##########",
    "#..c..w..#",
    "#..C.....#",
    "##########",
]
LOW_LEGEND = """
"c" = { terrain = "floor", ground = 0.5 }
"C" = { terrain = "floor", ground = 1 }
"w" = { terrain = "ledge", height = 0.5 }
"""


def low_things(a_at: tuple[int, int]) -> Encounter:
    return encounter(
        f"""
[encounter]
name = "low things"
ruleset = "{IY}"
seed = 5
{grid(LOW_THINGS, LOW_LEGEND)}
{fighter("a", "blue", a_at)}
{fighter("e", "red", (8, 2))}
"""
    )


def test_vaulting_a_crate_drawn_as_raised_ground_costs_the_way_across():
    # initiative-yards/vault: 0.5 yd is less than half of 1.5 yd
    enc = low_things((2, 1))
    events = do(enc, f"vault a 4,1 {PASS}")
    assert at(enc, "a") == (4, 1, 0) and posture(enc, "a") == "standing"
    assert cost(events) == 2 * CU  # the horizontal distance only (vault_cost = horizontal)


def test_vaulting_a_low_wall_drawn_as_a_ledge_and_failing_lands_prone_beyond():
    # initiative-yards/vault: "must pass an Initiative check or else fall prone on the other side"
    enc = low_things((5, 1))
    do(enc, f"vault a 7,1 {FAIL}")
    assert at(enc, "a") == (7, 1, 0) and posture(enc, "a") == "prone"


def test_raised_ground_as_high_as_half_the_fighter_or_level_ground_is_not_vaulted():
    # initiative-yards/vault: "anything less than half height": 1 yd is not, for 1.5 yd tall
    enc = low_things((2, 2))
    r = refuse(enc, f"vault a 4,2 {PASS}", f"{IY}/vault")
    assert "not lower than half of own height" in r.reason
    enc = low_things((1, 2))
    r = refuse(enc, f"vault a 3,2 {PASS}", f"{IY}/vault")  # 2,2 is level floor
    assert r.reason == "2,2 on the way is nothing to vault"
