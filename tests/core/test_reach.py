"""The reachable area, checked against hand-computed maps and against the engine's own moves."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import do, encounter, grid, of_type
from tabletrail.core.board.geometry import expand
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.units import CU
from tabletrail.core.engine.movement import length_of
from tabletrail.core.engine.registry import RULESETS
from tabletrail.core.search.reach import reach, reachable, waypoints
from tabletrail.events.types import Moved
from tabletrail.service.syntax import parse

ROOM = [
    "#######",
    "#.....#",
    "#.....#",
    "#.....#",
    "#.....#",
    "#######",
]


def scene(rows: list[str], speed: float = 2, settings_: str = "", others: str = "", at=(1, 1)) -> str:
    """A speed-meters scenario with one mover `m` (and whoever `others` adds)."""
    legend = '"^" = {terrain = "floor", ground = 1}\n":" = {terrain = "floor", ground = 2.5}'
    return f"""
[encounter]
name = "reach"
ruleset = "speed-meters"
[settings]
{settings_}
{grid(rows, legend)}
[[fighters]]
id = "m"
side = "blue"
at = [{at[0]}, {at[1]}]
speed = {speed}
{others}
"""


def fighter(fid: str, side: str, x: int, y: int) -> str:
    return f'[[fighters]]\nid = "{fid}"\nside = "{side}"\nat = [{x}, {y}]\nspeed = 1\n'


def table(costs: dict[tuple[int, int], int], width: int, height: int) -> list[str]:
    """The costs as rows of whole meters ('.' where out of reach), for hand-written expectations."""
    return [
        "".join(str(costs[(x, y)] // CU) if (x, y) in costs else "." for x in range(width))
        for y in range(height)
    ]


# --- speed-meters/movement: the budget and the diagonal rule -------------------------------------


def test_every_step_costs_one_meter_by_default():
    enc = encounter(scene(ROOM, speed=2))
    assert table(reachable(enc.state, "m"), 7, 6) == [
        ".......",
        "..12...",
        ".112...",
        ".222...",
        ".......",
        ".......",
    ]


def test_manhattan_diagonals_cost_two():
    enc = encounter(scene(ROOM, speed=2, settings_='diagonal = "manhattan"'))
    assert table(reachable(enc.state, "m"), 7, 6) == [
        ".......",
        "..12...",
        ".12....",
        ".2.....",
        ".......",
        ".......",
    ]


def test_alternating_diagonals_cost_one_then_two():
    enc = encounter(scene(ROOM, speed=3, settings_='diagonal = "alternating"'))
    costs = reachable(enc.state, "m")
    assert costs[(2, 2)] == CU  # first diagonal: 1
    assert costs[(3, 3)] == 3 * CU  # second diagonal: 2 more
    assert costs[(4, 2)] == 3 * CU  # one diagonal and two straight steps
    assert (4, 4) not in costs  # three diagonals: 1 + 2 + 1 = 4 > 3


def test_euclidean_diagonal_is_exact_to_the_hundredth():
    enc = encounter(scene(ROOM, speed=2.5, settings_='diagonal = "euclidean"'))
    costs = reachable(enc.state, "m")
    assert costs[(2, 2)] == 141
    assert costs[(3, 2)] == 241  # one diagonal and one straight step
    assert (3, 3) not in costs  # two diagonals: 2·√2 = 2.83 > 2.5


def test_the_budget_is_the_movement_left():
    enc = encounter(scene(ROOM, speed=3, settings_="actions_per_turn = 1"))
    assert max(reachable(enc.state, "m").values()) == 3 * CU
    do(enc, "move m 2,1")
    assert reachable(enc.state, "m") == {}  # the only action is spent: no new Movement
    assert reach(enc.state, "m").budget == 0


def test_a_body_with_no_ordinary_move_has_nothing_to_spend():
    # An ap-squares loose object has AP like anyone (ap_per_cycle) but no walking policy:
    # the area must not claim it has AP to spend on a move.
    enc = encounter(f"""
[encounter]
name = "hold"
ruleset = "ap-squares"
initiative = ["ari", "drum"]
{grid(ROOM)}
[[fighters]]
id = "ari"
side = "blue"
at = [1, 1]
[[fighters]]
id = "drum"
side = "none"
at = [3, 2]
tags = ["object"]
""")
    assert reach(enc.state, "ari").budget > 0  # a character has AP to walk with
    drum = reach(enc.state, "drum")
    assert drum.costs == {} and drum.budget == 0


def test_one_meter_up_is_allowed_two_and_a_half_are_not():
    rows = ["#######", "#.^:..#", "#######"]
    enc = encounter(scene(rows, speed=4))
    costs = reachable(enc.state, "m")
    assert costs[(2, 1)] == CU  # onto the 1 m platform by jumping
    assert (3, 1) not in costs and (4, 1) not in costs  # 1.5 m up from the platform; no way round


# --- speed-meters/rough --------------------------------------------------------------------------


def test_rough_space_costs_two_and_the_search_goes_round_it():
    rows = ["#####", "#.~.#", "#...#", "#####"]
    enc = encounter(scene(rows, speed=3))
    costs = reachable(enc.state, "m")
    assert costs[(2, 1)] == 2 * CU  # onto the sand
    assert costs[(3, 1)] == 2 * CU  # round it by 2,2: two diagonals, not 2 m + 1 m through it


def test_speed_one_ignores_rough():
    rows = ["#####", "#.~.#", "#####"]
    enc = encounter(scene(rows, speed=1))
    assert reachable(enc.state, "m") == {(2, 1): CU}


# --- speed-meters/occupancy ----------------------------------------------------------------------


def test_allies_are_passed_through_but_not_ended_on():
    rows = ["#####", "#...#", "#####"]
    enc = encounter(scene(rows, speed=2, others=fighter("ally", "blue", 2, 1)))
    assert reachable(enc.state, "m") == {(3, 1): 2 * CU}


def test_enemies_and_walls_block_the_way():
    rows = ["#####", "#...#", "#####"]
    enc = encounter(scene(rows, speed=2, others=fighter("foe", "red", 2, 1)))
    assert reachable(enc.state, "m") == {}


# --- GM rulings on cells (tabletrail/gm-ruling) ---------------------------------------------------


def test_a_forbidden_cell_is_never_entered():
    rows = ["#####", "#...#", "#####"]
    enc = encounter(scene(rows, speed=2))
    do(enc, 'forbid 2,1 why="collapsed floor"')
    assert reachable(enc.state, "m") == {}


def test_a_cell_that_needs_a_test_is_reachable_but_the_search_stops_there():
    rows = ["######", "#....#", "######"]
    enc = encounter(scene(rows, speed=3))
    do(enc, 'require-test 2,1 target=3 why="loose plank"')
    r = reach(enc.state, "m")
    assert r.costs == {(2, 1): CU}
    assert r.events == {(2, 1)}


# --- agreement with the engine ------------------------------------------------------------------


def test_the_cheapest_path_is_a_move_the_engine_accepts_at_the_same_cost():
    rows = ["#######", "#..~..#", "#.#~#.#", "#.....#", "#######"]
    for diagonal in ("every-1", "alternating", "euclidean", "manhattan"):
        enc = encounter(scene(rows, speed=5, settings_=f'diagonal = "{diagonal}"'))
        r = reach(enc.state, "m")
        for cell, cost in r.costs.items():
            cmd = "move m " + " ".join(f"{x},{y}" for x, y in waypoints((1, 1), r.path(cell)))
            result = enc.preview(parse(cmd))
            assert not isinstance(result, Rejection), f"{diagonal}: {cmd}: {result}"
            steps = [s for m in of_type(result, Moved) for s in m.steps]
            assert length_of(steps) == cost, (diagonal, cmd)  # the exact length, rounded once


def test_an_unknown_fighter_is_a_key_error_naming_the_fighters():
    enc = encounter(scene(ROOM))
    with pytest.raises(KeyError, match="no fighter 'zed'.*fighters: m"):
        reach(enc.state, "zed")


MAP_CHARS = st.sampled_from(".~^:#")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cells=st.lists(st.lists(MAP_CHARS, min_size=5, max_size=5), min_size=4, max_size=4),
    diagonal=st.sampled_from(["every-1", "alternating", "euclidean", "manhattan"]),
    target=st.tuples(st.integers(1, 5), st.integers(1, 4)),
    speed=st.integers(1, 5),
)
def test_no_accepted_move_ends_outside_the_area_or_below_its_cost(cells, diagonal, target, speed):
    """Whatever straight move the engine accepts ends on a reachable cell, at no less than its cost."""
    inner = ["".join(row) for row in cells]
    inner[0] = "." + inner[0][1:]  # the mover's own cell
    rows = ["#######", *(f"#{r}#" for r in inner), "#######"]
    enc = encounter(scene(rows, speed=speed, settings_=f'diagonal = "{diagonal}"'))
    costs = reachable(enc.state, "m")
    result = enc.preview(parse(f"move m {target[0]},{target[1]}"))
    if target == (1, 1):
        return
    if isinstance(result, Rejection):
        return  # a straight line may be refused where a bent path is not
    spent = length_of([s for m in of_type(result, Moved) for s in m.steps])
    assert target in costs and costs[target] <= spent


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cells=st.lists(st.lists(MAP_CHARS, min_size=6, max_size=6), min_size=5, max_size=5),
    diagonal=st.sampled_from(["every-1", "alternating", "euclidean", "manhattan"]),
    speed=st.integers(1, 7),
)
def test_skipping_settled_cells_finds_what_pricing_every_step_finds(cells, diagonal, speed):
    inner = ["".join(row) for row in cells]
    inner[0] = "." + inner[0][1:]
    rows = ["########", *(f"#{r}#" for r in inner), "########"]
    enc = encounter(scene(rows, speed=speed, settings_=f'diagonal = "{diagonal}"'))
    quick, full = reach(enc.state, "m"), reach(enc.state, "m", shortcut=False)
    assert quick.costs == full.costs and quick.events == full.events


class Hovering:
    """The ruleset's walker, counting the steps it prices, and lifting every landing by `lift` (a hover)."""

    def __init__(self, policy, lift: int) -> None:  # noqa: ANN001
        self.policy = policy
        self.lift = lift
        self.unit = policy.unit
        self.priced = 0

    def price(self, state, f, frm, to, parity):  # noqa: ANN001, ANN201
        self.priced += 1
        step = self.policy.price(state, f, frm, to, parity)
        return msgspec.structs.replace(step, to=(step.to[0], step.to[1], step.to[2] + self.lift))

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.policy, name)


def counted(monkeypatch, lift: int = 0) -> list[Hovering]:  # noqa: ANN001
    """Wrap the speed-meters walker; returns the list of wrappers handed out, in order."""
    rs = RULESETS["speed-meters"]
    walkers: list[Hovering] = []
    original = rs.walker

    def hovering(state, f):  # noqa: ANN001, ANN202
        walkers.append(Hovering(original(state, f), lift))
        return walkers[-1]

    monkeypatch.setattr(rs, "walker", hovering)
    return walkers


def test_steps_into_settled_cells_are_not_priced_when_walking_on_the_surface(monkeypatch):
    enc = encounter(scene(ROOM, speed=3))
    walkers = counted(monkeypatch)
    quick, full = reach(enc.state, "m"), reach(enc.state, "m", shortcut=False)
    assert quick.costs == full.costs
    assert walkers[0].priced < walkers[1].priced


def test_a_walker_that_leaves_the_surface_is_searched_pricing_every_step(monkeypatch):
    enc = encounter(scene(ROOM, speed=2))
    plain = reach(enc.state, "m")
    walkers = counted(monkeypatch, lift=50)
    hover = reach(enc.state, "m")
    assert hover.costs == plain.costs  # the same cells and costs, found by the full search
    assert all(s.to[2] == 50 for cell in hover.costs for s in hover.steps(cell))
    reach(enc.state, "m", shortcut=False)
    gave_up_after = walkers[0].priced - walkers[1].priced  # the first try, then a full search
    assert 1 <= gave_up_after <= 8  # it gave up among the first cell's neighbours


def test_waypoints_retrace_the_path_exactly():
    path = [(2, 1), (3, 1), (4, 2), (5, 3), (5, 4), (5, 5), (4, 6)]
    wps = waypoints((1, 1), path)
    assert expand((1, 1), wps) == path
    assert wps == [(3, 1), (5, 3), (5, 5), (4, 6)]


def waypoints_by_redrawing(start, cells):  # noqa: ANN001, ANN201
    """The plain way: redraw the line to every next cell (quadratic), kept here to check the fast one."""
    out, anchor, i = [], start, 0
    while i < len(cells):
        j = i
        while j + 1 < len(cells) and expand(anchor, [cells[j + 1]]) == cells[i : j + 2]:
            j += 1
        out.append(cells[j])
        anchor, i = cells[j], j + 1
    return out


KING = st.sampled_from([(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)])


@settings(max_examples=300, deadline=None)
@given(
    moves=st.lists(st.one_of(KING, st.tuples(st.integers(-3, 3), st.integers(-3, 3))), max_size=60),
    runs=st.lists(st.tuples(KING, st.integers(1, 9)), max_size=6),
)
def test_waypoints_are_the_ones_redrawing_every_line_finds(moves, runs):
    """Paths of king's steps, straight runs, and odd jumps: the same waypoints as redrawing each line."""
    here, path = (0, 0), []
    for (dx, dy), n in runs:
        moves = [*moves, *[(dx, dy)] * n]
    for dx, dy in moves:
        here = (here[0] + dx, here[1] + dy)
        path.append(here)
    wps = waypoints((0, 0), path)
    assert wps == waypoints_by_redrawing((0, 0), path)


def test_waypoints_of_a_long_straight_path_is_its_end():
    path = expand((0, 0), [(3000, 3000), (3000, 0)])
    assert waypoints((0, 0), path) == [(3000, 3000), (3000, 0)]
    assert waypoints((0, 0), [*path, (3001, 1)]) == [(3000, 3000), (3000, 0), (3001, 1)]
