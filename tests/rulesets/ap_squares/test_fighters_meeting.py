"""ap-squares, where one character's move meets another character: invasions of a space someone else
now holds or two already share, leaps hemmed in by bodies, drifts and push-offs that run into a body,
and two drifts that want the same square, played through the real engine against document 002.

Each test quotes the words it checks, and says what happens to EACH character. Fighters are written
'id side x,y stat=value…' (support_ap_squares); the room is open floor x 1..8, y 1..5.
"""

from __future__ import annotations

from support import do, of_type, refuse
from support_ap_squares import ap_left, game, gravity_of, marks, pos
from tabletrail.events.types import CheckRolled, Damaged, Marked, Moved, Spent

# --- invade: the space, not its occupant ------------------------------------------------------------


def test_the_ban_is_on_the_space_so_a_new_occupant_there_is_still_out_of_bounds_this_cycle():
    # invade: "If a character attempts to invade a space and is prevented from doing so, they may not
    # make another attempt to invade the same space during the same cycle."
    enc = game(
        "ari blue 1,1 ap=10",
        "bo red 3,1 ap=10",
        "cyn red 5,1 ap=10",
        settings="strict_turns = false",
        initiative=("ari", "bo", "cyn"),
    )
    do(enc, "move ari 3,1")
    do(enc, "react-invasion bo block roll=12 roll=1 by=gm")  # bo keeps ari out: 1 AP walked, 1 wasted
    assert (pos(enc, "ari"), ap_left(enc, "ari"), ap_left(enc, "bo")) == ((2, 1), 8, 8)
    do(enc, "move bo 3,2")  # bo steps aside ...
    do(enc, "move cyn 3,1")  # ... and cyn steps into the space
    r = refuse(enc, "move ari 3,1", "ap-squares/invade")
    assert "body-blocked out of 3,1" in r.reason
    # bo's new square is another space: ari may try it, and bo answers again
    wait = [e for e in of_type(do(enc, "move ari 3,2"), Marked) if e.key == "invading"]
    assert wait[0].value["occupant"] == "bo" and wait[0].value["cell"] == [3, 2]


def test_invading_a_square_two_already_share_waits_for_the_first_of_them_in_the_scenario():
    # invade: "allows the character already occupying the square to parry the attempt"; with two there
    # the engine's ruling (ApSquares docstring) is that the first of them in the scenario answers.
    enc = game(
        "ari blue 1,1 ap=10",
        "bo red 3,1 ap=10",
        "cyn red 5,1 ap=10",
        settings="strict_turns = false",
        initiative=("ari", "bo", "cyn"),
    )
    do(enc, "move cyn 3,1")
    do(enc, "react-invasion bo allow by=red")
    assert pos(enc, "cyn") == pos(enc, "bo") == (3, 1)
    wait = [e for e in of_type(do(enc, "move ari 3,1"), Marked) if e.key == "invading"]
    assert wait[0].value["occupant"] == "bo"
    r = refuse(enc, "react-invasion cyn block by=red", "ap-squares/invade")
    assert "bo's" in r.reason and "not cyn's" in r.reason
    events = do(enc, "react-invasion bo block roll=15 roll=16 by=gm")  # ari rolls higher: squeezes in
    assert [(s.fighter, s.amount) for s in of_type(events, Spent)] == [("bo", 200)]
    assert pos(enc, "ari") == (3, 1) and ap_left(enc, "cyn") == 8  # cyn paid 2 AP to walk, none to block


# --- reflexive-leap: bodies around the leaper -------------------------------------------------------


def test_a_character_hemmed_in_by_bodies_has_no_way_out_and_may_halve_instead():
    # reflexive-leap: "If there is a space adjacent to the character that is not included in the AOE
    # effect, the character may make a difficulty eighteen (18) Celerity Attribute Roll to dive into the
    # adjacent square"; "If a character is caught in the AOE with no way to leap out of the way, they may
    # instead make a difficulty thirteen (13) Dexterity Attribute Roll to reduce the damage by half."
    # A dive lands on open ground, never in someone's square (ruling, ApSquares docstring): in a corner
    # with bodies on its three free sides and 3 AP (no second meter), ari has no way out.
    enc = game(
        "ari blue 1,1 ap=3 dexterity=0",
        "bo red 2,1 ap=10",
        "cyn red 1,2 ap=10",
        "dax red 2,2 ap=10",
    )
    do(enc, "area-effect 1,1 damage=6")
    r = refuse(enc, "reflexive-leap ari 2,2 roll=18", "ap-squares/reflexive-leap")
    assert "someone is there" in r.reason
    events = do(enc, "reflexive-leap ari roll=13")
    assert [d.amount for d in of_type(events, Damaged)] == [3]
    assert [(s.fighter, s.amount) for s in of_type(events, Spent)] == [("ari", 200)]
    assert pos(enc, "ari") == (1, 1) and all(ap_left(enc, f) == 10 for f in ("bo", "cyn", "dax"))
    assert not of_type(do(enc, "area-hit"), Damaged)  # the bodies around were not in the area


def test_the_first_to_leap_takes_the_square_and_the_next_leaper_must_land_elsewhere():
    # reflexive-leap: "dive into the adjacent square"; each caught character answers on its own, and a
    # dive never lands in someone's square (ruling): bo, out first, takes 2,2; ari dives to 1,2.
    enc = game("ari blue 1,1 ap=4 celerity=0", "bo red 2,1 ap=4 celerity=0")
    do(enc, "area-effect 1,1 2,1 damage=5")
    do(enc, "reflexive-leap bo 2,2 roll=18 by=red")
    r = refuse(enc, "reflexive-leap ari 2,2 roll=18 by=blue", "ap-squares/reflexive-leap")
    assert "2,2" in r.reason
    do(enc, "reflexive-leap ari 1,2 roll=18 by=blue")
    assert (pos(enc, "ari"), pos(enc, "bo")) == ((1, 2), (2, 2))
    assert not of_type(do(enc, "area-hit"), Damaged)


# --- zero gravity: bodies meeting bodies ------------------------------------------------------------


def test_a_drift_into_a_body_stops_before_it_and_leaves_that_body_as_it_was():
    # zero-g-drift: "at the start of their turn in the cycle, they drift one (1) tile along their current
    # trajectory"; the document says nothing of a collision: the engine stops the drift before a square
    # another body fills (ruling, zero_g.py). The body in the way is not moved, charged or set drifting.
    enc = game("ari blue 1,3 ap=10", "bo red 5,3 ap=10", "cyn red 6,3 ap=10", initiative=("ari", "bo", "cyn"))
    do(enc, "gravity-off 2,1 5,5 roll=3")  # bo alone loses gravity and drifts east, towards cyn
    assert gravity_of(enc, "bo") == "drifting" and gravity_of(enc, "cyn") == "grounded"
    before = enc.state.fighter("cyn")
    events = do(enc, "end-turn")  # ari; bo's turn starts: cyn at 6,3 is in the way
    assert pos(enc, "bo") == (5, 3) and marks(enc, "bo")["trajectory"] == {"dir": "e", "speed": 1}
    assert not of_type(events, Moved) and not of_type(events, Damaged)
    assert enc.state.fighter("cyn") == before and ap_left(enc, "bo") == 10
    do(enc, "end-turn")  # bo
    do(enc, "move cyn 6,4")  # cyn steps out of the way ...
    do(enc, "end-turn")  # cyn; cycle 2, ari
    do(enc, "end-turn")  # ari; bo's turn starts: the trajectory drawn when gravity failed goes on
    assert pos(enc, "bo") == (6, 3) and gravity_of(enc, "bo") == "grounded"  # 6,3 has gravity


def test_two_drifts_wanting_one_square_go_by_turn_order_the_later_one_stays():
    # zero-g-drift: each body drifts "at the start of their turn in the cycle"; bo's turn comes first
    # (initiative), so bo takes 5,3 and cyn, drifting west into it, stays where it is, its trajectory
    # unchanged; nobody is damaged and nobody pays AP (a drift is paid by momentum).
    enc = game("ari blue 1,3 ap=10", "bo red 4,3", "cyn red 6,3", initiative=("ari", "bo", "cyn"))
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3 roll=7")  # bo east, cyn west
    events = do(enc, "end-turn")  # ari; bo drifts
    assert pos(enc, "bo") == (5, 3)
    events += do(enc, "end-turn")  # bo; cyn's drift is blocked
    assert pos(enc, "cyn") == (6, 3) and marks(enc, "cyn")["trajectory"] == {"dir": "w", "speed": 1}
    stays = [e for e in of_type(events, Marked) if e.fighter == "cyn"][-1]
    assert "bo at 5,3 blocks its drift w" in stays.note
    assert not of_type(events, Damaged) and not of_type(events, Spent) and not of_type(events, CheckRolled)
    assert [m.fighter for m in of_type(events, Moved)] == ["bo"]
