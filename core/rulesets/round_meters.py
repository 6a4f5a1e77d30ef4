"""round-meters: the movement chapter of document 001_f4ae7af380350405.txt.

Rule ids are the catalogue's `round-meters/<rule>`; each is cited next to the code
that enforces it.
"""

from __future__ import annotations

from tabletrail.core.geometry import EUCLIDEAN
from tabletrail.core.ruleset import Rule, Ruleset, Setting, Stat


class RoundMeters(Ruleset):
    id = "round-meters"
    title = "Movement per round, AP for actions"
    document = "001_f4ae7af380350405.txt"
    unit = "m"
    rules: tuple[Rule, ...] = ()  # TODO(issue): every rule id of the catalogue table
    settings = (
        Setting(
            "diagonal",
            EUCLIDEAN,
            "cost of a diagonal step: every-1, alternating, euclidean, manhattan",
            ("every-1", "alternating", "euclidean", "manhattan"),
        ),
        Setting("check_formula", "1d20", "dice the seeded source rolls for a check (house default)"),
    )
    stats: tuple[Stat, ...] = ()
