"""squares-example's rules from the document's own words: what they allow, refuse and cost."""

from __future__ import annotations

from tabletrail.ruleset_api import CU, Moved, Spent
from tabletrail.testing import do, encounter, get_ruleset, grid, of_type, refuse

# ana (blue, Speed 4) at 1,1 beside bo (red, Speed 3) at 2,1; a bog (difficult) at 3..5,2..3.
MAP = grid(
    ["##########", "#........#", "#..,,,...#", "#..,,,...#", "#........#", "##########"], '"," = "bog"'
)


def table(ana_at: str = "[1, 1]", bo_at: str = "[2, 1]") -> str:
    return f"""
[encounter]
name = "test"
ruleset = "squares-example"
initiative = ["ana", "bo"]
{MAP}
[[fighters]]
id = "ana"
side = "blue"
at = {ana_at}
speed = 4

[[fighters]]
id = "bo"
side = "red"
at = {bo_at}
speed = 3
"""


def moved(events) -> list[Moved]:
    return of_type(events, Moved)


def test_speed_a_move_goes_up_to_its_speed_in_squares_diagonals_costing_1():
    enc = encounter(table())
    (m,) = moved(do(enc, "move ana 2,2 2,4"))  # 1,1 → 2,2 diagonal → 2,3 → 2,4: three squares
    assert sum(s.cost for s in m.steps) == 3 * CU and m.steps[0].diagonal
    assert "squares-example/speed" in m.rules


def test_speed_a_move_longer_than_speed_is_refused():
    enc = encounter(table())
    refuse(enc, "move ana 1,4 8,4", "squares-example/speed")  # 3 + 7 squares > Speed 4


def test_difficult_terrain_costs_2_squares_a_square():
    enc = encounter(table())
    (m,) = moved(do(enc, "move ana 2,2 3,2"))  # floor 1, then a bog square: 2
    assert [s.cost for s in m.steps] == [CU, 2 * CU]
    assert "squares-example/difficult" in m.rules


def test_difficult_terrain_can_make_a_move_too_long():
    enc = encounter(table())
    refuse(enc, "move ana 2,2 5,2", "squares-example/speed")  # 1 + 2 + 2 + 2 = 7 > 4


def test_speed_walls_are_never_entered():
    enc = encounter(table())
    refuse(enc, "move ana 0,1", "squares-example/speed")


def test_speed_a_move_never_ends_on_another_fighter():
    enc = encounter(table(bo_at="[3, 1]"))
    refuse(enc, "move ana 3,1", "squares-example/speed")


def test_movement_one_movement_a_turn():
    enc = encounter(table())
    do(enc, "move ana 1,2")
    refuse(enc, "move ana 1,3", "squares-example/movement")


def test_movement_spent_shows_on_the_fighters_card():
    enc = encounter(table())
    rs = get_ruleset("squares-example")
    assert rs.card_words(enc.state, enc.state.fighter("ana")) == []
    do(enc, "move ana 1,2")
    assert rs.card_words(enc.state, enc.state.fighter("ana")) == ["its Movement is spent this turn"]


def test_movement_starts_over_on_the_next_turn():
    enc = encounter(table())
    do(enc, "move ana 1,2")
    do(enc, "end-turn")
    do(enc, "end-turn")
    do(enc, "move ana 1,3")


def test_shove_pushes_a_neighbour_one_square_straight_away_and_spends_the_movement():
    enc = encounter(table())
    events = do(enc, "barge ana bo")
    assert enc.state.fighter("bo").pos[:2] == (3, 1)
    (spent,) = of_type(events, Spent)
    assert (spent.fighter, spent.resource, spent.amount) == ("ana", "moves", 1)
    refuse(enc, "move ana 1,2", "squares-example/movement")


def test_shove_stops_short_of_a_wall_and_says_so():
    enc = encounter(table(ana_at="[7, 1]", bo_at="[8, 1]"))
    (m,) = moved(do(enc, "barge ana bo"))
    assert m.steps == () and m.stopped and enc.state.fighter("bo").pos[:2] == (8, 1)


def test_shove_reaches_only_a_fighter_next_to_the_shover():
    enc = encounter(table(bo_at="[3, 1]"))
    refuse(enc, "barge ana bo", "squares-example/shove")


def test_shove_is_refused_after_a_move_in_the_same_turn():
    enc = encounter(table(bo_at="[3, 1]"))
    do(enc, "move ana 2,1")
    refuse(enc, "barge ana bo", "squares-example/movement")
