"""A map's walls and doors on cell edges, held compactly: the data the grid carries (core/board/geometry.py).

Apart from core/board/walls.py, which answers what these edges stop, so that the grid can hold them
and the answers can read the grid without the two modules importing each other.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from tabletrail.events.scenario.reader import wall_edges
from tabletrail.events.scenario_spec import BOTH, MOVEMENT, SIGHT, Scenario, door_cells, wall_segment

EAST, SOUTH = 0, 1  # an edge is (x, y, side): east of cell x,y, or south of it
MOVE_FLAG, SIGHT_FLAG = 1, 4  # a cell's flag bits for its east edge (shifted by 1 for its south edge)
MOVE_FLAGS = 3  # both edges' movement bits
OPEN = "open"


class Edges:
    """The walls and doors of one map, compactly: one byte of flags per cell, built once per scenario.

    Per cell, bit 0: a wall on its east edge stops movement; bit 1: one on its south edge
    does; bits 2 and 3: the same edges stop sight (a wall of both kinds sets both bits).
    `doors` maps an edge's number ((y * width + x) * 2 + side) to the door's name
    ("5,2|6,2"); a door that is not open stops both. Edges on the map's border are left
    out: nothing crosses them. `steps`: False when nothing on the map stops a step (only
    sight-stopping walls), so the engine walks it as a map without walls.
    """

    __slots__ = ("width", "height", "bits", "doors", "names", "steps")

    def __init__(self, scenario: Scenario, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.bits = bytearray(width * height)
        for text, blocks in scenario.wall_kinds():
            flags = (MOVE_FLAG if blocks != SIGHT else 0) | (SIGHT_FLAG if blocks != MOVEMENT else 0)
            for x, y, side in wall_edges(wall_segment(text)):
                if 0 <= x < width and 0 <= y < height and (x + 1 < width if side == EAST else y + 1 < height):
                    self.bits[y * width + x] |= flags << side
        self.doors: dict[int, str] = {}
        self.names: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {}
        for door in scenario.door_list():
            a, b = door_cells(door.at)
            self.doors[self.number(a, b)] = door.at
            self.names[door.at] = (a, b)
        self.steps = bool(self.doors) or any(byte & MOVE_FLAGS for byte in self.bits)

    @classmethod
    def of(cls, scenario: Scenario, width: int, height: int) -> Edges | None:
        """The map's edges, or None when it has no walls and no doors (the engine then never looks)."""
        if not scenario.wall_specs() and not scenario.door_list():
            return None
        return cls(scenario, width, height)

    def number(self, a: tuple[int, ...], b: tuple[int, ...]) -> int:
        """The number of the edge between two orthogonally adjacent cells."""
        (x, y), side = ((min(a[0], b[0]), a[1]), EAST) if a[1] == b[1] else ((a[0], min(a[1], b[1])), SOUTH)
        return (y * self.width + x) * 2 + side

    def walled(self, n: int) -> bool:
        """Is edge n a wall that stops movement (a body: steps, reaches, push-offs)?"""
        return bool(self.bits[n >> 1] >> (n & 1) & 1)

    def sight_walled(self, n: int) -> bool:
        """Is edge n a wall that stops sight?"""
        return bool(self.bits[n >> 1] >> (n & 1) & SIGHT_FLAG)

    def kind(self, n: int) -> str:
        """What the wall on edge n stops: "both", "movement", "sight", or "" for no wall."""
        bits = self.bits[n >> 1] >> (n & 1) & (MOVE_FLAG | SIGHT_FLAG)
        return {0: "", MOVE_FLAG: MOVEMENT, SIGHT_FLAG: SIGHT}.get(bits, BOTH)

    def blocks(self, n: int, doors: Mapping[str, str], sight: bool = False) -> str:
        """What on edge n stops a step (with `sight`, a sight line): "a wall", "the closed door 5,2|6,2"."""
        if self.sight_walled(n) if sight else self.walled(n):
            return "a wall"
        name = self.doors.get(n)
        if name is not None:
            state = doors.get(name, "closed")
            if state != OPEN:
                return f"the {state} door {name}"
        return ""

    def corner(self, cx: int, cy: int) -> Iterator[tuple[int, tuple[int, int], tuple[int, int]]]:
        """The edges meeting at grid corner cx,cy, each with the two cells it separates."""
        w, h = self.width, self.height
        for a, b in (
            ((cx - 1, cy - 1), (cx, cy - 1)),  # the vertical edge above the corner
            ((cx - 1, cy), (cx, cy)),  # the vertical edge below it
            ((cx - 1, cy - 1), (cx - 1, cy)),  # the horizontal edge left of it
            ((cx, cy - 1), (cx, cy)),  # the horizontal edge right of it
        ):
            if all(0 <= c[0] < w and 0 <= c[1] < h for c in (a, b)):
                yield self.number(a, b), a, b
