"""Walls that stop movement, sight or both (issue 28, item 4; rule tabletrail/walls).

`[map] walls` takes a plain segment "3,1-3,4" (it stops movement and sight, as every wall did
before walls had kinds) or a table `{ at = "3,1-3,4", blocks = "sight" }` / `"movement"`:
furniture an imported map outlines stops sight and not steps; a window stops steps and not
sight. Steps ask only the edges that stop movement, sight only the ones that stop sight; a melee
reach (engagement, a grab, a shove) asks the ones that stop a body: the documents make Reach a
distance and a grab a roll of Brawn, never a matter of seeing the target.
"""

from __future__ import annotations

import tomllib

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import do, encounter, of_type, refuse
from tabletrail.core.board.geometry import Grid
from tabletrail.core.board.sight import sees
from tabletrail.core.board.walls import WALLS, reach_blocked, sight_walls, step_blocked
from tabletrail.core.search.reach import reach
from tabletrail.events.errors import InputError
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.scenario_spec import WallSpec
from tabletrail.events.types import Moved

from tests.core.test_doors import STATS
from tests.core.test_walls import WALL, load, scene, two


def kind(blocks: str) -> str:
    """The wall of test_walls' scene (down x = 3, rows 1 to 3), stopping only `blocks`."""
    return f'{{ at = "{WALL}", blocks = "{blocks}" }}'


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_a_wall_that_stops_only_sight_lets_a_step_through(ruleset: str):
    enc = encounter(scene(ruleset, walls=kind("sight")))
    area = reach(enc.state, "m")
    assert (
        area.costs == reach(enc.state, "m", table=False).costs == reach(enc.state, "m", shortcut=False).costs
    )
    plain = encounter(scene(ruleset, walls=""))
    assert area.costs == reach(plain.state, "m").costs  # the reachable area is the open map's
    moved = of_type(do(enc, "move m 3,2"), Moved)  # across the edge the wall lies on
    assert moved[-1].steps[-1].to[:2] == (3, 2)


def test_a_wall_that_stops_only_sight_stops_sight_and_a_teleport():
    enc = encounter(scene("speed-meters", walls=kind("sight")))
    state = enc.state
    assert not sees(state.grid, (2, 2, 0), (4, 2, 0), doors=state.doors)
    assert sight_walls(state.grid, state.doors, (2, 2, 0), (4, 2, 0)) == ["a wall between 2,2 and 3,2"]
    assert step_blocked(state, (2, 2), (3, 2)) == ""
    from tests.rulesets.speed_meters.test_scenes import fighter

    text = scene("speed-meters", walls=kind("sight")).split("[[fighters]]")[0]
    tele = encounter(text + fighter("a", at=(1, 2), teleport=5))
    why = refuse(tele, "teleport a 5,2", WALLS).reason  # the Teleport needs Line of Sight
    assert "out of a's line of sight: a wall between 2,2 and 3,2" in why


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_a_wall_that_stops_only_movement_stops_a_step_and_not_sight(ruleset: str):
    enc = encounter(scene(ruleset, walls=kind("movement")))
    why = refuse(enc, "move m 3,2", WALLS).reason
    assert "can't step from 2,2 to 3,2: a wall between 2,2 and 3,2" in why
    assert sees(enc.state.grid, (2, 2, 0), (5, 2, 0), doors=enc.state.doors)  # a window: seen through
    walled = encounter(scene(ruleset))  # the same wall stopping both: the same way round
    assert reach(enc.state, "m").costs == reach(walled.state, "m").costs


@pytest.mark.parametrize(("blocks", "engaged"), [("sight", True), ("movement", False), ("both", False)])
def test_a_reach_is_stopped_by_what_stops_a_body_not_by_what_stops_only_sight(blocks: str, engaged: bool):
    """initiative-yards engage: "If a fighter moves into the Reach of an enemy…" — Reach is yards, a
    body's reach: a curtain or an outlined plant does not stop it, a wall or a window does."""
    enc = encounter(two("initiative-yards", m=(1, 2), foe=(3, 2), walls=kind(blocks)))
    do(enc, "move m 2,2")
    assert ("foe" in enc.state.linked("engaged", "m")) is engaged
    assert bool(reach_blocked(enc.state, (2, 2), (3, 2))) is not engaged


def test_a_grab_reaches_past_a_wall_that_stops_only_sight():
    """speed-meters grab: "Attacker and defender both roll +Brawn" — nothing about seeing the defender."""
    enc = encounter(two("speed-meters", m=(2, 2), foe=(3, 2), walls=kind("sight"), brawn=1))
    do(enc, "shove m foe roll=6 roll=1")
    window = encounter(two("speed-meters", m=(2, 2), foe=(3, 2), walls=kind("movement"), brawn=1))
    assert "through a wall" in refuse(window, "shove m foe roll=6 roll=1", WALLS).reason


def test_a_plain_segment_stops_both_and_an_older_scenario_keeps_its_bytes():
    """An older scenario writes strings only: they keep today's meaning (both) and encode as before;
    a table that says "both" is the same wall, written the one way."""
    old = load('walls = ["3,4-3,1"]')
    assert old.walls == ("3,1-3,4",)
    assert b'"walls":["3,1-3,4"]' in msgspec.json.encode(old)
    same = load('walls = [{ at = "3,4-3,1", blocks = "both" }]')
    assert msgspec.json.encode(same) == msgspec.json.encode(old)
    mixed = load('walls = ["0,2-6,2", { at = "3,1-3,4", blocks = "sight" }]')
    assert mixed.walls == ("0,2-6,2", WallSpec(at="3,1-3,4", blocks="sight"))
    assert list(mixed.wall_kinds()) == [("0,2-6,2", "both"), ("3,1-3,4", "sight")]
    back = msgspec.json.decode(msgspec.json.encode(mixed), type=type(mixed))  # as a log line reads back
    assert back == mixed


@pytest.mark.parametrize(
    ("walls", "error"),
    [
        ('walls = [{ at = "3,1-3,4", blocks = "light" }]', "map.walls[0].blocks: expected what the wall"),
        ('walls = [{ at = "3,1-3,4", stops = "sight" }]', "map.walls[0].stops: unknown field"),
        ('walls = [{ blocks = "sight" }]', "map.walls[0].at: expected a segment"),
        ('walls = [{ at = "1,1-2,2", blocks = "sight" }]', "map.walls[0].at: '1,1-2,2' is diagonal"),
    ],
)
def test_a_wall_table_that_is_wrong_is_refused_naming_its_field(walls: str, error: str):
    with pytest.raises(InputError) as caught:
        load(walls)
    assert error in str(caught.value) and "\n" not in str(caught.value)


def test_a_door_may_not_sit_on_a_wall_of_any_kind():
    with pytest.raises(InputError, match=r"map.doors\[0\].at: 1,1\|2,1 is walled"):
        load('walls = [{ at = "2,0-2,3", blocks = "sight" }]', 'doors = [{ at = "1,1|2,1" }]')


def test_one_byte_a_cell_holds_both_kinds():
    sight, movement = '{ at = "3,2-3,3", blocks = "sight" }', '{ at = "0,1-2,1", blocks = "movement" }'
    grid = Grid(load(f'walls = ["3,1-3,2", {sight}, {movement}]'))
    edges = grid.edges
    assert edges is not None and len(edges.bits) == grid.width * grid.height
    east = edges.number((2, 1), (3, 1)), edges.number((2, 2), (3, 2))
    assert [edges.kind(n) for n in east] == ["both", "sight"]
    assert edges.kind(edges.number((0, 0), (0, 1))) == "movement"


def test_a_map_whose_walls_stop_only_sight_walks_as_an_open_map():
    """Nothing on such a map stops a step: the compiled search may read it (no edge to ask)."""
    enc = encounter(scene("speed-meters", walls=kind("sight"), n=6))
    assert enc.state.grid.edges is not None and not enc.state.grid.edges.steps
    plain = encounter(scene("speed-meters", walls="", n=6))
    assert reach(enc.state, "m").costs == reach(plain.state, "m").costs


@st.composite
def kinded_maps(draw: st.DrawFn) -> tuple[str, tuple[int, int], tuple[int, int]]:
    """A small map's scenario with random unit walls of random kinds, and two cells on it."""
    w, h = draw(st.integers(2, 6)), draw(st.integers(2, 6))
    inner = [(x, y, 0) for x in range(w - 1) for y in range(h)] + [
        (x, y, 1) for x in range(w) for y in range(h - 1)
    ]
    chosen = draw(st.lists(st.sampled_from(inner), unique=True, max_size=len(inner)))
    walls = []
    for x, y, side in chosen:
        seg = f"{x + 1},{y}-{x + 1},{y + 1}" if side == 0 else f"{x},{y + 1}-{x + 1},{y + 1}"
        walls.append(f'{{ at = "{seg}", blocks = "{draw(st.sampled_from(["both", "sight", "movement"]))}" }}')
    rows = ", ".join(['"' + "." * w + '"'] * h)
    cell = st.tuples(st.integers(0, w - 1), st.integers(0, h - 1))
    a = draw(cell)
    text = f"""
[encounter]
name = "kinds"
ruleset = "speed-meters"
[map]
rows = [{rows}]
legend = {{ "." = "floor" }}
walls = [{", ".join(walls)}]
[[fighters]]
id = "m"
side = "blue"
at = [{a[0]}, {a[1]}]
speed = 4
"""
    return text, a, draw(cell)


@settings(max_examples=60, deadline=None)
@given(kinded_maps())
def test_on_random_kinds_steps_and_sight_each_ask_their_own_walls(case):
    """A step's verdict is the movement walls' alone and a sight line's the sight walls' alone: each
    equals the verdict on the map with only that kind of wall (both counts as each); the reachable
    area is the same kept, live and unshortcut."""
    text, a, b = case
    raw = tomllib.loads(text)
    walls = raw["map"]["walls"]
    only = {
        k: parse_scenario(
            {**raw, "map": {**raw["map"], "walls": [w["at"] for w in walls if w["blocks"] in (k, "both")]}},
            source="kinds",
        )
        for k in ("movement", "sight")
    }
    enc, moving, seeing = (
        encounter(text),
        encounter(_with(text, only["movement"])),
        encounter(_with(text, only["sight"])),
    )
    g, gs = enc.state.grid, seeing.state.grid
    assert sees(g, (*a, 0), (*b, 0)) == sees(gs, (*a, 0), (*b, 0))
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            c = (a[0] + dx, a[1] + dy)
            if (dx or dy) and g.inside(*c):
                assert bool(step_blocked(enc.state, a, c)) == bool(step_blocked(moving.state, a, c))
    area = reach(enc.state, "m")
    assert area.costs == reach(moving.state, "m").costs
    assert (
        area.costs == reach(enc.state, "m", table=False).costs == reach(enc.state, "m", shortcut=False).costs
    )


def _with(text: str, scenario) -> str:
    """The scenario text with its walls replaced by `scenario`'s (plain segments)."""
    head, _, rest = text.partition("walls = [")
    _, _, tail = rest.partition("]\n[[fighters]]")
    return head + "walls = [" + ", ".join(f'"{w}"' for w in scenario.wall_list()) + "]\n[[fighters]]" + tail
