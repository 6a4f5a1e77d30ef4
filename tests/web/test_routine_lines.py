"""A round's bookkeeping is marked `routine` in the event list: the list shows it, a summary may skip it.

As a new pass begins every fighter's turn machine goes back to waiting ("Tam waits for its next turn"),
once a fighter: true, and what the event list says, but not what a player wants first in the message
after ending a turn (actions.js `doneWords` leaves out what is routine).
"""

from __future__ import annotations

from pathlib import Path

from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.types import StateChanged
from tabletrail.service.encounter import Encounter
from tabletrail.web import views

BRAWL = Path(__file__).resolve().parents[2] / "replays" / "speed-meters-brawl.jsonl"


def test_only_a_turn_going_back_to_waiting_is_routine_for_every_reader():
    enc = Encounter.open(JsonlStore(BRAWL))
    for role in ("gm", "red", "blue"):
        lines = views.records(enc, role=role)
        routine = [line for line in lines if line.get("routine")]
        assert routine, "the brawl has new rounds: each fighter waits for its next turn"
        assert all(line["text"].endswith("waits for its next turn") for line in routine), routine
        for line in lines:
            record = enc.records[line["seq"] - 1]
            e = record.event
            said_routine = isinstance(e, StateChanged) and e.machine == "turn" and e.dest == "waiting"
            assert line.get("routine", False) is said_routine, line
            assert line.get("routine") in (None, True), "only true is sent: every other line stays as it was"
