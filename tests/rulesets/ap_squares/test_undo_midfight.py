"""ap-squares, fidelity pass 6: a table undoes, redoes, replays and rules mid-fight.

For each stateful rule of document 002 (AP per cycle, postures, invasions and their waits and bans,
area effects and leaps, rotation, gravity, drifts, push-offs, cycles) a batch is undone and redone and
the whole board is compared as a value: undo gives back exactly the state before the batch, redo
exactly the state after it, with no rule re-run and no die re-rolled (catalogue: "Replay, redo and
audit never roll again: they read the recorded numbers"). Every log replays to the live board and
passes `verify`. Fighters are written 'id side x,y stat=value…' (support_ap_squares); the room
is open floor x 1..8, y 1..5.
"""

from __future__ import annotations

from support import do, of_type, refuse
from support_ap_squares import ap_left, game, gravity_of, marks, pos
from tabletrail.events.types import Abandoned, CheckRolled, Moved

from tests.rulesets.initiative_yards.test_undo_midfight import replays, round_trip

AP = "ap-squares"
PAIR = ("ari blue 1,3 ap=10 dexterity=2", "bo red 5,3 ap=10 dexterity=2")


def rolls(events) -> list[int]:
    return [c.number for c in of_type(events, CheckRolled)]


def weightless(*extra: str, **kwargs):
    """Gravity fails over the whole room; ari grabs the west wall, bo drifts (1d8 = 3: east)."""
    enc = game(*PAIR, *extra, **kwargs)
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")
    return enc


# --- walk, crawl, posture: the AP per cycle --------------------------------------------------------


def test_an_undone_walk_gives_its_ap_back_and_the_retry_spends_them_once():
    # walk: "walking costs 1 AP a square"; "AP per cycle is a character stat"
    enc = game("ari blue 1,1 ap=5", "bo red 8,5")
    round_trip(enc, "move ari 4,1")
    assert ap_left(enc, "ari") == 2
    do(enc, "undo")
    assert ap_left(enc, "ari") == 5
    events = do(enc, "move ari 6,1")  # 5 squares: all 5 AP, which the undo gave back
    assert of_type(events, Abandoned) and ap_left(enc, "ari") == 0
    refuse(enc, "redo", "tabletrail/undo")  # the new command abandoned the redo branch
    replays(enc)


def test_dropping_prone_and_crawling_undone_and_redone():
    # crawl: "costing two (2) AP for each square of movement instead of the usual one (1)"
    enc = game("ari blue 1,1 ap=10", "bo red 8,5")
    round_trip(enc, "drop-prone ari")
    round_trip(enc, "move ari 3,1")
    assert ap_left(enc, "ari") == 6 and enc.state.fighter("ari").state("posture", "standing") == "prone"
    do(enc, "undo")
    do(enc, "undo")
    do(enc, "move ari 3,1")  # standing again: 1 AP a square
    assert ap_left(enc, "ari") == 8
    replays(enc)


def test_setting_posture_ap_takes_effect_from_there_and_its_undo_restores_the_free_drop():
    # posture_ap: "AP dropping prone or standing up costs, from the AP per cycle (house default 0)"
    enc = game("ari blue 1,1 ap=10", "bo red 8,5")
    round_trip(enc, "setting posture_ap 2 why='it takes a moment'")
    do(enc, "drop-prone ari")
    assert ap_left(enc, "ari") == 8
    do(enc, "undo")
    do(enc, "undo")  # the setting
    do(enc, "drop-prone ari")
    assert ap_left(enc, "ari") == 10
    replays(enc)


# --- cycles: AP come back as a cycle starts ----------------------------------------------------------


def test_an_undone_cycle_end_takes_the_refresh_back_and_the_cycle_ends_once():
    # ap_refresh cycle: "as each new cycle starts"; walk: AP "per cycle"
    enc = game("ari blue 1,1 ap=10", "bo red 8,5 ap=10", initiative=("ari", "bo"))
    do(enc, "move ari 4,1")
    do(enc, "end-turn")
    do(enc, "move bo 6,5")
    round_trip(enc, "end-turn")  # the cycle ends: both have their 10 AP again
    assert enc.state.turn.round == 2 and ap_left(enc, "ari") == ap_left(enc, "bo") == 10
    do(enc, "undo")
    assert enc.state.turn.round == 1 and ap_left(enc, "ari") == 7 and ap_left(enc, "bo") == 8
    do(enc, "end-turn")
    assert enc.state.turn.round == 2 and ap_left(enc, "ari") == 10 and enc.state.turn.active == "ari"
    replays(enc)


def test_setting_ap_refresh_turn_then_undone():
    # ap_refresh: "'cycle' (as each new cycle starts ...) or 'turn' (as the character's own turn starts)"
    enc = game("ari blue 1,1 ap=10", "bo red 8,5 ap=10", initiative=("ari", "bo"))
    do(enc, "move ari 4,1")
    round_trip(enc, "setting ap_refresh turn why='our table refreshes per turn'")
    do(enc, "end-turn")
    do(enc, "end-turn")  # ari's own turn starts: its AP come back
    assert ap_left(enc, "ari") == 10
    replays(enc)


# --- invade: the wait, the parry, the ban ------------------------------------------------------------


def test_an_invasion_wait_undone_gives_back_the_ap_and_the_square():
    # invade: "Doing so does not add any difficulty to the movement, but allows the character already
    # occupying the square to parry the attempt"
    enc = game("ari blue 1,1 ap=10", "bo red 3,1 ap=10")
    round_trip(enc, "move ari 3,1")
    assert marks(enc, "ari")["invading"]["cell"] == [3, 1]
    do(enc, "undo")
    assert "invading" not in marks(enc, "ari") and ap_left(enc, "ari") == 10
    replays(enc)


def test_an_undone_body_block_lifts_the_ban_and_the_retry_reads_the_same_seeded_rolls():
    # invade: "If a character attempts to invade a space and is prevented from doing so, they may not
    # make another attempt to invade the same space during the same cycle."
    enc = game("ari blue 1,1 ap=10", "bo red 3,1 ap=10")
    do(enc, "move ari 3,1")
    round_trip(enc, "react-invasion bo block roll=12 roll=1 by=gm")
    assert pos(enc, "ari") == (2, 1)
    refuse(enc, "move ari 3,1", f"{AP}/invade")
    do(enc, "undo")  # the block: ari waits at 2,1 to enter again
    assert marks(enc, "ari")["invading"]["cell"] == [3, 1]
    do(enc, "undo")  # the move
    do(enc, "move ari 2,1")
    do(enc, "move ari 3,1")  # no ban: the block that made it is gone
    replays(enc)


def test_the_ban_ends_with_the_cycle_and_an_undone_cycle_end_brings_it_back():
    # invade: "they may not make another attempt to invade the same space during the same cycle"
    enc = game("ari blue 1,1 ap=10", "bo red 3,1 ap=10", initiative=("ari", "bo"))
    do(enc, "move ari 3,1")
    do(enc, "react-invasion bo block roll=12 roll=1 by=gm")
    do(enc, "end-turn")
    round_trip(enc, "end-turn")  # cycle 2: the ban is over
    assert "blocked" not in marks(enc, "ari")
    do(enc, "move ari 3,1")  # a new cycle: a new attempt
    do(enc, "undo")
    do(enc, "undo")  # the cycle's end: back in cycle 1, bo's turn, the ban with it
    assert marks(enc, "ari")["blocked"] == [[3, 1]] and enc.state.turn.round == 1
    do(enc, "end-turn")  # the cycle ends once more, and once
    assert enc.state.turn.round == 2 and "blocked" not in marks(enc, "ari")
    do(enc, "move ari 3,1")
    replays(enc)


def test_setting_share_square_no_refuses_the_invasion_from_there():
    # share_square: "no: occupied squares can't be entered at all"
    enc = game("ari blue 1,1 ap=10", "bo red 3,1 ap=10")
    round_trip(enc, "setting share_square no why='no sharing'")
    refuse(enc, "move ari 3,1", f"{AP}/invade")
    do(enc, "undo")
    do(enc, "move ari 3,1")
    assert marks(enc, "ari")["invading"]["cell"] == [3, 1]
    replays(enc)


# --- reflexive leap and area effects ---------------------------------------------------------------


def test_an_area_effect_and_a_leap_undone_and_redone():
    # reflexive-leap: "dive into the adjacent square, which completely avoids any damage"; default
    # ruling: "the leap costs 2 AP"
    enc = game("ari blue 3,2 ap=10 celerity=0", "bo red 8,5")
    round_trip(enc, "area-effect 2,2 3,2 4,2 damage=6")
    events = round_trip(enc, "reflexive-leap ari 3,1 roll=18")
    assert rolls(events) == [18] and pos(enc, "ari") == (3, 1) and ap_left(enc, "ari") == 8
    round_trip(enc, "area-hit")
    assert enc.state.fighter("ari").damage == 0
    do(enc, "undo")
    do(enc, "undo")  # the leap: ari is caught again
    do(enc, "area-hit")
    assert enc.state.fighter("ari").damage == 6
    replays(enc)


def test_setting_leap_ap_takes_effect_from_there():
    # leap_ap: "AP a reflexive leap (dive or brace) costs, before 2 AP for each extra meter"
    enc = game("ari blue 3,2 ap=10 celerity=0", "bo red 8,5")
    round_trip(enc, "setting leap_ap 3 why='a heavier dive'")
    do(enc, "area-effect 2,2 3,2 4,2 damage=6")
    do(enc, "reflexive-leap ari 3,1 roll=18")
    assert ap_left(enc, "ari") == 7
    do(enc, "undo")
    do(enc, "undo")
    do(enc, "undo")  # the setting
    do(enc, "area-effect 2,2 3,2 4,2 damage=6")
    do(enc, "reflexive-leap ari 3,1 roll=18")
    assert ap_left(enc, "ari") == 8
    replays(enc)


# --- rotate-about ----------------------------------------------------------------------------------


def test_a_rotation_undone_lets_the_other_way_round_again():
    # rotate-about: "Rotating About a tile never allows a character to change directions and return to
    # the tile they immediately travelled from."
    enc = game("ari blue 6,4 ap=10", "bo red 1,1")
    round_trip(enc, "rotate-about ari 6,3 cw 2")
    do(enc, "undo")
    do(enc, "rotate-about ari 6,3 ccw 2")  # the undone rotation left no direction behind
    replays(enc)


# --- zero gravity ----------------------------------------------------------------------------------


def test_gravity_off_undone_grounds_everyone_and_the_seeded_trajectory_is_drawn_again_the_same():
    # zero-g-drift: "This trajectory is determined randomly at the time they cease to be exposed to
    # gravity."; catalogue: "Replay, redo and audit never roll again"
    enc = game(*PAIR)
    dice = enc.state.dice
    events = round_trip(enc, "gravity-off 1,1 8,5 grab=ari")
    assert gravity_of(enc, "ari") == "crawling" and gravity_of(enc, "bo") == "drifting"
    first = (rolls(events), marks(enc, "bo")["trajectory"])
    do(enc, "undo")
    assert enc.state.dice == dice and gravity_of(enc, "bo") == "grounded" and ap_left(enc, "ari") == 10
    again = do(enc, "gravity-off 1,1 8,5 grab=ari")
    assert (rolls(again), marks(enc, "bo")["trajectory"]) == first
    replays(enc)


def test_a_drift_at_turn_start_is_undone_with_the_turn_end_and_happens_once_again():
    # zero-g-drift: "at the start of their turn in the cycle, they drift one (1) tile along their current
    # trajectory"
    enc = weightless()
    round_trip(enc, "end-turn")
    assert pos(enc, "bo") == (6, 3)
    do(enc, "undo")
    assert pos(enc, "bo") == (5, 3)
    events = do(enc, "end-turn")
    assert [s.to[:2] for m in of_type(events, Moved) for s in m.steps] == [(6, 3)]  # one square, once
    replays(enc)


def test_turn_drift_grab_hold_and_let_go_undone_and_redone():
    # zero-g-drift: "By spending six (6) AP during their turn, a character can twist their body to alter
    # the direction of their trajectory"; zero-g-grab: 4 AP
    enc = weightless()
    do(enc, "end-turn")
    round_trip(enc, "turn-drift bo s")
    assert marks(enc, "bo")["trajectory"] == {"dir": "s", "speed": 1} and ap_left(enc, "bo") == 4
    do(enc, "undo")
    do(enc, "turn-drift bo n")  # the 6 AP are back
    replays(enc)
    enc = game("ari blue 1,3", "bo red 7,3")
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")
    do(enc, "end-turn")  # bo drifts to 8,3, next to the east wall
    round_trip(enc, "grab-hold bo")
    assert gravity_of(enc, "bo") == "crawling"
    round_trip(enc, "let-go bo w")
    assert gravity_of(enc, "bo") == "drifting" and marks(enc, "bo")["trajectory"]["dir"] == "w"


def test_push_off_and_brake_undone_and_redone():
    # push-off: "Pushing off a stable solid object requires six (6) AP"; "they may spend four (4) AP to
    # "break" their momentum and slow down their speed by one (1) meter"
    enc = game("ari blue 1,3 ap=30", "bo red 5,3")
    do(enc, "gravity-off 1,1 8,5 grab=ari roll=3")
    round_trip(enc, "push-off ari e 3")
    assert gravity_of(enc, "ari") == "pushing_off"
    round_trip(enc, "brake ari")
    round_trip(enc, "brake ari")
    assert gravity_of(enc, "ari") == "drifting" and marks(enc, "ari")["trajectory"]["speed"] == 1
    do(enc, "undo")
    r = refuse(enc, "turn-drift ari s", f"{AP}/push-off")  # 2 m per cycle again: the direction is held
    assert "can't change until braked" in r.reason
    replays(enc)


def test_gravity_on_undone_puts_the_weightless_back():
    # zero-g-penalties: "These penalties persist until a character returns to normal gravity."
    enc = weightless(settings="strict_turns = false")
    round_trip(enc, "gravity-on 1,1 8,5")
    do(enc, "undo")
    assert gravity_of(enc, "bo") == "drifting" and marks(enc, "bo")["trajectory"]["dir"] == "e"
    refuse(enc, "move bo 6,4", f"{AP}/zero-g-drift")
    replays(enc)


# --- the GM's rulings ------------------------------------------------------------------------------


def test_place_adjust_forbid_lift_override_and_require_test_undo_and_redo():
    enc = game("ari blue 1,1 ap=5", "bo red 8,5", settings="strict_turns = false")
    round_trip(enc, "place bo 6,3 why='it was there all along'")
    round_trip(enc, "adjust ari 2 resource=ap why='adrenaline'")
    do(enc, "move ari 8,1")  # 7 AP: 5 and the 2 given
    do(enc, "undo")
    do(enc, "undo")  # the adjust
    refuse(enc, "move ari 8,1", f"{AP}/walk")
    round_trip(enc, "forbid 3,1 why='a hull breach'")
    refuse(enc, "move ari 4,1", "tabletrail/gm-ruling")
    round_trip(enc, "lift 3,1 why='patched'")
    do(enc, "move ari 4,1")
    do(enc, "undo")
    do(enc, "undo")  # the lift
    refuse(enc, "move ari 4,1", "tabletrail/gm-ruling")
    round_trip(enc, f"override ari 4,1 {AP}/walk why='a hatch'")
    assert pos(enc, "ari") == (4, 1)
    round_trip(enc, "require-test 5,1 target=4 why='oil'")
    assert rolls(do(enc, "move ari 6,1 roll=4")) == [4]
    do(enc, "undo")
    do(enc, "undo")  # the require-test
    assert not of_type(do(enc, "move ari 6,1"), CheckRolled)
    replays(enc)


def test_adjust_and_an_override_cost_with_no_resource_named_are_in_ap():
    # catalogue: ap-squares' budget is "Action points per cycle; 1 AP a square walking"; `tabletrail
    # commands`: adjust gives "a fighter's remaining movement", which here is AP
    enc = game("ari blue 1,1 ap=5", "bo red 8,5")
    do(enc, "adjust ari 2 why='adrenaline'")
    assert ap_left(enc, "ari") == 7
    do(enc, "move ari 8,1")  # 7 squares for 7 AP
    do(enc, "undo")
    do(enc, "undo")
    assert ap_left(enc, "ari") == 5
    do(enc, f"override ari 4,1 {AP}/walk cost=3 why='through the hatch'")
    assert ap_left(enc, "ari") == 2
    replays(enc)


def test_while_an_invasion_waits_the_gm_rules_nothing_but_may_undo_the_move():
    # ap-squares takes only the occupant's answer while a move waits (an engine reading, kept): the
    # GM's way back is undo, which the encounter handles before any rule
    enc = game("ari blue 1,1 ap=10", "bo red 3,1 ap=10")
    do(enc, "move ari 3,1")
    refuse(enc, "setting share_square no why='no sharing'", f"{AP}/invade")
    refuse(enc, "place bo 5,5 why='it stepped aside'", f"{AP}/invade")
    do(enc, "undo")
    round_trip(enc, "place bo 5,5 why='it stepped aside'")
    do(enc, "move ari 3,1")
    assert pos(enc, "ari") == (3, 1) and "invading" not in marks(enc, "ari")
    replays(enc)


# --- who may undo ----------------------------------------------------------------------------------


def test_a_side_undoes_only_its_own_batches_and_undo_seeded_gm_keeps_seeded_rolls_for_the_gm():
    # tabletrail/undo: "players undo only their own side's batches, the GM any (undo_seeded = gm keeps
    # batches with seeded rolls for the GM)"
    enc = game(
        "ari blue 1,1 ap=10",
        "bo red 3,1 ap=10",
        settings="strict_turns = false\nundo_seeded = 'gm'",
    )
    do(enc, "move bo 4,1 by=red")
    refuse(enc, "undo by=blue", "tabletrail/undo")
    round_trip(enc, "forbid 8,5 why='a hull breach'")
    assert "only the GM" in refuse(enc, "undo by=red", "tabletrail/undo").reason  # a ruling is the GM's
    round_trip(enc, "move bo 3,1 by=red", by="red")
    do(enc, "move ari 3,1 by=blue")  # waits to invade bo's square
    do(enc, "react-invasion bo block by=red")  # seeded opposed Strength rolls
    r = refuse(enc, "undo by=red", "tabletrail/undo")
    assert "drew seeded dice" in r.reason
    do(enc, "undo")  # the GM may
    assert marks(enc, "ari")["invading"]["cell"] == [3, 1]
    replays(enc)
