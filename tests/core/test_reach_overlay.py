"""A window's kept overlay (the board laid over its prices) gives the slow path's answer as the board changes.

Issue 40: a warm compiled search starts from the overlay its window kept for an equal board
(core/search/reach_arrays.py `_overlay`): the same occupants, forbidden cells, tests and start, and
no price written into the window since. These tests run many searches over one map's shared
tables while fighters move about, with larger budgets (`extra`) and under GM rulings, and hold each
answer to the search that asks the ruleset about every step. Answers made earlier must stay right
after later searches learn prices: a search that writes prices writes them into its own copy.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace
from support import do, encounter
from tabletrail.core.board.state import EncounterState
from tabletrail.core.rulesets.speed_meters.steps import _Walking
from tabletrail.core.search import reach_arrays
from tabletrail.core.search.area import Reach
from tabletrail.core.search.reach import reach

DIAGONALS = ["every-1", "alternating", "euclidean", "manhattan"]
LEGEND = '"." = "floor"\n"#" = "wall"\n"~" = "rough"\n"^" = {terrain = "floor", ground = 1}\n'
WIDE, HIGH = 44, 36  # more than one tile a side: windows of several tiles, and some that grow


def scene(seed: int, diagonal: str, speeds: list[int]) -> tuple[str, list[tuple[int, int]]]:
    """A seeded walled map of mixed terrain, one fighter per Speed on open floor; and its open cells."""
    rnd = random.Random(seed)
    inner = [[rnd.choice("......~~^#") for _ in range(WIDE - 2)] for _ in range(HIGH - 2)]
    rows = ["#" * WIDE, *(f"#{''.join(r)}#" for r in inner), "#" * WIDE]
    open_cells = [(x, y) for y in range(HIGH) for x in range(WIDE) if rows[y][x] == "."]
    spots = rnd.sample(open_cells, len(speeds))
    people = "".join(
        f'[[fighters]]\nid = "f{i}"\nside = "{"blue" if i % 2 else "red"}"\nat = [{x}, {y}]\nspeed = {s}\n'
        for i, ((x, y), s) in enumerate(zip(spots, speeds, strict=True))
    )
    body = ",\n".join(f'  "{r}"' for r in rows)
    toml = f"""
[encounter]
name = "overlay"
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
    return toml, open_cells


def same(state: EncounterState, fid: str, extra: int) -> Reach:
    """The kept-price search and the policy search agree on cells, costs, stops and every path's steps."""
    fast, slow = reach(state, fid, extra=extra), reach(state, fid, table=False, extra=extra)
    assert fast.costs == slow.costs, (fid, extra)
    assert fast.events == slow.events, (fid, extra)
    for cell in slow.costs:
        assert fast.steps(cell) == slow.steps(cell), (fid, extra, cell)
    return fast


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    diagonal=st.sampled_from(DIAGONALS),
    seed=st.integers(0, 10_000),
    speeds=st.lists(st.integers(2, 10), min_size=1, max_size=4),
    rulings=st.lists(
        st.tuples(st.sampled_from(["forbid", "test"]), st.integers(1, WIDE - 2), st.integers(1, HIGH - 2)),
        max_size=3,
    ),
    # what happens between searches: a fighter moves to an open cell, or stays (the same board again)
    turns=st.lists(
        st.tuples(
            st.integers(0, 3), st.integers(0, 10_000), st.booleans(), st.sampled_from([0, 0, 300, 1500])
        ),
        min_size=4,
        max_size=12,
    ),
    declared=st.booleans(),
)
def test_searches_over_a_kept_overlay_give_the_slow_answer_while_fighters_move(
    diagonal, seed, speeds, rulings, turns, declared
):
    toml, open_cells = scene(seed, diagonal, speeds)
    enc = encounter(toml)
    standing = {(f.pos[0], f.pos[1]) for f in enc.state.fighters}
    for kind, x, y in rulings:
        if (x, y) not in standing:
            do(
                enc,
                f'forbid {x},{y} why="rubble"'
                if kind == "forbid"
                else f'require-test {x},{y} target=3 why="ice"',
            )
    state = enc.state
    ids = [f.id for f in state.fighters]
    # speed-meters' walker declares that its prices read two cells (its ends one); with and without
    _Walking.prices_read_two_cells = _Walking.ends_read_one_cell = declared
    try:
        made: list[tuple[Reach, dict[tuple[int, int], object]]] = []
        for who, where, moves, extra in turns:
            fid = ids[who % len(ids)]
            if moves:
                f = state.fighter(fid)
                assert f is not None
                taken = {(o.pos[0], o.pos[1]) for o in state.fighters}
                free = [c for c in open_cells if c not in taken]
                x, y = free[where % len(free)]
                state = state.with_fighter(replace(f, pos=(x, y, state.grid.top[y][x])))
            for _ in range(2):  # the second over the overlay the first left (or made) on its window
                area = same(state, fid, extra)
            made.append((area, {cell: area.steps(cell) for cell in area.costs}))
        for area, steps in made:  # earlier answers read what they read when made
            assert {cell: area.steps(cell) for cell in area.costs} == steps
    finally:
        _Walking.prices_read_two_cells = _Walking.ends_read_one_cell = True  # as the ruleset declares


def test_a_warm_search_of_an_unchanged_board_starts_from_the_overlay_its_window_kept():
    """The same board twice: the second search lays nothing over the window again; a fighter moving makes
    a new overlay, and so does a price written into the window."""
    toml, _ = scene(5, "every-1", [6, 4])
    state = encounter(toml).state
    for _ in range(3):  # cold, completing the table, then the compiled search
        reach(state, "f0")
    arrays = next(iter(state.grid.tables.values())).arrays
    assert isinstance(arrays, reach_arrays.StepArrays)
    window = next(reversed(arrays.windows.values()))
    kept = window.overlaid
    assert kept is not None
    reach(state, "f0")
    assert window.overlaid is kept
    f1 = state.fighter("f1")
    assert f1 is not None
    moved = state.with_fighter(replace(f1, pos=(f1.pos[0], f1.pos[1], f1.pos[2] + 5)))  # a fighter aloft
    reach(moved, "f0")
    assert window.overlaid is not kept
