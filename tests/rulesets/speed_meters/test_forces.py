"""speed-meters forced movement, random movement, grappling and size, from document 004's words."""

from __future__ import annotations

import pytest
from support import do, encounter, of_type, refuse
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.units import CU
from tabletrail.events.commands.speed_meters import RandomMove, Shove
from tabletrail.events.errors import InputError
from tabletrail.events.types import CheckRolled, Linked, Marked, Moved, Placed, Spent, StateChanged, Unlinked
from tabletrail.service.syntax import parse

from tests.rulesets.speed_meters.test_scenes import fighter, scene

OPEN = ["#########", "#.......#", "#.......#", "#.......#", "#########"]


def where(enc, fid: str) -> tuple[int, int]:
    return enc.state.fighter(fid).pos[:2]


def moved(events, fid: str) -> list:
    return [s for m in of_type(events, Moved) if m.fighter == fid for s in m.steps]


def spent(events, fid: str, resource: str = "actions") -> int:
    return sum(e.amount for e in of_type(events, Spent) if e.fighter == fid and e.resource == resource)


# --- forced: push, pull, slide ----------------------------------------------------------------


def pair(rows: list[str] = OPEN, target_at=(4, 2), settings: str = "") -> object:
    return encounter(
        scene(rows, fighter("p", at=(2, 2)), fighter("t", "red", at=target_at), settings=settings)
    )


def test_a_push_moves_the_target_away_from_the_pusher():
    enc = pair()
    events = do(enc, "force t push 6,2 source=p")
    assert where(enc, "t") == (6, 2)
    assert of_type(events, Moved)[0].rules == ("speed-meters/forced",)


def test_a_push_may_never_bring_the_target_closer_on_the_way():
    enc = pair()
    r = refuse(enc, "force t push 5,2 4,3 source=p", "speed-meters/forced")
    assert "closer to p: 4,3 is 2.24 m from it, after 3 m" in r.reason


def test_a_push_must_end_farther_and_a_pull_closer():
    enc = encounter(scene(OPEN, fighter("p", at=(1, 1)), fighter("t", "red", at=(3, 2))))
    r = refuse(enc, "force t push 2,3 source=p", "speed-meters/forced")  # the same 2.24 m away
    assert "must end farther from p" in r.reason and "2.24 m is not more than 2.24 m" in r.reason
    r = refuse(enc, "force t pull 2,3 source=p", "speed-meters/forced")
    assert "must end closer to p" in r.reason


def test_a_pull_moves_the_target_closer_and_never_farther():
    enc = pair()
    r = refuse(enc, "force t pull 5,2 source=p", "speed-meters/forced")
    assert "farther from p: 5,2 is 3 m from it, after 2 m" in r.reason
    do(enc, "force t pull 3,2 source=p")
    assert where(enc, "t") == (3, 2)


def test_a_slide_goes_any_way_and_a_push_may_come_from_a_point():
    enc = pair()
    do(enc, "force t slide 3,2 3,3")  # closer to p, then sideways: a slide may
    assert where(enc, "t") == (3, 3)
    do(enc, "force t push 4,3 origin=2,3")
    assert where(enc, "t") == (4, 3)


def test_forced_movement_costs_the_target_nothing_of_its_own_and_is_counted_in_meters():
    enc = pair()
    events = do(enc, "force t push 6,3 source=p")
    assert [s.cost for s in moved(events, "t")] == [CU, CU]
    assert not of_type(events, Spent) and enc.state.fighter("t").spent == {"forced": 2 * CU}


def test_a_forced_path_into_a_wall_or_a_fighter_is_refused_and_a_push_needs_a_source():
    enc = pair()
    r = refuse(enc, "force t slide 4,4", "speed-meters/forced")
    assert "4,4 is wall" in r.reason
    r = refuse(enc, "force t slide 3,2 2,2", "speed-meters/forced")
    assert "2,2 is occupied by p" in r.reason
    refuse(enc, "force t push 6,2", "speed-meters/forced")
    refuse(enc, "force t shove 6,2", "speed-meters/forced")


HAZARD = ["#########", "#....H..#", "#.......#", "#########"]


def test_a_target_that_saves_stops_just_short_of_a_known_hazard_prone():
    enc = encounter(scene(HAZARD, fighter("p", at=(1, 1)), fighter("t", "red", at=(3, 1))))
    events = do(enc, "force t push 7,1 source=p roll=4")  # the save: 4 against 4
    save = of_type(events, CheckRolled)[0]
    assert (save.check, save.target, save.passed) == ("save", 4, True)
    assert where(enc, "t") == (4, 1) and enc.state.fighter("t").states["posture"] == "prone"
    prone = [e for e in of_type(events, StateChanged) if e.machine == "posture"][0]
    assert prone.rules == ("speed-meters/forced",) and "just short of the hazard at 5,1" in prone.note


def test_a_failed_save_or_an_unknown_hazard_moves_the_target_on():
    enc = encounter(scene(HAZARD, fighter("p", at=(1, 1)), fighter("t", "red", at=(3, 1))))
    do(enc, "force t push 7,1 source=p roll=3")
    assert where(enc, "t") == (7, 1) and "posture" not in enc.state.fighter("t").states
    enc = encounter(scene(HAZARD, fighter("p", at=(1, 1)), fighter("t", "red", at=(3, 1))))
    events = do(enc, "force t push 7,1 source=p aware=no")
    assert not of_type(events, CheckRolled) and where(enc, "t") == (7, 1)


def test_a_hovering_target_ignores_the_hazard():
    enc = encounter(scene(HAZARD, fighter("t", "red", at=(3, 1), hover=3), fighter("p", at=(1, 1))))
    do(enc, "hover t 4,1")
    events = do(enc, "force t slide 6,1")
    assert not of_type(events, CheckRolled) and where(enc, "t") == (6, 1)


LEDGE = ["#######", "#::...#", "#######"]  # a 2.5 m platform


def test_a_push_off_an_edge_is_a_drop_to_save_against_then_a_fall():
    enc = encounter(scene(LEDGE, fighter("p", at=(1, 1)), fighter("t", "red", at=(2, 1))))
    events = do(enc, "force t push 3,1 source=p roll=2")  # the save fails
    fall = [e for e in of_type(events, Placed) if e.how == "fall"]
    assert fall[0].to == (3, 1, 0) and enc.state.fighter("t").states["posture"] == "prone"
    enc = encounter(
        scene(
            LEDGE, fighter("p", at=(1, 1)), fighter("t", "red", at=(2, 1)), settings="edge_is_hazard = false"
        )
    )
    events = do(enc, "force t push 3,1 source=p")
    assert not of_type(events, CheckRolled) and enc.state.fighter("t").pos == (3, 1, 0)


# --- random: number the 8 neighbours, roll 1d8 --------------------------------------------------


def test_random_movement_follows_the_numbered_neighbour_rolled():
    enc = pair(target_at=(4, 2))
    events = do(enc, "random t roll=3")  # clockwise from north: 3 is east
    roll = of_type(events, CheckRolled)[0]
    assert roll.check == "random direction" and "1 N, 2 NE, 3 E" in roll.note
    assert where(enc, "t") == (5, 2)
    enc = pair(target_at=(4, 2), settings='random_numbering = "reading"')
    do(enc, "random t roll=3")  # reading order: 3 is north-east
    assert where(enc, "t") == (5, 1)


def test_random_movement_stops_at_what_blocks_it_and_refuses_a_roll_off_the_die():
    enc = pair(target_at=(4, 2))
    events = do(enc, "random t meters=3 roll=1")  # north: one space, then the wall
    assert where(enc, "t") == (4, 1) and "4,0 is wall" in of_type(events, Moved)[0].stopped
    r = refuse(enc, "random t roll=9", "speed-meters/random")
    assert "1 to 8" in r.reason


def test_random_movement_rolls_one_d8_and_moves_the_meters_asked():
    enc = pair(target_at=(4, 2))
    events = do(enc, "random t meters=2")  # seeded
    roll = of_type(events, CheckRolled)[0]
    assert roll.source == "seeded" and roll.formula == "1d8" and len(roll.dice) == 1
    assert sum(s.cost for s in moved(events, "t")) <= 2 * CU


# --- shove --------------------------------------------------------------------------------


def brawl(
    a_brawn: int = 2, t_brawn: int = 0, t_at=(3, 2), a_size: str = "medium", t_size: str = "medium", **a_stats
):
    return encounter(
        scene(
            OPEN,
            fighter("a", at=(2, 2), brawn=a_brawn, size=a_size, **a_stats),
            fighter("t", "red", at=t_at, brawn=t_brawn, size=t_size),
        )
    )


def test_a_shove_moves_the_target_a_meter_per_two_points_and_the_shover_stays():
    enc = brawl()
    events = do(enc, "shove a t roll=6 roll=1")  # 8 against 1: margin 7, 3 m
    rolls = of_type(events, CheckRolled)
    assert [(r.fighter, r.modifier) for r in rolls] == [("a", 2), ("t", 0)]
    assert where(enc, "t") == (6, 2) and where(enc, "a") == (2, 2)


def test_a_shove_with_too_small_a_margin_moves_nobody_and_one_out_of_reach_is_refused():
    enc = brawl()
    events = do(enc, "shove a t roll=1 roll=2")  # 3 against 2: margin 1, 0 m
    assert not of_type(events, Moved) and "margin 1, so 0 m" in of_type(events, Spent)[0].note
    enc = brawl(t_at=(4, 2))
    r = refuse(enc, "shove a t roll=6 roll=1", "speed-meters/shove")
    assert "out of reach: 2 m across" in r.reason


def test_a_shove_is_one_action():
    enc = brawl()
    events = do(enc, "shove a t roll=6 roll=1")
    assert spent(events, "a") == 1 and enc.state.fighter("a").spent["actions"] == 1


# --- push-pull ---------------------------------------------------------------------------------


def test_a_push_moves_the_target_a_meter_a_point_and_the_pusher_follows():
    enc = brawl(a_brawn=3)
    events = do(enc, "push a t roll=1 roll=2")  # 4 against 2: margin 2
    assert [s.to[:2] for s in moved(events, "t")] == [(4, 2), (5, 2)]
    assert [s.to[:2] for s in moved(events, "a")] == [(3, 2), (4, 2)]


def test_a_pull_steps_back_and_the_target_follows_into_each_space():
    enc = brawl(a_brawn=3, t_at=(3, 2))
    events = do(enc, "pull a t roll=3 roll=1")  # 6 against 1: margin 5, at most Brawn 3
    assert where(enc, "a") == (1, 2)  # the wall stops it after 1 m
    assert [s.to[:2] for s in moved(events, "t")] == [(2, 2)]


def test_push_and_pull_go_at_most_brawn_spaces():
    enc = brawl(a_brawn=2)
    events = do(enc, "push a t roll=6 roll=1")  # margin 7, capped at Brawn 2
    assert len(moved(events, "t")) == 2 and "at most Brawn 2" in of_type(events, Spent)[0].note
    assert spent(events, "a") == 1


# --- grab --------------------------------------------------------------------------------------


def test_a_grab_holds_the_target_with_the_margin_as_its_escape_difficulty():
    enc = brawl(a_brawn=2, t_brawn=1)
    events = do(enc, "grab a t roll=4 roll=2")  # 6 against 3: margin 3
    assert of_type(events, Linked)[0].kind == "grab"
    assert (
        enc.state.fighter("a").states["grab"] == "grabbing"
        and enc.state.fighter("t").states["grab"] == "grabbed"
    )
    assert [e.value for e in of_type(events, Marked) if e.key == "escape"] == [3]


def test_grabber_and_grabbed_are_both_immobilized():
    enc = brawl(a_brawn=2, t_brawn=1)
    do(enc, "grab a t roll=4 roll=2")
    assert "Immobilized" in refuse(enc, "move a 2,1", "speed-meters/grab").reason
    refuse(enc, "force t slide 4,2", "speed-meters/grab")
    do(enc, "end-turn")
    refuse(enc, "move t 3,3", "speed-meters/grab")


def test_a_grab_costs_an_action_and_action_dice_equal_to_the_targets_brawn_each_turn():
    enc = brawl(a_brawn=2, t_brawn=1)
    events = do(enc, "grab a t roll=4 roll=2")
    assert spent(events, "a") == 2  # the grab, then 1 Action Die for t's Brawn 1
    do(enc, "end-turn")
    events = do(enc, "end-turn")  # a's next turn
    assert spent(events, "a") == 1 and enc.state.links == (("grab", "a", "t"),)


def test_without_the_action_dice_the_hold_ends_at_once():
    enc = encounter(
        scene(OPEN, fighter("a", at=(2, 2), brawn=4, actions=2), fighter("t", "red", at=(3, 2), brawn=2))
    )
    events = do(enc, "grab a t roll=6 roll=1")  # wins, but 1 action left for Brawn 2
    assert of_type(events, Unlinked) and enc.state.links == ()
    assert "not the 2 the grab needs" in of_type(events, Unlinked)[0].note


def test_a_failed_grab_holds_nothing():
    enc = brawl(a_brawn=0, t_brawn=0)
    events = do(enc, "grab a t roll=2 roll=2")  # a tie: the attacker must win out
    assert not of_type(events, Linked) and spent(events, "a") == 1


def test_escaping_rolls_brawn_against_the_margin_and_release_lets_go():
    enc = brawl(a_brawn=2, t_brawn=1)
    do(enc, "grab a t roll=4 roll=2")
    do(enc, "end-turn")
    events = do(enc, "escape t roll=1")  # 1 + 1 = 2 against 3
    assert of_type(events, CheckRolled)[0].passed is False and enc.state.links
    events = do(enc, "escape t roll=2")
    assert of_type(events, Unlinked) and enc.state.fighter("t").states["grab"] == "free"
    do(enc, "end-turn")
    do(enc, "grab a t roll=6 roll=1")
    do(enc, "release a")
    assert enc.state.links == () and enc.state.fighter("a").states["grab"] == "free"


# --- size ------------------------------------------------------------------------------------


def test_no_shove_push_pull_or_grab_against_a_larger_size_category():
    for verb in ("shove", "push", "pull", "grab"):
        enc = brawl(a_size="small", t_size="medium")
        r = refuse(enc, f"{verb} a t roll=6 roll=1", "speed-meters/size")
        assert f"a is small and t is medium: no creature can {verb} one of a larger size category" == r.reason


def test_a_creature_may_grapple_its_own_size_or_smaller():
    enc = brawl(a_size="medium", t_size="small")
    do(enc, "grab a t roll=6 roll=1")
    enc = brawl(a_size="large", t_size="large")
    do(enc, "shove a t roll=6 roll=1")


def test_a_refused_larger_target_costs_nothing():
    enc = brawl(a_size="tiny", t_size="huge")
    refuse(enc, "push a t roll=6 roll=1", "speed-meters/size")
    assert enc.state.fighter("a").spent == {} and enc.state.dice == 0


def test_state_changes_of_a_grab_cite_the_grab_rule():
    enc = brawl()
    events = do(enc, "grab a t roll=6 roll=1")
    assert {e.rules for e in of_type(events, StateChanged)} == {("speed-meters/grab",)}


def test_a_grabber_short_of_action_dice_at_its_turn_start_loses_the_hold():
    enc = brawl(a_brawn=2, t_brawn=2)
    do(enc, "grab a t roll=6 roll=1")  # 1 action for the grab, 2 Action Dice for t's Brawn
    do(enc, 'setting actions_per_turn 1 why="a exhausted"')
    do(enc, "end-turn")
    events = do(enc, "end-turn")  # a's turn starts with 1 action, not the 2 the hold needs
    assert of_type(events, Unlinked) and enc.state.links == ()
    assert "has 1 Action Dice, not the 2 the grab needs" in of_type(events, Unlinked)[0].note


def test_push_and_pull_need_the_target_in_reach_and_the_mover_on_its_feet():
    enc = brawl(t_at=(4, 2))
    r = refuse(enc, "push a t roll=6 roll=1", "speed-meters/push-pull")
    assert "out of reach: 2 m across" in r.reason
    enc = brawl(fly=4)
    do(enc, "fly a 2,2,1")
    r = refuse(enc, "pull a t roll=6 roll=1", "speed-meters/push-pull")
    assert "a is flying: a push or pull follows on foot" in r.reason


def test_a_push_that_wins_nothing_moves_nobody_but_spends_the_action():
    enc = brawl(a_brawn=0, t_brawn=2)
    events = do(enc, "push a t roll=1 roll=6")
    assert not of_type(events, Moved) and spent(events, "a") == 1
    assert "margin -7, so 0 m" in of_type(events, Spent)[0].note


# --- found in review -----------------------------------------------------------------------------


def test_a_fighter_is_not_the_source_of_its_own_push_or_pull():
    enc = pair()
    r = refuse(enc, "force t push 6,2 source=t", "speed-meters/forced")
    assert "t can't be the source" in r.reason
    refuse(enc, "force t pull 3,2 source=t", "speed-meters/forced")


def test_a_mistyped_distance_or_roll_goes_no_farther_than_the_map():
    """random, shove: a huge distance (a typo) moves the target to the wall, without listing every meter."""
    from tabletrail.core.rulesets.speed_meters import ray

    grid = pair().state.grid
    # cut at the first space off the map (9,2), where a forced move stops anyway
    assert ray(grid, (4, 2), (1, 0), 10**12) == [(5, 2), (6, 2), (7, 2), (8, 2), (9, 2)]
    assert ray(grid, (4, 2), (-1, 1), 1) == [(3, 3)]
    enc = pair()
    do(enc, "random t meters=1000 roll=3")  # east
    assert where(enc, "t") == (7, 2)
    # Issue 13: past the table's limits, a typo is refused before any rule runs, and appends nothing.
    before = list(enc.store.lines)
    for text in (f"random t meters={10**12} roll=3", f"shove p t roll={10**12} roll=1"):
        with pytest.raises(InputError, match="out of range"):
            parse(text)
    built = (
        RandomMove(fighter="t", meters=10**12, rolls=(3,)),
        Shove(fighter="p", target="t", rolls=(10**12, 1)),
    )
    for command in built:  # a command built in code, not parsed, meets the same check in decide
        refused = enc.execute(command)
        assert isinstance(refused, Rejection) and "out of range" in refused.reason
    assert enc.store.lines == before


def test_outside_forces_are_the_gms_to_enter():
    """A player side may not push fighters around the map with the GM's effects."""
    enc = pair()
    r = refuse(enc, "force t push 6,2 source=p by=red", "speed-meters/forced")
    assert "only the GM" in r.reason
    r = refuse(enc, "random t by=red", "speed-meters/random")
    assert "only the GM" in r.reason
    do(enc, "force t push 6,2 source=p")  # by=gm, the default
