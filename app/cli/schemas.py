"""The published schemas: what leaves tabletrail, described for whoever builds on it.

A log line, the scenario file and every `--json` output are each described by a JSON Schema
(draft 2020-12) built from the very types the code writes them with (msgspec exports the Structs),
so a bot, a VTT bridge or an editor reads the same contract the engine keeps. `tabletrail schema
KIND` prints one; `tests/project/test_schemas.py` holds every shipped replay, scenario and `--json` output
of the test suite to them.
"""

from __future__ import annotations

from typing import Any

import msgspec
from tabletrail.core.board.state import Fighter, Turn
from tabletrail.events.scenario.schema import scenario_schema as built
from tabletrail.events.stores.record import Record
from tabletrail.events.types import AnyEvent

DIALECT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://tabletrail.invalid/schema/"  # names only: nothing is ever fetched from there

# The envelope of a log line, in words (the Struct's fields carry no descriptions of their own).
LINE_FIELDS = {
    "seq": "the line's place in the log, from 1; a log's version is its last seq",
    "batch": "the command this line belongs to: one command is one batch, undone and redone whole",
    "actor": "who gave the command: a side, or gm",
    "at": "when it was written (ISO 8601, UTC)",
    "prev": (
        "the chain: BLAKE2b (16-byte digest, hex) of the previous line's bytes as written, keyed by "
        "the table's secret when line 1 carries `keyed`; empty on line 1"
    ),
    "event": "the fact itself, tagged by `type`",
    "size": "on a batch's first line: how many lines the batch holds",
    "command_id": "on a batch's first line: the caller's id, so a retried command appends nothing",
    "schema": "the event vocabulary that wrote the line (absent: 1); older lines are lifted on read",
    "keyed": "on line 1 of a keyed log: the check value of the key its chain is keyed with",
}


def _schema_of(kind: Any) -> dict[str, Any]:
    """msgspec's schema of a type, its `$ref`s kept under `$defs`."""
    return msgspec.json.schema(kind)


def log_line_schema() -> dict[str, Any]:
    """One line of a log (JSONL, or a row of a database store): the envelope and every event type."""

    schema = _schema_of(Record)
    record = schema["$defs"]["Record"]
    for name, words in LINE_FIELDS.items():
        record["properties"][name]["description"] = words
    record["description"] = (
        "One line of a tabletrail log: appended once, never edited. Each line carries the hash of the "
        "one before it, so a changed, removed or reordered line breaks the chain (`tabletrail verify`)."
    )
    return {
        "$schema": DIALECT,
        "$id": BASE + "log-line.json",
        "title": "tabletrail log line",
        **schema,
    }


def events_schema() -> dict[str, Any]:
    """The facts alone (a line's `event`), for a client that reads `/api/events` or the stream."""

    return {
        "$schema": DIALECT,
        "$id": BASE + "events.json",
        "title": "tabletrail event",
        **_schema_of(AnyEvent),
    }


def scenario_schema() -> dict[str, Any]:

    return built()


class Units(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How to read the lengths in `data`: exact integers of centi-units (`scale` 100: 150 is 1.5 m)."""

    length: str
    scale: int
    centi: list[str]  # the budgets held in centi-units; other budgets are plain counts


class ErrorData(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A mistake of the caller's, in one line that names what and where."""

    error: str


class Door(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    at: str  # "5,2|6,2"
    cells: list[list[int]]
    state: str  # open, closed or locked


class Board(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The board folded from the log: what `show --json` and `replay --json` print."""

    ruleset: str
    turn: Turn
    fighters: list[Fighter]
    links: list[list[str]]
    marks: dict[str, Any]
    dice_drawn: int
    walls: list[list[int]] = []
    doors: list[Door] = []


class Logged(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A logged line in `log --json` and `do --json`: the event as written and the words `log` prints."""

    seq: int
    batch: int
    actor: str
    at: str
    status: str  # in force, undone or abandoned
    text: str
    event: AnyEvent


def _kinds() -> dict[str, Any]:
    """Each `--json` kind and the type its `data` has; None where the verb's data is free-form."""
    return {
        "board": Board,
        "log": list[Logged],
        "appended": list[Logged],
        "error": ErrorData,
        # Verbs whose data is a structure of their own, described by the verb's documentation:
        "refused": None,
        "rulesets": None,
        "modifiers": None,
        "commands": None,
        "explain": None,
        "why": None,
        "verify": None,
        "whatif": None,
        "import-map": None,
        "invite": None,
        "invites": None,
        "encounters": None,
    }


def cli_json_schema() -> dict[str, Any]:
    """Every `--json` output: one document `{schema, kind, units?, data}`, `data` typed per kind."""
    kinds = _kinds()
    typed = {k: t for k, t in kinds.items() if t is not None}
    (data_schemas, components) = msgspec.json.schema_components(
        [Units, *typed.values()], ref_template="#/$defs/{name}"
    )
    units_schema, *typed_schemas = data_schemas
    branches = [
        {
            "if": {"properties": {"kind": {"const": kind}}},
            "then": {"properties": {"data": schema}},
        }
        for kind, schema in zip(typed, typed_schemas, strict=True)
    ]
    return {
        "$schema": DIALECT,
        "$id": BASE + "cli-json.json",
        "title": "tabletrail --json output",
        "description": (
            "What any verb prints with --json: one JSON document. `kind` says what `data` holds; "
            "lengths in `data` are integers of centi-units as `units` says."
        ),
        "type": "object",
        "required": ["schema", "kind", "data"],
        "additionalProperties": False,
        "properties": {
            "schema": {
                "const": 1,
                "description": "the shape of every --json output; raised when a key changes",
            },
            "kind": {"enum": sorted(kinds)},
            "units": units_schema,
            "data": {"description": "the verb's answer; typed for the kinds listed under allOf"},
        },
        "allOf": branches,
        "$defs": components,
    }


def openapi_schema() -> dict[str, Any]:
    """The table view's HTTP API (OpenAPI 3.1), built from its table of routes."""
    from tabletrail.web.contract import openapi

    return openapi()


def asyncapi_schema() -> dict[str, Any]:
    """The live stream (AsyncAPI 3)."""
    from tabletrail.web.contract import asyncapi

    return asyncapi()


SCHEMAS = {
    "events": log_line_schema,
    "event": events_schema,
    "scenario": scenario_schema,
    "cli-json": cli_json_schema,
    "openapi": openapi_schema,
    "asyncapi": asyncapi_schema,
}
