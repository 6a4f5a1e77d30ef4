"""ap-squares, issue 28 (second round): Rotate About after a body-block, and the rulings the text is
silent on, each quoting document 002.

Fighters are written 'id side x,y stat=value…' (support_ap_squares); open floor x 1..8, y 1..5.
"""

from __future__ import annotations

from support import do, refuse
from support_ap_squares import ap_left, game, next_cycle, pos

# --- rotate-about after a body-block ----------------------------------------------------------------
# rotate-about: "Unless otherwise specified, Rotating About a tile never allows a character to change
# directions and return to the tile they immediately travelled from."
# invade: "they may not make another attempt to invade the same space during the same cycle."
#
# About the pivot 6,3 from 6,4, clockwise runs 5,3, 6,2, 7,3; bo holds 6,2.


def body_blocked_on_the_circle():
    enc = game("ari blue 6,4 ap=10", "bo red 6,2 ap=10", initiative=("ari", "bo"))
    do(enc, "rotate-about ari 6,3 cw 2")  # 6,4 -> 5,3, then waits before bo's 6,2
    do(enc, "react-invasion bo block roll=12 roll=1 by=gm")  # kept out, the movement AP wasted
    assert pos(enc, "ari") == (5, 3) and ap_left(enc, "ari") == 8
    return enc


def test_a_body_blocked_rotation_may_not_reverse_onto_the_square_it_came_from():
    enc = body_blocked_on_the_circle()
    r = refuse(enc, "rotate-about ari 6,3 ccw 1", "ap-squares/rotate-about")
    assert "travelled from" in r.reason and "6,4" in r.reason
    assert pos(enc, "ari") == (5, 3) and ap_left(enc, "ari") == 8


def test_nor_go_on_around_into_the_square_it_was_kept_out_of():
    enc = body_blocked_on_the_circle()
    r = refuse(enc, "rotate-about ari 6,3 cw 1", "ap-squares/invade")
    assert "6,2" in r.reason


def test_doing_something_else_after_the_block_ends_the_rotation():
    # "return to the tile they immediately travelled from": once it walks elsewhere, that tile is another.
    enc = body_blocked_on_the_circle()
    do(enc, "move ari 4,3")
    do(enc, "move ari 5,3")
    do(enc, "rotate-about ari 6,3 ccw 1")
    assert pos(enc, "ari") == (6, 4)


# --- a new cycle after a rotation (the text is silent; setting rotate_back_new_cycle) ----------------
# rotate-about: "never allows a character to change directions and return to the tile they immediately
# travelled from" sets no cycle limit, where invade's ban is "during the same cycle".


def rotated_then_new_cycle(settings: str = ""):
    enc = game("ari blue 6,4 ap=10", "bo red 1,1 ap=10", initiative=("ari", "bo"), settings=settings)
    do(enc, "rotate-about ari 6,3 cw 2")  # 6,4 -> 5,3 -> 6,2
    next_cycle(enc)
    assert ap_left(enc, "ari") == 10 and pos(enc, "ari") == (6, 2)
    return enc


def test_by_default_a_new_cycle_does_not_let_the_rotation_turn_back():
    enc = rotated_then_new_cycle()
    r = refuse(enc, "rotate-about ari 6,3 ccw 1", "ap-squares/rotate-about")
    assert "travelled from" in r.reason and "5,3" in r.reason
    do(enc, "rotate-about ari 6,3 cw 1")  # "Instead they maintain the same … rotation"
    assert pos(enc, "ari") == (7, 3)


def test_by_default_fresh_ap_at_the_turn_start_does_not_either():
    enc = rotated_then_new_cycle('ap_refresh = "turn"')
    refuse(enc, "rotate-about ari 6,3 ccw 1", "ap-squares/rotate-about")


def test_a_table_may_let_a_new_cycle_end_the_rotation():
    enc = rotated_then_new_cycle("rotate_back_new_cycle = true")
    do(enc, "rotate-about ari 6,3 ccw 1")
    assert pos(enc, "ari") == (5, 3)


def test_within_the_cycle_the_setting_changes_nothing():
    enc = game("ari blue 6,4 ap=10", settings="rotate_back_new_cycle = true")
    do(enc, "rotate-about ari 6,3 cw 2")
    refuse(enc, "rotate-about ari 6,3 ccw 1", "ap-squares/rotate-about")


def test_the_setting_is_listed_with_its_words():
    from tabletrail.core.engine.registry import get

    rs = get("ap-squares")
    s = {s.name: s for s in rs.settings}["rotate_back_new_cycle"]
    assert s.default is False and s.rule == "ap-squares/rotate-about" and "never" in s.doc
    assert "(setting rotate_back_new_cycle)" in {r.name: r for r in rs.rules}["rotate-about"].default


# --- a negative Strength bonus on a push-off (the text is silent; setting negative_strength_bonus) ----
# push-off: "They then determine how fast they want to travel after pushing off, up to three (3) meters
# per cycle plus their Strength attribute bonus."


def weak_push_off(bonus: int, settings: str = ""):
    enc = game(f"ari blue 1,3 strength_bonus={bonus}", "bo red 5,3", settings=settings)
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")
    return enc


def test_by_default_a_negative_strength_bonus_is_added_as_written():
    enc = weak_push_off(-1)  # 3 + (-1) = 2 m per cycle at most
    r = refuse(enc, "push-off ari e 3", "ap-squares/push-off")
    assert "3 + Strength bonus -1 = 2" in r.reason
    do(enc, "push-off ari e 2")


def test_a_table_may_count_a_negative_bonus_as_none():
    enc = weak_push_off(-1, 'negative_strength_bonus = "zero"')
    do(enc, "push-off ari e 3")  # a bonus is never a penalty: 3 m
    enc = weak_push_off(-1, 'negative_strength_bonus = "zero"')
    r = refuse(enc, "push-off ari e 4", "ap-squares/push-off")
    assert "3 + Strength bonus 0 = 3" in r.reason and "negative_strength_bonus" in r.reason


def test_a_positive_bonus_is_the_same_under_either_setting():
    for setting in ("counts", "zero"):
        enc = weak_push_off(1, f'negative_strength_bonus = "{setting}"')
        do(enc, "push-off ari e 4")


def test_the_strength_bonus_setting_is_listed_with_its_words():
    from tabletrail.core.engine.registry import get

    rs = get("ap-squares")
    s = {s.name: s for s in rs.settings}["negative_strength_bonus"]
    assert s.default == "counts" and s.choices == ("counts", "zero") and s.rule == "ap-squares/push-off"
    assert "(setting negative_strength_bonus)" in {r.name: r for r in rs.rules}["push-off"].default
    assert {t.name: t for t in rs.stats}["strength_bonus"].signed
