"""The compiled search's costs are arrays named as a dict when first read, and named once a window.

Issue 40: naming ~3,000 cells as tuples into a dict cost about what scipy's Dijkstra
does at 50 x 50. `_Costs` names them when read, and a window hands the same cells at
the same costs a copy of the dict it named last (`Window.answered`). These tests hold
both to the search that prices every step, read after read, board after board, and
check that no answer shares its dict with another.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace
from support import encounter
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.search import reach_arrays
from tabletrail.core.search.reach import reach
from tabletrail.core.search.step_table import table_for

from tests.core.test_reach_window import scene


def small_map(seed: int, size: int) -> list[str]:
    rnd = random.Random(seed)
    inner = ["".join(rnd.choice("......~~^#") for _ in range(size - 2)) for _ in range(size - 2)]
    return ["#" * size, *(f"#{r}#" for r in inner), "#" * size]


def opened(rows: list[str], cells: list[tuple[int, int]]) -> list[str]:
    """The map with floor at these cells (where fighters stand)."""
    for x, y in cells:
        rows[y] = rows[y][:x] + "." + rows[y][x + 1 :]
    return rows


def windows(state, fid: str) -> list[reach_arrays.Window]:
    f = state.fighter(fid)
    kept = table_for(state, f, get_ruleset(state.ruleset).walker(state, f))
    return list(kept.arrays.windows.values())


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    diagonal=st.sampled_from(["every-1", "alternating", "euclidean", "manhattan"]),
    moves=st.lists(st.tuples(st.integers(1, 22), st.integers(1, 22)), min_size=1, max_size=4),
)
def test_costs_read_again_and_again_are_the_slow_answer_each_in_a_dict_of_its_own(seed, diagonal, moves):
    people = [("m", "blue", 12, 12, 6), ("o", "red", 14, 12, 6), ("p", "red", 12, 10, 6)]
    rows = opened(small_map(seed, 24), [(x, y) for _, _, x, y, _ in people])
    state = encounter(scene(rows, diagonal, people)).state
    for x, y in [(12, 12), *moves]:
        if rows[y][x] == "#":
            continue
        f = state.fighter("m")
        moved = state.with_fighter(replace(f, pos=(x, y, state.grid.top[y][x])))
        want = reach(moved, "m", table=False).costs
        first = None
        for _ in range(3):
            area = reach(moved, "m")
            assert len(area.costs) == len(want)  # counted without naming the cells
            got = dict(area.costs.items())
            assert got == want and area.costs == want
            if first is None:
                first = list(got.items())
            assert list(got.items()) == first  # the same order every read: cheapest first, as named
            if isinstance(area.costs, reach_arrays._Costs):
                area.costs.dict().clear()  # a caller may change its own dict: the next answer's is whole
        slow = reach(moved, "m", table=False)
        for cell in list(want)[:5]:
            assert reach(moved, "m").steps(cell) == slow.steps(cell)
        assert reach(moved, "m").costs == want  # an answer's dict emptied above left the next whole


def test_an_answer_never_read_names_nothing_and_a_read_one_is_named_once(monkeypatch):
    rows = opened(small_map(3, 30), [(15, 15)])
    state = encounter(scene(rows, "every-1", [("m", "blue", 15, 15, 6)])).state
    reach(state, "m")
    reach(state, "m")  # the table complete: warm from here on
    area = reach(state, "m")
    assert all(w.answered is None for w in windows(state, "m"))
    assert bool(area.costs) and len(area.costs) > 0
    assert all(w.answered is None for w in windows(state, "m"))  # counting names nothing
    want = reach(state, "m", table=False).costs
    assert area.costs == want
    named = [w.answered for w in windows(state, "m") if w.answered is not None]
    assert len(named) == 1
    sorts: list[int] = []
    real = reach_arrays._cheapest_first
    monkeypatch.setattr(reach_arrays, "_cheapest_first", lambda *a: sorts.append(1) or real(*a))
    again = reach(state, "m")
    assert again.costs == want and list(again.costs) == list(area.costs)
    assert sorts == []  # the same cells at the same costs: a copy of the dict named before
    assert again.costs.dict() is not area.costs.dict()  # each answer a dict of its own
