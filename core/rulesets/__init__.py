"""The rulesets, one per rule document in shared/rules, by their catalogue id.

Each ruleset's module is imported the first time that ruleset is asked for:
a command on a speed-meters encounter never loads the other three (the CLI
answers faster; see benchmarks/bench_cli.py). Iterating RULESETS loads them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from tabletrail.core import rulings  # noqa: F401  (GM rulings: commands every ruleset accepts)
from tabletrail.core.ruleset import Ruleset

# id -> (module under tabletrail.core.rulesets, class), in the order the CLI lists them
WHERE: dict[str, tuple[str, str]] = {
    "initiative-yards": ("initiative_yards", "InitiativeYards"),
    "round-meters": ("round_meters", "RoundMeters"),
    "ap-squares": ("ap_squares", "ApSquares"),
    "speed-meters": ("speed_meters", "SpeedMeters"),
}


class _Registry(Mapping[str, Ruleset]):
    """The rulesets by id, each built once, on first use."""

    def __init__(self) -> None:
        self._made: dict[str, Ruleset] = {}

    def __getitem__(self, ruleset_id: str) -> Ruleset:
        made = self._made.get(ruleset_id)
        if made is None:
            module, name = WHERE[ruleset_id]
            cls = getattr(importlib.import_module(f"{__name__}.{module}"), name)
            made = self._made[ruleset_id] = cls()
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(WHERE)

    def __len__(self) -> int:
        return len(WHERE)

    def __contains__(self, ruleset_id: object) -> bool:
        return ruleset_id in WHERE


RULESETS: Mapping[str, Ruleset] = _Registry()


def get(ruleset_id: str) -> Ruleset:
    from tabletrail.events.errors import InputError

    try:
        return RULESETS[ruleset_id]
    except KeyError:
        raise InputError(f"unknown ruleset {ruleset_id!r} (known: {', '.join(sorted(RULESETS))})") from None
