"""A log written before the rule texts changed still verifies: its citations are told, not failed.

An update may move a rule's citation (last session the speed-meters rough step began to cite
speed-meters/rough). A GM's older log then cites the ids of its day on events the rules still
produce exactly. `verify` accepts such a log, says how many events cite other ids and shows the
first; a citation of a rule that does not exist, or any difference on the board, still fails it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support import rechain
from tabletrail.cli import main

ROOT = Path(__file__).resolve().parents[3]
SKIRMISH = ROOT / "scenarios" / "speed-meters-skirmish.toml"


def played(tmp_path: Path, capsys) -> Path:  # noqa: ANN001
    log = tmp_path / "fight.jsonl"
    assert main(["new", str(SKIRMISH), "--log", str(log)]) == 0
    assert main(["do", str(log), "move", "ari", "2,2", "3,2"]) == 0
    capsys.readouterr()
    return log


def with_moves(log: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of the log with `change` applied to every moved event, re-chained (no tip kept beside it)."""
    lines = []
    for line in log.read_bytes().splitlines():
        record = json.loads(line)
        if record["event"]["type"] == "moved":
            change(record["event"])
        lines.append(json.dumps(record).encode())
    copy = log.with_name("older.jsonl")
    copy.write_bytes(b"".join(line + b"\n" for line in rechain(lines)))
    return copy


def test_an_older_citation_verifies_with_a_note(tmp_path: Path, capsys):
    # As written before the rough step cited speed-meters/rough beside the movement rule.
    log = with_moves(played(tmp_path, capsys), lambda e: e.update(rules=["speed-meters/movement"]))
    assert main(["verify", str(log)]) == 0
    out = capsys.readouterr().out
    assert ": OK: " in out
    assert "note: 1 event matches the rules but cites other rule ids than this version gives" in out
    assert "recorded speed-meters/movement, now speed-meters/movement, speed-meters/rough" in out
    assert main(["verify", str(log), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["data"]
    was, now = ["speed-meters/movement"], ["speed-meters/movement", "speed-meters/rough"]
    assert data["ok"] and [(c["recorded"], c["now"]) for c in data["cited"]] == [(was, now)]


def test_a_citation_of_a_rule_that_does_not_exist_fails(tmp_path: Path, capsys):
    log = with_moves(played(tmp_path, capsys), lambda e: e.update(rules=["speed-meters/made-up"]))
    assert main(["verify", str(log)]) == 1
    out = capsys.readouterr().out
    assert "FAILED at line/seq" in out and "they differ in rules" in out


def test_a_changed_board_still_fails_whatever_it_cites(tmp_path: Path, capsys):
    def moved_further(event: dict[str, Any]) -> None:
        event["rules"] = ["speed-meters/movement"]
        event["steps"][-1][0] = [4, 2, 0]

    log = with_moves(played(tmp_path, capsys), moved_further)
    assert main(["verify", str(log)]) == 1
    out = capsys.readouterr().out
    assert "FAILED at line/seq" in out and "they differ in steps" in out and "note:" not in out


def test_a_log_as_written_has_no_citation_note(tmp_path: Path, capsys):
    log = played(tmp_path, capsys)
    assert main(["verify", str(log)]) == 0
    assert "note:" not in capsys.readouterr().out
