"""initiative-yards, rule by rule, from the words of document 000.

Checks use table rolls (`roll=N`): with the house defaults an Initiative check
passes when 1d20 + Initiative (8 here) reaches 15, so roll=7 passes and roll=1 fails.
"""

from __future__ import annotations

import json
import tomllib

import pytest
from support import do, encounter, grid, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.core.rulesets.initiative_yards import fall_damage
from tabletrail.events.errors import InputError
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.types import CheckRolled, Damaged, Linked, Moved, Placed, Spent, StateChanged, Unlinked
from tabletrail.service.encounter import Encounter

IY = "initiative-yards"
PASS, FAIL = "roll=7", "roll=1"

LEGEND = """
"s" = { terrain = "stairs", ground = 1 }
"S" = { terrain = "stairs", ground = 2 }
"H" = "ladder"
"^" = { terrain = "floor", ground = 3 }
"L" = { terrain = "ledge", height = 2 }
"T" = { terrain = "ledge", height = 3 }
"o" = { terrain = "obstacle", height = 0.5 }
"O" = { terrain = "obstacle", height = 1 }
"_" = { terrain = "gap", ground = -4 }
"/" = "slippery"
"u" = "unstable"
"""

OPEN = [
    "##############",
    "#............#",
    "#............#",
    "#............#",
    "#............#",
    "##############",
]


def fighter(fid: str, side: str, at: tuple[int, int], **stats: object) -> str:
    values = {"initiative": 8, "height": 1.5, **stats}
    tags = values.pop("tags", ())
    lines = [f'id = "{fid}"', f'side = "{side}"', f"at = [{at[0]}, {at[1]}]", f"tags = {list(tags)!r}"]
    lines += [f"{k} = {v}" for k, v in values.items()]
    return "[[fighters]]\n" + "\n".join(lines).replace("'", '"') + "\n"


def arena(
    rows: list[str] | None = None, fighters: str = "", settings: str = "", legend: str = ""
) -> Encounter:
    """An initiative-yards encounter on these rows (legend: more map characters than LEGEND's)."""
    fighters = fighters or fighter("a", "blue", (1, 1)) + fighter("e", "red", (12, 4))
    return encounter(
        f"""
[encounter]
name = "test"
ruleset = "{IY}"
seed = 7
[settings]
{settings}
{grid(rows or OPEN, LEGEND + legend)}
{fighters}
"""
    )


def moved(events) -> Moved:
    return of_type(events, Moved)[0]


def cost(events) -> int:
    return sum(s.cost for m in of_type(events, Moved) for s in m.steps)


def at(enc: Encounter, fid: str) -> tuple[int, int, int]:
    return enc.state.fighter(fid).pos


def posture(enc: Encounter, fid: str) -> str:
    return enc.state.fighter(fid).state("posture", "standing")


def engagement(enc: Encounter, fid: str) -> str:
    return enc.state.fighter(fid).state("engagement", "free")


def next_turn_of(enc: Encounter, fid: str) -> None:
    """End turns until it is `fid`'s turn again (a new move action)."""
    do(enc, "end-turn")
    while enc.state.turn.active != fid:
        do(enc, "end-turn")


# --- move: "moved up to a number of yards equal to their Initiative value" ----------


def test_move_up_to_initiative_yards_is_allowed():
    enc = arena()
    events = do(enc, "move a 9,1")
    assert at(enc, "a")[:2] == (9, 1)
    assert cost(events) == 8 * CU


def test_move_past_initiative_is_refused_with_the_numbers():
    enc = arena()
    r = refuse(enc, "move a 10,1", f"{IY}/move")
    assert "9 yd" in r.reason and "8 yd" in r.reason


def test_diagonal_is_euclidean_to_the_hundredth_and_a_setting():
    enc = arena()
    assert [s.cost for s in moved(do(enc, "move a 3,3")).steps] == [141, 141]
    enc = arena(settings='diagonal = "manhattan"')
    assert cost(do(enc, "move a 3,3")) == 4 * CU


def test_turning_is_free_and_several_moves_share_one_move_action():
    enc = arena()
    events = do(enc, "move a 4,1 4,3 2,3")  # two turns on the way cost nothing
    assert cost(events) == 7 * CU
    r = refuse(enc, "move a 1,3 1,2", f"{IY}/move")  # 7 spent: 2 more is 9 > 8
    assert "only 1 yd are left" in r.reason
    do(enc, "move a 1,3")
    next_turn_of(enc, "a")
    assert cost(do(enc, "move a 9,3")) == 8 * CU  # a new turn, a new move action


# --- prone-drop / prone-stand: "spend their movement dropping prone or standing up" ------


def test_dropping_prone_uses_the_whole_move_action():
    enc = arena()
    events = do(enc, "drop-prone a")
    assert posture(enc, "a") == "prone"
    spent = of_type(events, Spent)[0]
    assert (spent.resource, spent.amount, spent.rules) == ("movement", 8 * CU, (f"{IY}/prone-drop",))
    refuse(enc, "move a 2,1", f"{IY}/crawl")  # nothing left to crawl with


def test_dropping_prone_after_moving_is_refused_unless_the_setting_says_rest():
    enc = arena()
    do(enc, "move a 2,1")
    r = refuse(enc, "drop-prone a", f"{IY}/prone-drop")
    assert "whole movement" in r.reason and "1 yd" in r.reason
    enc = arena(settings='drop_prone_cost = "rest"')
    do(enc, "move a 2,1")
    assert of_type(do(enc, "drop-prone a"), Spent)[0].amount == 7 * CU


def test_standing_up_uses_the_whole_move_action():
    enc = arena()
    do(enc, "drop-prone a")
    refuse(enc, "stand-up a", f"{IY}/prone-stand")  # this turn's movement went on dropping
    next_turn_of(enc, "a")
    events = do(enc, "stand-up a")
    assert posture(enc, "a") == "standing"
    assert of_type(events, Spent)[0].amount == 8 * CU
    refuse(enc, "move a 2,1", f"{IY}/move")


def test_standing_up_with_the_rest_setting_spends_what_is_left():
    enc = arena(settings='drop_prone_cost = "rest"\nstand_up_cost = "rest"')
    do(enc, "drop-prone a")
    next_turn_of(enc, "a")
    do(enc, "move a 2,1")  # a 2 yd crawl
    assert of_type(do(enc, "stand-up a"), Spent)[0].amount == 6 * CU


def test_standing_fighter_cannot_stand_up():
    enc = arena()
    refuse(enc, "stand-up a", f"{IY}/prone-stand")


# --- crawl: "the distance they can move is halved" -------------------------------------


def prone_arena(**kw: object) -> Encounter:
    enc = arena(**kw)
    do(enc, "drop-prone a")
    next_turn_of(enc, "a")
    return enc


def test_crawling_costs_two_a_yard():
    enc = prone_arena()
    m = moved(do(enc, "move a 3,1"))
    assert [s.cost for s in m.steps] == [2 * CU, 2 * CU]
    assert {s.mode for s in m.steps} == {"crawl"}
    assert f"{IY}/crawl" in m.rules


def test_crawling_more_than_half_the_initiative_is_refused():
    enc = prone_arena()
    r = refuse(enc, "move a 6,1", f"{IY}/crawl")  # 5 yd crawled cost 10 > 8
    assert "10 yd" in r.reason
    do(enc, "move a 5,1")  # 4 yd crawled cost 8


def test_crawling_diagonally_doubles_the_euclidean_step():
    enc = prone_arena()
    # crawl: "every yard crawled costs 2" on the exact length: 2·√2 = 2.83, doubled then rounded once
    # (issue 36, item 9a: not the diagonal rounded to 1.41, then doubled to 2.82)
    step = moved(do(enc, "move a 2,2")).steps[0]
    assert (step.cost, step.root2) == (283, 2 * CU)
    assert enc.state.fighter("a").used("movement") == 283


# --- climb: "spend movement as they move vertically just like horizontally" --------------


CLIMBING = [
    "#########",
    "#..sS^^.#",
    "#..H^^..#",
    "#.......#",
    "#########",
]


def test_stairs_cost_their_vertical_yards():
    enc = arena(CLIMBING, fighter("a", "blue", (2, 1), initiative=9) + fighter("e", "red", (7, 3)))
    m = moved(do(enc, "move a 5,1"))
    # onto stairs 1 yd up, 1 more, then 1 more onto the platform: 1+1 each step
    assert [s.cost for s in m.steps] == [2 * CU, 2 * CU, 2 * CU]
    assert at(enc, "a") == (5, 1, 3 * CU)
    assert f"{IY}/climb" in m.rules


def test_a_ladder_costs_its_height():
    enc = arena(CLIMBING, fighter("a", "blue", (2, 2)) + fighter("e", "red", (7, 3)))
    m = moved(do(enc, "move a 3,2 4,2"))
    assert [s.cost for s in m.steps] == [CU, CU + 3 * CU]  # onto the ladder, then 3 yd up
    assert [s.mode for s in m.steps] == ["", "climb"]


def test_climbing_without_stairs_or_ladder_is_refused():
    enc = arena(CLIMBING, fighter("a", "blue", (4, 3)) + fighter("e", "red", (7, 3)))
    r = refuse(enc, "move a 4,2", f"{IY}/climb")
    assert "3 yd up" in r.reason
    enc = arena(CLIMBING, fighter("a", "blue", (4, 3)) + fighter("e", "red", (7, 3)), "step_height = 3")
    assert cost(do(enc, "move a 4,2")) == CU  # the house step height walks it for free


def test_crawling_up_stairs_doubles_the_vertical_yards_too():
    enc = arena(CLIMBING, fighter("a", "blue", (2, 1)) + fighter("e", "red", (7, 3)))
    do(enc, "drop-prone a")
    next_turn_of(enc, "a")
    assert moved(do(enc, "move a 3,1")).steps[0].cost == 4 * CU


# --- ledge: "jump and pull themselves up to any ledge <= one and a half their height" ----


LEDGES = [
    "#######",
    "#.L.T.#",
    "#.....#",
    "#######",
]


def ledge_arena(height: float = 1.5, settings: str = "", a_at: tuple[int, int] = (1, 1)) -> Encounter:
    return arena(LEDGES, fighter("a", "blue", a_at, height=height) + fighter("e", "red", (5, 2)), settings)


def test_pulling_up_a_ledge_costs_its_height():
    enc = ledge_arena()
    events = do(enc, f"pull-up a 2,1 {PASS}")
    assert at(enc, "a") == (2, 1, 2 * CU)
    assert moved(events).steps[0].cost == 2 * CU
    check = of_type(events, CheckRolled)[0]
    assert (check.number, check.modifier, check.target, check.passed) == (7, 8, 15, True)


def test_a_ledge_higher_than_one_and_a_half_heights_is_refused():
    enc = ledge_arena(a_at=(3, 1))
    r = refuse(enc, f"pull-up a 4,1 {PASS}", f"{IY}/ledge")
    assert r.reason == "ledge 3 yd > 1.5 x own height 1.5 yd = 2.25 yd"
    enc = ledge_arena(height=2, a_at=(3, 1))
    do(enc, f"pull-up a 4,1 {PASS}")  # 3 yd is exactly 1.5 x 2 yd


def test_walking_onto_a_ledge_is_refused():
    enc = ledge_arena()
    r = refuse(enc, "move a 2,1", f"{IY}/ledge")
    assert "pull-up a 2,1" in r.reason


def test_failing_the_check_falls_from_the_ledge_top():
    enc = ledge_arena(height=2, a_at=(3, 2))
    do(enc, "move a 3,1")
    events = do(enc, f"pull-up a 4,1 {FAIL}")
    assert at(enc, "a") == (3, 1, 0)
    assert posture(enc, "a") == "prone"
    assert of_type(events, Placed)[0].rules == (f"{IY}/ledge", f"{IY}/fall")
    assert [d.amount for d in of_type(events, Damaged)] == [1]  # 3 yd fall, 1 yd past 2 yd tall
    assert enc.state.fighter("a").used("movement") == 4 * CU  # 1 yd walked + the 3 yd ledge


def test_ledge_fall_setting_base_slides_down_unhurt():
    enc = ledge_arena(height=2, settings='ledge_fall = "base"', a_at=(3, 1))
    events = do(enc, f"pull-up a 4,1 {FAIL}")
    assert posture(enc, "a") == "prone" and not of_type(events, Damaged)


# --- vault: "vault over anything less than half height" ----------------------------------


VAULTS = [
    "#########",
    "#..o..O.#",
    "#.......#",
    "#########",
]


def vault_arena(settings: str = "", a_at: tuple[int, int] = (2, 1)) -> Encounter:
    return arena(VAULTS, fighter("a", "blue", a_at) + fighter("e", "red", (7, 2)), settings)


def test_vaulting_a_low_obstacle_costs_the_horizontal_distance_only():
    enc = vault_arena()
    events = do(enc, f"vault a 4,1 {PASS}")
    assert at(enc, "a") == (4, 1, 0)
    assert [s.cost for s in moved(events).steps] == [CU, CU]
    assert posture(enc, "a") == "standing"


def test_vault_cost_setting_climb_pays_the_obstacle_height():
    enc = vault_arena('vault_cost = "climb"')
    assert cost(do(enc, f"vault a 4,1 {PASS}")) == 2 * CU + 50


def test_vaulting_an_obstacle_of_half_height_or_more_is_refused():
    enc = vault_arena(a_at=(5, 1))
    r = refuse(enc, f"vault a 7,1 {PASS}", f"{IY}/vault")
    assert "1 yd" in r.reason and "half of own height 1.5 yd (0.75 yd)" in r.reason


def test_walking_into_an_obstacle_is_refused():
    enc = vault_arena()
    refuse(enc, "move a 4,1", f"{IY}/vault")


def test_failing_the_vault_lands_prone_on_the_far_side():
    enc = vault_arena()
    events = do(enc, f"vault a 4,1 {FAIL}")
    assert at(enc, "a")[:2] == (4, 1)
    assert posture(enc, "a") == "prone"
    assert [e.trigger for e in of_type(events, StateChanged)] == ["knock_down"]


def test_a_vault_must_go_straight_over_an_obstacle():
    enc = vault_arena()
    r = refuse(enc, f"vault a 2,2 {PASS}", f"{IY}/vault")
    assert "nothing lies between" in r.reason


# --- leap: "as long as the distance isn't greater than half the maximum movement" -----------


GAPS = [
    "##############",
    "#..___._____.#",
    "#............#",
    "##############",
]


def leap_arena(**stats: object) -> Encounter:
    return arena(GAPS, fighter("a", "blue", (2, 1), **stats) + fighter("e", "red", (12, 2)))


def test_leaping_a_gap_within_half_the_movement():
    enc = leap_arena()
    events = do(enc, f"leap a 6,1 {PASS}")
    assert at(enc, "a") == (6, 1, 0)
    assert cost(events) == 4 * CU  # the whole way across, 3 yd of it over the gap
    assert [s.to[2] for s in moved(events).steps] == [0, 0, 0, 0]


def test_a_gap_wider_than_half_the_movement_is_refused():
    enc = leap_arena()
    do(enc, f"leap a 6,1 {PASS}")
    r = refuse(enc, f"leap a 12,1 {PASS}", f"{IY}/leap")
    assert r.reason == "gap 5 yd > half of max movement 4 yd"
    enc = leap_arena(initiative=5)
    r = refuse(enc, f"leap a 6,1 {PASS}", f"{IY}/leap")
    assert r.reason == "gap 3 yd > half of max movement 2.5 yd"


def test_walking_into_a_gap_is_refused_when_stepping_off_is():
    enc = arena(GAPS, fighter("a", "blue", (2, 1)) + fighter("e", "red", (12, 2)), 'step_off = "refuse"')
    r = refuse(enc, "move a 3,1", f"{IY}/leap")
    assert "4 yd deep" in r.reason


def test_failing_the_leap_falls_into_the_middle_of_the_gap():
    enc = leap_arena()
    events = do(enc, f"leap a 6,1 {FAIL}")
    assert at(enc, "a") == (4, 1, -4 * CU)  # the middle of 3,1 4,1 5,1, on the gap's floor
    assert posture(enc, "a") == "prone"
    assert of_type(events, Placed)[0].rules == (f"{IY}/leap", f"{IY}/fall")


# --- fall: "one point of damage for every yard they fell past their own height" ---------


def test_the_documents_example_a_fighter_1_5_yd_tall_falling_4_yd_takes_2_damage():
    enc = leap_arena(height=1.5)
    events = do(enc, f"leap a 6,1 {FAIL}")
    damage = of_type(events, Damaged)
    assert [d.amount for d in damage] == [2]
    assert damage[0].rules == (f"{IY}/fall",)
    assert "4 yd" in damage[0].note and "2.5 yd past own height 1.5 yd" in damage[0].note
    assert enc.state.fighter("a").damage == 2


def test_a_fall_no_longer_than_own_height_does_no_damage():
    enc = leap_arena(height=4)
    events = do(enc, f"leap a 6,1 {FAIL}")
    assert posture(enc, "a") == "prone" and not of_type(events, Damaged)


@pytest.mark.parametrize(
    ("fallen", "height", "damage"),
    [(400, 150, 2), (150, 150, 0), (249, 150, 0), (250, 150, 1), (0, 150, 0), (1000, 200, 8)],
)
def test_fall_damage_counts_whole_yards_past_own_height(fallen: int, height: int, damage: int):
    assert fall_damage(fallen, height) == damage


# --- drag: "the dragging target starts within a yard", "half their maximum movement" ------


def drag_arena(settings: str = "", b_at: tuple[int, int] = (2, 1)) -> Encounter:
    crate = fighter("crate", "none", (1, 2), initiative=0, height=1, tags=("object",))
    return arena(
        OPEN,
        fighter("a", "blue", (1, 1)) + fighter("b", "blue", b_at) + fighter("e", "red", (12, 4)) + crate,
        settings,
    )


def test_dragging_a_friend_moves_at_half_and_places_it_within_a_yard():
    enc = drag_arena()
    events = do(enc, "drag a b 5,1 put=4,1")
    assert at(enc, "a")[:2] == (5, 1) and at(enc, "b")[:2] == (4, 1)
    assert cost(events) == 4 * CU
    assert of_type(events, Placed)[0].rules == (f"{IY}/drag",)


def test_dragging_halves_the_whole_move_action():
    enc = drag_arena()
    r = refuse(enc, "drag a b 6,1 put=5,1", f"{IY}/drag")
    assert "5 yd" in r.reason and "only 4 yd are left" in r.reason
    do(enc, "drag a b 3,1 put=2,1")
    refuse(enc, "move a 6,1", f"{IY}/drag")  # the move action stays halved: 2 + 3 > 4
    do(enc, "move a 5,1")


def test_dragging_after_half_the_movement_is_spent_is_refused():
    enc = drag_arena(b_at=(6, 2))
    do(enc, "move a 6,1")
    r = refuse(enc, "drag a b 7,1 put=7,2", f"{IY}/drag")
    assert "halves the move action to 4 yd" in r.reason and "5 yd of it are already spent" in r.reason


def test_a_drag_target_must_start_within_a_yard():
    enc = drag_arena(b_at=(3, 1))
    r = refuse(enc, "drag a b 1,3 put=1,4", f"{IY}/drag")
    assert "2 yd from a" in r.reason
    enc = drag_arena(b_at=(2, 2))  # diagonally next: 1.41 yd under the euclidean rule
    refuse(enc, "drag a b 1,3 put=1,4", f"{IY}/drag")


def test_the_target_is_placed_within_a_yard_of_the_end():
    enc = drag_arena()
    r = refuse(enc, "drag a b 5,1 put=3,1", f"{IY}/drag")
    assert "2 yd from where a ends" in r.reason


def test_movable_objects_can_be_dragged_but_enemies_cannot():
    enc = drag_arena()
    do(enc, "drag a crate 4,1 put=4,2")
    assert at(enc, "crate")[:2] == (4, 2)
    enc = arena(OPEN, fighter("a", "blue", (1, 1)) + fighter("e", "red", (2, 1)))
    refuse(enc, "drag a e 1,3 put=1,4", f"{IY}/drag")


def test_objects_take_no_turns():
    enc = drag_arena()
    do(enc, "end-turn")
    do(enc, "end-turn")
    assert enc.state.turn.active == "e"
    do(enc, "end-turn")  # the crate's turn passes on at once
    assert enc.state.turn.active == "a"


# --- combined: "perform the non-move action at any point during their move" -------------


def test_an_action_in_the_middle_of_a_move_and_the_move_continues():
    enc = arena()
    do(enc, "move a 4,1")
    events = do(enc, "act a command")
    spent = of_type(events, Spent)[0]
    assert (spent.resource, spent.amount, spent.rules) == ("actions", 1, (f"{IY}/combined",))
    assert "after 3 yd" in spent.note and "5 yd" in spent.note
    assert cost(do(enc, "move a 9,1")) == 5 * CU  # the rest of the same 8 yd


def test_only_one_non_move_action_and_never_more_than_the_move_budget():
    enc = arena()
    do(enc, "act a manifest")
    r = refuse(enc, "act a strike", f"{IY}/combined")
    assert "1 of its 1" in r.reason
    do(enc, "move a 5,1")
    refuse(enc, "move a 10,1", f"{IY}/move")  # 4 + 5 > 8: acting did not add movement
    enc = arena(settings="actions_per_turn = 2")
    do(enc, "act a manifest")
    do(enc, "act a strike")


# --- engage: "if a fighter moves into the Reach of an enemy ... both become engaged" -------


def duel(a_reach: float = 1, e_reach: float = 1, settings: str = "", **a: object) -> Encounter:
    return arena(
        OPEN,
        fighter("a", "blue", (1, 2), reach=a_reach, **a) + fighter("e", "red", (8, 2), reach=e_reach),
        settings,
    )


def test_moving_into_an_enemys_reach_engages_both_and_ends_the_move():
    enc = duel()
    events = do(enc, "move a 10,2")
    assert at(enc, "a")[:2] == (7, 2)
    link = of_type(events, Linked)[0]
    assert (link.kind, link.a, link.b, link.rules) == ("engaged", "a", "e", (f"{IY}/engage",))
    assert engagement(enc, "a") == engagement(enc, "e") == "engaged"
    assert ["engaged", "a", "e"] in [list(x) for x in enc.state.links]
    assert "engaged with e" in moved(events).stopped
    assert enc.state.fighter("a").used("movement") == 6 * CU  # only the yards walked


def test_an_enemys_longer_reach_stops_the_move_farther_out():
    enc = duel(e_reach=2)
    do(enc, "move a 10,2")
    assert at(enc, "a")[:2] == (6, 2)


def test_the_movers_own_reach_reaching_an_enemy_engages_too():
    enc = duel(a_reach=3)
    do(enc, "move a 10,2")
    assert at(enc, "a")[:2] == (5, 2)
    assert engagement(enc, "e") == "engaged"


def test_a_foe_far_above_or_below_is_out_of_reach():
    fighters = fighter("a", "blue", (4, 2)) + fighter("e", "red", (7, 1))
    enc = arena(CLIMBING, fighters)
    events = do(enc, "move a 5,1 6,1")  # on the roof, 1 yd from e but 3 yd above it
    assert not of_type(events, Linked) and at(enc, "a") == (6, 1, 3 * CU)
    enc = arena(CLIMBING, fighter("a", "blue", (4, 2)) + fighter("e", "red", (7, 1), reach=3))
    do(enc, "move a 5,1 6,1")  # e's 3 yd Reach reaches the roof: 2 yd across, 3 yd up
    assert engagement(enc, "a") == "engaged" and at(enc, "a")[:2] == (5, 1)


def test_allies_never_engage():
    enc = arena(
        OPEN, fighter("a", "blue", (1, 2)) + fighter("b", "blue", (4, 2)) + fighter("e", "red", (12, 4))
    )
    events = do(enc, "move a 3,2 3,3 5,3")
    assert not of_type(events, Linked) and at(enc, "a")[:2] == (5, 3)


def test_prone_fighters_become_engaged_as_normal():
    enc = duel()
    do(enc, "end-turn")
    do(enc, "drop-prone e")
    do(enc, "end-turn")
    do(enc, "move a 10,2")
    assert engagement(enc, "e") == "engaged" and posture(enc, "e") == "prone"


# --- engaged-actions: "can only use the Strike, Command, and Manifest actions" ----------------


def engaged_duel(settings: str = "") -> Encounter:
    enc = duel(settings=settings)
    do(enc, "move a 10,2")
    return enc


def test_an_engaged_fighter_may_strike_command_or_manifest():
    for action in ("strike target=e", "command", "manifest"):
        enc = engaged_duel()
        events = do(enc, f"act a {action}")
        assert of_type(events, Spent)[0].rules == (f"{IY}/combined", f"{IY}/engaged-actions")
        assert enc.state.fighter("a").used("movement") == 6 * CU  # an action costs no movement


def test_an_engaged_fighter_may_not_move_or_take_other_actions():
    enc = engaged_duel()
    r = refuse(enc, "move a 6,2", f"{IY}/engaged-actions")
    assert "engaged with e" in r.reason and "e is not prone" in r.reason
    refuse(enc, "act a reload", f"{IY}/engaged-actions")
    refuse(enc, "drop-prone a", f"{IY}/engaged-actions")
    refuse(enc, f"vault a 5,2 {PASS}", f"{IY}/engaged-actions")
    do(enc, "end-turn")
    refuse(enc, "move e 10,2", f"{IY}/engaged-actions")  # both are engaged


def test_engaged_move_setting_within_reach_lets_a_fighter_shift_but_not_leave():
    enc = engaged_duel('engaged_move = "within-reach"')
    r = refuse(enc, "move a 6,2", f"{IY}/engaged-actions")
    assert "2 yd from e" in r.reason
    r = refuse(enc, "move a 7,3", f"{IY}/engaged-actions")  # diagonal from e: 1.41 yd
    assert "1.41 yd from e" in r.reason
    events = do(enc, "move a 8,1")  # 1 yd from e, still within its Reach
    assert cost(events) == 141 and engagement(enc, "a") == "engaged"


# --- engage-break: "only break the engagement by resolving a combat" ------------------------


def test_resolving_a_strike_ends_the_engagement_and_the_move_may_continue():
    enc = engaged_duel()
    do(enc, "act a strike target=e")
    events = do(enc, 'resolve a e outcome="a hits" damage=1')
    assert of_type(events, Unlinked)[0].rules == (f"{IY}/engage-break",)
    assert {(s.fighter, s.trigger) for s in of_type(events, StateChanged)} == {
        ("a", "resolve"),
        ("e", "resolve"),
    }
    assert enc.state.fighter("e").damage == 1
    assert not enc.state.links
    assert cost(do(enc, "move a 7,1 6,1")) == 2 * CU  # the rest of the move, and no new engagement
    assert engagement(enc, "a") == "free"


def test_engagement_does_not_end_without_a_resolved_strike():
    enc = engaged_duel()
    r = refuse(enc, 'resolve a e outcome="miss"', f"{IY}/engage-break")
    assert "no Strike at e" in r.reason
    enc = duel()
    do(enc, "act a strike target=e")
    r = refuse(enc, 'resolve a e outcome="hit"', f"{IY}/engage-break")
    assert "not engaged" in r.reason


def test_an_unresolved_strike_lapses_at_the_strikers_next_turn():
    enc = engaged_duel()
    do(enc, "act a strike target=e")
    next_turn_of(enc, "a")
    assert "striking" not in enc.state.fighter("a").marks
    refuse(enc, 'resolve a e outcome="late"', f"{IY}/engage-break")
    assert engagement(enc, "a") == "engaged"


def test_a_standing_fighter_engaged_only_with_prone_foes_moves_away_freely():
    enc = duel()
    do(enc, "end-turn")
    do(enc, "drop-prone e")
    do(enc, "end-turn")
    do(enc, "move a 10,2")  # engaged with prone e at 7,2; 2 yd left
    events = do(enc, "move a 7,1 6,1")
    assert [(s.fighter, s.trigger) for s in of_type(events, StateChanged)] == [
        ("a", "break_away"),
        ("e", "break_away"),
    ]
    assert of_type(events, Unlinked)[0].rules == (f"{IY}/engage-break",)
    assert cost(events) == 2 * CU  # breaking away costs nothing beyond the yards


def test_a_prone_fighter_cannot_break_away_from_a_standing_foe():
    enc = duel()
    do(enc, "end-turn")
    do(enc, "drop-prone e")
    do(enc, "end-turn")
    do(enc, "move a 10,2")
    do(enc, "end-turn")
    r = refuse(enc, "move e 9,2", f"{IY}/engaged-actions")
    assert "e is prone" in r.reason


# --- slippery: "make an Initiative check or else immediately drop prone" ---------------------


ICE = [
    "##########",
    "#..//u...#",
    "#........#",
    "##########",
]


def ice(settings: str = "") -> Encounter:
    return arena(ICE, fighter("a", "blue", (1, 1)) + fighter("e", "red", (8, 2)), settings)


def test_one_check_per_slippery_cell_entered_and_passing_goes_on():
    enc = ice()
    events = do(enc, "move a 7,1 roll=7,9,12")
    checks = of_type(events, CheckRolled)
    assert [c.number for c in checks] == [7, 9, 12]
    assert all(c.rules == (f"{IY}/slippery",) and c.passed for c in checks)
    assert at(enc, "a")[:2] == (7, 1) and posture(enc, "a") == "standing"
    assert cost(events) == 6 * CU  # slippery ground costs no extra yards


def test_failing_drops_prone_and_loses_the_rest_of_the_movement():
    enc = ice()
    events = do(enc, "move a 7,1 roll=7,1")
    assert at(enc, "a")[:2] == (4, 1) and posture(enc, "a") == "prone"
    lost = [s for s in of_type(events, Spent) if s.resource == "movement"]
    assert [s.amount for s in lost] == [5 * CU]  # 3 walked, 5 lost
    assert enc.state.fighter("a").used("movement") == 8 * CU
    refuse(enc, "move a 5,1", f"{IY}/crawl")


def test_unstable_ground_checks_too_and_the_per_move_setting_checks_once():
    enc = ice()
    events = do(enc, "move a 2,2 5,2 5,1 roll=1")  # round the ice, onto the unstable cell
    assert posture(enc, "a") == "prone" and at(enc, "a")[:2] == (5, 1)
    assert len(of_type(events, CheckRolled)) == 1
    enc = ice('slippery_checks = "per-move"')
    events = do(enc, "move a 7,1 roll=7")
    assert len(of_type(events, CheckRolled)) == 1


def test_seeded_checks_use_the_house_formula_and_table_mode_asks_for_a_roll():
    enc = ice()
    check = of_type(do(enc, "move a 3,1"), CheckRolled)[0]
    assert check.source == "seeded" and check.formula == "1d20" and len(check.dice) == 1
    assert check.passed == (check.number + 8 >= 15)
    enc = ice('checks = "table"')
    r = refuse(enc, "move a 3,1", "tabletrail/checks")
    assert "roll=N" in r.reason


def test_a_table_roll_is_a_face_of_the_d20_so_zero_is_no_longer_a_fail():
    """Issue 13: a table roll is a face of its die; 0 on a 1d20 is refused with the die named."""
    enc = ice("check_adds_initiative = false\ncheck_target = 2")
    r = refuse(enc, "move a 4,1 roll=2,0", "initiative-yards/slippery")
    assert "roll=0" in r.reason and "not a face of 1d20" in r.reason and "1 to 20" in r.reason
    checks = of_type(do(enc, "move a 4,1 roll=2,1"), CheckRolled)
    assert [(c.number, c.modifier, c.passed) for c in checks] == [(2, 0, True), (1, 0, False)]
    assert posture(enc, "a") == "prone"


def test_the_seeded_formula_is_a_setting():
    enc = ice('check_formula = "2d6"\ncheck_target = 12')
    check = of_type(do(enc, "move a 3,1"), CheckRolled)[0]
    assert check.formula == "2d6" and len(check.dice) == 2 and check.number == sum(check.dice)
    assert check.passed == (check.number + 8 >= 12)


def test_the_cli_lists_all_fifteen_rule_ids(capsys: pytest.CaptureFixture[str]):
    from tabletrail.cli import main

    assert main(["rules", IY, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["data"][0]
    assert len(listed["rules"]) == 15
    names = {s["name"] for s in listed["settings"]}
    assert {"drop_prone_cost", "stand_up_cost", "ledge_fall", "vault_cost", "engaged_move"} <= names
    assert "slippery_checks" in names


# --- bad input -------------------------------------------------------------------------


def test_a_gap_written_with_depth_is_a_clear_scenario_error():
    text = f"""
[encounter]
name = "t"
ruleset = "{IY}"
{grid(["#_.", "#.."], '"_" = { terrain = "gap", depth = 4 }')}
{fighter("a", "blue", (2, 1))}
"""
    scenario = parse_scenario(tomllib.loads(text), source="t.toml")
    with pytest.raises(InputError, match=r"map.legend.'_'.depth: .*write ground = -4"):
        Encounter.create(MemoryStore(), scenario, where="t.toml")


def test_missing_stats_and_bad_settings_are_named():
    text = f"""
[encounter]
name = "t"
ruleset = "{IY}"
[settings]
engaged_move = "sometimes"
{grid(["..."])}
[[fighters]]
id = "a"
side = "blue"
at = [0, 0]
initiative = 5
height = 1.5
"""
    scenario = parse_scenario(tomllib.loads(text), source="t.toml")
    with pytest.raises(InputError, match="settings.engaged_move"):
        Encounter.create(MemoryStore(), scenario, where="t.toml")


def test_off_map_and_unknown_targets_are_refused_and_append_nothing():
    enc = arena()
    refuse(enc, f"leap a 40,1 {PASS}", f"{IY}/leap")
    refuse(enc, "drag a nobody 2,1 put=1,1", "tabletrail/fighter")
    refuse(enc, "move e 2,1", "tabletrail/turn-order")


# --- surprises at the table: ways out, tethers, drags and strikes --------------------------------


SHALLOW = [
    "#########",
    "#..__...#",
    "#.......#",
    "#########",
]


def shallow_gap(height: float = 1.5) -> Encounter:
    """A gap only 2 yd deep: its rim is a ledge a 1.5 yd fighter may pull up onto (2 <= 2.25)."""
    legend = '"_" = { terrain = "gap", ground = -2 }'
    fighters = fighter("a", "blue", (2, 1), height=height) + fighter("e", "red", (7, 2))
    return encounter(
        f'[encounter]\nname = "t"\nruleset = "{IY}"\nseed = 3\n{grid(SHALLOW, legend)}\n{fighters}'
    )


def test_a_fighter_who_fell_into_a_gap_pulls_up_onto_its_rim():
    """ledge: "any ledge that's less than or equal to one and a half their height", not only map ledges."""
    enc = shallow_gap()
    do(enc, f"leap a 5,1 {FAIL}")  # falls 2 yd to 3,1, prone
    assert at(enc, "a") == (3, 1, -2 * CU)
    next_turn_of(enc, "a")
    do(enc, "stand-up a")
    next_turn_of(enc, "a")
    r = refuse(enc, "move a 2,1", f"{IY}/climb")  # walking up 2 yd is no climb
    assert "pull-up a 2,1" in r.reason
    events = do(enc, f"pull-up a 2,1 {PASS}")
    assert at(enc, "a") == (2, 1, 0)
    assert moved(events).steps[0].cost == 2 * CU  # the rim's height


def test_a_rim_higher_than_one_and_a_half_heights_keeps_the_fighter_in_the_gap():
    enc = shallow_gap(height=1.2)
    do(enc, f"leap a 5,1 {FAIL}")
    next_turn_of(enc, "a")
    do(enc, "stand-up a")
    next_turn_of(enc, "a")
    r = refuse(enc, f"pull-up a 2,1 {PASS}", f"{IY}/ledge")
    assert r.reason == "ledge 2 yd > 1.5 x own height 1.2 yd = 1.8 yd"


def test_a_tethered_fighter_may_not_pull_up_out_of_the_reach_that_engages_it():
    """engaged-actions (engaged_move = within-reach): a jump and pull is a move like any other."""
    rows = ["#######", "#.L...#", "#.....#", "#######"]
    fighters = fighter("a", "blue", (1, 2), height=2) + fighter("e", "red", (4, 2))
    enc = arena(rows, fighters, 'engaged_move = "within-reach"')
    do(enc, "move a 3,2")  # engaged with e at 4,2
    r = refuse(enc, f"pull-up a 2,1 {PASS}", f"{IY}/engaged-actions")
    assert "2.24 yd from e" in r.reason


def test_an_engaged_friend_is_not_dragged_out_of_its_engagement():
    """engage-break: "they can only break the engagement by resolving a combat"."""
    fighters = fighter("a", "blue", (1, 2)) + fighter("e", "red", (5, 2)) + fighter("b", "blue", (2, 2))
    enc = arena(OPEN, fighters)
    do(enc, "end-turn")
    do(enc, "end-turn")
    do(enc, "move b 4,2")  # b engages e
    do(enc, "end-turn")
    do(enc, "move a 3,2")
    r = refuse(enc, "drag a b 1,2 put=2,2", f"{IY}/engage-break")
    assert "b is engaged with e" in r.reason
    do(enc, "end-turn")  # e
    do(enc, "act e strike target=b")
    do(enc, 'resolve e b outcome="miss"')
    do(enc, "end-turn")  # b
    do(enc, "end-turn")  # a: a new move action
    do(enc, "drag a b 1,2 put=2,2")  # the combat is resolved: b may be dragged off
    assert at(enc, "b")[:2] == (2, 2)


def test_a_fighter_cannot_strike_itself():
    enc = arena()
    r = refuse(enc, "act a strike target=a", f"{IY}/combined")
    assert "itself" in r.reason
    do(enc, "act a strike target=e")


@pytest.mark.parametrize(("name", "value"), [("actions_per_turn", "-1"), ("step_height", "-0.5")])
def test_negative_counts_and_heights_are_refused_as_settings(name: str, value: str):
    text = f'[encounter]\nname = "t"\nruleset = "{IY}"\n[settings]\n{name} = {value}\n{grid(OPEN)}\n'
    scenario = parse_scenario(tomllib.loads(text + fighter("a", "blue", (1, 1))), source="t.toml")
    with pytest.raises(InputError, match=rf"settings.{name}: must not be negative, got {value}"):
        Encounter.create(MemoryStore(), scenario, where="t.toml")
    enc = arena()
    r = refuse(
        enc, f'setting {name} {value} why="typo"', f"{IY}/combined" if name[0] == "a" else f"{IY}/climb"
    )
    assert "must not be negative" in r.reason


def test_pulling_up_onto_level_ground_is_refused():
    enc = ledge_arena(a_at=(1, 2))
    r = refuse(enc, f"pull-up a 2,2 {PASS}", f"{IY}/ledge")
    assert r.reason == "2,2 is not above a: no ledge to pull up onto, walk there"
    r = refuse(enc, f"pull-up a 0,2 {PASS}", f"{IY}/ledge")
    assert r.reason == "0,2 is wall: nothing to pull up onto"
