"""ap-squares' parts, and the hooks they take part in beyond the engine's.

Every family of the chapter (walking, invade, rotate-about, reflexive-leap, zero
gravity) is an `ApPart`: a `Part` that reaches the ruleset it serves as `self.rs`,
typed as `ApSquares`, for what the families share (the AP ledger, the way a
character moves on its own, Defense). A part knows no other part: where one
family's fact matters to another (an invader let in, AP coming back), the ruleset
calls the hook below on every part, in the order of `ApSquares.parts`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabletrail.ruleset_api import XY, Batch, EncounterState, Fighter, Part

if TYPE_CHECKING:
    from tabletrail.core.rulesets.ap_squares import ApSquares


class ApPart(Part):
    """One family of ap-squares' rules; the hooks here do nothing until a part overrides them."""

    rs: ApSquares

    def new_cycle(self, b: Batch, f: Fighter, round_no: int) -> None:
        """As cycle `round_no` starts, for each fighter in turn, right after its AP came back."""

    def refreshed(self, b: Batch, before: EncounterState, cycle: int, only: str | None, why: str) -> None:
        """A new cycle started or AP came back (for `only`, or everyone), `before` being the board
        just before; neither is a character doing something else."""

    def let_in(self, b: Batch, before: Fighter, cell: XY) -> None:
        """invade: the invader (as it stood waiting, `before`) has been let into `cell`."""

    def kept_out(self, b: Batch, invader: Fighter, cell: XY) -> None:
        """invade: a body-block kept the invader out of `cell`, its AP wasted."""
