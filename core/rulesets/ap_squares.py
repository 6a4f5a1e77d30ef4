"""ap-squares: the movement chapter of document 002_0a50226be3a32e43.txt.

Rule ids are the catalogue's `ap-squares/<rule>`; each is cited next to the code
that enforces it.
"""

from __future__ import annotations

from tabletrail.core.geometry import EUCLIDEAN
from tabletrail.core.ruleset import Rule, Ruleset, Setting, Stat


class ApSquares(Ruleset):
    id = "ap-squares"
    title = "Action points per cycle, 1 m squares"
    document = "002_0a50226be3a32e43.txt"
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
