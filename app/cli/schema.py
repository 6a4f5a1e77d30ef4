"""The `schema` verb: the published contracts (app/cli/schemas.py), printed for an integrator or an editor."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from tabletrail.cli.schemas import SCHEMAS

AddVerb = Callable[[str, Any, str], argparse.ArgumentParser]

ABOUT = {
    "events": "a log line: the envelope, the chain fields and every event type",
    "event": "an event alone (a line's `event`, as /api/events and the stream carry it)",
    "scenario": "the scenario file (TOML): for taplo or VS Code's Even Better TOML",
    "cli-json": "every --json output of every verb",
    "openapi": "the table view's HTTP API (OpenAPI 3.1)",
    "asyncapi": "the table view's live stream (AsyncAPI 3)",
}


def cmd_schema(args: argparse.Namespace) -> int:

    print(json.dumps(SCHEMAS[args.kind](), indent=2, sort_keys=True))
    return 0


def register(sub: Any, add: AddVerb) -> None:
    """Add this group's verbs; `add(name, fn, help)` returns the verb's parser."""
    p = add("schema", cmd_schema, "print a published JSON Schema (or the API's OpenAPI / AsyncAPI document)")
    p.add_argument(
        "kind",
        choices=sorted(ABOUT),
        help="; ".join(f"{k}: {v}" for k, v in sorted(ABOUT.items())),
    )


def examples() -> dict[str, str]:
    return {"schema": "tabletrail schema scenario   # save it as scenario.schema.json for your editor"}
