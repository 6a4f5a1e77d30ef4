"""initiative-yards: the movement chapter of document 000_764c39d2887f9ddf.txt.

Rule ids are the catalogue's `initiative-yards/<rule>`; each is cited next to the code
that enforces it.
"""

from __future__ import annotations

from tabletrail.core.geometry import EUCLIDEAN
from tabletrail.core.ruleset import Rule, Ruleset, Setting, Stat


class InitiativeYards(Ruleset):
    id = "initiative-yards"
    title = "Initiative yards per move action"
    document = "000_764c39d2887f9ddf.txt"
    unit = "yd"
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
