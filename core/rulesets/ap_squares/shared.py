"""ap-squares, what every rule of the chapter shares.

The document's numbers in whole AP, the marks an invasion and an area effect
leave, and `Shared`: the AP ledger (AP per cycle, what is left, paying). The
rules themselves live in the sibling modules.
"""

from __future__ import annotations

from tabletrail.core.rulesets.ap_squares.zero_g import ap
from tabletrail.ruleset_api import CU, Batch, EncounterState, Fighter, Ruleset, require
from tabletrail.ruleset_api import events as ev

# The document's numbers, in whole AP (or as stated).
WALK_AP = 1  # walk: a square walked
CRAWL_AP = 2  # crawl and zero-g-crawl: a square crawled
BLOCK_AP = 2  # invade: a body-block parry
LEAP_MIN_AP = 2  # reflexive-leap: "must have at least two (2) AP remaining", whatever the leap costs
LEAP_EXTRA_AP = 2  # reflexive-leap: each meter beyond the first
LEAP_DIFFICULTY = 18  # reflexive-leap: the Celerity roll to dive out
LEAP_EXTRA_DIFFICULTY = 3  # reflexive-leap: each meter beyond the first
HALVE_DIFFICULTY = 13  # reflexive-leap: the Dexterity roll to halve the damage

# Marked on an invader whose move waits: {"cell": [x, y], "occupant": id, "parity": diagonals so far}
INVADING = "invading"
BLOCKED = "blocked"  # Marked on an invader: squares it was blocked from this cycle, [[x, y], ...]
AREA = "area-effect"  # BoardMarked: {"cells", "damage", "unaware", "caught"} until it lands


class Shared(Ruleset):
    """The AP ledger every rule spends from: AP per cycle, kept in hundredths."""

    def ap_max(self, state: EncounterState, f: Fighter) -> int:
        """AP per cycle, in hundredths."""
        return int(self.stat(f, "ap") or state.settings["ap_per_cycle"]) * CU

    def ap_left(self, state: EncounterState, fighter_id: str) -> int:
        f = self.fighter(state, fighter_id)
        return self.ap_max(state, f) - f.used("ap")

    def pay(self, b: Batch, fighter_id: str, amount: int, rule: str, what: str) -> None:
        """Spend whole AP on `what`, or refuse with what it costs and what is left."""
        cost = amount * CU
        left = self.ap_left(b.state, fighter_id)
        require(
            cost <= left,
            rule,
            f"{what} costs {ap(cost)}; {fighter_id} has {ap(left)} left this cycle",
        )
        b.emit(
            ev.Spent(
                fighter=fighter_id,
                resource="ap",
                amount=cost,
                rules=(rule,),
                note=f"{what}: {ap(cost)} ({ap(left - cost)} left this cycle)",
            )
        )
