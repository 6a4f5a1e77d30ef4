"""Scenario errors say the line and column of the field at fault: `FILE:LINE:COL: FIELD: what`."""

from __future__ import annotations

from pathlib import Path

import pytest
from tabletrail.cli import main
from tabletrail.events.scenario.toml_places import places

SKIRMISH = Path(__file__).resolve().parents[2] / "scenarios" / "speed-meters-skirmish.toml"


def error_of(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> str:
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err  # one line, no traceback
    return err.strip()


def where(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """Line and column (from 1) of the nth line holding `needle`, at the text after `= `."""
    lines = [(i, line) for i, line in enumerate(text.splitlines(), start=1) if needle in line]
    i, line = lines[nth]
    return i, line.index(needle) + len(needle) + 1


def test_a_fighter_on_a_wall_is_named_by_line_and_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = SKIRMISH.read_text(encoding="utf-8")
    third = text.split("[[fighters]]")
    third[3] = third[3].replace("at = [", "at = [8, 3] # was [", 1)  # 8,3 is a wall of the skirmish map
    bad = tmp_path / "scenario.toml"
    bad.write_text("[[fighters]]".join(third), encoding="utf-8")
    line, col = where(bad.read_text(encoding="utf-8"), "at = ", 2)
    err = error_of(capsys, "new", bad, "--log", tmp_path / "f.jsonl")
    assert err == f"error: {bad}:{line}:{col}: fighters[2].at: 8,3 is wall"
    assert not (tmp_path / "f.jsonl").exists()


@pytest.mark.parametrize(
    ("old", "new", "field", "needle"),
    [
        ('"#..~~~.....#",', '"#..~~~....#",', "map.rows[2]", '  "#..~~~....#"'),
        ('"~" = { terrain = "rough"', '"~" = { terrain = "rouge"', "map.legend.'~'.terrain", "terrain = "),
        ('ruleset = "speed-meters"', "ruleset = 7", "encounter.ruleset", "ruleset = "),
        ('id = "bo"', 'id = "ari"', "fighters", ""),
    ],
)
def test_field_errors_carry_their_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, field: str, needle: str
):
    bad = tmp_path / "s.toml"
    text = SKIRMISH.read_text(encoding="utf-8").replace(old, new, 1)
    bad.write_text(text, encoding="utf-8")
    err = error_of(capsys, "new", bad, "--log", tmp_path / "f.jsonl")
    if needle.startswith("  "):
        line, col = where(text, needle.strip())[0], 3
    elif needle:
        line, col = where(text, needle)
    else:
        line, col = where(text, "[[fighters]]")[0], 1  # a whole-array error points at its first table
    assert err.startswith(f"error: {bad}:{line}:{col}: {field}: "), err


def test_the_place_map_reads_inline_tables_and_multiline_arrays():
    found = places(
        '[map]\nrows = [\n  "#.#",  # a comment with "quotes"\n  "...",\n]\n'
        '[map.legend]\n"#" = { terrain = "wall" }\n'
    )
    assert found["map.rows[0]"] == (3, 3) and found["map.rows[1]"] == (4, 3)
    assert found["map.legend.'#'.terrain"] == (7, 19)
