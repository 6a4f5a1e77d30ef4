"""The full `tabletrail log` text of every shipped replay, kept in tests/golden/logs/NAME.txt.

Each golden file was read once by a person (no centi-units, no Python reprs, plurals
right); this test keeps the text from changing unnoticed. When the words change on
purpose, regenerate them and read the diff before committing:

    TABLETRAIL_REGOLD=1 .venv/bin/python -m pytest tests/projections/test_golden_logs.py

A replay without a golden file fails until one is written that way.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from tabletrail.cli import main

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "logs"
REGOLD = os.environ.get("TABLETRAIL_REGOLD") == "1"

# What must never reach a person, checked on the rendered part of each line (before the rule's note):
# a Python repr of a dict or list, a count with the wrong plural, a length left in hundredths.
LEAKS = re.compile(r"\{|\['|'\]|': |\b1 (actions|squares|meters|turns|times|yards|points)\b|\b\d{3,}\b")


def log_text(replay: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["log", str(replay)]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("replay", REPLAYS, ids=lambda p: p.stem)
def test_a_shipped_replay_logs_as_its_golden_file(replay: Path, capsys: pytest.CaptureFixture[str]):
    text = log_text(replay, capsys)
    golden = GOLDEN / f"{replay.stem}.txt"
    if REGOLD:
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"{golden} is missing: TABLETRAIL_REGOLD=1 writes it (then read it)"
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("replay", REPLAYS, ids=lambda p: p.stem)
def test_no_line_of_a_shipped_log_leaks_internals(replay: Path, capsys: pytest.CaptureFixture[str]):
    for line in log_text(replay, capsys).splitlines():
        said = re.sub(r"^ *\d+ b\d+ +\S+ +", "", line).split("  — ")[0]  # seq, batch, actor; the note
        said = re.sub(r"\[[^\]]*\]$", "", said.rstrip())  # the rule ids
        assert not LEAKS.search(said), line


def test_the_leak_check_catches_what_it_looks_for():
    for bad in ("ari: held {'kind': 'shoot'}", "ari spends 1 actions", "ari moved 2,1 (100): 100 of 600"):
        assert LEAKS.search(bad), bad
    assert not LEAKS.search("ari moved 2,1 (1 m): 1 m of 6 m")
