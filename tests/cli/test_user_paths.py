"""A new GM's paths through the CLI, on and off the README's tour.

Each test comes from a mistake or a confusing answer met while using tabletrail
from a scratch folder: help examples that did not run, messages that named a file
descriptor instead of a file, a failed `play` that left a half-written log, a
retried command id that silently stood for another command, board letters that
clashed with the map. Input errors exit 2 with one line naming what and where,
refusals exit 1, and neither changes a file.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from tabletrail.cli import EXAMPLES, build_parser, main
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.service.encounter import Encounter
from tabletrail.text import render

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
SKIRMISH = SCENARIOS / "speed-meters-skirmish.toml"
REPLAY = ROOT / "replays" / "speed-meters-skirmish.jsonl"


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def ok(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 0, f"exit {code}: {err}"
    return out


def error(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> str:
    """An input error: exit 2 and one line on stderr; returns that line."""
    code, out, err = run(capsys, *argv)
    assert code == 2, f"exit {code}; stdout {out!r}; stderr {err!r}"
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "fight.jsonl"
    ok(capsys, "new", SKIRMISH, "--log", path)
    return path


# --- help: every example runs ------------------------------------------------------------


def _example(verb: str) -> list[str]:
    parser = build_parser()
    verbs = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    epilog = verbs[verb].epilog or ""
    assert epilog.startswith("example: tabletrail "), f"{verb} --help has no example: {epilog!r}"
    text = epilog.removeprefix("example: ").split("   (")[0].split("  #")[0]
    return shlex.split(text)[1:]


def test_every_help_example_runs_in_a_fresh_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    """A GM copies the examples in the order the help lists the verbs; each one works."""
    (tmp_path / "scenarios").symlink_to(SCENARIOS)
    (tmp_path / "replays").symlink_to(ROOT / "replays")
    monkeypatch.chdir(tmp_path)
    order = ["new", "do", "why", "undo", "redo", "show", "log", "replay", "rules", "commands"]
    order += ["modifiers", "explain", "verify", "whatif", "refused", "repair", "import", "export", "play"]
    for verb in order:
        argv = _example(verb)
        assert argv[0] == verb
        code, _, err = run(capsys, *argv)
        assert code == 0, f"{' '.join(argv)}: exit {code}: {err}"  # none is refused (issue 15)


def test_the_top_level_help_shows_where_to_start(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "example: tabletrail replay replays/speed-meters-skirmish.jsonl" in out
    assert "--help" in out.split("example:")[1]


def test_the_new_example_names_a_scenario_that_ships():
    assert (ROOT / _example("new")[1]).exists(), EXAMPLES["new"]


# --- sequence numbers out of range ----------------------------------------------------------


@pytest.mark.parametrize("verb,flag", [("show", "--at"), ("replay", "--to")])
@pytest.mark.parametrize("value", ["0", "-3"])
def test_a_sequence_number_below_one_says_what_is_allowed(
    log: Path, capsys: pytest.CaptureFixture[str], verb: str, flag: str, value: str
):
    msg = error(capsys, verb, log, flag, value)
    assert f"{flag} {value}" in msg and "from 1" in msg and "read-only" not in msg


@pytest.mark.parametrize("verb,flag", [("show", "--at"), ("replay", "--to")])
def test_a_sequence_number_past_the_end_names_the_last_event(
    log: Path, capsys: pytest.CaptureFixture[str], verb: str, flag: str
):
    msg = error(capsys, verb, log, flag, "999")
    assert str(log) in msg and "999" in msg and "1 to 4" in msg


def test_the_last_sequence_number_is_fine(log: Path, capsys: pytest.CaptureFixture[str]):
    assert "ari to act" in ok(capsys, "show", log, "--at", "4")


# --- wrong kinds of file -----------------------------------------------------------------


@pytest.mark.parametrize(
    "verb", ["show", "log", "replay", "undo", "redo", "refused", "repair", "explain", "verify", "why"]
)
def test_a_folder_given_as_a_log_is_named_as_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], verb: str
):
    folder = tmp_path / "games"
    folder.mkdir()
    argv = [verb, folder] + {"explain": ["1"], "why": ["end-turn"]}.get(verb, [])
    msg = error(capsys, *argv)
    assert f"{folder}: is a folder" in msg, msg


@pytest.mark.parametrize("name", ["games", "games.db"])
def test_a_new_log_on_a_folder_says_folder_not_that_a_log_exists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
):
    folder = tmp_path / name
    folder.mkdir()
    msg = error(capsys, "new", SKIRMISH, "--log", folder)
    assert f"{folder}: is a folder" in msg and "already exists" not in msg
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("verb", ["refused", "show", "verify"])
def test_a_misspelt_log_name_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], verb: str):
    assert f"{tmp_path / 'fihgt.jsonl'}: no such log file" in error(capsys, verb, tmp_path / "fihgt.jsonl")


def test_importing_into_a_folder_says_folder(log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    folder = tmp_path / "out"
    folder.mkdir()
    assert f"{folder}: is a folder" in error(capsys, "import", log, folder)


def test_a_scenario_folder_is_named_as_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    msg = error(capsys, "new", tmp_path, "--log", tmp_path / "x.jsonl")
    assert f"{tmp_path}: is a folder, not a scenario file" in msg
    assert not (tmp_path / "x.jsonl").exists()


def test_a_scenario_given_where_a_log_goes_says_how_to_start(capsys: pytest.CaptureFixture[str]):
    msg = error(capsys, "show", SKIRMISH)
    assert "a scenario file, not a log" in msg and f"tabletrail new {SKIRMISH}" in msg


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_a_log_given_where_a_scenario_goes_says_so(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
):
    source = log
    if suffix == ".db":
        source = tmp_path / "fight.db"
        ok(capsys, "import", log, source)
    msg = error(capsys, "new", source, "--log", tmp_path / "again.jsonl")
    assert f"{source}: a tabletrail log, not a scenario file" in msg
    assert not (tmp_path / "again.jsonl").exists()


def test_a_jsonl_log_named_db_opens_as_what_it_is(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    named = tmp_path / "fight.db"
    shutil.copyfile(log, named)
    assert "ari to act" in ok(capsys, "show", named)
    ok(capsys, "do", named, "move", "ari", "2,2")
    enc = Encounter.open(JsonlStore(named))  # still JSON Lines, one batch longer
    assert enc.state.fighter("ari").pos[:2] == (2, 2)


def test_a_db_file_that_is_neither_sqlite_nor_a_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"\x00\x01 not a database at all" * 10)
    before = junk.read_bytes()
    msg = error(capsys, "show", junk)
    assert f"{junk}:" in msg and "not a SQLite database" in msg
    assert junk.read_bytes() == before


def test_an_empty_db_file_is_called_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    empty = tmp_path / "empty.db"
    empty.touch()
    msg = error(capsys, "show", empty)
    assert f"{empty}: an empty file" in msg and "a SQLite file" not in msg
    assert empty.read_bytes() == b""


# --- refusals on logs that cannot be written -----------------------------------------------


def test_a_refusal_is_still_told_when_its_side_log_cannot_be_written(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    side = log.with_name(log.name + ".refused")
    side.unlink(missing_ok=True)
    side.mkdir()  # the side log's name is taken by a folder: the note cannot be written
    before = log.read_bytes()
    code, _, err = run(capsys, "do", log, "move", "ari", "10,2")
    assert code == 1
    assert "refused by speed-meters/movement" in err
    assert "warning:" in err and str(side) in err
    assert log.read_bytes() == before


@pytest.fixture
def as_nobody() -> Iterator[tuple[list[str], Path]]:
    """A command prefix that runs as `nobody`, and a folder that user may read but not write in."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to act as a user who cannot write the file")
    folder = Path(tempfile.mkdtemp(prefix="tabletrail-ro-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"], folder
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_a_read_only_log_refuses_with_the_rule_and_says_it_is_read_only(
    as_nobody: tuple[list[str], Path], capsys: pytest.CaptureFixture[str], suffix: str
):
    prefix, folder = as_nobody
    path = folder / f"fight{suffix}"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    made = subprocess.run(  # in its own process, so no connection of this one is left open on the file
        [sys.executable, "-m", "tabletrail", "new", str(SKIRMISH), "--log", str(path)],
        capture_output=True,
        env=env,
    )
    assert made.returncode == 0, made.stderr
    path.chmod(0o444)
    before = files(folder)
    cmd = [*prefix, sys.executable, "-m", "tabletrail"]
    refused = subprocess.run(
        [*cmd, "do", str(path), "move", "ari", "10,2"], capture_output=True, text=True, env=env
    )
    assert refused.returncode == 1, refused.stderr
    assert "refused by speed-meters/movement" in refused.stderr and "Traceback" not in refused.stderr
    allowed = subprocess.run(
        [*cmd, "do", str(path), "move", "ari", "2,2"], capture_output=True, text=True, env=env
    )
    assert allowed.returncode == 2 and "Traceback" not in allowed.stderr
    assert "read-only" in allowed.stderr and "nothing was appended" in allowed.stderr, allowed.stderr
    for verb in ("show", "log", "verify", "refused"):  # and whoever may only read it can still read it
        read = subprocess.run([*cmd, verb, str(path)], capture_output=True, text=True, env=env)
        assert read.returncode == 0, f"{verb}: {read.stderr}"
    assert files(folder) == before


# --- play: all or nothing ----------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
@pytest.mark.parametrize(
    "script",
    ["move ari 2,2\nmvoe ari 3,3\n", "move ari 2,2\nmove ari 99,3\n", "! move ari 2,2\n", None],
    ids=["typo", "refused", "expected-refusal-accepted", "missing"],
)
def test_a_play_that_fails_leaves_no_log_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str, script: str | None
):
    path = tmp_path / "play.script"
    if script is not None:
        path.write_text(script, encoding="utf-8")
    target = tmp_path / f"out{suffix}"
    msg = error(capsys, "play", SKIRMISH, path, "--log", target)
    assert str(path) in msg
    assert sorted(p.name for p in tmp_path.iterdir()) == (["play.script"] if script is not None else [])


def test_a_play_that_works_writes_the_log_and_its_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    script = tmp_path / "play.script"
    script.write_text("move ari 2,2\n! move ari 10,2\nend-turn\n", encoding="utf-8")
    target = tmp_path / "out.jsonl"
    assert "1 refusal as expected" in ok(capsys, "play", SKIRMISH, script, "--log", target)
    enc = Encounter.open(JsonlStore(target))
    assert enc.state.turn.active == "bo"
    assert [r.text for r in JsonlStore(target).refused()] == ["move ari 10,2"]
    assert "1 refused" not in error(capsys, "play", SKIRMISH, script, "--log", target)  # exists: refused


# --- command ids -------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_a_command_id_reused_for_another_command_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
):
    path = tmp_path / f"fight{suffix}"
    ok(capsys, "new", SKIRMISH, "--log", path)
    ok(capsys, "do", path, "--id", "abc", "move", "ari", "2,2")
    version = len(Encounter.open(SqliteStore(path) if suffix == ".db" else JsonlStore(path)).records)
    msg = error(capsys, "do", path, "--id", "abc", "move", "ari", "3,2")
    assert (
        "'abc'" in msg and "move ari 2,2" in msg and "move ari 3,2" in msg and "nothing was appended" in msg
    )
    store = SqliteStore(path) if suffix == ".db" else JsonlStore(path)
    assert len(Encounter.open(store).records) == version


def test_a_retried_command_id_says_nothing_new_was_appended(log: Path, capsys: pytest.CaptureFixture[str]):
    first = ok(capsys, "do", log, "--id", "abc", "move", "ari", "2,2")
    before = log.read_bytes()
    code, out, err = run(capsys, "do", log, "--id", "abc", "move", "ari", "2,2")
    assert code == 0 and out == first
    assert "'abc'" in err and "nothing new was appended" in err
    assert log.read_bytes() == before


@pytest.mark.parametrize(
    "words",
    [
        ["move", "ari", "2,2", "--id", "abc"],
        ["--id=abc", "move", "ari", "2,2"],
        ["move", "ari", "2,2", "--id=abc"],
    ],
)
def test_the_command_id_may_be_written_anywhere(
    log: Path, capsys: pytest.CaptureFixture[str], words: list[str]
):
    ok(capsys, "do", log, *words)
    enc = Encounter.open(JsonlStore(log))
    assert enc.recorded("abc") is not None and enc.state.fighter("ari").pos[:2] == (2, 2)


def test_a_command_id_without_a_value(log: Path, capsys: pytest.CaptureFixture[str]):
    before = log.read_bytes()
    assert "--id needs a value" in error(capsys, "do", log, "move", "ari", "2,2", "--id")
    assert log.read_bytes() == before


def test_why_takes_its_flags_after_the_command(log: Path, capsys: pytest.CaptureFixture[str]):
    out = ok(capsys, "why", log, "move", "ari", "2,2", "--json")
    assert out.lstrip().startswith("{") and '"allowed": true' in out


def test_a_double_dash_option_inside_a_command_is_its_name_value_word(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    """One syntax: `--by blue` and `--by=blue` in a command are `by=blue`; an option it lacks is named."""
    before = log.read_bytes()
    msg = error(capsys, "do", log, "move", "ari", "2,2", "--speed", "9")
    assert "move has no option 'speed'" in msg and "by" in msg and log.read_bytes() == before
    ok(capsys, "do", log, "move", "ari", "2,2", "--by", "blue")
    assert b'"by":"blue"' in log.read_bytes()[len(before) :]


def test_a_stray_word_after_a_verb_shows_that_verbs_usage(log: Path, capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exc:
        main(["undo", str(log), "extra"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "usage: tabletrail undo" in err and "extra" in err


# --- the audit's words ---------------------------------------------------------------------


def test_verify_with_a_wrong_tip_does_not_say_the_anchor_was_found(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    code, out, _ = run(capsys, "verify", log, "--tip", "0123456789abcdef")
    assert code == 1
    assert "the anchor given was found" not in out
    code, out, _ = run(capsys, "verify", log, "--tip", "0123456789abcdef", "--json")
    assert '"anchored": false' in out


def test_verify_with_the_right_tip_says_it_was_found(log: Path, capsys: pytest.CaptureFixture[str]):
    tip = ok(capsys, "verify", log).split("tip: ")[1].split()[0]
    assert "the anchor given was found" in ok(capsys, "verify", log, "--tip", tip)


def test_why_names_the_rule_once(log: Path, capsys: pytest.CaptureFixture[str]):
    code, out, _ = run(capsys, "why", log, "move", "ari", "10,2")
    assert code == 1
    assert out.count("the rule:") == 1, out


def test_explain_leaves_out_empty_rule_brackets(capsys: pytest.CaptureFixture[str]):
    out = ok(capsys, "explain", REPLAY, "7")
    assert "[]" not in out


def test_whatif_says_when_a_setting_is_what_was_recorded(log: Path, capsys: pytest.CaptureFixture[str]):
    out = ok(capsys, "whatif", log, "--set", "diagonal=every-1")
    assert "the same as recorded" in out


def test_verify_calls_a_torn_line_torn(log: Path, capsys: pytest.CaptureFixture[str]):
    with open(log, "ab") as fh:
        fh.write(b'{"seq":5,"bat')
    code, out, _ = run(capsys, "verify", log)
    assert code == 1
    first = out.splitlines()[0]
    assert "line 5 is torn" in first and "truncated" not in first
    assert first.count(f"{log}") == 1, first


# --- blank lines -------------------------------------------------------------------------


def test_a_blank_line_at_the_end_is_named_and_repair_cuts_it(log: Path, capsys: pytest.CaptureFixture[str]):
    good = log.read_bytes()
    log.write_bytes(good + b"\n")
    msg = error(capsys, "show", log)
    assert f"{log}:5" in msg and "empty line" in msg and "repair" in msg
    assert "blank line" in ok(capsys, "repair", log)
    assert log.read_bytes() == good
    assert "ari to act" in ok(capsys, "show", log)


# --- the board -----------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_fighter_has_its_own_mark_and_none_is_a_map_character(scenario: Path):
    enc = Encounter.create(MemoryStore(), load_scenario(scenario))
    marks = render.marks(enc.state)
    glyphs = set("".join(enc.state.scenario.rows))
    assert len(set(marks.values())) == len(marks) == len(enc.state.fighters)
    assert not set(marks.values()) & glyphs, scenario
    board = render.board(enc.state)
    rows = {line[:3]: line for line in board.splitlines()}  # a map row by its label (edges add lines)
    step = 1 if enc.state.grid.edges is None else 2  # a map with walls on edges: a column between cells
    for f in enc.state.fighters:
        x, y = f.pos[0], f.pos[1]
        assert rows[f"{y:>2} "][3 + step * x] in (marks[f.id], "*")


def test_the_board_has_a_key_to_the_map(capsys: pytest.CaptureFixture[str]):
    enc = Encounter.create(MemoryStore(), load_scenario(SCENARIOS / "initiative-yards-ruined-bridge.toml"))
    board = render.board(enc.state)
    assert "# wall" in board and "H ladder" in board and "_ gap (ground -4)" in board


def test_two_fighters_on_one_column_show_as_a_star():
    enc = Encounter.create(MemoryStore(), load_scenario(SKIRMISH))
    ari, bo = enc.state.fighters[0], enc.state.fighters[1]
    moved = enc.state.with_fighter(msgspec.structs.replace(bo, pos=(ari.pos[0], ari.pos[1], 300)))
    assert render.board(moved).splitlines()[1 + ari.pos[1]][3 + ari.pos[0]] == "*"


def test_the_fighter_table_names_each_spent_budget(log: Path, capsys: pytest.CaptureFixture[str]):
    ok(capsys, "do", log, "move", "ari", "2,2", "4,2")
    out = ok(capsys, "show", log)
    ari = next(line for line in out.splitlines() if line.split()[1:2] == ["ari"])
    assert "actions 1, movement 5 m" in ari


def test_a_list_in_an_event_is_shown_whole():
    out = render.log_lines(Encounter.open(JsonlStore(REPLAY)).records[:4], set(), set())
    assert "actions, movement and maneuver start over; its forced movement, grapple movement" in out
    assert "('" not in out


# --- scenario files ------------------------------------------------------------------------


def _scenario(tmp_path: Path, old: str, new: str) -> Path:
    text = SKIRMISH.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "s.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_a_misspelt_section_is_named_before_what_it_left_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = _scenario(tmp_path, "[map]", "[mapp]")
    msg = error(capsys, "new", path, "--log", tmp_path / "x.jsonl")
    assert re.search(rf"{re.escape(str(path))}:\d+:1: mapp: unknown section", msg), msg  # with its line


def test_a_missing_field_is_called_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = _scenario(tmp_path, 'side = "blue"', 'sid = "blue"')
    msg = error(capsys, "new", path, "--log", tmp_path / "x.jsonl")
    assert "fighters[0].side: missing" in msg and "None" not in msg


# --- a command in quotes, and text kept as typed -------------------------------------------------


@pytest.mark.parametrize("verb", ["do", "why"])
def test_a_command_in_one_quoted_word_is_read_as_its_words(
    log: Path, capsys: pytest.CaptureFixture[str], verb: str
):
    code, out, err = run(capsys, verb, log, "move ari 2,2")
    assert code == 0, err
    assert "move ari 2,2" in out


def test_the_logged_text_of_a_command_reads_back_as_the_same_command(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    from tabletrail.events.types import CommandIssued
    from tabletrail.service.syntax import parse

    ok(capsys, "do", log, "move", "ari", "2,2", "why=a long reason")
    head = next(
        r.event
        for r in reversed(Encounter.open(JsonlStore(log)).records)
        if r.seq and isinstance(r.event, CommandIssued)
    )
    assert parse(head.text) == head.command


def test_why_heads_the_fighters_it_shows(log: Path, capsys: pytest.CaptureFixture[str]):
    out = ok(capsys, "why", log, "move", "ari", "2,2")
    lines = out.splitlines()
    assert lines[lines.index("  ari") - 1] == "fighters involved:"


def test_an_unknown_option_lists_the_options_as_they_are_written(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    msg = error(capsys, "do", log, "move", "ari", "2,2", "rol=4")
    assert "'rol'" in msg and "roll" in msg and "rolls" not in msg


def test_new_twice_without_log_says_how_to_name_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    ok(capsys, "new", SKIRMISH)
    db = tmp_path / "speed-meters-skirmish.db"
    before = list(SqliteStore(db).read())
    msg = error(capsys, "new", SKIRMISH)
    assert "speed-meters-skirmish.db" in msg and "--log" in msg and "tabletrail show" in msg
    assert list(SqliteStore(db).read()) == before
    assert {p.name for p in tmp_path.iterdir()} <= {db.name, db.name + "-wal", db.name + "-shm"}


def test_a_file_of_random_bytes_is_not_called_a_torn_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\x00garbage\nmore garbage\nno newline at the end")
    msg = error(capsys, "show", junk)
    assert f"{junk}:1: not a log record" in msg and "torn" not in msg
    code, out, _ = run(capsys, "verify", junk)
    assert code == 1 and out.count("not a log record") == 1, out


def test_a_torn_real_log_is_still_called_torn(log: Path, capsys: pytest.CaptureFixture[str]):
    """verify names the torn tail without touching it; the next opener cuts it, keeps it, and says so."""
    with open(log, "ab") as fh:
        fh.write(b'{"seq":5,"bat')
    code, out, _ = run(capsys, "verify", log)
    assert code == 1 and "line 5 is torn" in out
    assert log.read_bytes().endswith(b'{"seq":5,"bat'), "verify changes nothing"
    code, _, err = run(capsys, "show", log)
    assert code == 0 and "a crash left a torn line of 13 bytes" in err
    kept = list(log.parent.glob("fight.jsonl.torn-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == b'{"seq":5,"bat'
    assert log.read_bytes().endswith(b"\n")


def test_a_fighter_card_says_what_the_next_move_may_cost_not_what_is_left_of_this_one(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    """speed-meters: after 2 m of a 6 m Movement, the next Movement is a fresh 6 m (a new action)."""
    out = ok(capsys, "why", log, "move", "ari", "2,2", "3,3")
    would = next(line for line in out.splitlines() if "would be:" in line)
    assert "next move up to 6 m" in would and "can still move" not in would


def test_commands_of_one_ruleset(capsys: pytest.CaptureFixture[str]):
    out = ok(capsys, "commands", "speed-meters")
    verbs = {
        line.split()[0] for line in out.splitlines() if line.startswith("  ") and not line.startswith("    ")
    }
    assert {"move", "climb", "undo", "forbid", "end-turn"} <= verbs
    assert "sprint" not in verbs and "brake" not in verbs


def test_every_command_says_which_rulesets_know_it(capsys: pytest.CaptureFixture[str]):
    out = ok(capsys, "commands")
    lines = out.splitlines()
    sprint = next(i for i, line in enumerate(lines) if line.startswith("  sprint "))
    assert "round-meters" in "\n".join(lines[sprint : sprint + 3])
    assert "unknown ruleset 'speed-meter'" in error(capsys, "commands", "speed-meter")


def test_every_argument_of_every_verb_says_what_it_is():
    parser = build_parser()
    verbs = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    missing = [
        f"{name} {action.dest}"
        for name, sub in verbs.items()
        if name != "serve"  # the web group's own module
        for action in sub._actions
        if action.dest != "help" and not action.help
    ]
    assert not missing, missing


def test_a_long_map_key_is_wrapped_and_whatif_shows_it_once(capsys: pytest.CaptureFixture[str]):
    replay = ROOT / "replays" / "initiative-yards-ruined-bridge.jsonl"
    out = ok(capsys, "show", replay)
    key = out[out.index("key:") : out.index("\nround")]
    assert key.count("\n") >= 1 and all(len(line) <= render.KEY_WIDTH for line in key.splitlines())
    assert "u unstable" in key
    out = ok(capsys, "whatif", replay, "--set", "diagonal=every-1")
    assert out.count("key:") == 1 and "u unstable" in out


def test_commands_and_rules_take_a_log_for_its_ruleset(tmp_path: Path, capsys):
    """`commands fight.jsonl`: a GM holding a log need not remember which ruleset it runs under."""
    log = tmp_path / "fight.jsonl"
    ok(capsys, "new", SKIRMISH, "--log", log)
    listing = ok(capsys, "commands", log)
    assert "climb FIGHTER PATH" in listing and "invade" not in listing  # speed-meters', not ap-squares'
    assert ok(capsys, "rules", log).startswith("speed-meters:")
    assert "no log file of that name" in error(capsys, "commands", tmp_path / "nothing.jsonl")
