"""initiative-yards held to document 000's own sentences: a fresh review (fidelity review).

Each test cites its rule id and quotes the sentence it holds the engine to. Checks use table
rolls: 1d20 + Initiative 8 >= 15, so roll=7 passes and roll=1 fails.
"""

from __future__ import annotations

from support import do, encounter, of_type, refuse
from tabletrail.encounter import Encounter
from tabletrail.events.types import DoorChanged
from test_initiative_yards import IY, engagement, fighter

# --- engaged-actions: "While engaged, fighters can only use the Strike, Command, and Manifest
# actions." A door is opened as part of the move (door_cost): not while the engagement holds. ------

CELLAR = """
[encounter]
name = "a cellar door"
ruleset = "initiative-yards"
seed = 3
[map]
rows = ["......", "......", "......"]
walls = ["3,0-3,1", "3,2-3,3"]
doors = [{ at = "2,1|3,1", closed = true }]
[map.legend]
"." = "floor"
"""


def cellar() -> Encounter:
    enc = encounter(CELLAR + fighter("a", "blue", (2, 1)) + fighter("e", "red", (0, 1)))
    do(enc, "end-turn")
    do(enc, "move e 1,1")  # into a's Reach: both engaged
    do(enc, "end-turn")
    return enc


def test_an_engaged_fighter_may_not_open_a_door():
    # initiative-yards/engaged-actions
    enc = cellar()
    assert engagement(enc, "a") == "engaged"
    r = refuse(enc, "open a 2,1|3,1", f"{IY}/engaged-actions")
    assert "opening a door" in r.reason
    do(enc, "act a strike target=e")  # a Strike is allowed
    do(enc, "resolve a e miss")  # "they can only break the engagement by resolving a combat"
    events = do(enc, "open a 2,1|3,1")
    assert [e.dest for e in of_type(events, DoorChanged)] == ["open"]
