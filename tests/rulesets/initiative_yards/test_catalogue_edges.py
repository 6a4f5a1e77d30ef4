"""initiative-yards, row by row of the catalogue: what each rule allows, refuses and costs at its
edges, and which rule id the engine cites. Only items no earlier test pins.

Checks use table rolls: 1d20 + Initiative 8 >= 15, so roll=7 passes and roll=1 fails.
"""

from __future__ import annotations

from support import do, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import Linked, Moved, Spent

from tests.rulesets.initiative_yards.test_rules import (
    CLIMBING,
    GAPS,
    IY,
    LEDGES,
    OPEN,
    PASS,
    VAULTS,
    arena,
    at,
    cost,
    drag_arena,
    duel,
    fighter,
    moved,
    next_turn_of,
)

# --- move: "they can be moved up to a number of yards equal to their Initiative value in yards"
# (catalogue: default Euclidean, exact to 0.01 yd) ---------------------------------------------


def test_a_diagonal_counts_1_41_yd_against_the_initiative():
    enc = arena(fighters=fighter("a", "blue", (1, 1), initiative=2) + fighter("e", "red", (12, 4)))
    events = do(enc, "move a 2,2")
    assert cost(events) == 141 and moved(events).rules == (f"{IY}/move",)
    # 1.41 + 1 = 2.41 yd > Initiative 2: one cell over, refused by the move rule
    r = refuse(enc, "move a 3,2", f"{IY}/move")
    assert "1 yd" in r.reason


def test_a_path_of_diagonals_and_straights_within_the_initiative():
    enc = arena()
    assert cost(do(enc, "move a 3,3 8,3")) == 2 * 141 + 5 * CU  # 7.82 yd of 8
    refuse(enc, "move a 9,3", f"{IY}/move")  # 8.82 yd > 8


# --- prone-drop / prone-stand: "Fighters can spend their movement either dropping prone or
# standing up from being prone" (catalogue: it uses the whole movement of that move action) ----


def test_a_prone_fighter_cannot_drop_prone_again():
    enc = arena()
    do(enc, "drop-prone a")
    next_turn_of(enc, "a")
    refuse(enc, "drop-prone a", f"{IY}/prone-drop")


def test_with_the_rest_settings_a_drop_leaves_nothing_to_stand_up_with_that_turn():
    enc = arena(settings='drop_prone_cost = "rest"\nstand_up_cost = "rest"')
    do(enc, "move a 3,1")
    events = do(enc, "drop-prone a")
    assert [(s.amount, s.rules) for s in of_type(events, Spent)] == [(6 * CU, (f"{IY}/prone-drop",))]
    r = refuse(enc, "stand-up a", f"{IY}/prone-stand")  # nothing left of the move action
    assert "none left" in r.reason


# "While prone, fighters can still crawl over the battlefield": a prone fighter crawls; jumping for
# a ledge, vaulting and leaping are refused, each by its own rule.


def test_a_prone_fighter_may_not_pull_up_vault_or_leap():
    for enc, text, rule in (
        (arena(LEDGES, fighter("a", "blue", (1, 1)) + fighter("e", "red", (5, 2))), "pull-up a 2,1", "ledge"),
        (arena(VAULTS, fighter("a", "blue", (2, 1)) + fighter("e", "red", (7, 2))), "vault a 4,1", "vault"),
        (arena(GAPS, fighter("a", "blue", (2, 1)) + fighter("e", "red", (12, 2))), "leap a 6,1", "leap"),
    ):
        do(enc, "drop-prone a")
        next_turn_of(enc, "a")
        r = refuse(enc, f"{text} {PASS}", f"{IY}/{rule}")
        assert "prone" in r.reason and "stand up" in r.reason


# --- climb: "while doing so they spend movement as they move vertically just like when they
# move horizontally across the board" (down as well as up) --------------------------------------


def test_going_down_stairs_costs_the_vertical_yards_too():
    enc = arena(CLIMBING, fighter("a", "blue", (5, 1), initiative=9) + fighter("e", "red", (7, 3)))
    assert at(enc, "a")[2] == 3 * CU
    m = moved(do(enc, "move a 2,1"))
    assert [s.cost for s in m.steps] == [2 * CU, 2 * CU, 2 * CU]
    assert f"{IY}/climb" in m.rules and at(enc, "a") == (2, 1, 0)


def test_stairs_one_yard_short_of_the_budget_are_refused():
    enc = arena(CLIMBING, fighter("a", "blue", (2, 1), initiative=5) + fighter("e", "red", (7, 3)))
    refuse(enc, "move a 5,1", f"{IY}/move")  # 6 yd > 5
    do(enc, "move a 4,1")  # 4 yd


# --- ledge: "pull themselves up to any ledge that's less than or equal to one and a half their
# height. When doing so they spend movement moving vertically equal to the height of the ledge." --


def test_a_pull_up_needs_the_ledges_height_left_of_the_move_action():
    enc = arena(LEDGES, fighter("a", "blue", (1, 2), initiative=3) + fighter("e", "red", (5, 2)))
    do(enc, "move a 1,1 1,2")  # 2 yd spent, 1 left
    refuse(enc, f"pull-up a 2,1 {PASS}", f"{IY}/ledge")  # the ledge is 2 yd high


def test_a_pull_up_with_exactly_the_height_left_is_allowed():
    enc = arena(LEDGES, fighter("a", "blue", (1, 2), initiative=3) + fighter("e", "red", (5, 2)))
    do(enc, "move a 1,1")
    events = do(enc, f"pull-up a 2,1 {PASS}")
    assert cost(events) == 2 * CU and f"{IY}/ledge" in moved(events).rules
    assert enc.state.fighter("a").used("movement") == 3 * CU


# --- vault: "vault over anything less than half height" -----------------------------------------


def test_an_obstacle_of_exactly_half_the_height_is_not_vaulted():
    enc = arena(VAULTS, fighter("a", "blue", (5, 1), height=2) + fighter("e", "red", (7, 2)))
    refuse(enc, f"vault a 7,1 {PASS}", f"{IY}/vault")  # 1 yd is not less than half of 2 yd


def test_an_obstacle_just_under_half_the_height_is_vaulted_at_the_horizontal_cost():
    enc = arena(VAULTS, fighter("a", "blue", (5, 1), height=2.02) + fighter("e", "red", (7, 2)))
    events = do(enc, f"vault a 7,1 {PASS}")
    assert at(enc, "a") == (7, 1, 0) and cost(events) == 2 * CU
    assert f"{IY}/vault" in moved(events).rules


# --- leap: "as long as the distance being jumped isn't greater than half the fighter's maximum
# movement" --------------------------------------------------------------------------------------


def test_a_gap_of_exactly_half_the_movement_is_leapt():
    enc = arena(GAPS, fighter("a", "blue", (6, 1), initiative=10) + fighter("e", "red", (12, 2)))
    events = do(enc, f"leap a 12,1 {PASS}")  # the gap is 5 yd, half of 10
    assert at(enc, "a") == (12, 1, 0) and f"{IY}/leap" in moved(events).rules


def test_a_gap_half_a_yard_over_half_the_movement_is_refused():
    enc = arena(GAPS, fighter("a", "blue", (6, 1), initiative=9) + fighter("e", "red", (12, 2)))
    r = refuse(enc, f"leap a 12,1 {PASS}", f"{IY}/leap")
    assert r.reason == "gap 5 yd > half of max movement 4.5 yd"


def test_a_leap_longer_than_what_is_left_of_the_move_is_refused():
    enc = arena(GAPS, fighter("a", "blue", (1, 1)) + fighter("e", "red", (12, 2)))
    do(enc, "move a 1,2 2,2 2,1")  # 3 yd spent, 5 left
    do(enc, f"leap a 6,1 {PASS}")  # 4 yd: 1 left
    refuse(enc, f"leap a 12,1 {PASS}", f"{IY}/leap")


# --- drag: "half their maximum movement"; "place the target ... anywhere within a yard" ---------


def test_dragging_with_an_odd_initiative_halves_to_the_half_yard():
    crate = fighter("crate", "none", (1, 2), initiative=0, height=1, tags=("object",))
    enc = arena(OPEN, fighter("a", "blue", (1, 1), initiative=7) + fighter("e", "red", (12, 4)) + crate)
    refuse(enc, "drag a crate 5,1 put=5,2", f"{IY}/drag")  # 4 yd > 3.5
    events = do(enc, "drag a crate 4,1 put=4,2")  # 3 yd
    assert cost(events) == 3 * CU and at(enc, "crate")[:2] == (4, 2)


def test_a_dragged_target_is_not_put_diagonally_next_to_the_end():
    enc = drag_arena()
    refuse(enc, "drag a b 5,1 put=4,2", f"{IY}/drag")  # 1.41 yd from where a ends


def test_a_refused_drag_spends_nothing():
    enc = drag_arena()
    refuse(enc, "drag a b 5,1 put=3,1", f"{IY}/drag")
    assert enc.state.fighter("a").used("movement") == 0
    assert cost(do(enc, "move a 9,1")) == 8 * CU  # the whole move action is still there


def test_a_move_to_where_the_fighter_stands_is_refused():
    enc = arena()
    r = refuse(enc, "move a 1,1", f"{IY}/move")
    assert "already at 1,1" in r.reason


# --- combined: "they can perform the non-move action at any point during their move" ------------


def test_the_non_move_action_may_come_after_the_whole_move():
    enc = arena()
    do(enc, "move a 9,1")  # all 8 yd
    events = do(enc, "act a command")
    assert [(s.resource, s.amount, s.rules) for s in of_type(events, Spent)] == [
        ("actions", 1, (f"{IY}/combined",))
    ]


# --- engage: "If a fighter moves into the Reach of an enemy ... both fighters become engaged!"
# (catalogue, move: distances between cell centres, the diagonal rule a setting) ----------------


def test_a_diagonal_neighbour_is_outside_a_1_yd_reach_by_default_and_inside_under_every_1():
    enc = duel()
    events = do(enc, "move a 7,1")  # 1.41 yd from e at 8,2
    assert of_type(events, Linked) == [] and at(enc, "a")[:2] == (7, 1)
    enc = duel(settings='diagonal = "every-1"')
    (link,) = of_type(do(enc, "move a 7,1"), Linked)
    assert link.rules == (f"{IY}/engage",)


# --- engage-break: "Once a fighter becomes engaged, they can only break the engagement by resolving
# a combat." With two non-move actions a turn (actions_per_turn = 2) a fighter engaged with two foes
# may Strike twice; a Strike awaiting its outcome must never be lost to the second one. ---------------


def test_a_second_strike_never_drops_an_unresolved_first_one():
    enc = arena(
        OPEN,
        fighter("a", "blue", (4, 1)) + fighter("e", "red", (5, 2)) + fighter("f", "red", (3, 2)),
        "actions_per_turn = 2",
    )
    do(enc, "move a 4,2")  # into both Reaches: engaged with e and with f
    assert len(enc.state.links) == 2
    do(enc, "act a strike target=e")
    r = refuse(enc, "act a strike target=f", f"{IY}/engage-break")
    assert "Strike at e" in r.reason and "resolve" in r.reason
    do(enc, 'resolve a e outcome="a hits"')
    do(enc, "act a strike target=f")  # the first resolved: the second Strike may follow
    do(enc, 'resolve a f outcome="a misses"')
    assert not enc.state.links


def test_events_of_an_allowed_move_cite_the_move_rule():
    enc = arena()
    assert all(f"{IY}/move" in m.rules for m in of_type(do(enc, "move a 3,1"), Moved))
