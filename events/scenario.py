"""Scenario files: what a GM writes by hand before an encounter starts.

A scenario is TOML. Loading validates every field and names the file and the
field path of the first mistake, so a typo never turns into a traceback or a
half-started encounter. The validated `Scenario` travels inside the first event
of every log, which makes a log self-contained.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType
from tabletrail.events.errors import InputError
from tabletrail.events.limits import (
    MAX_FIGHTERS,
    MAX_MAP_CELLS,
    MAX_MAP_SIDE,
    MAX_SCENARIO_BYTES,
    check_number,
)

Number = int | float
SettingValue = str | int | float | bool

# Tags a legend entry may carry; rulesets give them meaning. Kept closed so a
# typo such as "slipery" is caught when the scenario is loaded.
KNOWN_TAGS = frozenset(
    {
        "floor",
        "wall",
        "solid",
        "rough",
        "difficult",
        "water",
        "deep",
        "slippery",
        "unstable",
        "soft",
        "liquid",
        "hazard",
        "trap",
        "ladder",
        "stairs",
        "gap",
        "obstacle",
        "ledge",
        "stable",
        "climbable",
    }
)
# A terrain name is shorthand for its tags.
TERRAIN_TAGS: dict[str, tuple[str, ...]] = {
    "floor": ("floor",),
    "wall": ("wall", "solid", "stable"),
    "rough": ("rough", "difficult"),
    "difficult": ("rough", "difficult"),
    "water": ("water", "rough", "difficult", "liquid"),
    "deep-water": ("water", "deep", "liquid"),
    "slippery": ("slippery",),
    "unstable": ("unstable",),
    "soft": ("soft",),
    "hazard": ("hazard",),
    "trap": ("trap",),
    "ladder": ("ladder", "climbable"),
    "stairs": ("stairs",),
    "gap": ("gap",),
    "obstacle": ("obstacle", "solid"),
    "ledge": ("ledge", "climbable"),
    "stable": ("stable", "solid"),
}
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
        return frozenset(TERRAIN_TAGS.get(self.terrain, ()) + self.tags)


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


class Scenario(msgspec.Struct, frozen=True, gc=False):
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

    def side_colours(self) -> dict[str, str]:
        """The colours the scenario gives its sides (none for older scenarios)."""
        sides = self.sides if isinstance(self.sides, dict) else {}
        return {side: spec.colour for side, spec in sides.items() if spec.colour}

    def fighter(self, fighter_id: str) -> FighterSpec | None:
        return next((f for f in self.fighters if f.id == fighter_id), None)


FIGHTER_KEYS = {"id", "name", "side", "at", "size", "tags", "image"}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".svg")
COLOUR = re.compile(r"^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[a-z]{3,20})$")


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
        from tabletrail.events.toml_places import locate

        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise exc from None
        raise InputError(locate(str(exc), str(path), text)) from None


def parse_scenario(raw: dict[str, Any], source: str = "scenario", folder: Path | None = None) -> Scenario:
    """Validate a decoded TOML document; errors name `source` and the field path.

    `folder` is where the scenario file lies: token images are written relative to it.
    """
    v = _Validator(source, folder)
    unknown = set(raw) - {"encounter", "settings", "map", "fighters", "sides"}
    if unknown:  # first: a misspelt [mapp] would otherwise be reported as a map without rows
        v.fail(sorted(unknown)[0], "unknown section (expected encounter, settings, map, fighters, sides)")
    enc = v.table(raw, "encounter")
    name = v.string(enc, "name", "encounter.name")
    ruleset = v.string(enc, "ruleset", "encounter.ruleset")
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
    if len(rows) > MAX_MAP_SIDE or width > MAX_MAP_SIDE or len(rows) * width > MAX_MAP_CELLS:
        v.fail(
            "map.rows",
            f"a {width} x {len(rows)} map; the limits are {MAX_MAP_SIDE} a side (MAX_MAP_SIDE) and "
            f"{MAX_MAP_CELLS:,} cells (MAX_MAP_CELLS)",
        )
    for i, row in enumerate(rows):
        if len(row) != width:
            v.fail(f"map.rows[{i}]", f"row is {len(row)} characters wide, row 0 is {width}")
    legend_raw = map_.get("legend")
    if not isinstance(legend_raw, dict) or not legend_raw:
        v.fail("map.legend", "expected a table mapping each map character to its terrain")
    legend = {ch: v.cell_kind(ch, spec) for ch, spec in legend_raw.items()}
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
    )


class _Validator:
    def __init__(self, source: str, folder: Path | None = None) -> None:
        self.source = source
        self.folder = folder

    def fail(self, field: str, message: str) -> None:
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
        if not isinstance(terrain, str) or terrain not in TERRAIN_TAGS:
            self.fail(f"{field}.terrain", f"unknown terrain {terrain!r} (known: {sorted(TERRAIN_TAGS)})")
        tags = spec.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            self.fail(f"{field}.tags", "expected a list of tag names")
        for t in tags:
            if t not in KNOWN_TAGS:
                self.fail(f"{field}.tags", f"unknown tag {t!r} (known: {sorted(KNOWN_TAGS)})")
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

    def fighter(self, i: int, spec: Any, width: int, height: int) -> FighterSpec:
        field = f"fighters[{i}]"
        if not isinstance(spec, dict):
            self.fail(field, "expected a table")
        fid = self.string(spec, "id", f"{field}.id")
        if not fid.replace("-", "").replace("_", "").isalnum():
            self.fail(f"{field}.id", f"use letters, digits, - and _ only, got {fid!r}")
        name = spec.get("name", fid)
        if not isinstance(name, str):
            self.fail(f"{field}.name", f"expected a string, got {name!r}")
        side = self.string(spec, "side", f"{field}.side")
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
            if not isinstance(colour, str) or not COLOUR.match(colour):
                self.fail(f"{field}.colour", f"expected #rgb, #rrggbb or a colour name, got {colour!r}")
            out[side] = SideSpec(colour=colour)
        return out
