"""initiative-yards, situations a GM meets at a real table, each combining two or more rules of
document 000, played through the real engine.

Each test quotes the document's words next to what it asserts. Checks use table rolls: with the
house defaults an Initiative check passes when 1d20 + Initiative (8) reaches 15, so roll=7 passes
and roll=1 fails.
"""

from __future__ import annotations

from support import do, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.types import CheckRolled, Damaged, Linked, Placed, Spent, Unlinked

from tests.rulesets.initiative_yards.test_rules import (
    FAIL,
    IY,
    OPEN,
    PASS,
    arena,
    at,
    cost,
    engagement,
    fighter,
    posture,
)

NO_TURNS = "strict_turns = false"


def encounter_with(rows: list[str], legend: str, fighters: str = "", settings: str = ""):
    """test_rules' arena with one more legend entry."""
    return arena(rows, fighters, settings, legend)


def used(enc, fid: str) -> int:
    return enc.state.fighter(fid).used("movement")


# --- a prone fighter engaged with a standing foe wants to crawl away -------------------------------


def test_a_prone_fighter_engaged_with_a_standing_foe_may_not_crawl_away():
    # "Once a fighter becomes engaged, they can only break the engagement by resolving a combat.
    # Prone fighters become engaged as normal, however fighters that are engaged with a prone fighter
    # and not prone themselves can freely break the engagement": a prone fighter is not "not prone".
    enc = arena(OPEN, fighter("a", "blue", (1, 2)) + fighter("e", "red", (3, 2)), NO_TURNS)
    do(enc, "drop-prone a")
    do(enc, "end-turn")
    do(enc, "move e 2,2")  # e walks into the prone fighter's Reach: both engaged
    assert engagement(enc, "a") == engagement(enc, "e") == "engaged"
    do(enc, "end-turn")
    r = refuse(enc, "move a 1,3", f"{IY}/engaged-actions")
    assert "a is prone" in r.reason
    refuse(enc, "stand-up a", f"{IY}/engaged-actions")  # standing up is done with the movement
    assert at(enc, "a")[:2] == (1, 2) and posture(enc, "a") == "prone"


def test_two_prone_fighters_engaged_with_each_other_stay_engaged():
    # "fighters that are engaged with a prone fighter and not prone themselves can freely break the
    # engagement": both prone, neither is "not prone", so neither breaks away by moving.
    enc = arena(OPEN, fighter("a", "blue", (1, 2)) + fighter("e", "red", (3, 2)), NO_TURNS)
    do(enc, "drop-prone a")
    do(enc, "end-turn")
    do(enc, "drop-prone e")
    do(enc, "end-turn")
    events = do(enc, "move a 2,2")  # a crawls into e's Reach: 2 yd for 1 yd crawled
    assert cost(events) == 2 * CU and of_type(events, Linked)
    do(enc, "end-turn")
    refuse(enc, "move e 5,2", f"{IY}/engaged-actions")


def test_a_standing_fighter_engaged_with_one_prone_and_one_standing_foe_is_held():
    # "fighters that are engaged with a prone fighter and not prone themselves can freely break the
    # engagement": only the engagement with the prone one; the standing foe still holds it.
    enc = arena(
        OPEN,
        fighter("a", "blue", (1, 2)) + fighter("p", "red", (2, 1)) + fighter("s", "red", (2, 3)),
        NO_TURNS,
    )
    do(enc, "drop-prone p")
    do(enc, "move a 2,2")  # into both foes' Reach at once
    assert engagement(enc, "p") == engagement(enc, "s") == "engaged"
    do(enc, "end-turn")
    r = refuse(enc, "move a 1,2", f"{IY}/engaged-actions")
    assert "s is not prone" in r.reason
    assert at(enc, "a")[:2] == (2, 2)


# --- slippery ground under a crawl, a drag, or in an enemy's Reach ---------------------------------

ICE = [
    "##########",
    "#..///...#",
    "#........#",
    "##########",
]


def test_a_crawler_who_fails_on_ice_loses_the_rest_of_the_movement():
    # "If a fighter moves through or onto slippery or unstable terrain they must make an Initiative
    # check or else immediately drop prone and lose the rest of their movement." A crawler is already
    # prone; the check is still made and a failure still loses the rest.
    enc = arena(ICE, fighter("a", "blue", (2, 1)) + fighter("e", "red", (8, 2)), NO_TURNS)
    do(enc, "drop-prone a")
    do(enc, "end-turn")
    do(enc, "end-turn")
    events = do(enc, f"move a 4,1 {FAIL}")
    assert [c.rules for c in of_type(events, CheckRolled)] == [(f"{IY}/slippery",)]
    assert at(enc, "a")[:2] == (3, 1) and posture(enc, "a") == "prone"
    assert used(enc, "a") == 8 * CU  # 2 crawled for the yard, 6 lost
    assert [s.amount for s in of_type(events, Spent) if s.resource == "movement"] == [6 * CU]


def test_a_drag_that_slips_ends_there_and_the_friend_is_put_within_a_yard_of_the_slip():
    # slippery: "immediately drop prone and lose the rest of their movement"; drag: "At the end of
    # the movement place the target of your dragging anywhere within a yard of the moving fighter."
    def rink():
        return arena(
            ICE,
            fighter("a", "blue", (1, 1)) + fighter("b", "blue", (1, 2)) + fighter("e", "red", (8, 2)),
        )

    enc = rink()
    r = refuse(enc, f"drag a b 5,1 put=5,2 {FAIL}", f"{IY}/drag")  # 5,2 is not within a yard of 3,1
    assert "the drag stopped early" in r.reason
    enc = rink()
    events = do(enc, f"drag a b 5,1 put=2,1 {FAIL}")
    assert at(enc, "a")[:2] == (3, 1) and posture(enc, "a") == "prone"
    assert at(enc, "b")[:2] == (2, 1)
    assert used(enc, "a") == 4 * CU  # the drag's halved move action: 2 walked, 2 lost
    assert of_type(events, Placed)[-1].how == "drag"


def test_slipping_in_an_enemys_reach_lands_prone_and_engaged():
    # slippery: "drop prone"; engagement: "If a fighter moves into the Reach of an enemy ... both
    # fighters become engaged! ... Prone fighters become engaged as normal."
    rows = ["##########", "#....../.#", "#........#", "##########"]
    enc = arena(rows, fighter("a", "blue", (1, 1)) + fighter("e", "red", (8, 1)))
    events = do(enc, f"move a 7,1 {FAIL}")
    assert at(enc, "a")[:2] == (7, 1) and posture(enc, "a") == "prone"
    assert of_type(events, Linked) and engagement(enc, "e") == "engaged"
    assert used(enc, "a") == 8 * CU


# --- a failed vault or leap, then the rest of the move -----------------------------------------


def test_after_a_failed_vault_the_rest_of_the_move_is_a_crawl():
    # vault: "must pass an Initiative check or else fall prone on the other side of the barrier";
    # crawl: "While prone ... the distance they can move is halved".
    rows = list(OPEN)
    rows[1] = "#.o..........#"
    enc = arena(rows)
    events = do(enc, f"vault a 3,1 {FAIL}")
    assert at(enc, "a")[:2] == (3, 1) and posture(enc, "a") == "prone"
    assert cost(events) == 2 * CU  # the horizontal distance only: 1,1 to 3,1
    r = refuse(enc, "move a 7,1", f"{IY}/crawl")  # 4 yd crawled cost 8 > 6 left
    assert "only 6 yd are left" in r.reason
    assert cost(do(enc, "move a 6,1")) == 6 * CU


def test_a_missed_leap_lands_prone_in_the_gap_and_in_reach_of_an_enemy_below():
    # leap: "fall to the ground in the middle of the gap"; fall: "falls strait down and drops prone.
    # They also take one point of damage for every yard they fell past their own height";
    # engagement: "Prone fighters become engaged as normal".
    rows = [
        "##############",
        "#..___.......#",
        "#..___.......#",
        "##############",
    ]
    legend_gap = arena(
        rows,
        fighter("a", "blue", (2, 1)) + fighter("e", "red", (4, 2)),
        NO_TURNS,
    )
    enc = legend_gap
    # e stands on the gap floor 4 yd down (placed there by the GM)
    assert at(enc, "e")[2] == -4 * CU
    events = do(enc, f"leap a 6,1 {FAIL}")
    assert at(enc, "a") == (4, 1, -4 * CU) and posture(enc, "a") == "prone"
    assert [d.amount for d in of_type(events, Damaged)] == [2]
    assert of_type(events, Linked) and engagement(enc, "a") == "engaged"


# --- a drag into an enemy's Reach --------------------------------------------------------------


def test_a_drag_into_an_enemys_reach_stops_there_and_the_friend_put_in_reach_is_engaged_too():
    # engage: "If a fighter moves into the Reach of an enemy ... both fighters become engaged!"; drag:
    # "At the end of the movement place the target ... within a yard of the moving fighter".
    enc = arena(
        OPEN,
        fighter("a", "blue", (1, 2)) + fighter("b", "blue", (1, 3)) + fighter("e", "red", (6, 2), reach=2),
    )
    events = do(enc, "drag a b 5,2 put=5,2")  # the drag stops at 4,2, e's 2 yd Reach
    assert at(enc, "a")[:2] == (4, 2) and at(enc, "b")[:2] == (5, 2)
    pairs = {(x.a, x.b) for x in of_type(events, Linked)}
    assert pairs == {("a", "e"), ("b", "e")}
    assert cost(events) == 3 * CU


def test_an_engaged_fighter_may_not_drag_leap_or_pull_up():
    # "While engaged, fighters can only use the Strike, Command, and Manifest actions."
    enc = arena(
        OPEN,
        fighter("a", "blue", (1, 2)) + fighter("b", "blue", (1, 1)) + fighter("e", "red", (3, 2)),
    )
    do(enc, "move a 2,2")
    assert engagement(enc, "a") == "engaged"
    refuse(enc, "drag a b 2,3 put=1,3", f"{IY}/engaged-actions")
    refuse(enc, f"leap a 2,4 {PASS}", f"{IY}/engaged-actions")
    refuse(enc, "open a 2,2|2,3", f"{IY}/engaged-actions")


# --- a move split around a Strike; the turn's end with movement part-spent ----------------------


def test_a_move_split_around_a_command_then_the_next_turn_is_a_whole_new_move_action():
    # combined: "they can perform the non-move action at any point during their move"; move: "they
    # can move up to eight yards" each move action.
    enc = arena()
    assert cost(do(enc, "move a 4,1")) == 3 * CU
    do(enc, "act a command")
    assert cost(do(enc, "move a 9,1")) == 5 * CU
    refuse(enc, "move a 10,1", f"{IY}/move")
    do(enc, "end-turn")
    do(enc, "end-turn")
    assert cost(do(enc, "move a 1,1")) == 8 * CU  # unspent yards never carried over; a full 8 again


def test_a_drag_last_turn_does_not_halve_this_turns_move():
    # drag: "When doing a move while dragging an item, perform a move as normal but half their
    # maximum movement": that move action only.
    enc = arena(
        OPEN, fighter("a", "blue", (1, 1)) + fighter("b", "blue", (2, 1)) + fighter("e", "red", (12, 4))
    )
    do(enc, "drag a b 1,2 put=2,2")
    do(enc, "end-turn")
    do(enc, "end-turn")
    do(enc, "end-turn")
    assert cost(do(enc, "move a 9,2")) == 8 * CU


# --- a crawler drags a friend -------------------------------------------------------------------


def test_a_prone_fighter_dragging_crawls_at_double_cost_on_half_the_movement():
    # crawl: "the distance they can move is halved"; drag: "half their maximum movement": Initiative
    # 8, dragging 4 yd of movement, crawling 2 a yard: 2 yd.
    enc = arena(
        OPEN,
        fighter("a", "blue", (1, 1)) + fighter("b", "blue", (2, 1)) + fighter("e", "red", (12, 4)),
        NO_TURNS,
    )
    do(enc, "drop-prone a")
    do(enc, "end-turn")
    do(enc, "end-turn")
    do(enc, "end-turn")
    assert enc.state.turn.active == "a"
    refuse(enc, "drag a b 1,4 put=2,4", f"{IY}/drag")  # 3 yd crawled cost 6 > 4
    events = do(enc, "drag a b 1,3 put=2,3")
    assert cost(events) == 4 * CU and posture(enc, "a") == "prone"


# --- stepping off a roof with an enemy below ------------------------------------------------------


def test_stepping_off_a_roof_falls_ends_the_move_and_engages_below():
    # fall: "When falling, a fighter falls strait down and drops prone. They also take one point of
    # damage for every yard they fell past their own height"; engage on landing.
    rows = [
        "##########",
        "#^^^.....#",
        "#^^^.....#",
        "##########",
    ]
    enc = arena(rows, fighter("a", "blue", (1, 1)) + fighter("e", "red", (5, 1)))
    events = do(enc, "move a 4,1 6,1")
    assert at(enc, "a") == (4, 1, 0) and posture(enc, "a") == "prone"
    assert [d.amount for d in of_type(events, Damaged)] == [1]  # 3 yd fallen, 1.5 past 1.5 tall
    assert of_type(events, Linked) and engagement(enc, "e") == "engaged"


# --- undo of a batch with a roll ---------------------------------------------------------------------


def test_undoing_a_slip_restores_the_move_and_redo_keeps_the_roll():
    enc = arena(ICE, fighter("a", "blue", (1, 1)) + fighter("e", "red", (8, 2)))
    do(enc, "move a 6,1")  # seeded dice
    before = (at(enc, "a"), posture(enc, "a"), used(enc, "a"))
    rolls = [c.number for c in of_type([r.event for r in enc.records], CheckRolled)]
    do(enc, "undo")
    assert at(enc, "a")[:2] == (1, 1) and posture(enc, "a") == "standing" and used(enc, "a") == 0
    do(enc, "redo")
    assert (at(enc, "a"), posture(enc, "a"), used(enc, "a")) == before
    do(enc, "undo")
    do(enc, "move a 6,1")  # undo is no way to re-roll
    again = [c.number for c in of_type([r.event for r in enc.records], CheckRolled)][-len(rolls) :]
    assert again == rolls


# --- a standing fighter engaged with a prone foe: shifting round it, or leaving ---------------------


def test_stepping_round_a_prone_foe_within_its_reach_keeps_the_engagement():
    # engage-break: "fighters that are engaged with a prone fighter and not prone themselves can freely
    # break the engagement during movements": free to move; a move that never leaves the prone foe's
    # Reach has broken nothing, and the engagement breaks where a move leaves it.
    enc = arena(OPEN, fighter("a", "blue", (1, 2)) + fighter("e", "red", (8, 2), reach=2), NO_TURNS)
    do(enc, "drop-prone e")
    do(enc, "move a 10,2")  # stops at 6,2: e's 2 yd Reach
    assert at(enc, "a")[:2] == (6, 2) and engagement(enc, "a") == "engaged"
    events = do(enc, "move a 7,1")  # 1.41 yd from e: still within its 2 yd Reach
    assert not of_type(events, Unlinked)
    assert engagement(enc, "a") == engagement(enc, "e") == "engaged"
    assert ["engaged", "a", "e"] in [list(x) for x in enc.state.links]
    events = do(enc, "move a 6,1")  # 2.24 yd from e: the engagement breaks there
    (broken,) = of_type(events, Unlinked)
    assert broken.rules == (f"{IY}/engage-break",) and "leaves its Reach at 6,1" in broken.note
    assert engagement(enc, "a") == engagement(enc, "e") == "free"
    assert at(enc, "a")[:2] == (6, 1) and cost(events) == CU  # breaking away costs no yards


# --- a jump that lands on slippery ground, or in an enemy's Reach ------------------------------------


def test_a_vault_landing_on_ice_makes_its_own_check_then_the_slippery_check():
    # vault: "they must pass an Initiative check or else fall prone on the other side of the barrier";
    # slippery: "If a fighter moves through or onto slippery or unstable terrain they must make an
    # Initiative check or else immediately drop prone and lose the rest of their movement."
    rows = list(OPEN)
    rows[1] = "#.o/.........#"
    enc = arena(rows)
    events = do(enc, f"vault a 3,1 {PASS} {FAIL}")
    assert [(c.rules, c.passed) for c in of_type(events, CheckRolled)] == [
        ((f"{IY}/vault",), True),
        ((f"{IY}/slippery",), False),
    ]
    assert at(enc, "a")[:2] == (3, 1) and posture(enc, "a") == "prone" and used(enc, "a") == 8 * CU


def test_a_pull_up_onto_a_slippery_ledge_checks_twice():
    # ledge: "After doing so they must pass an Initiative check or else fall from the top of the
    # ledge"; slippery: moving "onto slippery or unstable terrain" calls for a check too.
    rows = list(OPEN)
    rows[1] = "#.I..........#"
    enc = encounter_with(rows, '"I" = { terrain = "ledge", height = 2, tags = ["slippery"] }')
    events = do(enc, f"pull-up a 2,1 {PASS} {PASS}")
    assert [c.rules for c in of_type(events, CheckRolled)] == [(f"{IY}/ledge",), (f"{IY}/slippery",)]
    assert at(enc, "a") == (2, 1, 2 * CU) and cost(events) == 2 * CU


def test_a_leap_landing_in_an_enemys_reach_engages_on_landing():
    # leap, engage: "If a fighter moves into the Reach of an enemy ... both fighters become engaged!"
    rows = list(OPEN)
    rows[1] = "#..___.......#"
    enc = arena(rows, fighter("a", "blue", (2, 1)) + fighter("e", "red", (7, 1)))
    events = do(enc, f"leap a 6,1 {PASS}")
    assert at(enc, "a")[:2] == (6, 1) and cost(events) == 4 * CU
    assert of_type(events, Linked) and engagement(enc, "a") == engagement(enc, "e") == "engaged"
