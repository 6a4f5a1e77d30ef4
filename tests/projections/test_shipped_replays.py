"""Every shipped replay must replay to the board it recorded, and re-deciding
its script must still produce that board (so a rules change is noticed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import begun_under
from tabletrail.cli import play_script
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


def _expected(log: Path) -> dict:
    return json.loads(log.with_suffix(".board.json").read_text(encoding="utf-8"))


def _normal(board: dict) -> dict:
    return json.loads(json.dumps(board, sort_keys=True))


def test_there_are_replays():
    assert REPLAYS, "replays/ ships no logged encounters"


@pytest.mark.parametrize("log", REPLAYS, ids=lambda p: p.stem)
def test_replay_reaches_its_recorded_board(log: Path):
    enc = Encounter.open(JsonlStore(log))
    assert _normal(view(enc.state)) == _expected(log)


@pytest.mark.parametrize("log", REPLAYS, ids=lambda p: p.stem)
def test_script_still_decides_the_same_board(log: Path):
    script = log.with_suffix(".script")
    first = script.read_text(encoding="utf-8").splitlines()[0]
    scenario = load_scenario(ROOT / first.split(":", 1)[1].strip())
    # begun under the rules version the replay was (a fight keeps the arithmetic it began with)
    started = json.loads(log.read_bytes().split(b"\n", 1)[0])["event"]
    enc = begun_under(Encounter.create(MemoryStore(), scenario), started.get("rules_version", ""))
    play_script(enc, script)
    assert _normal(view(enc.state)) == _expected(log)
