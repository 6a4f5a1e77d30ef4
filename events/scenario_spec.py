"""The scenario as a log carries it: the map, the fighters, the settings, walls and doors (the
structs of an encounter-started event), and how a wall's segment and a door's cells are written.
Reading and checking a scenario file is events/scenario/reader.py's job (events/scenario/reader.py)."""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): msgspec would
# compile each Struct field's annotation string when a command first builds a decoder (test_cli_fast).
from collections.abc import Iterator

import msgspec
from msgspec import UNSET, UnsetType
from tabletrail.events.picture import PictureSpec
from tabletrail.events.plugins import terrain_tags
from tabletrail.events.terrain import KNOWN_TAGS as KNOWN_TAGS  # the shared ones, named here before
from tabletrail.events.terrain import TERRAIN_TAGS as TERRAIN_TAGS

Number = int | float
SettingValue = str | int | float | bool

SIZES = ("tiny", "small", "medium", "large", "huge", "gargantuan")


class CellKind(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """One legend entry: what a map character stands for."""

    terrain: str = "floor"
    tags: tuple[str, ...] = ()
    ground: Number = 0  # height of the ground, in units
    height: Number = 0  # height of an obstacle standing on the ground (vault, ledge)
    depth: Number = 0  # depth of water below its surface (a gap is written by its floor: ground)
    climb: int = 0  # climbing difficulty of the surface, 1-3 (speed-meters)

    @property
    def all_tags(self) -> frozenset[str]:
        return frozenset(terrain_tags().get(self.terrain, ()) + self.tags)


class FighterSpec(msgspec.Struct, frozen=True, gc=False):
    id: str
    name: str
    side: str
    at: tuple[int, ...]
    stats: dict[str, Number] = {}
    size: str = "medium"
    tags: tuple[str, ...] = ()
    # A picture for the token: written relative to the scenario file, kept as the path it
    # resolved to when the encounter began (the table view shows it). UNSET, not "", when there is
    # none: an unset field is left out of the log line, so older logs still verify byte for byte.
    image: str | UnsetType = UNSET

    @property
    def picture(self) -> str:
        """The token picture's path, or "" for none."""
        return self.image if isinstance(self.image, str) else ""


class SideSpec(msgspec.Struct, frozen=True, gc=False):
    """How the board shows a side: `[sides.blue] colour = "#2f6fd6"` (a #rgb/#rrggbb or a CSS colour name)."""

    colour: str = ""


class DoorSpec(msgspec.Struct, frozen=True, gc=False):
    """A door on the edge between two orthogonally adjacent cells, named "x,y|x,y" (lower cell first)."""

    at: str
    closed: bool = True
    locked: bool = False

    @property
    def state(self) -> str:
        """The door's state when the encounter starts (core/engine/machines.py DOOR)."""
        return "locked" if self.locked else "closed" if self.closed else "open"


# What a wall stops ([map] walls: a plain string stops both; `{ at = "3,1-3,4", blocks = "sight" }` one).
BOTH, MOVEMENT, SIGHT = "both", "movement", "sight"
WALL_BLOCKS = (MOVEMENT, SIGHT, BOTH)


class WallSpec(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """A wall that stops only movement (a window, a railing) or only sight (a curtain, furniture drawn as
    an outline): `{ at = "3,1-3,4", blocks = "sight" }`. A wall that stops both is kept as a plain string,
    so the logs of maps written before walls had kinds keep their bytes."""

    at: str
    blocks: str = BOTH


def wall_segment(text: str) -> tuple[int, int, int, int]:
    """'3,1-3,4' -> (3, 1, 3, 4): a wall along a grid line between two grid corners.

    Corner x,y is the top-left corner of cell x,y. ValueError says what is wrong.
    """
    ends = text.split("-")
    if len(ends) != 2:
        raise ValueError(f"{text!r} is not a wall; write two grid corners x1,y1-x2,y2 such as 3,1-3,4")
    corners = []
    for end in ends:
        parts = end.strip().split(",")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise ValueError(f"{text!r}: {end.strip()!r} is not a grid corner; write x,y with whole numbers")
        corners.append((int(parts[0]), int(parts[1])))
    (x1, y1), (x2, y2) = corners
    if x1 != x2 and y1 != y2:
        raise ValueError(f"{text!r} is diagonal; a wall runs along a grid line (same x, or same y)")
    if (x1, y1) == (x2, y2):
        raise ValueError(f"{text!r} has no length; its two corners are the same")
    return x1, y1, x2, y2


def door_cells(text: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """'6,2|5,2' -> ((5, 2), (6, 2)): the two cells a door stands between, in reading order.

    ValueError says what is wrong (not two cells, or cells that are not orthogonal neighbours).
    """
    ends = text.split("|")
    if len(ends) != 2:
        raise ValueError(f"{text!r} is not a door; write its two cells x,y|x,y such as 5,2|6,2")
    cells = []
    for end in ends:
        parts = end.strip().split(",")
        if len(parts) != 2 or not all(p.strip().lstrip("-").isdigit() for p in parts):
            raise ValueError(f"{text!r}: {end.strip()!r} is not a cell; write x,y with whole numbers")
        cells.append((int(parts[0]), int(parts[1])))
    a, b = sorted(cells, key=lambda c: (c[1], c[0]))
    if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
        raise ValueError(f"{text!r}: a door stands between two cells side by side (not diagonal, not apart)")
    return a, b


def door_name(a: tuple[int, ...], b: tuple[int, ...]) -> str:
    """The one way a door is named: its two cells in reading order, 'x,y|x,y'."""
    first, second = sorted(((a[0], a[1]), (b[0], b[1])), key=lambda c: (c[1], c[0]))
    return f"{first[0]},{first[1]}|{second[0]},{second[1]}"


class Scenario(msgspec.Struct, frozen=True, gc=False):
    """A scenario as checked: the map, the fighters, the settings chosen, the ruleset it is played under."""

    name: str
    ruleset: str
    rows: tuple[str, ...]
    legend: dict[str, CellKind]
    fighters: tuple[FighterSpec, ...]
    seed: int = 0
    settings: dict[str, SettingValue] = {}
    initiative: tuple[str, ...] = ()  # turn order; the fighters' order when empty
    # Per side: its colour on the board. UNSET when the scenario names none (see FighterSpec.image).
    sides: dict[str, SideSpec] | UnsetType = UNSET
    # Walls on cell edges ("x1,y1-x2,y2" along grid lines) and doors between cells: UNSET when the map
    # has none, so logs of maps without them keep their bytes (see FighterSpec.image).
    # A wall is a string when it stops movement and sight, a WallSpec when it stops only one.
    walls: tuple[str | WallSpec, ...] | UnsetType = UNSET
    doors: tuple[DoorSpec, ...] | UnsetType = UNSET
    # The battle-map picture under the grid ([picture]); UNSET when none (see FighterSpec.image).
    picture: PictureSpec | UnsetType = UNSET

    def wall_list(self) -> tuple[str, ...]:
        """Every wall's segment "x1,y1-x2,y2", whatever it stops."""
        return tuple(w if isinstance(w, str) else w.at for w in self.wall_specs())

    def wall_specs(self) -> tuple[str | WallSpec, ...]:
        return self.walls if isinstance(self.walls, tuple) else ()

    def wall_kinds(self) -> Iterator[tuple[str, str]]:
        """Each wall as (segment, what it stops: "both", "movement" or "sight")."""
        for w in self.wall_specs():
            yield (w, BOTH) if isinstance(w, str) else (w.at, w.blocks)

    def door_list(self) -> tuple[DoorSpec, ...]:
        return self.doors if isinstance(self.doors, tuple) else ()

    def side_colours(self) -> dict[str, str]:
        """The colours the scenario gives its sides (none for older scenarios)."""
        sides = self.sides if isinstance(self.sides, dict) else {}
        return {side: spec.colour for side, spec in sides.items() if spec.colour}

    def fighter(self, fighter_id: str) -> FighterSpec | None:
        return next((f for f in self.fighters if f.id == fighter_id), None)
