"""initiative-yards' parts, and the one surface of the ruleset they share.

Every family of the chapter (walking, jumps, falls, dragging, combined actions,
engagement, the table view) is a `YardsPart`: a `Part` that reaches the ruleset it
serves as `self.rs`, typed as `YardsRules`, the protocol below. The protocol names
everything the families ask of the ruleset (the move action's budget, the
Initiative check, and what one family answers for another through it), so no part
module imports the ruleset class: the package's `__init__` imports the parts, and
the graph inside the package runs one way, `__init__` on top, then the part
modules, then this module, then walk.py (the step policy `go` takes) and board.py.
`InitiativeYards` is checked to answer the protocol where it is defined.
"""

from __future__ import annotations

from typing import Any, Protocol

from tabletrail.core.rulesets.initiative_yards.walk import Walk, WalkRules
from tabletrail.ruleset_api import XY, Batch, Dice, EncounterState, Fighter, Part


class YardsRules(WalkRules, Protocol):
    """What initiative-yards' parts ask of the ruleset: `WalkRules` (what a step asks), and this."""

    def fighter(self, state: EncounterState, fighter_id: str) -> Fighter:
        """The fighter by id, or a refusal naming the ones there are (a drag's or a Strike's target)."""
        ...

    def acting(self, state: EncounterState, fighter_id: str) -> Fighter:
        """The fighter, who must be the one whose turn it is (an action, a Strike resolved)."""
        ...

    def stat(self, f: Fighter, name: str) -> Any:
        """A stat as written (count stats) or in centi-yards (length stats: height, Reach)."""
        ...

    def unmark(self, b: Batch, f: Fighter, key: str, rule: str, note: str) -> None:
        """Lift a mark the fighter holds when what it stood for ends."""
        ...

    def initiative(self, f: Fighter) -> int:
        """move: the yards a move action may cover, in centi-yards."""
        ...

    def max_move(self, state: EncounterState, f: Fighter) -> int:
        """This turn's move action at most: Initiative, halved while dragging (drag)."""
        ...

    def mover(self, b: Batch, fighter_id: str, what: str) -> tuple[Fighter, tuple[Fighter, ...]]:
        """The acting fighter cleared to move and the foes it stays within Reach of (engagement.py)."""
        ...

    def go(
        self, b: Batch, f: Fighter, policy: Walk, cells: list[XY], dice: Dice, *, rule: str, what: str
    ) -> str:
        """Walk the cells on what is left of the move action (walking.py); why it stopped early."""
        ...


class YardsPart(Part[YardsRules]):
    """One family of initiative-yards' rules, reaching the ruleset through `YardsRules` alone."""
