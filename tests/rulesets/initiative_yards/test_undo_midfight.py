"""initiative-yards, fidelity pass 6: a table undoes, redoes, replays and rules mid-fight.

For each stateful rule of document 000 (budgets, postures, engagement, drags, falls, doors, turns,
rounds) a batch is undone and redone and the whole board is compared as a value: undo gives back
exactly the state before the batch, redo exactly the state after it, with no rule re-run and no die
re-rolled (catalogue: "Replay, redo and audit never roll again: they read the recorded numbers").
Every log replays to the live board and passes `verify`. Checks use table rolls where a number
matters: 1d20 + Initiative (8) >= 15, so roll=7 passes and roll=1 fails.
"""

from __future__ import annotations

from support import CLOCK, do, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.types import Abandoned, CheckRolled, Redone, Undone
from tabletrail.projections.audit.verify import verify_lines
from tabletrail.service.encounter import Encounter

from tests.rulesets.initiative_yards.test_rules import (
    FAIL,
    IY,
    OPEN,
    arena,
    at,
    engagement,
    fighter,
    ice,
    posture,
)

NO_TURNS = "strict_turns = false"
GAPS = [
    "##############",
    "#..___._____.#",
    "#............#",
    "##############",
]
LEDGES = [
    "##############",
    "#.LT.........#",
    "#............#",
    "##############",
]
VAULTS = [
    "##############",
    "#..o.........#",
    "#............#",
    "##############",
]


def used(enc: Encounter, fid: str) -> int:
    return enc.state.fighter(fid).used("movement")


def value(state) -> tuple:
    """The board as a value: every field of the state but the grid, an object built from the
    scenario (compared with it) that has no value equality of its own."""
    return tuple(getattr(state, f) for f in state.__struct_fields__ if f != "grid")


def replays(enc: Encounter) -> None:
    """The log folds again to the live board, and verify passes it."""
    again = Encounter.open(MemoryStore(list(enc.store.lines)), clock=lambda: CLOCK)
    assert value(again.state) == value(enc.state)
    assert again.timeline.applied == enc.timeline.applied and again.timeline.undone == enc.timeline.undone
    report = verify_lines(list(enc.store.lines))
    assert report["ok"], report["finding"]


def round_trip(enc: Encounter, text: str, by: str = "gm") -> list:
    """Run `text`; undo must give back the exact board before, redo the exact board after, deciding
    and rolling nothing; the log replays and verifies at each point. Leaves the batch redone."""
    before, dice = enc.state, enc.state.dice
    events = do(enc, text)
    after = enc.state
    assert after != before, f"{text!r} changed nothing"
    assert [type(e) for e in do(enc, f"undo by={by}")] == [Undone]
    assert enc.state == before and enc.state.dice == dice
    replays(enc)
    assert [type(e) for e in do(enc, f"redo by={by}")] == [Redone]  # no rule runs, no die is drawn
    assert enc.state == after
    replays(enc)
    return events


def rolls(events) -> list[int]:
    return [c.number for c in of_type(events, CheckRolled)]


# --- move, crawl, prone: budgets and postures --------------------------------------------------------


def test_undo_of_a_move_gives_back_the_yards_and_the_retry_spends_them_once():
    # move: "they can move up to eight yards across the battlefield"
    enc = arena()
    round_trip(enc, "move a 5,1")
    assert used(enc, "a") == 4 * CU
    round_trip(enc, "move a 5,3")
    do(enc, "undo")
    assert used(enc, "a") == 4 * CU
    do(enc, "move a 9,1")  # the 4 yd the undone move spent are back: 4 + 4 = 8 = Initiative
    assert used(enc, "a") == 8 * CU
    refuse(enc, "move a 9,2", f"{IY}/move")
    replays(enc)


def test_a_command_after_an_undo_abandons_the_redo_branch():
    enc = arena()
    do(enc, "move a 5,1")
    do(enc, "undo")
    events = do(enc, "move a 1,3")
    assert of_type(events, Abandoned)
    refuse(enc, "redo", "tabletrail/undo")
    assert at(enc, "a")[:2] == (1, 3) and used(enc, "a") == 2 * CU
    replays(enc)


def test_the_alternating_diagonal_count_comes_back_with_the_undo():
    # setting diagonal: "alternating (1, 2, 1, 2... counted over the whole move action, across its commands)"
    enc = arena(settings='diagonal = "alternating"')
    do(enc, "move a 2,2")  # the 1st diagonal: 1 yd
    round_trip(enc, "move a 3,3")  # the 2nd: 2 yd
    assert used(enc, "a") == 3 * CU
    do(enc, "undo")
    do(enc, "move a 3,3")  # still the 2nd diagonal of the move action, not the 3rd
    assert used(enc, "a") == 3 * CU
    replays(enc)


def test_undo_of_dropping_prone_stands_the_fighter_with_its_whole_move_again():
    # prone-drop: "Fighters can spend their movement either dropping prone or standing up"; catalogue
    # default: "it uses the whole movement of that move action"
    enc = arena()
    round_trip(enc, "drop-prone a")
    assert posture(enc, "a") == "prone" and used(enc, "a") == 8 * CU
    do(enc, "undo")
    assert posture(enc, "a") == "standing" and used(enc, "a") == 0
    do(enc, "move a 3,1")  # walks, standing, at 1 yd a yard
    assert used(enc, "a") == 2 * CU


def test_undo_and_redo_of_standing_up_and_of_a_crawl():
    # crawl: "the distance they can move is halved": every yard crawled costs 2
    enc = arena(fighters=fighter("a", "blue", (1, 1)) + fighter("e", "red", (12, 4)), settings=NO_TURNS)
    do(enc, "drop-prone a")
    do(enc, "end-turn")
    do(enc, "end-turn")
    round_trip(enc, "move a 3,1")
    assert used(enc, "a") == 4 * CU and posture(enc, "a") == "prone"
    do(enc, "end-turn")
    do(enc, "end-turn")
    round_trip(enc, "stand-up a")
    assert posture(enc, "a") == "standing" and used(enc, "a") == 8 * CU


# --- checks and falls: the roll is read, never drawn again -------------------------------------------


def test_a_failed_ledge_pull_up_undone_and_redone_keeps_the_fall_and_the_damage():
    # ledge: "After doing so they must pass an Initiative check or else fall from the top of the ledge."
    # fall: "a fighter falls strait down and drops prone. They also take one point of damage for every
    # yard they fell past their own height"
    enc = arena(LEDGES, fighter("a", "blue", (3, 2), height=2) + fighter("e", "red", (12, 2)))
    events = round_trip(enc, f"pull-up a 3,1 {FAIL}")
    assert posture(enc, "a") == "prone" and enc.state.fighter("a").damage == 1  # 3 yd, 1 past 2 tall
    assert rolls(events) == [1]


def test_a_seeded_vault_undone_then_retried_meets_the_same_draw():
    # vault: "they must pass an Initiative check or else fall prone on the other side of the barrier";
    # catalogue: "Replay, redo and audit never roll again"
    enc = arena(VAULTS, fighter("a", "blue", (2, 1)) + fighter("e", "red", (12, 2)))
    dice = enc.state.dice
    events = round_trip(enc, "vault a 4,1")  # seeded
    assert enc.state.dice == dice + 1
    first = (rolls(events), enc.state)
    do(enc, "undo")
    assert enc.state.dice == dice  # the dice counter comes back with the board
    again = do(enc, "vault a 4,1")
    assert (rolls(again), enc.state) == first
    replays(enc)


def test_a_failed_leap_undone_and_redone_keeps_the_fighter_in_the_gap():
    # leap: "the fighter will have to pass an Initiative check or else fall to the ground in the middle
    # of the gap"
    enc = arena(GAPS, fighter("a", "blue", (2, 1)) + fighter("e", "red", (12, 2)))
    round_trip(enc, f"leap a 6,1 {FAIL}")
    assert posture(enc, "a") == "prone" and at(enc, "a")[2] < 0


def test_a_slip_per_move_undone_is_checked_again_by_the_next_move():
    # slippery: "they must make an Initiative check or else immediately drop prone"; setting
    # slippery_checks per-move: "one per move action"
    enc = ice('slippery_checks = "per-move"')
    assert len(rolls(round_trip(enc, "move a 3,1 roll=7"))) == 1
    do(enc, "undo")
    assert len(rolls(do(enc, "move a 3,1 roll=7"))) == 1  # the undone check is not counted as made
    assert len(rolls(do(enc, "move a 5,1"))) == 0  # the move action's one check is made
    replays(enc)


def test_a_slip_that_loses_the_movement_is_undone_whole():
    # slippery: "drop prone and lose the rest of their movement"
    enc = ice()
    round_trip(enc, "move a 7,1 roll=7,1")
    assert posture(enc, "a") == "prone" and used(enc, "a") == 8 * CU


# --- drag, combined actions, engagement --------------------------------------------------------------


def test_a_drag_undone_puts_both_back_and_redo_both_forward():
    # drag: "perform a move as normal but half their maximum movement. At the end of the movement place
    # the target of your dragging anywhere within a yard of the moving fighter."
    fighters = fighter("a", "blue", (1, 1)) + fighter("b", "blue", (2, 1)) + fighter("e", "red", (12, 4))
    enc = arena(OPEN, fighters)
    round_trip(enc, "drag a b 5,1 put=4,1")
    assert at(enc, "a")[:2] == (5, 1) and at(enc, "b")[:2] == (4, 1)
    do(enc, "undo")
    refuse(enc, "drag a b 6,1 put=5,1", f"{IY}/drag")  # 5 yd > half of 8, whatever was undone
    do(enc, "drag a b 5,1 put=4,1")
    replays(enc)


def test_an_action_undone_may_be_taken_again_once():
    # combined: "they can perform the non-move action at any point during their move"; setting
    # actions_per_turn = 1
    enc = arena()
    do(enc, "move a 3,1")
    round_trip(enc, "act a manifest")
    do(enc, "undo")
    do(enc, "act a manifest")
    refuse(enc, "act a strike", f"{IY}/combined")
    do(enc, "move a 5,1")  # the move then continues
    replays(enc)


def test_an_engagement_undone_frees_both_and_redone_links_both():
    # engage: "If a fighter moves into the Reach of an enemy ... both fighters become engaged!"
    enc = arena(OPEN, fighter("a", "blue", (1, 2)) + fighter("e", "red", (8, 2)))
    round_trip(enc, "move a 10,2")
    assert engagement(enc, "a") == engagement(enc, "e") == "engaged" and enc.state.links
    do(enc, "undo")
    assert engagement(enc, "a") == engagement(enc, "e") == "free" and not enc.state.links
    do(enc, "move a 5,2")  # free to move: nothing engages it now
    replays(enc)


def test_a_resolve_undone_brings_the_engagement_back():
    # engage-break: "Once a fighter becomes engaged, they can only break the engagement by resolving a
    # combat."
    enc = arena(OPEN, fighter("a", "blue", (1, 2)) + fighter("e", "red", (8, 2)))
    do(enc, "move a 10,2")
    do(enc, "act a strike target=e")
    round_trip(enc, 'resolve a e outcome="a hits" damage=1')
    assert not enc.state.links and enc.state.fighter("e").damage == 1
    do(enc, "undo")
    assert enc.state.links and enc.state.fighter("e").damage == 0
    refuse(enc, "move a 6,2", f"{IY}/engaged-actions")  # engaged again: only a resolved combat frees
    replays(enc)


# --- doors, turns and rounds -------------------------------------------------------------------------


# (doors: undo of open and close is pinned for every ruleset in tests/core/test_doors.py)


def test_an_undone_turn_end_gives_the_turn_back_and_the_round_ends_once():
    # move: the budget is "a movement action" a turn; turns pass in initiative order (tabletrail/turn-order)
    enc = arena()
    do(enc, "move a 5,1")
    round_trip(enc, "end-turn")
    assert enc.state.turn.active == "e" and enc.state.turn.round == 1
    do(enc, "move e 10,4")
    round_trip(enc, "end-turn")  # the last of the round: round 2, a's new move action
    assert (enc.state.turn.round, enc.state.turn.active, used(enc, "a")) == (2, "a", 0)
    do(enc, "undo")
    assert enc.state.turn.round == 1 and enc.state.turn.active == "e" and used(enc, "e") == 2 * CU
    assert used(enc, "a") == 4 * CU
    do(enc, "end-turn")  # the round ends exactly once
    assert (enc.state.turn.round, enc.state.turn.active, used(enc, "a")) == (2, "a", 0)
    replays(enc)


# --- the GM's rulings --------------------------------------------------------------------------------


def test_a_setting_takes_effect_from_there_and_its_undo_restores_the_old_one():
    # drop_prone_cost: "'whole' the whole movement of the move action (none of it may be spent yet),
    # 'rest' whatever is left of it"
    enc = arena()
    do(enc, "move a 3,1")
    refuse(enc, "drop-prone a", f"{IY}/prone-drop")
    round_trip(enc, "setting drop_prone_cost rest why='house rule'")
    assert enc.state.settings["drop_prone_cost"] == "rest"
    do(enc, "undo")
    refuse(enc, "drop-prone a", f"{IY}/prone-drop")  # the old ruling is back
    do(enc, "redo")
    do(enc, "drop-prone a")
    assert posture(enc, "a") == "prone" and used(enc, "a") == 8 * CU  # 2 walked, 6 left spent
    replays(enc)


def test_setting_engaged_move_within_reach_then_undone():
    # engaged_move: "'within-reach': it may shift while staying within the Reach that engages it"
    enc = arena(OPEN, fighter("a", "blue", (1, 2)) + fighter("e", "red", (8, 2)))
    do(enc, "move a 10,2")
    round_trip(enc, "setting engaged_move within-reach why='we shift in melee'")
    do(enc, "move a 8,1")
    do(enc, "undo")
    do(enc, "undo")
    refuse(enc, "move a 8,1", f"{IY}/engaged-actions")  # "Move is refused"
    replays(enc)


def test_setting_checks_table_then_undone_draws_seeded_again():
    # checks: "'table' refuses until the table enters the roll"
    enc = ice()
    round_trip(enc, "setting checks table why='we roll at the table'")
    refuse(enc, "move a 3,1", "tabletrail/checks")
    do(enc, "undo")
    (check,) = of_type(do(enc, "move a 3,1"), CheckRolled)
    assert check.source == "seeded"
    replays(enc)


def test_place_adjust_forbid_lift_override_and_require_test_undo_and_redo():
    enc = arena(settings=NO_TURNS)
    round_trip(enc, "place e 6,3 why='it was there all along'")
    round_trip(enc, "adjust a 2 why='a blessing'")
    do(enc, "move a 11,1")  # 10 yd: Initiative 8 and the 2 given
    do(enc, "undo")
    do(enc, "undo")  # the adjust
    refuse(enc, "move a 11,1", f"{IY}/move")  # with the adjust undone, 10 yd is too far
    round_trip(enc, "forbid 3,1 why='a pit opens'")
    refuse(enc, "move a 4,1", "tabletrail/gm-ruling")
    round_trip(enc, "lift 3,1 why='planks laid'")
    do(enc, "move a 4,1")
    do(enc, "undo")
    do(enc, "undo")  # the lift
    refuse(enc, "move a 4,1", "tabletrail/gm-ruling")
    round_trip(enc, f"override a 4,1 {IY}/move why='the pit is shallow'")
    assert at(enc, "a")[:2] == (4, 1)
    round_trip(enc, "require-test 5,1 target=4 why='oil'")
    events = do(enc, "move a 6,1 roll=4")
    assert rolls(events) == [4]
    do(enc, "undo")
    do(enc, "undo")  # the require-test
    assert not of_type(do(enc, "move a 6,1"), CheckRolled)
    replays(enc)


# --- who may undo ------------------------------------------------------------------------------------


def test_a_side_undoes_only_its_own_batches_and_undo_seeded_gm_keeps_seeded_rolls_for_the_gm():
    # tabletrail/undo: "players undo only their own side's batches, the GM any (undo_seeded = gm keeps
    # batches with seeded rolls for the GM)"
    enc = ice("undo_seeded = 'gm'\n" + NO_TURNS)
    do(enc, "move e 8,1 by=red")
    refuse(enc, "undo by=blue", "tabletrail/undo")
    round_trip(enc, "move e 7,2 by=red", by="red")
    do(enc, "move a 3,1 roll=7 by=blue")  # a table roll: the player's to undo
    round_trip(enc, "setting checks table why='the dice'")  # a ruling: not the player's
    assert "only the GM" in refuse(enc, "undo by=blue", "tabletrail/undo").reason
    do(enc, "undo")
    do(enc, "undo by=blue")
    do(enc, "move a 3,1 by=blue")  # seeded
    r = refuse(enc, "undo by=blue", "tabletrail/undo")
    assert "drew seeded dice" in r.reason
    do(enc, "undo")
    replays(enc)


def test_switching_to_per_move_checks_mid_move_action_counts_the_check_already_made():
    # setting slippery_checks: "'per-move': one per move action"; the GM's setting takes effect from
    # there, and the move action it falls in has had its check
    enc = ice()
    do(enc, "move a 3,1 roll=7")  # per-cell: a check on 3,1
    do(enc, "setting slippery_checks per-move why='one check is enough'")
    assert not rolls(do(enc, "move a 4,1"))  # the move action's one check is made
    do(enc, "undo")
    do(enc, "undo")  # the setting: per-cell again
    assert len(rolls(do(enc, "move a 4,1 roll=7"))) == 1
    replays(enc)
