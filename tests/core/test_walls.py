"""Walls on cell edges (tabletrail/walls): the scenario syntax, steps, corners, reach and sight.

A wall runs along grid lines between grid corners ("3,1-3,4" separates columns 2
and 3 on rows 1 to 3). A step across it is refused naming the edge; a diagonal
step may not cut the corner of a wall (any wall or shut door meeting the corner
it passes through stops it); the reachable area never crosses one; a sight line
touching one is blocked, the same both ways.
"""

from __future__ import annotations

import tomllib

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import do, encounter, of_type, refuse
from tabletrail.cli import main
from tabletrail.core.board.geometry import Grid
from tabletrail.core.board.sight import sees
from tabletrail.core.board.walls import WALLS, sight_walls, step_blocked
from tabletrail.core.search.reach import reach
from tabletrail.events import plugins
from tabletrail.events.errors import InputError
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.types import Moved
from tabletrail.projections.board import view

from tests.core.test_doors import STATS

#    0123456
#  0 .......
#  1 ...|...     a wall down grid line x = 3 from corner 3,1 to corner 3,4
#  2 ...|...
#  3 ...|...
#  4 .......
WALL = "3,1-3,4"


def scene(ruleset: str, at: tuple[int, int] = (2, 2), walls: str = f'"{WALL}"', n: int = 6) -> str:
    stats = STATS[ruleset]
    return f"""
[encounter]
name = "a wall under {ruleset}"
ruleset = "{ruleset}"
[map]
rows = [".......", ".......", ".......", ".......", "......."]
legend = {{ "." = "floor" }}
walls = [{walls}]
[[fighters]]
id = "m"
side = "blue"
at = [{at[0]}, {at[1]}]
{stats.format(n=n)}
[[fighters]]
id = "foe"
side = "red"
at = [6, 4]
{stats.format(n=2)}
"""


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_a_step_across_a_wall_is_refused_naming_the_edge(ruleset: str):
    enc = encounter(scene(ruleset))
    why = refuse(enc, "move m 3,2", WALLS).reason
    assert "can't step from 2,2 to 3,2: a wall between 2,2 and 3,2" in why
    why = refuse(enc, "move m 1,2 2,1 3,1", WALLS).reason  # the wall is met on the last step
    assert "from 2,1 to 3,1: a wall between 2,1 and 3,1" in why


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_a_diagonal_step_may_not_cut_a_wall_corner(ruleset: str):
    enc = encounter(scene(ruleset, at=(2, 0)))
    # 2,0 -> 3,1 passes corner 3,1, where the wall starts: cutting its end is refused too.
    why = refuse(enc, "move m 3,1", WALLS).reason
    assert "a wall between 2,1 and 3,1, at the corner 3,1 the diagonal step would cut" in why
    moved = of_type(do(enc, "move m 3,0 4,1"), Moved)  # around the wall's end, no corner touched
    assert moved[-1].steps[-1].to[:2] == (4, 1)


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_going_around_the_wall_is_allowed(ruleset: str):
    enc = encounter(scene(ruleset, at=(2, 3), n=8))
    do(enc, "move m 2,4 3,4 4,3")  # below the wall's end: 3,4 -> 4,3 cuts corner 4,4, far from it
    assert enc.state.fighter("m").pos[:2] == (4, 3)


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_reach_excludes_what_lies_behind_a_wall_and_equals_the_slow_search(ruleset: str):
    enc = encounter(scene(ruleset, walls='"3,0-3,5"', n=6))  # the wall cuts the map in two
    kept, live = reach(enc.state, "m"), reach(enc.state, "m", table=False)
    assert kept.costs == live.costs
    assert kept.costs and all(x < 3 for x, _ in kept.costs)
    assert reach(enc.state, "m", shortcut=False).costs == kept.costs


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_reach_goes_around_a_wall_at_the_price_of_the_way_round(ruleset: str):
    enc = encounter(scene(ruleset, n=8))
    plain = encounter(scene(ruleset, walls="", n=8))
    walled, free = reach(enc.state, "m").costs, reach(plain.state, "m").costs
    assert walled == reach(enc.state, "m", table=False).costs
    assert (3, 2) in walled and walled[(3, 2)] > free[(3, 2)]  # round the wall, not through it


def test_a_forced_slide_into_a_wall_is_refused_naming_the_edge():
    from tests.rulesets.speed_meters.test_scenes import fighter

    text = scene("speed-meters").replace('[[fighters]]\nid = "m"', '[[fighters]]\nid = "p"', 1)
    text = text.split("[[fighters]]")[0] + fighter("p", at=(0, 2)) + fighter("t", "red", at=(2, 2))
    enc = encounter(text)
    why = refuse(enc, "force t slide 3,2", WALLS).reason
    assert "can't go from 2,2 to 3,2: a wall between 2,2 and 3,2" in why


def test_a_teleport_needs_sight_past_the_walls():
    from tests.rulesets.speed_meters.test_scenes import fighter

    text = scene("speed-meters").split("[[fighters]]")[0] + fighter("a", at=(1, 2), teleport=5)
    enc = encounter(text)
    why = refuse(enc, "teleport a 5,2", WALLS).reason
    assert "out of a's line of sight: a wall between 2,2 and 3,2" in why
    why = refuse(enc, "teleport a 3,0", WALLS).reason  # through corner 3,1, the wall's top end
    assert "a wall between 2,1 and 3,1" in why
    enc = encounter(scene("speed-meters").split("[[fighters]]")[0] + fighter("a", at=(1, 0), teleport=5))
    do(enc, "teleport a 5,0")  # along row 0, above the wall's end


# --- sight ---------------------------------------------------------------------------------


def grid_of(walls: list[str], doors: str = "", width: int = 7, height: int = 5) -> Grid:
    rows = ", ".join(['"' + "." * width + '"'] * height)
    text = f"""
[encounter]
name = "sight"
ruleset = "speed-meters"
[map]
rows = [{rows}]
legend = {{ "." = "floor" }}
walls = [{", ".join(f'"{w}"' for w in walls)}]
doors = [{doors}]
[[fighters]]
id = "a"
side = "blue"
at = [0, 0]
speed = 5
"""
    return Grid(parse_scenario(tomllib.loads(text), source="sight test"))


def test_sight_is_blocked_by_a_wall_and_a_closed_door_and_not_by_an_open_one():
    g = grid_of([WALL, "3,0-3,1"], doors='{ at = "2,4|3,4" }')
    assert not sees(g, (1, 2, 0), (5, 2, 0))  # straight through the wall
    assert sees(g, (1, 0, 0), (1, 4, 0))  # along its side
    shut, opened = {"2,4|3,4": "closed"}, {"2,4|3,4": "open"}
    assert not sees(g, (0, 4, 0), (6, 4, 0), doors=shut)
    assert sight_walls(g, shut, (0, 4, 0), (6, 4, 0)) == ["the closed door 2,4|3,4"]
    assert sees(g, (0, 4, 0), (6, 4, 0), doors=opened)
    assert not sees(g, (0, 4, 0), (6, 4, 0))  # without the doors' states, a door is closed


def test_a_sight_line_through_a_wall_end_corner_is_blocked_like_a_diagonal_step():
    g = grid_of([WALL])
    assert not sees(g, (2, 0, 0), (3, 1, 0))  # through corner 3,1, the wall's end
    assert not sees(g, (1, 0, 0), (5, 2, 0))  # through corner 3,1 too: x=3 is met at y=1 exactly
    assert sees(g, (3, 0, 0), (4, 1, 0))


@st.composite
def layouts(draw: st.DrawFn) -> tuple[int, int, list[str], dict[str, str], tuple[int, int], tuple[int, int]]:
    """A small map's size, random unit walls and doors (name -> state) on its inner edges, two cells."""
    w, h = draw(st.integers(2, 6)), draw(st.integers(2, 6))
    inner = [(x, y, 0) for x in range(w - 1) for y in range(h)]
    inner += [(x, y, 1) for x in range(w) for y in range(h - 1)]
    chosen = draw(st.lists(st.sampled_from(inner), unique=True, max_size=len(inner)))
    walls, doors = [], {}
    for x, y, side in chosen:
        a, b = (x, y), ((x + 1, y) if side == 0 else (x, y + 1))
        kind = draw(st.sampled_from(["wall", "closed", "open"]))
        if kind == "wall":
            walls.append(f"{x + 1},{y}-{x + 1},{y + 1}" if side == 0 else f"{x},{y + 1}-{x + 1},{y + 1}")
        else:
            doors[f"{a[0]},{a[1]}|{b[0]},{b[1]}"] = kind
    cell = st.tuples(st.integers(0, w - 1), st.integers(0, h - 1))
    return w, h, walls, doors, draw(cell), draw(cell)


def door_toml(doors: dict[str, str]) -> str:
    return ", ".join(
        f'{{ at = "{name}", closed = {str(state != "open").lower()} }}' for name, state in doors.items()
    )


@st.composite
def walled_maps(draw: st.DrawFn) -> tuple[Grid, dict[str, str], tuple[int, int], tuple[int, int]]:
    """A small map with random unit walls and doors on its inner edges, and two cells on it."""
    w, h, walls, doors, a, b = draw(layouts())
    return grid_of(walls, door_toml(doors), w, h), doors, a, b


@settings(max_examples=300, deadline=None)
@given(walled_maps())
def test_sight_with_walls_is_symmetric(case):
    g, doors, a, b = case
    pa, pb = (*a, 0), (*b, 0)
    assert sees(g, pa, pb, doors=doors) == sees(g, pb, pa, doors=doors)
    assert sorted(sight_walls(g, doors, pa, pb)) == sorted(sight_walls(g, doors, pb, pa))


@settings(max_examples=200, deadline=None)
@given(walled_maps())
def test_sight_to_a_neighbour_is_blocked_exactly_when_the_step_is(case):
    """One rule for edges: the sight line to a neighbour meets the very edges the step is stopped by."""
    g, doors, a, _ = case
    state = _StateLike(g, doors)
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            b = (a[0] + dx, a[1] + dy)
            if (dx or dy) and g.inside(*b):
                blocked = bool(step_blocked(state, a, b))  # type: ignore[arg-type]
                assert blocked == (not sees(g, (*a, 0), (*b, 0), doors=doors)), (a, b)


class _StateLike:
    """What step_blocked reads of a state: the grid and the doors' states."""

    def __init__(self, grid: Grid, doors: dict[str, str]) -> None:
        self.grid, self.doors = grid, doors


# --- the scenario ---------------------------------------------------------------------------


def load(walls: str = "", doors: str = "") -> object:
    text = f"""
[encounter]
name = "edges"
ruleset = "speed-meters"
[map]
rows = ["......", "......", "......", "......"]
legend = {{ "." = "floor" }}
{walls}
{doors}
[[fighters]]
id = "a"
side = "blue"
at = [0, 0]
speed = 5
"""
    return parse_scenario(tomllib.loads(text), source="s.toml")


@pytest.mark.parametrize(
    ("walls", "doors", "error"),
    [
        ('walls = ["1,1-2,2"]', "", "map.walls[0]: '1,1-2,2' is diagonal"),
        ('walls = ["1,1-1,1"]', "", "map.walls[0]: '1,1-1,1' has no length"),
        ('walls = ["0,0-0,4", "1,1-1,9"]', "", "map.walls[1]: '1,1-1,9': corner 1,9 is off the map"),
        ('walls = ["1,1"]', "", "map.walls[0]: '1,1' is not a wall"),
        ('walls = ["a,1-1,2"]', "", "map.walls[0]: 'a,1-1,2': 'a,1' is not a grid corner"),
        ("walls = [3]", "", "map.walls: expected a list of segments"),
        (
            "",
            'doors = [{ at = "1,1|3,1" }]',
            "map.doors[0].at: '1,1|3,1': a door stands between two cells side",
        ),
        ("", 'doors = [{ at = "1,1|2,2" }]', "side by side"),
        ("", 'doors = [{ at = "5,1|6,1" }]', "map.doors[0].at: '5,1|6,1': cell 6,1 is off the 6x4 map"),
        ("", 'doors = [{ at = "1,1|2,1" }, { at = "2,1|1,1" }]', "map.doors[1].at: a second door on 1,1|2,1"),
        ('walls = ["2,0-2,3"]', 'doors = [{ at = "1,1|2,1" }]', "map.doors[0].at: 1,1|2,1 is walled"),
        ("", 'doors = [{ at = "1,1|2,1", locked = true, closed = false }]', "map.doors[0].locked"),
        ("", 'doors = [{ at = "1,1|2,1", open = true }]', "map.doors[0].open: unknown field"),
        ("", 'doors = [{ at = "1,1|2,1", closed = "yes" }]', "map.doors[0].closed: expected true or false"),
        ("", 'doors = ["1,1|2,1"]', "map.doors[0]: expected a table"),
    ],
)
def test_scenario_errors_name_the_field_and_entry(walls: str, doors: str, error: str):
    with pytest.raises(InputError) as caught:
        load(walls, doors)
    message = str(caught.value)
    assert message.startswith("s.toml: map.") and "\n" not in message
    assert error in message, message


def test_walls_are_kept_in_order_written_the_one_way_and_doors_named_in_reading_order():
    sc = load(
        'walls = ["3,4-3,1", "0,2-6,2"]', 'doors = [{ at = "2,1|1,1" }, { at = "4,3|4,2", closed = false }]'
    )
    assert sc.walls == ("3,1-3,4", "0,2-6,2")
    assert [(d.at, d.state) for d in sc.doors] == [("1,1|2,1", "closed"), ("4,2|4,3", "open")]


def test_a_map_without_edges_logs_and_shows_as_before():
    """No walls or doors: the scenario encodes without the keys, and the board view has none."""
    sc = load()
    assert b'"walls"' not in msgspec.json.encode(sc) and b'"doors"' not in msgspec.json.encode(sc)
    enc = encounter(scene("speed-meters").replace(f'walls = ["{WALL}"]', ""))
    assert enc.state.grid.edges is None and enc.state.doors == {}
    assert "walls" not in view(enc.state) and "doors" not in view(enc.state)


def test_the_board_view_lists_merged_walls_and_doors():
    enc = encounter(scene("speed-meters", walls='"3,1-3,2", "3,2-3,4", "0,0-2,0", "5,4-5,2"'))
    board = view(enc.state)
    assert board["walls"] == [[3, 1, 3, 4], [5, 2, 5, 4], [0, 0, 2, 0]]
    assert board["doors"] == []


def test_show_lists_walls_and_doors_under_the_key_and_explain_reads_a_door(tmp_path, capsys):
    from tests.core.test_doors import scene as door_scene

    path = tmp_path / "door.toml"
    path.write_text(door_scene("initiative-yards"), encoding="utf-8")
    log = tmp_path / "door.jsonl"
    assert main(["new", str(path), "--log", str(log)]) == 0
    assert main(["do", str(log), "open", "m", "2,2|3,2"]) == 0
    capsys.readouterr()
    assert main(["show", str(log)]) == 0
    out = capsys.readouterr().out
    assert " 2 . . M/. . . ." in out and "doors: 2,2|3,2 open" in out  # drawn on the map (issue 28)
    assert "edges: │─ wall  / open door" in out
    seq = len(encounter_records(log))
    assert main(["explain", str(log), str(seq)]) == 0
    out = capsys.readouterr().out
    assert "m opens the door between 2,2 and 3,2" in out and "->" not in out.split("opens the door")[1][:20]
    assert "tabletrail/doors" in out


def encounter_records(log) -> list:
    from tabletrail.events.stores.jsonl import JsonlStore
    from tabletrail.service.encounter import Encounter

    return Encounter.open(JsonlStore(log)).records


def test_rules_lists_the_engine_rules_and_door_cost_of_every_ruleset(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert out.count("door_cost = ") == len(plugins.installed())  # tabletrail's four, and any plug-in
    assert set(STATS) == set(plugins.built_in())
    assert "tabletrail/walls: a wall on a cell edge" in out and "tabletrail/doors:" in out


@settings(max_examples=40, deadline=None)
@given(layouts(), st.sampled_from(sorted(STATS)))
def test_reach_on_random_walls_is_the_same_kept_live_and_unshortcut(case, ruleset):
    """The kept-price search (whose steps out skip shut edges, keyed by the doors' states) agrees with
    the policy asked for every step, on random walls and doors; no step of a cheapest path is stopped."""
    w, h, walls, doors, a, _ = case
    rows = ", ".join(['"' + "." * w + '"'] * h)
    text = scene(ruleset, at=a, walls=", ".join(f'"{x}"' for x in walls))
    text = text.replace('rows = [".......", ".......", ".......", ".......", "......."]', f"rows = [{rows}]")
    foe = (w - 1, h - 1) if a != (w - 1, h - 1) else (0, 0)
    text = text.replace("[map]", f"[map]\ndoors = [{door_toml(doors)}]")
    text = text.replace("at = [6, 4]", f"at = [{foe[0]}, {foe[1]}]")
    enc = encounter(text)
    area = reach(enc.state, "m")
    assert area.costs == reach(enc.state, "m", table=False).costs
    assert area.costs == reach(enc.state, "m", shortcut=False).costs
    for cell in area.costs:
        here = a
        for step in area.path(cell):
            assert not step_blocked(enc.state, here, step)
            here = step


def test_a_dragged_body_is_not_put_down_across_a_wall():
    head = scene("initiative-yards").split("[[fighters]]")[0]
    body = """
[[fighters]]
id = "{fid}"
side = "blue"
at = [{x}, {y}]
initiative = 6
height = 1.5
"""
    enc = encounter(head + body.format(fid="m", x=2, y=0) + body.format(fid="b", x=1, y=0))
    why = refuse(enc, "drag m b 2,1 put=3,1", WALLS).reason
    assert "b can't be put on 3,1 from 2,1: a wall between 2,1 and 3,1" in why
    do(enc, "drag m b 2,1 put=2,2")
    assert enc.state.fighter("b").pos[:2] == (2, 2)


def test_a_body_across_a_wall_is_not_taken_hold_of_for_a_drag():
    """drag: "if the dragging target starts within a yard" — not through a wall, though 1 yd away."""
    head = scene("initiative-yards").split("[[fighters]]")[0]
    body = '[[fighters]]\nid = "{fid}"\nside = "blue"\nat = [{x}, {y}]\ninitiative = 6\nheight = 1.5\n'
    enc = encounter(head + body.format(fid="m", x=2, y=2) + body.format(fid="b", x=3, y=2))
    why = refuse(enc, "drag m b 1,2 put=1,1", WALLS).reason
    assert "m can't take hold of b through a wall between 2,2 and 3,2" in why


def test_a_reflexive_leap_does_not_cross_a_wall():
    enc = encounter(scene("ap-squares", at=(2, 2), n=10))
    do(enc, "area-effect 2,2 1,2 damage=6")
    why = refuse(enc, "reflexive-leap m 3,2 roll=17", WALLS).reason
    assert "the leap to 3,2 can't cross a wall: from 2,2 to 3,2: a wall between 2,2 and 3,2" in why
    do(enc, "reflexive-leap m 2,3 roll=20")  # 20 reaches the 18 a 1 m dive needs
    assert enc.state.fighter("m").pos[:2] == (2, 3)


# --- Reach through a wall: a melee Reach, a grab or a shove goes along the line between the two cells,
# so a wall or shut door on it stops it like sight (tabletrail/walls), though the cells touch. --------


def two(
    ruleset: str,
    m: tuple[int, int],
    foe: tuple[int, int],
    walls: str = f'"{WALL}"',
    n: int = 6,
    **extra: str | int,
) -> str:
    """The wall scene with m (blue) and foe (red) where given; `extra` adds stat lines to both."""
    head = scene(ruleset, walls=walls).split("[[fighters]]")[0]
    stats = STATS[ruleset].format(n=n) + "".join(f"\n{k} = {v}" for k, v in extra.items())
    return head + "".join(
        f'[[fighters]]\nid = "{fid}"\nside = "{side}"\nat = [{x}, {y}]\n{stats}\n'
        for fid, side, (x, y) in (("m", "blue", m), ("foe", "red", foe))
    )


@pytest.mark.parametrize(("walls", "engaged"), [(f'"{WALL}"', False), ("", True)])
def test_an_enemy_behind_a_thin_wall_is_not_within_reach(walls: str, engaged: bool):
    """initiative-yards engage: "moves into the Reach of an enemy" — not through a wall."""
    enc = encounter(two("initiative-yards", m=(1, 2), foe=(3, 2), walls=walls))
    do(enc, "move m 2,2")  # 1 yd from foe, the wall (or nothing) between them
    assert (enc.state.fighter("m").state("engagement", "free") == "engaged") is engaged
    assert ("foe" in enc.state.linked("engaged", "m")) is engaged


def test_a_shove_or_grab_does_not_reach_through_a_thin_wall():
    """speed-meters shove/grab: the target must be within reach, and a wall on the line stops it."""
    enc = encounter(two("speed-meters", m=(2, 2), foe=(3, 2), brawn=1))
    why = refuse(enc, "shove m foe roll=6 roll=1", WALLS).reason
    assert "m can't shove foe through a wall between 2,2 and 3,2" in why
    assert "m can't grab foe through a wall" in refuse(enc, "grab m foe roll=6 roll=1", WALLS).reason
    plain = encounter(two("speed-meters", m=(2, 2), foe=(3, 2), walls="", brawn=1))
    do(plain, "shove m foe roll=6 roll=1")  # no wall: the same shove goes ahead


def test_in_zero_g_a_thin_wall_is_a_stable_surface_to_grab_and_push_off():
    """ap-squares zero-g-drift: "If a character is not adjacent to any walls…" — a thin wall on the
    square's edge is a wall it is adjacent to: grabbed as gravity fails, pushed off away from it."""
    enc = encounter(two("ap-squares", m=(2, 2), foe=(5, 4), n=12, celerity=2, dexterity=1, strength=1))
    do(enc, "gravity-off 0,0 6,4 grab=m roll=3")  # one drift roll: the foe's
    assert enc.state.fighter("m").state("gravity", "") == "crawling"  # it held on to the wall east of it
    refuse(enc, "push-off m e 2", "ap-squares/push-off")  # into the wall
    do(enc, "push-off m w 2")  # away from it
    plain = encounter(two("ap-squares", m=(2, 2), foe=(5, 4), walls="", celerity=2, dexterity=1, strength=1))
    do(plain, "gravity-off 0,0 6,4 grab=m roll=3 roll=3")  # nothing to hold in open space: m drifts too
    assert plain.state.fighter("m").state("gravity", "") == "drifting"
