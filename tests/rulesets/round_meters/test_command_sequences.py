"""round-meters, sequences of commands held to document 001's own sentences.

Each test quotes the sentence it holds the engine to and names its rule id.
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.units import CU
from tabletrail.core.search.reach import reach, waypoints
from tabletrail.events.types import Moved
from tabletrail.service.syntax import parse

from tests.rulesets.round_meters.test_rules import RS, arena


def spent(events) -> int:
    return sum(s.cost for m in of_type(events, Moved) for s in m.steps)


# --- round-budget: "A character may move up to their Movement in meters during each round. This
# distance may be divided across any of their turns during that round, moving before, after, or
# between actions." Dividing the distance does not change its price: under the alternating
# diagonal ruling (1, 2, 1, 2...) the count runs over the round's Movement, not each command. ---

ALTERNATING = 'diagonal = "alternating"\nidle_ap_loss = 0\nmax_passes = 2'


def test_a_move_split_in_two_commands_pays_the_same_alternating_diagonals():
    # bo (Movement 4) at 1,4: 2,5 then 3,4 are two diagonals, 1 m then 2 m, however they are sent.
    whole = encounter(arena(ALTERNATING))
    do(whole, "end-turn")
    assert spent(do(whole, "move bo 2,5 3,4")) == 3 * CU
    split = encounter(arena(ALTERNATING))
    do(split, "end-turn")
    assert spent(do(split, "move bo 2,5")) == CU
    assert spent(do(split, "move bo 3,4")) == 2 * CU
    assert split.state.fighter("bo").used("movement") == whole.state.fighter("bo").used("movement")


def test_the_alternating_count_runs_on_across_turns_of_the_round_and_starts_again_next_round():
    enc = encounter(arena(ALTERNATING))
    do(enc, "end-turn")
    do(enc, "move bo 2,5")  # the first diagonal of the round: 1 m
    do(enc, "end-turn")
    while enc.state.turn.active != "bo":  # bo's turn in pass 2: the same round
        do(enc, "end-turn")
    assert enc.state.turn.round == 1 and enc.state.turn.pass_no == 2
    r = refuse(enc, "move bo 3,4 4,5 5,4", f"{RS}/round-budget")  # 2 + 1 + 2 = 5 > the 3 m left
    assert "5 m" in r.reason and "only 3 m are left" in r.reason
    assert spent(do(enc, "move bo 3,4 4,5")) == 3 * CU  # the second and third diagonals: 2 + 1
    do(enc, "end-turn")
    while enc.state.turn.round == 1 or enc.state.turn.active != "bo":
        do(enc, "end-turn")
    assert spent(do(enc, "move bo 3,4")) == CU  # a new round: its first diagonal costs 1 m


def test_the_reachable_area_after_a_diagonal_prices_as_the_next_move_will():
    # round-budget: what the ruler shows for the rest of the round is what a move there costs.
    enc = encounter(arena(ALTERNATING))
    do(enc, "end-turn")
    do(enc, "move bo 2,5")
    area = reach(enc.state, "bo")
    assert area.costs[(3, 4)] == 2 * CU  # the round's second diagonal
    assert area.costs[(4, 4)] == 3 * CU  # a diagonal (2) and a step, or three steps
    for cell, price in area.costs.items():
        text = "move bo " + " ".join(f"{x},{y}" for x, y in waypoints((2, 5), area.path(cell)))
        result = enc.preview(parse(text))
        assert not isinstance(result, Rejection), f"{text}: {result}"
        assert spent(result) == price, text


def test_undoing_a_diagonal_gives_its_place_in_the_count_back():
    # round-budget: an undone move is no part of the round's Movement, its diagonal neither.
    enc = encounter(arena(ALTERNATING))
    do(enc, "end-turn")
    do(enc, "move bo 2,5")
    do(enc, "undo")
    assert spent(do(enc, "move bo 2,3")) == CU  # 1,4 to 2,3: the round's first diagonal again
