"""A door opened during a move, under every ruleset that prices a door as part of a move (issue 28,
item 2).

door_cost = 0 is "free, as part of a move" (tabletrail/doors). speed-meters/stop: "May stop moving at
any point … Once you stop moving, however, you can't start moving again as part of the same Action":
opening a door on the way is not stopping, so the walk goes on with what is left of the same
Movement, and only an actual stop makes the next walk a new one.
"""

from __future__ import annotations

import pytest
from support import do, encounter, of_type, refuse
from tabletrail.events import plugins
from tabletrail.events.types import Moved, Spent

STATS = {
    "speed-meters": "speed = {n}",
    "initiative-yards": "initiative = {n}\nheight = 1.5",
    "round-meters": "movement = {n}\nap = 3",
    "ap-squares": "ap = {n}",
}

# One row of ten cells; a wall down grid line x = 4 with a door in it, between 3,1 and 4,1.
#    0123456789
#  0 ....|.....
#  1 ....D.....
#  2 ....|.....
DOOR = "3,1|4,1"


def scene(ruleset: str, settings: str = "", at: str = "0,1", n: int = 6) -> str:
    x, y = at.split(",")
    return f"""
[encounter]
name = "a door on the way under {ruleset}"
ruleset = "{ruleset}"
[settings]
{settings}
[map]
rows = ["..........", "..........", ".........."]
legend = {{ "." = "floor" }}
walls = ["4,0-4,1", "4,2-4,3"]
doors = [{{ at = "{DOOR}", closed = true }}]
[[fighters]]
id = "m"
side = "blue"
at = [{x}, {y}]
{STATS[ruleset].format(n=n)}
[[fighters]]
id = "foe"
side = "red"
at = [9, 2]
{STATS[ruleset].format(n=2)}
"""


def spent(enc, fid: str, resource: str) -> int:
    return enc.state.fighter(fid).used(resource)


def test_every_ruleset_is_covered():
    assert set(STATS) == set(plugins.built_in())  # tabletrail's own (a plug-in tests itself)


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_a_free_door_on_the_way_leaves_the_rest_of_the_move(ruleset: str):
    """6 to move: 3 to the door, open it (free), then the 3 left carry the walk through to 6,1."""
    enc = encounter(scene(ruleset))
    do(enc, "move m 3,1")
    do(enc, f"open m {DOOR}")
    moved = of_type(do(enc, "move m 6,1"), Moved)
    assert moved[-1].steps[-1].to[:2] == (6, 1)
    assert moved[-1].budget == 300  # the 3 left of the 6, not a fresh 6
    assert spent(enc, "m", moved[-1].resource) == 600


def test_speed_meters_the_walk_after_the_door_is_the_same_movement():
    enc = encounter(scene("speed-meters"))
    do(enc, "move m 3,1")
    assert spent(enc, "m", "actions") == 1
    do(enc, f"open m {DOOR}")
    events = do(enc, "move m 6,1")
    assert spent(enc, "m", "actions") == 1  # 4 m then 2 m with a door between: one action, not two
    assert not [s for s in of_type(events, Spent) if s.resource == "actions"]
    assert spent(enc, "m", "movement") == 600


def test_speed_meters_the_rest_of_the_movement_is_all_the_walk_on_has():
    enc = encounter(scene("speed-meters"))
    do(enc, "move m 3,1")
    do(enc, f"open m {DOOR}")
    r = refuse(enc, "move m 7,1", "speed-meters/movement")  # 4 m on, and 3 m are left
    assert "only 3 m are left" in r.reason


def test_speed_meters_a_door_closed_behind_does_not_stop_it_either():
    enc = encounter(scene("speed-meters", at="3,1"))
    do(enc, f"open m {DOOR}")  # before any Movement: nothing is going on yet
    do(enc, "move m 4,1")  # a Movement (1 action) through the doorway, 1 m
    do(enc, f"close m {DOOR}")  # from 4,1, behind it
    do(enc, "move m 9,1")  # the 5 m left
    assert spent(enc, "m", "actions") == 1 and spent(enc, "m", "movement") == 600


def test_speed_meters_stopping_is_still_stopping():
    """ "Once you stop moving … you'll have to use a new Action to start moving again": two walks with
    no door between, or with another act between, are two Movements."""
    enc = encounter(scene("speed-meters"))
    do(enc, "move m 2,1")
    do(enc, "move m 3,1")  # stopped, then moved again: a new Movement
    assert spent(enc, "m", "actions") == 2
    enc = encounter(scene("speed-meters"))
    do(enc, "move m 3,1")
    do(enc, "drop-prone m")  # an action of its own (stand_up_actions = 1)
    do(enc, "stand-up m")
    do(enc, f"open m {DOOR}")
    do(enc, "move m 6,1")
    assert spent(enc, "m", "actions") == 4


def test_speed_meters_a_new_turn_ends_the_movement():
    enc = encounter(scene("speed-meters"))
    do(enc, "move m 3,1")
    do(enc, "end-turn")
    do(enc, "end-turn")  # foe's turn passes; m's next turn starts
    do(enc, f"open m {DOOR}")
    do(enc, "move m 6,1")
    assert spent(enc, "m", "actions") == 1 and spent(enc, "m", "movement") == 300


def test_speed_meters_a_door_that_costs_an_action_is_an_action_of_its_own():
    """door_cost = 1 (speed-meters pays doors in actions): the door is not part of the move, so the
    walk after it is a new Movement: 1 + 1 + 1 actions."""
    enc = encounter(scene("speed-meters", settings="door_cost = 1"))
    do(enc, "move m 3,1")
    do(enc, f"open m {DOOR}")
    do(enc, "move m 6,1")
    assert spent(enc, "m", "actions") == 3 and spent(enc, "m", "movement") == 300


def test_speed_meters_undo_of_the_door_undoes_the_going_on():
    enc = encounter(scene("speed-meters"))
    do(enc, "move m 3,1")
    do(enc, f"open m {DOOR}")
    do(enc, "undo")
    do(enc, "move m 2,1")  # no door used: this is a new Movement
    assert spent(enc, "m", "actions") == 2


def test_speed_meters_the_reachable_area_past_the_door_is_what_is_left():
    from tabletrail.core.search.reach import reach

    enc = encounter(scene("speed-meters"))
    do(enc, "move m 3,1")
    do(enc, f"open m {DOOR}")
    area = reach(enc.state, "m").costs
    assert (6, 1) in area and (7, 1) not in area  # 3 m on from 3,1, not a fresh 6


@pytest.mark.parametrize("ruleset", ["initiative-yards", "round-meters", "ap-squares"])
def test_a_door_paid_from_the_moves_own_budget_is_part_of_the_move(ruleset: str):
    """door_cost = 1, paid in the move's own yards, meters or AP: the walk goes on with the 2 left."""
    enc = encounter(scene(ruleset, settings="door_cost = 1"))
    do(enc, "move m 3,1")
    do(enc, f"open m {DOOR}")
    moved = of_type(do(enc, "move m 5,1"), Moved)
    assert moved[-1].budget == 200 and moved[-1].steps[-1].to[:2] == (5, 1)


@pytest.mark.parametrize(
    ("ruleset", "cost", "part"),
    [
        ("speed-meters", 0, True),
        ("speed-meters", 1, False),  # paid in actions: an action of its own
        ("initiative-yards", 1, True),
        ("round-meters", 1, True),
        ("ap-squares", 1, True),
    ],
)
def test_part_of_move_is_asked_once_for_every_ruleset(ruleset: str, cost: int, part: bool):
    from tabletrail.core.engine.doors import part_of_move
    from tabletrail.core.engine.registry import get

    enc = encounter(scene(ruleset, settings=f"door_cost = {cost}"))
    assert part_of_move(get(ruleset), enc.state) is part
