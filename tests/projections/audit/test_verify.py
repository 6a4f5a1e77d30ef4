"""verify: the hash chain catches every change to a log's lines, and re-deciding catches a
log whose events were hand-edited into something the rules don't allow."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import do, encounter, grid
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.record import Record, decode, encode
from tabletrail.events.types import CommandIssued, Moved, Redone, Step, Undone
from tabletrail.projections.audit import verify_lines

ROOT = Path(__file__).resolve().parents[3]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


ARENA = f"""
[encounter]
name = "verify"
ruleset = "speed-meters"
{grid(["##########", "#........#", "#........#", "##########"])}
[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = 4
[[fighters]]
id = "e"
side = "red"
at = [8, 2]
speed = 4
"""


# A log played now, under the rules as they stand: moves, a GM ruling with a seeded test,
# undo, redo, turns. It is verified (and attacked) next to the shipped replays.
PLAY = [
    "move a 2,1",
    "require-test 3,2 target=3 why='wet boards'",
    "move a 3,2",
    "undo why='wrong way'",
    "redo",
    "end-turn",
    "move e 6,2",
    "forbid 5,1 why='pit'",
    "place e 7,1 why='shoved'",
    "end-turn",
    "move a 4,2",
]


def played() -> bytes:
    enc = encounter(ARENA)
    for text in PLAY:
        do(enc, text)
    return b"".join(line + b"\n" for line in enc.store.lines)


PLAYED = "played-now"
LOGS = [*REPLAYS, PLAYED]


def log_bytes(log: Path | str) -> bytes:
    return played() if log == PLAYED else Path(log).read_bytes()


def name_of(log: Path | str) -> str:
    return log if isinstance(log, str) else log.stem


def verify_bytes(data: bytes, tip: str = "") -> dict:
    """verify on a log file's bytes, as verify_file reads them."""
    return verify_lines(data.splitlines(), "copy", tip, torn=bool(data) and not data.endswith(b"\n"))


def records(lines: list[bytes]) -> list[Record]:
    return [decode(line, f"line {n}") for n, line in enumerate(lines, start=1)]


def rechain(recs: list[Record]) -> list[bytes]:
    """Re-encode records with seq and prev recomputed: a forger who knows the chain."""
    out: list[bytes] = []
    prev = ""
    for n, r in enumerate(recs, start=1):
        line = encode(msgspec.structs.replace(r, seq=n, prev=prev))
        prev = line_hash(line)
        out.append(line)
    return out


# --- every shipped replay verifies ----------------------------------------------------------


@pytest.mark.parametrize("log", LOGS, ids=name_of)
def test_every_replay_verifies_and_every_batch_is_re_decided(log: Path | str):
    lines = log_bytes(log).splitlines()
    report = verify_lines(lines, str(log), tip=line_hash(lines[-1]))
    assert report["ok"], report["finding"]
    batches = {r.batch for r in records(lines)}
    checked = report["checked"]
    assert checked["command"] + checked["undo"] + checked["redo"] == len(batches) - 1  # all but setup
    assert report["tip"] == line_hash(lines[-1])


@pytest.mark.parametrize("log", LOGS, ids=name_of)
def test_every_single_line_deletion_and_adjacent_swap_is_caught(log: Path | str):
    lines = log_bytes(log).splitlines()
    tip = line_hash(lines[-1])
    for i in range(len(lines)):
        cut = lines[:i] + lines[i + 1 :]
        assert not verify_lines(cut, tip=tip)["ok"], f"deleting line {i + 1} went unnoticed"
    for i in range(len(lines) - 1):
        if lines[i] == lines[i + 1]:
            continue
        swapped = [*lines[:i], lines[i + 1], lines[i], *lines[i + 2 :]]
        report = verify_lines(swapped, tip=tip)
        assert not report["ok"], f"swapping lines {i + 1} and {i + 2} went unnoticed"
        assert report["finding"]["seq"] in (i + 1, i + 2)


def test_a_deleted_line_is_reported_at_the_line_where_the_chain_breaks():
    lines = played().splitlines()
    report = verify_lines(lines[:9] + lines[10:])
    f = report["finding"]
    assert (f["seq"], f["kind"]) == (10, "chain")
    assert "line 9" in f["reason"]


# --- the property: any change to the file is caught ------------------------------------------


def _last_batch_is_one_undo_line(lines: list[bytes]) -> bool:
    recs = records(lines)
    return isinstance(recs[-1].event, Undone | Redone)


@st.composite
def mutations(draw: st.DrawFn, data: bytes) -> tuple[str, bytes, bool]:
    """A changed copy of the log bytes, and whether only its last line was touched."""
    lines = data.splitlines()
    last_start = len(data) - len(lines[-1]) - 1
    kind = draw(st.sampled_from(["byte", "delete", "swap", "insert-copy", "insert-bytes"]))
    if kind == "byte":
        at = draw(st.integers(0, len(data) - 1))
        new = draw(st.integers(0, 255).filter(lambda b: b != data[at]))
        return kind, data[:at] + bytes([new]) + data[at + 1 :], at >= last_start
    i = draw(st.integers(0, len(lines) - 1))
    if kind == "delete":
        out = lines[:i] + lines[i + 1 :]
        tail_only = i == len(lines) - 1
    elif kind == "swap":
        j = draw(st.integers(0, len(lines) - 1).filter(lambda j: lines[j] != lines[i]))
        out = list(lines)
        out[i], out[j] = out[j], out[i]
        tail_only = False
    elif kind == "insert-copy":
        at = draw(st.integers(0, len(lines)))
        out = [*lines[:at], lines[i], *lines[at:]]
        tail_only = at == len(lines)
    else:
        at = draw(st.integers(0, len(lines)))
        junk = draw(st.binary(min_size=0, max_size=40))
        out = [*lines[:at], junk, *lines[at:]]
        tail_only = at == len(lines)
    return kind, b"".join(line + b"\n" for line in out), tail_only


@pytest.mark.parametrize("log", LOGS, ids=name_of)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_edits_deletions_swaps_and_insertions_are_all_caught(log: Path | str, data: st.DataObject):
    original = log_bytes(log)
    assert verify_bytes(original)["ok"], "the log must verify before it is changed"
    kind, changed, tail_only = data.draw(mutations(original))
    if changed == original:
        return  # e.g. a copy of a line inserted next to itself can't happen, but be exact
    lines = original.splitlines()
    anchored = verify_bytes(changed, tip=line_hash(lines[-1]))
    assert not anchored["ok"], f"{kind} went unnoticed with the tip anchored"
    unanchored = verify_bytes(changed)
    # Without an anchor, the last line of a log is vouched for by re-deciding alone: only a
    # lone undo/redo line at the very end has fields (its time, its why) no rule re-derives.
    if unanchored["ok"]:
        assert tail_only and _last_batch_is_one_undo_line(lines), f"{kind} went unnoticed"


def test_an_unanchored_undo_at_the_end_is_the_one_gap_and_the_tip_closes_it():
    """Honest about the chain's limit: nothing after the last line vouches for it."""
    enc = encounter(ARENA)
    do(enc, "move a 2,1")
    do(enc, "undo")
    lines = list(enc.store.lines)
    tip = line_hash(lines[-1])
    edited = lines[:-1] + [lines[-1].replace(b'"why":""', b'"why":"x"')]
    assert verify_lines(edited)["ok"]  # a different why on the final undo: no rule re-derives it
    report = verify_lines(edited, tip=tip)
    assert not report["ok"] and report["finding"]["kind"] == "tip"
    assert not verify_lines(lines[:-1], tip=tip)["ok"]  # the undo cut off entirely


# --- hand-edited events, chain recomputed: only the rules catch them ----------------------------


def _first_move(recs: list[Record]) -> int:
    return next(i for i, r in enumerate(recs) if isinstance(r.event, Moved))


def test_a_move_edited_beyond_its_budget_fails_with_its_seq_and_rule():
    recs = records(played().splitlines())
    i = _first_move(recs)
    moved: Moved = recs[i].event
    head = next(r for r in reversed(recs[:i]) if isinstance(r.event, CommandIssued))
    x, y, z = moved.steps[-1].to
    total = sum(s.cost for s in moved.steps)
    extra = []
    while total <= moved.budget:  # one more floor meter at a time, along the row, past the budget
        x += 1
        total += 100
        extra.append(Step(to=(x, y, z), cost=100, terrain="floor", parity=moved.steps[-1].parity))
    longer = msgspec.structs.replace(moved, steps=(*moved.steps, *extra))
    command = msgspec.structs.replace(head.event.command, path=(*head.event.command.path, (x, y)))
    forged = list(recs)
    forged[i] = msgspec.structs.replace(recs[i], event=longer)
    forged[head.seq - 1] = msgspec.structs.replace(
        head, event=msgspec.structs.replace(head.event, command=command)
    )
    report = verify_lines(rechain(forged))
    f = report["finding"]
    assert not report["ok"]
    assert f["seq"] == recs[i].seq
    assert f["rule"] == "speed-meters/movement"
    assert f["kind"] == "decision"
    assert f"costs {total // 100} m by {x},{y}" in f["reason"]
    assert f"only {moved.budget // 100} m" in f["reason"]


def test_a_move_edited_but_not_its_command_fails_at_the_move_with_the_budget_in_words():
    recs = records(played().splitlines())
    i = _first_move(recs)
    moved: Moved = recs[i].event
    dearer = tuple(msgspec.structs.replace(s, cost=s.cost + moved.budget) for s in moved.steps)
    forged = list(recs)
    forged[i] = msgspec.structs.replace(recs[i], event=msgspec.structs.replace(moved, steps=dearer))
    f = verify_lines(rechain(forged))["finding"]
    assert f["seq"] == recs[i].seq and f["rule"] == "speed-meters/movement"
    assert f"only {moved.budget // 100} m were left" in f["reason"]
    assert f["expected"]["steps"] == json.loads(encode(recs[i]))["event"]["steps"]


def test_an_event_slipped_into_a_batch_is_an_extra_the_rules_do_not_produce():
    recs = records(played().splitlines())
    i = _first_move(recs)
    forged = [*recs[: i + 1], recs[i], *recs[i + 1 :]]  # the move twice
    f = verify_lines(rechain(forged))["finding"]
    assert f["seq"] == recs[i].seq + 1 and "nothing here" in f["reason"]


def test_a_forged_actor_is_caught():
    recs = records(played().splitlines())
    i = _first_move(recs)
    forged = [msgspec.structs.replace(r, actor="red") if r.batch == recs[i].batch else r for r in recs]
    f = verify_lines(rechain(forged))["finding"]
    assert f["kind"] == "order" and "by=gm" in f["reason"]


def test_a_torn_last_line_and_an_empty_log_are_findings_not_crashes():
    data = played()
    torn = verify_bytes(data[:-1])
    assert torn["finding"]["kind"] == "line" and "torn" in torn["finding"]["reason"]
    assert verify_bytes(b"")["finding"]["reason"].endswith("the log is empty")


def test_settings_in_force_forged_against_the_scenarios_choice_fail_at_line_1():
    recs = records(played().splitlines())
    started = recs[0].event
    chose = msgspec.structs.replace(started.scenario, settings={"diagonal": "every-1"})
    honest = msgspec.structs.replace(started, scenario=chose)
    assert verify_lines(rechain([msgspec.structs.replace(recs[0], event=honest), *recs[1:]]))["ok"]
    forged = msgspec.structs.replace(honest, settings={**started.settings, "diagonal": "manhattan"})
    f = verify_lines(rechain([msgspec.structs.replace(recs[0], event=forged), *recs[1:]]))["finding"]
    assert (f["seq"], f["kind"]) == (1, "setup")
    assert "diagonal = 'manhattan'" in f["reason"] and "'every-1'" in f["reason"]


def test_a_forged_setting_the_scenario_left_to_its_default_shows_at_the_first_move_it_changes():
    recs = records(played().splitlines())
    started = recs[0].event
    forged = msgspec.structs.replace(started, settings={**started.settings, "diagonal": "manhattan"})
    f = verify_lines(rechain([msgspec.structs.replace(recs[0], event=forged), *recs[1:]]))["finding"]
    first_diagonal = next(
        r.seq for r in recs if isinstance(r.event, Moved) and any(s.diagonal for s in r.event.steps)
    )
    assert f["seq"] <= first_diagonal and f["kind"] == "decision"


def test_reworded_notes_still_verify_but_a_changed_fact_does_not():
    """A later version may word a note better; an old log must still verify. Facts may not change."""
    recs = records(played().splitlines())
    i = _first_move(recs)
    reworded = list(recs)
    reworded[i] = msgspec.structs.replace(
        recs[i], event=msgspec.structs.replace(recs[i].event, note="new words")
    )
    assert verify_lines(rechain(reworded))["ok"]
    moved: Moved = recs[i].event
    recited = list(recs)
    recited[i] = msgspec.structs.replace(recs[i], event=msgspec.structs.replace(moved, rules=("made/up",)))
    report = verify_lines(rechain(recited))
    assert not report["ok"] and report["finding"]["seq"] == recs[i].seq
