"""Issue 13, items 1a, 3 and 4: every number checked before decide, every fighter's side, named limits.

"A table roll above 2^64 is accepted and logged ... every number a command
carries is range-checked before decide (a table roll must be a face of its die:
roll=999 or roll=-7 on 1d6, roll=0 on a d6 are refused with the die named)."
"Every command must be checked against the acting side for every fighter it
touches (end-turn, ... rolls of an opposed check: a side enters its own
fighters' rolls, the GM any)." "Limits (body size, command length, waypoints,
map cells — each a named, documented constant with a clear error)."
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import do, encounter, refuse
from tabletrail.cli import main
from tabletrail.core.board.refusal import Rejection
from tabletrail.events import limits
from tabletrail.events.commands import EndTurn, Move
from tabletrail.events.commands.rulings import Adjust
from tabletrail.events.errors import InputError
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.service.syntax import parse

from tests.rulesets.speed_meters.test_forces import brawl
from tests.rulesets.speed_meters.test_scenes import fighter, scene

ROOT = Path(__file__).resolve().parents[2]
OPEN = ["#########", "#.......#", "#.......#", "#.......#", "#########"]


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# --- 1a: a table roll is a face of its die ---------------------------------------------------


@pytest.mark.parametrize("roll", [0, -5, -7, 7, 999])
def test_a_table_roll_off_the_d6_is_refused_with_the_die_named(roll: int):
    enc = brawl(a_brawn=2, t_brawn=1)
    r = refuse(enc, f"grab a t roll={roll} roll=2", "speed-meters/grab")
    assert f"roll={roll}" in r.reason and "not a face of 1d6" in r.reason and "1 to 6" in r.reason


def test_every_face_of_the_d6_is_taken():
    for roll in range(1, 7):
        enc = brawl(a_brawn=2, t_brawn=1)
        do(enc, f"grab a t roll={roll} roll=1")


@pytest.mark.parametrize("roll", [2**64 + 1, 2**64, -(2**70), limits.MAX_ROLL + 1])
def test_a_roll_past_any_die_is_bad_input_before_decide(roll: int):
    with pytest.raises(InputError, match=f"roll={roll}: out of range"):
        parse(f"grab a t roll={roll} roll=2")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400"])
def test_non_finite_numbers_are_refused(value: str):
    with pytest.raises(InputError, match="finite"):
        parse(f"adjust a {value}")
    enc = brawl()
    before = list(enc.store.lines)
    result = enc.execute(Adjust(fighter="a", amount=float(value)))  # built in code: decide checks it too
    assert isinstance(result, Rejection) and "finite" in result.reason
    assert enc.store.lines == before


def test_a_huge_roll_on_sqlite_at_a_snapshot_point_is_exit_2_and_appends_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """The reported crash: roll > 2^64 logged, then the snapshot write overflowed (exit 1, 500)."""
    db = tmp_path / "fight.db"
    assert run(capsys, "new", ROOT / "scenarios/speed-meters-brawl.toml", "--log", db)[0] == 0
    store = SqliteStore(db)
    before = store.version()
    store.close()
    code, _, err = run(capsys, "do", db, "move", "tam", "3,3", f"roll={2**64 + 5}")
    assert code == 2 and err.startswith("error: command: roll=") and err.count("\n") == 1
    store = SqliteStore(db)
    assert store.version() == before
    store.close()


# --- 3: the side check covers every fighter a command touches --------------------------------


def test_a_side_may_not_end_another_sides_turn():
    enc = brawl()
    r = refuse(enc, "end-turn by=red", "tabletrail/side")
    assert "a fights for blue; red may not command it" in r.reason
    do(enc, "end-turn by=blue")
    refuse(enc, "end-turn by=blue", "tabletrail/side")  # t's turn now
    do(enc, "end-turn by=gm")


def test_a_side_enters_only_its_own_fighters_rolls():
    enc = brawl(a_brawn=2, t_brawn=1)
    r = refuse(enc, "grab a t roll=6 roll=1 by=blue", "tabletrail/side")
    assert "roll=1 is t's" in r.reason and "t fights for red" in r.reason
    enc = brawl(a_brawn=2, t_brawn=1)
    do(enc, "grab a t roll=6 roll=1 by=gm")  # the GM enters anyone's roll


def test_a_side_may_roll_its_own_check_and_let_the_dice_roll_the_others():
    enc = encounter(scene(OPEN, fighter("a", at=(2, 2), brawn=2), fighter("t", "red", at=(3, 2), brawn=1)))
    do(enc, "grab a t roll=6 by=blue")  # a's roll from blue; t's from the seeded dice


# --- 4: named limits with clear errors ---------------------------------------------------------


def test_a_command_longer_than_the_limit_is_refused_before_it_is_split():
    text = "move a " + "2,2 " * limits.MAX_COMMAND_CHARS
    with pytest.raises(InputError, match="MAX_COMMAND_CHARS"):
        parse(text)


def test_more_waypoints_than_the_limit_are_refused_and_the_limit_itself_is_taken():
    path = " ".join(["2,2", "3,2"] * (limits.MAX_WAYPOINTS // 2))
    assert len(parse(f"move a {path}").path) == limits.MAX_WAYPOINTS
    with pytest.raises(InputError, match="MAX_WAYPOINTS"):
        parse(f"move a {path} 2,2")
    enc = brawl()
    result = enc.execute(Move(fighter="a", path=((2, 2),) * (limits.MAX_WAYPOINTS + 1)))
    assert isinstance(result, Rejection) and "MAX_WAYPOINTS" in result.reason


def test_a_command_built_in_code_meets_the_same_checks():
    enc = brawl()
    result = enc.execute(EndTurn(rolls=(2**80,)))
    assert isinstance(result, Rejection) and "out of range" in result.reason
