"""The turn strip's "to move" says each fighter's budget in what the ruleset pays moves with.

Under ap-squares every move is paid from the cycle's AP, so a loose object (which never acts)
has nothing to move with, and no fighter's budget reads in meters.
"""

from __future__ import annotations

from pathlib import Path

from tabletrail.encounter import Encounter
from tabletrail.events.log import MemoryStore
from tabletrail.events.scenario import load_scenario
from tabletrail.web.views import fighter

ROOT = Path(__file__).resolve().parent.parent


def test_ap_squares_budgets_read_in_ap_and_a_loose_object_has_none():
    enc = Encounter.create(MemoryStore(), load_scenario(ROOT / "scenarios" / "ap-squares-derelict.toml"))
    cards = {f.id: fighter(enc.state, f) for f in enc.state.fighters}
    assert cards["drum"]["move_left"] == 0 and cards["drum"]["move_left_text"] == "0 AP"
    assert cards["ari"]["move_left_text"] == "12 AP"
    assert all(c["move_unit"] == "AP" for c in cards.values())
