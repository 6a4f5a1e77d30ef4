"""speed-meters, rule by rule: what each catalogue row of document 004 allows, refuses and costs.

A scenario writer's pass with the catalogue open: for each row, the edge values (exactly the
budget, one over, a diagonal, exactly the limit, the second use) through the real engine, with
the document's words next to the assertion, the rule id a refusal cites, the rule ids the events
of an allowed action cite, and the cost in the rule's own unit (meters, actions).
"""

from __future__ import annotations

from support import do, encounter, grid, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import CheckRolled, Linked, Marked, Moved, Placed, Spent

from tests.rulesets.speed_meters.test_scenes import LEGEND, fighter

EXTRA = """
"2" = {terrain = "floor", ground = 2}
"t" = {terrain = "floor", ground = 6, climb = 1}
"""
OPEN = ["#########", "#.......#", "#.......#", "#.......#", "#.......#", "#########"]
POOL = ["########", "#.wwww.#", "########"]


def scene(rows: list[str], *fighters: str, settings: str = "") -> str:
    """As test_scenes.scene, with two more map characters (EXTRA)."""
    return f"""
[encounter]
name = "speed-meters rows"
ruleset = "speed-meters"
seed = 1
[settings]
{settings}
{grid(rows, LEGEND + EXTRA)}
{"".join(fighters)}
"""


def moved(events, fid: str = "a") -> Moved:
    return [m for m in of_type(events, Moved) if m.fighter == fid][0]


def actions(events, fid: str = "a") -> int:
    return sum(e.amount for e in of_type(events, Spent) if e.fighter == fid and e.resource == "actions")


# --- movement ------------------------------------------------------------------------------------


def test_movement_exactly_speed_is_allowed_one_meter_over_is_refused():
    # movement: "Speed ... indicates how many meters they may move by using an Action to do so."
    enc = encounter(scene(OPEN, fighter("a", speed=5)))
    r = refuse(enc, "move a 7,1", "speed-meters/movement")
    assert "6 m by 7,1" in r.reason and "5 m" in r.reason
    events = do(enc, "move a 6,1")
    m = moved(events)
    assert m.budget == 5 * CU and sum(s.cost for s in m.steps) == 5 * CU
    assert "speed-meters/movement" in m.rules and actions(events) == 1


def test_movement_diagonal_steps_cost_one_meter_each_by_default():
    # movement: "Can move horizontally or diagonally in any direction"; catalogue default: every step costs 1.
    enc = encounter(scene(OPEN, fighter("a", speed=3)))
    m = moved(do(enc, "move a 2,2 3,3 4,4"))
    assert [s.cost for s in m.steps] == [CU, CU, CU] and all(s.diagonal for s in m.steps)
    assert enc.state.fighter("a").pos == (4, 4, 0)


def test_movement_speed_zero_moves_nowhere_and_spends_nothing():
    # movement: Speed is the meters a Movement may go; with Speed 0 one meter is already too far.
    enc = encounter(scene(OPEN, fighter("a", speed=0)))
    refuse(enc, "move a 2,1", "speed-meters/movement")
    assert enc.state.fighter("a").spent.get("actions", 0) == 0


def test_movement_goes_one_meter_up_but_not_a_second_meter_in_the_same_movement():
    # movement: "only 1 meter vertically by jumping": 1 m up is allowed (a jump, a maneuver meter),
    # a second meter up in the same Movement is refused by the movement row; a new Movement may.
    rows = ["######", "#.^2.#", "######"]
    enc = encounter(scene(rows, fighter("a")))
    r = refuse(enc, "move a 3,1", "speed-meters/movement")
    assert "only 1 meter vertically" in r.reason
    events = do(enc, "move a 2,1")
    assert [s.mode for s in moved(events).steps] == ["jump"]
    assert {"speed-meters/movement", "speed-meters/jump"} <= set(moved(events).rules)
    events = do(enc, "move a 3,1")  # a new Movement, a new meter up
    assert enc.state.fighter("a").pos == (3, 1, 2 * CU) and actions(events) == 1


# --- occupancy -------------------------------------------------------------------------------------


def test_passing_through_an_ally_is_allowed_and_cites_occupancy():
    # occupancy: "Can move through spaces occupied by allies, but can't end a Movement in an
    # occupied space." The allowed pass-through was decided by the occupancy row's words.
    enc = encounter(scene(OPEN, fighter("a"), fighter("b", at=(2, 1))))
    refuse(enc, "move a 2,1", "speed-meters/occupancy")
    events = do(enc, "move a 3,1")
    m = moved(events)
    assert [s.cost for s in m.steps] == [CU, CU]
    assert "speed-meters/occupancy" in m.rules and "speed-meters/movement" in m.rules


def test_a_walk_past_nobody_does_not_cite_occupancy():
    enc = encounter(scene(OPEN, fighter("a"), fighter("b", at=(2, 2))))
    assert "speed-meters/occupancy" not in moved(do(enc, "move a 3,1")).rules


def test_swimming_and_flying_through_an_ally_cite_occupancy_too():
    # occupancy applies to every Movement: the swimmer and the flyer pass their ally's space.
    enc = encounter(scene(POOL, fighter("a", tags=["aquatic"]), fighter("b", at=(2, 1), tags=["aquatic"])))
    assert "speed-meters/occupancy" in moved(do(enc, "swim a 2,1 3,1")).rules
    enc = encounter(scene(OPEN, fighter("a", fly=6), fighter("b", at=(2, 1))))
    assert "speed-meters/occupancy" in moved(do(enc, "fly a 3,1,0")).rules


def test_an_enemy_space_and_a_wall_are_never_passed_and_cost_nothing():
    # occupancy: "Cannot move through spaces occupied by enemies or solid objects/obstacles."
    rows = ["#######", "#..T..#", "#.....#", "#######"]
    enc = encounter(scene(rows, fighter("a"), fighter("e", "red", at=(2, 2))))
    assert "solid obstacle" in refuse(enc, "move a 4,1", "speed-meters/occupancy").reason
    assert "held by e" in refuse(enc, "move a 3,2", "speed-meters/occupancy").reason
    assert "held by e" in refuse(enc, "move a 2,2", "speed-meters/occupancy").reason
    assert enc.state.fighter("a").spent.get("actions", 0) == 0


# --- maneuver / jump ------------------------------------------------------------------------------


def test_two_meters_of_jumps_are_allowed_a_third_is_refused_by_maneuver():
    # maneuver: "for no more than 2 meters of the movement": 2 m across a gap then a 1 m step up.
    rows = ["#######", "#.__.^#", "#######"]
    enc = encounter(scene(rows, fighter("a")))
    r = refuse(enc, "move a 5,1", "speed-meters/maneuver")
    assert "3 m" in r.reason
    events = do(enc, "move a 4,1")
    spent = [e for e in of_type(events, Spent) if e.resource == "maneuver"]
    assert [e.amount for e in spent] == [2 * CU] and "speed-meters/maneuver" in spent[0].rules


def test_a_jump_is_one_meter_up_or_two_across_not_three_across():
    # jump: "You can jump 1 meter vertically or 2 meters horizontally as a part of any Movement".
    enc = encounter(scene(["#######", "#.___.#", "#######"], fighter("a")))
    assert "at most 2 m across" in refuse(enc, "move a 5,1", "speed-meters/jump").reason
    enc = encounter(scene(["#######", "#.__^.#", "#######"], fighter("a")))
    assert "not both" in refuse(enc, "move a 4,1", "speed-meters/jump").reason


def test_a_diagonal_jump_across_two_gap_spaces_is_two_meters_by_default():
    # jump + movement's default (every step costs 1): two diagonal spaces in the air are 2 m across.
    rows = ["######", "#....#", "#._..#", "#.._.#", "#....#", "######"]
    enc = encounter(scene(rows, fighter("a")))
    events = do(enc, "move a 2,2 3,3 4,4")
    assert [s.mode for s in moved(events).steps] == ["jump", "jump", ""]
    assert [e.amount for e in of_type(events, Spent) if e.resource == "maneuver"] == [2 * CU]


# --- stop ------------------------------------------------------------------------------------------


def test_each_movement_is_an_action_and_the_fifth_of_four_is_refused_by_stop():
    # stop: "you'll have to use a new Action to start moving again"; 4 actions a turn (house default).
    enc = encounter(scene(OPEN, fighter("a", speed=1)))
    for x in (2, 3, 4, 5):
        assert actions(do(enc, f"move a {x},1")) == 1
    refuse(enc, "move a 6,1", "speed-meters/stop")
    assert enc.state.fighter("a").pos == (5, 1, 0)


def test_a_stopped_movement_does_not_carry_its_unused_meters_into_the_next():
    # stop: "Once you stop moving, however, you can't start moving again as part of the same Action":
    # a new Movement gets a fresh Speed, never the old one's leftover added to it.
    enc = encounter(scene(OPEN, fighter("a", speed=3)))
    do(enc, "move a 2,1")
    refuse(enc, "move a 3,1 4,1 5,1 6,1", "speed-meters/movement")
    assert moved(do(enc, "move a 3,1 4,1 5,1")).budget == 3 * CU


# --- rough -----------------------------------------------------------------------------------------


def test_rough_space_costs_two_meters_exactly_the_budget_is_allowed_one_over_refused():
    # rough: "A space of Rough Terrain counts as 2 meters of Movement instead of 1".
    rows = ["######", "#.~~.#", "#....#", "######"]
    enc = encounter(scene(rows, fighter("a", speed=3)))
    r = refuse(enc, "move a 3,1", "speed-meters/movement")
    assert "4 m by 3,1" in r.reason
    m = moved(do(enc, "move a 2,2 3,1"))  # 1 + 2 (a diagonal into mud) = 3 m
    assert [s.cost for s in m.steps] == [CU, 2 * CU] and "speed-meters/rough" in m.rules


def test_a_speed_one_mover_ignores_rough_but_still_goes_one_meter():
    # rough: "(though if your Speed is 1, you can ignore this and move through Rough Terrain normally)".
    rows = ["######", "#.~~.#", "######"]
    enc = encounter(scene(rows, fighter("a", speed=1)))
    refuse(enc, "move a 3,1", "speed-meters/movement")
    m = moved(do(enc, "move a 2,1"))
    assert [s.cost for s in m.steps] == [CU] and "speed-meters/rough" in m.rules


# --- swim ------------------------------------------------------------------------------------------


def test_an_unadapted_swimmer_pays_two_meters_a_water_space_and_the_refusal_cites_swim():
    # swim: "swimmers must treat the water they're swimming in as Rough Terrain".
    enc = encounter(scene(POOL, fighter("a", speed=4)))
    refuse(enc, "swim a 2,1 3,1 4,1", "speed-meters/swim")
    m = moved(do(enc, "swim a 2,1 3,1"))
    assert [s.cost for s in m.steps] == [2 * CU, 2 * CU]
    assert {"speed-meters/swim", "speed-meters/rough"} <= set(m.rules)


def test_an_adapted_swimmer_pays_one_meter_and_goes_down_in_three_dimensions():
    # swim: "Unless specifically adapted to aquatic environs" and "may move in 3 dimensions".
    enc = encounter(scene(POOL, fighter("a", speed=4, tags=["aquatic"])))
    m = moved(do(enc, "swim a 2,1 3,1,-1 4,1,-2 5,1,-2"))
    assert [s.cost for s in m.steps] == [CU] * 4 and "speed-meters/rough" not in m.rules
    assert enc.state.fighter("a").pos == (5, 1, -2 * CU)


def test_a_speed_one_swimmer_ignores_the_waters_roughness():
    # rough + swim: water counts as Rough Terrain, and "if your Speed is 1, you can ignore this".
    enc = encounter(scene(POOL, fighter("a", speed=1)))
    assert [s.cost for s in moved(do(enc, "swim a 2,1")).steps] == [CU]


# --- climb -----------------------------------------------------------------------------------------


def test_a_difficulty_one_surface_is_climbed_on_a_roll_of_one_at_half_speed():
    # climb: "Difficulty 1: Plenty to grip, many footholds (a tree ...)"; "half Speed".
    enc = encounter(scene(["#####", "#.t.#", "#####"], fighter("a", speed=4)))
    refuse(enc, "climb a 1,1,3 roll=6", "speed-meters/climb")
    events = do(enc, "climb a 1,1,2 roll=1")
    roll = of_type(events, CheckRolled)[0]
    assert (roll.target, roll.number, roll.passed) == (1, 1, True) and "speed-meters/climb" in roll.rules
    assert moved(events).budget == 2 * CU and enc.state.fighter("a").pos == (1, 1, 2 * CU)


def test_a_failed_climb_high_up_falls_to_the_ground_and_rolls_the_falling_table():
    # climb: "failure causes you to fall to the ground";
    # fall-table: "When a character falls 5 or more meters".
    enc = encounter(scene(["#####", "#.C.#", "#####"], fighter("a", speed=12)))
    do(enc, "climb a 1,1,6 roll=6")
    events = do(enc, "climb a 2,1 roll=1 roll=6")
    fall = of_type(events, Placed)[0]
    assert fall.to == (1, 1, 0) and {"speed-meters/climb", "speed-meters/fall-table"} <= set(fall.rules)
    assert [c.number for c in of_type(events, CheckRolled) if c.check == "falling table"] == [6]
    assert enc.state.fighter("a").states["posture"] == "prone"


# --- fly / special-jump / teleport -------------------------------------------------------------------


def test_a_flight_of_exactly_its_fly_speed_may_end_airborne_one_more_meter_is_refused():
    # fly: "Fly (5) indicates that for every Movement spent flying, the character can fly 5 meters";
    # "may end movements airborne while able to fly".
    enc = encounter(scene(OPEN, fighter("a", fly=3)))
    events = do(enc, "fly a 1,1,3")
    assert sum(s.cost for s in moved(events).steps) == 3 * CU and actions(events) == 1
    assert "4 m by 2,1" in refuse(enc, "fly a 1,1,0 2,1,0", "speed-meters/fly").reason


def test_a_special_jump_of_exactly_its_meters_lands_one_over_or_airborne_is_refused():
    # special-jump: "you must end the move by landing on a viable surface, not airborne".
    enc = encounter(scene(OPEN, fighter("a", jump=3)))
    refuse(enc, "special-jump a 5,1", "speed-meters/special-jump")
    assert "not airborne" in refuse(enc, "special-jump a 1,1,2", "speed-meters/special-jump").reason
    m = moved(do(enc, "special-jump a 4,1"))
    assert sum(s.cost for s in m.steps) == 3 * CU and m.rules == ("speed-meters/special-jump",)


def test_a_teleport_reaches_exactly_its_range_diagonally_and_not_a_meter_more():
    # teleport: "You instantly appear in any space (within range of the teleport)"; diagonal steps 1 m.
    enc = encounter(scene(OPEN, fighter("a", teleport=3), fighter("b", at=(2, 1))))
    assert "4 m away" in refuse(enc, "teleport a 5,1", "speed-meters/teleport").reason
    refuse(enc, "teleport a 2,1", "speed-meters/occupancy")
    events = do(enc, "teleport a 4,4")
    assert of_type(events, Placed)[0].rules == ("speed-meters/teleport",) and actions(events) == 1


# --- shove / push-pull / grab / size ---------------------------------------------------------------

ARENA = ["###########", "#.........#", "#.........#", "###########"]


def test_a_shove_rounds_an_odd_margin_down_and_a_tie_moves_nobody():
    # shove: "The attacker pushes the target 1 meter for every 2 points remaining on their side."
    for rolls, meters in (
        ("roll=5 roll=2", 1),
        ("roll=4 roll=2", 1),
        ("roll=3 roll=2", 0),
        ("roll=3 roll=3", 0),
    ):
        enc = encounter(scene(ARENA, fighter("a", at=(2, 1)), fighter("t", "red", at=(3, 1))))
        events = do(enc, f"shove a t {rolls}")
        went = sum(s.cost for m in of_type(events, Moved) if m.fighter == "t" for s in m.steps)
        assert went == meters * CU and enc.state.fighter("a").pos == (2, 1, 0) and actions(events) == 1


def test_a_tied_grab_holds_nothing_and_a_won_grab_commits_no_dice_against_brawn_zero():
    # grab: "if the attacker wins out, the defender is grabbed"; "dedicate a number of Action Dice
    # to the grab equal to the defender's Brawn".
    enc = encounter(scene(ARENA, fighter("a", at=(2, 1)), fighter("t", "red", at=(3, 1))))
    events = do(enc, "grab a t roll=3 roll=3")
    assert not of_type(events, Linked) and actions(events) == 1
    events = do(enc, "grab a t roll=5 roll=2")
    escape = [e for e in of_type(events, Marked) if e.key == "escape"][0]
    assert escape.value == 3 and actions(events) == 1  # the grab action, no Action Dice for Brawn 0


def test_size_refuses_a_larger_target_before_any_roll_and_allows_the_same_size():
    # size: "A creature cannot shove, push, pull, or grab a creature that is in a larger Size category".
    enc = encounter(scene(ARENA, fighter("a", at=(2, 1), size="small"), fighter("t", "red", at=(3, 1))))
    for verb in ("shove", "push", "pull", "grab"):
        refuse(enc, f"{verb} a t roll=6 roll=1", "speed-meters/size")
    enc = encounter(
        scene(ARENA, fighter("a", at=(2, 1), size="small"), fighter("t", "red", at=(3, 1), size="small"))
    )
    events = do(enc, "shove a t roll=6 roll=2")
    assert "speed-meters/size" in [e for e in of_type(events, Spent) if e.resource == "actions"][0].rules


# --- fall-table ------------------------------------------------------------------------------------


def test_a_five_meter_fall_cites_the_falling_table_once_and_a_four_rolls_a_d10_per_two_meters():
    # fall-table: "When a character falls 5 or more meters ... roll a d6"; "4 Take 1d10 damage for
    # every 2 meters you fell" (5 m: 2d10). The landing cites the fall-table row once, not twice.
    enc = encounter(scene(OPEN, fighter("a", fly=40)))
    do(enc, "fly a 1,1,5")
    events = do(enc, "fall a roll=4")
    landing = of_type(events, Placed)[0]
    assert landing.to == (1, 1, 0) and landing.rules == ("speed-meters/fall-table",)
    damage = [c for c in of_type(events, CheckRolled) if c.check == "fall damage"][0]
    assert damage.formula == "2d10" and damage.rules == ("speed-meters/fall-table",)
