"""The rulesets, one per rule document in shared/rules, by their catalogue id."""

from __future__ import annotations

from tabletrail.core.ruleset import Ruleset
from tabletrail.core.rulesets.speed_meters import SpeedMeters

RULESETS: dict[str, Ruleset] = {r.id: r for r in (SpeedMeters(),)}


def get(ruleset_id: str) -> Ruleset:
    from tabletrail.events.errors import InputError

    try:
        return RULESETS[ruleset_id]
    except KeyError:
        raise InputError(
            f"unknown ruleset {ruleset_id!r} (known: {', '.join(sorted(RULESETS))})"
        ) from None
