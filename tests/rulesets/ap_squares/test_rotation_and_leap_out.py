"""ap-squares checked against document 002's own sentences (issue 12, item 9 and the leap-out).

Each test quotes the sentence it holds the engine to.
"""

from __future__ import annotations

from support import do, of_type, refuse
from support_ap_squares import game, pos
from tabletrail.events.types import Moved

# --- rotate-about: "Rotating About a tile never allows a character to change directions and return
# to the tile they immediately travelled from." Splitting a rotation in two does not get round it. --


def test_splitting_a_rotation_cannot_reverse_it_onto_the_square_just_left():
    enc = game("ari blue 6,4 ap=10")
    do(enc, "rotate-about ari 6,3 cw 2")  # around the pivot 6,3, starting from 6,4
    came = [s.to[:2] for m in of_type(enc.records, Moved) for s in m.steps]
    assert len(came) == 2
    r = refuse(enc, "rotate-about ari 6,3 ccw 1", "ap-squares/rotate-about")
    assert "travelled from" in r.reason and str(came[0][0]) in r.reason
    assert pos(enc, "ari") == came[-1]


def test_going_on_the_same_way_or_about_another_pivot_is_allowed():
    enc = game("ari blue 6,4 ap=10")
    do(enc, "rotate-about ari 6,3 cw 2")
    do(enc, "rotate-about ari 6,3 cw 1")  # the same way round: fine
    enc = game("ari blue 6,4 ap=10")
    do(enc, "rotate-about ari 6,3 cw 2")
    do(enc, "move ari 5,5")  # something else first: the rotation is over
    do(enc, "rotate-about ari 6,3 ccw 1")


# --- reflexive-leap: "with no way to leap out of the way" counts every leap the AP allow, "an
# additional meter" for each further 2 AP, not only the adjacent squares. -----------------------------

RING = "2,1 3,1 4,1 2,2 3,2 4,2 2,3 3,3 4,3"  # every square next to ari at 3,2


def test_a_longer_leap_the_ap_allow_is_a_way_out():
    enc = game("ari blue 3,2 ap=10 celerity=1 dexterity=1")
    do(enc, f"area-effect {RING} damage=7")
    r = refuse(enc, "reflexive-leap ari roll=12", "ap-squares/reflexive-leap")
    assert "could dive to" in r.reason
    do(enc, "reflexive-leap ari 3,4 roll=20")  # 2 m out of the ring: 4 AP, difficulty 21
    assert pos(enc, "ari") == (3, 4)


def test_with_the_ap_for_one_meter_only_the_ring_leaves_no_way_out():
    enc = game("ari blue 3,2 ap=3 celerity=1 dexterity=1")
    do(enc, f"area-effect {RING} damage=7")
    do(enc, "reflexive-leap ari roll=12")  # 3 AP: a 2 m leap would cost 4
