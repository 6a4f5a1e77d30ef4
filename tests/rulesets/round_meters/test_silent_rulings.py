"""round-meters: points document 001 and the catalogue leave open, each a named setting with a default.

- fighters on the way (setting fighters_in_the_way): 001 says nothing of passing others. By default
  anyone may be passed and no one ended on; a table may rule that enemies block, as document 004 reads
  ("Cannot move through spaces occupied by enemies").
- the diagonal rule (setting diagonal): 001 names none ("up to their Movement in meters"). By default
  a diagonal step is its Euclidean length; every-1, alternating and manhattan are the alternatives.
"""

from __future__ import annotations

import pytest
from support import do, encounter, grid, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.core.engine.registry import get
from tabletrail.core.search.reach import reachable
from tabletrail.events.types import Moved
from tabletrail.projections.audit import whatif

RS = "round-meters"
ROWS = ["#########", "#.......#", "#.......#", "#.......#", "#########"]


def lane(settings: str = "") -> str:
    """ari (blue) at 1,2 with 6 m; bo, its friend, at 2,2; cyn, its enemy, at 4,2."""
    return f"""
[encounter]
name = "lane"
ruleset = "{RS}"
seed = 3
initiative = ["ari", "bo", "cyn"]
[settings]
{settings}
{grid(ROWS)}
[[fighters]]
id = "ari"
side = "blue"
at = [1, 2]
movement = 6
ap = 2
[[fighters]]
id = "bo"
side = "blue"
at = [2, 2]
movement = 4
ap = 2
[[fighters]]
id = "cyn"
side = "red"
at = [4, 2]
movement = 4
ap = 2
"""


def cost(events) -> list[int]:
    return [s.cost for m in of_type(events, Moved) for s in m.steps]


# --- fighters on the way ------------------------------------------------------------------------


def test_by_default_anyone_may_be_passed_and_no_one_ended_on():
    enc = encounter(lane())
    r = refuse(enc, "move ari 4,2", f"{RS}/round-budget")  # cyn stands there
    assert "occupied by cyn" in r.reason and "fighters_in_the_way = pass-anyone" in r.reason
    do(enc, "move ari 5,2")  # through bo and cyn
    assert enc.state.fighter("ari").pos[:2] == (5, 2)


def test_a_table_may_rule_that_enemies_block_the_way():
    enc = encounter(lane('fighters_in_the_way = "enemies-block"'))
    r = refuse(enc, "move ari 5,2", f"{RS}/round-budget")
    assert "cyn" in r.reason and "fighters_in_the_way = enemies-block" in r.reason
    do(enc, "move ari 3,2")  # a friend is still passed
    assert enc.state.fighter("ari").pos[:2] == (3, 2)
    do(enc, "move ari 4,1 5,2")  # round the enemy
    assert enc.state.fighter("ari").pos[:2] == (5, 2)


def test_whatif_enemies_block_refuses_the_move_through_cyn():
    enc = encounter(lane())
    do(enc, "move ari 5,2")
    result = whatif(enc.records, ["fighters_in_the_way=enemies-block"])
    assert result.changed == {"fighters_in_the_way": ("pass-anyone", "enemies-block")}
    (refused,) = result.refused
    assert refused["rule"] == f"{RS}/round-budget" and "enemies-block" in refused["reason"]


def test_the_reachable_area_follows_the_setting():
    straight = reachable(encounter(lane()).state, "ari")
    assert straight[(5, 2)] == 4 * CU  # through bo and cyn
    around = reachable(encounter(lane('fighters_in_the_way = "enemies-block"')).state, "ari")
    assert around[(5, 2)] == 2 * CU + 283  # round cyn by 4,1 or 4,3: two diagonals, 2·√2 exact = 2.83


# --- the diagonal rule ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "two_diagonals"),
    [
        ("", [141, 141]),  # euclidean, the default
        ('diagonal = "every-1"', [CU, CU]),
        ('diagonal = "alternating"', [CU, 2 * CU]),
        ('diagonal = "manhattan"', [2 * CU, 2 * CU]),
    ],
)
def test_each_diagonal_rule_prices_two_diagonal_steps(setting: str, two_diagonals: list[int]):
    enc = encounter(lane(setting))
    assert cost(do(enc, "move ari 2,1 3,2")) == two_diagonals  # 2,1 then 3,2: two diagonals


def test_the_rules_listing_names_each_silent_point_with_its_default_and_alternatives():
    rs = get(RS)
    settings = {s.name: s for s in rs.settings}
    way = settings["fighters_in_the_way"]
    assert way.default == "pass-anyone" and way.choices == ("pass-anyone", "enemies-block")
    assert way.rule == f"{RS}/round-budget"
    diagonal = settings["diagonal"]
    assert diagonal.default == "euclidean" and diagonal.rule == f"{RS}/round-budget"
    default = {r.name: r for r in rs.rules}["round-budget"].default
    assert "(setting fighters_in_the_way)" in default and "(setting diagonal)" in default
    assert "names no diagonal rule" in default
