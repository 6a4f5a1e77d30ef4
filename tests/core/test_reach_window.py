"""The compiled search over a window around the fighter gives the slow path's answer on maps of any size.

Issue 40 item 3: above 40,000 cells (the old ARRAY_CELLS) the reachable area fell back
to the Python search. Now the compiled search runs on every map without walls, over the
tiles within the budget's reach (core/search/reach_arrays.py); these tests hold it to the search
that prices every step through the ruleset's policy, on a map above the old limit, with
windows made to grow (a first guess too small), fighters standing about and GM rulings,
and check the work stays near the fighter: the tiles made, not the map.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace
from support import do, encounter
from tabletrail.core.board.refusal import Refusal
from tabletrail.core.board.state import EncounterState
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.rulesets.speed_meters.steps import _Walking
from tabletrail.core.search import reach_arrays
from tabletrail.core.search.reach import reach
from tabletrail.core.search.step_table import table_for

DIAGONALS = ["every-1", "alternating", "euclidean", "manhattan"]
LEGEND = '"." = "floor"\n"#" = "wall"\n"~" = "rough"\n"^" = {terrain = "floor", ground = 1}\n'
WIDE, HIGH = 820, 50  # 41,000 cells: above the 40,000 the compiled search used to stop at


def scene(rows: list[str], diagonal: str, fighters: list[tuple[str, str, int, int, int]]) -> str:
    people = "".join(
        f'[[fighters]]\nid = "{fid}"\nside = "{side}"\nat = [{x}, {y}]\nspeed = {speed}\n'
        for fid, side, x, y, speed in fighters
    )
    body = ",\n".join(f'  "{r}"' for r in rows)
    return f"""
[encounter]
name = "window"
ruleset = "speed-meters"
[settings]
diagonal = "{diagonal}"
[map]
rows = [
{body}
]
[map.legend]
{LEGEND}
{people}
"""


def big_map(seed: int) -> list[str]:
    """A seeded map of mixed terrain, walled round, WIDE x HIGH cells."""
    rnd = random.Random(seed)
    inner = ["".join(rnd.choice("......~~^#") for _ in range(WIDE - 2)) for _ in range(HIGH - 2)]
    return ["#" * WIDE, *(f"#{r}#" for r in inner), "#" * WIDE]


def same(state: EncounterState, fid: str) -> None:
    """The kept-price searches and the policy search agree on cells, costs, stops and every path's steps."""
    fast, slow = reach(state, fid), reach(state, fid, table=False)
    assert fast.costs == slow.costs, fid
    assert fast.events == slow.events, fid
    for cell in slow.costs:
        assert fast.steps(cell) == slow.steps(cell), (fid, cell)


def counting(monkeypatch) -> list[bool]:
    """Record each compiled search and whether it gave the answer (None: it left it to the slow path)."""
    answered: list[bool] = []
    real = reach_arrays.array_reach

    def counted(*args):
        out = real(*args)
        answered.append(out is not None)
        return out

    monkeypatch.setattr(reach_arrays, "array_reach", counted)
    return answered


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    diagonal=st.sampled_from(DIAGONALS),
    seed=st.integers(0, 10_000),
    at=st.tuples(st.integers(1, WIDE - 2), st.integers(1, HIGH - 2)),
    speed=st.integers(2, 12),
    people=st.lists(
        st.tuples(st.sampled_from(["blue", "red"]), st.integers(-4, 4), st.integers(-4, 4)), max_size=4
    ),
    rulings=st.lists(
        st.tuples(st.sampled_from(["forbid", "test"]), st.integers(-4, 4), st.integers(-4, 4)), max_size=2
    ),
    small_guess=st.booleans(),
    declared=st.booleans(),
)
def test_a_map_above_the_old_limit_is_searched_compiled_and_gives_the_slow_answer(
    diagonal, seed, at, speed, people, rulings, small_guess, declared
):
    rows = big_map(seed)
    x0, y0 = at
    placed = [("m", "blue", x0, y0, speed)]
    taken = {(x0, y0)}
    for i, (side, dx, dy) in enumerate(people):
        x, y = x0 + dx, y0 + dy
        if 0 < x < WIDE - 1 and 0 < y < HIGH - 1 and (x, y) not in taken:
            taken.add((x, y))
            placed.append((f"o{i}", side, x, y, 2))
    for x, y in taken:  # everyone stands on open floor
        rows[y] = rows[y][:x] + "." + rows[y][x + 1 :]
    enc = encounter(scene(rows, diagonal, placed))
    for kind, dx, dy in rulings:
        x, y = x0 + dx, y0 + dy
        if 0 < x < WIDE - 1 and 0 < y < HIGH - 1 and (x, y) != (x0, y0):
            do(
                enc,
                f'forbid {x},{y} why="rubble"'
                if kind == "forbid"
                else f'require-test {x},{y} target=3 why="ice"',
            )
    state = enc.state
    answered: list[bool] = []
    real, guess = reach_arrays.array_reach, reach_arrays.CELL_GUESS

    def counted(*args):
        out = real(*args)
        answered.append(out is not None)
        return out

    reach_arrays.array_reach = counted
    if small_guess:  # a first window of one cell a side: the search must widen it to be exact
        reach_arrays.CELL_GUESS = 100 * guess
    # speed-meters' walker declares that its prices read two cells (its ends one): windows priced and judged
    # in bulk; the search must give the slow answer with the declaration and without it
    _Walking.prices_read_two_cells = _Walking.ends_read_one_cell = declared
    try:
        for _ in range(3):  # cold (step by step), completing the table, then warm on the arrays
            for f in state.fighters:
                same(state, f.id)
    finally:
        reach_arrays.array_reach, reach_arrays.CELL_GUESS = real, guess
        _Walking.prices_read_two_cells = _Walking.ends_read_one_cell = True  # as the ruleset declares
    assert answered and all(answered)  # the compiled search ran and answered: no fallback for the size
    f = state.fighter("m")
    kept = table_for(state, f, get_ruleset(state.ruleset).walker(state, f))
    tiles = len(kept.arrays.tiles)
    side = 2 * (speed + 2) // reach_arrays.TILE + 2  # tiles a side of the budget's window, at most
    assert tiles <= 4 * side * side, tiles  # the work stays near the fighters, however wide the map


def test_a_window_too_small_for_a_cheap_step_grows_until_no_way_leaves_it(monkeypatch):
    """A first guess of one cell a side meets steps out of its window at once: the answer is whole."""
    rows = ["#" * 60, *("#" + "." * 58 + "#" for _ in range(38)), "#" * 60]
    state = encounter(scene(rows, "every-1", [("m", "blue", 30, 20, 20)])).state
    want = reach(state, "m", table=False).costs
    monkeypatch.setattr(reach_arrays, "CELL_GUESS", 100 * reach_arrays.CELL_GUESS)
    answered = counting(monkeypatch)
    for _ in range(3):
        assert reach(state, "m").costs == want
    assert answered == [True, True, True]
    assert (10, 20) in want and (50, 20) in want  # 20 cells away both ways: beyond any one first window


def test_a_fighter_moved_across_a_wide_map_is_searched_in_a_window_of_its_own():
    """The prices near the first place are kept; far away new tiles are made, and the answer stays exact."""
    rows = big_map(7)
    for x, y in ((5, 25), (800, 25)):
        rows[y] = rows[y][:x] + "." + rows[y][x + 1 :]
    state = encounter(scene(rows, "alternating", [("m", "blue", 5, 25, 6)])).state
    for _ in range(3):
        same(state, "m")
    f = state.fighter("m")
    kept = table_for(state, f, get_ruleset(state.ruleset).walker(state, f))
    near = set(kept.arrays.tiles)
    moved = state.with_fighter(replace(f, pos=(800, 25, 0)))
    for _ in range(3):
        same(moved, "m")
    far = set(kept.arrays.tiles) - near
    assert far and all(i * reach_arrays.TILE >= 800 - 32 for i, _ in far)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    diagonal=st.sampled_from(DIAGONALS),
    seed=st.integers(0, 10_000),
    people=st.lists(
        st.tuples(st.sampled_from(["blue", "red"]), st.integers(1, 30), st.integers(1, 20)), max_size=8
    ),
    rulings=st.lists(
        st.tuples(st.sampled_from(["forbid", "test"]), st.integers(1, 30), st.integers(1, 20)), max_size=3
    ),
    speed=st.integers(2, 14),
    prone=st.booleans(),
)
def test_prices_declared_to_read_two_cells_are_priced_in_bulk_and_give_the_slow_answer(
    diagonal, seed, people, rulings, speed, prone
):
    """A walker that declares `prices_read_two_cells` has each window priced once per signature (two
    legend entries, a direction, a parity class), and with `ends_read_one_cell` each empty cell judged
    once per legend entry: the same cells, costs and steps as asking the rules about every one."""
    rnd = random.Random(seed)
    inner = ["".join(rnd.choice(".....~~^#") for _ in range(30)) for _ in range(20)]
    rows = ["#" * 32, *(f"#{r}#" for r in inner), "#" * 32]
    placed = [("m", "blue", 15, 10, speed)]
    taken = {(15, 10)}
    for i, (side, x, y) in enumerate(people):
        if (x, y) not in taken:
            taken.add((x, y))
            placed.append((f"o{i}", side, x, y, 3))
    for x, y in taken:
        rows[y] = rows[y][:x] + "." + rows[y][x + 1 :]
    enc = encounter(scene(rows, diagonal, placed))
    for kind, x, y in rulings:
        if (x, y) != (15, 10):
            do(
                enc,
                f'forbid {x},{y} why="rubble"'
                if kind == "forbid"
                else f'require-test {x},{y} target=3 why="ice"',
            )
    if prone:
        do(enc, "drop-prone m")
    state = enc.state
    original = _Walking.can_end

    def no_end_on_rough(self, st, who):  # a verdict that reads the cell's entry: the walk never ends on rough
        original(self, st, who)
        if st.grid.has(who.pos[0], who.pos[1], "rough"):
            raise Refusal(self.rs.rule("occupancy"), "not on rough ground (a test's own rule)")

    _Walking.can_end = no_end_on_rough
    try:
        for _ in range(2):
            for f in state.fighters:
                same(state, f.id)
        f = state.fighter("m")
        kept = table_for(state, f, get_ruleset(state.ruleset).walker(state, f))
        if kept.arrays is not None and kept.usable:
            assert kept.arrays.bulked  # the windows were priced in bulk
    finally:
        _Walking.can_end = original


def test_the_windows_kept_are_bounded_and_a_dropped_one_is_made_again(monkeypatch):
    """Fighters far apart share one table, each with a window of its own: past MOST_WINDOW_NODES the
    oldest windows are dropped (memory stays bounded), and a window made again gives the same answer."""
    rows = ["#" * 90, *("#" + "." * 88 + "#" for _ in range(38)), "#" * 90]
    where = [("a", 8, 8), ("b", 80, 30), ("c", 45, 20)]
    state = encounter(scene(rows, "every-1", [(fid, "blue", x, y, 5) for fid, x, y in where])).state
    monkeypatch.setattr(reach_arrays, "MOST_WINDOW_NODES", 1)  # room for the newest window only
    for _ in range(3):
        for fid, _, _ in where:
            same(state, fid)
    f = state.fighter("a")
    kept = table_for(state, f, get_ruleset(state.ruleset).walker(state, f))
    assert len(kept.arrays.windows) == 1
