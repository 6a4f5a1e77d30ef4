"""CLI verbs of the audit group, registered into the main parser by tabletrail.cli."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

AddVerb = Callable[[str, Any, str], argparse.ArgumentParser]


def register(sub: Any, add: AddVerb) -> None:
    """Add this group's verbs; `add(name, fn, help)` returns the verb's parser.

    Every verb's --help shows an example: return it from `examples()`.
    """


def examples() -> dict[str, str]:
    return {}
