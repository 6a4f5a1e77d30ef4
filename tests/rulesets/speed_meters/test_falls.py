"""speed-meters falling: the falling table and how long a fall takes, from document 004's words."""

from __future__ import annotations

import pytest
from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.core.rulesets.speed_meters import fall_quarters, fall_rolls
from tabletrail.events.types import CheckRolled, Damaged, Marked, Placed, Spent, StateChanged

from tests.rulesets.speed_meters.test_scenes import fighter, scene

ROOM = ["######", "#..sw#", "######"]  # floor, soft ground at 3,1, deep water at 4,1


def flyer(settings: str = "", at=(1, 1), **stats) -> object:
    stats.setdefault("fly", 40)
    return encounter(scene(ROOM, fighter("a", at=at, **stats), settings=settings))


def table_rolls(events) -> list[int]:
    return [e.number for e in of_type(events, CheckRolled) if e.check == "falling table"]


def marks(enc, fid: str = "a") -> dict:
    return enc.state.fighter(fid).marks


# --- fall-table ----------------------------------------------------------------------------


def test_under_five_meters_there_is_no_roll_and_the_faller_lands_prone():
    enc = flyer()
    do(enc, "fly a 1,1,4")
    events = do(enc, "fall a")
    assert not of_type(events, CheckRolled) and of_type(events, Placed)[0].to == (1, 1, 0)
    assert enc.state.fighter("a").states["posture"] == "prone"


def test_one_d6_per_five_meters_fallen():
    enc = flyer()
    do(enc, "fly a 1,1,12")
    events = do(enc, "fall a roll=6 roll=6")  # 12 m: two rolls
    assert table_rolls(events) == [6, 6]
    assert of_type(events, CheckRolled)[0].formula == ""  # entered at the table
    assert not of_type(events, Damaged) and not marks(enc)


@pytest.mark.parametrize(
    ("roll", "mark"),
    [(1, ("dead", True)), (2, ("permanent_trauma", 1)), (3, ("trauma", 1))],
)
def test_the_table_gives_death_permanent_trauma_or_trauma(roll: int, mark: tuple):
    enc = flyer()
    do(enc, "fly a 1,1,5")
    events = do(enc, f"fall a roll={roll}")
    assert [(e.key, e.value) for e in of_type(events, Marked) if e.key != "breath"] == [mark]


def test_death_ends_the_rolls_and_the_dead_do_not_move():
    enc = flyer()
    do(enc, "fly a 1,1,10")
    events = do(enc, "fall a roll=1")  # two rolls owed, the first kills
    assert table_rolls(events) == [1]
    assert "died in a fall" in refuse(enc, "move a 2,1", "speed-meters/fall-table").reason


def test_a_four_or_five_deals_a_die_of_damage_per_two_meters_fallen():
    enc = flyer()
    do(enc, "fly a 1,1,5")
    events = do(enc, "fall a roll=4 roll=13")  # 5 m: 2d10
    damage = [e for e in of_type(events, CheckRolled) if e.check == "fall damage"][0]
    assert of_type(events, Damaged)[0].amount == 13 and "2d10" in damage.note
    enc = flyer()
    do(enc, "fly a 1,1,7")
    events = do(enc, "fall a")  # seeded: whatever the d6 shows, damage dice follow the chart
    rolled = of_type(events, CheckRolled)
    if rolled[0].number in (4, 5):
        assert rolled[1].formula == ("3d10" if rolled[0].number == 4 else "3d6")
        assert of_type(events, Damaged)[0].amount == rolled[1].number


def test_soft_ground_skips_one_roll_liquid_three_and_a_skill_feat_one_per_two_bumps():
    enc = flyer(at=(3, 1))  # over soft ground
    do(enc, "fly a 3,1,10")
    events = do(enc, "fall a roll=6")
    assert table_rolls(events) == [6] and "1 opted out of (soft ground 1)" in of_type(events, Placed)[0].note
    enc = flyer(at=(4, 1))  # over deep water
    do(enc, "fly a 4,1,15")
    events = do(enc, "fall a")
    assert table_rolls(events) == [] and enc.state.fighter("a").states["mode"] == "swimming"
    enc = flyer()
    do(enc, "fly a 1,1,15")
    events = do(enc, "fall a bumps=5 roll=6")  # 3 rolls, 2 Bumps each skip one: 1 left
    assert table_rolls(events) == [6]


def test_the_falling_table_takes_a_d6_and_refuses_other_numbers():
    enc = flyer()
    do(enc, "fly a 1,1,5")
    assert "1 to 6" in refuse(enc, "fall a roll=7", "speed-meters/fall-table").reason
    assert (
        "nowhere to fall"
        in refuse(encounter(scene(ROOM, fighter("b"))), "fall b", "speed-meters/fall-table").reason
    )


def test_the_count_of_rolls_and_opt_outs():
    assert fall_rolls(4 * CU, frozenset(), 0) == (0, 0, "")
    assert fall_rolls(19 * CU, frozenset(), 0)[:2] == (3, 0)
    assert fall_rolls(20 * CU, frozenset({"soft", "liquid"}), 2)[:2] == (4, 4)
    assert fall_rolls(30 * CU, frozenset({"liquid"}), 3)[:2] == (6, 4)


def test_a_glider_that_stops_gliding_falls_with_damage():
    enc = encounter(scene(["#######", "#Q....#", "#######"], fighter("a", glide=5)))
    do(enc, "glide a 5,1")
    do(enc, "end-turn")  # the glide: 4 m across to the wall, sinking to 9 m
    events = do(enc, "fall a roll=6")  # no longer gliding, so the table applies
    assert table_rolls(events) == [6]
    assert [e.dest for e in of_type(events, StateChanged) if e.machine == "mode"] == ["falling", "walking"]


# --- fall-speed --------------------------------------------------------------------------------


@pytest.mark.parametrize(("height", "left"), [(5, 6), (10, 4), (15, 2), (20, 0)])
def test_landing_after_5_10_15_or_20_meters_leaves_that_share_of_the_turn(height: int, left: int):
    enc = flyer("actions_per_turn = 8")
    do(enc, f"fly a 1,1,{height}")  # one action of the 8
    rolls = " ".join(["roll=6"] * (height // 5))
    do(enc, f"fall a {rolls}")
    a = enc.state.fighter("a")
    assert 8 - a.spent["actions"] == left


def test_the_lost_actions_cite_fall_speed_and_say_what_is_left():
    enc = flyer("actions_per_turn = 8")
    do(enc, "fly a 1,1,10")
    events = do(enc, "fall a roll=6 roll=6")
    lost = [e for e in of_type(events, Spent) if e.resource == "actions"][0]
    assert lost.rules == ("speed-meters/fall-speed",) and lost.amount == 3
    assert "takes 2/4 of the turn: 4 of 8 actions remain" in lost.note


def test_twenty_meters_a_turn_a_longer_fall_goes_on_at_the_next_turn():
    rows = ["#####", "#P..#", "#####"]  # a 30 m pillar
    enc = encounter(scene(rows, fighter("a"), settings='ledge_drop = "fall"'))
    events = do(enc, "move a 2,1")  # steps off: 30 m below
    assert of_type(events, Placed)[0].to == (2, 1, 10 * CU)
    a = enc.state.fighter("a")
    assert a.states["mode"] == "falling" and a.marks["fallen"] == 20 * CU and a.spent["actions"] == 4
    refuse(enc, "move a 3,1", "speed-meters/fall-speed")
    events = do(enc, "end-turn " + " ".join(["roll=6"] * 6))  # lands at its next turn: 30 m in all
    assert table_rolls(events) == [6] * 6 and enc.state.fighter("a").pos == (2, 1, 0)
    assert "fallen" not in marks(enc) and enc.state.fighter("a").spent["actions"] == 2  # 10 m: half


def test_a_fall_outside_the_fallers_turn_takes_its_next_turn():
    rows = ["#######", "#.Q...#", "#######"]
    enc = encounter(scene(rows, fighter("p", at=(1, 1)), fighter("t", "red", at=(2, 1))))
    events = do(enc, "force t push 3,1 source=p aware=no roll=6 roll=6")  # off the 10 m pillar
    assert [(e.key, e.value) for e in of_type(events, Marked)] == [("fall_time", 2)]
    events = do(enc, "end-turn")
    assert [e.amount for e in of_type(events, Spent) if e.fighter == "t"] == [2]
    enc = encounter(
        scene(
            rows, fighter("p", at=(1, 1)), fighter("t", "red", at=(2, 1)), settings='off_turn_fall = "none"'
        )
    )
    events = do(enc, "force t push 3,1 source=p aware=no roll=6 roll=6")
    assert not of_type(events, Marked)


def test_between_the_marks_the_fall_time_rounds_by_the_setting():
    assert [fall_quarters(m * CU, "down") for m in (4, 5, 7, 14, 19, 25)] == [0, 1, 1, 2, 3, 4]
    assert [fall_quarters(m * CU, "up") for m in (4, 5, 7, 14, 19, 25)] == [0, 1, 2, 3, 4, 4]


# --- found in review -----------------------------------------------------------------------------


def test_a_fall_of_hundreds_of_meters_rolls_all_its_damage_dice():
    """fall-table: a 4 on a 230 m fall is 115d10; the seeded dice roll them in checks of at most 99 dice."""
    enc = flyer(fly=300)
    do(enc, "fly a 1,1,230")
    do(enc, "fall a")  # 20 m a turn: it lands at the start of a later turn
    while enc.state.fighter("a").pos[2] > 20 * CU:
        do(enc, "end-turn")
    events = do(enc, "end-turn roll=4")  # the first roll on the table, entered at the table
    hurt = [e for e in of_type(events, CheckRolled) if e.check == "fall damage"]
    counts = [int(e.formula.split("d")[0]) for e in hurt]
    assert sum(counts) == 115 and max(counts) <= 99 and all(e.formula.endswith("d10") for e in hurt)
    damage = [e for e in of_type(events, Damaged) if e.fighter == "a"][0]
    assert damage.amount == sum(e.number for e in hurt) and "115d10" in damage.note


def test_a_negative_count_of_bumps_is_refused_not_turned_into_more_rolls():
    enc = flyer()
    do(enc, "fly a 1,1,12")
    r = refuse(enc, "fall a bumps=-4 roll=6 roll=6", "speed-meters/fall-table")
    assert "bumps=-4" in r.reason
    assert table_rolls(do(enc, "fall a bumps=2 roll=6")) == [6]  # 2 rolls, 1 opted out of
