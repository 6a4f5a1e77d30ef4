"""The turn strip's "to move" says each fighter's budget in what the ruleset pays moves with.

Under ap-squares every move is paid from the cycle's AP, so a loose object (which never acts)
has nothing to move with, and no fighter's budget reads in meters.
"""

from __future__ import annotations

from pathlib import Path

from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.service.encounter import Encounter
from tabletrail.web.views import fighter

ROOT = Path(__file__).resolve().parents[2]


def test_ap_squares_budgets_read_in_ap_and_a_loose_object_has_none():
    enc = Encounter.create(MemoryStore(), load_scenario(ROOT / "scenarios" / "ap-squares-derelict.toml"))
    cards = {f.id: fighter(enc.state, f) for f in enc.state.fighters}
    assert cards["drum"]["move_left"] == 0 and cards["drum"]["move_left_text"] == "0 AP"
    assert cards["ari"]["move_left_text"] == "12 AP"
    assert all(c["move_unit"] == "AP" for c in cards.values())


def test_a_gm_adjustment_reads_in_meters_in_the_log_and_on_the_board(tmp_path: Path, capsys):
    """`adjust ari 2` logged "amount 200" and marked "given movement 200": centi-units at the table."""
    from tabletrail.cli import main

    log = tmp_path / "fight.jsonl"
    assert main(["new", str(ROOT / "scenarios" / "speed-meters-skirmish.toml"), "--log", str(log)]) == 0
    assert main(["do", str(log), "adjust", "ari", "2", "why=haste"]) == 0
    capsys.readouterr()
    assert main(["log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "adjust movement (fighter ari, resource movement, amount 2 m): haste" in out
    assert "ari's next Movement has 2 m more movement" in out and "200" not in out
    assert main(["show", str(log)]) == 0
    assert "200" not in capsys.readouterr().out
