"""Seeded dice live in the encounter state (issue 2, item 6).

"Undo-and-retry draws the same number" and "redo re-applies the recorded
events and never rolls dice again". Speed-meters has no check of its own, so
the encounter-level tests use the GM's `require-test` ruling on a cell, which
every ruleset's walk honours with a seeded check.
"""

from __future__ import annotations

import tomllib

from support import CLOCK, do, of_type
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.engine.dice import Dice, check, seeded_die
from tabletrail.core.fold.batch import Batch
from tabletrail.events.commands import Redo, Undo
from tabletrail.events.commands.rulings import GM_RULING
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.types import CheckRolled, Redone
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter

SCENARIO = """
[encounter]
name = "dice"
ruleset = "speed-meters"
seed = {seed}

[settings]
{settings}

[map]
rows = ["#######", "#.....#", "#######"]
[map.legend]
"#" = "wall"
"." = "floor"

[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = 5
"""

RULE = "speed-meters/movement"


def fresh(seed: int = 11, settings: str = "") -> Encounter:
    text = SCENARIO.format(seed=seed, settings=settings)
    scenario = parse_scenario(tomllib.loads(text), source="dice scenario")
    return Encounter.create(MemoryStore(), scenario, clock=lambda: CLOCK)


def plank_corridor(seed: int = 11, settings: str = "") -> Encounter:
    """A corridor whose cell 3,1 needs a test (1d6 >= 4 under speed-meters' check formula)."""
    enc = fresh(seed, settings)
    do(enc, 'require-test 3,1 target=4 why="a rickety plank"')
    assert enc.state.dice == 0, "a ruling rolls nothing"
    return enc


def rolled(events: list) -> CheckRolled:
    checks = of_type(events, CheckRolled)
    assert len(checks) == 1, checks
    return checks[0]


# --- the dice themselves -------------------------------------------------------


def test_a_check_draws_the_die_the_state_points_at_and_moves_the_pointer():
    state = fresh().state
    b = Batch(state)
    first = check(b, Dice(), fighter="a", name="probe", rule=RULE, target=4)
    second = check(b, Dice(), fighter="a", name="probe", rule=RULE, target=4)
    assert first.source == second.source == "seeded"
    assert first.formula == "1d6"
    assert first.dice == (seeded_die(state.scenario.seed, state.dice, 6),)
    assert second.dice == (seeded_die(state.scenario.seed, state.dice + 1, 6),)
    assert b.state.dice == state.dice + 2
    assert first.passed == (first.number >= 4)


def test_the_same_state_draws_the_same_number_again():
    state = fresh().state
    draws = [check(Batch(state), Dice(), fighter="a", name="probe", rule=RULE).number for _ in range(3)]
    assert len(set(draws)) == 1


def test_a_table_roll_is_used_first_and_leaves_the_seeded_dice_alone():
    state = fresh().state
    b = Batch(state)
    result = check(b, Dice((5,)), fighter="a", name="probe", rule=RULE, target=4, modifier=-2)
    assert (result.source, result.number, result.dice, result.passed) == ("table", 5, (), False)
    assert b.state.dice == state.dice


def test_seeded_dice_differ_between_seeds_but_stay_in_range():
    faces = {seeded_die(seed, 0, 6) for seed in range(40)}
    assert len(faces) > 1
    assert faces <= set(range(1, 7))


# --- undo and retry meets the same number; redo never rolls ----------------------


def test_crossing_a_ruled_cell_rolls_from_the_seeded_dice():
    enc = plank_corridor()
    before = enc.state.dice
    check_ = rolled(do(enc, "move a 5,1"))
    assert check_.source == "seeded" and check_.rules == (GM_RULING,)
    assert check_.number == seeded_die(11, before, 6)
    assert enc.state.dice == before + 1


def test_undo_and_retry_draws_the_same_number():
    enc = plank_corridor()
    pointer = enc.state.dice
    first = rolled(do(enc, "move a 5,1"))
    board_after_first = view(enc.state)
    assert not isinstance(enc.execute(Undo()), Rejection)
    assert enc.state.dice == pointer
    retry = rolled(do(enc, "move a 5,1"))
    assert (retry.number, retry.dice, retry.passed) == (first.number, first.dice, first.passed)
    assert view(enc.state) == board_after_first


def test_a_different_seed_can_give_a_different_first_number():
    numbers = {rolled(do(plank_corridor(seed), "move a 5,1")).number for seed in range(12)}
    assert len(numbers) > 1


def test_redo_reapplies_the_recorded_check_without_rolling():
    enc = plank_corridor()
    events = do(enc, "move a 5,1")
    recorded = rolled(events)
    dice_after = enc.state.dice
    board_after = view(enc.state)
    checks_in_log = len(of_type(enc.records, CheckRolled))
    enc.execute(Undo())
    assert enc.state.dice == dice_after - 1
    redone = enc.execute(Redo())
    assert not isinstance(redone, Rejection)
    assert [type(r.event) for r in redone] == [Redone]
    assert len(of_type(enc.records, CheckRolled)) == checks_in_log, "redo rolled again"
    assert enc.state.dice == dice_after
    assert view(enc.state) == board_after
    # The recorded fact is what stands, also for a reader of the log alone.
    again = Encounter.open(MemoryStore(list(enc.store.lines)))
    assert again.state.dice == dice_after
    assert of_type(again.records, CheckRolled) == [recorded]


def test_a_new_command_after_undo_draws_where_the_undone_one_did():
    enc = plank_corridor()
    pointer = enc.state.dice
    first = rolled(do(enc, "move a 5,1"))
    enc.execute(Undo())
    second = rolled(do(enc, "move a 4,1"))  # another path across the same plank
    assert second.dice == first.dice
    assert enc.state.dice == pointer + 1


def test_with_undo_seeded_gm_a_player_cannot_undo_a_roll_but_the_gm_can():
    enc = plank_corridor(settings='undo_seeded = "gm"')
    rolled(do(enc, "move a 5,1 by=blue"))
    refused = enc.execute(Undo(by="blue"))
    assert isinstance(refused, Rejection) and refused.rule == "tabletrail/undo"
    assert "seeded" in refused.reason
    assert not isinstance(enc.execute(Undo(by="gm")), Rejection)


def test_by_default_a_player_may_undo_its_own_roll():
    enc = plank_corridor()
    rolled(do(enc, "move a 5,1 by=blue"))
    assert not isinstance(enc.execute(Undo(by="blue")), Rejection)
    assert enc.state.fighter("a").pos[:2] == (1, 1)
