"""The undo policy (tabletrail/undo, app/service/encounter.py): players undo and redo only their own side's
batches, the GM any; with undo_seeded = "gm" a batch that drew seeded dice is the GM's alone.
Undo and redo record who asked and why, and verify holds forged ones to the same rules."""

from __future__ import annotations

import msgspec
from support import do, encounter, grid, of_type, refuse
from tabletrail.events.types import CheckRolled, Redone, Undone
from tabletrail.projections.audit import verify_lines

from tests.projections.audit.test_verify import rechain, records

UNDO = "tabletrail/undo"


def arena(undo_seeded: str = "anyone") -> str:
    return f"""
[encounter]
name = "undo policy"
ruleset = "speed-meters"
seed = 3
[settings]
undo_seeded = "{undo_seeded}"
strict_turns = false
{grid(["########", "#......#", "#......#", "########"])}
[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = 4
[[fighters]]
id = "r"
side = "red"
at = [6, 2]
speed = 4
"""


def test_a_player_undoes_their_own_sides_batch_and_the_undo_says_who_and_why():
    enc = encounter(arena())
    do(enc, "move a 3,1 by=blue")
    (undone,) = do(enc, "undo by=blue why='meant 3,2'")
    assert isinstance(undone, Undone) and (undone.by, undone.why) == ("blue", "meant 3,2")
    assert undone.rules == (UNDO,)
    assert enc.state.fighter("a").pos[:2] == (1, 1)
    assert enc.records[-1].actor == "blue"


def test_a_player_may_not_undo_another_sides_batch():
    enc = encounter(arena())
    do(enc, "move r 4,2 by=red")
    r = refuse(enc, "undo by=blue", UNDO)
    assert "entered by red" in r.reason and "only the GM" in r.reason
    assert enc.state.fighter("r").pos[:2] == (4, 2)


def test_a_player_may_not_undo_the_gms_batch_but_the_gm_undoes_anyones():
    enc = encounter(arena())
    do(enc, "move a 3,1")  # entered by the GM
    refuse(enc, "undo by=blue", UNDO)
    do(enc, "move r 4,2 by=red")
    (undone,) = do(enc, "undo")
    assert undone.by == "gm" and enc.state.fighter("r").pos[:2] == (6, 2)


def test_redo_follows_the_same_policy():
    enc = encounter(arena())
    do(enc, "move r 4,2 by=red")
    do(enc, "undo by=red")
    assert "only the GM may redo" in refuse(enc, "redo by=blue", UNDO).reason
    (redone,) = do(enc, "redo by=red why='it was right'")
    assert isinstance(redone, Redone) and redone.why == "it was right"


def test_only_the_latest_batch_in_force_is_undone():
    enc = encounter(arena())
    do(enc, "move a 2,1 by=blue")
    do(enc, "move r 5,2 by=red")
    r = refuse(enc, "undo by=blue", UNDO)  # the latest is red's, so blue can't reach back past it
    assert "entered by red" in r.reason


def _seeded_move(undo_seeded: str):
    enc = encounter(arena(undo_seeded))
    do(enc, "require-test 2,1 target=1 why='loose boards'")
    events = do(enc, "move a 3,1 by=blue")
    assert of_type(events, CheckRolled)[0].source == "seeded"
    return enc


def test_with_undo_seeded_gm_a_player_may_not_undo_a_batch_that_drew_seeded_dice():
    enc = _seeded_move("gm")
    r = refuse(enc, "undo by=blue", UNDO)
    assert "drew seeded dice" in r.reason and 'undo_seeded = "gm"' in r.reason
    (undone,) = do(enc, "undo")  # the GM may
    assert undone.by == "gm"


def test_with_undo_seeded_gm_a_table_roll_is_still_the_players_to_undo():
    enc = encounter(arena("gm"))
    do(enc, "require-test 2,1 target=1 why='loose boards'")
    do(enc, "move a 3,1 by=blue roll=4")
    do(enc, "undo by=blue")


def test_with_undo_seeded_anyone_the_player_may_undo_it_and_the_retry_meets_the_same_draw():
    enc = _seeded_move("anyone")
    first = of_type([r.event for r in enc.records], CheckRolled)[0]
    do(enc, "undo by=blue")
    again = of_type(do(enc, "move a 3,1 by=blue"), CheckRolled)[0]
    assert again.number == first.number  # undo is no way to re-roll


# --- verify holds undo and redo to the timeline's rules --------------------------------------------------


def _retarget(lines: list[bytes], **changes) -> list[bytes]:
    recs = records(lines)
    last = recs[-1]
    event = msgspec.structs.replace(last.event, **changes)
    actor = changes.get("by", last.actor)
    return rechain([*recs[:-1], msgspec.structs.replace(last, event=event, actor=actor)])


def test_verify_accepts_undo_and_redo_made_by_the_policy():
    enc = encounter(arena())
    do(enc, "move a 3,1 by=blue")
    do(enc, "undo by=blue why=oops")
    do(enc, "redo by=blue")
    do(enc, "move r 4,2 by=red")
    report = verify_lines(enc.store.lines)
    assert report["ok"], report["finding"]
    assert report["checked"] == {"command": 2, "undo": 1, "redo": 1}


def test_verify_catches_an_undo_forged_for_another_side():
    enc = encounter(arena())
    do(enc, "move r 4,2 by=red")
    do(enc, "undo by=red")
    f = verify_lines(_retarget(list(enc.store.lines), by="blue"))["finding"]
    assert (f["seq"], f["rule"], f["kind"]) == (len(enc.records), UNDO, "undo")
    assert "entered by red" in f["reason"]


def test_verify_catches_an_undo_of_a_batch_that_is_not_the_latest_in_force():
    enc = encounter(arena())
    do(enc, "move a 2,1")
    do(enc, "move a 3,1")
    do(enc, "undo")
    f = verify_lines(_retarget(list(enc.store.lines), batch=2))["finding"]
    assert f["seq"] == len(enc.records) and f["rule"] == UNDO
    assert f["expected"]["batch"] == 3 and f["recorded"]["batch"] == 2


def test_verify_catches_a_seeded_undo_forged_for_a_player():
    enc = _seeded_move("gm")
    do(enc, "undo")
    f = verify_lines(_retarget(list(enc.store.lines), by="blue"))["finding"]
    assert f["rule"] == UNDO and "drew seeded dice" in f["reason"]


def test_verify_catches_a_command_after_an_undo_that_does_not_abandon_the_redo_branch():
    enc = encounter(arena())
    do(enc, "move a 2,1")
    do(enc, "undo")
    do(enc, "move a 3,1")
    recs = [r for r in records(list(enc.store.lines)) if type(r.event).__name__ != "Abandoned"]
    f = verify_lines(rechain(recs))["finding"]
    assert f["rule"] == UNDO and "abandons the redo branch" in f["reason"]
