"""rotate-about, as properties: "always maintaining an equal distance … never … return to the tile
they immediately travelled from … maintain the same clockwise or counterclockwise rotation"."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tabletrail.core.board.geometry import DIAGONAL_RULES, NEIGHBOURS, distance
from tabletrail.core.rulesets.ap_squares import rotate_path

PIVOT = (0, 0)
offsets = st.tuples(st.integers(-8, 8), st.integers(-8, 8)).filter(lambda c: c != (0, 0))
rules = st.sampled_from(DIAGONAL_RULES)


def cross(a: tuple[int, int], b: tuple[int, int]) -> int:
    return a[0] * b[1] - a[1] * b[0]


@settings(max_examples=150, deadline=None)
@given(start=offsets, rule=rules, clockwise=st.booleans(), squares=st.integers(1, 40))
def test_every_path_square_best_matches_the_radius_among_the_onward_squares(start, rule, clockwise, squares):
    radius = distance(rule, start, PIVOT)
    sign = 1 if clockwise else -1
    here = start
    for nxt in rotate_path(rule, start, PIVOT, clockwise, squares):
        onward = [(here[0] + dx, here[1] + dy) for dx, dy in NEIGHBOURS]
        onward = [c for c in onward if sign * cross(here, c) > 0]
        best = min(abs(distance(rule, c, PIVOT) - radius) for c in onward)
        assert nxt in onward
        assert abs(distance(rule, nxt, PIVOT) - radius) == best
        here = nxt


@settings(max_examples=150, deadline=None)
@given(start=offsets, rule=rules, clockwise=st.booleans(), squares=st.integers(1, 40))
def test_the_direction_never_reverses_and_the_path_never_turns_back(start, rule, clockwise, squares):
    sign = 1 if clockwise else -1
    path = [start, *rotate_path(rule, start, PIVOT, clockwise, squares)]
    for before, here, after in zip([None, *path], path, path[1:], strict=False):
        assert max(abs(after[0] - here[0]), abs(after[1] - here[1])) == 1  # one square a step
        assert sign * cross(here, after) > 0  # always the same way round the pivot
        assert after != before and after != PIVOT


@settings(max_examples=150, deadline=None)
@given(start=offsets, rule=rules, clockwise=st.booleans())
def test_the_circle_stays_on_the_radius_and_comes_back_to_its_start(start, rule, clockwise):
    radius = distance(rule, start, PIVOT)
    lap = 8 * (max(abs(start[0]), abs(start[1])) + 1)
    path = rotate_path(rule, start, PIVOT, clockwise, lap)
    worst = max(abs(distance(rule, c, PIVOT) - radius) for c in path)
    # Squares are not circles: under the Euclidean rule the best match is within half a square;
    # the other rules measure whole squares, and their circles are exact.
    assert worst <= 50 if rule == "euclidean" else worst == 0
    assert start in path


def test_the_three_figure_starts():
    """Beside, diagonal to and a knight's move from the pivot: rings of 4, 8 and 12 squares."""
    assert rotate_path("euclidean", (1, 0), PIVOT, True, 4) == [(0, 1), (-1, 0), (0, -1), (1, 0)]
    assert len(set(rotate_path("euclidean", (1, 1), PIVOT, True, 8))) == 8
    knight = rotate_path("euclidean", (2, 1), PIVOT, True, 12)
    assert knight[:4] == [(1, 2), (0, 2), (-1, 2), (-2, 1)]
    assert len(set(knight)) == 12 and knight[-1] == (2, 1)
