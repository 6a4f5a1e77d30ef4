"""CLI verbs of the store group, registered into the main parser by tabletrail.cli."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabletrail.events.log import JsonlStore, Store

AddVerb = Callable[[str, Any, str], argparse.ArgumentParser]


def register(sub: Any, add: AddVerb) -> None:
    """Add this group's verbs; `add(name, fn, help)` returns the verb's parser.

    Every verb's --help shows an example: return it from `examples()`.
    """


def examples() -> dict[str, str]:
    return {}


def store_for(path: str) -> Store:
    """The store behind a log path given on the command line."""
    return JsonlStore(path)


def default_log(scenario_path: str) -> str:
    """Where `tabletrail new SCENARIO` keeps the log when --log is not given."""
    return str(Path(scenario_path).with_suffix(".jsonl").name)
