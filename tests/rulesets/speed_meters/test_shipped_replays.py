"""The shipped speed-meters replays cover every rule of the ruleset; the CLI lists and reports them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import do, grid
from tabletrail.cli import main
from tabletrail.core.engine.registry import RULESETS
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.record import decode
from tabletrail.service.encounter import Encounter

ROOT = Path(__file__).resolve().parents[3]
RS = RULESETS["speed-meters"]
ALL_IDS = {RS.rule(r.name) for r in RS.rules}


def cited(log: Path) -> set[str]:
    """Rule ids cited by a log's events and by the refusals kept beside it."""
    ids: set[str] = set()
    for n, line in enumerate(log.read_bytes().splitlines(), start=1):
        ids.update(decode(line, f"{log}:{n}").event.rules)
    refused = log.with_name(log.name + ".refused")
    if refused.exists():
        ids.update(json.loads(line)["rule"] for line in refused.read_text(encoding="utf-8").splitlines())
    return ids


def test_the_ruleset_has_the_21_rules_of_the_catalogue():
    names = [
        "movement", "occupancy", "maneuver", "stop", "rough", "swim", "jump", "climb", "fly", "hover",
        "glide", "special-jump", "teleport", "forced", "random", "shove", "push-pull", "grab", "size",
        "fall-table", "fall-speed",
    ]  # fmt: skip
    assert sorted(r.name for r in RS.rules) == sorted(names)


def test_the_replays_together_exercise_every_speed_meters_rule():
    logs = sorted((ROOT / "replays").glob("speed-meters-*.jsonl"))
    assert len(logs) >= 4
    seen = set().union(*(cited(log) for log in logs))
    assert ALL_IDS - seen == set(), f"no replay exercises {sorted(ALL_IDS - seen)}"


@pytest.mark.parametrize("name", ["skirmish", "lake", "quarry", "brawl"])
def test_each_replay_has_its_script_scenario_and_board(name: str):
    script = ROOT / "replays" / f"speed-meters-{name}.script"
    first = script.read_text(encoding="utf-8").splitlines()[0]
    assert first == f"# scenario: scenarios/speed-meters-{name}.toml"
    assert script.with_suffix(".board.json").exists() and script.with_suffix(".jsonl").exists()


def test_tabletrail_rules_lists_all_21_ids(capsys: pytest.CaptureFixture[str]):
    assert main(["rules", "speed-meters"]) == 0
    out = capsys.readouterr().out
    assert all(f"{rule}:" in out for rule in ALL_IDS)
    assert main(["rules", "speed-meters", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["data"][0]
    assert {r["id"] for r in data["rules"]} == ALL_IDS
    assert {"climb", "swim", "fly", "teleport", "force", "random", "shove", "grab"} <= set(data["commands"])


def test_every_setting_names_the_rule_whose_ruling_it_carries():
    for setting in RS.settings:
        if setting.name != "check_formula":
            assert setting.rule in ALL_IDS, setting.name


def test_tabletrail_modifiers_reports_the_advantage_against_a_climber(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    import tomllib

    text = f"""
[encounter]
name = "cliff"
ruleset = "speed-meters"
{grid(["######", "#.C..#", "#....#", "######"], '"C" = {terrain = "floor", ground = 6, climb = 1}')}
[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = 4
[[fighters]]
id = "f"
side = "red"
at = [1, 2]
speed = 4
"""
    log = tmp_path / "cliff.jsonl"
    enc = Encounter.create(JsonlStore(log, durable=False), parse_scenario(tomllib.loads(text)))
    do(enc, "climb a 1,1,1 roll=1")
    assert main(["modifiers", str(log), "f", "--against", "a"]) == 0
    out = capsys.readouterr().out
    assert "attack: advantage [speed-meters/climb]" in out and "a is climbing and f is not" in out
