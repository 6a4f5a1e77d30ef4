"""The rulesets, one per rule document in shared/rules, by their catalogue id."""

from __future__ import annotations

from tabletrail.core import rulings  # noqa: F401  (GM rulings: commands every ruleset accepts)
from tabletrail.core.ruleset import Ruleset
from tabletrail.core.rulesets.ap_squares import ApSquares
from tabletrail.core.rulesets.initiative_yards import InitiativeYards
from tabletrail.core.rulesets.round_meters import RoundMeters
from tabletrail.core.rulesets.speed_meters import SpeedMeters

RULESETS: dict[str, Ruleset] = {
    r.id: r for r in (InitiativeYards(), RoundMeters(), ApSquares(), SpeedMeters())
}


def get(ruleset_id: str) -> Ruleset:
    from tabletrail.events.errors import InputError

    try:
        return RULESETS[ruleset_id]
    except KeyError:
        raise InputError(f"unknown ruleset {ruleset_id!r} (known: {', '.join(sorted(RULESETS))})") from None
