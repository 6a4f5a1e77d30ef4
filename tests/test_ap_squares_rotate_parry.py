"""ap-squares rotate-about: a rotation answered by a parry, or let in, still may not turn back.

rotate-about: "Unless otherwise specified, Rotating About a tile never allows a character to change
directions and return to the tile they immediately travelled from."
invade: with a melee weapon the occupant parries, "the invader still enters"; entering the square is
the rotation going on, not the character doing something else.

About the pivot 6,3 from 6,4, clockwise runs 5,3, 6,2, 7,3; bo holds 6,2.
"""

from __future__ import annotations

import pytest
from support import do, refuse
from tabletrail.events.types import Marked
from test_ap_squares_helpers import game, pos


def entered_on_the_circle(answer: str):
    enc = game("ari blue 6,4 ap=10", "bo red 6,2 ap=10 parry=2", initiative=("ari", "bo"))
    do(enc, "rotate-about ari 6,3 cw 2")  # 6,4 -> 5,3, then waits before bo's 6,2
    entered = do(enc, f"react-invasion bo {answer} by=gm")
    assert pos(enc, "ari") == (6, 2)
    return enc, entered


@pytest.mark.parametrize("answer", ["parry roll=1", "parry roll=20", "allow"])
def test_an_answered_invasion_does_not_end_the_rotation(answer: str):
    enc, _ = entered_on_the_circle(answer)
    r = refuse(enc, "rotate-about ari 6,3 ccw 1", "ap-squares/rotate-about")
    assert "travelled from" in r.reason and "5,3" in r.reason
    assert pos(enc, "ari") == (6, 2)


def test_the_rotation_goes_on_round_after_the_parry():
    enc, _ = entered_on_the_circle("parry roll=1")
    do(enc, "rotate-about ari 6,3 cw 1")  # "they maintain the same … rotation"
    assert pos(enc, "ari") == (7, 3)


def test_the_entering_event_says_where_it_may_not_turn_back_to():
    _, entered = entered_on_the_circle("parry roll=1")
    marks = [e for e in entered if isinstance(e, Marked) and e.key == "rotation"]
    assert "may not turn back to 5,3" in marks[-1].note


def test_the_rules_listing_says_an_answer_does_not_end_the_rotation():
    from tabletrail.core.rulesets import get

    default = {r.name: r for r in get("ap-squares").rules}["rotate-about"].default
    assert "parry" in default and "body-block" in default
