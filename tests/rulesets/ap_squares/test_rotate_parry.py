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
from support_ap_squares import game, pos
from tabletrail.events.types import Marked


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
    from tabletrail.core.engine.registry import get

    default = {r.name: r for r in get("ap-squares").rules}["rotate-about"].default
    assert "parry" in default and "body-block" in default


# --- a rotation whose very first square is held: once let in, it came from where it started -------


def entered_first_square(answer: str):
    enc = game("ari blue 6,4 ap=10", "bo red 5,3 ap=10 parry=2", initiative=("ari", "bo"))
    do(enc, "rotate-about ari 6,3 cw 2")  # waits at 6,4 before bo's 5,3
    assert pos(enc, "ari") == (6, 4)
    do(enc, f"react-invasion bo {answer} by=gm")
    return enc


def test_let_into_its_first_square_a_rotation_may_not_turn_back_to_where_it_started():
    enc = entered_first_square("parry roll=1")
    assert pos(enc, "ari") == (5, 3)
    r = refuse(enc, "rotate-about ari 6,3 ccw 1", "ap-squares/rotate-about")
    assert "travelled from" in r.reason and "6,4" in r.reason


def test_kept_out_of_its_first_square_it_travelled_from_nowhere():
    enc = entered_first_square("block roll=12 roll=1")
    assert pos(enc, "ari") == (6, 4)
    do(enc, "rotate-about ari 6,3 ccw 1")  # 6,4 -> 7,3: no tile it came from is on that way
    assert pos(enc, "ari") == (7, 3)


def test_a_waiting_rotation_reads_in_words():
    from tabletrail.text.render import describe

    enc = game("ari blue 6,4 ap=10", "bo red 5,3 ap=10", initiative=("ari", "bo"))
    events = do(enc, "rotate-about ari 6,3 cw 2")
    (mark,) = [e for e in events if isinstance(e, Marked) and e.key == "rotation"]
    assert describe(mark) == "ari is rotating clockwise about 6,3, waiting at 6,4"
