"""whatif: the same commands (and undo/redo) under other settings; first divergence and both boards."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import do, encounter, grid
from tabletrail.events.errors import InputError
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.types import Moved
from tabletrail.projections.audit import whatif
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse

ROOT = Path(__file__).resolve().parents[3]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))
CU = 100


@pytest.mark.parametrize("log", REPLAYS, ids=lambda p: p.stem)
def test_every_replay_under_its_own_settings_does_not_diverge(log: Path):
    enc = Encounter.open(JsonlStore(log))
    same = "true" if enc.records[0].event.settings["strict_turns"] else "false"
    result = whatif(enc.records, [f"strict_turns={same}"])
    assert result.divergence is None and result.refused == [] and result.differences == []
    assert view(result.alternative) == view(result.recorded)


def arena(speed: int = 4) -> str:
    return f"""
[encounter]
name = "what if"
ruleset = "speed-meters"
{grid(["########", "#......#", "#......#", "#......#", "########"])}
[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = {speed}
[[fighters]]
id = "e"
side = "red"
at = [6, 3]
speed = 4
"""


def test_a_changed_diagonal_rule_diverges_at_the_first_diagonal_move():
    enc = encounter(arena())
    do(enc, "move a 3,1")  # straight: the same under any diagonal rule
    do(enc, "move a 5,3")  # two diagonals
    diagonal = [r for r in enc.records if isinstance(r.event, Moved)][1]
    result = whatif(enc.records, ["diagonal=manhattan"])
    d = result.divergence
    assert d["seq"] == diagonal.seq and d["text"] == "move a 5,3" and d["differs"] == ["steps"]
    assert [s[1] for s in d["what_if"]["steps"]] == [2 * CU, 2 * CU]
    assert [s[1] for s in d["recorded"]["steps"]] == [CU, CU]
    assert result.changed == {"diagonal": ("every-1", "manhattan")}
    (spent,) = [x for x in result.differences if x["fighter"] == "a" and x["what"] == "spent"]
    assert spent["what_if"]["movement"] - spent["recorded"]["movement"] == 2 * CU  # 1 m more a diagonal


def test_a_command_the_changed_rules_refuse_is_the_divergence_and_is_listed():
    enc = encounter(arena(speed=2))
    do(enc, "move a 3,3")  # 2 diagonals: 2 m under every-1, 4 m under manhattan
    result = whatif(enc.records, ["diagonal=manhattan"])
    (refused,) = result.refused
    assert refused["rule"] == "speed-meters/movement" and "only 2 m" in refused["reason"]
    assert result.divergence["what_if"] == {"refused": refused["rule"], "reason": refused["reason"]}
    assert result.alternative.fighter("a").pos[:2] == (1, 1)
    assert result.recorded.fighter("a").pos[:2] == (3, 3)


def test_undo_and_redo_are_re_run_too():
    enc = encounter(arena())
    do(enc, "move a 2,2")
    do(enc, "undo")
    do(enc, "redo")
    do(enc, "move a 3,3")
    result = whatif(enc.records, ["diagonal=euclidean"])
    assert result.divergence["seq"] == next(r.seq for r in enc.records if isinstance(r.event, Moved))
    assert result.alternative.fighter("a").pos == result.recorded.fighter("a").pos
    (spent,) = [x for x in result.differences if x["fighter"] == "a" and x["what"] == "spent"]
    assert spent["what_if"]["movement"] > spent["recorded"]["movement"]  # 1.41 m a diagonal, not 1


def test_a_log_is_left_as_it_was():
    enc = encounter(arena())
    do(enc, "move a 2,2")
    lines = list(enc.store.lines)
    whatif(enc.records, ["diagonal=euclidean"])
    assert enc.store.lines == lines


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (["speed=3"], "speed-meters has no setting 'speed' (it has: "),
        (["diagonal=sideways"], "'sideways' is not one of"),
        (["diagonal"], "write SETTING=VALUE"),
        (["=3"], "write SETTING=VALUE"),
        (["actions_per_turn=many"], "takes a whole number"),
        ([], "give at least one SETTING=VALUE"),
    ],
)
def test_bad_settings_get_a_clear_error(sets: list[str], message: str):
    enc = encounter(arena())
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        whatif(enc.records, sets)


def test_a_ruling_made_before_the_first_command_is_replayed_with_the_log():
    enc = encounter(arena())
    do(enc, "move a 3,1")
    ruling = "forbid 2,1 why='a pit'"
    result = whatif(enc.records, [], [(parse(ruling), ruling)])
    assert result.rulings == [ruling] and result.changed == {}
    (refused,) = result.refused
    assert refused["rule"] == "tabletrail/gm-ruling" and "a pit" in refused["reason"]
    assert result.alternative.fighter("a").pos[:2] == (1, 1)


def test_undo_and_redo_match_across_the_extra_ruling_batches():
    enc = encounter(arena())
    do(enc, "move a 2,1")
    do(enc, "undo")
    do(enc, "redo")
    do(enc, "move a 3,1")
    ruling = "forbid 6,1 why='far away'"  # touches no cell of these moves
    result = whatif(enc.records, [], [(parse(ruling), ruling)])
    assert result.divergence is None and result.refused == []
    assert result.differences == []


def test_a_what_if_ruling_that_is_refused_is_a_clear_error():
    enc = encounter(arena())
    with pytest.raises(InputError, match="what-if ruling 'forbid 2,1'.*must say why"):
        whatif(enc.records, [], [(parse("forbid 2,1"), "forbid 2,1")])
