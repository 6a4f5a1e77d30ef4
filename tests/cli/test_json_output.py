"""Every `--json` output of every CLI verb parses as ONE JSON document (issue 12).

The standard: "Every `--json` output parses as ONE JSON document." The verbs are
found from the parser itself, so a verb that gains `--json` later fails here until
it is given a case below.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from support_ap_squares import ROOM, arena
from support_postgres import url
from tabletrail.cli import build_parser, main
from tabletrail.cli.schemas import cli_json_schema

UVTT = Path(__file__).resolve().parents[1] / "fixtures" / "uvtt" / "door.dd2vtt"
CLI_JSON = Draft202012Validator(cli_json_schema())
PAIR = ("ari blue 1,3 ap=10 dexterity=2", "bo red 5,3 ap=10 dexterity=2")


def json_verbs() -> set[str]:
    """The verbs whose parser takes --json."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {
        verb
        for verb, parser in sub.choices.items()
        if any("--json" in a.option_strings for a in parser._actions)
    }


@pytest.fixture
def log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A zero-g ap-squares log: modifiers are in force, one refusal is on the side log."""
    scenario = tmp_path / "s.toml"
    scenario.write_text(arena(*PAIR, rows=ROOM), encoding="utf-8")
    path = str(tmp_path / "fight.jsonl")
    assert main(["new", str(scenario), "--log", path]) == 0
    assert main(["do", path, "gravity-off", "1,1", "8,5", "grab=ari", "roll=3"]) == 0
    assert main(["do", path, "move", "ari", "99,99"]) == 1  # refused: kept on the side log
    capsys.readouterr()
    return path


CASES: dict[str, list[list[str]]] = {
    "do": [["do", "LOG", "move", "ari", "99,99", "--json"], ["do", "LOG", "--json", "end-turn"]],
    "undo": [["undo", "LOG", "--json"]],
    "redo": [["redo", "LOG", "--json"]],  # nothing undone: the refusal is the document
    "show": [["show", "LOG", "--json"], ["show", "LOG", "--at", "2", "--json"]],
    "log": [["log", "LOG", "--json"]],
    "commands": [["commands", "--json"], ["commands", "LOG", "--json"]],
    "replay": [["replay", "LOG", "--json"]],
    "rules": [["rules", "--json"], ["rules", "speed-meters", "--json"]],
    "modifiers": [
        ["modifiers", "LOG", "bo", "--against", "ari", "--json"],
        ["modifiers", "LOG", "ari", "--json"],
    ],
    "explain": [["explain", "LOG", "2", "--json"]],
    "why": [["why", "--json", "LOG", "move", "bo", "5,2"], ["why", "--json", "LOG", "move", "ari", "1,2"]],
    "verify": [["verify", "LOG", "--json"], ["verify", "LOG", "--tip", "nope", "--json"]],
    "whatif": [
        ["whatif", "LOG", "--set", "zero_g_penalties=off", "--json"],
        ["whatif", "LOG", "--ruling", "forbid 5,2 why=pit", "--json"],
    ],
    "refused": [["refused", "LOG", "--json"]],
    "encounters": [["encounters", "DB", "--json"]],  # DB: a PostgreSQL database of the test's own
    "import-map": [["import-map", str(UVTT), "--ruleset", "ap-squares", "-o", "LOG.toml", "--json"]],
    "invite": [
        ["invite", "LOG", "--side", "blue", "--json"],
        ["invite", "LOG", "--gm", "--hours", "2", "--json"],
        ["invite", "LOG", "--list", "--json"],
    ],
}


def test_every_verb_with_json_has_a_case_here():
    assert json_verbs() == set(CASES)


@pytest.mark.parametrize("verb", sorted(CASES))
def test_json_output_is_one_document(
    verb: str, log: str, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
):
    for argv in CASES[verb]:
        if "DB" in argv:  # a database with one encounter: the log's, imported
            db = url(request.getfixturevalue("pg_schema"), None)
            assert main(["import", log, f"{db}&encounter=fight"]) == 0
            capsys.readouterr()
            argv = [db if a == "DB" else a for a in argv]
        code = main([log + a[3:] if a.startswith("LOG") else a for a in argv])
        out, err = capsys.readouterr()
        assert code in (0, 1), f"{argv}: exit {code}: {err}"
        try:
            doc = json.loads(out)
        except json.JSONDecodeError as exc:
            pytest.fail(f"{' '.join(argv)} printed more than one JSON document ({exc}):\n{out}")
        errors = list(CLI_JSON.iter_errors(doc))  # the document `tabletrail schema cli-json` describes
        assert not errors, f"{' '.join(argv)}: {errors[0].json_path}: {errors[0].message}"


def test_modifiers_json_holds_the_modifiers_in_force(log: str, capsys: pytest.CaptureFixture[str]):
    """The defect: with a modifier in force, the text lines followed the JSON array."""
    assert main(["modifiers", log, "bo", "--against", "ari", "--json"]) == 0
    mods = json.loads(capsys.readouterr().out)["data"]
    assert {"applies_to": "melee attack", "value": -3} in [
        {k: m[k] for k in ("applies_to", "value")} for m in mods
    ]
    assert all(m["rule"] == "ap-squares/zero-g-penalties" for m in mods)


def test_do_json_lists_what_was_appended_or_why_it_was_refused(log: str, capsys: pytest.CaptureFixture[str]):
    assert main(["do", log, "move", "ari", "99,99", "--json"]) == 1
    refused = json.loads(capsys.readouterr().out)
    assert refused["kind"] == "refused" and refused["data"]["rule"] == "ap-squares/zero-g-crawl"
    assert "99,99" in refused["data"]["reason"] and refused["data"]["command"] == "move ari 99,99"
    assert main(["do", log, "--json", "end-turn"]) == 0
    appended = json.loads(capsys.readouterr().out)
    first = appended["data"][0]
    assert appended["kind"] == "appended" and first["text"] == "command: end-turn"
    assert first["event"]["type"] == "command" and first["status"] == "in force"
    assert main(["log", log, "--json"]) == 0
    logged = json.loads(capsys.readouterr().out)["data"]
    assert logged[-len(appended["data"]) :] == appended["data"]  # the same records, as the log lists them
