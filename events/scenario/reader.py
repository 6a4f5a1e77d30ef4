"""Scenario files: what a GM writes by hand before an encounter starts.

A scenario is TOML. Loading validates every field and names the file and the
field path of the first mistake, so a typo never turns into a traceback or a
half-started encounter. The validated `Scenario` travels inside the first event
of every log, which makes a log self-contained.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): msgspec would
# compile each Struct field's annotation string when a command first builds a decoder (test_cli_fast).
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from msgspec import UNSET, UnsetType
from tabletrail.events import plugins
from tabletrail.events.errors import InputError
from tabletrail.events.limits import (
    MAX_DOORS,
    MAX_FIGHTERS,
    MAX_MAP_CELLS,
    MAX_MAP_SIDE,
    MAX_SCENARIO_BYTES,
    MAX_WALLS,
    check_number,
)
from tabletrail.events.picture import picture_spec
from tabletrail.events.plugins import known_tags, terrain_tags
from tabletrail.events.scenario_spec import (
    BOTH as BOTH,
)
from tabletrail.events.scenario_spec import (
    MOVEMENT as MOVEMENT,
)
from tabletrail.events.scenario_spec import (
    SIGHT as SIGHT,
)
from tabletrail.events.scenario_spec import (
    SIZES as SIZES,
)
from tabletrail.events.scenario_spec import (
    WALL_BLOCKS as WALL_BLOCKS,
)
from tabletrail.events.scenario_spec import (
    CellKind as CellKind,
)
from tabletrail.events.scenario_spec import (
    DoorSpec as DoorSpec,
)
from tabletrail.events.scenario_spec import (
    FighterSpec as FighterSpec,
)
from tabletrail.events.scenario_spec import (  # until every importer reads them there
    Number as Number,
)
from tabletrail.events.scenario_spec import (
    Scenario as Scenario,
)
from tabletrail.events.scenario_spec import (
    SettingValue as SettingValue,
)
from tabletrail.events.scenario_spec import (
    SideSpec as SideSpec,
)
from tabletrail.events.scenario_spec import (
    WallSpec as WallSpec,
)
from tabletrail.events.scenario_spec import (
    door_cells as door_cells,
)
from tabletrail.events.scenario_spec import (
    door_name as door_name,
)
from tabletrail.events.scenario_spec import (
    wall_segment as wall_segment,
)
from tabletrail.events.terrain import KNOWN_TAGS as KNOWN_TAGS  # the shared ones, named here before
from tabletrail.events.terrain import TERRAIN_TAGS as TERRAIN_TAGS

FIGHTER_KEYS = {"id", "name", "side", "at", "size", "tags", "image"}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".svg")
COLOUR = r"^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[a-z]{3,20})$"  # compiled when a scenario is read (re caches it)


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file; InputError names the file and field."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a folder, not a scenario file")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such scenario file") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror}") from None
    if data.startswith((b"SQLite format 3\x00", b'{"seq":')):
        raise InputError(
            f"{path}: a tabletrail log, not a scenario file: `tabletrail show {path}` shows it, "
            "and `tabletrail new` takes a scenario (.toml) such as scenarios/speed-meters-skirmish.toml"
        )
    if len(data) > MAX_SCENARIO_BYTES:
        raise InputError(
            f"{path}: {len(data):,} bytes; a scenario file may hold {MAX_SCENARIO_BYTES:,} "
            "(MAX_SCENARIO_BYTES)"
        )
    import tomllib  # only a new scenario is parsed; opening a log never is (~5 ms a CLI command)

    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per nested array or table
        raise InputError(f"{path}: not valid TOML here: arrays or tables nest too deeply") from None
    with at_its_place(path):
        return parse_scenario(raw, source=str(path), folder=path.parent)


@contextmanager
def at_its_place(path: str | Path) -> Iterator[None]:
    """An InputError naming a field of this scenario file gains the field's line and column.

    `scenario.toml: fighters[2].at: 6,5 is wall` becomes `scenario.toml:49:6: ...`;
    used around anything that checks a scenario (the rulesets' checks at `new` too).
    """
    try:
        yield
    except InputError as exc:
        from tabletrail.events.scenario.toml_places import locate

        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise exc from None
        raise InputError(locate(str(exc), str(path), text)) from None


def unfit_name(name: str) -> str | None:
    """Why a name (a side, a fighter, an encounter) can't be shown and told apart from another, or None.

    Names are shown on every screen, printed in a terminal and keyed on by the server: a control or
    format character (a tab, a zero-width joiner, a right-to-left override), a space other than the
    plain one, a space at either end, or a letter that has a plainer twin ('ａ', '²', an 'é' spelt as
    'e' and an accent) would let two names look alike, or one look like something else."""
    for ch in name:
        kind = unicodedata.category(ch)
        if kind[0] == "C" or kind in ("Zl", "Zp") or (kind == "Zs" and ch != " "):
            what = "a control character" if kind == "Cc" else unicodedata.name(ch, "an unprintable character")
            return f"{name!r} has {what} (U+{ord(ch):04X}); use letters, digits, spaces and punctuation"
    if name != name.strip():
        return f"{name!r} starts or ends with a space"
    plain = unicodedata.normalize("NFKC", name)
    if plain != name:
        return f"{name!r} has characters that look like plainer ones; write it as {plain!r}"
    return None


def parse_scenario(raw: dict[str, Any], source: str = "scenario", folder: Path | None = None) -> Scenario:
    """Validate a decoded TOML document; errors name `source` and the field path.

    `folder` is where the scenario file lies: token images are written relative to it.
    """
    v = _Validator(source, folder)
    unknown = set(raw) - {"encounter", "settings", "map", "fighters", "sides", "picture"}
    if unknown:  # first: a misspelt [mapp] would otherwise be reported as a map without rows
        v.fail(
            sorted(unknown)[0],
            "unknown section (expected encounter, settings, map, fighters, sides, picture)",
        )
    enc = v.table(raw, "encounter")
    name = v.name(v.string(enc, "name", "encounter.name"), "encounter.name")
    ruleset = v.string(enc, "ruleset", "encounter.ruleset")
    try:  # first, before the map: a plug-in's terrains are known once its ruleset is
        plugins.find(ruleset)
    except InputError as exc:
        v.fail("encounter.ruleset", str(exc))
    seed = enc.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        v.fail("encounter.seed", f"expected a whole number from 0 below 2**63, got {seed!r}")
    initiative = enc.get("initiative", [])
    if not isinstance(initiative, list) or not all(isinstance(i, str) for i in initiative):
        v.fail("encounter.initiative", "expected a list of fighter ids")

    settings = raw.get("settings", {})
    if not isinstance(settings, dict):
        v.fail("settings", "expected a table of name = value")
    for key, value in settings.items():
        if not isinstance(value, str | int | float | bool):
            v.fail(f"settings.{key}", f"expected a string, number or true/false, got {value!r}")
        if isinstance(value, int | float) and not isinstance(value, bool):
            v.number(value, f"settings.{key}")

    map_ = v.table(raw, "map")
    rows = map_.get("rows")
    if not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows):
        v.fail("map.rows", "expected a non-empty list of strings, one per row")
    width = len(rows[0])
    if len(rows) > MAX_MAP_SIDE or width > MAX_MAP_SIDE:
        v.fail(
            "map.rows", f"a {width} x {len(rows)} map; a side may be {MAX_MAP_SIDE:,} cells (MAX_MAP_SIDE)"
        )
    if len(rows) * width > MAX_MAP_CELLS:
        v.fail(
            "map.rows",
            f"a {width} x {len(rows)} map has {len(rows) * width:,} cells; a map may have "
            f"{MAX_MAP_CELLS:,} (MAX_MAP_CELLS)",
        )
    for i, row in enumerate(rows):
        if len(row) != width:
            v.fail(f"map.rows[{i}]", f"row is {len(row)} characters wide, row 0 is {width}")
    legend_raw = map_.get("legend")
    if not isinstance(legend_raw, dict) or not legend_raw:
        v.fail("map.legend", "expected a table mapping each map character to its terrain")
    legend = {ch: v.cell_kind(ch, spec) for ch, spec in legend_raw.items()}
    walls = v.walls(map_.get("walls", []), width, len(rows))
    doors = v.doors(map_.get("doors", []), width, len(rows), walls)
    for i, row in enumerate(rows):
        if not legend.keys() >= set(row):  # a set per row: a 1000x1000 map is read in C, not per cell
            x, ch = next((x, ch) for x, ch in enumerate(row) if ch not in legend)
            v.fail(f"map.rows[{i}]", f"character {ch!r} at column {x} is not in map.legend")

    fighters_raw = raw.get("fighters")
    if not isinstance(fighters_raw, list) or not fighters_raw:
        v.fail("fighters", "expected at least one [[fighters]] table")
    if len(fighters_raw) > MAX_FIGHTERS:
        v.fail("fighters", f"{len(fighters_raw)} fighters; the limit is {MAX_FIGHTERS} (MAX_FIGHTERS)")
    fighters = tuple(v.fighter(i, f, width, len(rows)) for i, f in enumerate(fighters_raw))
    ids = [f.id for f in fighters]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        v.fail("fighters", f"fighter id {dupes[0]!r} is used twice")
    for i, fid in enumerate(initiative):
        if fid not in ids:
            v.fail(f"encounter.initiative[{i}]", f"no fighter has id {fid!r}")
    if initiative and sorted(initiative) != sorted(ids):
        v.fail("encounter.initiative", "must list every fighter exactly once")
    sides = v.sides(raw.get("sides", {}), {f.side for f in fighters})
    return Scenario(
        name=name,
        ruleset=ruleset,
        rows=tuple(rows),
        legend=legend,
        fighters=fighters,
        seed=seed,
        settings=dict(settings),
        initiative=tuple(initiative),
        sides=sides or UNSET,
        walls=walls or UNSET,
        doors=doors or UNSET,
        picture=picture_spec(raw["picture"], folder, v.fail) if "picture" in raw else UNSET,
    )


def read_fighter(raw: dict[str, Any], width: int, height: int, source: str, field: str) -> FighterSpec:
    """One fighter as a `[[fighters]]` table is read (a GM's `join`): errors name `source` and `field`."""
    return _Validator(source).fighter(0, raw, width, height, field)


class _Validator:
    def __init__(self, source: str, folder: Path | None = None) -> None:
        self.source = source
        self.folder = folder

    def fail(self, field: str, message: str) -> NoReturn:
        raise InputError(f"{self.source}: {field}: {message}")

    def table(self, raw: dict[str, Any], key: str) -> dict[str, Any]:
        value = raw.get(key)
        if not isinstance(value, dict):
            self.fail(key, f"missing [{key}] table")
        return value

    def string(self, raw: dict[str, Any], key: str, field: str) -> str:
        value = raw.get(key)
        if value is None:
            self.fail(field, f'missing (expected a non-empty string, e.g. {key} = "...")')
        if not isinstance(value, str) or not value:
            self.fail(field, f"expected a non-empty string, got {value!r}")
        return value

    def name(self, value: str, field: str) -> str:
        """A name people read (see unfit_name), or the error naming the field."""
        problem = unfit_name(value)
        if problem is not None:
            self.fail(field, problem)
        return value

    def number(self, value: Any, field: str) -> Number:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(field, f"expected a number, got {value!r}")
        try:
            check_number(value, "")
        except InputError as exc:
            self.fail(field, f"expected a finite number{str(exc).removeprefix(':')}")
        return value

    def cell_kind(self, ch: str, spec: Any) -> CellKind:
        field = f"map.legend.{ch!r}"
        if len(ch) != 1:
            self.fail(field, "legend keys are single map characters")
        if isinstance(spec, str):
            spec = {"terrain": spec}
        if not isinstance(spec, dict):
            self.fail(field, 'expected a terrain name or a table like {terrain = "rough"}')
        allowed = set(CellKind.__struct_fields__)
        for key in spec:
            if key not in allowed:
                self.fail(f"{field}.{key}", f"unknown field (expected one of {sorted(allowed)})")
        terrain = spec.get("terrain", "floor")
        terrains = terrain_tags()
        if not isinstance(terrain, str) or terrain not in terrains:
            self.fail(f"{field}.terrain", f"unknown terrain {terrain!r} (known: {sorted(terrains)})")
        tags = spec.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            self.fail(f"{field}.tags", "expected a list of tag names")
        known = known_tags()
        for t in tags:
            if t not in known:
                self.fail(f"{field}.tags", f"unknown tag {t!r} (known: {sorted(known)})")
        numbers = {
            k: self.number(spec[k], f"{field}.{k}") for k in ("ground", "height", "depth") if k in spec
        }
        for k, value in numbers.items():
            if k != "ground" and value < 0:
                self.fail(f"{field}.{k}", f"must not be negative, got {value}")
        climb = spec.get("climb", 0)
        if climb not in (0, 1, 2, 3) or isinstance(climb, bool):
            self.fail(f"{field}.climb", f"expected a difficulty 1, 2 or 3, got {climb!r}")
        return CellKind(terrain=terrain, tags=tuple(tags), climb=climb, **numbers)

    def fighter(self, i: int, spec: Any, width: int, height: int, field: str = "") -> FighterSpec:
        field = field or f"fighters[{i}]"
        if not isinstance(spec, dict):
            self.fail(field, "expected a table")
        fid = self.string(spec, "id", f"{field}.id")
        if not fid.replace("-", "").replace("_", "").isalnum():
            self.fail(f"{field}.id", f"use letters, digits, - and _ only, got {fid!r}")
        self.name(fid, f"{field}.id")
        name = spec.get("name", fid)
        if not isinstance(name, str):
            self.fail(f"{field}.name", f"expected a string, got {name!r}")
        self.name(name, f"{field}.name")
        side = self.name(self.string(spec, "side", f"{field}.side"), f"{field}.side")
        if side == "watcher":  # its players' links would be view-only links (app/web/invites.py)
            self.fail(f"{field}.side", "'watcher' is the name of a view-only link's role, not a side")
        at = spec.get("at")
        if (
            not isinstance(at, list)
            or len(at) not in (2, 3)
            or not all(isinstance(c, int | float) and not isinstance(c, bool) for c in at)
            or not all(isinstance(c, int) for c in at[:2])
        ):
            self.fail(f"{field}.at", f"expected [x, y] or [x, y, z] with whole x and y, got {at!r}")
        if not (0 <= at[0] < width and 0 <= at[1] < height):
            self.fail(f"{field}.at", f"{at[0]},{at[1]} is off the {width}x{height} map")
        if len(at) == 3:
            self.number(at[2], f"{field}.at[2]")
        size = spec.get("size", "medium")
        if not isinstance(size, str) or size not in SIZES:
            self.fail(f"{field}.size", f"unknown size {size!r} (known: {', '.join(SIZES)})")
        tags = spec.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            self.fail(f"{field}.tags", "expected a list of strings")
        stats = {k: self.number(val, f"{field}.{k}") for k, val in spec.items() if k not in FIGHTER_KEYS}
        image = self.image(spec.get("image", ""), f"{field}.image")
        return FighterSpec(
            id=fid, name=name, side=side, at=tuple(at), stats=stats, size=size, tags=tuple(tags), image=image
        )

    def image(self, raw: Any, field: str) -> str | UnsetType:
        """A token picture's path, checked now: a missing file is a mistake worth saying at `new`."""
        if raw == "":
            return UNSET
        if not isinstance(raw, str):
            self.fail(field, f"expected a path to a picture, got {raw!r}")
        if not raw.lower().endswith(IMAGE_SUFFIXES):
            self.fail(field, f"{raw!r}: expected a picture ({', '.join(IMAGE_SUFFIXES)})")
        if self.folder is None:
            return raw
        path = (self.folder / raw).resolve()
        if not path.is_file():
            self.fail(field, f"{raw!r}: no such file next to the scenario ({path})")
        return str(path)

    def walls(self, raw: Any, width: int, height: int) -> tuple[str | WallSpec, ...]:
        """map.walls: segments along grid lines, corners on the map (0..width, 0..height).

        Each is a string "x1,y1-x2,y2" (it stops movement and sight) or a table
        { at = "x1,y1-x2,y2", blocks = "movement" | "sight" | "both" }.
        """
        shape = (
            'expected a list of segments like "3,1-3,4" (grid corners x1,y1-x2,y2), or tables like '
            '{ at = "3,1-3,4", blocks = "sight" }'
        )
        if not isinstance(raw, list):
            self.fail("map.walls", shape)
        if len(raw) > MAX_WALLS:
            self.fail("map.walls", f"{len(raw):,} segments; the limit is {MAX_WALLS:,} (MAX_WALLS)")
        out: list[str | WallSpec] = []
        for i, item in enumerate(raw):
            field, blocks = f"map.walls[{i}]", BOTH
            if isinstance(item, dict):
                for key in item:
                    if key not in ("at", "blocks"):
                        self.fail(f"{field}.{key}", "unknown field (expected at, blocks)")
                blocks = item.get("blocks", BOTH)
                if blocks not in WALL_BLOCKS:
                    self.fail(
                        f"{field}.blocks",
                        f"expected what the wall stops: {', '.join(map(repr, WALL_BLOCKS))}, got {blocks!r}",
                    )
                text = item.get("at")
                if not isinstance(text, str):
                    self.fail(f"{field}.at", f'expected a segment like "3,1-3,4", got {text!r}')
                field = f"{field}.at"
            elif isinstance(item, str):
                text = item
            else:
                self.fail("map.walls", f"{shape}; entry {i} is {item!r}")
            try:
                x1, y1, x2, y2 = wall_segment(text)
            except ValueError as exc:
                self.fail(field, str(exc))
            for x, y in ((x1, y1), (x2, y2)):
                if not (0 <= x <= width and 0 <= y <= height):
                    self.fail(
                        field,
                        f"{text!r}: corner {x},{y} is off the map (corners of a {width}x{height} map run "
                        f"0..{width}, 0..{height})",
                    )
            (x1, y1), (x2, y2) = sorted(((x1, y1), (x2, y2)))
            at = f"{x1},{y1}-{x2},{y2}"
            out.append(at if blocks == BOTH else WallSpec(at=at, blocks=blocks))
        return tuple(out)

    def doors(
        self, raw: Any, width: int, height: int, walls: tuple[str | WallSpec, ...]
    ) -> tuple[DoorSpec, ...]:
        """map.doors: { at = "5,2|6,2", closed = true, locked = false }, one per edge, not on a wall."""
        if not isinstance(raw, list):
            self.fail("map.doors", 'expected a list of tables like { at = "5,2|6,2", closed = true }')
        if len(raw) > MAX_DOORS:
            self.fail("map.doors", f"{len(raw):,} doors; the limit is {MAX_DOORS:,} (MAX_DOORS)")
        walled = _walled_edges(walls) if raw else set()
        seen: dict[str, int] = {}
        out = []
        for i, spec in enumerate(raw):
            field = f"map.doors[{i}]"
            if not isinstance(spec, dict):
                self.fail(field, 'expected a table like { at = "5,2|6,2", closed = true }')
            for key in spec:
                if key not in ("at", "closed", "locked"):
                    self.fail(f"{field}.{key}", "unknown field (expected at, closed, locked)")
            at = spec.get("at")
            if not isinstance(at, str):
                self.fail(f"{field}.at", f'expected the door\'s two cells like "5,2|6,2", got {at!r}')
            try:
                a, b = door_cells(at)
            except ValueError as exc:
                self.fail(f"{field}.at", str(exc))
            for x, y in (a, b):
                if not (0 <= x < width and 0 <= y < height):
                    self.fail(f"{field}.at", f"{at!r}: cell {x},{y} is off the {width}x{height} map")
            name = door_name(a, b)
            if name in seen:
                self.fail(f"{field}.at", f"a second door on {name} (map.doors[{seen[name]}] is there)")
            if _edge_of(a, b) in walled:
                self.fail(
                    f"{field}.at",
                    f"{name} is walled (map.walls): a door replaces the wall, so leave "
                    "that piece of wall out",
                )
            seen[name] = i
            flags = {}
            for key in ("closed", "locked"):
                value = spec.get(key, key == "closed")
                if not isinstance(value, bool):
                    self.fail(f"{field}.{key}", f"expected true or false, got {value!r}")
                flags[key] = value
            if flags["locked"] and not flags["closed"]:
                self.fail(f"{field}.locked", "a locked door is closed; drop closed = false")
            out.append(DoorSpec(at=name, closed=flags["closed"], locked=flags["locked"]))
        return tuple(out)

    def sides(self, raw: Any, known: set[str]) -> dict[str, SideSpec]:
        if not isinstance(raw, dict):
            self.fail("sides", 'expected tables like [sides.blue] with colour = "#2f6fd6"')
        out = {}
        for side, spec in raw.items():
            field = f"sides.{side}"
            if side not in known:
                self.fail(field, f"no fighter is on side {side!r} (sides: {', '.join(sorted(known))})")
            if not isinstance(spec, dict) or set(spec) - {"colour"}:
                self.fail(field, 'expected a table with colour = "#rrggbb" (or a colour name)')
            colour = spec.get("colour", "")
            if not isinstance(colour, str) or not re.match(COLOUR, colour):
                self.fail(f"{field}.colour", f"expected #rgb, #rrggbb or a colour name, got {colour!r}")
            out[side] = SideSpec(colour=colour)
        return out


Edge = tuple[int, int, int]  # (x, y, 0): the edge east of cell x,y; (x, y, 1): the edge south of it


def _edge_of(a: tuple[int, int], b: tuple[int, int]) -> Edge:
    """The edge between two orthogonally adjacent cells given in reading order."""
    return (a[0], a[1], 0) if a[1] == b[1] else (a[0], a[1], 1)


def wall_edges(segment: tuple[int, int, int, int]) -> Iterator[Edge]:
    """The cell edges a wall segment covers (with edges on the map's border, where no cell is beyond)."""
    x1, y1, x2, y2 = segment
    if x1 == x2:  # vertical: separates cells x1-1 | x1 on rows y1..y2-1
        for y in range(min(y1, y2), max(y1, y2)):
            yield (x1 - 1, y, 0)
    else:  # horizontal: separates cells on row y1-1 | y1, columns x1..x2-1
        for x in range(min(x1, x2), max(x1, x2)):
            yield (x, y1 - 1, 1)


def _walled_edges(walls: tuple[str | WallSpec, ...]) -> set[Edge]:
    """Every edge a wall of any kind lies on (a door replaces the wall: none may share its edge)."""
    return {e for w in walls for e in wall_edges(wall_segment(w if isinstance(w, str) else w.at))}
