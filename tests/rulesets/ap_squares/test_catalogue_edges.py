"""ap-squares, row by row of the catalogue: what each rule allows, refuses and costs at its
edges (exactly the AP, one AP short), and which rule id the engine cites. Only items no earlier
test pins. AP are recorded in hundredths (100 = 1 AP).
"""

from __future__ import annotations

from support import do, of_type, refuse
from support_ap_squares import ap_left, game, marks, pos
from tabletrail.events.types import CheckRolled, Marked, Moved, Spent

from tests.rulesets.ap_squares.test_ground import blast
from tests.rulesets.ap_squares.test_zero_g import weightless


def moved(events) -> Moved:
    return of_type(events, Moved)[0]


def spent_by(events, fid: str) -> list[tuple[int, tuple[str, ...]]]:
    return [(s.amount, s.rules) for s in of_type(events, Spent) if s.fighter == fid and s.resource == "ap"]


# --- walk, crawl: "costing two (2) AP for each square of movement instead of the usual one (1)" ---


def test_walking_with_exactly_the_ap_left_is_allowed_and_one_square_more_refused():
    enc = game("ari blue 1,1 ap=4")
    m = moved(do(enc, "move ari 3,1 4,2"))  # 2 straight, 1 diagonal: 3 AP
    assert sum(s.cost for s in m.steps) == 300 and m.rules == ("ap-squares/walk",)
    refuse(enc, "move ari 5,3 6,3", "ap-squares/walk")  # 2 more squares, 1 AP left
    do(enc, "move ari 5,3")
    assert ap_left(enc, "ari") == 0


def test_crawling_with_exactly_the_ap_left_is_allowed_and_one_ap_short_refused():
    enc = game("ari blue 1,1 ap=7")
    do(enc, "drop-prone ari")  # posture_ap: dropping prone costs no AP
    m = moved(do(enc, "move ari 3,1 4,2"))  # 3 squares, one diagonal: 6 AP
    assert [s.cost for s in m.steps] == [200] * 3 and m.rules == ("ap-squares/crawl",)
    assert ap_left(enc, "ari") == 1
    r = refuse(enc, "move ari 5,2", "ap-squares/crawl")  # 2 AP, 1 left
    assert "2 AP" in r.reason and "1 AP" in r.reason


# --- invade: "This option requires only two (2) AP." ------------------------------------------


def test_a_body_block_with_exactly_2_ap_is_allowed_and_spends_both():
    enc = game("ari blue 1,1 ap=10 strength=1", "bo red 3,1 ap=2")
    do(enc, "move ari 3,1")
    events = do(enc, "react-invasion bo block roll=12 roll=10 by=gm")
    assert spent_by(events, "bo") == [(200, ("ap-squares/invade",))]
    assert ap_left(enc, "bo") == 0 and pos(enc, "ari") == (2, 1)


# --- reflexive-leap: "a character must have at least two (2) AP remaining"; "spend an additional
# two (2) AP increase the leap distance by an additional meter" --------------------------------


def test_a_dive_with_exactly_2_ap_left_is_allowed():
    enc = blast(ap=2)
    events = do(enc, "reflexive-leap ari 3,1 roll=17")
    assert spent_by(events, "ari") == [(200, ("ap-squares/reflexive-leap",))]
    assert pos(enc, "ari") == (3, 1) and ap_left(enc, "ari") == 0


def test_a_two_meter_leap_with_exactly_4_ap_is_allowed_and_with_3_refused():
    enc = blast(ap=4)
    events = do(enc, "reflexive-leap ari 3,4 roll=20")
    assert spent_by(events, "ari") == [(400, ("ap-squares/reflexive-leap",))]
    assert of_type(events, CheckRolled)[0].target == 21
    enc = blast(ap=3)
    refuse(enc, "reflexive-leap ari 3,4 roll=20", "ap-squares/reflexive-leap")


# --- zero-g-drift: "By spending six (6) AP during their turn, a character can twist their body to
# alter the direction of their trajectory" ------------------------------------------------------


def test_turning_a_drift_with_exactly_6_ap_is_allowed_and_with_5_refused():
    enc = weightless("cyn red 8,1 ap=6", grab="ari", rolls="3")
    drifter = enc.state.fighter("cyn").state("gravity", "grounded")
    assert drifter == "drifting"
    while enc.state.turn.active != "cyn":
        do(enc, "end-turn")
    events = do(enc, "turn-drift cyn s")
    assert spent_by(events, "cyn") == [(600, ("ap-squares/zero-g-drift",))]
    enc = weightless("cyn red 8,1 ap=5", grab="ari", rolls="3")
    while enc.state.turn.active != "cyn":
        do(enc, "end-turn")
    refuse(enc, "turn-drift cyn s", "ap-squares/zero-g-drift")


# --- push-off: "Pushing off a stable solid object requires six (6) AP"; "they may spend four (4)
# AP to 'break' their momentum" ------------------------------------------------------------------


def test_pushing_off_with_5_ap_left_is_refused():
    enc = game("ari blue 1,3 ap=9", "bo red 5,3")
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")  # the grab leaves 5 AP
    assert ap_left(enc, "ari") == 5
    r = refuse(enc, "push-off ari e 2", "ap-squares/push-off")
    assert "6 AP" in r.reason


def test_braking_with_exactly_4_ap_is_allowed_and_with_3_refused():
    enc = game("ari blue 1,3 ap=18", "bo red 5,3")
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")  # 14 left
    do(enc, "push-off ari e 3")  # 8 left
    events = do(enc, "brake ari")  # 4 left
    assert spent_by(events, "ari") == [(400, ("ap-squares/push-off",))]
    events = do(enc, "brake ari")  # exactly 4: 0 left
    assert spent_by(events, "ari") == [(400, ("ap-squares/push-off",))]
    enc = game("ari blue 1,3 ap=17", "bo red 5,3")
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")
    do(enc, "push-off ari e 3")
    do(enc, "brake ari")  # 3 left
    refuse(enc, "brake ari", "ap-squares/push-off")
    assert marks(enc, "ari")["trajectory"]["speed"] == 2


# --- zero-g-crawl: "costing two (2) AP for each square of movement" ------------------------------


def test_a_zero_g_crawl_with_exactly_the_ap_left_is_allowed():
    enc = weightless()  # 6 AP left after the grab
    m = moved(do(enc, "move ari 1,4 1,5 2,5"))  # 3 squares along the walls
    assert [s.cost for s in m.steps] == [200] * 3 and m.rules == ("ap-squares/zero-g-crawl",)
    assert ap_left(enc, "ari") == 0


# --- zero-g-grab: "characters may spend four (4) AP to immediately grab a stable solid object" ----


def test_grabbing_with_exactly_4_ap_is_allowed():
    enc = game("ari blue 1,3 ap=4", "bo red 5,3")
    events = do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")
    assert spent_by(events, "ari") == [(400, ("ap-squares/zero-g-grab",))]
    assert enc.state.fighter("ari").state("gravity", "grounded") == "crawling"


# --- invade: "one character attempting to enter a square already occupied by another character":
# any other character, an ally too, may answer the invasion. ---------------------------------------


def test_entering_an_allys_square_is_an_invasion_too_and_waits_for_its_answer():
    enc = game("ari blue 1,1 ap=10", "cyn blue 3,1 ap=10", "bo red 8,5")
    events = do(enc, "move ari 4,1")
    wait = [m for m in of_type(events, Marked) if m.key == "invading"]
    assert wait and wait[0].value["occupant"] == "cyn" and "ap-squares/invade" in wait[0].rules
    assert pos(enc, "ari") == (2, 1) and ap_left(enc, "ari") == 9
    refuse(enc, "move ari 2,2", "ap-squares/invade")  # the move waits for cyn's answer
    do(enc, "react-invasion cyn allow by=blue")
    assert pos(enc, "ari") == (3, 1) and ap_left(enc, "ari") == 8  # "does not add any difficulty"
