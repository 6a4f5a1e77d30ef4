"""What a GM new to tabletrail typed wrong at the command line: each answer one line, the log untouched."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from tabletrail.cli import main
from tabletrail.cli.shell import Shell, run_lines

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def new(capsys: pytest.CaptureFixture[str], path: Path, scenario: str) -> Path:
    assert run(capsys, "new", ROOT / "scenarios" / scenario, "--log", path)[0] == 0
    return path


@pytest.fixture
def log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    return new(capsys, tmp_path / "fight.jsonl", "speed-meters-skirmish.toml")


def test_a_word_argparse_refuses_is_one_line_with_the_verbs_usage(log: Path, capsys):
    code, out, err = run(capsys, "explain", log, "abc")
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert "seq: expected a whole number, got 'abc'" in err and "usage: tabletrail explain" in err
    assert "invalid int" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "{dir}", "--json"],
        ["log", "{empty}", "--json"],
        ["do", "{log}", "--json", "mvoe", "ari", "2,2"],
        ["do", "{log}", "--json", "move", "ari", "5,", "2"],
        ["explain", "{log}", "999", "--json"],
        ["explain", "{log}", "abc", "--json"],
        ["show", "{log}", "--at", "999", "--json"],
        ["whatif", "{log}", "--set", "diagnal=euclidean", "--json"],
    ],
)
def test_an_error_under_json_is_still_one_json_document(log: Path, tmp_path: Path, capsys, argv):
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "dir").mkdir()
    names = {"log": log, "empty": tmp_path / "empty.jsonl", "dir": tmp_path / "dir"}
    before = log.read_bytes()
    code, out, err = run(capsys, *[a.format(**names) for a in argv])
    assert code == 2 and err.count("\n") == 1, err
    doc = json.loads(out)
    assert doc["kind"] == "error" and doc["data"]["error"] in err
    assert log.read_bytes() == before


def test_a_direction_not_in_the_list_names_the_choices(tmp_path: Path, capsys):
    log = new(capsys, tmp_path / "ap.jsonl", "ap-squares-derelict.toml")
    before = log.read_bytes()
    code, _, err = run(capsys, "do", log, "push-off", "ari", "north", "2")
    assert code == 2 and log.read_bytes() == before
    assert err.strip() == "error: command: direction: 'north' is not one of e, n, ne, nw, s, se, sw, w"


def test_lines_piped_into_the_shell_read_as_a_transcript(log: Path):
    out = io.StringIO()
    shell = Shell(str(log), out=out)
    assert run_lines(shell, io.StringIO("move ari 2,2\nmove ari 5, 2\nquit\nshow\n")) == 0
    lines = out.getvalue().splitlines()
    assert lines[1] == "ari> move ari 2,2"
    assert "ari> move ari 5, 2" in lines
    assert lines[-2:] == [
        "error: command: path: '5,' is not a cell; write whole numbers x,y such as 3,4",
        "ari> quit",
    ]
    assert not any("show" in line for line in lines)  # quit left: the line after it is not run


@pytest.mark.parametrize("word", ["roll=", "by=", "why=", "fighter="])
def test_an_option_with_nothing_after_its_equals_sign_is_refused(log: Path, capsys, word: str):
    """`move ari 2,2 roll=` was taken as "no roll" and `by=` as a side named "": a slip, said so."""
    before = log.read_bytes()
    code, _, err = run(capsys, "do", log, "move", "ari", "2,2", word)
    assert code == 2 and f"{word} needs a value ({word}VALUE), or leave {word} out" in err
    assert log.read_bytes() == before
