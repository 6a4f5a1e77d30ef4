"""The shipped initiative-yards replay: it exercises all 15 rule ids and replays to its board."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
from tabletrail.cli import play_script
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.refusals import Refused
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter

ROOT = Path(__file__).resolve().parents[3]
NAME = "initiative-yards-ruined-bridge"
LOG = ROOT / "replays" / f"{NAME}.jsonl"
SCRIPT = ROOT / "replays" / f"{NAME}.script"
RULESET = get_ruleset("initiative-yards")
ALL_IDS = {RULESET.rule(r.name) for r in RULESET.rules}


def _normal(board: dict) -> dict:
    return json.loads(json.dumps(board, sort_keys=True))


def test_the_ruleset_lists_fifteen_rule_ids():
    assert len(ALL_IDS) == 15
    names = {r.name for r in RULESET.rules}
    assert names == {
        "move",
        "prone-drop",
        "prone-stand",
        "crawl",
        "climb",
        "ledge",
        "vault",
        "leap",
        "fall",
        "drag",
        "combined",
        "engage",
        "engaged-actions",
        "engage-break",
        "slippery",
    }


def test_the_logged_encounter_cites_every_rule_id_in_force():
    enc = Encounter.open(JsonlStore(LOG))
    in_force = set(enc.timeline.applied)
    cited = {rule for r in enc.records if r.batch in in_force for rule in r.event.rules}
    assert cited >= ALL_IDS, f"never cited: {sorted(ALL_IDS - cited)}"


def test_the_refusals_of_the_script_cite_their_rules_with_numbers():
    lines = LOG.with_name(LOG.name + ".refused").read_bytes().splitlines()
    refused = [msgspec.json.decode(line, type=Refused) for line in lines]
    by_rule = {r.rule: r.reason for r in refused}
    assert by_rule["initiative-yards/leap"] == "gap 5 yd > half of max movement 4 yd"
    assert by_rule["initiative-yards/ledge"] == "ledge 3.5 yd > 1.5 x own height 2 yd = 3 yd"
    assert "9 yd" in by_rule["initiative-yards/move"]
    expected = {
        "move",
        "leap",
        "prone-drop",
        "drag",
        "vault",
        "engaged-actions",
        "engage-break",
        "crawl",
        "climb",
        "ledge",
    }
    assert {f"initiative-yards/{r}" for r in expected} <= set(by_rule)


def test_the_log_replays_to_its_board_and_the_script_decides_it_again():
    expected = json.loads(LOG.with_suffix(".board.json").read_text(encoding="utf-8"))
    assert _normal(view(Encounter.open(JsonlStore(LOG)).state)) == expected
    first = SCRIPT.read_text(encoding="utf-8").splitlines()[0]
    enc = Encounter.create(MemoryStore(), load_scenario(ROOT / first.split(":", 1)[1].strip()))
    assert play_script(enc, SCRIPT) == 12  # the `!` lines, each refused
    assert _normal(view(enc.state)) == expected


def test_the_story_ends_where_the_rules_put_everyone():
    state = Encounter.open(JsonlStore(LOG)).state
    ari, bo, cart = state.fighter("ari"), state.fighter("bo"), state.fighter("cart")
    assert ari.pos == (9, 4, -400) and ari.states["posture"] == "prone"  # the missed leap
    assert ari.damage == 1 + 2  # the spear, then a 4 yd fall at 1.5 yd tall
    assert bo.pos == (3, 3, 0) and bo.damage == 1  # the 3 yd fall from the wall at 2 yd tall
    assert cart.pos[:2] == (4, 5)  # dragged
    assert state.links == ()
