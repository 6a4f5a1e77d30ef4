"""Schema evolution (issue 8): versioned events, an upcaster chain, and the golden log.

tests/golden/golden.jsonl was written by the first durable-store version of
tabletrail (tests/golden/build.py); every later version must replay it to
tests/golden/golden.board.json. Never rebuild it: if the vocabulary changes,
register an upcaster in events/upcast.py so the old lines still read.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec
import pytest
from support_store import GOLDEN, fresh, lines_of, play, timeline_of
from tabletrail.cli import main
from tabletrail.events.errors import InputError
from tabletrail.events.stores import record as log_module
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.record import Record, decode
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.events.types import SCHEMA_VERSION, Spent
from tabletrail.events.upcast import CHAIN, Chain
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter


def golden_expected() -> dict:
    return json.loads((GOLDEN / "golden.board.json").read_text(encoding="utf-8"))


def normal(data: object) -> object:
    return json.loads(json.dumps(data, sort_keys=True))


# --- the golden log ----------------------------------------------------------------------------


def test_the_golden_log_replays_to_its_board():
    enc = Encounter.open(JsonlStore(GOLDEN / "golden.jsonl"))
    assert normal(timeline_of(enc)) == golden_expected()


def test_the_golden_log_replays_the_same_from_sqlite_and_its_snapshots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    shutil.copy(GOLDEN / "golden.jsonl", tmp_path / "golden.jsonl")
    db = tmp_path / "golden.db"
    assert main(["import", str(tmp_path / "golden.jsonl"), str(db), "--snapshot-every", "9"]) == 0
    capsys.readouterr()
    for snapshots in (True, False):
        enc = Encounter.open(SqliteStore(db), snapshots=snapshots)
        assert normal(timeline_of(enc)) == golden_expected()


def test_the_golden_log_uses_what_this_version_writes():
    """So it guards them: batch sizes, command ids, undo, redo, abandon, rulings and checks."""
    records = [decode(line, "golden") for line in (GOLDEN / "golden.jsonl").read_bytes().splitlines()]
    kinds = {type(r.event).__name__ for r in records}
    assert {"Undone", "Redone", "Abandoned", "CheckRolled", "RulingMade", "SettingChanged", "Placed"} <= kinds
    assert {r.command_id for r in records} >= {"golden-1", "golden-2"}
    assert all(r.size for r in records if r.seq == 1 or r.batch != records[r.seq - 2].batch)
    assert (GOLDEN / "golden.jsonl.refused").read_bytes().count(b"\n") == 2


# --- versions on every line --------------------------------------------------------------------


def test_a_record_of_the_first_version_leaves_its_version_out():
    enc = fresh(MemoryStore())
    play(enc, 10)
    assert SCHEMA_VERSION == 1 and all(b'"schema":1,' not in line[:40] for line in lines_of(enc.store))
    assert all(r.schema == 1 for r in enc.records)
    assert enc.records[0].event.schema == SCHEMA_VERSION


def test_a_line_from_a_newer_tabletrail_is_refused_by_name(tmp_path: Path):
    enc = fresh(MemoryStore())
    lines = lines_of(enc.store)
    newer = json.loads(lines[1])
    newer["schema"] = SCHEMA_VERSION + 1
    with pytest.raises(InputError) as caught:
        decode(json.dumps(newer).encode(), "fight.jsonl:2")
    assert str(caught.value).startswith("fight.jsonl:2: written by a newer tabletrail (event schema 2")
    started = json.loads(lines[0])
    started["event"]["schema"] = SCHEMA_VERSION + 1
    with pytest.raises(InputError) as caught:
        decode(json.dumps(started).encode(), "fight.jsonl:1")
    assert "newer tabletrail" in str(caught.value)
    for bad in ("two", -1, 0, True):
        line = json.loads(lines[1])
        line["schema"] = bad
        with pytest.raises(InputError) as caught:
            decode(json.dumps(line).encode(), "fight.jsonl:2")
        assert "fight.jsonl:2: $.schema" in str(caught.value)


# --- the upcaster chain ---------------------------------------------------------------------------


def spent_in_steps() -> Chain:
    """A pretend history: v1 `spent` had `qty`, v2 renamed it `amount`, v3 added `unit` (in cu)."""
    chain = Chain(current=3)

    @chain.step("spent", 1)
    def _rename(event: dict) -> dict:
        if "qty" in event:
            event["amount"] = event.pop("qty")
        return event

    @chain.step("spent", 2)
    def _unit(event: dict) -> dict:
        event.setdefault("note", "")
        event["note"] += " (upcast from v2)"
        return event

    return chain


def test_the_chain_runs_every_step_from_a_lines_version_to_the_current():
    chain = spent_in_steps()
    v1 = {"seq": 9, "event": {"type": "spent", "fighter": "ari", "resource": "movement", "qty": 100}}
    up = chain.upcast(v1, "x:9")
    assert up["schema"] == 3 and up["event"]["amount"] == 100 and "qty" not in up["event"]
    assert up["event"]["note"] == " (upcast from v2)"
    v2 = {"seq": 9, "schema": 2, "event": {"type": "spent", "fighter": "ari", "amount": 5, "note": "n"}}
    assert chain.upcast(v2, "x:9")["event"] == {**v2["event"], "note": "n (upcast from v2)"}
    other = {"seq": 9, "event": {"type": "moved", "fighter": "ari", "qty": 1}}
    assert chain.upcast(other, "x:9")["event"] == other["event"], "a type no step names is untouched"
    assert v1["event"]["qty"] == 100, "the decoded line itself is not changed"


def test_a_chain_refuses_muddled_steps_and_names_a_step_that_fails():
    chain = Chain(current=2)
    with pytest.raises(ValueError):
        chain.step("spent", 2)
    with pytest.raises(ValueError):
        chain.step("spent", 0)
    chain.step("spent", 1)(lambda e: {**e, "amount": e["qty"] * 100})
    with pytest.raises(ValueError):
        chain.step("spent", 1)(lambda e: e)
    with pytest.raises(InputError) as caught:
        chain.upcast({"event": {"type": "spent", "amount": 1}}, "old.jsonl:4")
    assert str(caught.value).startswith("old.jsonl:4: cannot bring this spent event from schema 1 to 2")


def test_an_old_log_replays_through_the_chain_to_the_board_it_had(monkeypatch: pytest.MonkeyPatch):
    """Write a log, rewrite its `spent` events the v1 way, and read it as a v3 tabletrail would."""
    enc = fresh(MemoryStore())
    play(enc, 80, seed=21)
    old, prev = [], ""
    for line in lines_of(enc.store):
        raw = json.loads(line)
        if raw["event"]["type"] == "spent":
            raw["event"]["qty"] = raw["event"].pop("amount")
        raw["prev"] = prev
        data = json.dumps(raw, separators=(",", ":")).encode()
        old.append(data)
        prev = line_hash(data)
    with pytest.raises(InputError):
        Encounter.open(MemoryStore(old))  # today's tabletrail cannot read `qty`
    monkeypatch.setattr(log_module, "CHAIN", spent_in_steps())
    again = Encounter.open(MemoryStore(old))
    assert view(again.state) == view(enc.state)
    assert all(r.schema == 3 for r in again.records)
    spent = [r.event for r in again.records if isinstance(r.event, Spent)]
    assert spent and all(e.note.endswith("(upcast from v2)") for e in spent)


def test_lines_of_the_current_version_skip_the_chain():
    """The fast path: a current line is decoded straight into types, the chain never sees it."""
    enc = fresh(MemoryStore())
    line = lines_of(enc.store)[1]
    assert decode(line, "x") == msgspec.json.decode(line, type=Record)
    assert CHAIN.current == SCHEMA_VERSION and not CHAIN.steps
