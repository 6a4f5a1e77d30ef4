"""Kept step prices (core/search/step_table.py) give the very answer of the search that asks the rules.

The reachable area reads prices kept per map; these tests hold it to the search
that prices every step through the ruleset's policy, on random maps under every
ruleset and diagonal rule, with fighters of both sides standing about, GM
rulings on cells, and fighters moved after the prices were kept (occupancy is
an overlay on the table, never part of it).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace
from support import do, encounter, grid
from tabletrail.core.board.state import EncounterState
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.search.reach import reach
from tabletrail.core.search.step_table import table_for

STATS = {
    "speed-meters": "speed = {n}",
    "initiative-yards": "initiative = {n}\nheight = 1.5",
    "round-meters": "movement = {n}\nap = 3",
    "ap-squares": "ap = {n}",
}
LEGEND = '"^" = {terrain = "floor", ground = 1}\n":" = {terrain = "floor", ground = 2.5}'
DIAGONALS = ["every-1", "alternating", "euclidean", "manhattan"]
W, H = 6, 5  # the map inside its walls


def scene(ruleset: str, diagonal: str, rows: list[str], people: list[tuple[str, int, int]], n: int) -> str:
    fighters = "".join(
        f'[[fighters]]\nid = "{fid}"\nside = "{side}"\nat = [{x}, {y}]\n'
        f"{STATS[ruleset].format(n=n if fid == 'm' else 2)}\n"
        for fid, side, x, y in [("m", "blue", 1, 1), *people]
    )
    return f"""
[encounter]
name = "kept prices"
ruleset = "{ruleset}"
[settings]
diagonal = "{diagonal}"
{grid(rows, LEGEND)}
{fighters}
"""


def same(state: EncounterState, fid: str) -> None:
    """The table search and the policy search agree on cells, costs, stops and every path's steps."""
    fast, slow = reach(state, fid), reach(state, fid, table=False)
    assert fast.costs == slow.costs
    assert fast.events == slow.events
    for cell in slow.costs:
        assert fast.steps(cell) == slow.steps(cell), cell


cell_in = st.tuples(st.integers(1, W), st.integers(1, H))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ruleset=st.sampled_from(sorted(STATS)),
    diagonal=st.sampled_from(DIAGONALS),
    cells=st.lists(st.lists(st.sampled_from(".....~~^:#"), min_size=W, max_size=W), min_size=H, max_size=H),
    people=st.lists(st.tuples(st.sampled_from(["blue", "red"]), cell_in), max_size=3),
    moved=st.lists(cell_in, max_size=3),
    rulings=st.lists(st.tuples(st.sampled_from(["forbid", "test"]), cell_in), max_size=2),
    n=st.integers(1, 6),
)
def test_kept_prices_give_the_answer_of_pricing_every_step(
    ruleset, diagonal, cells, people, moved, rulings, n
):
    inner = ["".join(row) for row in cells]
    taken = {(1, 1)} | {c for _, c in people} | set(moved)
    for x, y in taken:  # everyone stands on open floor
        inner[y - 1] = inner[y - 1][: x - 1] + "." + inner[y - 1][x:]
    rows = ["#" * (W + 2), *(f"#{r}#" for r in inner), "#" * (W + 2)]
    placed, seen = [], {(1, 1)}
    for i, (side, at) in enumerate(people):
        if at not in seen:
            seen.add(at)
            placed.append((f"o{i}", side, *at))
    enc = encounter(scene(ruleset, diagonal, rows, placed, n))
    for kind, (x, y) in rulings:
        if (x, y) != (1, 1):
            do(
                enc,
                f'forbid {x},{y} why="rubble"'
                if kind == "forbid"
                else f'require-test {x},{y} target=3 why="ice"',
            )
    state = enc.state
    for f in state.fighters:
        same(state, f.id)
    # The prices are kept now; move the others about (same map, same tables) and ask again.
    for (fid, _, _, _), at in zip(placed, moved, strict=False):
        f = state.fighter(fid)
        assert f is not None
        state = state.with_fighter(replace(f, pos=(at[0], at[1], state.grid.top[at[1]][at[0]])))
    for f in state.fighters:
        same(state, f.id)


def test_prices_are_kept_per_map_and_key_and_reused():
    rows = ["#######", "#..~..#", "#.#~#.#", "#.....#", "#######"]
    enc = encounter(scene("speed-meters", "every-1", rows, [("o", "red", 5, 3)], 4))
    state = enc.state
    f = state.fighter("m")
    rs = get_ruleset(state.ruleset)
    policy = rs.walker(state, f)
    assert table_for(state, f, policy) is table_for(state, f, policy)  # one table per (map, policy, key)
    reach(state, "m")
    kept = table_for(state, f, policy)
    assert kept is not None and kept.usable
    # Priced step by step, or (speed-meters declares its prices read two cells) a window in bulk.
    assert kept.cost or (kept.arrays is not None and kept.arrays.bulked)

    def priced() -> tuple[dict, int]:
        return dict(kept.cost), len(kept.arrays.tiles) if kept.arrays is not None else 0

    before = priced()
    reach(state, "m")
    assert priced() == before  # the second search priced nothing new
    # A price reads of the Speed only whether it is 1 (rough's exception): other Speeds share the table.
    other = replace(f, stats={**f.stats, "speed": 5})
    assert table_for(state, other, rs.walker(state, other)) is kept
    one = replace(f, stats={**f.stats, "speed": 1})
    assert table_for(state, one, rs.walker(state, one)) is not kept
    # A real Movement counts its jumps as it goes: its prices are never kept.
    from tabletrail.core.rulesets.speed_meters.steps import _Walking

    assert table_for(state, f, _Walking(rs, 400, jumps=True)) is None


def test_an_enemy_moved_onto_a_kept_path_blocks_it_at_once():
    rows = ["#######", "#.....#", "#######"]
    enc = encounter(scene("speed-meters", "every-1", rows, [("o", "red", 5, 1)], 5))
    state = enc.state
    assert (4, 1) in reach(state, "m").costs  # the prices along the corridor are kept now
    o = state.fighter("o")
    blocked = state.with_fighter(replace(o, pos=(3, 1, 0)))
    assert set(reach(blocked, "m").costs) == {(2, 1)}  # the enemy's cell is live: the way is shut


def test_a_table_past_its_size_starts_afresh(monkeypatch):
    """Prices kept step by step (a walker that doesn't declare bulk pricing) are bounded in number."""
    from tabletrail.core.rulesets.speed_meters.steps import _Walking
    from tabletrail.core.search import step_table

    monkeypatch.setattr(_Walking, "prices_read_two_cells", False)
    rows = ["#######", "#.....#", "#.....#", "#######"]
    enc = encounter(scene("speed-meters", "every-1", rows, [], 4))
    state = enc.state
    f = state.fighter("m")
    policy = get_ruleset(state.ruleset).walker(state, f)
    reach(state, "m")
    kept = table_for(state, f, policy)
    assert len(kept.cost) > 10
    monkeypatch.setattr(step_table, "MOST_STEPS", 10)
    fresh = table_for(state, f, policy)
    assert fresh is not kept and not fresh.cost
    assert reach(state, "m").costs == reach(state, "m", table=False).costs


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    diagonal=st.sampled_from(DIAGONALS),
    seed=st.integers(0, 10_000),
    people=st.lists(
        st.tuples(st.sampled_from(["blue", "red"]), st.integers(1, 14), st.integers(1, 14)), max_size=6
    ),
    rulings=st.lists(
        st.tuples(st.sampled_from(["forbid", "test"]), st.integers(1, 14), st.integers(1, 14)), max_size=3
    ),
    n=st.integers(3, 9),
)
def test_the_compiled_search_gives_the_answer_of_pricing_every_step(diagonal, seed, people, rulings, n):
    """A larger map: the first search prices its area step by step, the next ones run on the arrays."""
    import random

    from tabletrail.core.search import reach_arrays

    rnd = random.Random(seed)
    size = 14
    inner = ["".join(rnd.choice(".....~~^:#") for _ in range(size)) for _ in range(size)]
    taken = {(1, 1)} | {(x, y) for _, x, y in people}
    for x, y in taken:
        inner[y - 1] = inner[y - 1][: x - 1] + "." + inner[y - 1][x:]
    rows = ["#" * (size + 2), *(f"#{r}#" for r in inner), "#" * (size + 2)]
    placed, seen = [], {(1, 1)}
    for i, (side, x, y) in enumerate(people):
        if (x, y) not in seen:
            seen.add((x, y))
            placed.append((f"o{i}", side, x, y))
    enc = encounter(scene("speed-meters", diagonal, rows, placed, n))
    for kind, x, y in rulings:
        if (x, y) != (1, 1):
            do(
                enc,
                f'forbid {x},{y} why="rubble"'
                if kind == "forbid"
                else f'require-test {x},{y} target=3 why="ice"',
            )
    state = enc.state
    calls = []
    real = reach_arrays.array_reach

    def counted(*args):
        calls.append(1)
        return real(*args)

    reach_arrays.array_reach = counted
    try:
        for _ in range(3):  # cold (step by step), completing the table, then warm
            for f in state.fighters:
                same(state, f.id)
    finally:
        reach_arrays.array_reach = real
    assert calls  # the compiled search was asked


def test_a_step_into_an_occupied_cell_is_priced_again_when_who_stands_there_changes():
    """Steps into occupied cells are remembered only for the very fighters they were priced for."""
    rows = ["#######", "#.....#", "#######"]
    enc = encounter(scene("speed-meters", "every-1", rows, [("o", "blue", 3, 1)], 5))
    state = enc.state
    for _ in range(3):  # cold, completing, then the compiled search reading what it remembers
        assert (5, 1) in reach(state, "m").costs  # an ally's cell is passed through
    o = state.fighter("o")
    turned = state.with_fighter(replace(o, side="red"))  # the same fighter, now an enemy, same cell
    assert set(reach(turned, "m").costs) == {(2, 1)}
    assert (5, 1) in reach(state, "m").costs


def test_a_winding_corridor_gives_the_answer_of_pricing_every_step():
    """A serpentine map: each search round of the compiled search meets only a few new steps."""
    rows = [
        "###############",
        "#.............#",
        "#############.#",
        "#.............#",
        "#.#############",
        "#.............#",
        "#############.#",
        "#.............#",
        "###############",
    ]
    enc = encounter(scene("speed-meters", "alternating", rows, [("o", "blue", 7, 3), ("e", "red", 3, 7)], 60))
    state = enc.state
    for _ in range(3):  # cold, completing, warm
        same(state, "m")
    assert (1, 7) not in reach(state, "m").costs  # the enemy at 3,7 shuts the last corridor
    assert (4, 7) in reach(state, "m").costs
