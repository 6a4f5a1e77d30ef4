"""speed-meters: moving while prone (setting prone_move), a point document 004 leaves open.

004 lands fallers prone ("Land prone with no ill effect") but never says how a prone fighter moves.
By default (prone_move = walk) a prone fighter walks its whole Speed at the normal cost without
standing; a table may rule that it stands first (stand-first: a Movement while prone is refused
until it stands up) or crawls at a cost (crawl: every meter costs 2, the crawl every ruleset shares,
core/engine/crawling.py).
"""

from __future__ import annotations

import pytest
from support import do, encounter, of_type, refuse
from tabletrail.core.board.units import CU
from tabletrail.core.engine.registry import get
from tabletrail.core.search.reach import reachable
from tabletrail.events.types import Moved

from tests.rulesets.speed_meters.test_scenes import fighter, scene

OPEN = ["#########", "#.......#", "#.......#", "#########"]


def prone(setting: str = ""):
    """a (Speed 5) lies prone at 1,1; e (red) far off."""
    enc = encounter(scene(OPEN, fighter("a"), fighter("e", "red", (7, 2)), settings=setting))
    do(enc, "drop-prone a")
    assert enc.state.fighter("a").states["posture"] == "prone"
    return enc


def costs(events) -> list[int]:
    return [s.cost for m in of_type(events, Moved) for s in m.steps]


def test_by_default_a_prone_fighter_walks_its_whole_speed_at_the_normal_cost():
    enc = prone()
    assert costs(do(enc, "move a 6,1")) == [CU] * 5
    assert enc.state.fighter("a").states["posture"] == "prone"


def test_a_table_may_rule_that_a_prone_fighter_stands_first():
    enc = prone('prone_move = "stand-first"')
    r = refuse(enc, "move a 2,1", "speed-meters/movement")
    assert "prone" in r.reason and "prone_move = stand-first" in r.reason and "stand-up a" in r.reason
    assert reachable(enc.state, "a") == {} or set(reachable(enc.state, "a")) <= {(1, 1)}
    do(enc, "stand-up a")
    do(enc, "move a 2,1")


def test_a_table_may_rule_that_a_prone_fighter_crawls_at_two_meters_a_meter():
    enc = prone('prone_move = "crawl"')
    r = refuse(enc, "move a 4,1", "speed-meters/movement")  # 3 m crawled cost 6 of Speed 5
    assert "6 m" in r.reason
    events = do(enc, "move a 3,1")
    assert costs(events) == [2 * CU, 2 * CU]
    assert "crawl" in of_type(events, Moved)[0].steps[0].mode
    assert reachable(prone('prone_move = "crawl"').state, "a")[(3, 1)] == 4 * CU


def test_a_standing_fighter_is_not_touched_by_the_setting():
    for choice in ("walk", "stand-first", "crawl"):
        enc = encounter(scene(OPEN, fighter("a"), settings=f'prone_move = "{choice}"'))
        assert costs(do(enc, "move a 6,1")) == [CU] * 5


@pytest.mark.parametrize("choice", ["stand-first", "crawl"])
def test_whatif_either_alternative_changes_the_prone_walk(choice: str):
    from tabletrail.projections.audit import whatif

    enc = prone()
    do(enc, "move a 6,1")
    result = whatif(enc.records, [f"prone_move={choice}"])
    assert result.changed == {"prone_move": ("walk", choice)}
    (refused,) = result.refused
    assert refused["rule"] == "speed-meters/movement"


def test_the_rules_listing_names_the_setting_its_default_and_alternatives():
    rs = get("speed-meters")
    s = {s.name: s for s in rs.settings}["prone_move"]
    assert s.default == "walk" and s.choices == ("walk", "stand-first", "crawl")
    assert s.rule == "speed-meters/movement"
    assert "prone_move" in {r.name: r for r in rs.rules}["movement"].default
