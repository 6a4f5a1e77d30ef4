"""A scenario written back as TOML: the file a GM would have written by hand.

The browser's encounter builder keeps its draft as the scenario's own structure (what
`tomllib` gives for a scenario file), and an encounter's scenario travels in its log's
first line. Both are written out here as a scenario file that `tabletrail new` reads back
to the same scenario: the builder speaks the scenario format, never a second one.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tabletrail.events.picture import PictureSpec
from tabletrail.events.scenario_spec import CellKind, Scenario

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_SECTION_ORDER = ("encounter", "settings", "map", "sides", "picture")


def raw_of(scenario: Scenario) -> dict[str, Any]:
    """A scenario as a scenario file's TOML decodes: what `parse_scenario` reads back to it."""
    enc: dict[str, Any] = {"name": scenario.name, "ruleset": scenario.ruleset, "seed": scenario.seed}
    if scenario.initiative:
        enc["initiative"] = list(scenario.initiative)
    map_: dict[str, Any] = {"rows": list(scenario.rows), "legend": {}}
    walls = [w if isinstance(w, str) else {"at": w.at, "blocks": w.blocks} for w in scenario.wall_specs()]
    if walls:
        map_["walls"] = walls
    doors = [{"at": d.at, "closed": d.closed, "locked": d.locked} for d in scenario.door_list()]
    if doors:
        map_["doors"] = doors
    map_["legend"] = {ch: _kind(kind) for ch, kind in scenario.legend.items()}
    raw: dict[str, Any] = {"encounter": enc}
    if scenario.settings:
        raw["settings"] = dict(scenario.settings)
    raw["map"] = map_
    colours = scenario.side_colours()
    if colours:
        raw["sides"] = {side: {"colour": c} for side, c in colours.items()}
    pic = scenario.picture
    if isinstance(pic, PictureSpec):
        raw["picture"] = {
            "file": pic.file,
            "pixels_per_grid": pic.pixels_per_grid,
            "origin": list(pic.origin),
        }
    fighters = []
    for f in scenario.fighters:
        one: dict[str, Any] = {"id": f.id, "name": f.name, "side": f.side, "at": list(f.at)}
        if f.size != "medium":
            one["size"] = f.size
        if f.tags:
            one["tags"] = list(f.tags)
        if f.picture:
            one["image"] = f.picture
        one.update(f.stats)
        fighters.append(one)
    raw["fighters"] = fighters
    return raw


def _kind(kind: CellKind) -> dict[str, Any]:
    """A legend entry with only what differs from a plain cell of its terrain."""
    out: dict[str, Any] = {"terrain": kind.terrain}
    if kind.tags:
        out["tags"] = list(kind.tags)
    for name in ("ground", "height", "depth", "climb"):
        value = getattr(kind, name)
        if value:
            out[name] = value
    return out


def toml_text(raw: dict[str, Any], heading: str = "") -> str:
    """The scenario structure `raw` as a TOML scenario file (sections in the README's order)."""
    lines = [f"# {line}" for line in heading.splitlines()] + ([""] if heading else [])
    for name in [*_SECTION_ORDER, *sorted(k for k in raw if k not in _SECTION_ORDER and k != "fighters")]:
        table = raw.get(name)
        if isinstance(table, dict):
            _section(lines, [name], table)
    for fighter in raw.get("fighters", []) or []:
        lines.append("[[fighters]]")
        lines += [f"{_key(k)} = {_value(v)}" for k, v in fighter.items()]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _section(lines: list[str], path: list[str], table: dict[str, Any]) -> None:
    """[a.b] with its plain values, then its sub-tables as sections of their own (map.legend, sides.X)."""
    plain = {k: v for k, v in table.items() if not (isinstance(v, dict) and len(path) < 2)}
    subs = {k: v for k, v in table.items() if k not in plain}
    if plain or not subs:
        lines.append("[" + ".".join(_key(p) for p in path) + "]")
        for k, v in plain.items():
            if k == "rows" and isinstance(v, list):
                lines.append("rows = [")
                lines += [f"    {_value(r)}," for r in v]
                lines.append("]")
            elif isinstance(v, list) and v and all(isinstance(i, dict) for i in v):
                lines.append(f"{_key(k)} = [")
                lines += [f"    {_value(i)}," for i in v]
                lines.append("]")
            else:
                lines.append(f"{_key(k)} = {_value(v)}")
        lines.append("")
    for k, v in subs.items():
        _section(lines, [*path, k], v)


def _key(key: str) -> str:
    return key if BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)


def _value(value: Any) -> str:
    """A TOML value: JSON's string escapes are TOML's basic-string escapes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # the reader refuses a number that is not finite before it gets here
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"a scenario holds no {type(value).__name__}")
