"""ap-squares, a fidelity review against document 002's own words.

Each test quotes the sentence it holds the engine to and cites its rule id.
"""

from __future__ import annotations

from support import encounter, refuse
from support_ap_squares import arena, pos


def test_an_invasion_through_a_wall_is_refused_before_anyone_answers():
    # ap-squares/invade: "Various movement actions, such as walking, crawling, or even jumping, can
    # result in one character attempting to enter a square already occupied by another character."
    # Only a move that could enter the square is an attempt: a walk that a wall on the way stops
    # (tabletrail/walls) is refused at once, not left waiting for an answer that can never let it in.
    text = arena("ari blue 2,2 ap=10", "bo red 3,2 ap=10")
    enc = encounter(text.replace("[map.legend]", 'walls = ["3,0-3,6"]\n[map.legend]'))
    r = refuse(enc, "move ari 3,2", "tabletrail/walls")
    assert "a wall between 2,2 and 3,2" in r.reason
    assert pos(enc, "ari") == (2, 2) and "invading" not in enc.state.fighter("ari").marks
