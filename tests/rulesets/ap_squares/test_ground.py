"""ap-squares on the ground, from the words of document 002: walk, crawl, invade, leap, rotate-about."""

from __future__ import annotations

from support import do, of_type, refuse
from support_ap_squares import ap_left, game, marks, next_cycle, pos
from tabletrail.events.types import CheckRolled, Damaged, Marked, Moved, Placed, Spent


def moved(events) -> Moved:
    return of_type(events, Moved)[0]


# --- walk: "walking costs 1 AP a square"; AP per cycle is a character stat --------------------


def test_walking_costs_one_ap_a_square_diagonals_included():
    enc = game("ari blue 1,1 ap=10")
    m = moved(do(enc, "move ari 4,1 6,3"))
    assert [s.cost for s in m.steps] == [100] * 5  # 3 straight, 2 diagonal: a square is a square
    assert m.resource == "ap" and m.rules == ("ap-squares/walk",)
    assert pos(enc, "ari") == (6, 3) and ap_left(enc, "ari") == 5


def test_walking_beyond_the_ap_left_is_refused_with_the_numbers():
    enc = game("ari blue 1,1 ap=4")
    r = refuse(enc, "move ari 6,1", "ap-squares/walk")
    assert "5 AP by 6,1" in r.reason and "only 4 AP are left" in r.reason


def test_walls_are_not_walked_into():
    enc = game("ari blue 1,1")
    r = refuse(enc, "move ari 0,1", "ap-squares/walk")
    assert "wall" in r.reason


def test_ap_per_cycle_is_the_stat_or_else_the_setting():
    enc = game("ari blue 1,1", settings="ap_per_cycle = 3")
    refuse(enc, "move ari 5,1", "ap-squares/walk")  # 4 squares > 3 AP
    do(enc, "move ari 4,1")
    assert ap_left(enc, "ari") == 0


def test_diagonal_setting_prices_diagonal_steps():
    enc = game("ari blue 1,1", settings='diagonal = "manhattan"')
    assert [s.cost for s in moved(do(enc, "move ari 2,2")).steps] == [200]


def test_ap_come_back_when_the_next_cycle_starts_not_at_every_turn():
    enc = game("ari blue 1,1 ap=6", "bo red 8,5 ap=6")
    do(enc, "move ari 4,1")
    do(enc, "end-turn")
    assert ap_left(enc, "ari") == 3  # bo's turn: still the same cycle
    next_cycle(enc)
    assert ap_left(enc, "ari") == 6


def test_ap_refresh_turn_setting_refreshes_at_the_own_turn():
    enc = game("ari blue 1,1 ap=6", "bo red 8,5 ap=6", settings='ap_refresh = "turn"')
    do(enc, "move ari 4,1")
    do(enc, "end-turn")
    do(enc, "end-turn")  # cycle 2, ari's turn starts: refreshed then
    assert ap_left(enc, "ari") == 6


# --- crawl: "crawling costs 2" --------------------------------------------------------------------


def test_crawling_while_prone_costs_two_ap_a_square():
    enc = game("ari blue 1,1 ap=10")
    do(enc, "drop-prone ari")
    m = moved(do(enc, "move ari 3,1"))
    assert [s.cost for s in m.steps] == [200, 200] and m.rules == ("ap-squares/crawl",)
    assert ap_left(enc, "ari") == 6


def test_crawling_beyond_the_ap_left_is_refused():
    enc = game("ari blue 1,1 ap=5")
    do(enc, "drop-prone ari")
    r = refuse(enc, "move ari 4,1", "ap-squares/crawl")  # 3 squares = 6 AP > 5
    assert "6 AP" in r.reason and "5 AP" in r.reason


def test_standing_up_makes_moving_a_walk_again():
    enc = game("ari blue 1,1 ap=10")
    do(enc, "drop-prone ari")
    do(enc, "stand-up ari")
    assert [s.cost for s in moved(do(enc, "move ari 2,1")).steps] == [100]


# --- invade ---------------------------------------------------------------------------------------


def invaded(*extra: str, **kwargs) -> object:
    """ari (blue) walks from 1,1 towards bo (red) at 3,1; the move waits before 3,1."""
    enc = game("ari blue 1,1 ap=10 defense=10 dexterity=2 strength=1", "bo red 3,1 ap=10", *extra, **kwargs)
    events = do(enc, "move ari 5,1")
    wait = of_type(events, Marked)[0]
    assert wait.key == "invading" and wait.value == {"cell": [3, 1], "occupant": "bo", "parity": 0}
    assert "ap-squares/invade" in wait.rules
    assert pos(enc, "ari") == (2, 1)  # stopped before the occupied square
    return enc


def test_entering_an_occupied_square_waits_for_the_occupant_and_nothing_else_goes():
    enc = invaded()
    r = refuse(enc, "end-turn", "ap-squares/invade")
    assert "react-invasion bo" in r.reason
    refuse(enc, "move ari 2,2", "ap-squares/invade")


def test_letting_the_invader_in_means_two_characters_share_the_square():
    enc = invaded()
    events = do(enc, "react-invasion bo allow by=red")
    assert pos(enc, "ari") == pos(enc, "bo") == (3, 1)
    assert moved(events).steps[0].cost == 100 and ap_left(enc, "ari") == 8
    assert "invading" not in marks(enc, "ari")


def test_a_parry_above_the_invaders_defense_deals_weapon_damage_and_the_invader_still_enters():
    enc = game("ari blue 1,1 ap=10 defense=10 dexterity=2", "bo red 3,1 parry=1 weapon_damage=4")
    do(enc, "move ari 5,1")
    events = do(enc, "react-invasion bo parry roll=12 by=red")  # 12 + 1 = 13 > Defense 10 + 2
    parry = of_type(events, CheckRolled)[0]
    assert (parry.target, parry.passed) == (12, True) and "10 + Dexterity 2 = 12" in parry.note
    assert of_type(events, Damaged)[0].amount == 4
    assert pos(enc, "ari") == (3, 1)


def test_a_parry_that_only_equals_the_defense_deals_nothing():
    enc = game("ari blue 1,1 defense=10 dexterity=2", "bo red 3,1 parry=1 weapon_damage=4")
    do(enc, "move ari 5,1")
    events = do(enc, "react-invasion bo parry roll=11 by=red")  # 12 is not above 12
    assert not of_type(events, Damaged) and pos(enc, "ari") == (3, 1)


def test_a_body_block_costs_the_occupant_2_ap_and_a_higher_strength_roll_squeezes_in():
    enc = invaded()
    events = do(enc, "react-invasion bo block roll=10 roll=10 by=gm")  # bo 10, ari 10 + 1 = 11
    spent = of_type(events, Spent)[0]
    assert (spent.fighter, spent.amount) == ("bo", 200) and ap_left(enc, "bo") == 8
    assert pos(enc, "ari") == (3, 1)


def test_a_body_block_that_wins_wastes_the_movement_ap_and_bans_a_second_try_this_cycle():
    enc = invaded()
    events = do(enc, "react-invasion bo block roll=12 roll=10 by=gm")  # ari 11 is not higher than 12
    wasted = [s for s in of_type(events, Spent) if s.fighter == "ari"]
    assert wasted[0].amount == 100 and ap_left(enc, "ari") == 10 - 1 - 1
    assert pos(enc, "ari") == (2, 1)
    assert marks(enc, "ari")["blocked"] == [[3, 1]]
    r = refuse(enc, "move ari 3,1", "ap-squares/invade")
    assert "body-blocked out of 3,1" in r.reason and "cycle 1" in r.reason
    next_cycle(enc)
    do(enc, "move ari 3,1")  # a new cycle: a new attempt, a new answer awaited
    assert marks(enc, "ari")["invading"]["occupant"] == "bo"


def test_a_tie_on_the_body_block_keeps_the_invader_out():
    enc = game("ari blue 1,1", "bo red 3,1")
    do(enc, "move ari 3,1")
    do(enc, "react-invasion bo block roll=9 roll=9 by=gm")
    assert pos(enc, "ari") == (2, 1)


def test_a_body_block_needs_2_ap():
    enc = game("ari blue 1,1 ap=10", "bo red 3,1 ap=1")
    do(enc, "move ari 3,1")
    r = refuse(enc, "react-invasion bo block by=red", "ap-squares/invade")
    assert "2 AP" in r.reason and "1 AP left" in r.reason


def test_only_the_occupant_answers_and_the_log_says_who_chose():
    enc = invaded("cyn blue 8,5")
    refuse(enc, "react-invasion cyn allow by=blue", "ap-squares/invade")
    r = refuse(enc, "react-invasion bo allow by=blue", "ap-squares/invade")
    assert "by=red" in r.reason
    do(enc, "react-invasion bo allow by=red")
    issued = enc.timeline.commands[enc.records[-1].batch]
    assert issued.command.by == "red" and issued.command.choice == "allow"


def test_no_answer_without_an_invasion():
    enc = game("ari blue 1,1", "bo red 3,1")
    refuse(enc, "react-invasion bo allow by=red", "ap-squares/invade")


def test_an_invasion_needs_the_ap_for_the_square():
    enc = game("ari blue 1,1 ap=1", "bo red 3,1")
    r = refuse(enc, "move ari 3,1", "ap-squares/walk")
    assert "1 AP" in r.reason


def test_share_square_off_refuses_entering_an_occupied_square():
    enc = game("ari blue 1,1", "bo red 3,1", settings="share_square = false")
    r = refuse(enc, "move ari 3,1", "ap-squares/invade")
    assert "share_square = false" in r.reason


# --- reflexive-leap -------------------------------------------------------------------------------


def blast(*extra: str, cells: str = "2,2 3,2 4,2", damage: int = 6, ap: int = 10, **kwargs):
    enc = game(f"ari blue 3,2 ap={ap} celerity=1 dexterity=1", *extra, **kwargs)
    do(enc, f"area-effect {cells} damage={damage}")
    return enc


def test_a_dive_to_an_adjacent_square_outside_the_area_avoids_all_damage_for_2_ap():
    enc = blast()
    events = do(enc, "reflexive-leap ari 3,1 roll=17 by=blue")  # 17 + 1 = 18
    roll = of_type(events, CheckRolled)[0]
    assert (roll.target, roll.passed, roll.modifier) == (18, True, 1)
    assert of_type(events, Placed)[0].to[:2] == (3, 1)
    assert of_type(events, Spent)[0].amount == 200
    do(enc, "area-hit")
    assert enc.state.fighter("ari").damage == 0


def test_a_failed_dive_takes_the_full_damage_in_place():
    enc = blast()
    events = do(enc, "reflexive-leap ari 3,1 roll=16")
    assert of_type(events, Damaged)[0].amount == 6 and pos(enc, "ari") == (3, 2)


def test_each_extra_meter_adds_3_to_the_difficulty_and_2_ap():
    enc = blast()
    events = do(enc, "reflexive-leap ari 3,4 roll=20")  # 2 m: difficulty 21, 4 AP
    roll = of_type(events, CheckRolled)[0]
    assert (roll.target, roll.passed) == (21, True)
    assert of_type(events, Spent)[0].amount == 400 and pos(enc, "ari") == (3, 4)


def test_a_leap_needs_at_least_2_ap():
    enc = game("ari blue 1,2 ap=3")
    do(enc, "move ari 3,2")  # 2 AP spent, 1 left
    do(enc, "area-effect 2,2 3,2 4,2 damage=6")
    r = refuse(enc, "reflexive-leap ari 3,1", "ap-squares/reflexive-leap")
    assert "1 AP left" in r.reason and "at least 2 AP" in r.reason


def test_a_longer_leap_than_the_ap_allow_is_refused():
    enc = game("ari blue 1,2 ap=5")
    do(enc, "move ari 3,2")  # 3 AP left
    do(enc, "area-effect 2,2 3,2 4,2 damage=6")
    r = refuse(enc, "reflexive-leap ari 3,4", "ap-squares/reflexive-leap")
    assert "4 AP" in r.reason and "3 AP left" in r.reason


def test_an_unaware_or_prone_character_can_not_leap():
    enc = game("ari blue 3,2")
    do(enc, "area-effect 3,2 damage=6 unaware=ari")
    assert "does not know" in refuse(enc, "reflexive-leap ari 3,1", "ap-squares/reflexive-leap").reason
    enc = game("ari blue 3,2")
    do(enc, "drop-prone ari")
    do(enc, "area-effect 3,2 damage=6")
    assert "prone" in refuse(enc, "reflexive-leap ari 3,1", "ap-squares/reflexive-leap").reason


def test_a_dive_must_land_outside_the_area_on_open_ground():
    enc = blast("bo red 3,1")
    refuse(enc, "reflexive-leap ari 4,2", "ap-squares/reflexive-leap")  # inside the area
    refuse(enc, "reflexive-leap ari 3,1", "ap-squares/reflexive-leap")  # bo is there


def test_with_no_way_out_a_dexterity_roll_of_13_halves_the_damage():
    enc = blast(cells="2,1 3,1 4,1 2,2 3,2 4,2 2,3 3,3 4,3", damage=7, ap=3)  # a 2 m leap costs 4 AP
    events = do(enc, "reflexive-leap ari roll=12")  # 12 + 1 = 13
    roll = of_type(events, CheckRolled)[0]
    assert (roll.target, roll.passed) == (13, True)
    assert of_type(events, Damaged)[0].amount == 3  # half of 7, rounded down
    assert of_type(events, Spent)[0].amount == 200


def test_halving_rounds_up_when_the_table_says_so_and_a_failure_takes_it_all():
    enc = blast(cells="2,1 3,1 4,1 2,2 3,2 4,2 2,3 3,3 4,3", damage=7, ap=3, settings='halve_rounding = "up"')
    assert of_type(do(enc, "reflexive-leap ari roll=12"), Damaged)[0].amount == 4
    enc = blast(cells="2,1 3,1 4,1 2,2 3,2 4,2 2,3 3,3 4,3", damage=7, ap=3)
    assert of_type(do(enc, "reflexive-leap ari roll=11"), Damaged)[0].amount == 7


def test_the_dexterity_roll_is_only_for_those_with_no_way_out():
    enc = blast()
    r = refuse(enc, "reflexive-leap ari", "ap-squares/reflexive-leap")
    assert "could dive to" in r.reason


def test_the_area_waits_for_reactions_and_area_hit_deals_the_rest():
    enc = blast("bo red 4,2")
    refuse(enc, "move ari 3,1", "ap-squares/reflexive-leap")
    r = refuse(enc, "area-hit by=blue", "ap-squares/reflexive-leap")
    assert r.reason == "only the GM may land an area effect (by=gm); blue asked"
    do(enc, "reflexive-leap ari 3,1 roll=18")
    events = do(enc, "area-hit")
    assert [(d.fighter, d.amount) for d in of_type(events, Damaged)] == [("bo", 6)]
    assert "area-effect" not in enc.state.marks
    refuse(enc, "reflexive-leap bo 5,1", "ap-squares/reflexive-leap")


# --- rotate-about ---------------------------------------------------------------------------------


def test_rotating_clockwise_about_an_adjacent_pivot_circles_it_and_costs_a_square_each():
    enc = game("ari blue 5,3 ap=10")
    m = moved(do(enc, "rotate-about ari 4,3 cw 4"))
    assert [s.to[:2] for s in m.steps] == [(4, 4), (3, 3), (4, 2), (5, 3)]
    assert [s.cost for s in m.steps] == [100] * 4
    assert set(m.rules) == {"ap-squares/walk", "ap-squares/rotate-about"} and "1 m" in m.note


def test_rotating_counter_clockwise_goes_the_other_way():
    enc = game("ari blue 5,3")
    m = moved(do(enc, "rotate-about ari 4,3 ccw 2"))
    assert [s.to[:2] for s in m.steps] == [(4, 2), (3, 3)]


def test_a_diagonal_start_follows_the_ring_of_eight():
    enc = game("ari blue 5,4")
    m = moved(do(enc, "rotate-about ari 4,3 cw 8"))
    assert [s.to[:2] for s in m.steps] == [(4, 4), (3, 4), (3, 3), (3, 2), (4, 2), (5, 2), (5, 3), (5, 4)]


def test_the_rotate_distance_setting_measures_the_circle():
    enc = game("ari blue 5,3", settings='rotate_distance = "every-1"')
    m = moved(do(enc, "rotate-about ari 4,3 cw 8"))  # every-1: the eight squares round the pivot
    assert [s.to[:2] for s in m.steps] == [(5, 4), (4, 4), (3, 4), (3, 3), (3, 2), (4, 2), (5, 2), (5, 3)]


def test_rotating_prone_costs_crawling_ap():
    enc = game("ari blue 5,3")
    do(enc, "drop-prone ari")
    assert [s.cost for s in moved(do(enc, "rotate-about ari 4,3 cw 2")).steps] == [200, 200]


def test_rotating_is_refused_on_the_pivot_into_walls_and_beyond_the_ap():
    enc = game("ari blue 4,3 ap=3")
    refuse(enc, "rotate-about ari 4,3 cw 2", "ap-squares/rotate-about")
    enc = game("ari blue 1,3")
    r = refuse(enc, "rotate-about ari 4,3 cw 3", "ap-squares/walk")  # radius 3: 1,2 2,1 then the wall at 3,0
    assert "3,0 is wall" in r.reason
    enc = game("ari blue 5,3 ap=3")
    r = refuse(enc, "rotate-about ari 4,3 cw 4", "ap-squares/walk")
    assert "4 AP" in r.reason and "3 AP" in r.reason
    refuse(enc, "rotate-about ari 4,3 cw 1000000", "ap-squares/walk")  # refused before any path is drawn


def test_rotating_into_an_occupied_square_is_an_invasion():
    enc = game("ari blue 5,3", "bo red 3,3")
    do(enc, "rotate-about ari 4,3 cw 4")
    assert pos(enc, "ari") == (4, 4) and marks(enc, "ari")["invading"]["cell"] == [3, 3]


def test_a_square_the_gm_closed_is_never_invaded():
    enc = game("ari blue 1,1", "bo red 3,1")
    do(enc, "forbid 3,1 why=collapsed")
    r = refuse(enc, "move ari 5,1", "tabletrail/gm-ruling")
    assert "3,1" in r.reason and not marks(enc, "ari")


# --- found in review -------------------------------------------------------------------------------


def test_a_cheaper_leap_setting_never_lowers_the_2_ap_a_leap_needs_remaining():
    enc = game("ari blue 1,3 ap=10", settings="leap_ap = 1")
    do(enc, "move ari 8,3 8,5")  # 9 squares: 1 AP left
    do(enc, "area-effect 8,5 damage=6")
    r = refuse(enc, "reflexive-leap ari 7,5 roll=18", "ap-squares/reflexive-leap")
    assert "1 AP left" in r.reason and "at least 2 AP" in r.reason
    r = refuse(enc, "reflexive-leap ari roll=13", "ap-squares/reflexive-leap")
    assert "at least 2 AP" in r.reason


def test_a_way_out_is_a_square_the_dive_may_land_on():
    """With the only square outside the area weightless, there is no way out: the Dexterity roll is left."""
    area = "2,1 4,1 2,2 3,2 4,2 2,3 3,3 4,3"
    enc = game("ari blue 3,2 ap=3 dexterity=1", "bo red 8,5")  # 3 AP: no 2 m leap (4 AP)
    do(enc, "gravity-off 3,1 3,1")
    do(enc, f"area-effect {area} damage=6")
    refuse(enc, "reflexive-leap ari 3,1 roll=18", "ap-squares/reflexive-leap")
    events = do(enc, "reflexive-leap ari roll=12")  # 12 + 1 = 13: half of 6
    assert of_type(events, Damaged)[0].amount == 3


def test_a_dive_never_lands_on_a_square_the_gm_closed():
    enc = game("ari blue 3,2 ap=3 dexterity=1", "bo red 8,5")  # 3 AP: no 2 m leap (4 AP)
    do(enc, "forbid 3,1 why=collapsed")
    do(enc, "area-effect 2,1 4,1 2,2 3,2 4,2 2,3 3,3 4,3 damage=6")
    r = refuse(enc, "reflexive-leap ari 3,1 roll=18", "ap-squares/reflexive-leap")
    assert "3,1" in r.reason and "collapsed" in r.reason
    assert of_type(do(enc, "reflexive-leap ari roll=12"), Damaged)[0].amount == 3


def test_entering_after_the_wait_costs_what_the_wait_announced_under_alternating_diagonals():
    """walk, invade: the second diagonal of a move costs 2 AP under 1-2-1, also after a wait."""
    enc = game("ari blue 1,1 ap=10", "bo red 3,3", settings='diagonal = "alternating"')
    wait = of_type(do(enc, "move ari 3,3"), Marked)[0]
    assert "entering will cost 2 AP" in wait.note
    assert moved(do(enc, "react-invasion bo allow by=red")).steps[0].cost == 200
    assert ap_left(enc, "ari") == 10 - 1 - 2
    enc = game("ari blue 1,1 ap=10", "bo red 3,3", settings='diagonal = "alternating"')
    do(enc, "move ari 3,3")
    events = do(enc, "react-invasion bo block by=gm roll=10 roll=1")
    assert [s.amount for s in of_type(events, Spent) if s.fighter == "ari"] == [200]
