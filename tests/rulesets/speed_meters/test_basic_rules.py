"""speed-meters rules of the foundation, from the words of document 004."""

from support import do, encounter, grid, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import Moved, Spent


def arena(settings: str = "", speed_a: int = 5, extra_rows: list[str] | None = None) -> str:
    rows = extra_rows or [
        "##########",
        "#........#",
        "#..~~....#",
        "#..^.....#",
        "#..:.....#",
        "##########",
    ]
    return f"""
[encounter]
name = "test"
ruleset = "speed-meters"
[settings]
{settings}
{grid(rows, '"^" = {terrain = "floor", ground = 1}' + chr(10) + '":" = {terrain = "floor", ground = 2.5}')}
[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = {speed_a}
[[fighters]]
id = "b"
side = "blue"
at = [2, 1]
speed = 4
[[fighters]]
id = "e"
side = "red"
at = [8, 4]
speed = 4
"""


def moved(events) -> Moved:
    return of_type(events, Moved)[0]


# --- movement: "moves up to Speed meters, horizontally or diagonally" -------


def test_move_up_to_speed_is_allowed_and_costs_a_meter_a_space():
    enc = encounter(arena())
    m = moved(do(enc, "move a 6,1"))
    assert [s.cost for s in m.steps] == [CU] * 5
    assert enc.state.fighter("a").pos[:2] == (6, 1)


def test_move_beyond_speed_is_refused_with_the_numbers():
    enc = encounter(arena())
    r = refuse(enc, "move a 7,1", "speed-meters/movement")
    assert "6 m" in r.reason and "5 m" in r.reason


def test_diagonal_costs_one_by_default_and_follows_the_setting():
    enc = encounter(arena())
    assert sum(s.cost for s in moved(do(enc, "move a 2,2")).steps) == CU
    enc = encounter(arena('diagonal = "manhattan"'))
    assert sum(s.cost for s in moved(do(enc, "move a 2,2")).steps) == 2 * CU


def test_one_meter_up_by_jumping_is_allowed_more_is_refused():
    enc = encounter(arena())
    do(enc, "move a 3,3")  # 1,1 -> 2,2 -> 3,3: onto the 1 m platform
    assert enc.state.fighter("a").pos == (3, 3, CU)
    r = refuse(enc, "move a 3,4", "speed-meters/movement")  # 1 m -> 2.5 m: 1.5 m up
    assert "1.5 m higher" in r.reason


# --- occupancy ----------------------------------------------------------------


def test_allies_may_be_passed_but_not_ended_on():
    enc = encounter(arena())
    do(enc, "move a 3,1")  # through b at 2,1
    enc = encounter(arena())
    refuse(enc, "move a 2,1", "speed-meters/occupancy")


def test_enemies_and_walls_block():
    enc = encounter(arena(speed_a=12))
    refuse(enc, "move a 1,1 8,1 8,4 8,3", "speed-meters/occupancy")  # through e at 8,4? no: onto it
    refuse(enc, "move a 0,1", "speed-meters/occupancy")  # the wall


# --- rough ----------------------------------------------------------------------


def test_rough_space_costs_two():
    enc = encounter(arena())
    m = moved(do(enc, "move a 2,2 4,2"))
    assert [s.cost for s in m.steps] == [CU, 2 * CU, 2 * CU]


def test_speed_one_ignores_rough():
    enc = encounter(arena(speed_a=1))
    do(enc, "move a 2,2")
    m = moved(do(enc, "move a 3,2"))
    assert [s.cost for s in m.steps] == [CU]


# --- stop: "once you stop moving you can't start again as part of the same Action" ----


def test_each_movement_takes_an_action_and_they_run_out():
    enc = encounter(arena("actions_per_turn = 2"))
    events = do(enc, "move a 2,2")
    assert of_type(events, Spent)[0].resource == "actions"
    do(enc, "move a 3,2")
    refuse(enc, "move a 4,2", "speed-meters/stop")
    do(enc, "end-turn")
    do(enc, "end-turn")
    do(enc, "end-turn")  # round 2: a's actions are back
    do(enc, "move a 2,2")


def test_acting_out_of_turn_is_refused():
    enc = encounter(arena())
    refuse(enc, "move b 3,1", "tabletrail/turn-order")


# --- prone (house ruling: the document lands fallers prone but never says how they rise) ----


def test_standing_up_takes_an_action_and_only_a_prone_fighter_can():
    enc = encounter(arena("actions_per_turn = 2"))
    refuse(enc, "stand-up a", "speed-meters/movement")  # already standing: the POSTURE machine says no
    events = do(enc, "drop-prone a")
    assert of_type(events, Spent)[0].resource == "actions"
    assert enc.state.fighter("a").states["posture"] == "prone"
    do(enc, "stand-up a")
    assert enc.state.fighter("a").states["posture"] == "standing"
    assert enc.state.fighter("a").used("actions") == 2
    r = refuse(enc, "drop-prone a", "speed-meters/movement")
    assert "used all 2 actions" in r.reason


# --- tabletrail/side: who may command a fighter -----------------------------------------


def test_a_side_commands_its_own_fighters_and_the_gm_commands_anyone():
    enc = encounter(arena())
    r = refuse(enc, "move a 2,2 by=red", "tabletrail/side")  # a fights for blue
    assert "a fights for blue" in r.reason
    do(enc, "move a 2,2 by=blue")
    do(enc, "move a 3,2 by=gm")
