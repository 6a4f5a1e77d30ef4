"""explain and why: on every shipped replay, and what they say about one move, check and ruling."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from support import do, encounter, grid, of_type
from tabletrail.core.engine.movement import length_of
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.record import Record
from tabletrail.events.types import CheckRolled, CommandIssued, Moved, Placed, Redone, Undone
from tabletrail.projections.audit import dry_run, explain
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse

ROOT = Path(__file__).resolve().parents[3]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))
CU = 100


def opened(log: Path) -> Encounter:
    return Encounter.open(JsonlStore(log))


# --- every replay: explain every event ---------------------------------------------------------


@pytest.mark.parametrize("log", REPLAYS, ids=lambda p: p.stem)
def test_explain_answers_for_every_event_of_every_replay(log: Path):
    records = opened(log).records
    by_batch: dict[int, list[Record]] = {}
    for r in records:
        by_batch.setdefault(r.batch, []).append(r)
    for record in records:
        data = explain(records, record.seq)
        batch = by_batch[record.batch]
        head = batch[0].event
        assert data["seq"] == record.seq and data["batch"] == record.batch
        assert data["command"]["actor"] == record.actor
        if isinstance(head, CommandIssued):
            assert data["command"]["text"] == head.text
            assert data["command"]["by"] == head.command.by
        if isinstance(head, Undone | Redone):
            assert data["command"]["target_batch"] == head.batch
            continue
        assert [r["id"] for r in data["rules"]] == list(record.event.rules)
        moves = [r.event for r in batch if isinstance(r.event, Moved)]
        assert len(data["moves"]) == len(moves)
        for shown, moved in zip(data["moves"], moves, strict=True):
            running = 0
            for n, (step, s) in enumerate(zip(shown["steps"], moved.steps, strict=True), start=1):
                running = length_of(moved.steps[:n])  # the exact running length, rounded once
                assert (step["cost"], step["total"], step["left"]) == (
                    s.cost,
                    running,
                    moved.budget - running,
                )
                assert step["cell"] == list(s.to) and step["terrain"] == s.terrain
            assert shown["total"] == running and shown["left"] == moved.budget - running
        assert len(data["checks"]) == len([r for r in batch if isinstance(r.event, CheckRolled)])
        fighter = getattr(record.event, "fighter", "")
        ids = [f["id"] for f in data["fighters"]]
        if fighter:
            assert fighter in ids
        for f in data["fighters"]:
            last = [
                e for e in (r.event for r in batch) if isinstance(e, Moved | Placed) and e.fighter == f["id"]
            ]
            if last:
                where = last[-1].steps[-1].to if isinstance(last[-1], Moved) else last[-1].to
                assert f["after"]["pos"] == list(where)


@pytest.mark.parametrize("log", REPLAYS, ids=lambda p: p.stem)
def test_explain_refuses_unknown_sequence_numbers(log: Path):
    from tabletrail.events.errors import InputError

    records = opened(log).records
    for seq in (0, -1, len(records) + 1):
        with pytest.raises(InputError, match=f"no event {seq}: the log holds events 1 to {len(records)}"):
            explain(records, seq, where=str(log))


# --- every replay: why (dry runs) leave the files as they were -------------------------------------


@pytest.mark.parametrize("log", REPLAYS, ids=lambda p: p.stem)
def test_why_on_every_replay_appends_nothing(log: Path, tmp_path: Path):
    copy = tmp_path / log.name
    shutil.copy(log, copy)
    side = log.with_name(log.name + ".refused")
    if side.exists():
        shutil.copy(side, tmp_path / side.name)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    enc = opened(copy)
    allowed = dry_run(enc, parse("end-turn"), "end-turn")
    assert allowed["allowed"] and allowed["events"]
    assert allowed["fighters"], "ending a turn touches the fighter whose turn it is"
    refused = dry_run(enc, parse("end-turn fighter=nobody"), "end-turn fighter=nobody")
    assert not refused["allowed"]
    assert "nobody" in refused["reason"]  # the turn-order rule of the engine or of the ruleset
    assert refused["rule"]["enforce"], f"{refused['rule']['id']} is not a rule the audit can describe"
    undo = dry_run(enc, parse("undo"), "undo")
    assert undo["allowed"] == (enc.timeline.undo_target() is not None)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert len(opened(copy).records) == len(enc.records)


# --- one encounter, looked at closely -----------------------------------------------------------------

ROWS = ["#########", "#.......#", "#..~....#", "#.......#", "#########"]


def arena(settings: str = "") -> str:
    return f"""
[encounter]
name = "explain"
ruleset = "speed-meters"
seed = 7
[settings]
{settings}
{grid(ROWS)}
[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = 5
[[fighters]]
id = "e"
side = "red"
at = [7, 3]
speed = 4
"""


def test_explain_a_move_gives_each_step_its_cost_terrain_and_running_total():
    enc = encounter(arena())
    do(enc, "move a 2,2 4,2 by=blue")
    seq = next(r.seq for r in enc.records if isinstance(r.event, Moved))
    data = explain(enc.records, seq)
    assert data["command"]["text"] == "move a 2,2 4,2 by=blue" and data["command"]["by"] == "blue"
    (move,) = data["moves"]
    steps = [
        (s["cell"][:2], s["terrain"], s["diagonal"], s["cost"], s["total"], s["left"]) for s in move["steps"]
    ]
    assert steps == [
        ([2, 2], "floor", True, CU, CU, 4 * CU),
        ([3, 2], "rough", False, 2 * CU, 3 * CU, 2 * CU),  # rough: 2 m a space
        ([4, 2], "floor", False, CU, 4 * CU, CU),
    ]
    assert move["budget"] == 5 * CU and not move["over"]
    (a,) = [f for f in data["fighters"] if f["id"] == "a"]
    assert a["before"]["pos"] == [1, 1, 0] and a["after"]["pos"] == [4, 2, 0]
    assert a["after"]["spent"]["movement"] == 4 * CU
    diagonal = next(s for s in data["settings"] if s["name"] == "diagonal")
    assert diagonal["bears"] and diagonal["value"] == "every-1"


def test_explain_shows_a_ruled_test_its_number_source_and_the_ruling_in_force():
    enc = encounter(arena())
    do(enc, "require-test 3,1 target=4 why='oil on the floor'")
    events = do(enc, "move a 5,1 roll=2")  # a table roll of 2 fails the test: the move stops at 3,1
    check = of_type(events, CheckRolled)[0]
    seq = next(r.seq for r in enc.records if r.event == check)
    data = explain(enc.records, seq)
    (c,) = data["checks"]
    assert (c["number"], c["source"], c["target"], c["passed"]) == (2, "table", 4, False)
    assert c["rules"] == ["tabletrail/gm-ruling"]
    assert data["rulings"]["in_force"][0]["kind"] == "require-test"
    assert data["rulings"]["cells"] == [
        {
            "cell": [3, 1],
            "kind": "test",
            "rule": "tabletrail/gm-ruling",
            "why": "oil on the floor",
            "target": 4,
        }
    ]
    (move,) = data["moves"]
    assert move["steps"][-1]["cell"][:2] == [3, 1] and "failed the GM's test" in move["stopped"]


def test_explain_a_seeded_check_names_its_dice_and_formula():
    enc = encounter(arena())
    do(enc, "require-test 2,1 target=1 why='loose planks'")
    events = do(enc, "move a 2,1")
    check = of_type(events, CheckRolled)[0]
    seq = next(r.seq for r in enc.records if r.event == check)
    (c,) = explain(enc.records, seq)["checks"]
    assert c["source"] == "seeded" and c["formula"] == "1d6"
    assert c["number"] == sum(c["dice"]) and 1 <= c["number"] <= 6 and c["passed"]


def test_explain_an_undo_shows_the_batch_it_took_back_and_the_board_either_side():
    enc = encounter(arena())
    do(enc, "move a 3,1")
    do(enc, "undo why='wrong cell'")
    data = explain(enc.records, enc.records[-1].seq)
    assert data["command"]["why"] == "wrong cell" and data["command"]["target_text"] == "move a 3,1"
    (a,) = data["fighters"]
    assert a["before"]["pos"][:2] == [3, 1] and a["after"]["pos"][:2] == [1, 1]
    moved_seq = next(r.seq for r in enc.records if isinstance(r.event, Moved))
    assert explain(enc.records, moved_seq)["status"] == "undone"


def test_why_reports_the_refusing_rule_with_numbers_and_appends_nothing():
    enc = encounter(arena())
    lines = list(enc.store.lines)
    data = dry_run(enc, parse("move a 7,1"), "move a 7,1")
    assert not data["allowed"]
    assert (
        data["rule"]["id"] == "speed-meters/movement" and "6 m" in data["reason"] and "5 m" in data["reason"]
    )
    assert "Speed" in data["rule"]["enforce"]
    assert enc.store.lines == lines and enc.store.refused() == []


def test_why_gives_the_cost_breakdown_and_the_board_it_would_leave():
    enc = encounter(arena())
    data = dry_run(enc, parse("move a 4,2"), "move a 4,2")
    assert data["allowed"]
    (move,) = data["moves"]
    assert [s["cost"] for s in move["steps"]] == [CU, 2 * CU, CU]
    (a,) = data["fighters"]
    assert a["after"]["pos"][:2] == [4, 2] and a["before"]["pos"][:2] == [1, 1]
    assert enc.state.fighter("a").pos[:2] == (1, 1)


def test_why_keeps_a_seeded_draw_hidden_unless_revealed():
    enc = encounter(arena())
    do(enc, "require-test 2,1 target=6 why='ice'")
    hidden = dry_run(enc, parse("move a 4,1"), "move a 4,1")
    (c,) = hidden["checks"]
    assert c["hidden"] and c["number"] is None and c["passed"] is None
    assert hidden["fighters"][0]["after"] is None  # the board after it would give the roll away
    shown = dry_run(enc, parse("move a 4,1"), "move a 4,1", reveal=True)
    assert shown["checks"][0]["number"] is not None and shown["hidden"] == 0
    actual = of_type(do(enc, "move a 4,1"), CheckRolled)[0]
    assert shown["checks"][0]["number"] == actual.number  # the dry run drew what the move then drew


def test_why_on_an_undo_names_the_batch_and_the_board_before_it():
    enc = encounter(arena())
    do(enc, "move a 3,1")
    data = dry_run(enc, parse("undo"), "undo")
    assert data["target"] == {"batch": 2, "text": "move a 3,1"}
    assert data["fighters"][0]["after"]["pos"][:2] == [1, 1]


def test_explain_a_memory_log_is_the_same_as_its_jsonl_copy(tmp_path: Path):
    enc = encounter(arena())
    do(enc, "move a 3,1")
    path = tmp_path / "copy.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in enc.store.lines))
    assert explain(Encounter.open(JsonlStore(path)).records, 5) == explain(
        Encounter.open(MemoryStore(enc.store.lines)).records, 5
    )


def test_an_unrevealed_dry_run_reads_the_same_whether_the_seeded_roll_passes_or_fails():
    """Nothing in `why` may tell a player which way the next seeded draw goes."""
    outcomes: dict[bool, dict] = {}
    for seed in range(40):
        enc = encounter(arena().replace("seed = 7", f"seed = {seed}"))
        do(enc, "require-test 2,1 target=4 why='ice'")
        seen = dry_run(enc, parse("move a 4,1"), "move a 4,1", reveal=True)
        outcomes.setdefault(seen["checks"][0]["passed"], dry_run(enc, parse("move a 4,1"), "move a 4,1"))
        if len(outcomes) == 2:
            break
    assert set(outcomes) == {True, False}, "no seed below 40 gave both outcomes"
    assert outcomes[True] == outcomes[False]


def test_a_fighter_card_names_what_its_move_budget_counts(capsys: pytest.CaptureFixture[str]) -> None:
    """ap-squares/walk: "walking costs 1 AP a square", so the card's budget is in AP, not meters."""
    from tabletrail.cli import main

    assert main(["explain", str(ROOT / "replays" / "ap-squares-derelict.jsonl"), "12"]) == 0
    out = capsys.readouterr().out
    assert "next move up to 10 AP" in out and "next move up to 10 m" not in out
    assert main(["explain", str(ROOT / "replays" / "speed-meters-skirmish.jsonl"), "5"]) == 0
    budgets = re.findall(r"next move up to ([\d.]+ \w+)", capsys.readouterr().out)
    assert budgets and all(b.endswith(" m") for b in budgets), budgets
