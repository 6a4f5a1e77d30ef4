"""round-meters sprint, in the document's words: a Sprint gains Movement, it gives nothing back.

sprint: "For each positive Hit, gain +2 meters of Movement for the current round." round-budget:
"Movement already used during the round remains spent until the start of the next round." So the
meters moved never go down after a Sprint, and the Movement allowed this round goes up.

Ari: Movement 6, athletics 2; roll=13 is one positive Hit (15), roll=18 two (20).
"""

from __future__ import annotations

from support import do, encounter, of_type
from tabletrail.core.board.units import CU
from tabletrail.core.engine.registry import get
from tabletrail.events.types import Moved, Spent
from tabletrail.text.render import describe, fighters

from tests.rulesets.round_meters.test_rules import arena, spent

RS = get("round-meters")


def test_a_sprint_gains_movement_and_says_from_what_to_what_this_round():
    enc = encounter(arena())
    do(enc, "move ari 3,1")  # 2 m of 6
    (gain,) = spent(do(enc, "sprint ari roll=13"), "movement")
    assert "gains 2 m of Movement (6 -> 8 this round" in gain.note
    assert "2 m moved, 6 m left" in gain.note
    assert describe(gain, RS) == "ari gains 2 m of Movement"
    assert "gets back" not in describe(gain, RS)


def test_a_second_sprint_counts_from_the_movement_the_first_gained():
    enc = encounter(arena())
    do(enc, "sprint ari roll=13")
    (gain,) = spent(do(enc, "sprint ari roll=18"), "movement")  # sprint_penalty_on_sprints = no
    assert "gains 4 m of Movement (8 -> 12 this round" in gain.note


def test_the_meters_moved_do_not_go_down_after_a_sprint():
    enc = encounter(arena())
    do(enc, "move ari 3,1")
    do(enc, "sprint ari roll=13")
    table = fighters(enc.state)
    ari = next(line for line in table.splitlines() if line.split()[1:2] == ["ari"])
    assert "movement 2 m of 8 m" in ari
    assert RS.spent_counted(enc.state, enc.state.fighter("ari"))["movement"] == 2 * CU


def test_a_sprint_before_any_move_shows_no_negative_spending():
    enc = encounter(arena())
    do(enc, "sprint ari roll=13")
    ari = next(line for line in fighters(enc.state).splitlines() if line.split()[1:2] == ["ari"])
    assert "-2" not in ari and "movement 0 m of 8 m" in ari


def test_a_move_after_a_sprint_says_what_was_moved_of_the_movement_allowed():
    enc = encounter(arena())
    do(enc, "move ari 3,1")
    do(enc, "sprint ari roll=13")
    (m,) = of_type(do(enc, "move ari 6,1"), Moved)
    assert "3 m of this round's Movement" in m.note
    assert "5 m moved of 8 m this round, 3 m left" in m.note
    assert not [e for e in of_type([m], Spent)]


def test_the_audits_fighter_card_counts_the_meters_moved_too():
    from tabletrail.projections.audit.parts import fighter_card

    enc = encounter(arena())
    do(enc, "move ari 3,1")
    do(enc, "sprint ari roll=13")
    assert fighter_card(RS, enc.state, "ari")["spent"]["movement"] == 2 * CU
