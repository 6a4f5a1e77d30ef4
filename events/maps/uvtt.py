"""Universal VTT battle maps (`.dd2vtt`, `.df2vtt`, `.uvtt`) turned into a tabletrail scenario.

Dungeondraft, DungeonFog, Arkenforge and Dungeon Alchemist export a map as one
JSON document: `resolution` (`map_origin` and `map_size` in grid cells,
`pixels_per_grid`), walls as polylines in grid units (`line_of_sight`, and
`objects_line_of_sight` for furniture and pillars), `portals` (doors: `position`,
`bounds`, `rotation`, `closed`), `lights`, and the picture as base64 `image`.
This module is pure: bytes in, scenario text + picture bytes + a report out; the
CLI (app/cli/maps.py) writes the files.

tabletrail walls lie on cell edges (scenario `[map] walls`, endpoints are grid
corners), so every wall segment is snapped:

- `map_origin` is the grid position of the picture's top-left corner and the
  frame of every coordinate: coordinates are shifted by its whole part, so the
  scenario grid starts at 0,0 and the grid lines stay on whole numbers (a
  fractional origin is kept as the picture's `origin`);
- each polyline is first simplified (points within `tolerance` cells of the line
  through their neighbours are dropped: the importers' "fidelity");
- each endpoint goes to its nearest grid corner, so the pieces of one polyline
  stay joined; a segment along a grid line becomes edges on it, a diagonal one
  (a cave wall) a staircase of edges that hugs it, and both are counted;
- what lies beyond the map is clipped; edges on the map's rim are left out (the
  rim closes the map already);
- `line_of_sight` walls stop movement and sight; `objects_line_of_sight` (things
  that block light: furniture, plants, pillars, drawn as outlines that snapping
  would turn into whole closed edges) stop only sight by default (`objects`:
  "walls" makes them stop both, "ignore" leaves them out);
- the file's counts (polylines, points, the cells their segments run) are
  bounded before any geometry, so an absurd file is refused at once;
- a portal becomes a door on each cell edge its `bounds` span, across the grid
  line nearest its `position` (the bounds, else `rotation`, say which way it
  runs); the wall edges under a door are left to the door; a portal not closed
  may instead become a window (`open_portals="wall"`): a wall that stops
  movement, not sight.

Lights are not movement: they are counted and left out.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tabletrail.events.errors import InputError
from tabletrail.events.limits import MAX_MAP_CELLS, MAX_MAP_SIDE
from tabletrail.events.picture import MAX_PICTURE_BYTES, Sniffed, sniff

DEFAULT_TOLERANCE = 0.25  # cells: how far a wall may stray from a grid line and still count as on it
MAX_TOLERANCE = 2.0
MAX_UVTT_BYTES = 80_000_000  # a UVTT file holds its picture as base64: a 50 MB picture is 67 MB of text
MAX_COORD = 100_000.0  # grid cells either way: no battle map is this big; a coordinate past it is a mistake
MAX_PIXELS_PER_GRID = 1_000
OPEN_PORTALS = ("door", "wall")  # what a portal that is not `closed` becomes
OBJECTS = ("sight", "walls", "ignore")  # what objects_line_of_sight become (--objects), the default first
# Counted before any geometry, so a file that would take minutes is refused at once (issue 28, item 6):
MAX_UVTT_POLYLINES = 20_000  # wall polylines (line_of_sight and objects_line_of_sight together)
MAX_UVTT_POINTS = 200_000  # their points together
MAX_UVTT_WALL_CELLS = 100_000  # cells their segments run, added up (the edges snapping takes are no more)
MAX_UVTT_PORTALS = 2_000  # portals (a door each edge it spans; a scenario holds MAX_DOORS)
DOOR_TURN_DEGREES = 10.0  # a portal turned more than this from a grid line is reported as turned onto one

# What a fighter needs that its ruleset gives no default for: the example fighter's values.
EXAMPLE_STATS: dict[str, int | float] = {"initiative": 8, "height": 1.5, "movement": 6, "ap": 3, "speed": 6}

Point = tuple[float, float]
Corner = tuple[int, int]
Edge = tuple[str, int, int]  # ("h", x, y): corner x,y to x+1,y; ("v", x, y): corner x,y to x,y+1


@dataclass
class Report:
    """What the import did and what it could only approximate, with counts (the CLI prints it)."""

    width: int = 0
    height: int = 0
    pixels_per_grid: float = 0
    origin: Point = (0.0, 0.0)
    shift: Corner = (0, 0)
    tolerance: float = DEFAULT_TOLERANCE
    polylines: int = 0
    object_polylines: int = 0
    points_simplified: int = 0  # points dropped by the tolerance
    straight: int = 0  # segments along a grid line
    moved: int = 0  # of those, segments that lay more than the tolerance off the line
    diagonal: int = 0  # segments approximated by a staircase
    staircase_edges: int = 0  # the edges those staircases took
    short: int = 0  # segments shorter than a cell: both ends on one corner
    clipped: int = 0  # segments cut at the map's edge
    off_map: int = 0  # segments wholly beyond the map
    rim_edges: int = 0  # edges on the map's rim, left out
    wall_edges: int = 0  # cell edges walled
    walls: int = 0  # merged wall segments written
    objects: str = "sight"  # what objects_line_of_sight became (--objects)
    both_edges: int = 0  # of the cell edges walled: those that stop movement and sight
    sight_edges: int = 0  # those that stop sight only (objects, under --objects sight)
    movement_edges: int = 0  # those that stop movement only (windows, under --open-portals wall)
    objects_ignored: int = 0  # object polylines left out (--objects ignore)
    portals: int = 0
    doors: int = 0
    doors_open: int = 0
    doors_turned: int = 0  # portals turned more than DOOR_TURN_DEGREES, put on the nearest grid line
    doors_moved: int = 0  # portals more than the tolerance off a grid line
    doors_wide: int = 0  # portals wider than one edge (one door per edge)
    doors_off_map: int = 0  # portals on the rim or beyond it: no cell on one side
    walls_under_doors: int = 0
    windows: int = 0  # edges of portals not closed made walls (--open-portals wall)
    lights: int = 0
    picture: dict[str, Any] | None = None  # kind, width, height, bytes (None: the file holds no picture)
    picture_mismatch: str = ""  # the picture's size differs from map_size x pixels_per_grid
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report in plain words, one fact a line; what was approximated says how often."""
        t = f"{self.tolerance:g}"
        out = [
            f"map: {self.width} x {self.height} cells, {self.pixels_per_grid:g} pixels a cell"
            + (f", shifted by {-self.shift[0]},{-self.shift[1]} from map_origin" if any(self.shift) else ""),
            f"walls: {_n(self.walls, 'segment')} on {_n(self.wall_edges, 'cell edge')}, from "
            f"{self.polylines} line_of_sight and {self.object_polylines} objects_line_of_sight polylines",
            *(
                [
                    f"  {_n(self.both_edges, 'edge')} stop movement and sight, {self.sight_edges} sight only "
                    f"(objects: --objects {self.objects}), {self.movement_edges} movement only (windows)"
                ]
                if self.wall_edges
                else []
            ),
            f"  {_n(self.straight, 'segment')} along grid lines"
            + (f" ({self.moved} more than {t} cells off one, moved onto it)" if self.moved else ""),
        ]
        if self.diagonal:
            out.append(
                f"  approximated: {_n(self.diagonal, 'diagonal segment')} became staircases of "
                f"{_n(self.staircase_edges, 'cell edge')}"
            )
        for count, noun, words in (
            (self.points_simplified, "point", f"within {t} cells of a straight line dropped"),
            (self.short, "segment", "shorter than a cell fell on one corner (its neighbours join up)"),
            (self.clipped, "segment", "cut at the map's edge"),
            (self.off_map, "segment", "wholly off the map left out"),
            (self.rim_edges, "edge", "on the map's rim left out (the rim closes the map)"),
        ):
            if count:
                out.append(f"  {_n(count, noun)} {words}")
        if self.objects_ignored:
            out.append(f"  {_n(self.objects_ignored, 'object polyline')} left out (--objects ignore)")
        out.append(
            f"doors: {self.doors} from {_n(self.portals, 'portal')}"
            + (f" ({self.doors_open} open: portals not closed)" if self.doors_open else "")
        )
        for count, noun, words in (
            (self.doors_wide, "portal", "wider than one cell edge: one door per edge"),
            (self.doors_turned, "portal", f"turned more than {DOOR_TURN_DEGREES:g} degrees off a grid line"),
            (self.doors_moved, "portal", f"more than {t} cells off a grid line, moved onto it"),
            (self.doors_off_map, "portal", "on the map's rim or beyond it left out"),
            (self.walls_under_doors, "wall edge", "under doors left to the doors"),
            (self.windows, "edge", "of portals not closed made windows: walls for movement, not sight"),
        ):
            if count:
                out.append(f"  {_n(count, noun)} {words}")
        if self.lights:
            out.append(f"not mapped: {_n(self.lights, 'light')} (tabletrail rules movement, not light)")
        if self.picture is None:
            out.append("picture: none in the file (image is empty or missing)")
        else:
            p = self.picture
            out.append(f"picture: {p['kind'].upper()}, {p['width']} x {p['height']} pixels")
        if self.picture_mismatch:
            out.append(f"  {self.picture_mismatch}")
        out += self.notes
        return out

    def data(self) -> dict[str, Any]:
        """The report as plain data, for --json."""
        out = {k: v for k, v in self.__dict__.items() if k != "notes"}
        out["origin"] = list(self.origin)
        out["shift"] = list(self.shift)
        out["notes"] = list(self.notes)
        return out


def _n(count: int, noun: str) -> str:
    """'1 portal', '3 portals'."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


@dataclass
class Imported:
    """A converted map: the scenario text, its picture (None: the file had none), what happened."""

    toml: str
    picture: bytes | None
    report: Report


class _Fields:
    """Reads the JSON document, each mistake an InputError naming the file and the field."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, what: str) -> InputError:
        return InputError(f"{self.source}: {where}: {what}")

    def table(self, raw: Any, where: str) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise self.fail(where, f"expected an object, got {_kind(raw)}")
        return raw

    def items(self, raw: Any, where: str) -> list[Any]:
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise self.fail(where, f"expected a list, got {_kind(raw)}")
        return raw

    def number(self, raw: Any, where: str, limit: float = MAX_COORD) -> float:
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            raise self.fail(where, f"expected a number, got {_kind(raw)}")
        if isinstance(raw, int) and abs(raw) > 10**300:  # float() can't hold it (10**400): say its size
            digits = len(str(abs(raw)))
            raise self.fail(where, f"a number of {digits} digits is out of range (at most {limit:g})")
        value = float(raw)
        if not math.isfinite(value):
            raise self.fail(where, f"{raw} is not a finite number")
        if abs(value) > limit:
            raise self.fail(where, f"{raw:g} is out of range (at most {limit:g} either way)")
        return value

    def point(self, raw: Any, where: str) -> Point:
        p = self.table(raw, where)
        for axis in ("x", "y"):
            if axis not in p:
                raise self.fail(f"{where}.{axis}", 'missing (a point is {"x": ..., "y": ...})')
        return self.number(p["x"], f"{where}.x"), self.number(p["y"], f"{where}.y")


def _kind(raw: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}
    return names.get(type(raw), f"the number {raw!r}" if isinstance(raw, int | float) else type(raw).__name__)


def read(
    data: bytes,
    source: str,
    kind: str = "a Universal VTT file",
    limit: int | None = None,
    name: str = "MAX_UVTT_BYTES",
) -> dict[str, Any]:
    """The JSON document of a map file (a UVTT file, a Foundry scene: `kind` names it in errors): its size
    bounded first by `limit` (MAX_UVTT_BYTES unless told), its nesting by the decoder."""
    limit = MAX_UVTT_BYTES if limit is None else limit
    if len(data) > limit:
        raise InputError(f"{source}: {len(data):,} bytes; {kind} may hold {limit:,} ({name})")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{source}: not {kind}: not UTF-8 text (byte {exc.start})") from None
    try:  # json's decoder bounds its own recursion (RecursionError below), so no bracket scan first:
        raw = json.loads(text)  # limits.check_nesting would spend seconds skipping a 30 MB image string
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: not {kind}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:
        raise InputError(f"{source}: not {kind}: its brackets nest too deeply") from None
    if not isinstance(raw, dict):
        raise InputError(f"{source}: not {kind}: expected a JSON object, got {_kind(raw)}")
    return raw


def convert(
    data: bytes,
    *,
    ruleset: str,
    source: str,
    name: str,
    picture_stem: str,
    tolerance: float = DEFAULT_TOLERANCE,
    stats: Iterable[str] = (),
    open_portals: str = "door",
    objects: str = "sight",
) -> Imported:
    """The scenario for a UVTT file. `picture_stem` names the picture file beside the scenario (the
    suffix follows the picture's kind); `stats` are the fighter stats the ruleset needs a value for;
    `open_portals` is what a portal that is not `closed` becomes: an open "door", or a "wall"
    that stops movement and not sight (Dungeondraft marks a portal that lets light through so:
    often a window); `objects` is what `objects_line_of_sight` (things that block light: furniture,
    plants, pillars, drawn as outlines) become: walls that stop only "sight" (the default: an
    outline 0.4 cells wide would close a whole edge to walking), "walls" that stop both, or
    "ignore"d."""
    if open_portals not in OPEN_PORTALS:
        raise InputError(f"--open-portals: {open_portals!r}: expected one of {', '.join(OPEN_PORTALS)}")
    if objects not in OBJECTS:
        raise InputError(f"--objects: {objects!r}: expected one of {', '.join(OBJECTS)}")
    if not (isinstance(tolerance, int | float) and 0 <= tolerance <= MAX_TOLERANCE):
        raise InputError(f"--tolerance: {tolerance}: expected a number of cells from 0 to {MAX_TOLERANCE:g}")
    f = _Fields(source)
    raw = read(data, source)
    report = Report(tolerance=tolerance, objects=objects)
    size, ppg = _grid(f, raw, report)
    polylines = _polylines(f, raw, objects, report)  # counted and bounded before any geometry
    shift, width, height = report.shift, report.width, report.height
    kinds = _wall_edges(polylines, report)

    doors = _doors(f, raw, shift, width, height, tolerance, report)
    if open_portals == "wall":  # windows: walls for movement, not sight (kept even where a wall ran under)
        windows = {e for e, d in doors.items() if not d.closed}
        report.windows = len(windows)
        for e in windows:
            kinds[e] = kinds.get(e, 0) | _MOVE
        doors = {e: d for e, d in doors.items() if d.closed}
        report.doors, report.doors_open = len(doors), 0
    walls = lay_walls(kinds, doors, report)
    counts = {b: 0 for b in (_BOTH, _SIGHT, _MOVE)}
    for b in kinds.values():
        counts[b] += 1
    report.both_edges, report.sight_edges, report.movement_edges = (
        counts[_BOTH],
        counts[_SIGHT],
        counts[_MOVE],
    )
    report.lights = len(f.items(raw.get("lights"), "lights"))

    picture = _picture(f, raw.get("image"))
    picture_file = ""
    if picture is not None:
        kind = sniff(picture)
        assert kind is not None  # _picture checked it
        picture_file = f"{picture_stem}.{'jpg' if kind.kind == 'jpeg' else kind.kind}"
        report.picture = {
            "kind": kind.kind,
            "width": kind.width,
            "height": kind.height,
            "bytes": len(picture),
        }
        report.picture_mismatch = _mismatch(kind, size, ppg)
    text = scenario_text(
        name=name,
        ruleset=ruleset,
        source=source,
        report=report,
        walls=walls,
        doors=doors,
        picture_file=picture_file,
        stats=stats,
    )
    return Imported(toml=text, picture=picture, report=report)


def _grid(f: _Fields, raw: dict[str, Any], report: Report) -> tuple[Point, float]:
    """`resolution`: the map's size in cells and the picture's pixels a cell, checked; the grid's
    shift, size and the picture's origin go into the report."""
    if "resolution" not in raw:
        raise f.fail(
            "resolution", "missing (a Universal VTT file gives map_origin, map_size, pixels_per_grid)"
        )
    res = f.table(raw["resolution"], "resolution")
    if "map_size" not in res:
        raise f.fail("resolution.map_size", 'missing (the map\'s size in grid cells, {"x": 20, "y": 15})')
    size = f.point(res["map_size"], "resolution.map_size")
    origin = f.point(res.get("map_origin", {"x": 0, "y": 0}), "resolution.map_origin")
    if "pixels_per_grid" not in res:
        raise f.fail("resolution.pixels_per_grid", "missing (how many pixels of the picture a cell is)")
    ppg = f.number(res["pixels_per_grid"], "resolution.pixels_per_grid", MAX_PIXELS_PER_GRID)
    if ppg <= 0:
        raise f.fail(
            "resolution.pixels_per_grid", f"expected a number above 0, got {res['pixels_per_grid']!r}"
        )
    if size[0] <= 0 or size[1] <= 0:
        raise f.fail(
            "resolution.map_size", f"expected a size above 0 each way, got {size[0]:g} x {size[1]:g}"
        )
    shift = (math.floor(origin[0]), math.floor(origin[1]))
    offset = (origin[0] - shift[0], origin[1] - shift[1])  # where the picture starts in the new grid
    width = math.ceil(offset[0] + size[0] - 1e-9)
    height = math.ceil(offset[1] + size[1] - 1e-9)
    if width > MAX_MAP_SIDE or height > MAX_MAP_SIDE or width * height > MAX_MAP_CELLS:
        raise f.fail(
            "resolution.map_size",
            f"a {width} x {height} map; the limits are {MAX_MAP_SIDE} a side (MAX_MAP_SIDE) and "
            f"{MAX_MAP_CELLS:,} cells (MAX_MAP_CELLS)",
        )
    report.width, report.height, report.pixels_per_grid = width, height, ppg
    report.origin, report.shift = (round(offset[0], 6), round(offset[1], 6)), shift
    return size, ppg


_MOVE, _SIGHT = 1, 2  # what a walled edge stops, as flags
_BOTH = _MOVE | _SIGHT
Polyline = tuple[list[Point], int]  # its points in the scenario's frame, and what it stops (flags)


def _polylines(f: _Fields, raw: dict[str, Any], objects: str, report: Report) -> list[Polyline]:
    """Every wall polyline's points read and checked, with what it stops; refused at once, naming the
    limit, when there are more polylines or points than a map needs or their segments would run more
    cells than MAX_UVTT_WALL_CELLS (snapping them would take minutes)."""
    lists = {key: f.items(raw.get(key), key) for key in ("line_of_sight", "objects_line_of_sight")}
    count = sum(map(len, lists.values()))
    if count > MAX_UVTT_POLYLINES:
        raise f.fail(
            "line_of_sight",
            f"{count:,} wall polylines (objects_line_of_sight included); a map may have "
            f"{MAX_UVTT_POLYLINES:,} (MAX_UVTT_POLYLINES)",
        )
    points = 0
    for key, lines in lists.items():
        for i, line in enumerate(lines):
            points += len(f.items(line, f"{key}[{i}]"))
    if points > MAX_UVTT_POINTS:
        raise f.fail(
            "line_of_sight",
            f"{points:,} wall points; a map may have {MAX_UVTT_POINTS:,} (MAX_UVTT_POINTS)",
        )
    past = _past_length(lists, MAX_UVTT_WALL_CELLS)
    if past:
        raise f.fail(
            past,
            f"the walls' segments run more than {MAX_UVTT_WALL_CELLS:,} cells (across and down, added up) "
            f"by this polyline; a map's may run {MAX_UVTT_WALL_CELLS:,} (MAX_UVTT_WALL_CELLS)",
        )
    out: list[Polyline] = []
    for key, lines in lists.items():
        flags = _BOTH if key == "line_of_sight" or objects == "walls" else _SIGHT
        for i, line in enumerate(lines):
            if key == "line_of_sight":
                report.polylines += 1
            else:
                report.object_polylines += 1
                if objects == "ignore":
                    report.objects_ignored += 1
                    continue
            out.append(([f.point(p, f"{key}[{i}][{j}]") for j, p in enumerate(line)], flags))
    return out


def _past_length(lists: dict[str, list[Any]], limit: float) -> str:
    """The polyline ("line_of_sight[37]") by which the segments run more than `limit` cells, across
    and down, added up (a bound on the edges snapping takes), or "". Read before any point is
    checked and stopped as soon as the limit is passed: a point that is not a number in range
    counts nothing here, and the full read names it."""
    total = 0.0
    for key, lines in lists.items():
        for i, line in enumerate(lines):
            last = None
            for p in line:
                x, y = (p.get("x"), p.get("y")) if isinstance(p, dict) else (None, None)
                if not (isinstance(x, int | float) and isinstance(y, int | float)) or not (
                    abs(x) <= MAX_COORD and abs(y) <= MAX_COORD  # not NaN, nor out of range
                ):
                    last = None
                    continue
                if last is not None:
                    total += abs(x - last[0]) + abs(y - last[1])
                last = (x, y)
            if not total <= limit:  # NaN and infinity too
                return f"{key}[{i}]"
    return ""


def _wall_edges(polylines: list[Polyline], report: Report) -> dict[Edge, int]:
    """The cell edges every wall polyline takes, with what the walls on each stop; the rim left out."""
    sx, sy = report.shift
    edges: dict[Edge, int] = {}
    for raw_points, flags in polylines:
        points = [(x - sx, y - sy) for x, y in raw_points]
        kept = simplify(points, report.tolerance)
        report.points_simplified += len(points) - len(kept)
        for p, q in zip(kept, kept[1:], strict=False):
            for e in _segment_edges(p, q, report.width, report.height, report.tolerance, report):
                edges[e] = edges.get(e, 0) | flags
    rim = [e for e in edges if _on_rim(e, report.width, report.height)]
    report.rim_edges = len(rim)
    for e in rim:
        del edges[e]
    return edges


def _mismatch(kind: Sniffed, size: Point, ppg: float) -> str:
    want = (round(size[0] * ppg), round(size[1] * ppg))
    if abs(kind.width - want[0]) <= 1 and abs(kind.height - want[1]) <= 1:
        return ""
    return (
        f"note: the picture is {kind.width} x {kind.height} pixels where map_size x pixels_per_grid says "
        f"{want[0]} x {want[1]}: it is drawn at {ppg:g} pixels a cell from the map's top-left corner"
    )


def _picture(f: _Fields, raw: Any) -> bytes | None:
    """The picture's bytes: base64 of a PNG, JPEG or WebP (a data: URL prefix allowed)."""
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        raise f.fail("image", f"expected the picture as a base64 string, got {_kind(raw)}")
    text = raw.split(",", 1)[1] if raw.startswith("data:") and "," in raw else raw
    if len(text) > MAX_PICTURE_BYTES * 4 // 3 + 4:
        raise f.fail(
            "image", f"a picture of {len(text) * 3 // 4:,}+ bytes; the limit is {MAX_PICTURE_BYTES:,}"
        )
    try:
        data = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise f.fail("image", f"not base64 ({exc})") from None
    if sniff(data) is None:
        raise f.fail("image", f"not a PNG, JPEG or WebP picture (it starts {data[:8]!r})")
    return data


# --- geometry --------------------------------------------------------------------------------------


def simplify(points: list[Point], tolerance: float) -> list[Point]:
    """The polyline with every point within `tolerance` of the chord of its run dropped
    (Douglas-Peucker, with an explicit stack: a cave wall has thousands of points)."""
    if len(points) < 3 or tolerance <= 0:
        return list(points)
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        lo, hi = stack.pop()
        far, at = -1.0, -1
        for i in range(lo + 1, hi):
            d = _distance(points[i], points[lo], points[hi])
            if d > far:
                far, at = d, i
        if at >= 0 and far > tolerance:
            keep[at] = True
            stack += [(lo, at), (at, hi)]
    return [p for p, k in zip(points, keep, strict=True) if k]


def _distance(p: Point, a: Point, b: Point) -> float:
    """How far p lies from the segment a-b."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    px, py = p[0] - ax, p[1] - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else (px * dx + py * dy) / length2
    t = 0.0 if t < 0 else 1.0 if t > 1 else t
    return math.hypot(px - t * dx, py - t * dy)


def clip(p: Point, q: Point, width: int, height: int) -> tuple[Point, Point] | None:
    """The part of segment p-q inside the map's rectangle (Liang-Barsky), or None."""
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for step, room in ((-dx, p[0]), (dx, width - p[0]), (-dy, p[1]), (dy, height - p[1])):
        if step == 0:
            if room < 0:
                return None
            continue
        t = room / step
        if step < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return (p[0] + t0 * dx, p[1] + t0 * dy), (p[0] + t1 * dx, p[1] + t1 * dy)


def corner(p: Point) -> Corner:
    """The grid corner nearest a point (halves go up: the same point always finds the same corner)."""
    return math.floor(p[0] + 0.5), math.floor(p[1] + 0.5)


def staircase(a: Corner, b: Corner) -> list[Corner]:
    """Corners from a to b along grid lines, each step the one that keeps nearest the line a-b."""
    path = [a]
    x, y = a
    sx = (b[0] > x) - (b[0] < x)
    sy = (b[1] > y) - (b[1] < y)
    dx, dy = b[0] - a[0], b[1] - a[1]
    while (x, y) != b:
        options = []
        if x != b[0]:
            options.append((abs((x + sx - a[0]) * dy - (y - a[1]) * dx), 0, (x + sx, y)))
        if y != b[1]:
            options.append((abs((x - a[0]) * dy - (y + sy - a[1]) * dx), 1, (x, y + sy)))
        x, y = min(options)[2]
        path.append((x, y))
    return path


def _unit_edge(a: Corner, b: Corner) -> Edge:
    if a[1] == b[1]:
        return ("h", min(a[0], b[0]), a[1])
    return ("v", a[0], min(a[1], b[1]))


def _segment_edges(
    p: Point, q: Point, width: int, height: int, tolerance: float, report: Report
) -> set[Edge]:
    """The cell edges one wall segment takes, counted into the report."""
    inside = clip(p, q, width, height)
    if inside is None:
        report.off_map += 1
        return set()
    if inside != (p, q):
        report.clipped += 1
    p, q = inside
    a, b = corner(p), corner(q)
    if a == b:
        report.short += 1
        return set()
    path = staircase(a, b)
    if a[0] == b[0] or a[1] == b[1]:
        report.straight += 1
        axis = 0 if a[0] == b[0] else 1
        if max(abs(p[axis] - a[axis]), abs(q[axis] - b[axis])) > tolerance:
            report.moved += 1
    else:
        report.diagonal += 1
        report.staircase_edges += len(path) - 1
    return {_unit_edge(c, d) for c, d in zip(path, path[1:], strict=False)}


def _on_rim(edge: Edge, width: int, height: int) -> bool:
    kind, x, y = edge
    return (kind == "h" and y in (0, height)) or (kind == "v" and x in (0, width))


def lay_walls(kinds: dict[Edge, int], doors: Mapping[Edge, Door], report: Report) -> list[tuple[str, str]]:
    """The walls a scenario writes, merged into segments by kind; a wall edge under a door gives way to
    the door (the door is what the map shows there). Counts them into the report; drops those edges
    from `kinds`."""
    under = kinds.keys() & set(doors)
    report.walls_under_doors = len(under)
    for e in under:
        del kinds[e]
    walls = [
        (segment, kind)
        for bits, kind in ((_BOTH, "both"), (_SIGHT, "sight"), (_MOVE, "movement"))
        for segment in merge({e for e, b in kinds.items() if b == bits})
    ]
    report.wall_edges, report.walls = len(kinds), len(walls)
    return walls


def merge(edges: set[Edge]) -> list[str]:
    """Unit edges as the fewest wall segments "x1,y1-x2,y2": runs along one grid line joined."""
    out = []
    for kind in ("h", "v"):
        # A run goes along x for "h" edges and along y for "v" edges: key (line, position).
        runs = sorted((y, x) if kind == "h" else (x, y) for k, x, y in edges if k == kind)
        i = 0
        while i < len(runs):
            line, start = runs[i]
            end = start + 1
            while i + 1 < len(runs) and runs[i + 1] == (line, end):
                i += 1
                end += 1
            i += 1
            out.append(f"{start},{line}-{end},{line}" if kind == "h" else f"{line},{start}-{line},{end}")
    return out


# --- doors -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Door:
    cells: tuple[Corner, Corner]
    closed: bool

    @property
    def at(self) -> str:
        (x1, y1), (x2, y2) = self.cells
        return f"{x1},{y1}|{x2},{y2}"


def _doors(
    f: _Fields, raw: dict[str, Any], shift: Corner, width: int, height: int, tolerance: float, report: Report
) -> dict[Edge, Door]:
    """Each portal as doors on the cell edges it spans, keyed by edge (a second door on one edge is one)."""
    out: dict[Edge, Door] = {}
    portals = f.items(raw.get("portals"), "portals")
    if len(portals) > MAX_UVTT_PORTALS:
        raise f.fail(
            "portals", f"{len(portals):,} portals; a map may have {MAX_UVTT_PORTALS:,} (MAX_UVTT_PORTALS)"
        )
    for i, portal in enumerate(portals):
        where = f"portals[{i}]"
        portal = f.table(portal, where)
        report.portals += 1
        if "position" not in portal:
            raise f.fail(f"{where}.position", 'missing (the portal\'s middle, {"x": ..., "y": ...})')
        px, py = f.point(portal["position"], f"{where}.position")
        px, py = px - shift[0], py - shift[1]
        bounds = [
            f.point(b, f"{where}.bounds[{j}]")
            for j, b in enumerate(f.items(portal.get("bounds"), f"{where}.bounds"))
        ]
        if bounds and len(bounds) != 2:
            raise f.fail(f"{where}.bounds", f"expected the portal's two ends, got {len(bounds)} points")
        rotation = f.number(portal.get("rotation", 0), f"{where}.rotation", 1_000.0)
        closed = portal.get("closed", True)
        if not isinstance(closed, bool):
            raise f.fail(f"{where}.closed", f"expected true or false, got {_kind(closed)}")
        if bounds:
            (ax, ay), (bx, by) = bounds
            ax, ay, bx, by = ax - shift[0], ay - shift[1], bx - shift[0], by - shift[1]
        if bounds and (ax, ay) != (bx, by):
            dx, dy = bx - ax, by - ay
        else:
            dx, dy = math.cos(rotation), math.sin(rotation)
            ax, ay, bx, by = px, py, px, py
        angle = math.degrees(math.atan2(abs(dy), abs(dx)))
        across_x = abs(dx) >= abs(dy)  # the door runs along x: it sits on a horizontal grid line
        if min(angle, 90 - angle) > DOOR_TURN_DEGREES:
            report.doors_turned += 1
        line_at = py if across_x else px
        line = math.floor(line_at + 0.5)
        if abs(line_at - line) > tolerance:
            report.doors_moved += 1
        lo, hi = (min(ax, bx), max(ax, bx)) if across_x else (min(ay, by), max(ay, by))
        first, last = math.floor(lo + 0.5), math.floor(hi + 0.5)
        if last <= first:  # narrower than an edge: the edge its middle is on
            first = math.floor(px if across_x else py)
            last = first + 1
        if last - first > 1:
            report.doors_wide += 1
        placed = False
        for k in range(max(first, 0), min(last, width if across_x else height)):  # only edges on the map
            if across_x:
                edge: Edge = ("h", k, line)
                cells = ((k, line - 1), (k, line))
                ok = 0 < line < height and 0 <= k < width
            else:
                edge = ("v", line, k)
                cells = ((line - 1, k), (line, k))
                ok = 0 < line < width and 0 <= k < height
            if ok and edge not in out:
                out[edge] = Door(cells, closed)
                placed = True
        if not placed:
            report.doors_off_map += 1
    report.doors = len(out)
    report.doors_open = sum(not d.closed for d in out.values())
    return dict(sorted(out.items(), key=lambda kv: (kv[1].cells[0][1], kv[1].cells[0][0], kv[0][0])))


# --- the scenario text -----------------------------------------------------------------------------


def _string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _decimal(value: float) -> str:
    return repr(float(round(value, 6)))


_WALL_KINDS = {  # how the scenario names each kind of wall, and the comment above that group
    "both": "",
    "sight": "    # objects (objects_line_of_sight): they stop sight, not steps",
    "movement": "    # windows (portals not closed): they stop steps, not sight",
}


def _wall_lines(walls: list[tuple[str, str]]) -> list[str]:
    """[map] walls: plain segments stop movement and sight; a table says which one alone a wall stops."""
    if not walls:
        return ["walls = []"]
    out = ["walls = ["]
    for kind, comment in _WALL_KINDS.items():
        group = [segment for segment, k in walls if k == kind]
        if group and comment:
            out.append(comment)
        for segment in group:
            out.append(
                f'    "{segment}",' if kind == "both" else f'    {{ at = "{segment}", blocks = "{kind}" }},'
            )
    return [*out, "]"]


def map_lines(
    *,
    intro: str,
    name: str,
    ruleset: str,
    report: Report,
    walls: list[tuple[str, str]],
    doors: dict[Edge, Door],
    locked: frozenset[str] = frozenset(),
) -> list[str]:
    """An imported scenario's head, written once for every importer (Universal VTT, a Foundry scene): the
    comment saying where it came from, [encounter], the floor of [map] with its snapped walls and doors,
    and the legend."""
    w, h = report.width, report.height
    lines = [
        intro,
        f"# Walls and doors are snapped to cell edges (tolerance {report.tolerance:g} cells); "
        "the import report says what was approximated.",
        "",
        "[encounter]",
        f"name = {_string(name)}",
        f"ruleset = {_string(ruleset)}",
        "seed = 1                         # the seeded dice: change it for other rolls",
        "",
        "[map]",
        "rows = [",
        *(f'    "{"." * w}",' for _ in range(h)),
        "]",
    ]
    lines += _wall_lines(walls)
    if doors:
        lines.append("doors = [")
        for d in doors.values():
            lock = ", locked = true" if d.at in locked else ""
            lines.append(f'    {{ at = "{d.at}", closed = {str(d.closed).lower()}{lock} }},')
        lines.append("]")
    else:
        lines.append("doors = []")
    return [*lines, "", "[map.legend]", '"." = "floor"', ""]


def scenario_text(
    *,
    name: str,
    ruleset: str,
    source: str,
    report: Report,
    walls: list[tuple[str, str]],
    doors: dict[Edge, Door],
    picture_file: str,
    stats: Iterable[str],
) -> str:
    """The scenario file: written the way a GM would write one, so it can be read and edited by hand."""
    stats = tuple(stats)
    w, h = report.width, report.height
    intro = f"# Imported by `tabletrail import-map` from {source.rsplit('/', 1)[-1]} (a Universal VTT map)."
    lines = map_lines(intro=intro, name=name, ruleset=ruleset, report=report, walls=walls, doors=doors)
    if picture_file:
        lines += [
            "[picture]                        # the battle map drawn under the grid",
            f"file = {_string(picture_file)}",
            f"pixels_per_grid = {report.pixels_per_grid:g}",
            f"origin = [{_decimal(report.origin[0])}, {_decimal(report.origin[1])}]",
            "",
        ]
    at = [w // 2, h // 2]
    lines += [
        "# The fighters: one to start from. Move it, rename it, and add yours as more [[fighters]]",
        "# tables (`tabletrail rules " + ruleset + "` lists the stats a fighter takes).",
        "[[fighters]]",
        'id = "scout"',
        'side = "blue"',
        f"at = [{at[0]}, {at[1]}]",
        *(f"{s} = {EXAMPLE_STATS.get(s, 1)}" for s in stats),
        "",
        "# [[fighters]]",
        '# id = "ghoul"',
        '# side = "red"',
        f"# at = [{max(0, at[0] - 1)}, {at[1]}]",
        *(f"# {s} = {EXAMPLE_STATS.get(s, 1)}" for s in stats),
        "",
    ]
    return "\n".join(lines)
