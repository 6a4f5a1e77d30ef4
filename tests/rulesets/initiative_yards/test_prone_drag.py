"""initiative-yards, issue 28 (second round): dragging while prone, a ruling the text is silent on.

drag: "perform a move as normal but half their maximum movement"; prone-drop/crawl: "While prone,
fighters can still crawl over the battlefield, but the distance they can move is halved while doing
so." Whether the two halvings stack is setting prone_drag.
"""

from __future__ import annotations

from support import do, refuse
from tabletrail.core.engine.registry import get
from tabletrail.core.search.reach import reach

from tests.rulesets.initiative_yards.test_rules import arena, at, cost, fighter, next_turn_of

IY = "initiative-yards"


def prone_dragger(settings: str = ""):
    """a (Initiative 8) lies prone next to b, and it is a's turn with a whole move action."""
    enc = arena(
        fighters=fighter("a", "blue", (1, 1)) + fighter("b", "blue", (2, 1)) + fighter("e", "red", (12, 4)),
        settings=settings,
    )
    do(enc, "drop-prone a")
    next_turn_of(enc, "a")
    assert enc.state.fighter("a").states["posture"] == "prone"
    return enc


def test_by_default_a_prone_drag_is_half_of_a_halved_move():
    # "a move as normal" for a prone fighter is a crawl (2 a yard), on "half their maximum movement" (4)
    enc = prone_dragger()
    r = refuse(enc, "drag a b 4,1 put=3,1", f"{IY}/drag")  # 3 yd crawled would cost 6 of the 4
    assert "only 4 yd are left" in r.reason
    events = do(enc, "drag a b 3,1 put=2,1")  # 2 yd crawled: the 4 yd of the halved move
    assert cost(events) == 400 and at(enc, "a")[:2] == (3, 1)


def test_a_table_may_halve_only_once():
    # prone_drag = "half": the halvings do not stack; crawling yards cost 1 on the halved move
    enc = prone_dragger('prone_drag = "half"')
    events = do(enc, "drag a b 5,1 put=4,1")
    assert cost(events) == 400 and at(enc, "a")[:2] == (5, 1)
    refuse(enc, "move a 6,1", f"{IY}/drag")  # the 4 yd are spent


def test_prone_without_a_drag_still_crawls_at_2_a_yard_under_either_setting():
    for setting in ("quarter", "half"):
        enc = prone_dragger(f'prone_drag = "{setting}"')
        events = do(enc, "move a 3,1")
        assert cost(events) == 400, setting


def test_the_reachable_area_follows_the_setting():
    for setting, far in (("quarter", 2), ("half", 4)):
        enc = prone_dragger(f'prone_drag = "{setting}"')
        do(enc, "drag a b 1,2 put=1,1")  # a crawls 1 yd dragging b: 2 or 1 of the halved 4 yd
        area = reach(enc.state, "a").costs
        assert max(x for x, y in area if y == 2) == far, setting


def test_the_setting_is_listed_with_its_words():
    rs = get(IY)
    s = {s.name: s for s in rs.settings}["prone_drag"]
    assert s.default == "quarter" and s.choices == ("quarter", "half") and s.rule == f"{IY}/drag"
    assert "(setting prone_drag)" in {r.name: r for r in rs.rules}["drag"].default
