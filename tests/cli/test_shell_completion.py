"""The shell, second round (issue 28, items 7 and 14): Tab and over-long lines.

A single Tab match completes on the first press, even when the Tab comes before the
completion prompt_toolkit starts while typing has run (a fast typist, a paste); an over-long
line is refused by its length before it is split into words (splitting a megabyte took 11 s).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.shortcuts import PromptSession
from tabletrail.cli import shell as shell_module
from tabletrail.cli.shell import Shell, TableCompleter, run_lines, tab_bindings
from tabletrail.events.limits import MAX_COMMAND_CHARS

from tests.cli.test_shell import new


def typed(log: Path, keys: str) -> str:
    """What the prompt returns for keys arriving at once, as a paste or a fast typist sends them."""
    completer = TableCompleter(Shell(str(log)).enc)
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        session: PromptSession[str] = PromptSession(input=pipe, output=DummyOutput())
        return session.prompt("> ", completer=completer, key_bindings=tab_bindings(completer))


@pytest.mark.parametrize(
    ("keys", "line"),
    [
        ("mo\t\n", "move "),  # the verb
        ("mo\ta\t\n", "move ari "),  # then the fighter
        ("move ari 2,2 r\t6\n", "move ari 2,2 roll=6"),  # an option: no space after its =
        ("end\t\n", "end-turn "),
    ],
)
def test_a_single_tab_match_completes_on_the_first_press(tmp_path: Path, keys: str, line: str):
    assert typed(new(tmp_path, "f.jsonl"), keys) == line


def test_a_tab_with_nothing_to_add_changes_nothing(tmp_path: Path):
    assert typed(new(tmp_path, "f.jsonl"), "move\t\n") == "move"
    assert typed(new(tmp_path, "g.jsonl"), "zz\t\n") == "zz"


def test_a_megabyte_line_is_refused_by_its_length_before_it_is_split(tmp_path: Path, monkeypatch):
    log = new(tmp_path, "f.jsonl")
    before = log.read_bytes()
    out = io.StringIO()
    sh = Shell(str(log), out=out)

    def no_split(*args: object, **kwargs: object) -> list[str]:
        raise AssertionError("an over-long line was split into words")

    monkeypatch.setattr(shell_module.shlex, "split", no_split)
    line = "move ari " + "2,2 " * 250_000
    assert sh.line(line) is True
    said = out.getvalue()
    assert said == (
        f"error: shell: the command is {len(line):,} characters long; the limit is "
        f"{MAX_COMMAND_CHARS:,} (MAX_COMMAND_CHARS)\n"
    )
    assert log.read_bytes() == before


def test_a_piped_over_long_line_is_echoed_short(tmp_path: Path):
    log = new(tmp_path, "f.jsonl")
    out = io.StringIO()
    run_lines(Shell(str(log), out=out), ["show " + "x" * 2 * MAX_COMMAND_CHARS + "\n", "quit\n"])
    lines = out.getvalue().splitlines()
    assert any(f"({5 + 2 * MAX_COMMAND_CHARS:,} characters)" in x for x in lines)
    assert max(map(len, lines)) < MAX_COMMAND_CHARS
