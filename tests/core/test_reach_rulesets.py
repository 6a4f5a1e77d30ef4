"""The reachable area under every ruleset: each cell it shades is a move the engine accepts at that cost.

The search knows no rule of its own; these tests hold it to each ruleset's real
`move` command on the same board: walls, rough or difficult ground, the
diagonal rule in force, and a fighter of the same side to pass.
"""

from __future__ import annotations

import pytest
from support import encounter, grid, of_type
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.engine.movement import length_of
from tabletrail.core.search.reach import reach, waypoints
from tabletrail.events import plugins
from tabletrail.events.types import Moved
from tabletrail.service.syntax import parse

ROWS = [
    "########",
    "#......#",
    "#.~~.#.#",
    "#..#...#",
    "#......#",
    "########",
]

# The stats each ruleset's fighters need, and the budget they give the mover.
STATS = {
    "speed-meters": "speed = {n}",
    "initiative-yards": "initiative = {n}\nheight = 1.5",
    "round-meters": "movement = {n}\nap = 3",
    "ap-squares": "ap = {n}",
}


def scene(ruleset: str, diagonal: str, n: int = 4) -> str:
    stats = STATS[ruleset]
    return f"""
[encounter]
name = "reach under {ruleset}"
ruleset = "{ruleset}"
[settings]
diagonal = "{diagonal}"
{grid(ROWS)}
[[fighters]]
id = "m"
side = "blue"
at = [1, 1]
{stats.format(n=n)}
[[fighters]]
id = "pal"
side = "blue"
at = [2, 1]
{stats.format(n=2)}
[[fighters]]
id = "foe"
side = "red"
at = [6, 4]
{stats.format(n=2)}
"""


def test_every_ruleset_is_covered():
    assert set(STATS) == set(plugins.built_in())  # tabletrail's own (a plug-in tests itself)


@pytest.mark.parametrize("diagonal", ["every-1", "alternating", "euclidean", "manhattan"])
@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_each_reachable_cell_is_an_accepted_move_at_the_same_cost(ruleset: str, diagonal: str):
    enc = encounter(scene(ruleset, diagonal))
    area = reach(enc.state, "m")
    assert area.costs, f"{ruleset}: nothing reachable from 1,1"
    assert (2, 1) not in area.costs or ruleset == "ap-squares"  # pal's square: ap-squares lets them share
    for cell, cost in area.costs.items():
        text = "move m " + " ".join(f"{x},{y}" for x, y in waypoints((1, 1), area.path(cell)))
        result = enc.preview(parse(text))
        assert not isinstance(result, Rejection), f"{ruleset}/{diagonal}: {text}: {result}"
        moved = of_type(result, Moved)
        spent = length_of([s for m in moved for s in m.steps])  # the exact length, rounded once
        if cell in area.events:  # something happens there (an invasion…): the move may stop at or before it
            assert spent <= cost, (ruleset, diagonal, text)
        else:
            assert moved[-1].steps[-1].to[:2] == cell and spent == cost, (ruleset, diagonal, text)


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_a_cell_beyond_the_budget_is_not_reachable_and_the_engine_agrees(ruleset: str):
    enc = encounter(scene(ruleset, "every-1", n=2))
    area = reach(enc.state, "m")
    assert (4, 4) not in area.costs  # 3 steps away at best
    assert isinstance(enc.preview(parse("move m 2,2 4,4")), Rejection)
