"""Review of session 4: what a GM reads at the table carries no Python reprs or centi-units."""

from __future__ import annotations

from pathlib import Path

import pytest
from tabletrail.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "speed-meters-skirmish.toml"


@pytest.fixture
def log(tmp_path: Path, capsys) -> Path:
    path = tmp_path / "fight.jsonl"
    assert main(["new", str(SCENARIO), "--log", str(path)]) == 0
    assert main(["do", str(path), "move", "ari", "2,2", "4,2"]) == 0
    capsys.readouterr()
    return path


def test_whatif_tells_settings_and_fighters_in_words(log: Path, capsys):
    assert main(["whatif", str(log), "--set", "diagonal=euclidean"]) == 0
    out = capsys.readouterr().out
    assert "what if diagonal = euclidean (recorded every-1)" in out
    assert "ari spent: recorded actions 1, movement 5 m, what-if actions 1, movement 5.41 m" in out
    assert "{" not in out and "'" not in out


def test_explain_settings_in_force_say_yes_no_and_words(log: Path, capsys):
    assert main(["explain", str(log), "7"]) == 0
    out = capsys.readouterr().out
    assert "  diagonal = every-1  (bears on speed-meters/movement)" in out
    assert "short_fall_prone = yes" in out and "ledge_drop = refuse" in out
    assert "True" not in out and "'every-1'" not in out


def test_rules_listing_says_defaults_as_written(capsys):
    assert main(["rules", "speed-meters"]) == 0
    out = capsys.readouterr().out
    assert "    ledge_drop = refuse: " in out and "    aquatic_breathes = yes: " in out
    assert " = True:" not in out and " = 'refuse':" not in out


def test_verify_and_explain_tell_a_ruling_detail_in_words(log: Path, capsys):
    """A GM ruling's detail reads as the ruling note does: yes/no, cells, lengths in meters."""
    for words in (["setting", "short_fall_prone", "no", "why=house"], ["place", "bo", "3,5", "why=gm"]):
        assert main(["do", str(log), *words]) == 0
    capsys.readouterr()
    assert main(["verify", str(log)]) == 0
    out = capsys.readouterr().out
    assert "detail setting short_fall_prone, from yes, to no" in out
    assert "detail fighter bo, from 2,1, to 3,5 at height 1 m" in out
    assert "{" not in out and "true" not in out and "100" not in out
    assert main(["explain", str(log), "13"]) == 0
    out = capsys.readouterr().out
    assert "detail setting short_fall_prone, from yes, to no" in out and '{"setting"' not in out


def test_verify_counts_agree_with_their_nouns(log: Path, capsys):
    assert main(["verify", str(log)]) == 0
    out = capsys.readouterr().out
    assert "hash chain intact; 1 command, 0 undos, 0 redos re-decided and matched the log" in out


def test_speed_meters_stand_up_actions_may_not_be_negative(log: Path, capsys):
    """As ap-squares' posture_ap: a negative count of actions is no ruling a table can play."""
    before = log.read_bytes()
    assert main(["do", str(log), "setting", "stand_up_actions", "-1", "why=house"]) == 1
    assert "refused by speed-meters/movement: setting stand_up_actions: must not be negative, got -1" in (
        capsys.readouterr().err
    )
    assert log.read_bytes() == before
    assert main(["whatif", str(log), "--set", "stand_up_actions=-1"]) == 2


def test_the_carried_alternating_count_reads_as_what_it_means(tmp_path: Path, capsys):
    """round-meters alternating diagonals: the carried count says what the next diagonal costs,
    not the internal 'ari: diagonals 1'."""
    path = tmp_path / "r.jsonl"
    assert main(["new", str(ROOT / "scenarios" / "round-meters-ambush.toml"), "--log", str(path)]) == 0
    for words in ("setting diagonal alternating why=table", "move ari 2,2", "move ari 3,3"):
        assert main(["do", str(path), *words.split()]) == 0
    capsys.readouterr()
    assert main(["log", str(path)]) == 0
    out = capsys.readouterr().out
    assert "ari's next diagonal step counts double (alternating diagonals)" in out
    assert "ari's next diagonal step counts once (alternating diagonals)" in out
    assert "diagonals 1" not in out and "diagonals 0" not in out
    assert main(["show", str(path)]) == 0
    assert "diagonals 0" not in capsys.readouterr().out
