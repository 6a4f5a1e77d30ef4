"""Line of sight (core/board/sight.py), used by speed-meters/teleport: what blocks it, and its symmetry."""

from __future__ import annotations

import tomllib

from hypothesis import given, settings
from hypothesis import strategies as st
from tabletrail.core.board.geometry import Grid
from tabletrail.core.board.sight import blockers, crossing, sees
from tabletrail.core.board.units import CU
from tabletrail.events.scenario.reader import parse_scenario

from tests.rulesets.speed_meters.test_scenes import fighter, scene

EYE = 150


def board(rows: list[str]) -> Grid:
    return Grid(parse_scenario(tomllib.loads(scene(rows, fighter("a", at=(0, 0)))), source="sight test"))


def at(grid: Grid, x: int, y: int) -> tuple[int, int, int]:
    return (x, y, grid.top[y][x])


def test_a_wall_between_blocks_and_an_open_floor_does_not():
    g = board([".....", "..#..", "....."])
    assert not sees(g, at(g, 0, 1), at(g, 4, 1), EYE)
    assert blockers(g, at(g, 0, 1), at(g, 4, 1), EYE) == [(2, 1)]
    assert sees(g, at(g, 0, 0), at(g, 4, 0), EYE)


def test_a_low_obstacle_does_not_block_and_a_tall_one_does():
    g = board(["..o..", "..T.."])  # 0.5 m and 2 m obstacles
    assert sees(g, at(g, 0, 0), at(g, 4, 0), EYE)
    assert not sees(g, at(g, 0, 1), at(g, 4, 1), EYE)


def test_from_high_enough_the_sight_passes_over_an_obstacle():
    g = board(["Q.T.."])  # a 10 m pillar, a 2 m obstacle
    assert sees(g, at(g, 0, 0), at(g, 4, 0), EYE)
    assert not sees(g, (1, 0, 0), (4, 0, 0), EYE)


def test_grazing_a_corner_does_not_block():
    g = board(["...", ".#.", "..."])
    assert sees(g, at(g, 0, 0), at(g, 2, 0), EYE)  # along the top row
    assert not sees(g, at(g, 0, 0), at(g, 2, 2), EYE)  # through the wall's middle
    g = board([".#.", "#..", "..."])
    assert sees(g, at(g, 0, 0), at(g, 1, 1), EYE)  # the corner between two walls is touched only


def test_the_crossing_of_a_cell_is_an_open_interval():
    assert crossing((0, 0), (4, 0), (2, 0)) is not None
    assert crossing((0, 0), (2, 2), (1, 0)) is None  # only the corner point
    lo, hi = crossing((0, 0), (4, 0), (1, 0))
    assert (lo, hi) == (0.125, 0.375)


def test_standing_on_a_ledge_sees_over_a_platform_edge_that_blocks_from_below():
    g = board([".:::."])  # a 2.5 m platform in the middle
    assert not sees(g, at(g, 0, 0), at(g, 4, 0), EYE)
    assert sees(g, at(g, 1, 0), at(g, 3, 0), EYE)


CHARS = st.sampled_from("....#To^:Q")


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.text(CHARS, min_size=6, max_size=6), min_size=5, max_size=5),
    a=st.tuples(st.integers(0, 5), st.integers(0, 4), st.integers(0, 12)),
    b=st.tuples(st.integers(0, 5), st.integers(0, 4), st.integers(0, 12)),
    eye=st.integers(0, 3 * CU),
)
def test_sight_is_symmetric(rows, a, b, eye):
    """If A sees B, B sees A: same blocking cells either way, whatever the map and heights."""
    g = board(rows)
    pa, pb = (a[0], a[1], a[2] * 50), (b[0], b[1], b[2] * 50)
    assert sees(g, pa, pb, eye) == sees(g, pb, pa, eye)
    assert sorted(blockers(g, pa, pb, eye)) == sorted(blockers(g, pb, pa, eye))
