"""The shipped round-meters replay: it reaches its recorded board, and it shows every rule at work.

tests/projections/test_shipped_replays.py replays every log; this test also checks what this one log
is for: all 7 rule ids cited, two rounds, a second pass, a delay, a held action
that interrupts and one that is lost, a GM terrain ruling, refusals as the script
expects them.
"""

from __future__ import annotations

import json
from pathlib import Path

from support import of_type
from tabletrail.cli import play_script
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.types import (
    CheckRolled,
    Marked,
    OrderChanged,
    PassStarted,
    RoundStarted,
    RulingMade,
    Undone,
    Unmarked,
)
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter

ROOT = Path(__file__).resolve().parents[3]
LOG = ROOT / "replays" / "round-meters-ambush.jsonl"
RULES = ("round-budget", "move-free", "sprint", "difficult", "passes", "delay", "hold")


def test_the_ambush_replays_to_its_recorded_board():
    enc = Encounter.open(JsonlStore(LOG))
    recorded = json.loads(LOG.with_suffix(".board.json").read_text(encoding="utf-8"))
    assert json.loads(json.dumps(view(enc.state), sort_keys=True)) == recorded


def test_the_ambush_cites_every_rule_over_two_rounds_with_passes():
    records = Encounter.open(JsonlStore(LOG)).records
    cited = {r for rec in records for r in rec.event.rules}
    for name in RULES:
        assert f"round-meters/{name}" in cited, name
    assert [e.round for e in of_type(records, RoundStarted)] == [2]
    assert 2 in [e.pass_no for e in of_type(records, PassStarted)]
    assert of_type(records, OrderChanged) and of_type(records, Undone) and of_type(records, RulingMade)
    resolved = [e for e in of_type(records, Marked) if e.key == "action" and e.value["held"]]
    lost = [e for e in of_type(records, Unmarked) if e.key == "held" and "is lost" in e.note]
    assert resolved and lost
    assert {e.source for e in of_type(records, CheckRolled)} == {"table", "seeded"}


def test_the_script_refuses_what_it_marks_refused():
    script = LOG.with_suffix(".script")
    enc = Encounter.create(MemoryStore(), load_scenario(ROOT / "scenarios" / "round-meters-ambush.toml"))
    expected = sum(1 for line in script.read_text(encoding="utf-8").splitlines() if line.startswith("!"))
    assert play_script(enc, script) == expected >= 6
