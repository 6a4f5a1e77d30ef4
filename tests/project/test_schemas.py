"""The published schemas hold what tabletrail really writes (issue 30, item 2).

Every line of every shipped replay and golden log, every shipped scenario, and every `--json`
output of tests/cli/test_json_output.py are validated against the schemas `tabletrail schema` prints; and
each schema refuses what the engine refuses, so a schema that accepts anything fails here.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema", reason="the test extra's jsonschema is not installed")

from tabletrail.cli.schemas import SCHEMAS, cli_json_schema, log_line_schema, scenario_schema  # noqa: E402
from tabletrail.events.errors import InputError  # noqa: E402
from tabletrail.events.plugins import terrain_tags  # noqa: E402
from tabletrail.events.scenario.reader import FIGHTER_KEYS, parse_scenario  # noqa: E402
from tabletrail.events.scenario_spec import SIZES  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LOGS = sorted((ROOT / "replays").glob("*.jsonl")) + sorted((ROOT / "tests" / "golden").glob("*.jsonl"))
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))


def validator(schema: dict) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def lines() -> jsonschema.Draft202012Validator:
    return validator(log_line_schema())


@pytest.fixture(scope="module")
def scenarios() -> jsonschema.Draft202012Validator:
    return validator(scenario_schema())


def test_the_shipped_logs_are_there():
    assert len(LOGS) >= 5 and len(SCENARIOS) >= 5


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_every_line_of_every_shipped_log_is_a_valid_line(log: Path, lines: jsonschema.Draft202012Validator):
    for n, raw in enumerate(log.read_bytes().splitlines(), 1):
        errors = list(lines.iter_errors(json.loads(raw)))
        assert not errors, f"{log.name}:{n}: {errors[0].message}"


def test_a_line_the_engine_would_refuse_is_refused_by_the_schema(lines: jsonschema.Draft202012Validator):
    good = json.loads((ROOT / "replays" / "speed-meters-skirmish.jsonl").read_bytes().splitlines()[3])
    assert lines.is_valid(good)
    for broken in (
        {k: v for k, v in good.items() if k != "seq"},  # the envelope without its place in the log
        {**good, "prev": 7},  # the chain is a hex string
        {**good, "event": {**good["event"], "type": "teleported-by-fiat"}},  # no such event
    ):
        assert not lines.is_valid(broken), broken


def test_the_line_schema_says_what_the_chain_is():
    record = log_line_schema()["$defs"]["Record"]
    assert "BLAKE2b" in record["properties"]["prev"]["description"]
    assert set(record["required"]) >= {"seq", "batch", "actor", "at", "prev", "event"}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_shipped_scenario_is_valid(path: Path, scenarios: jsonschema.Draft202012Validator):
    errors = list(scenarios.iter_errors(tomllib.loads(path.read_text(encoding="utf-8"))))
    assert not errors, f"{path.name}: {errors[0].json_path}: {errors[0].message}"


def _broken_scenarios(good: dict) -> list[tuple[str, dict]]:
    out = []
    for what, change in (
        ("a misspelt section", lambda d: d.update(mapp=d.pop("map"))),
        ("an unknown terrain", lambda d: d["map"]["legend"].update({".": "lava-ish"})),
        ("a fighter without a side", lambda d: d["fighters"][0].pop("side")),
        ("an unknown size", lambda d: d["fighters"][0].update(size="colossal")),
        ("a stat that is not a number", lambda d: d["fighters"][0].update(speed="fast")),
        ("a door field nobody reads", lambda d: d["map"].update(doors=[{"at": "1,1|2,1", "hinge": "left"}])),
        ("no fighters", lambda d: d.update(fighters=[])),
        (
            "a wall stopping what no wall stops",
            lambda d: d["map"].update(walls=[{"at": "1,1-1,3", "blocks": "x"}]),
        ),
    ):
        doc = copy.deepcopy(good)
        change(doc)
        out.append((what, doc))
    return out


def test_the_schema_and_the_reader_refuse_the_same_mistakes(scenarios: jsonschema.Draft202012Validator):
    good = tomllib.loads((ROOT / "scenarios" / "speed-meters-skirmish.toml").read_text(encoding="utf-8"))
    parse_scenario(copy.deepcopy(good))  # the reader takes the good one
    assert scenarios.is_valid(good)
    walled = copy.deepcopy(good)
    walled["map"]["walls"] = ["3,1-3,2", {"at": "9,1-9,2", "blocks": "sight"}]
    parse_scenario(copy.deepcopy(walled))
    assert scenarios.is_valid(walled)
    for what, doc in _broken_scenarios(good):
        assert not scenarios.is_valid(doc), f"the schema takes {what}"
        with pytest.raises(InputError):
            parse_scenario(doc)


def test_the_scenario_schema_offers_what_the_reader_knows():
    props = scenario_schema()["properties"]
    fighter = props["fighters"]["items"]
    assert set(fighter["properties"]) == FIGHTER_KEYS
    assert fighter["properties"]["size"]["enum"] == list(SIZES)
    legend = props["map"]["properties"]["legend"]["additionalProperties"]["oneOf"][0]
    assert legend["enum"] == sorted(terrain_tags())  # the shared terrains and the installed rulesets'


def test_cli_json_envelope_refuses_a_document_of_another_shape():
    check = validator(cli_json_schema())
    assert check.is_valid({"schema": 1, "kind": "error", "data": {"error": "x: no such file"}})
    assert not check.is_valid({"schema": 1, "kind": "error", "data": {"message": "x"}})
    assert not check.is_valid({"schema": 1, "kind": "no-such-kind", "data": {}})
    assert not check.is_valid({"kind": "board", "data": {}})


@pytest.mark.parametrize("kind", sorted(set(SCHEMAS) - {"openapi", "asyncapi"}))
def test_schema_verb_prints_one_json_document_per_kind(kind: str):
    out = subprocess.run(
        [sys.executable, "-m", "tabletrail", "schema", kind], capture_output=True, text=True, check=True
    ).stdout
    doc = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(doc)


def test_schema_verb_refuses_an_unknown_kind_in_one_line():
    done = subprocess.run(
        [sys.executable, "-m", "tabletrail", "schema", "everything"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "scenario" in done.stderr  # it names the kinds there are


@pytest.mark.parametrize("kind, key", [("openapi", "openapi"), ("asyncapi", "asyncapi")])
def test_schema_verb_prints_the_apis_documents_without_a_server(kind: str, key: str):
    out = subprocess.run(
        [sys.executable, "-m", "tabletrail", "schema", kind], capture_output=True, text=True, check=True
    ).stdout
    doc = json.loads(out)
    assert doc[key].startswith("3.")
    if kind == "openapi":
        assert {"/api/state", "/api/do", "/api/actions", "/api/bundle", "/api/stream"} <= set(doc["paths"])
