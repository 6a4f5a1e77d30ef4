"""Every CLI verb on a real log file (issue 2, item 9), and `python -m tabletrail`."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest
from tabletrail.cli import build_parser, main
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "speed-meters-skirmish.toml"
SCRIPT = ROOT / "replays" / "speed-meters-skirmish.script"
REPLAY = ROOT / "replays" / "speed-meters-skirmish.jsonl"
SPEED_METERS_RULES = ["movement", "occupancy", "stop", "rough"]


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path, code: int = 0) -> str:
    """Run one CLI call that must exit with `code`; returns its stdout."""
    got = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert got == code, f"exit {got}: {err}"
    assert "Traceback" not in out + err
    return out


def row(board: str, y: int) -> str:
    """Row y of a printed map (found under its column ruler), without its row number."""
    lines = board.splitlines()
    ruler = next(i for i, line in enumerate(lines) if line.startswith("   0123"))
    return lines[ruler + 1 + y][3:]


def normal(data: object) -> object:
    return json.loads(json.dumps(data, sort_keys=True))


@pytest.fixture
def log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "fight.jsonl"
    cli(capsys, "new", SCENARIO, "--log", path)
    return path


def test_new_creates_the_log_and_shows_the_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "fight.jsonl"
    out = cli(capsys, "new", SCENARIO, "--log", path)
    assert "Warehouse brawl" in out and "speed-meters" in out and str(path) in out
    assert row(out, 1) == "#AB.......D#"
    assert "round 1, ari to act" in out
    enc = Encounter.open(JsonlStore(path))
    assert [f.id for f in enc.state.fighters] == ["ari", "bo", "cyn", "dax"]


def test_do_appends_one_batch_and_prints_it_with_rule_ids(log: Path, capsys: pytest.CaptureFixture[str]):
    before = len(log.read_bytes().splitlines())
    out = cli(capsys, "do", log, "move", "ari", "2,2", "4,2")
    lines = out.splitlines()
    assert lines[0].split()[0] == str(before + 1)
    assert "command: move ari 2,2 4,2" in lines[0]
    assert any("ari moved" in x and ": 5 m of 6 m" in x and "[speed-meters/movement" in x for x in lines), out
    assert any("ari spends 1 action" in x and "[speed-meters/stop]" in x for x in lines), out
    assert len(log.read_bytes().splitlines()) == before + len(lines)


def test_a_move_over_rough_cites_the_rough_rule(log: Path, capsys: pytest.CaptureFixture[str]):
    out = cli(capsys, "do", log, "move", "ari", "2,2", "4,2")  # 1 + 2 + 2 m: two rough spaces
    moved = next(x for x in out.splitlines() if "ari moved" in x)
    assert "speed-meters/rough" in moved


def test_undo_and_redo_move_the_fighter_back_and_forth(log: Path, capsys: pytest.CaptureFixture[str]):
    cli(capsys, "do", log, "move", "ari", "3,1")
    assert "batch 2 undone by gm: misclick" in cli(capsys, "undo", log, "--why", "misclick")
    assert row(cli(capsys, "show", log), 1) == "#AB.......D#"
    assert "batch 2 redone by gm" in cli(capsys, "redo", log)
    assert row(cli(capsys, "show", log), 1) == "#.BA......D#"


def test_a_player_may_not_undo_the_gms_command(log: Path, capsys: pytest.CaptureFixture[str]):
    cli(capsys, "do", log, "move", "ari", "3,1")
    before = log.read_bytes()
    cli(capsys, "undo", log, "--by", "red", code=1)
    assert log.read_bytes() == before


def test_show_at_gives_the_board_as_it_stood(log: Path, capsys: pytest.CaptureFixture[str]):
    start = len(log.read_bytes().splitlines())
    cli(capsys, "do", log, "move", "ari", "3,1")
    cli(capsys, "do", log, "end-turn")
    then = cli(capsys, "show", log, "--at", str(start))
    assert row(then, 1) == "#AB.......D#" and "ari to act" in then
    now = cli(capsys, "show", log)
    assert row(now, 1) == "#.BA......D#" and "bo to act" in now
    assert "id" in now and "side" in now and "ari" in now  # the fighter table


def test_log_lists_events_with_rule_ids_and_marks_undone_and_abandoned(
    log: Path, capsys: pytest.CaptureFixture[str]
):
    cli(capsys, "do", log, "move", "ari", "3,1")
    cli(capsys, "undo", log)
    out = cli(capsys, "log", log)
    assert "(undone)" in out
    cli(capsys, "do", log, "move", "ari", "2,2")
    out = cli(capsys, "log", log)
    lines = out.splitlines()
    assert len(lines) == len(log.read_bytes().splitlines())
    assert "encounter started: Warehouse brawl (speed-meters)" in lines[0]
    assert any("command: move ari 3,1" in x and "(abandoned)" in x for x in lines), out
    assert any("abandoned" in x and "[tabletrail/undo]" in x for x in lines), out
    assert any("ari moved 2,2" in x and "[speed-meters/movement]" in x for x in lines), out


def test_replay_to_json_matches_the_board_at_that_point(log: Path, capsys: pytest.CaptureFixture[str]):
    cli(capsys, "do", log, "move", "ari", "3,1")
    middle = len(log.read_bytes().splitlines())
    cli(capsys, "do", log, "end-turn")
    data = json.loads(cli(capsys, "replay", log, "--to", str(middle), "--json"))["data"]
    assert data == normal(view(Encounter.open(JsonlStore(log), upto=middle).state))
    ari = next(f for f in data["fighters"] if f["id"] == "ari")
    assert ari["pos"][:2] == [3, 1] and data["turn"]["index"] == 0
    text = cli(capsys, "replay", log)
    assert f"replayed {len(log.read_bytes().splitlines())} events" in text


def test_replay_of_the_shipped_log_matches_its_board(capsys: pytest.CaptureFixture[str]):
    data = json.loads(cli(capsys, "replay", REPLAY, "--json"))["data"]
    assert data == normal(json.loads(REPLAY.with_suffix(".board.json").read_text(encoding="utf-8")))


def test_rules_lists_the_speed_meters_rule_ids_with_settings(capsys: pytest.CaptureFixture[str]):
    out = cli(capsys, "rules")
    for name in SPEED_METERS_RULES:
        assert f"speed-meters/{name}:" in out
    assert "default ruling:" in out and "diagonal = every-1" in out
    one = json.loads(cli(capsys, "rules", "speed-meters", "--json"))["data"]
    assert [rs["id"] for rs in one] == ["speed-meters"]
    rs = one[0]
    ids = [r["id"] for r in rs["rules"]]
    assert {f"speed-meters/{n}" for n in SPEED_METERS_RULES} <= set(ids)
    assert len(ids) == len(set(ids)), "a rule id is listed twice"
    assert all(r["enforce"] for r in rs["rules"]), "every rule says what is enforced"
    settings = {s["name"]: s for s in rs["settings"]}
    assert (
        settings["diagonal"]["default"] == "every-1"
        and settings["diagonal"]["rule"] == "speed-meters/movement"
    )
    assert "actions_per_turn" in settings
    assert {"move", "end-turn"} <= set(rs["commands"])
    assert "speed" in {s["name"] for s in rs["stats"]}
    every = json.loads(cli(capsys, "rules", "--json"))["data"]
    assert "speed-meters" in {rs["id"] for rs in every} and len(every) > 1


def test_rules_of_an_unknown_ruleset_is_an_input_error(capsys: pytest.CaptureFixture[str]):
    assert main(["rules", "speed-metres"]) == 2
    err = capsys.readouterr().err
    assert "unknown ruleset 'speed-metres'" in err and "speed-meters" in err


def test_commands_lists_every_verb_with_its_syntax(capsys: pytest.CaptureFixture[str]):
    out = cli(capsys, "commands")
    assert "move FIGHTER PATH…" in out
    for verb in ("end-turn", "drop-prone", "stand-up", "undo", "redo"):
        assert f"  {verb}" in out


def test_modifiers_under_speed_meters_are_none(log: Path, capsys: pytest.CaptureFixture[str]):
    assert "no modifiers in force for ari" in cli(capsys, "modifiers", log, "ari", "--against", "cyn")
    assert json.loads(cli(capsys, "modifiers", log, "ari", "--json"))["data"] == []
    cli(capsys, "modifiers", log, "zed", code=2)


def test_play_runs_the_shipped_script_to_the_shipped_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    out_log = tmp_path / "out.jsonl"
    out = cli(capsys, "play", SCENARIO, SCRIPT, "--log", out_log)
    expected_refusals = sum(
        1 for line in SCRIPT.read_text(encoding="utf-8").splitlines() if line.strip().startswith("!")
    )
    noun = "refusal" if expected_refusals == 1 else "refusals"
    assert f"{expected_refusals} {noun} as expected" in out
    board = view(Encounter.open(JsonlStore(out_log)).state)
    assert normal(board) == normal(json.loads(REPLAY.with_suffix(".board.json").read_text(encoding="utf-8")))


def test_play_stops_at_an_unexpected_refusal_naming_the_script_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    script = tmp_path / "s.script"
    script.write_text("move ari 2,2\n# a comment\nmove ari 9,9\n", encoding="utf-8")
    main(["play", str(SCENARIO), str(script), "--log", str(tmp_path / "p.jsonl")])
    err = capsys.readouterr().err
    assert f"{script}:3:" in err and "speed-meters/movement" in err


def verbs() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_foundation_verb_is_there():
    wanted = {"new", "do", "undo", "redo", "show", "log", "replay", "rules", "commands", "modifiers", "play"}
    assert wanted <= set(verbs())


@pytest.mark.parametrize("verb", sorted(verbs()))
def test_every_verb_has_help_with_an_example(verb: str, capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as done:
        main([verb, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "example:" in out
    example = out.split("example:", 1)[1]
    assert f"tabletrail {verb}" in example


def test_python_dash_m_tabletrail_runs():
    done = subprocess.run(
        [sys.executable, "-m", "tabletrail", "rules", "speed-meters"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "speed-meters/movement" in done.stdout


def test_python_dash_m_tabletrail_reports_input_errors_without_a_traceback(tmp_path: Path):
    done = subprocess.run(
        [sys.executable, "-m", "tabletrail", "show", str(tmp_path / "nowhere.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "no such log file" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_do_with_a_command_id_appends_once_however_often_it_is_retried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
):
    path = tmp_path / f"fight{suffix}"
    cli(capsys, "new", SCENARIO, "--log", path)
    first = cli(capsys, "do", path, "--id", "c1", "move", "ari", "3,1")
    again = cli(capsys, "do", path, "--id", "c1", "move", "ari", "3,1")
    assert first == again and "ari moved" in first
    assert cli(capsys, "log", path).count("command: move ari 3,1") == 1


def test_new_without_log_makes_a_sqlite_store_named_after_the_scenario(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    cli(capsys, "new", SCENARIO)
    made = tmp_path / (SCENARIO.stem + ".db")
    assert made.read_bytes()[:16] == b"SQLite format 3\x00"
    assert "round 1" in cli(capsys, "show", made)


def test_rules_lists_the_engine_rules_every_refusal_may_cite(capsys: pytest.CaptureFixture[str]):
    out = cli(capsys, "rules", "speed-meters")
    for rule_id in ("tabletrail/turn-order", "tabletrail/side", "tabletrail/checks", "tabletrail/undo"):
        assert f"  {rule_id}: " in out
