"""ap-squares in zero gravity, from the words of document 002: drift, push-off, crawl, grab, penalties."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import do, of_type, refuse
from support_ap_squares import ROOM, RULES, ap_left, arena, game, gravity_of, marks, pos
from tabletrail.cli import main
from tabletrail.core.rulesets.ap_squares.zero_g import push_off_directions
from tabletrail.events.errors import InputError
from tabletrail.events.types import CheckRolled, Marked, Moved, Refreshed, Spent, StateChanged, TurnEnded
from tabletrail.service.syntax import parse

# ari (blue) stands against the west wall; bo (red) in the open, touching nothing stable.
PAIR = ("ari blue 1,3 ap=10 dexterity=2", "bo red 5,3 ap=10 dexterity=2")


def weightless(*extra: str, grab: str = "ari", rolls: str = "3", **kwargs):
    """Gravity fails over the whole room; ari grabs the wall, bo drifts (1d8 = 3: east)."""
    enc = game(*PAIR, *extra, **kwargs)
    do(enc, f"gravity-off 1,1 8,5 grab={grab} roll={rolls}" if grab else f"gravity-off 1,1 8,5 roll={rolls}")
    return enc


def state_changes(events) -> list[tuple[str, str, str]]:
    return [(e.fighter, e.trigger, e.dest) for e in of_type(events, StateChanged) if e.machine == "gravity"]


# --- zero-g-grab: "4 AP grabs an adjacent stable object at once; otherwise … drifting" ----------------


def test_a_character_next_to_a_wall_grabs_it_for_4_ap_as_gravity_fails():
    enc = game(*PAIR)
    events = do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")
    assert ("ari", "grab", "crawling") in state_changes(events)
    grab = [s for s in of_type(events, Spent) if s.fighter == "ari"][0]
    assert grab.amount == 400 and grab.rules == ("ap-squares/zero-g-grab",)
    assert ap_left(enc, "ari") == 6


def test_a_character_with_nothing_stable_adjacent_drifts_instead_and_pays_nothing():
    enc = game(*PAIR)
    events = do(enc, "gravity-off 1,1 8,5 grab=ari,bo roll=3")
    drift = [e for e in of_type(events, StateChanged) if e.fighter == "bo"][0]
    assert drift.dest == "drifting" and "no stable solid object touches 5,3" in drift.note
    assert ap_left(enc, "bo") == 10


def test_too_few_ap_to_grab_means_drifting():
    enc = game("ari blue 1,3 ap=3", "bo red 5,3")
    events = do(enc, "gravity-off 1,1 8,5 grab=ari roll=5 roll=3")
    drift = [e for e in of_type(events, StateChanged) if e.fighter == "ari"][0]
    assert drift.dest == "drifting" and "3 AP left" in drift.note and "4 AP" in drift.note
    assert ap_left(enc, "ari") == 3


def test_only_characters_losing_gravity_can_grab_as_it_fails():
    enc = game(*PAIR)
    r = refuse(enc, "gravity-off 4,1 8,5 grab=ari roll=3", "ap-squares/zero-g-grab")
    assert "ari is not a character losing gravity" in r.reason


def test_a_drifter_reaching_a_wall_may_grab_it_later_for_4_ap():
    enc = game("ari blue 1,3", "bo red 7,3")
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")  # bo drifts east
    do(enc, "end-turn")  # bo's turn starts: 7,3 -> 8,3, next to the east wall
    assert pos(enc, "bo") == (8, 3)
    events = do(enc, "grab-hold bo")
    assert of_type(events, Spent)[0].amount == 400 and gravity_of(enc, "bo") == "crawling"
    assert "trajectory" not in marks(enc, "bo")


def test_grabbing_needs_something_stable_adjacent():
    enc = weightless()
    do(enc, "end-turn")
    r = refuse(enc, "grab-hold bo", "ap-squares/zero-g-grab")
    assert "no stable solid object touches 6,3" in r.reason


# --- zero-g-drift -----------------------------------------------------------------------------------


def test_the_trajectory_is_a_1d8_check_and_the_drift_moves_1_square_at_the_start_of_each_turn():
    enc = game(*PAIR)
    events = do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")
    roll = of_type(events, CheckRolled)[0]
    assert (roll.fighter, roll.number, roll.check) == ("bo", 3, "drift trajectory")
    assert marks(enc, "bo")["trajectory"] == {"dir": "e", "speed": 1}
    assert pos(enc, "bo") == (5, 3)  # not yet: the drift comes as bo's turn starts
    events = do(enc, "end-turn")
    drift = of_type(events, Moved)[0]
    assert drift.fighter == "bo" and [s.to[:2] for s in drift.steps] == [(6, 3)]
    assert drift.resource == "momentum" and drift.rules == ("ap-squares/zero-g-drift",)
    assert ap_left(enc, "bo") == 10  # drifting costs no AP


def test_seeded_trajectories_are_drawn_on_1d8():
    enc = game(*PAIR)
    events = do(enc, "gravity-off 1,1 8,5")
    rolls = of_type(events, CheckRolled)
    assert len(rolls) == 2 and all(r.formula == "1d8" and 1 <= r.number <= 8 for r in rolls)


def test_a_table_roll_off_the_die_is_refused():
    enc = game(*PAIR)
    r = refuse(enc, "gravity-off 1,1 8,5 roll=9 roll=1", "ap-squares/zero-g-drift")
    assert "1 to 8" in r.reason


def test_four_directions_when_the_table_says_so():
    enc = game(*PAIR, settings="drift_directions = 4")
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=2")
    assert marks(enc, "bo")["trajectory"]["dir"] == "e"


def test_a_drifter_can_not_walk_or_crawl():
    enc = weightless()
    do(enc, "end-turn")
    r = refuse(enc, "move bo 6,4", "ap-squares/zero-g-drift")
    assert "drifts e at 1 m per cycle" in r.reason


def test_6_ap_turn_a_drift_but_never_speed_it_up():
    enc = weightless()
    do(enc, "end-turn")
    events = do(enc, "turn-drift bo s")
    assert of_type(events, Spent)[0].amount == 600
    assert marks(enc, "bo")["trajectory"] == {"dir": "s", "speed": 1}
    refuse(enc, "turn-drift bo s", "ap-squares/zero-g-drift")  # already south
    r = refuse(enc, "turn-drift bo n", "ap-squares/zero-g-drift")  # 4 AP left
    assert "6 AP" in r.reason and "4 AP left" in r.reason


def test_turning_a_drift_is_for_drifters():
    enc = weightless()
    refuse(enc, "turn-drift ari e", "ap-squares/zero-g-drift")  # ari is crawling


def test_a_drift_stops_against_a_wall():
    enc = game("ari blue 1,3", "bo red 8,3")
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")
    events = do(enc, "end-turn")
    assert not of_type(events, Moved) and pos(enc, "bo") == (8, 3)
    stays = [e for e in of_type(events, Marked) if e.fighter == "bo"][0]
    assert "the wall at 9,3 blocks its drift e" in stays.note and stays.value == {"dir": "e", "speed": 1}


def test_drifting_out_of_the_weightless_region_brings_gravity_back():
    enc = game(*PAIR)
    do(enc, "gravity-off 5,1 8,5 roll=7")  # bo drifts west, towards 4,3 where gravity holds
    events = do(enc, "end-turn")
    assert pos(enc, "bo") == (4, 3) and gravity_of(enc, "bo") == "grounded"
    assert of_type(events, Moved)[0].stopped.startswith("back under gravity")
    assert "trajectory" not in marks(enc, "bo")


def test_walking_into_a_weightless_square_is_refused():
    enc = game(*PAIR)
    do(enc, "gravity-off 5,1 8,5 roll=7")
    r = refuse(enc, "move ari 6,3", "ap-squares/zero-g-crawl")
    assert "5,3 is weightless" in r.reason


def test_loose_objects_drift_on_their_turn_which_ends_by_itself():
    enc = game(*PAIR, "crate gm 4,1 tags=object")
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3 roll=5")  # bo east, the crate south
    do(enc, "end-turn")  # bo
    events = do(enc, "end-turn")  # the crate drifts, its turn ends, ari's turn starts
    assert pos(enc, "crate") == (4, 2)
    assert [e.fighter for e in of_type(events, TurnEnded)] == ["bo", "crate"]
    assert enc.state.turn.active == "ari"


def test_loose_objects_do_not_act():
    enc = game(*PAIR, "crate gm 4,1 tags=object", settings="strict_turns = false")
    r = refuse(enc, "move crate 4,2", "ap-squares/zero-g-drift")
    assert "loose object" in r.reason


def test_gravity_coming_back_grounds_everyone_in_the_region():
    enc = weightless()
    events = do(enc, "gravity-on 1,1 8,5")
    assert gravity_of(enc, "ari") == gravity_of(enc, "bo") == "grounded"
    assert "zero-g" not in enc.state.marks and "trajectory" not in marks(enc, "bo")
    assert all("ap-squares/zero-g-penalties" in e.rules for e in of_type(events, StateChanged))


def test_gravity_commands_are_the_gms_and_must_change_something():
    enc = game(*PAIR)
    r = refuse(enc, "gravity-off 1,1 8,5 by=blue", "ap-squares/zero-g-drift")
    assert r.reason == "only the GM may turn gravity off (by=gm); blue asked"
    refuse(enc, "gravity-on 1,1 8,5", "ap-squares/zero-g-drift")


def test_a_drifter_lets_go_only_next_to_something_stable():
    enc = weightless()
    do(enc, "end-turn")
    r = refuse(enc, "let-go bo s", "ap-squares/zero-g-drift")
    assert "turn-drift (6 AP)" in r.reason


def test_a_reflexive_dive_lands_only_where_gravity_holds():
    enc = game("ari blue 3,2", "bo red 8,5")
    do(enc, "gravity-off 3,1 3,1")  # only 3,1 loses gravity: nobody stands there
    do(enc, "area-effect 2,2 3,2 4,2 damage=6")
    r = refuse(enc, "reflexive-leap ari 3,1", "ap-squares/reflexive-leap")
    assert "3,1 is weightless" in r.reason
    do(enc, "reflexive-leap ari 2,1 roll=18")


# --- push-off ---------------------------------------------------------------------------------------


def test_push_off_costs_6_ap_and_carries_speed_squares_at_each_turn_start():
    enc = weightless(*(), grab="ari")
    events = do(enc, "push-off ari e 3")
    assert of_type(events, Spent)[0].amount == 600 and ap_left(enc, "ari") == 0
    assert ("ari", "push_off", "pushing_off") in state_changes(events)
    assert marks(enc, "ari")["trajectory"] == {"dir": "e", "speed": 3}
    do(enc, "end-turn")  # bo drifts to 6,3
    events = do(enc, "end-turn")  # cycle 2: ari keeps its momentum, 3 squares
    carried = [m for m in of_type(events, Moved) if m.fighter == "ari"][0]
    assert [s.to[:2] for s in carried.steps] == [(2, 3), (3, 3), (4, 3)]
    assert carried.rules == ("ap-squares/push-off",)


def test_push_off_goes_perpendicular_or_diagonal_to_the_surface():
    enc = weightless()
    do(enc, "push-off ari ne 2")
    enc = weightless()
    do(enc, "push-off ari se 2")
    assert push_off_directions(enc.state.grid, (1, 3)) == ["ne", "e", "se"]


def test_a_push_off_parallel_to_the_surface_is_refused():
    enc = weightless()
    r = refuse(enc, "push-off ari n 2", "ap-squares/push-off")
    assert "parallel to the surface" in r.reason and "0,3" in r.reason


def test_a_push_off_into_the_object_is_refused():
    enc = weightless()
    r = refuse(enc, "push-off ari w 2", "ap-squares/push-off")
    assert "into the stable object at 0,3" in r.reason


def test_a_push_off_with_nothing_stable_adjacent_is_refused():
    enc = weightless()
    do(enc, "end-turn")
    r = refuse(enc, "push-off bo e 2", "ap-squares/push-off")
    assert "nothing stable and solid touches 6,3" in r.reason


def test_in_an_inside_corner_only_directions_away_from_both_walls_are_allowed():
    enc = game("ari blue 1,1")
    assert push_off_directions(enc.state.grid, (1, 1)) == ["e", "se", "s"]


def test_push_off_speed_is_at_most_3_plus_the_strength_bonus():
    enc = weightless()
    r = refuse(enc, "push-off ari e 4", "ap-squares/push-off")
    assert "3 + Strength bonus 0 = 3" in r.reason
    enc = game("ari blue 1,3 strength_bonus=1", "bo red 5,3")
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")
    do(enc, "push-off ari e 4")


def test_push_off_is_for_zero_gravity():
    enc = game(*PAIR)
    r = refuse(enc, "push-off ari e 2", "ap-squares/zero-g-drift")
    assert "gravity holds ari" in r.reason


def test_4_ap_break_1_m_of_speed_and_drift_speed_frees_the_direction():
    enc = game("ari blue 1,3 ap=30", "bo red 5,3")
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")
    do(enc, "push-off ari e 3")
    # push-off: the direction holds until back at drift speed: no new push-off, turn, grab or let-go.
    for text in ("turn-drift ari s", "push-off ari ne 2", "grab-hold ari", "let-go ari s"):
        r = refuse(enc, text, "ap-squares/push-off")
        assert r.reason == (
            "ari is carried e at 3 m per cycle by a push-off: its direction can't change until braked to "
            "drift speed 1 m (2 x 4 AP)"
        ), text
    events = do(enc, "brake ari")
    assert of_type(events, Spent)[0].amount == 400 and ("ari", "brake", "pushing_off") in state_changes(
        events
    )
    events = do(enc, "brake ari")
    assert ("ari", "slow_to_drift", "drifting") in state_changes(events)
    assert marks(enc, "ari")["trajectory"] == {"dir": "e", "speed": 1}
    do(enc, "turn-drift ari s")  # back at drift speed: the direction may change
    assert ap_left(enc, "ari") == 30 - 4 - 6 - 4 - 4 - 6


def test_braking_needs_push_off_momentum():
    enc = weightless()
    do(enc, "end-turn")
    r = refuse(enc, "brake bo", "ap-squares/push-off")
    assert "not carried by a push-off" in r.reason


def test_momentum_ends_against_a_wall():
    rows = ["######", "#....#", "######"]
    enc = game("ari blue 1,1 ap=20", "bo red 4,1", rows=rows)
    do(enc, "gravity-off 1,1 4,1 grab=ari,bo")
    do(enc, "push-off ari e 3")
    do(enc, "end-turn")
    events = do(enc, "end-turn")  # ari: 2,1 3,1 then bo at 4,1 stops it
    assert pos(enc, "ari") == (3, 1)
    assert ("ari", "slow_to_drift", "drifting") in state_changes(events)
    assert marks(enc, "ari")["trajectory"]["speed"] == 1


# --- zero-g-crawl ------------------------------------------------------------------------------------


def test_crawling_along_a_wall_costs_2_ap_a_square_in_any_direction():
    enc = weightless()
    m = of_type(do(enc, "move ari 1,1"), Moved)[0]
    assert [s.cost for s in m.steps] == [200, 200] and m.rules == ("ap-squares/zero-g-crawl",)
    m = of_type(do(enc, "move ari 2,1"), Moved)[0]  # along the north wall now
    assert [s.mode for s in m.steps] == ["zero-g crawl"] and ap_left(enc, "ari") == 0


def test_a_zero_g_crawl_keeps_next_to_a_stable_object():
    enc = weightless()
    r = refuse(enc, "move ari 2,3", "ap-squares/zero-g-crawl")
    assert "2,3 touches no stable solid object" in r.reason


def test_a_zero_g_crawl_beyond_the_ap_is_refused():
    enc = weightless()  # 6 AP left after the grab
    r = refuse(enc, "move ari 1,5 3,5", "ap-squares/zero-g-crawl")  # 4 squares
    assert "8 AP" in r.reason and "6 AP" in r.reason


def test_crawling_out_of_the_weightless_region_ends_in_gravity():
    enc = game(*PAIR)
    do(enc, "gravity-off 1,1 1,5 grab=ari")
    events = do(enc, "move ari 2,3 3,3")
    assert pos(enc, "ari") == (2, 3) and gravity_of(enc, "ari") == "grounded"
    assert of_type(events, Moved)[0].stopped.startswith("back under gravity")


def test_no_prone_in_zero_gravity():
    enc = weightless()
    refuse(enc, "drop-prone ari", "ap-squares/zero-g-crawl")


def test_letting_go_next_to_a_wall_drifts_the_chosen_way_for_free():
    enc = weightless()
    events = do(enc, "let-go ari e")
    assert not of_type(events, Spent) and gravity_of(enc, "ari") == "drifting"
    assert marks(enc, "ari")["trajectory"] == {"dir": "e", "speed": 1}


# --- zero-g-penalties --------------------------------------------------------------------------------


def summary(enc, fid: str, against: str | None = None) -> list[tuple[str, object]]:
    return [(m.applies_to, m.value) for m in RULES.modifiers(enc.state, fid, against)]


def test_no_penalties_under_gravity():
    assert summary(game(*PAIR), "ari") == []


def test_crawling_characters_take_minus_1_defense_minus_1_ranged_minus_2_melee():
    enc = weightless()
    assert summary(enc, "ari") == [("defense", -1), ("ranged attack", -1), ("melee attack", -2)]
    assert all(m.rule == "ap-squares/zero-g-penalties" for m in RULES.modifiers(enc.state, "ari"))


def test_drifting_characters_lose_dexterity_to_defense_and_take_minus_2_ranged_minus_3_melee():
    enc = weightless()
    assert summary(enc, "bo") == [
        ("defense", -1),
        ("defense", "no dexterity"),
        ("ranged attack", -2),
        ("melee attack", -3),
    ]
    assert "+2" in RULES.modifiers(enc.state, "bo")[1].why
    assert RULES.defense(enc.state, enc.state.fighter("bo"))[0] == 10 + 2 - 2 - 1


def test_pushing_off_carries_the_drifting_penalties():
    enc = weightless()
    do(enc, "push-off ari e 2")
    assert ("melee attack", -3) in summary(enc, "ari")


def test_against_an_opponent_its_defense_modifiers_are_listed_too():
    enc = weightless()
    assert ("defense of bo", "no dexterity") in summary(enc, "ari", "bo")


def test_penalties_last_until_gravity_returns_and_the_table_may_drop_them():
    enc = weightless()
    do(enc, "gravity-on 1,1 8,5")
    assert summary(enc, "ari") == []
    enc = weightless(settings='zero_g_penalties = "off"')
    assert summary(enc, "bo") == []


def test_a_parry_meets_the_lowered_defense_of_a_crawling_invader():
    enc = game("ari blue 1,3 dexterity=2", "bo red 1,2 parry=0")
    do(enc, "gravity-off 1,1 8,5 grab=ari,bo")
    do(enc, "move ari 1,2")
    events = do(enc, "react-invasion bo parry roll=11 by=red")
    parry = of_type(events, CheckRolled)[0]
    assert parry.target == 10 + 2 - 1 and parry.passed is False
    assert "ap-squares/zero-g-penalties" in parry.rules
    assert pos(enc, "ari") == (1, 2) and of_type(events, Moved)[0].steps[0].cost == 200


def test_the_modifiers_verb_prints_them_with_rule_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    scenario = tmp_path / "s.toml"
    scenario.write_text(arena(*PAIR, rows=ROOM), encoding="utf-8")
    log = str(tmp_path / "fight.jsonl")
    assert main(["new", str(scenario), "--log", log]) == 0
    assert main(["do", log, "gravity-off", "1,1", "8,5", "grab=ari", "roll=3"]) == 0
    capsys.readouterr()
    assert main(["modifiers", log, "bo", "--against", "ari"]) == 0
    out = capsys.readouterr().out
    assert "melee attack: -3 [ap-squares/zero-g-penalties]" in out
    assert "defense of ari: -1" in out


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("push-off ari up 3", "direction"),
        ("turn-drift bo sideways", "direction"),
        ("react-invasion bo dodge", "choice"),
        ("gravity-off 1,1", "opposite"),
    ],
)
def test_malformed_commands_name_the_field_at_fault(text: str, field: str):
    with pytest.raises(InputError, match=field):
        parse(text)


def test_a_new_cycle_cites_the_rule_of_every_budget_it_gives_back():
    """walk: AP per cycle; zero-g-drift: the meters a drift carried are counted afresh too."""
    enc = weightless()
    do(enc, "end-turn")  # bo drifts 1 square: momentum spent
    do(enc, "turn-drift bo s")  # and 6 AP
    events = do(enc, "end-turn")  # cycle 2
    fresh = [e for e in of_type(events, Refreshed) if e.fighter == "bo"][0]
    assert set(fresh.resources) == {"ap", "momentum"}
    assert set(fresh.rules) == {"ap-squares/walk", "ap-squares/zero-g-drift"}
    assert "10 AP again" in fresh.note and "drifted" in fresh.note
