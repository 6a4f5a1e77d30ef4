"""`verify` tells a disputed move in the log's own units: AP under ap-squares, never centi-units.

The log is edited the way a player who knows the format would: a step made cheaper or dearer
and the hash chain re-made (an unkeyed log can be re-chained by anyone), so only re-deciding
the command finds the edit.
"""

from __future__ import annotations

import json
from pathlib import Path

from support import rechain
from tabletrail.cli import main

ROOT = Path(__file__).resolve().parents[3]
DERELICT = ROOT / "scenarios" / "ap-squares-derelict.toml"


def edited(log: Path, cost: int) -> Path:
    """The log with every step of its move set to `cost` centi-AP, re-chained."""
    lines = []
    for line in log.read_bytes().splitlines():
        record = json.loads(line)
        if record["event"]["type"] == "moved":
            for step in record["event"]["steps"]:
                step[1] = cost
        lines.append(json.dumps(record).encode())
    copy = log.with_name("edited.jsonl")
    copy.write_bytes(b"".join(line + b"\n" for line in rechain(lines)))
    return copy


def played(tmp_path: Path, capsys) -> Path:  # noqa: ANN001
    log = tmp_path / "hold.jsonl"
    assert main(["new", str(DERELICT), "--log", str(log)]) == 0
    assert main(["do", str(log), "move", "ari", "2,1", "3,1"]) == 0
    capsys.readouterr()
    return log


def test_a_cheapened_move_is_shown_in_ap(tmp_path: Path, capsys):
    assert main(["verify", str(edited(played(tmp_path, capsys), 50))]) == 1
    out = capsys.readouterr().out
    assert "expected: ari moved 2,1 (1 AP), 3,1 (1 AP): 2 AP of 12 AP" in out
    assert "recorded: ari moved 2,1 (0.5 AP), 3,1 (0.5 AP): 1 AP of 12 AP" in out
    assert "100 AP" not in out and "1200" not in out


def test_a_move_dearer_than_its_budget_says_so_in_ap(tmp_path: Path, capsys):
    assert main(["verify", str(edited(played(tmp_path, capsys), 700))]) == 1
    out = capsys.readouterr().out
    assert "the recorded move costs 14 AP, but only 12 AP were left" in out
    assert " m," not in out and "1400" not in out
