"""What did not happen, and why, in words with its numbers: `do` prints it and `explain` shows it.

The three disputes the issue starts from: a shove stopped by a wall (how far it
was to go, how far it went, what stopped it: recorded in the log, so replay and
verify carry it), a grab dropped for want of Action Dice, and a held action
going off (what it did, to whom).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import grid
from tabletrail.cli import main

from tests.rulesets.round_meters.test_rules import arena


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return code, out


def started(tmp_path: Path, capsys: pytest.CaptureFixture[str], toml: str) -> Path:
    scenario, log = tmp_path / "s.toml", tmp_path / "f.jsonl"
    scenario.write_text(toml, encoding="utf-8")
    run(capsys, "new", scenario, "--log", log)
    return log


def seq_of(out: str, needle: str) -> int:
    """The sequence number of the first printed event line holding `needle`."""
    line = next(x for x in out.splitlines() if needle in x)
    return int(line.split()[0])


def brawl(a: dict[str, int], t: dict[str, int], rows: list[str]) -> str:
    def fighter(fid: str, side: str, at: tuple[int, int], stats: dict[str, int]) -> str:
        extra = "\n".join(f"{k} = {v}" for k, v in stats.items())
        return f'[[fighters]]\nid = "{fid}"\nside = "{side}"\nat = [{at[0]}, {at[1]}]\nspeed = 5\n{extra}\n'

    return (
        '[encounter]\nname = "wall"\nruleset = "speed-meters"\nseed = 1\n'
        + grid(rows)
        + fighter("a", "blue", (2, 2), a)
        + fighter("t", "red", (3, 2), t)
    )


WALLED = ["#####", "#...#", "#...#", "#...#", "#####"]  # t at 3,2 has the wall right behind it


def test_a_grab_dropped_for_want_of_action_dice_says_what_it_lacked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    log = started(tmp_path, capsys, brawl({"brawn": 4, "actions": 2}, {"brawn": 2}, WALLED))
    _, out = run(capsys, "do", log, "grab", "a", "t", "roll=6", "roll=1")  # wins, 1 action left for Brawn 2
    let_go = next(x for x in out.splitlines() if "a lets go of t" in x)
    assert "a has 1 Action Dice, not the 2 the grab needs: it ends" in let_go, out
    _, card = run(capsys, "explain", log, seq_of(out, "a lets go of t"))
    assert "why: a has 1 Action Dice, not the 2 the grab needs: it ends" in card


def test_a_held_action_going_off_says_what_it_did_to_whom(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    log = started(tmp_path, capsys, arena())
    run(capsys, "do", log, "end-turn")
    run(capsys, "do", log, "hold", "bo", "shoot", "enemy-enters 7,4", "target=dax")
    run(capsys, "do", log, "end-turn")  # bo's: a hold leaves the turn going on
    run(capsys, "do", log, "end-turn")  # cyn's
    _, out = run(capsys, "do", log, "move", "dax", "7,4", "7,3")
    fired = next(x for x in out.splitlines() if "bo's action this round" in x)
    assert "shoot at dax for 2 AP, a held action going off" in fired, out
    assert "{" not in out and "'kind'" not in out
    _, card = run(capsys, "explain", log, seq_of(out, "bo's action this round"))
    assert "bo's action this round: shoot at dax for 2 AP, a held action going off" in card


def test_a_shove_stopped_by_a_wall_says_how_far_it_was_to_go_and_what_stopped_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    log = started(tmp_path, capsys, brawl({"brawn": 0}, {"brawn": 0}, WALLED))
    _, out = run(capsys, "do", log, "shove", "a", "t", "roll=6", "roll=1")
    assert "margin 5, so 2 m" in out
    stopped = next(x for x in out.splitlines() if x.split()[1:2] == ["t"] and "did not move" in x)
    assert "t did not move: 0 m of 2 m of forced movement; stopped: 4,2 is wall" in stopped, out
    _, card = run(capsys, "explain", log, seq_of(out, "t did not move"))
    assert "t did not move: 0 m of 2 m of forced movement; stopped: 4,2 is wall" in card
    assert "t moves on forced movement, 2 m to go" in card and "stopped: 4,2 is wall" in card
    # The log itself holds it: a move of no steps, the 2 m meant and the reason, which a replay
    # folds (t stays at 3,2) and verify re-decides to the same event.
    moved = next(json.loads(x)["event"] for x in log.read_text().splitlines() if '"moved"' in x)
    assert (moved["steps"], moved["budget"], moved["resource"]) == ([], 200, "forced")
    assert moved["stopped"].startswith("4,2 is wall")
    _, board = run(capsys, "replay", log, "--json")
    assert next(f for f in json.loads(board)["data"]["fighters"] if f["id"] == "t")["pos"][:2] == [3, 2]
    _, verified = run(capsys, "verify", log)
    assert "OK" in verified


def test_a_shove_cut_short_says_how_far_it_went(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    rows = ["######", "#....#", "#....#", "#....#", "######"]  # one free space behind t, then wall
    log = started(tmp_path, capsys, brawl({"brawn": 0}, {"brawn": 0}, rows))
    _, out = run(capsys, "do", log, "shove", "a", "t", "roll=6", "roll=1")
    assert "t moved 4,2 (1 m): 1 m of 2 m of forced movement; stopped: 5,2 is wall" in out, out


def test_a_pull_with_no_room_to_step_back_says_so_and_nobody_moves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    rows = ["#####", "#...#", "#...#", "#...#", "#####"]
    log = started(tmp_path, capsys, brawl({"brawn": 4}, {"brawn": 0}, rows))
    run(capsys, "do", log, "move", "a", "1,2")
    run(capsys, "do", log, "force", "t", "slide", "2,2")
    _, out = run(capsys, "do", log, "pull", "a", "t", "roll=6", "roll=1")
    assert "margin 9, so 4 m" in out
    assert "a did not move: 0 m of 4 m of grapple movement; stopped: 0,2 is wall" in out, out
    assert "t moved" not in out
