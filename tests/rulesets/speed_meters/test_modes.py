"""speed-meters modes of movement and special movement, from the words of document 004.

Each rule id gets a test that it allows what it should, one that it refuses
(or penalises) what it should, and one that checks what it costs.
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.core.engine.registry import RULESETS
from tabletrail.events.types import CheckRolled, Marked, Moved, Placed, Spent, StateChanged, Unmarked

from tests.rulesets.speed_meters.test_scenes import fighter, scene

RS = RULESETS["speed-meters"]


def steps(events) -> list:
    return [s for m in of_type(events, Moved) for s in m.steps]


def spent(events, resource: str) -> int:
    return sum(e.amount for e in of_type(events, Spent) if e.resource == resource)


def where(enc, fid: str) -> tuple[int, int, int]:
    return enc.state.fighter(fid).pos


def mode(enc, fid: str) -> str:
    return enc.state.fighter(fid).states.get("mode", "walking")


def next_round(enc, fighters: int = 1) -> None:
    for _ in range(fighters):
        do(enc, "end-turn")


# --- maneuver: "jump, roll, slide ... for no more than 2 meters of the movement" -----------------

JUMPS = ["##########", "#.^_^.^..#", "##########"]


def test_two_meters_of_jumps_in_one_movement_are_allowed():
    enc = encounter(scene(JUMPS, fighter("a")))
    events = do(enc, "move a 5,1")  # 1 m up onto 2,1, then over the 1 m gap at 3,1 onto 4,1
    assert [s.mode for s in steps(events)] == ["jump", "jump", "", ""]
    assert where(enc, "a") == (5, 1, 0)


def test_a_third_meter_of_jumps_is_refused_with_the_numbers():
    # Up (1 m), across the gap at 3,1, then across the gap at 5,1: a third meter of jumps.
    # (Up again at 6,1 of JUMPS is refused sooner: a Movement goes only 1 m up by jumping.)
    enc = encounter(scene(["##########", "#.^_^_...#", "##########"], fighter("a")))
    r = refuse(enc, "move a 6,1", "speed-meters/maneuver")
    assert "3 m by 5,1" in r.reason and "at most 2 m" in r.reason


def test_maneuver_meters_are_spent_per_movement_and_start_over_with_the_next():
    enc = encounter(scene(JUMPS, fighter("a")))
    events = do(enc, "move a 5,1")
    assert spent(events, "maneuver") == 2 * CU
    assert enc.state.fighter("a").spent["maneuver"] == 2 * CU
    events = do(enc, "move a 6,1")  # a new Movement: its own 2 m of maneuvers
    assert spent(events, "maneuver") == CU
    assert enc.state.fighter("a").spent["maneuver"] == CU


# --- jump: "1 meter vertically or 2 meters horizontally as a part of any Movement" ---------------


def test_a_two_meter_gap_is_jumped_within_a_movement():
    enc = encounter(scene(["#######", "#.__..#", "#######"], fighter("a")))
    events = do(enc, "move a 4,1")
    assert [(s.to, s.mode) for s in steps(events)] == [
        ((2, 1, 0), "jump"),
        ((3, 1, 0), "jump"),
        ((4, 1, 0), ""),
    ]
    assert "speed-meters/jump" in of_type(events, Moved)[0].rules


def test_a_three_meter_gap_is_too_wide_to_jump():
    enc = encounter(scene(["#######", "#.___.#", "#######"], fighter("a")))
    r = refuse(enc, "move a 5,1", "speed-meters/jump")
    assert "at most 2 m across" in r.reason and "4,1 is space 3" in r.reason


def test_a_jump_goes_up_or_across_not_both():
    enc = encounter(scene(["#####", "#._^#", "#####"], fighter("a")))
    r = refuse(enc, "move a 3,1", "speed-meters/jump")
    assert "not both" in r.reason and "1 m above the take-off" in r.reason


def test_a_normal_movement_may_not_end_in_the_air():
    enc = encounter(scene(["######", "#.__.#", "######"], fighter("a")))
    r = refuse(enc, "move a 2,1", "speed-meters/jump")
    assert "can't end in the air" in r.reason and "4 m above the ground" in r.reason


def test_the_jump_costs_its_meters_of_movement_and_maneuver():
    enc = encounter(scene(["#######", "#.__..#", "#######"], fighter("a", speed=3)))
    events = do(enc, "move a 4,1")
    assert sum(s.cost for s in steps(events)) == 3 * CU and spent(events, "maneuver") == 2 * CU
    enc = encounter(scene(["#######", "#.__..#", "#######"], fighter("a", speed=3)))
    refuse(enc, "move a 5,1", "speed-meters/movement")  # 4 m > Speed 3


def test_with_ledge_drop_fall_stepping_off_is_a_real_fall():
    enc = encounter(scene(["#####", "#:..#", "#####"], fighter("a"), settings='ledge_drop = "fall"'))
    events = do(enc, "move a 2,1")
    fall = [e for e in of_type(events, Placed) if e.how == "fall"]
    assert fall and fall[0].to == (2, 1, 0) and "falls 2.5 m" in fall[0].note
    assert enc.state.fighter("a").states["posture"] == "prone" and mode(enc, "a") == "walking"
    assert not of_type(events, CheckRolled)  # under 5 m: no falling table


# --- swim -------------------------------------------------------------------------------------

POOL = ["#######", "#.www.#", "#.www.#", "#######"]


def test_swimming_goes_in_three_dimensions_and_counts_as_swimming():
    enc = encounter(scene(POOL, fighter("a", swim=6)))
    events = do(enc, "swim a 2,1 3,2,-1")
    assert where(enc, "a") == (3, 2, -CU) and mode(enc, "a") == "swimming"
    assert [s.mode for s in steps(events)] == ["swim", "swim"]


def test_water_is_rough_for_the_unadapted_and_not_for_the_aquatic():
    enc = encounter(scene(POOL, fighter("a", swim=6)))
    assert [s.cost for s in steps(do(enc, "swim a 2,1 3,1"))] == [2 * CU, 2 * CU]
    enc = encounter(scene(POOL, fighter("a", swim=6, tags=["aquatic"])))
    assert [s.cost for s in steps(do(enc, "swim a 2,1 3,1"))] == [CU, CU]


def test_the_swim_is_held_to_its_speed_and_a_speed_one_swimmer_ignores_rough_water():
    enc = encounter(scene(POOL, fighter("a")))  # no Swim speed: Speed 5
    r = refuse(enc, "swim a 4,1", "speed-meters/swim")
    assert "6 m" in r.reason and "5 m" in r.reason
    enc = encounter(scene(POOL, fighter("a", swim=1)))
    assert [s.cost for s in steps(do(enc, "swim a 2,1"))] == [CU]


def test_no_swimming_below_the_bottom_or_walking_into_deep_water():
    enc = encounter(scene(POOL, fighter("a", swim=6, tags=["aquatic"])))
    r = refuse(enc, "swim a 2,1 2,1,-4", "speed-meters/swim")
    assert "surface 0 m, bottom -3 m" in r.reason
    refuse(enc, "move a 2,1", "speed-meters/swim")


def test_a_swimmer_climbs_out_with_the_last_step_and_walks_again():
    enc = encounter(scene(POOL, fighter("a", swim=6)))
    do(enc, "swim a 2,1")
    refuse(enc, "move a 1,1", "speed-meters/swim")  # a swimmer's Movement is a swim
    do(enc, "swim a 1,1")
    assert mode(enc, "a") == "walking" and where(enc, "a") == (1, 1, 0)


def test_underwater_the_swimmer_holds_its_breath_turn_by_turn():
    enc = encounter(scene(POOL, fighter("a", swim=6), settings="breath_rounds = 2"))
    events = do(enc, "swim a 2,1,-1")
    assert [e.value for e in of_type(events, Marked) if e.key == "breath"] == [2]
    events = do(enc, "end-turn")
    assert [e.value for e in of_type(events, Marked) if e.key == "breath"] == [1]
    events = do(enc, "end-turn")
    held = [e for e in of_type(events, Marked) if e.key == "breath"]
    assert held[0].value == 0 and "out of breath" in held[0].note
    events = do(enc, "swim a 2,1,0")
    assert [e.key for e in of_type(events, Unmarked)] == ["breath"]


def test_attackers_on_dry_ground_have_advantage_against_an_unadapted_swimmer():
    enc = encounter(scene(POOL, fighter("a", swim=6), fighter("f", "red", at=(5, 1))))
    do(enc, "swim a 2,1")
    mods = RS.modifiers(enc.state, "f", "a")
    assert [(m.applies_to, m.value, m.rule) for m in mods] == [("attack", "advantage", "speed-meters/swim")]
    assert [m.applies_to for m in RS.modifiers(enc.state, "a", "f")] == ["attack against"]
    enc = encounter(scene(POOL, fighter("a", swim=6, tags=["aquatic"]), fighter("f", "red", at=(5, 1))))
    do(enc, "swim a 2,1")
    assert RS.modifiers(enc.state, "f", "a") == []


def test_a_swimmer_attacking_a_swimmer_has_no_advantage():
    enc = encounter(scene(POOL, fighter("a", swim=6), fighter("f", "red", at=(5, 2), swim=6)))
    do(enc, "swim a 2,1")
    do(enc, "end-turn")
    do(enc, "swim f 4,2")
    assert RS.modifiers(enc.state, "f", "a") == []


# --- climb ---------------------------------------------------------------------------------------

WALL = ["#######", "#.CCB.#", "#.....#", "#######"]  # 6 m blocks: C brick (2), B glass (3)


def test_a_climb_rolls_plus_brawn_against_the_surface_and_goes_up():
    enc = encounter(scene(WALL, fighter("a", at=(1, 1), brawn=1)))
    events = do(enc, "climb a 1,1,2 roll=1")  # 1 + Brawn 1 = 2 against the brick's 2
    roll = of_type(events, CheckRolled)[0]
    assert (roll.check, roll.number, roll.modifier, roll.target, roll.passed) == ("climb", 1, 1, 2, True)
    assert where(enc, "a") == (1, 1, 2 * CU) and mode(enc, "a") == "climbing"


def test_the_harder_surface_sets_the_difficulty_and_failure_falls():
    enc = encounter(scene(WALL, fighter("a", at=(5, 1))))  # beside the glass: difficulty 3
    do(enc, "climb a 5,1,2 roll=4")
    events = do(enc, "climb a 5,1,3 roll=2")
    assert of_type(events, CheckRolled)[0].target == 3
    fall = of_type(events, Placed)[0]
    assert (
        fall.how == "fall"
        and fall.to == (5, 1, 0)
        and "loses its grip" in of_type(events, StateChanged)[0].note
    )
    assert enc.state.fighter("a").states["posture"] == "prone" and mode(enc, "a") == "walking"


def test_failing_on_the_ground_only_loses_the_movement():
    enc = encounter(scene(WALL, fighter("a", at=(1, 1))))
    events = do(enc, "climb a 1,1,1 roll=1")
    assert not of_type(events, Moved) and not of_type(events, Placed) and spent(events, "actions") == 1


def test_there_must_be_something_to_climb():
    enc = encounter(scene(["#####", "#...#", "#####"], fighter("a")))
    r = refuse(enc, "climb a 1,1,1 roll=6", "speed-meters/climb")
    assert "nothing to hold at 1,1, 1 m up" in r.reason


def test_a_climber_moves_at_half_speed_with_a_minimum_of_one():
    enc = encounter(scene(WALL, fighter("a", at=(1, 1), speed=5)))
    r = refuse(enc, "climb a 1,1,3 roll=6", "speed-meters/climb")
    assert "3 m" in r.reason and "2.5 m" in r.reason
    events = do(enc, "climb a 1,1,2 roll=6")
    assert of_type(events, Moved)[0].budget == 250 and sum(s.cost for s in steps(events)) == 2 * CU
    enc = encounter(scene(WALL, fighter("a", at=(1, 1), speed=1)))
    assert of_type(do(enc, "climb a 1,1,1 roll=6"), Moved)[0].budget == CU


def test_a_climb_speed_replaces_half_speed_and_the_top_ends_the_climb():
    enc = encounter(scene(WALL, fighter("a", at=(1, 1), speed=4, climb=7)))
    do(enc, "climb a 1,1,6 2,1 roll=6")  # up the face and onto the block's top
    assert where(enc, "a") == (2, 1, 6 * CU) and mode(enc, "a") == "walking"


def test_attackers_who_are_not_climbing_have_advantage_against_a_climber():
    enc = encounter(scene(WALL, fighter("a", at=(1, 1)), fighter("f", "red", at=(1, 2))))
    do(enc, "climb a 1,1,1 roll=6")
    mods = RS.modifiers(enc.state, "f", "a")
    assert [(m.applies_to, m.value, m.rule) for m in mods] == [("attack", "advantage", "speed-meters/climb")]
    assert [m.rule for m in RS.modifiers(enc.state, "a")] == ["speed-meters/climb"]


def test_two_climbers_have_no_advantage_over_each_other():
    enc = encounter(scene(WALL, fighter("a", at=(1, 1)), fighter("f", "red", at=(5, 1))))
    do(enc, "climb a 1,1,1 roll=6")
    do(enc, "end-turn")
    do(enc, "climb f 5,1,1 roll=6")
    assert RS.modifiers(enc.state, "f", "a") == []


# --- fly -------------------------------------------------------------------------------------

ROOM = ["########", "#......#", "#..T...#", "#......#", "########"]


def test_a_flyer_goes_straight_up_and_may_end_in_the_air():
    enc = encounter(scene(ROOM, fighter("a", fly=6)))
    do(enc, "fly a 1,1,3")
    assert where(enc, "a") == (1, 1, 3 * CU) and mode(enc, "a") == "flying"


def test_flying_needs_a_fly_speed_and_a_flyer_aloft_cannot_walk():
    enc = encounter(scene(ROOM, fighter("a")))
    r = refuse(enc, "fly a 1,1,1", "speed-meters/fly")
    assert "no Fly speed" in r.reason
    enc = encounter(scene(ROOM, fighter("a", fly=6)))
    do(enc, "fly a 1,1,2")
    r = refuse(enc, "move a 2,1", "speed-meters/fly")
    assert "flying 2 m above the ground" in r.reason


def test_a_flight_costs_its_fly_speed_and_lands_on_the_ground():
    enc = encounter(scene(ROOM, fighter("a", fly=4)))
    r = refuse(enc, "fly a 1,1,5", "speed-meters/fly")
    assert "5 m" in r.reason and "4 m" in r.reason
    events = do(enc, "fly a 3,1,2 3,2,3")  # up over the 2 m obstacle at 3,2
    assert sum(s.cost for s in steps(events)) == 3 * CU and mode(enc, "a") == "flying"
    events = do(enc, "fly a 4,2,0")
    assert mode(enc, "a") == "walking" and where(enc, "a") == (4, 2, 0)


def test_a_flyer_passes_above_an_enemys_head_but_not_through_it():
    enc = encounter(scene(ROOM, fighter("a", fly=8), fighter("f", "red", at=(3, 1))))
    refuse(enc, "fly a 5,1,1", "speed-meters/occupancy")  # 1 m up: still within f's 2 m
    do(enc, "fly a 1,1,2 5,1,2")


# --- hover -------------------------------------------------------------------------------------

FIELD = ["########", "#.~~T.:#", "#......#", "########"]


def test_a_hover_floats_one_meter_up_over_rough_ground_and_land_obstacles():
    enc = encounter(scene(FIELD, fighter("a", hover=5)))
    events = do(enc, "hover a 5,1")
    assert [s.to for s in steps(events)] == [(2, 1, CU), (3, 1, CU), (4, 1, CU), (5, 1, CU)]
    assert mode(enc, "a") == "hovering"


def test_hovering_ignores_rough_terrain_in_its_cost():
    enc = encounter(scene(FIELD, fighter("a", hover=5)))
    assert [s.cost for s in steps(do(enc, "hover a 3,1"))] == [CU, CU]


def test_a_hover_needs_a_hover_speed_and_keeps_near_the_ground():
    enc = encounter(scene(FIELD, fighter("a")))
    assert "no Hover speed" in refuse(enc, "hover a 2,1", "speed-meters/hover").reason
    enc = encounter(scene(FIELD, fighter("a", hover=8)))
    r = refuse(enc, "hover a 6,1", "speed-meters/hover")  # the 2.5 m ledge at 6,1
    assert "2.5 m higher" in r.reason
    r = refuse(enc, "hover a 1,3", "speed-meters/occupancy")  # the wall below the field
    assert "wall" in r.reason


def test_a_hover_is_held_to_its_speed_and_landing_is_free():
    enc = encounter(scene(FIELD, fighter("a", hover=2)))
    refuse(enc, "hover a 4,1", "speed-meters/hover")
    do(enc, "hover a 2,2")
    events = do(enc, "land a")
    assert of_type(events, Placed)[0].to == (2, 2, 0) and not of_type(events, Spent)
    assert mode(enc, "a") == "walking"


# --- glide ----------------------------------------------------------------------------------

CLIFF = ["############", "#Q.........#", "############"]  # a 10 m pillar, then open ground


def test_a_glide_moves_five_meters_across_and_sinks_at_turn_start():
    enc = encounter(scene(CLIFF, fighter("a", glide=5)))
    do(enc, "glide a 9,1")
    assert mode(enc, "a") == "gliding" and where(enc, "a") == (1, 1, 10 * CU)
    events = do(enc, "end-turn")
    assert [s.to for s in steps(events)] == [(x, 1, 10 * CU) for x in range(2, 7)]
    assert of_type(events, Placed)[-1].to == (6, 1, 9 * CU)


def test_still_gliding_on_landing_takes_no_falling_damage():
    enc = encounter(scene(CLIFF, fighter("a", glide=5), settings="glide_descent = 12"))
    do(enc, "glide a 9,1")
    events = do(enc, "end-turn")
    land = of_type(events, Placed)[-1]
    assert land.to == (6, 1, 0) and "no falling damage" in land.note
    assert not of_type(events, CheckRolled) and "posture" not in enc.state.fighter("a").states
    assert mode(enc, "a") == "walking"


def test_a_glide_starts_off_an_edge_or_in_the_air_and_needs_a_glide_speed():
    enc = encounter(scene(["######", "#....#", "######"], fighter("a", glide=5)))
    r = refuse(enc, "glide a 4,1", "speed-meters/glide")
    assert "0 m below" in r.reason
    enc = encounter(scene(CLIFF, fighter("a")))
    assert "no Glide speed" in refuse(enc, "glide a 4,1", "speed-meters/glide").reason


def test_starting_a_glide_is_a_movement_and_the_glide_itself_costs_no_action():
    enc = encounter(scene(CLIFF, fighter("a", glide=5)))
    assert spent(do(enc, "glide a 9,1"), "actions") == 1
    events = do(enc, "end-turn")
    assert spent(events, "actions") == 0 and sum(s.cost for s in steps(events)) == 5 * CU
    assert enc.state.fighter("a").spent["glide"] == 5 * CU


# --- special-jump ---------------------------------------------------------------------------------


def test_a_special_jump_crosses_what_a_normal_jump_cannot():
    rows = ["########", "#.___..#", "########"]
    enc = encounter(scene(rows, fighter("a", jump=6)))
    refuse(enc, "move a 5,1", "speed-meters/jump")
    do(enc, "special-jump a 5,1")
    assert where(enc, "a") == (5, 1, 0) and mode(enc, "a") == "walking"


def test_a_special_jump_goes_any_direction_but_must_land_on_a_surface():
    rows = ["######", "#.:..#", "######"]
    enc = encounter(scene(rows, fighter("a", jump=6)))
    r = refuse(enc, "special-jump a 2,1,4", "speed-meters/special-jump")
    assert "must land on a surface" in r.reason and "1.5 m above the ground" in r.reason
    do(enc, "special-jump a 1,1,3 2,1")  # straight up 3 m, then onto the 2.5 m ledge
    assert where(enc, "a") == (2, 1, 250)


def test_a_special_jump_costs_its_jump_speed_and_needs_one():
    rows = ["######", "#.:..#", "######"]
    enc = encounter(scene(rows, fighter("a", jump=3)))
    r = refuse(enc, "special-jump a 1,1,3 2,1", "speed-meters/special-jump")
    assert "4 m" in r.reason and "3 m" in r.reason
    assert (
        "no special Jump"
        in refuse(
            encounter(scene(rows, fighter("b"))), "special-jump b 2,1", "speed-meters/special-jump"
        ).reason
    )


# --- teleport --------------------------------------------------------------------------------

HALL = ["#########", "#...#...#", "#.......#", "#########"]


def test_a_teleport_appears_in_a_visible_space_within_range():
    enc = encounter(scene(HALL, fighter("a", teleport=5)))
    events = do(enc, "teleport a 5,2")
    assert of_type(events, Placed)[0].to == (5, 2, 0) and where(enc, "a") == (5, 2, 0)


def test_a_teleport_out_of_range_or_out_of_sight_is_refused_with_the_numbers():
    enc = encounter(scene(HALL, fighter("a", teleport=5)))
    r = refuse(enc, "teleport a 7,2", "speed-meters/teleport")
    assert "7,2 is 6 m away, beyond the 5 m teleport range" in r.reason
    r = refuse(enc, "teleport a 5,1", "speed-meters/teleport")
    assert "out of a's line of sight: 4,1 (wall) blocks it" in r.reason


def test_a_teleport_is_one_movement_and_needs_a_free_space():
    enc = encounter(scene(HALL, fighter("a", teleport=5), fighter("b", at=(3, 2))))
    refuse(enc, "teleport a 3,2", "speed-meters/occupancy")
    refuse(enc, "teleport a 3,2,3", "speed-meters/teleport")  # in the air, and a can't fly
    events = do(enc, "teleport a 2,2")
    assert spent(events, "actions") == 1 and not of_type(events, Moved)


def test_fighters_adapted_to_water_breathe_it_unless_the_table_rules_otherwise():
    enc = encounter(scene(POOL, fighter("a", swim=6, tags=["aquatic"])))
    assert not [e for e in of_type(do(enc, "swim a 2,1,-1"), Marked) if e.key == "breath"]
    enc = encounter(scene(POOL, fighter("a", swim=6, tags=["aquatic"]), settings="aquatic_breathes = false"))
    assert [e.value for e in of_type(do(enc, "swim a 2,1,-1"), Marked) if e.key == "breath"] == [3]


# --- the reachable area: walker and move_budget stay those of walking --------------------------


def test_the_reachable_area_is_the_walk_and_empty_for_fighters_who_cannot_walk():
    from tabletrail.core.search.reach import reachable

    enc = encounter(scene(ROOM, fighter("a", fly=6, speed=2)))
    assert reachable(enc.state, "a")[(3, 1)] == 2 * CU and (3, 2) not in reachable(enc.state, "a")
    do(enc, "fly a 1,1,2")
    assert reachable(enc.state, "a") == {} and RS.move_budget(enc.state, enc.state.fighter("a")) == 0


def test_land_is_only_for_a_hover():
    enc = encounter(scene(ROOM, fighter("a", fly=6)))
    do(enc, "fly a 1,1,2")
    r = refuse(enc, "land a", "speed-meters/hover")
    assert "flying, not hovering" in r.reason and "flying down" in r.reason


# --- found in review -------------------------------------------------------------------------------


def test_a_climb_the_climber_could_not_make_is_refused_before_the_roll():
    """climb: too long for half Speed, or through the rock: refused, even with a roll that fails."""
    enc = encounter(scene(WALL, fighter("a", at=(1, 1), speed=5)))
    r = refuse(enc, "climb a 1,1,3 roll=1", "speed-meters/climb")
    assert "3 m" in r.reason and "2.5 m" in r.reason
    r = refuse(enc, "climb a 1,1,1 3,1,1 roll=1", "speed-meters/climb")  # then into the brick block
    assert "2,1 at 1 m is inside the ground" in r.reason
    events = do(enc, "climb a 1,1,2 roll=1")  # a climb it could make: the failed roll stands
    assert not of_type(events, Moved) and spent(events, "actions") == 1


def test_a_mistyped_height_is_refused_as_past_the_speed():
    """fly, swim, climb, special-jump: the planned path stops one position past what the Movement can pay."""
    enc = encounter(scene(ROOM, fighter("a", fly=6)))
    a = enc.state.fighter("a")
    plan, end = RS.plan(enc.state, a, ((1, 1, 10**9),), "speed-meters/fly", lambda x, y, z: z, 6 * CU)
    assert len(plan) == 7 and plan[-1] == (1, 1, 7 * CU) and end == (1, 1, 10**11)
    r = refuse(enc, "fly a 1,1,100000", "speed-meters/fly")  # the largest height a command may carry is 10**6
    assert "costs 7 m by 1,1, but only 6 m are left" in r.reason
    enc = encounter(scene(WALL, fighter("a", at=(1, 1), speed=5)))
    r = refuse(enc, "climb a 1,1,100000 roll=6", "speed-meters/climb")
    assert "costs 3 m by 1,1, but only 2.5 m are left" in r.reason
