"""The scenario file's JSON Schema, built from the same names and limits the reader checks.

A GM writes scenarios by hand in TOML; an editor that knows this schema (taplo, VS Code's Even
Better TOML) completes the section and field names and underlines a misspelt terrain before
`tabletrail new` is ever run. The schema describes the file as written (`[map] rows`, a legend
entry as a terrain name or a table), not the `Scenario` struct it is read into, so it is built here
from the reader's own vocabularies (terrains, tags, sizes, limits): a terrain added to the reader
is offered by the editor at once. `events/scenario/reader.py` stays the judge: the schema can't say that
a fighter stands on the map or that the initiative names every fighter.
"""

from __future__ import annotations

from typing import Any

from tabletrail.events.limits import MAX_DOORS, MAX_FIGHTERS, MAX_MAP_SIDE, MAX_WALLS
from tabletrail.events.plugins import known_tags, terrain_tags
from tabletrail.events.scenario.reader import COLOUR
from tabletrail.events.scenario_spec import BOTH, SIZES, WALL_BLOCKS

SCHEMA_ID = "https://tabletrail.invalid/schema/scenario.json"  # a name, never fetched
NUMBER = {"type": "number"}
SEGMENT = r"^\s*\d+\s*,\s*\d+\s*-\s*\d+\s*,\s*\d+\s*$"


_WALLS_DOC = (
    'thin walls along grid lines, "x1,y1-x2,y2" in grid corners (they stop movement and sight), '
    'or { at = "x1,y1-x2,y2", blocks = "movement" | "sight" | "both" }'
)
_WALL = r"^\s*\d+\s*,\s*\d+\s*-\s*\d+\s*,\s*\d+\s*$"  # "x1,y1-x2,y2", grid corners


def _strings(doc: str, *, pattern: str | None = None) -> dict[str, Any]:
    items: dict[str, Any] = {"type": "string"}
    if pattern:
        items["pattern"] = pattern
    return {"type": "array", "items": items, "description": doc}


def _legend_entry() -> dict[str, Any]:
    terrain = {
        "enum": sorted(terrain_tags()),  # the shared ones and the installed rulesets'
        "description": "what the ground is; each terrain carries its tags",
    }
    return {
        "description": 'a terrain name, or a table such as { terrain = "rough", tags = ["soft"] }',
        "oneOf": [
            terrain,
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "terrain": terrain,
                    "tags": {
                        "type": "array",
                        "items": {"enum": sorted(known_tags())},
                        "description": "tags beside the terrain's own",
                    },
                    "ground": {**NUMBER, "description": "height of the ground, in the ruleset's units"},
                    "height": {
                        **NUMBER,
                        "minimum": 0,
                        "description": "height of an obstacle standing on the ground (a vault, a ledge)",
                    },
                    "depth": {**NUMBER, "minimum": 0, "description": "depth of water below its surface"},
                    "climb": {
                        "enum": [0, 1, 2, 3],
                        "description": "climbing difficulty, 1 to 3 (speed-meters)",
                    },
                },
            },
        ],
    }


def _fighter() -> dict[str, Any]:
    fixed = {
        "id": {
            "type": "string",
            "pattern": "^[A-Za-z0-9_-]+$",
            "description": "how commands name the fighter: letters, digits, - and _",
        },
        "name": {"type": "string", "description": "the name players see (the id when left out)"},
        "side": {"type": "string", "description": "whose fighter it is: a player's link speaks for a side"},
        "at": {
            "type": "array",
            "minItems": 2,
            "maxItems": 3,
            "prefixItems": [{"type": "integer"}, {"type": "integer"}, NUMBER],
            "description": "[x, y] or [x, y, z]: column, row (row 0 at the top), height",
        },
        "size": {"enum": list(SIZES), "default": "medium"},
        "tags": {"type": "array", "items": {"type": "string"}, "description": "the fighter's own tags"},
        "image": {"type": "string", "description": "a token picture, relative to the scenario file"},
    }
    return {
        "type": "object",
        "required": ["id", "side", "at"],
        "properties": fixed,
        "additionalProperties": {
            **NUMBER,
            "description": "a stat of the ruleset (speed = 6): `tabletrail rules RULESET` lists them",
        },
    }


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a scenario file, as its TOML reads once decoded."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "tabletrail scenario",
        "description": "A map and its fighters, read by `tabletrail new SCENARIO.toml`.",
        "type": "object",
        "required": ["encounter", "map", "fighters"],
        "additionalProperties": False,
        "properties": {
            "encounter": {
                "type": "object",
                "required": ["name", "ruleset"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "description": "the encounter's name"},
                    "ruleset": {
                        "type": "string",
                        "description": "initiative-yards, round-meters, ap-squares or speed-meters",
                    },
                    "seed": {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": 2**63 - 1,
                        "description": "the seeded dice's start: the same seed draws the same rolls",
                    },
                    "initiative": _strings("fighter ids in turn order; every fighter once"),
                },
            },
            "settings": {
                "type": "object",
                "description": "the table's rulings: `tabletrail rules RULESET` lists each with its choices",
                "additionalProperties": {"type": ["string", "number", "boolean"]},
            },
            "map": {
                "type": "object",
                "required": ["rows", "legend"],
                "additionalProperties": False,
                "properties": {
                    "rows": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": MAX_MAP_SIDE,
                        "items": {"type": "string", "minLength": 1, "maxLength": MAX_MAP_SIDE},
                        "description": "one string per row, one character per cell, every row as wide",
                    },
                    "legend": {
                        "type": "object",
                        "minProperties": 1,
                        "propertyNames": {"minLength": 1, "maxLength": 1},
                        "additionalProperties": _legend_entry(),
                        "description": "what each map character stands for",
                    },
                    "walls": {
                        "type": "array",
                        "maxItems": MAX_WALLS,
                        "description": 'thin walls along grid lines, "x1,y1-x2,y2" in grid corners',
                        "items": {
                            "oneOf": [
                                {
                                    "type": "string",
                                    "pattern": SEGMENT,
                                    "description": "a wall that stops both",
                                },
                                {
                                    "type": "object",
                                    "required": ["at"],
                                    "additionalProperties": False,
                                    "properties": {
                                        "at": {"type": "string", "pattern": SEGMENT},
                                        "blocks": {
                                            "enum": list(WALL_BLOCKS),
                                            "default": BOTH,
                                            "description": "what the wall stops: bodies, sight, or both",
                                        },
                                    },
                                },
                            ]
                        },
                    },
                    "doors": {
                        "type": "array",
                        "maxItems": MAX_DOORS,
                        "description": "doors on the edge between two neighbouring cells",
                        "items": {
                            "type": "object",
                            "required": ["at"],
                            "additionalProperties": False,
                            "properties": {
                                "at": {
                                    "type": "string",
                                    "pattern": r"^\s*\d+\s*,\s*\d+\s*\|\s*\d+\s*,\s*\d+\s*$",
                                    "description": 'the two cells, "5,2|6,2"',
                                },
                                "closed": {"type": "boolean", "default": True},
                                "locked": {"type": "boolean", "default": False},
                            },
                        },
                    },
                },
            },
            "fighters": {"type": "array", "minItems": 1, "maxItems": MAX_FIGHTERS, "items": _fighter()},
            "sides": {
                "type": "object",
                "description": "how the board shows each side",
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "colour": {
                            "type": "string",
                            "pattern": COLOUR,
                            "description": "#rgb, #rrggbb or a name",
                        }
                    },
                },
            },
            "picture": {
                "type": "object",
                "required": ["file", "pixels_per_grid"],
                "additionalProperties": False,
                "description": "a battle-map picture under the grid",
                "properties": {
                    "file": {"type": "string", "minLength": 1},
                    "pixels_per_grid": {"type": "number", "exclusiveMinimum": 0, "maximum": 1000},
                    "origin": {
                        "type": "array",
                        "prefixItems": [NUMBER, NUMBER],
                        "minItems": 2,
                        "maxItems": 2,
                        "description": "the grid position of the picture's top-left",
                    },
                },
            },
        },
    }
