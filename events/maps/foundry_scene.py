"""Foundry VTT scenes (the JSON of a scene's "Export Data", or the scene the bridge module sends) turned
into a tabletrail scenario.

A Foundry scene is one JSON document: its size in pixels (`width`, `height`), the
`padding` around it, the grid (`grid.size` pixels a cell, `grid.type`, `grid.distance`
and `grid.units` a cell; before v10 `grid` was the size and `gridType`, `gridDistance`,
`shiftX`/`shiftY` sat beside it), the walls (`c`: the two ends in canvas pixels;
`move` and `sight` (before v10 `sense`) say what they stop, `door` and `ds` make a
door and say its state) and the tokens (`x`, `y` their top-left corner in canvas
pixels, `width`/`height` in cells, `actorId`, `disposition`, `name`). This module is
pure: a document in, the scenario text, which fighter each token became and a report
out; the CLI (app/cli/maps.py) and the server (app/web/api/foundry.py) use it.

The geometry is Universal VTT's (events/maps/uvtt.py), reused: coordinates are turned
into grid units of the scene's grid, shifted so the scene's first whole cell is
0,0, and each wall is snapped to cell edges there (a segment along a grid line
becomes edges on it, a diagonal one a staircase), its approximations counted in the
same report. A door wall becomes a door on each edge it spans (open, closed or
locked as `ds` says). Only square grids are played: a hex or gridless scene is
refused in words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tabletrail.events.errors import InputError
from tabletrail.events.limits import MAX_FIGHTERS, MAX_MAP_CELLS, MAX_MAP_SIDE
from tabletrail.events.maps.uvtt import (
    _BOTH,
    _MOVE,
    _SIGHT,
    DEFAULT_TOLERANCE,
    EXAMPLE_STATS,
    Door,
    Edge,
    Report,
    _Fields,
    _kind,
    _on_rim,
    _segment_edges,
    _string,
    lay_walls,
    map_lines,
    read,
)

MAX_SCENE_BYTES = 40_000_000  # an export carries its thumbnail and every token's data: large, not huge
MAX_SCENE_WALLS = 20_000  # wall documents of one scene (a traced cave has a few thousand)
MAX_SCENE_TOKENS = 2_000  # token documents (a scenario keeps MAX_FIGHTERS of them)
MAX_GRID_PIXELS = 10_000  # pixels a cell
MAX_SCENE_PIXELS = 400_000  # pixels a side: a map of 4,000 cells of 100 px

GRID_TYPES = {0: "gridless", 1: "square", 2: "hex (odd rows)", 3: "hex (even rows)", 4: "hex (odd columns)",
              5: "hex (even columns)"}  # fmt: skip
# Sides from a token's disposition (CONST.TOKEN_DISPOSITIONS), unless the caller names its side (its owner).
DISPOSITIONS = {1: "friendly", 0: "neutral", -1: "hostile", -2: "secret"}
# v10+ wall senses (CONST.WALL_SENSE_TYPES): 0 none, 10 limited, 20 normal, 30 proximity, 40 distance;
# before v10, `sense` was 0 none, 1 normal, 2 limited, and `move` 0 or 1.
SENSE_NAMES = {10: "limited", 30: "proximity", 40: "distance"}
DOOR_STATES = {0: "closed", 1: "open", 2: "locked"}
SIZES_BY_CELLS = ((0.5, "tiny"), (1, "medium"), (2, "large"), (3, "huge"))  # else gargantuan


def is_scene(raw: Any) -> bool:
    """A Foundry scene, told by its content: pixels and a grid, walls as `c` lists, no UVTT `resolution`."""
    if not isinstance(raw, dict) or "resolution" in raw:
        return False
    grid = raw.get("grid")
    has_grid = (
        isinstance(grid, dict) and "size" in grid or isinstance(grid, int | float) and "gridType" in raw
    )
    return has_grid and "width" in raw and "height" in raw and ("walls" in raw or "tokens" in raw)


@dataclass
class SceneReport(Report):
    """What the import of a Foundry scene did: the UVTT report's counts, and the scene's own."""

    grid_pixels: float = 0
    grid_distance: float = 0
    grid_units: str = ""
    wall_documents: int = 0
    walls_inert: int = 0  # walls that stop neither movement nor sight (a sound or light wall)
    walls_one_way: int = 0  # `dir` set: they stop both ways here
    walls_sense: dict[str, int] = field(default_factory=dict)  # limited/proximity/distance sight, as sight
    door_walls: int = 0
    secret_doors: int = 0
    doors_locked: int = 0
    tokens: int = 0
    fighters: int = 0
    tokens_off_map: int = 0
    tokens_stacked: int = 0  # a token on a cell another took first: left out
    stats_assumed: dict[str, float] = field(default_factory=dict)  # stats no token gave, example values

    def lines(self) -> list[str]:
        out = [
            f"grid: square, {self.grid_pixels:g} pixels a cell"
            + (f", {self.grid_distance:g} {self.grid_units} a cell in Foundry" if self.grid_distance else ""),
        ]
        # The UVTT report's wall lines (the snapping is the same), less what a scene has none of.
        shared = super().lines()
        edges = _count(self.wall_edges, "cell edge")
        out += [shared[0], f"walls: {_count(self.walls, 'segment')} on {edges}, from "
                f"{_count(self.wall_documents, 'wall document')}"]  # fmt: skip
        if self.wall_edges:
            sight = self.wall_edges - self.both_edges
            out.append(f"  {_count(self.both_edges, 'edge')} stop movement and sight, {sight} sight only")
        doors_at = next(i for i, line in enumerate(shared) if line.startswith("doors:"))
        out += [line for line in shared[2:doors_at] if "stop movement and sight" not in line]  # the snapping
        if self.walls_inert:
            out.append(f"  {_count(self.walls_inert, 'wall')} stopping neither movement nor sight left out")
        if self.walls_one_way:
            out.append(f"  approximated: {_count(self.walls_one_way, 'one-way wall')} made to stop both ways")
        for sense, count in sorted(self.walls_sense.items()):
            out.append(f"  approximated: {_count(count, 'wall')} of {sense} sight made to block it fully")
        out.append(
            f"doors: {_count(self.doors, 'cell edge')} from {_count(self.door_walls, 'door wall')}"
            + (f" ({self.doors_open} open, {self.doors_locked} locked)" if self.doors else "")
        )
        if self.secret_doors:
            out.append(
                f"  {_count(self.secret_doors, 'secret door')} are plain doors here (the GM's to reveal)"
            )
        if self.walls_under_doors:
            out.append(f"  {_count(self.walls_under_doors, 'wall edge')} under doors left to the doors")
        out.append(f"fighters: {self.fighters} from {_count(self.tokens, 'token')}")
        if self.tokens_off_map:
            out.append(f"  {_count(self.tokens_off_map, 'token')} off the scene left out")
        if self.tokens_stacked:
            out.append(f"  {_count(self.tokens_stacked, 'token')} on a cell another token took left out")
        if self.stats_assumed:
            said = ", ".join(f"{k} {v:g}" for k, v in self.stats_assumed.items())
            out.append(f"  assumed for fighters whose actor did not say: {said} (edit the scenario)")
        out.append("picture: the scene's background stays in Foundry (not carried)")
        return out + self.notes

    def data(self) -> dict[str, Any]:
        out = super().data()
        for key in ("polylines", "object_polylines", "objects", "objects_ignored", "portals", "doors_turned",
                    "doors_moved", "doors_wide", "doors_off_map", "windows", "lights", "picture",
                    "picture_mismatch", "sight_edges", "movement_edges"):  # fmt: skip
            out.pop(key, None)
        return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class Placed:
    """A token become a fighter: the fighter's id, the cell it stands on, its side."""

    token: str
    fighter: str
    at: tuple[int, int]
    side: str
    name: str


@dataclass
class SceneImport:
    """A converted scene: the scenario text, the fighters made from tokens, what happened."""

    toml: str
    fighters: list[Placed]
    report: SceneReport
    origin: tuple[float, float]  # the canvas pixel of cell 0,0's top-left corner
    grid: float  # pixels a cell

    def cell_of(self, x: float, y: float) -> tuple[int, int]:
        """The cell a canvas point lies in."""
        return math.floor((x - self.origin[0]) / self.grid), math.floor((y - self.origin[1]) / self.grid)


@dataclass(frozen=True)
class TokenSpec:
    """What the caller knows of a token beyond the scene: its side (from its owner) and its stats (from
    its actor, through the GM's mapping); `skip` leaves it off the board."""

    side: str | None = None
    stats: Mapping[str, float] = field(default_factory=dict)
    skip: bool = False


def convert_scene(
    raw: dict[str, Any],
    *,
    ruleset: str,
    source: str,
    name: str | None = None,
    stats: Iterable[str] = (),
    tokens: Mapping[str, TokenSpec] | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    need_tokens: bool = False,
) -> SceneImport:
    """The scenario for a Foundry scene document. `stats` are the fighter stats the ruleset needs a
    value for; `tokens` says, by token id, a token's side and stats (the bridge module reads them from
    owners and actors); a stat no token gave takes an example value, said in the report. A scene with no
    token on the map is refused when `need_tokens` (a combat to referee), else given one example fighter to
    edit (a map exported before its tokens were placed)."""
    f = _Fields(source)
    tokens = tokens or {}
    report = SceneReport(tolerance=tolerance)
    size, origin = _grid(f, raw, report)
    width, height = report.width, report.height

    def grid_units(px: float, py: float) -> tuple[float, float]:
        return (px - origin[0]) / size, (py - origin[1]) / size

    kinds, doors, locked = _walls(f, raw, grid_units, report)
    walls = lay_walls(kinds, doors, report)
    report.both_edges = sum(b == _BOTH for b in kinds.values())
    report.doors = len(doors)
    report.doors_open = sum(not d.closed for d in doors.values())
    placed, specs = _fighters(f, raw, tokens, tuple(stats), size, grid_units, width, height, report)
    if not specs and need_tokens:
        raise f.fail(
            "tokens", "no token stands on the scene: place the combatants' tokens, then start refereeing"
        )
    if not specs:  # the example fighter a GM renames and moves, as for a Universal VTT map
        at = [width // 2, height // 2]
        values = {s: report.stats_assumed.setdefault(s, EXAMPLE_STATS.get(s, 1)) for s in stats}
        specs = [{"id": "scout", "name": "scout", "side": "blue", "at": at, "size": "medium", "stats": values,
                  "token": "none: an example to edit"}]  # fmt: skip
        report.notes.append(f"no token on the scene: one example fighter, scout, stands at {at[0]},{at[1]}")
    title = name if name is not None else raw.get("name") if isinstance(raw.get("name"), str) else "scene"
    text = _scenario_text(
        name=str(title), ruleset=ruleset, source=source, report=report, walls=walls, doors=doors,
        fighters=specs, locked=locked,
    )  # fmt: skip
    return SceneImport(toml=text, fighters=placed, report=report, origin=origin, grid=size)


def convert(data: bytes, *, ruleset: str, source: str, name: str, stats: Iterable[str] = (),
            tolerance: float = DEFAULT_TOLERANCE) -> SceneImport:  # fmt: skip
    """A scene export's bytes (the CLI's way in): read, bounded, converted."""
    raw = read(data, source, "a Foundry scene", MAX_SCENE_BYTES, "MAX_SCENE_BYTES")
    if not is_scene(raw):
        raise InputError(
            f"{source}: not a Foundry scene: expected width, height, grid and walls or tokens "
            '(the JSON of a scene\'s "Export Data")'
        )
    return convert_scene(raw, ruleset=ruleset, source=source, name=name, stats=stats, tolerance=tolerance)


def _grid(f: _Fields, raw: dict[str, Any], report: SceneReport) -> tuple[float, tuple[float, float]]:
    """The grid's pixels a cell and the canvas pixel of the top-left corner of the first cell the
    scene covers (cell 0,0); the map's size goes into the report."""
    grid = raw.get("grid")
    if isinstance(grid, dict):
        kind = grid.get("type", 1)
        size = f.number(grid.get("size", 100), "grid.size", MAX_GRID_PIXELS)
        distance, units = grid.get("distance", 0), grid.get("units", "")
        shift_px = (0.0, 0.0)  # v10+: the background's offset moves the picture, never the grid
    else:
        kind = raw.get("gridType", 1)
        size = f.number(grid, "grid", MAX_GRID_PIXELS)
        distance, units = raw.get("gridDistance", 0), raw.get("gridUnits", "")
        shift_px = (f.number(raw.get("shiftX", 0), "shiftX"), f.number(raw.get("shiftY", 0), "shiftY"))
    if kind != 1 or isinstance(kind, bool):
        what = GRID_TYPES.get(kind, f"of type {kind!r}") if type(kind) is int else f"of type {_kind(kind)}"
        raise f.fail(
            "grid.type",
            f"a {what} grid; tabletrail plays on squares: set the scene's grid to Square "
            "(Configure Scene > Grid) and export it again",
        )
    if size <= 0:
        raise f.fail("grid.size", f"expected pixels a cell above 0, got {size:g}")
    width = f.number(raw.get("width"), "width", MAX_SCENE_PIXELS)
    height = f.number(raw.get("height"), "height", MAX_SCENE_PIXELS)
    if width <= 0 or height <= 0:
        raise f.fail("width", f"expected a scene of some size, got {width:g} x {height:g} pixels")
    padding = f.number(raw.get("padding", 0.25), "padding", 10)
    # Foundry pads the scene by whole cells on each side, then the picture starts there (less a v9 shift).
    pad = (math.ceil(padding * width / size) * size, math.ceil(padding * height / size) * size)
    start = (pad[0] - shift_px[0], pad[1] - shift_px[1])
    first = (math.floor(start[0] / size + 1e-9), math.floor(start[1] / size + 1e-9))
    cols = math.ceil((start[0] + width) / size - 1e-9) - first[0]
    rows = math.ceil((start[1] + height) / size - 1e-9) - first[1]
    if cols > MAX_MAP_SIDE or rows > MAX_MAP_SIDE or cols * rows > MAX_MAP_CELLS:
        raise f.fail(
            "width",
            f"a {cols} x {rows} map; the limits are {MAX_MAP_SIDE} a side (MAX_MAP_SIDE) and "
            f"{MAX_MAP_CELLS:,} cells (MAX_MAP_CELLS)",
        )
    report.width, report.height, report.pixels_per_grid = cols, rows, size
    report.grid_pixels = size
    report.grid_distance = (
        distance if isinstance(distance, int | float) and not isinstance(distance, bool) else 0
    )
    report.grid_units = units if isinstance(units, str) else ""
    return size, (first[0] * size, first[1] * size)


def _walls(
    f: _Fields, raw: dict[str, Any], grid_units: Any, report: SceneReport
) -> tuple[dict[Edge, int], dict[Edge, Door], set[str]]:
    """Each wall document's cell edges (with what it stops), each door wall's doors by edge, and the
    doors locked (`ds` 2)."""
    docs = f.items(raw.get("walls"), "walls")
    if len(docs) > MAX_SCENE_WALLS:
        raise f.fail("walls", f"{len(docs):,} walls; a scene may have {MAX_SCENE_WALLS:,} (MAX_SCENE_WALLS)")
    report.wall_documents = report.polylines = len(docs)
    kinds: dict[Edge, int] = {}
    doors: dict[Edge, Door] = {}
    locked: set[str] = set()
    width, height = report.width, report.height
    for i, doc in enumerate(docs):
        where = f"walls[{i}]"
        doc = f.table(doc, where)
        c = f.items(doc.get("c"), f"{where}.c")
        if len(c) != 4:
            raise f.fail(f"{where}.c", f"expected the wall's two ends [x0, y0, x1, y1], got {len(c)} numbers")
        x0, y0, x1, y1 = (f.number(v, f"{where}.c[{j}]", 10 * MAX_SCENE_PIXELS) for j, v in enumerate(c))
        flags = _stops(f, doc, where, report)
        door = doc.get("door", 0)
        if door not in (0, 1, 2):
            raise f.fail(f"{where}.door", f"expected 0 (none), 1 (door) or 2 (secret door), got {door!r}")
        if not flags and not door:
            report.walls_inert += 1
            continue
        if doc.get("dir", 0) not in (0, None):
            report.walls_one_way += 1
        edges = _segment_edges(
            grid_units(x0, y0), grid_units(x1, y1), width, height, report.tolerance, report
        )
        rim = {e for e in edges if _on_rim(e, width, height)}
        report.rim_edges += len(rim)
        edges -= rim
        if door:
            state = doc.get("ds", 0)
            if state not in DOOR_STATES:
                raise f.fail(f"{where}.ds", f"expected 0 (closed), 1 (open) or 2 (locked), got {state!r}")
            report.door_walls += 1
            report.secret_doors += door == 2
            for e in sorted(edges):
                if e not in doors:
                    doors[e] = Door(_cells(e), state != 1)
                    if state == 2:
                        locked.add(doors[e].at)
                        report.doors_locked += 1
            continue
        for e in edges:
            kinds[e] = kinds.get(e, 0) | flags
    ordered = dict(sorted(doors.items(), key=lambda kv: (kv[1].cells[0][1], kv[1].cells[0][0], kv[0][0])))
    return kinds, ordered, locked


def _stops(f: _Fields, doc: dict[str, Any], where: str, report: SceneReport) -> int:
    """What a wall document stops, as flags: movement (`move`), sight (`sight`, before v10 `sense`)."""
    move = doc.get("move", 20)
    if "sight" in doc or "sense" not in doc:
        sight = doc.get("sight", 20)
        normal, names = 20, SENSE_NAMES
    else:  # before v10: sense 0 none, 1 normal, 2 limited
        sight = doc.get("sense", 1)
        normal, names = 1, {2: "limited"}
    for key, value in (("move", move), ("sight" if normal == 20 else "sense", sight)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise f.fail(f"{where}.{key}", f"expected a number (0 for none), got {_kind(value)}")
    if sight and sight != normal:
        name = names.get(sight, f"type {sight}")
        report.walls_sense[name] = report.walls_sense.get(name, 0) + 1
    return (_MOVE if move else 0) | (_SIGHT if sight else 0)


def _cells(e: Edge) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two cells an edge lies between."""
    kind, x, y = e
    return ((x, y - 1), (x, y)) if kind == "h" else ((x - 1, y), (x, y))


_ID = re.compile(r"[^a-z0-9]+")


def slug(name: str, default: str) -> str:
    """A name as lower-case letters and digits joined by - (at most 40), or `default` if none are left."""
    return _ID.sub("-", name.lower()).strip("-")[:40] or default


def fighter_id(name: str, taken: set[str]) -> str:
    """A fighter id from a token's name, unique among `taken` (which it joins)."""
    base = slug(name, "token")
    fid, n = base, 2
    while fid in taken:
        fid, n = f"{base}-{n}", n + 1
    taken.add(fid)
    return fid


def _size(cells: float) -> str:
    for most, name in SIZES_BY_CELLS:
        if cells <= most:
            return name
    return "gargantuan"


def _fighters(
    f: _Fields,
    raw: dict[str, Any],
    tokens: Mapping[str, TokenSpec],
    stats: tuple[str, ...],
    size: float,
    grid_units: Any,
    width: int,
    height: int,
    report: SceneReport,
) -> tuple[list[Placed], list[dict[str, Any]]]:
    """Each token on the map as a fighter: the cell under its middle (for a large token, the
    top-left cell of its middle four), its side from its owner (as the caller says) or disposition."""
    docs = f.items(raw.get("tokens"), "tokens")
    if len(docs) > MAX_SCENE_TOKENS:
        raise f.fail(
            "tokens", f"{len(docs):,} tokens; a scene may have {MAX_SCENE_TOKENS:,} (MAX_SCENE_TOKENS)"
        )
    report.tokens = len(docs)
    taken: set[str] = set()
    cells: set[tuple[int, int]] = set()
    placed: list[Placed] = []
    specs: list[dict[str, Any]] = []
    for i, doc in enumerate(docs):
        where = f"tokens[{i}]"
        doc = f.table(doc, where)
        tid = doc.get("_id") or doc.get("id") or f"token{i}"
        if not isinstance(tid, str):
            raise f.fail(f"{where}._id", f"expected the token's id, got {_kind(tid)}")
        spec = tokens.get(tid, TokenSpec())
        if spec.skip:
            continue
        x, y = f.number(doc.get("x", 0), f"{where}.x"), f.number(doc.get("y", 0), f"{where}.y")
        w = f.number(doc.get("width", 1), f"{where}.width", 100)
        h = f.number(doc.get("height", 1), f"{where}.height", 100)
        gx, gy = grid_units(x + w * size / 2, y + h * size / 2)
        cell = (math.ceil(gx - 1 - 1e-9) if w % 2 == 0 else math.floor(gx),
                math.ceil(gy - 1 - 1e-9) if h % 2 == 0 else math.floor(gy))  # fmt: skip
        if not (0 <= cell[0] < width and 0 <= cell[1] < height):
            report.tokens_off_map += 1
            continue
        if cell in cells:
            report.tokens_stacked += 1
            continue
        if len(specs) >= MAX_FIGHTERS:
            raise f.fail(
                "tokens", f"more than {MAX_FIGHTERS} tokens on the map; a scenario holds {MAX_FIGHTERS}"
            )
        cells.add(cell)
        name = doc.get("name") if isinstance(doc.get("name"), str) and doc.get("name") else tid
        fid = fighter_id(str(name), taken)
        disposition = doc.get("disposition", 0)
        side = spec.side or DISPOSITIONS.get(disposition if isinstance(disposition, int) else 0, "neutral")
        values: dict[str, float] = {}
        for s in stats:
            if s in spec.stats:
                values[s] = spec.stats[s]
            else:
                values[s] = report.stats_assumed.setdefault(s, EXAMPLE_STATS.get(s, 1))
        for s, v in spec.stats.items():
            values.setdefault(s, v)
        specs.append({"id": fid, "name": str(name), "side": side, "at": list(cell), "size": _size(max(w, h)),
                      "stats": values, "token": tid})  # fmt: skip
        placed.append(Placed(token=tid, fighter=fid, at=cell, side=side, name=str(name)))
    report.fighters = len(placed)
    return placed, specs


def _number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _scenario_text(
    *,
    name: str,
    ruleset: str,
    source: str,
    report: SceneReport,
    walls: list[tuple[str, str]],
    doors: dict[Edge, Door],
    fighters: list[dict[str, Any]],
    locked: set[str],
) -> str:
    """The scenario file, written the way a GM would write one (so it reads and edits by hand)."""
    intro = f"# Imported from the Foundry VTT scene {_string(name)} ({source.rsplit('/', 1)[-1]})."
    lines = map_lines(
        intro=intro, name=name, ruleset=ruleset, report=report, walls=walls, doors=doors,
        locked=frozenset(locked),
    )  # fmt: skip
    # A scene's sight-only walls are walls, not a map's objects: the comment says so.
    lines = [line.replace("objects (objects_line_of_sight)", "sight-only walls") for line in lines]
    for spec in fighters:
        lines += [
            f"[[fighters]]                     # Foundry token: {spec['token']}",
            f"id = {_string(spec['id'])}",
            f"name = {_string(spec['name'])}",
            f"side = {_string(spec['side'])}",
            f"at = [{spec['at'][0]}, {spec['at'][1]}]",
            *([f"size = {_string(spec['size'])}"] if spec["size"] != "medium" else []),
            *(f"{k} = {_number(v)}" for k, v in spec["stats"].items()),
            "",
        ]
    return "\n".join(lines)
