"""ap-squares, the catalogue row by row and every setting both ways.

Each test names the rule id or setting it holds the engine to and quotes the words
(document 002, CATALOGUE.md, or the setting's own description in `tabletrail rules`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import do, refuse
from support_ap_squares import ap_left, game, pos
from tabletrail.cli import main
from tabletrail.events.errors import InputError

AP = "ap-squares"
DERELICT = Path(__file__).parents[3] / "scenarios" / "ap-squares-derelict.toml"

# The catalogue's rule ids are checked once, in tests/rulesets/ap_squares/test_shipped_replay.py (IDS).


def test_why_prices_a_walk_in_ap_not_in_meters(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    # ap-squares/walk: "walking costs 1 AP a square". `why` gives the cost breakdown: Ari has 12 AP
    # (its `ap` stat), and two squares walked cost 2 of them, not "2 of 12 m".
    log = tmp_path / "derelict.jsonl"
    assert main(["new", str(DERELICT), "--log", str(log)]) == 0
    capsys.readouterr()
    assert main(["why", str(log), "move", "ari", "2,2", "3,3"]) == 0
    out = capsys.readouterr().out
    assert "12 AP left before it" in out and "total 2 of 12 AP, 10 left" in out
    assert " m left" not in out and "of 12 m" not in out


def test_checks_table_asks_for_each_missing_roll_by_its_place():
    # setting checks = 'table': "'table' refuses until the table enters the roll". A body-block
    # (ap-squares/invade: "both characters make Strength Attribute Rolls") needs two; given one,
    # the refusal asks for the second in words the table can act on.
    enc = game(
        "ari blue 2,2 ap=10", "bo red 3,2 ap=10", initiative=("ari", "bo"), settings='checks = "table"'
    )
    do(enc, "move ari 3,2")
    r = refuse(enc, "react-invasion bo block roll=3", "tabletrail/checks")
    assert "add a 2nd roll=N" in r.reason and "roll=2th" not in r.reason
    do(enc, "react-invasion bo block roll=3 roll=4")
    assert pos(enc, "ari") == (3, 2)  # 4 > 3: ari squeezes in


def test_posture_ap_prices_dropping_prone_and_standing_up_both_ways():
    # setting posture_ap: "AP dropping prone or standing up costs, from the AP per cycle (house
    # default 0: document 002 prices neither)". Default: free; 1: a Spent of 1 AP each, refused
    # by ap-squares/crawl when none are left.
    enc = game("ari blue 2,2 ap=3", "bo red 6,4", initiative=("ari", "bo"))
    do(enc, "drop-prone ari")
    do(enc, "stand-up ari")
    assert ap_left(enc, "ari") == 3
    enc = game("ari blue 2,2 ap=3", "bo red 6,4", initiative=("ari", "bo"), settings="posture_ap = 1")
    do(enc, "drop-prone ari")
    do(enc, "move ari 3,2")  # crawl: 2 AP a square
    assert ap_left(enc, "ari") == 0
    r = refuse(enc, "stand-up ari", f"{AP}/crawl")
    assert "standing up costs 1 AP" in r.reason and "0 AP left" in r.reason


def test_no_setting_counted_in_ap_may_be_negative():
    for name in ("ap_per_cycle", "leap_ap", "posture_ap"):
        with pytest.raises(InputError, match=rf"settings\.{name}: must not be negative, got -1"):
            game("ari blue 2,2", "bo red 6,4", settings=f"{name} = -1")


def test_whatif_a_setting_both_ways_prices_in_ap_and_names_the_value_in_force(
    capsys: pytest.CaptureFixture[str],
):
    # setting posture_ap (house default 0) on the shipped derelict log, written before the setting
    # existed: the log replays under the default ("older logs take a new setting's default"), so
    # the what-if compares 1 with 0, and its first divergence costs 1 AP (walk: "1 AP a square").
    log = Path(__file__).parents[3] / "replays" / "ap-squares-derelict.jsonl"
    assert main(["whatif", str(log), "--set", "posture_ap=1"]) == 0
    out = capsys.readouterr().out
    assert "what if posture_ap = 1 (recorded 0)" in out
    assert "ari spends 1 AP  [ap-squares/crawl]" in out and "100 AP" not in out
    assert main(["whatif", str(log), "--set", "diagonal=euclidean"]) == 0
    out = capsys.readouterr().out
    # crawl: 2 AP a square, x 1.41 a diagonal: the replay began under 0.1, and a what-if re-decides a
    # log under its own rules version (exact √2 lengths, 2.83, are for logs begun under 0.3 or later)
    assert "ari moved 2,2 (2.82 AP): 2.82 AP of 9 AP" in out
