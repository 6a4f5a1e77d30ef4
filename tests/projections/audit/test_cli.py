"""The audit verbs from the command line: readable text, --json, exit codes, clear errors, no writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tabletrail.cli import main
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.record import decode

ROOT = Path(__file__).resolve().parents[3]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


SCENARIO = ROOT / "scenarios" / "speed-meters-skirmish.toml"
PLAY = ["move ari 2,2 4,2", "end-turn", "move bo 2,3 3,4", "undo why=oops", "redo"]


@pytest.fixture
def log(tmp_path: Path, capsys) -> Path:
    """A log made now through the CLI, under the rules as they stand."""
    path = tmp_path / "fight.jsonl"
    assert main(["new", str(SCENARIO), "--log", str(path)]) == 0
    for text in PLAY:
        assert main(["do", str(path), *text.split()]) == 0, text
    capsys.readouterr()
    return path


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def first_move_seq(path: Path) -> int:
    for n, line in enumerate(path.read_bytes().splitlines(), start=1):
        if decode(line, str(n)).event.__struct_config__.tag == "moved":
            return n
    raise AssertionError("no move in the log")


def test_explain_prints_the_command_rules_steps_and_fighters(log: Path, capsys):
    seq = first_move_seq(log)
    assert main(["explain", str(log), str(seq)]) == 0
    out = capsys.readouterr().out
    assert f"event {seq} (batch" in out and "command: move" in out
    assert "speed-meters/movement: a Movement action moves up to Speed meters" in out
    assert "step  cell" in out and "total" in out and "left" in out
    assert "settings in force:" in out and "diagonal = every-1  (bears on speed-meters/movement)" in out
    assert "before: at" in out and "after:  at" in out


def test_explain_json_is_the_api_answer(log: Path, capsys):
    seq = first_move_seq(log)
    assert main(["explain", str(log), str(seq), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["data"]
    assert data["seq"] == seq and data["moves"][0]["steps"]


def test_explain_an_unknown_sequence_number_is_a_clear_error(log: Path, tmp_path: Path, capsys):
    before = files(tmp_path)
    assert main(["explain", str(log), "999"]) == 2
    assert "no event 999: the log holds events 1 to" in capsys.readouterr().err
    assert files(tmp_path) == before


def test_why_refused_names_the_rule_and_exits_1_leaving_the_files_alone(log: Path, tmp_path: Path, capsys):
    before = files(tmp_path)
    assert main(["why", str(log), "end-turn", "fighter=nobody"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("refused by tabletrail/turn-order:") and "nothing was appended" in out
    assert files(tmp_path) == before  # no log line, and no side-log entry either


def test_why_allowed_shows_the_cost_and_consequences(log: Path, tmp_path: Path, capsys):
    before = files(tmp_path)
    assert main(["why", "--json", str(log), "undo", "why=checking"]) == 0
    data = json.loads(capsys.readouterr().out)["data"]
    assert data["allowed"] and data["events"][0]["type"] == "undone"
    assert main(["why", str(log), "end-turn"]) == 0
    assert "consequences:" in capsys.readouterr().out
    assert files(tmp_path) == before


@pytest.mark.parametrize(
    ("words", "message"),
    [(["flarp"], "unknown command 'flarp'"), (["move", "ari"], "move needs path"), ([], "empty command")],
)
def test_why_a_malformed_command_is_a_clear_error(log: Path, tmp_path: Path, capsys, words, message):
    before = files(tmp_path)
    assert main(["why", str(log), *words]) == 2
    assert message in capsys.readouterr().err
    assert files(tmp_path) == before


def test_verify_ok_prints_the_tip_and_accepts_it_back(log: Path, capsys):
    assert main(["verify", str(log)]) == 0
    out = capsys.readouterr().out
    tip = line_hash(log.read_bytes().splitlines()[-1])
    assert ": OK:" in out and f"tip: {tip}" in out
    assert main(["verify", str(log), "--tip", tip]) == 0


def test_verify_a_tampered_log_exits_1_with_the_line(log: Path, capsys):
    seq = first_move_seq(log)
    lines = log.read_bytes().splitlines()
    lines[seq - 1] = lines[seq - 1].replace(b'"budget":', b'"budget":9')
    log.write_bytes(b"".join(line + b"\n" for line in lines))
    assert main(["verify", str(log)]) == 1
    out = capsys.readouterr().out
    assert f"FAILED at line/seq {seq + 1} (chain)" in out
    assert f"line {seq} was changed after it was written" in out
    assert main(["verify", str(log), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["data"]["finding"]["seq"] == seq + 1


def test_verify_a_wrong_tip_exits_1(log: Path, capsys):
    assert main(["verify", str(log), "--tip", "0" * 32]) == 1
    assert "(tip)" in capsys.readouterr().out


def test_verify_a_missing_log_is_a_clear_error(tmp_path: Path, capsys):
    assert main(["verify", str(tmp_path / "none.jsonl")]) == 2
    assert "no such log file" in capsys.readouterr().err


def test_whatif_shows_both_boards_side_by_side(log: Path, tmp_path: Path, capsys):
    before = files(tmp_path)
    assert main(["whatif", str(log), "--set", "diagonal=euclidean"]) == 0
    out = capsys.readouterr().out
    assert "what if diagonal = euclidean (recorded every-1)" in out
    assert "first divergence at event" in out
    header = next(line for line in out.splitlines() if line.startswith("recorded"))
    assert "what-if" in header
    assert files(tmp_path) == before


def test_whatif_an_unknown_setting_is_a_clear_error(log: Path, tmp_path: Path, capsys):
    before = files(tmp_path)
    assert main(["whatif", str(log), "--set", "gravity=low"]) == 2
    err = capsys.readouterr().err
    assert "has no setting 'gravity'" in err and "diagonal" in err
    assert files(tmp_path) == before


def test_refused_lists_when_and_why(tmp_path: Path, capsys):
    path = tmp_path / "new.jsonl"
    assert main(["new", str(ROOT / "scenarios" / "speed-meters-skirmish.toml"), "--log", str(path)]) == 0
    assert main(["refused", str(path)]) == 0
    assert "no refused attempts" in capsys.readouterr().out
    assert main(["do", str(path), "move", "ari", "10,2"]) == 1
    capsys.readouterr()
    assert main(["refused", str(path)]) == 0
    out = capsys.readouterr().out
    (entry,) = JsonlStore(path).refused()
    assert out.startswith("refused at ") and "'move ari 10,2' by gm, because " in out
    assert entry.reason in out and f"[{entry.rule}]" in out
    assert main(["refused", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["data"][0]["reason"] == entry.reason


@pytest.mark.parametrize("verb", ["explain", "why", "verify", "whatif", "refused"])
def test_every_audit_verb_has_help_with_an_example(verb: str, capsys):
    with pytest.raises(SystemExit):
        main([verb, "--help"])
    assert f"example: tabletrail {verb}" in capsys.readouterr().out


@pytest.mark.parametrize("replay", REPLAYS, ids=lambda p: p.stem)
def test_every_replay_verifies_from_the_command_line(replay: Path, capsys):
    assert main(["verify", str(replay)]) == 0
    assert ": OK:" in capsys.readouterr().out


def test_the_audit_reads_a_sqlite_log_too(tmp_path: Path, capsys):
    path = tmp_path / "fight.db"
    assert main(["new", str(SCENARIO), "--log", str(path)]) == 0
    for text in PLAY:
        assert main(["do", str(path), *text.split()]) == 0, text
    assert main(["do", str(path), "move", "bo", "10,6"]) == 1
    capsys.readouterr()
    assert main(["verify", str(path)]) == 0
    assert ": OK:" in capsys.readouterr().out
    assert main(["explain", str(path), "5"]) == 0
    assert "command: move ari 2,2 4,2" in capsys.readouterr().out
    assert main(["refused", str(path)]) == 0
    assert "'move bo 10,6' by gm, because" in capsys.readouterr().out
    assert main(["whatif", str(path), "--set", "diagonal=manhattan"]) == 0


def test_whatif_with_a_ruling_shows_what_it_would_have_refused(log: Path, tmp_path: Path, capsys):
    before = files(tmp_path)
    assert main(["whatif", str(log), "--ruling", "forbid 3,2 why='a pit'"]) == 0
    out = capsys.readouterr().out
    assert "what if the GM had ruled \"forbid 3,2 why='a pit'\"" in out
    assert "refused in the what-if: 'move ari 2,2 4,2'" in out and "a pit" in out
    assert main(["whatif", str(log), "--ruling", "forbid 3,2"]) == 2
    assert "must say why" in capsys.readouterr().err
    assert main(["whatif", str(log), "--ruling", "frobnicate 3,2"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err
    assert files(tmp_path) == before
