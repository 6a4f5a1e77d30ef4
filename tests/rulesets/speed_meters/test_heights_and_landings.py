"""speed-meters checked against document 004's own sentences (issue 12, items 10-14).

Each test quotes the sentence it holds the engine to.
"""

from __future__ import annotations

import pytest
from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.errors import InputError
from tabletrail.events.types import CheckRolled, Moved, Placed

from tests.rulesets.round_meters.test_rules import arena as round_meters_arena
from tests.rulesets.speed_meters.test_scenes import fighter, scene


def where(enc, fid: str) -> tuple[int, int, int]:
    return enc.state.fighter(fid).pos


# --- movement: "Can move horizontally or diagonally in any direction but only 1 meter vertically
# by jumping." The meter is the Movement's, not each step's. ----------------------------------------

STEPS_UP = ["#######", "#.^|..#", "#######"]  # ground 0, then 1 m, then 2 m
STAIRS_UP = ["#######", "#.=%..#", "#######"]  # the same rises, as stairs


def up_scene(rows: list[str], *fighters: str) -> str:
    extra = '"|" = {terrain = "floor", ground = 2}\n'
    extra += '"=" = {terrain = "stairs", ground = 1, tags = ["stairs"]}\n'
    extra += '"%" = {terrain = "stairs", ground = 2, tags = ["stairs"]}\n'
    return scene(rows, *fighters).replace('"^" = {terrain', extra + '"^" = {terrain', 1)


def test_two_one_meter_rises_in_one_movement_are_refused():
    enc = encounter(up_scene(STEPS_UP, fighter("a")))
    r = refuse(enc, "move a 3,1", "speed-meters/movement")
    assert "2 m up" in r.reason and "only 1 meter vertically" in r.reason
    assert where(enc, "a") == (1, 1, 0)


def test_one_rise_per_movement_each_movement_its_own_meter():
    enc = encounter(up_scene(STEPS_UP, fighter("a")))
    do(enc, "move a 2,1")
    do(enc, "move a 3,1")  # a new Movement: a new meter up
    assert where(enc, "a") == (3, 1, 2 * CU)


def test_going_down_is_not_limited_by_the_sentence():
    enc = encounter(up_scene(["#######", "#|^...#", "#######"], fighter("a")))
    do(enc, "move a 3,1")  # 2 m -> 1 m -> 0: two 1 m steps down in one Movement
    assert where(enc, "a") == (3, 1, 0)


def test_stairs_are_walked_not_jumped():
    enc = encounter(up_scene(STAIRS_UP, fighter("a")))
    do(enc, "move a 3,1")  # up two flights of stairs: no jump at all
    assert where(enc, "a") == (3, 1, 2 * CU)


# --- fall-table: "1 Instant death" is final ---------------------------------------------------------


def dead_scene():
    enc = encounter(
        scene(["#####", "#...#", "#####"], fighter("a", fly=20), fighter("b", side="red", at=(3, 1)))
    )
    do(enc, "fly a 2,1,10")
    do(enc, "fall a roll=1")  # 10 m: the first d6 of the table is 1, instant death
    assert enc.state.fighter("a").marks.get("dead") is True
    return enc


def test_a_dead_fighter_cannot_stand_up():
    enc = dead_scene()
    do(enc, "end-turn")
    do(enc, "end-turn")
    r = refuse(enc, "stand-up a", "speed-meters/fall-table")
    assert "died" in r.reason
    refuse(enc, "drop-prone a", "speed-meters/fall-table")


def test_a_dead_fighters_turn_still_passes_and_the_gm_may_rule():
    enc = dead_scene()
    do(enc, "end-turn")  # its turn passes
    do(enc, "end-turn")
    do(enc, "place a 3,1 why='the body is carried'")  # a GM ruling is no command of the dead
    assert where(enc, "a")[:2] == (3, 1)


# --- teleport: "You instantly appear in any space" -- another space, not the one you are in -----


def test_teleporting_onto_ones_own_space_is_refused_and_costs_nothing():
    enc = encounter(scene(["#####", "#...#", "#####"], fighter("a", teleport=5)))
    r = refuse(enc, "teleport a 1,1", "speed-meters/teleport")
    assert "already at 1,1" in r.reason
    assert enc.state.fighter("a").used("actions") == 0


# --- hover: landing settles down; it never lifts the hoverer onto a taller obstacle -----------------


def test_landing_inside_a_taller_obstacle_is_refused_not_lifted():
    enc = encounter(scene(["######", "#.T..#", "######"], fighter("a", hover=5)))
    do(enc, "hover a 2,1")  # 1 m above the ground, over the 2 m obstacle
    assert where(enc, "a") == (2, 1, CU)
    r = refuse(enc, "land a", "speed-meters/hover")
    assert "2 m" in r.reason
    assert where(enc, "a") == (2, 1, CU)


def test_landing_on_a_low_obstacle_settles_down_onto_it():
    enc = encounter(scene(["######", "#.o..#", "######"], fighter("a", hover=5)))
    do(enc, "hover a 2,1")
    events = do(enc, "land a")
    assert of_type(events, Placed)[0].to == (2, 1, CU // 2)


# --- hover: "You float just 1 meter above the ground, avoiding land-based obstacles, hazards…" ----

CUT = ["#######", "#.._..#", "#######"]  # a 1 m wide cut, 4 m deep
TRENCH = ["#######", "#..__.#", "#######"]  # 2 m wide


def test_a_hover_floats_straight_across_a_cut_narrower_than_a_step():
    enc = encounter(scene(CUT, fighter("a", hover=5)))
    events = do(enc, "hover a 5,1")
    assert [s.to for s in of_type(events, Moved)[0].steps] == [(2, 1, CU), (3, 1, CU), (4, 1, CU), (5, 1, CU)]


def test_the_span_a_hover_keeps_its_height_over_is_a_setting():
    enc = encounter(scene(TRENCH, fighter("a", hover=5)))
    r = refuse(enc, "hover a 5,1", "speed-meters/hover")  # into the 2 m trench, and 4 m up out of it
    assert "4 m higher" in r.reason and "hover_rise" in r.reason
    enc = encounter(scene(TRENCH, fighter("a", hover=5), settings="hover_span = 2"))
    do(enc, "hover a 5,1")
    assert where(enc, "a") == (5, 1, CU)
    enc = encounter(scene(CUT, fighter("a", hover=5), settings="hover_span = 0"))
    refuse(enc, "hover a 5,1", "speed-meters/hover")  # follows the ground into the cut


def test_a_hover_that_stops_over_a_cut_sinks_into_it():
    enc = encounter(scene(CUT, fighter("a", hover=5)))
    do(enc, "hover a 3,1")
    assert where(enc, "a") == (3, 1, -3 * CU)


def test_hover_settings_are_listed_and_never_negative():
    from tabletrail.core.engine.registry import RULESETS

    names = {s.name: s for s in RULESETS["speed-meters"].all_settings()}
    assert names["hover_span"].default == 1 and names["hover_span"].rule == "speed-meters/hover"
    assert names["hover_rise"].default == 1
    with pytest.raises(InputError, match="hover_span: must not be negative"):
        encounter(scene(CUT, fighter("a", hover=5), settings="hover_span = -1"))


# --- fall-table: "You may attempt a Skill Feat as a Reaction to land well or reduce your falling
# speed. You may opt out of one falling damage roll for every 2 Bumps you get." Every fall. --------


def table_rolls(events) -> int:
    return sum(1 for c in of_type(events, CheckRolled) if c.check == "falling table")


def test_stepping_off_a_ledge_takes_the_skill_feat_entered_before_the_move():
    rows = ["#####", "#Q..#", "#####"]  # 10 m up: two rolls on the falling table
    enc = encounter(scene(rows, fighter("a"), settings='ledge_drop = "fall"'))
    do(enc, "skill-feat a bumps=4")  # a Reaction, no action spent
    assert enc.state.fighter("a").used("actions") == 0
    events = do(enc, "move a 2,1")
    assert table_rolls(events) == 0 and "skill_feat" not in enc.state.fighter("a").marks
    enc = encounter(scene(rows, fighter("a"), settings='ledge_drop = "fall"'))
    do(enc, "skill-feat a bumps=3")  # 3 Bumps skip one roll
    assert table_rolls(do(enc, "move a 2,1 roll=6")) == 1


def test_a_move_that_steps_off_a_ledge_takes_its_bumps_itself():
    """The Reaction entered with the move (`move … bumps=N`), no separate skill-feat command."""
    rows = ["#####", "#Q..#", "#####"]  # 10 m up: two rolls on the falling table
    enc = encounter(scene(rows, fighter("a"), settings='ledge_drop = "fall"'))
    events = do(enc, "move a 2,1 bumps=4")  # 4 Bumps: both rolls opted out of
    assert table_rolls(events) == 0 and "skill_feat" not in enc.state.fighter("a").marks
    assert "2 opted out of (a Skill Feat with 4 Bumps" in " ".join(e.note for e in events)
    enc = encounter(scene(rows, fighter("a"), settings='ledge_drop = "fall"'))
    assert table_rolls(do(enc, "move a 2,1 bumps=3 roll=6")) == 1  # 3 Bumps skip one roll of two


def cut_short_jump(bumps: str) -> tuple[list, object]:
    """A special jump 10 m up, stopped over 2,1 by a failed test the GM requires there: it falls 10 m."""
    enc = encounter(scene(["#######", "#.....#", "#######"], fighter("a", jump=30)))
    do(enc, "require-test 2,1 target=6 why='gusts over the gap'")
    events = do(enc, f"special-jump a 1,1,10 2,1,10 4,1 {bumps}".strip())
    assert where(enc, "a") == (2, 1, 0)
    return events, enc


def test_a_special_jump_cut_short_takes_the_bumps_entered_with_it():
    events, _ = cut_short_jump("roll=1 roll=6 roll=6")  # the failed test, then two falling-table rolls
    assert table_rolls(events) == 2
    events, enc = cut_short_jump("bumps=4 roll=1")
    assert table_rolls(events) == 0 and not enc.state.fighter("a").marks.get("dead")


def test_bumps_belong_to_speed_meters_only():
    enc = encounter(round_meters_arena())
    r = refuse(enc, "move ari 2,1 bumps=2", "tabletrail/command")
    assert "no Skill Feat reaction to falls" in r.reason


def test_a_skill_feat_for_a_fall_that_never_came_lapses_with_the_turn():
    enc = encounter(scene(["#####", "#Q..#", "#####"], fighter("a"), settings='ledge_drop = "fall"'))
    do(enc, "skill-feat a bumps=4")
    do(enc, "end-turn")
    assert "skill_feat" not in enc.state.fighter("a").marks
    assert table_rolls(do(enc, "move a 2,1 roll=6,6")) == 2


def long_fall(bumps: str = ""):
    enc = encounter(scene(["#####", "#...#", "#####"], fighter("a", fly=40)))
    do(enc, "fly a 1,1,30")
    events = do(enc, f"fall a {bumps}".strip())  # 20 m this turn, 10 m more at its next turn start
    assert where(enc, "a") == (1, 1, 10 * CU) and table_rolls(events) == 0
    return enc


def test_a_long_fall_keeps_the_bumps_of_its_command_for_the_landing():
    enc = long_fall("bumps=4")
    events = do(enc, "end-turn roll=6,6,6,6")  # 30 m: 6 rolls, 2 opted out of
    assert table_rolls(events) == 4
    assert "skill_feat" not in enc.state.fighter("a").marks


def test_a_skill_feat_entered_while_falling_counts_at_the_later_landing():
    enc = long_fall()
    do(enc, "skill-feat a bumps=6 by=blue")
    events = do(enc, "end-turn roll=6,6,6")  # 6 rolls, 3 opted out of
    assert table_rolls(events) == 3


def test_a_skill_feat_needs_a_fall_under_way_or_the_fighters_own_turn():
    enc = encounter(scene(["#####", "#...#", "#####"], fighter("a"), fighter("b", at=(3, 1))))
    r = refuse(enc, "skill-feat b bumps=4", "speed-meters/fall-table")
    assert "neither falling nor taking its turn" in r.reason
    refuse(enc, "skill-feat a bumps=0", "speed-meters/fall-table")
