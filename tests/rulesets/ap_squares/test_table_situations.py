"""ap-squares, situations a GM meets at a real table, each combining two or more rules of
document 002, played through the real engine.

Each test quotes the document's words next to what it asserts. Fighters are written
'id side x,y stat=value…' (support_ap_squares); the room is open floor x 1..8, y 1..5.
"""

from __future__ import annotations

from support import do, of_type, refuse
from support_ap_squares import ap_left, game, marks, next_cycle, pos
from tabletrail.events.types import CheckRolled, Damaged, Marked, Moved, Spent


def cost(events) -> int:
    return sum(s.cost for m in of_type(events, Moved) for s in m.steps)


# --- a crawler invades, and is body-blocked ---------------------------------------------------------


def test_a_body_blocked_crawler_wastes_the_two_ap_of_the_crawl():
    # crawl: "costing two (2) AP for each square of movement instead of the usual one (1)"; invade: "the
    # invading character simply wastes the movement AP".
    enc = game("ari blue 1,1 ap=10 strength=0", "bo red 3,1 ap=10 strength=0")
    do(enc, "drop-prone ari")
    wait = of_type(do(enc, "move ari 3,1"), Marked)[0]
    assert "entering will cost 2 AP" in wait.note and ap_left(enc, "ari") == 8
    events = do(enc, "react-invasion bo block roll=10 roll=10 by=gm")  # a tie keeps ari out
    assert [(s.fighter, s.amount) for s in of_type(events, Spent)] == [("bo", 200), ("ari", 200)]
    assert pos(enc, "ari") == (2, 1) and ap_left(enc, "ari") == 6 and ap_left(enc, "bo") == 8


# --- a blocked invader tries again: by another path, by rotating, or once the square is empty ---------


def blocked():
    enc = game(
        "ari blue 1,1 ap=10", "bo red 3,1 ap=10", "cyn blue 8,5 ap=10", initiative=("ari", "bo", "cyn")
    )
    do(enc, "move ari 3,1")
    do(enc, "react-invasion bo block roll=12 roll=1 by=gm")
    assert pos(enc, "ari") == (2, 1)
    return enc


def test_a_blocked_invader_may_not_try_the_same_square_by_another_way_this_cycle():
    # invade: "If a character attempts to invade a space and is prevented from doing so, they may not
    # make another attempt to invade the same space during the same cycle."
    enc = blocked()
    do(enc, "move ari 2,2")
    r = refuse(enc, "move ari 3,1", "ap-squares/invade")  # diagonally, from 2,2
    assert "body-blocked out of 3,1" in r.reason
    refuse(enc, "move ari 4,1", "ap-squares/invade")  # through it, on the way elsewhere
    refuse(enc, "rotate-about ari 3,2 cw 2", "ap-squares/invade")  # round a pivot: 3,1 is the ring's next


def test_a_blocked_invader_enters_the_square_after_the_occupant_leaves_it_this_cycle():
    # invade: the ban is on "another attempt to invade the same space"; an empty square is no invasion.
    enc = game("ari blue 1,1 ap=10", "bo red 3,1 ap=10", settings="strict_turns = false")
    do(enc, "move ari 3,1")
    do(enc, "react-invasion bo block roll=12 roll=1 by=gm")
    do(enc, "move bo 3,3 by=gm")  # the GM moves bo out of the square (strict_turns off)
    events = do(enc, "move ari 3,1")
    assert pos(enc, "ari") == (3, 1) and cost(events) == 100
    assert "invading" not in marks(enc, "ari")


# --- a move through an occupied square, then on -----------------------------------------------------


def test_a_move_through_an_occupied_square_waits_there_then_goes_on_by_a_new_command():
    # invade: "entering a square already occupied ... does not add any difficulty to the movement";
    # walk: 1 AP a square, leaving the shared square included.
    enc = game("ari blue 1,1 ap=10", "bo red 3,1 ap=10")
    wait = of_type(do(enc, "move ari 6,1"), Marked)[0]
    assert "the 3 squares after it are dropped" in wait.note
    do(enc, "react-invasion bo allow by=red")
    assert pos(enc, "ari") == pos(enc, "bo") == (3, 1) and ap_left(enc, "ari") == 8
    assert cost(do(enc, "move ari 6,1")) == 300 and ap_left(enc, "ari") == 5


# --- AP spent reacting on another's turn come out of the same cycle ------------------------------------


def test_a_body_block_on_an_enemys_turn_leaves_fewer_ap_for_the_own_turn_of_that_cycle():
    # invade: "This option requires only two (2) AP"; walk: AP per cycle (ap_refresh = cycle).
    enc = game("ari blue 1,1 ap=10", "bo red 3,1 ap=4", initiative=("ari", "bo"))
    do(enc, "move ari 3,1")
    do(enc, "react-invasion bo block roll=12 roll=1 by=gm")
    do(enc, "end-turn")
    assert enc.state.turn.active == "bo" and ap_left(enc, "bo") == 2
    refuse(enc, "move bo 3,4", "ap-squares/walk")  # 3 squares > 2 AP
    assert cost(do(enc, "move bo 3,3")) == 200
    next_cycle(enc)
    assert ap_left(enc, "bo") == 4 and ap_left(enc, "ari") == 10  # unspent AP never carry over


# --- an area effect over a shared square ---------------------------------------------------------------


def test_two_characters_sharing_a_square_each_react_to_an_area_effect():
    # invade: two characters share the square (share_square); reflexive-leap: "To perform a reflexive
    # leap, a character must have at least two (2) AP remaining."
    enc = game("ari blue 1,1 ap=4 celerity=0", "bo red 3,1 ap=10 celerity=0", initiative=("ari", "bo"))
    do(enc, "move ari 3,1")
    do(enc, "react-invasion bo allow by=red")  # ari: 2 AP left
    do(enc, "area-effect 2,1 3,1 4,1 damage=5")
    events = do(enc, "reflexive-leap ari 3,2 roll=18 by=blue")
    assert [s.amount for s in of_type(events, Spent)] == [200] and pos(enc, "ari") == (3, 2)
    r = refuse(enc, "reflexive-leap bo 3,2 roll=18 by=red", "ap-squares/reflexive-leap")  # ari is there
    assert "3,2" in r.reason
    do(enc, "reflexive-leap bo 2,2 roll=18 by=red")
    hit = do(enc, "area-hit")
    assert not of_type(hit, Damaged)


def test_a_character_who_spent_its_ap_walking_has_no_reflexive_leap_but_may_halve():
    # reflexive-leap: "must have at least two (2) AP remaining"; "If a character is caught in the AOE
    # with no way to leap out of the way, they may instead make a difficulty thirteen (13) Dexterity
    # Attribute Roll to reduce the damage by half."
    enc = game("ari blue 1,2 ap=3 dexterity=0")
    do(enc, "move ari 3,2")  # 1 AP left
    do(enc, "area-effect 3,2 damage=6")
    r = refuse(enc, "reflexive-leap ari 3,1 roll=18", "ap-squares/reflexive-leap")
    assert "1 AP left" in r.reason
    r = refuse(enc, "reflexive-leap ari roll=13", "ap-squares/reflexive-leap")
    assert "at least 2 AP" in r.reason
    hit = do(enc, "area-hit")
    assert [d.amount for d in of_type(hit, Damaged)] == [6]


# --- a prone character: stand up, then walk; posture and AP in one cycle ------------------------------


def test_dropping_prone_mid_move_makes_the_rest_a_crawl_from_the_same_ap():
    # walk, crawl: "costing two (2) AP for each square ... instead of the usual one (1)".
    enc = game("ari blue 1,1 ap=6")
    assert cost(do(enc, "move ari 3,1")) == 200
    do(enc, "drop-prone ari")
    refuse(enc, "move ari 6,1", "ap-squares/crawl")  # 3 squares crawled: 6 AP > 4 left
    assert cost(do(enc, "move ari 5,1")) == 400 and ap_left(enc, "ari") == 0


# --- zero gravity: a crawler along the wall invades; a drifter meets a body ----------------------------


def test_a_zero_g_crawler_along_a_wall_invading_pays_2_ap_for_the_square():
    # zero-g-crawl: "costing two (2) AP for each square of movement"; invade: "crawling ... can result in
    # one character attempting to enter a square already occupied".
    enc = game("ari blue 1,1 ap=10", "bo red 1,3 ap=10", initiative=("ari", "bo"))
    do(enc, "gravity-off 1,1 8,5 grab=ari,bo")
    assert ap_left(enc, "ari") == 6
    wait = of_type(do(enc, "move ari 1,3"), Marked)[0]
    assert "entering will cost 2 AP" in wait.note and pos(enc, "ari") == (1, 2)
    events = do(enc, "react-invasion bo allow by=red")
    assert cost(events) == 200 and ap_left(enc, "ari") == 2


# --- undo of a batch with rolls ---------------------------------------------------------------------


def test_undoing_a_body_block_brings_the_wait_back_and_redo_keeps_the_rolls():
    enc = game("ari blue 1,1 ap=10", "bo red 3,1 ap=10")
    do(enc, "move ari 3,1")
    events = do(enc, "react-invasion bo block by=gm")  # seeded rolls
    rolls = [c.number for c in of_type(events, CheckRolled)]
    after = (pos(enc, "ari"), ap_left(enc, "ari"), ap_left(enc, "bo"))
    do(enc, "undo")
    assert marks(enc, "ari")["invading"]["cell"] == [3, 1] and ap_left(enc, "bo") == 10
    do(enc, "redo")
    assert (pos(enc, "ari"), ap_left(enc, "ari"), ap_left(enc, "bo")) == after
    do(enc, "undo")
    again = do(enc, "react-invasion bo block by=gm")
    assert [c.number for c in of_type(again, CheckRolled)] == rolls  # undo is no way to re-roll
