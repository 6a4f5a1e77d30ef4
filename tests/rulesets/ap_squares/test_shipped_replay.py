"""The shipped ap-squares replay: gravity fails mid-fight, all 10 rule ids are exercised, and the
log replays to its recorded board."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from support_ap_squares import RULES
from tabletrail.cli import main, play_script
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.refusals import Refused
from tabletrail.events.types import BoardMarked, Moved, RoundStarted
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter

ROOT = Path(__file__).resolve().parents[3]
NAME = "ap-squares-derelict"
LOG = ROOT / "replays" / f"{NAME}.jsonl"
SCRIPT = ROOT / "replays" / f"{NAME}.script"
IDS = {
    f"ap-squares/{name}"
    for name in (
        "walk",
        "crawl",
        "invade",
        "reflexive-leap",
        "rotate-about",
        "zero-g-drift",
        "push-off",
        "zero-g-crawl",
        "zero-g-grab",
        "zero-g-penalties",
    )
}


def normal(board: dict) -> dict:
    return json.loads(json.dumps(board, sort_keys=True))


def test_the_ruleset_has_the_ten_catalogue_rule_ids():
    assert {RULES.rule(r.name) for r in RULES.rules} == IDS


def test_tabletrail_rules_lists_all_ten(capsys: pytest.CaptureFixture[str]):
    assert main(["rules", "ap-squares"]) == 0
    out = capsys.readouterr().out
    assert all(rule_id in out for rule_id in IDS)


def test_every_default_ruling_of_the_catalogue_is_a_setting_with_its_rule():
    ruled = {s.rule for s in RULES.settings if s.rule}
    with_defaults = {RULES.rule(r.name) for r in RULES.rules if r.default}
    assert with_defaults <= ruled, sorted(with_defaults - ruled)


def test_the_logged_encounter_cites_every_rule_id_in_force():
    enc = Encounter.open(JsonlStore(LOG))
    in_force = set(enc.timeline.applied)
    cited = {rule for r in enc.records if r.batch in in_force for rule in r.event.rules}
    assert cited >= IDS, f"never cited: {sorted(IDS - cited)}"


def test_gravity_fails_in_the_middle_of_the_fight_and_returns():
    enc = Encounter.open(JsonlStore(LOG))
    events = [r.event for r in enc.records]
    lost = next(
        i for i, e in enumerate(events) if isinstance(e, BoardMarked) and e.key == "zero-g" and e.value
    )
    cycles_before = [e.round for e in events[:lost] if isinstance(e, RoundStarted)]
    walked_before = [e for e in events[:lost] if isinstance(e, Moved) and e.resource == "ap"]
    assert cycles_before == [2] and walked_before  # a full cycle of fighting first
    assert any(isinstance(e, Moved) and e.resource == "momentum" for e in events[lost:])
    board = enc.state
    assert "zero-g" not in board.marks
    assert all(f.state("gravity", "grounded") == "grounded" for f in board.fighters)


def test_the_refusals_of_the_script_cite_their_rules_with_numbers():
    lines = LOG.with_name(LOG.name + ".refused").read_bytes().splitlines()
    refused = [msgspec.json.decode(line, type=Refused) for line in lines]
    assert len(refused) == sum(1 for line in SCRIPT.read_text().splitlines() if line.startswith("!"))

    def said(rule: str, *words: str) -> bool:
        return any(r.rule == rule and all(w in r.reason for w in words) for r in refused)

    assert said("ap-squares/invade", "body-blocked out of 4,1", "no second attempt")
    assert said("ap-squares/push-off", "parallel to the surface of the stable object at 0,3")
    assert said("ap-squares/push-off", "nothing stable and solid touches 9,4")
    assert said("ap-squares/push-off", "3 + Strength bonus 0 = 3", "not 4")
    assert said("ap-squares/reflexive-leap", "0 AP left", "at least 2 AP")
    assert said("ap-squares/zero-g-crawl", "2,3 touches no stable solid object")


def test_the_replay_reaches_its_recorded_board_and_the_script_still_decides_it():
    expected = json.loads(LOG.with_suffix(".board.json").read_text(encoding="utf-8"))
    assert normal(view(Encounter.open(JsonlStore(LOG)).state)) == expected
    scenario = load_scenario(ROOT / "scenarios" / f"{NAME}.toml")
    enc = Encounter.create(MemoryStore(), scenario)
    assert play_script(enc, SCRIPT) == 11
    assert normal(view(enc.state)) == expected
