"""`tabletrail shell LOG`, driven through prompt_toolkit's pipe input as a GM would type it.

A short fight played at the prompt leaves the very log `do` leaves for the same
lines (same sequence numbers, batches, actors, events and command texts); the
readers write nothing; Tab completes verbs, fighter ids and cells.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.shortcuts import PromptSession
from tabletrail.cli import main
from tabletrail.cli.shell import Shell, TableCompleter, run_shell

SKIRMISH = Path(__file__).resolve().parents[2] / "scenarios" / "speed-meters-skirmish.toml"
FIGHT = [
    "move ari 2,2 4,2",
    "move ari 10,2",  # refused: nothing appended
    "end-turn",
    "move bo 2,3 3,4 3,5",
    "undo why='wrong line'",
    "redo",
    "end-turn by=gm",
]


def new(tmp_path: Path, name: str) -> Path:
    log = tmp_path / name
    assert main(["new", str(SKIRMISH), "--log", str(log)]) == 0
    return log


def lines_without_clock(log: Path) -> list[dict[str, object]]:
    out = []
    for line in log.read_bytes().splitlines():
        record = json.loads(line)
        record.pop("at", None)  # when it was written
        record.pop("prev", None)  # the hash chain covers the clock
        out.append(record)
    return out


def type_into_shell(log: Path, text: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    with create_pipe_input() as pipe:
        pipe.send_text(text)
        session: PromptSession[str] = PromptSession(input=pipe, output=DummyOutput())
        assert run_shell(str(log), session=session) == 0
    return capsys.readouterr().out


def test_a_fight_at_the_prompt_logs_what_do_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    by_do, by_shell = new(tmp_path, "do.jsonl"), new(tmp_path, "shell.jsonl")
    for line in FIGHT:
        import shlex

        main(["do", str(by_do), *shlex.split(line)])
    out = type_into_shell(
        by_shell, "\n".join(FIGHT) + "\nshow\nlog\nexplain 7\nwhy move cyn 9,5\nquit\n", capsys
    )
    assert lines_without_clock(by_shell) == lines_without_clock(by_do)
    assert "refused by speed-meters/movement" in out  # the refusal is said, and nothing appended
    assert "ari moved 2,2 (1 m), 3,2 (2 m, rough), 4,2 (2 m, rough): 5 m of 6 m" in out
    assert "batch 4 undone by gm: wrong line" in out
    assert "event 7 (batch" in out and "allowed: move cyn 9,5" in out  # explain and why read


def test_readers_and_mistakes_write_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    log = new(tmp_path, "f.jsonl")
    before = log.read_bytes()
    out = type_into_shell(
        log, "show\nlog\nmvoe ari 2,2\nexplain x\nwhy move ari 2,2\nhelp\n'unclosed\nquit\n", capsys
    )
    assert log.read_bytes() == before
    assert "did you mean move?" in out and "explain N" in out and "verbs: " in out
    assert "No closing quotation" in out  # a line that does not parse is said, and the shell goes on


def test_tab_completes_verbs_fighters_and_cells(tmp_path: Path):
    shell = Shell(str(new(tmp_path, "f.jsonl")))
    completer = TableCompleter(shell.enc)

    def complete(text: str) -> list[str]:
        return [
            c.text
            for c in completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
        ]

    assert complete("mo") == ["move"] and "sprint" not in complete("s")  # this ruleset's verbs only
    assert complete("move a") == ["ari"]
    assert "4,2" in complete("move ari 4,") and "0,0" not in complete("move ari 0,")  # 0,0 is a wall
    assert complete("end") == ["end-turn"] and "explain" in complete("ex")
