"""Walls and doors on cell edges: which steps and sight lines they stop.

A map may put thin walls on the edges between cells (`map.walls`, segments
along grid lines) and doors on single edges (`map.doors`). The walls never
change; a door is open, closed or locked, and its state is encounter state
(`EncounterState.doors`, changed by DoorChanged events). Each wall stops
movement, sight or both (`[map] walls`: a plain segment stops both; `{ at = ...,
blocks = "sight" }` only sight, as furniture an imported map outlines; `"movement"`
only bodies, as a window). An edge *blocks a step* when it is a wall that stops
movement or a door that is not open, and *blocks sight* when it is a wall that
stops sight or a door that is not open.

`step_blocked` is the one answer to "may a king's step go from a to b?" as far
as edges go (tabletrail/walls), used by every step the engine takes (the shared
walk, the reachable area, jumps and forced moves that pass cells):

- an orthogonal step is blocked by the edge between the two cells;
- a diagonal step passes through the grid corner the two cells share, and may
  not cut a wall's corner: it is blocked when ANY of the four edges meeting at
  that corner blocks (the two edges of the orthogonal detour by one side, and
  the two of the detour by the other). So a diagonal never squeezes past the end
  of a wall, nor through a doorway: a door is passed straight.

Sight (`sight_walls`) is blocked by every sight-blocking edge the centre-to-centre
segment touches, its ends included; a segment through a grid corner touches the
four edges there, exactly as the diagonal step does. A melee reach (`reach_blocked`)
runs along the same segment but asks the edges that stop a body (see there why).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tabletrail.core.board.edges import EAST, MOVE_FLAG, SIGHT_FLAG, Edges
from tabletrail.core.board.refusal import Refusal
from tabletrail.events.scenario.reader import wall_edges
from tabletrail.events.scenario_spec import (
    BOTH,
    MOVEMENT,
    SIGHT,
    Scenario,
    door_cells,
    door_name,
    wall_segment,
)

if TYPE_CHECKING:
    from tabletrail.core.board.geometry import Grid
    from tabletrail.core.board.state import EncounterState

WALLS = "tabletrail/walls"  # walls and closed doors on cell edges stop steps and sight
DOORS = "tabletrail/doors"  # a fighter beside a door opens or closes it on its turn

# The words a wall's refusal adds about the way round it: core/search/way.py's search, a layer above this
# one, registers them when it is imported (core/decide.py imports it), so this module needs no import
# of it. (state, (step policy, fighter id, the cell the move is bound for, the budget left)) -> words.
WayRound = Callable[["EncounterState", tuple[Any, str, tuple[int, ...], int]], str]
_WAY_ROUND: list[WayRound] = []


def say_way_round_with(words: WayRound) -> None:
    """Register what a refusal says of the way round a wall (core/search/way.py does, on import)."""
    _WAY_ROUND[:] = [words]


def _cell(c: tuple[int, ...]) -> str:
    return f"{c[0]},{c[1]}"


def _between(what: str, a: tuple[int, int], b: tuple[int, int]) -> str:
    return what if what.startswith("the ") else f"{what} between {_cell(a)} and {_cell(b)}"


def step_blocked(state: EncounterState, a: tuple[int, ...], b: tuple[int, ...]) -> str:
    """What stops a king's step from cell a to cell b on its edges, in words, or "" (tabletrail/walls).

    Orthogonal: the edge between the cells. Diagonal: any of the four edges meeting
    at the corner the step passes through (a diagonal step may not cut a wall's
    corner). A step of more than one cell is not this function's question.
    """
    edges: Edges | None = state.grid.edges
    if edges is None or not edges.steps:
        return ""
    dx, dy = b[0] - a[0], b[1] - a[1]
    if max(abs(dx), abs(dy)) != 1 or not (0 <= a[0] < edges.width and 0 <= a[1] < edges.height):
        return ""
    if not (0 <= b[0] < edges.width and 0 <= b[1] < edges.height):
        return ""
    if not (dx and dy):
        what = edges.blocks(edges.number(a, b), state.doors)
        return _between(what, (a[0], a[1]), (b[0], b[1])) if what else ""
    cx, cy = a[0] + (dx > 0), a[1] + (dy > 0)
    for n, c1, c2 in edges.corner(cx, cy):
        what = edges.blocks(n, state.doors)
        if what:
            return f"{_between(what, c1, c2)}, at the corner {cx},{cy} the diagonal step would cut"
    return ""


def refuse_step(
    state: EncounterState,
    a: tuple[int, ...],
    b: tuple[int, ...],
    what: str = "the move",
    way: tuple[Any, str, tuple[int, ...], int] | None = None,
) -> None:
    """Refuse (tabletrail/walls) a step from a to b that an edge stops, naming the edge.

    way: (step policy, fighter id, the cell the move is bound for, the budget left): when a
    wall stops the step, the refusal also names what shuts the way the engine would take
    there instead (core/search/way.py): a door, a fighter, the budget, or that it is open.
    """
    why = step_blocked(state, a, b)
    if why:
        more = (
            _WAY_ROUND[0](state, way) if way is not None and _WAY_ROUND and why.startswith("a wall") else ""
        )
        raise Refusal(WALLS, f"{what} can't step from {_cell(a)} to {_cell(b)}: {why}{more}")


def path_blocked(state: EncounterState, start: tuple[int, ...], cells: Sequence[tuple[int, ...]]) -> str:
    """The first step of a path of king's steps that an edge stops, in words, or ""."""
    if state.grid.edges is None or not state.grid.edges.steps:
        return ""
    here = start
    for cell in cells:
        why = step_blocked(state, here, cell)
        if why:
            return f"from {_cell(here)} to {_cell(cell)}: {why}"
        here = cell
    return ""


def sight_walls(
    grid: Grid, doors: Mapping[str, str], a: tuple[int, ...], b: tuple[int, ...], *, sight: bool = True
) -> list[str]:
    """Every blocking edge the sight line between the centres of cells a and b touches, in words.

    `doors`: each door's state (EncounterState.doors; a door not named is closed).
    `sight`: the edges that stop sight (walls of kind sight or both, shut doors); False
    asks the edges that stop a body instead (walls of kind movement or both, shut doors),
    along the same line (see `reach_blocked`).
    Exact (doubled coordinates and fractions) and symmetric: the edges are those the
    segment's points touch, the same set whichever end the line is drawn from.
    """
    edges: Edges | None = grid.edges
    if edges is None:
        return []
    from fractions import Fraction  # only a sight check needs it: kept out of every command's start-up

    found: dict[int, str] = {}
    w, h = edges.width, edges.height
    for axis in (0, 1):  # 0: the vertical grid lines x = X; 1: the horizontal ones y = Y
        lo, hi = sorted((a[axis], b[axis]))
        d = b[axis] - a[axis]
        for line in range(lo + 1, hi + 1):
            # Where the segment crosses the grid line, on the other axis, in cells (exact).
            t = Fraction(2 * line - (2 * a[axis] + 1), 2 * d)
            other = (2 * a[1 - axis] + 1) + (b[1 - axis] - a[1 - axis]) * 2 * t  # doubled coordinate
            k = other / 2
            spans = [int(k) - 1, int(k)] if k.denominator == 1 else [int(k // 1)]
            for s in spans:  # the edge on this line from s to s + 1 on the other axis
                if axis == 0:
                    c1, c2 = (line - 1, s), (line, s)
                else:
                    c1, c2 = (s, line - 1), (s, line)
                if not all(0 <= c[0] < w and 0 <= c[1] < h for c in (c1, c2)):
                    continue
                n = edges.number(c1, c2)
                what = edges.blocks(n, doors, sight)
                if what and n not in found:
                    found[n] = _between(what, c1, c2)
    return [found[n] for n in sorted(found)]


def reach_blocked(state: EncounterState, a: tuple[int, ...], b: tuple[int, ...]) -> str:
    """The first wall or shut door between two fighters' cells that stops a body, in words ("" if none).

    tabletrail/walls: a melee Reach, a grab or a shove reaches along the line between the
    two cells' centres, so it is stopped by the edges on that line that stop a body: a
    wall of kind movement or both, a shut door (an enemy behind a thin wall is not within
    Reach, though the cells touch). A wall that stops only sight (a curtain, furniture an
    imported map drew as an outline) does not: the documents make Reach, a grab, a shove
    and a push a matter of distance and Brawn, a body's reach, never of seeing the target.
    """
    if state.grid.edges is None or not state.grid.edges.steps:
        return ""
    found = sight_walls(state.grid, state.doors, a, b, sight=False)
    return found[0] if found else ""


def door_named(state: EncounterState, text: str) -> tuple[str, tuple[int, int], tuple[int, int]]:
    """A door a command names ("5,2|6,2", either cell first): its name and cells, or a refusal."""
    try:
        a, b = door_cells(text)
    except ValueError as exc:
        raise Refusal(DOORS, str(exc)) from None
    name = door_name(a, b)
    edges: Edges | None = state.grid.edges
    if edges is None or name not in edges.names:
        known = ", ".join(edges.names) if edges is not None and edges.names else "none"
        raise Refusal(DOORS, f"there is no door between {_cell(a)} and {_cell(b)} (doors: {known})")
    return name, a, b


def wall_lines(scenario: Scenario, blocks: str | None = None) -> list[list[int]]:
    """The map's walls as merged maximal segments [x1, y1, x2, y2] in grid corners (for drawing).

    Overlapping or touching segments along one grid line become one; border walls are kept.
    `blocks`: only the walls that stop exactly that ("both", "movement", "sight"); None: every wall.
    """
    vertical: dict[int, set[int]] = {}  # grid line x -> the rows y whose edge (x, y)-(x, y+1) is walled
    horizontal: dict[int, set[int]] = {}  # grid line y -> the columns x whose edge (x, y)-(x+1, y) is walled
    kinds = _edge_kinds(scenario)
    for (x, y, side), kind in kinds.items():
        if blocks is not None and kind != blocks:
            continue
        if side == EAST:
            vertical.setdefault(x + 1, set()).add(y)
        else:
            horizontal.setdefault(y + 1, set()).add(x)
    out: list[list[int]] = []
    for line, spans in sorted(vertical.items()):
        out.extend([line, lo, line, hi] for lo, hi in _runs(spans))
    for line, spans in sorted(horizontal.items()):
        out.extend([lo, line, hi, line] for lo, hi in _runs(spans))
    return out


def _edge_kinds(scenario: Scenario) -> dict[tuple[int, int, int], str]:
    """Each walled edge (x, y, side), border edges included, with what its walls together stop."""
    bits: dict[tuple[int, int, int], int] = {}
    for text, blocks in scenario.wall_kinds():
        flags = (MOVE_FLAG if blocks != SIGHT else 0) | (SIGHT_FLAG if blocks != MOVEMENT else 0)
        for edge in wall_edges(wall_segment(text)):
            bits[edge] = bits.get(edge, 0) | flags
    names = {MOVE_FLAG: MOVEMENT, SIGHT_FLAG: SIGHT, MOVE_FLAG | SIGHT_FLAG: BOTH}
    return {edge: names[b] for edge, b in bits.items()}


def _runs(units: set[int]) -> Iterator[tuple[int, int]]:
    """{1, 2, 3, 7} -> (1, 4), (7, 8): consecutive unit edges as [start, end) runs."""
    start: int | None = None
    prev = 0
    for u in sorted(units):
        if start is None:
            start = prev = u
        elif u == prev + 1:
            prev = u
        else:
            yield start, prev + 1
            start = prev = u
    if start is not None:
        yield start, prev + 1


def door_list(state: EncounterState) -> list[dict[str, object]]:
    """Every door of the map with its cells and its state now, in the scenario's order (for views)."""
    out: list[dict[str, object]] = []
    for door in state.scenario.door_list():
        a, b = door_cells(door.at)
        out.append(
            {"at": door.at, "cells": [list(a), list(b)], "state": state.doors.get(door.at, door.state)}
        )
    return out
