"""ap-squares' parts, what they ask of the ruleset, and the hooks they take part in beyond the engine's.

Every family of the chapter (walking, invade, rotate-about, reflexive-leap, zero
gravity) is an `ApPart`: a `Part` that reaches the ruleset it serves as `self.rs`
for what the families share (the AP ledger, the way a character moves on its
own, Defense). `ApRules` names exactly that surface, so a part is typed without
importing the ruleset class: the package `__init__` lists the parts and sits on
top, and the imports inside the package run one way (issue 37). `ApSquares` is
checked against `ApRules` there.

A part knows no other part: where one family's fact matters to another (an
invader let in, AP coming back), the ruleset calls the hook below on every part,
in the order of `ApSquares.parts`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from tabletrail.core.rulesets.ap_squares.stepping import Stepping
from tabletrail.ruleset_api import XY, Batch, Command, EncounterState, Fighter, Part, Ruleset


class ApRules(Protocol):
    """What ap-squares' parts (and `travel`) ask of the ruleset they serve; `ApSquares` provides it."""

    # --- ap-squares' own, shared by the families -------------------------------------------

    def ap_left(self, state: EncounterState, fighter_id: str) -> int:
        """What is left of the fighter's AP this cycle, in hundredths: every family spends from it."""
        ...

    def pay(self, b: Batch, fighter_id: str, amount: int, rule: str, what: str) -> None:
        """Spend whole AP on `what`, or refuse with what it costs and what is left."""
        ...

    def walker(self, state: EncounterState, f: Fighter) -> Stepping | None:
        """The fighter's own steps (walking's part), None when it is carried instead."""
        ...

    def mover(self, state: EncounterState, f: Fighter) -> Stepping:
        """The fighter's way of moving on its own, or a refusal saying why it has none."""
        ...

    def defense(self, state: EncounterState, f: Fighter) -> tuple[int, str, bool]:
        """Defense as a parry meets it: (total, the sum in words, any zero-g modifier applied?)."""
        ...

    def let_in(self, b: Batch, before: Fighter, cell: XY) -> None:
        """invade: tell every part the invader (as it stood waiting, `before`) has entered `cell`."""
        ...

    def kept_out(self, b: Batch, invader: Fighter, cell: XY) -> None:
        """invade: tell every part a body-block kept the invader out of `cell`."""
        ...

    # --- the few `Ruleset` base methods the parts use --------------------------------------

    def rule(self, name: str) -> str:
        """The full catalogue id of one of the ruleset's rules ("ap-squares/walk")."""
        ...

    def fighter(self, state: EncounterState, fighter_id: str) -> Fighter:
        """The fighter by id, or a refusal naming the fighters there are."""
        ...

    def acting(self, state: EncounterState, fighter_id: str) -> Fighter:
        """The fighter, who must be the one whose turn it is (when turns are strict)."""
        ...

    def stat(self, f: Fighter, name: str) -> Any:
        """A stat as written (count stats) or in centi-units (length stats)."""
        ...

    def gm_only(self, command: Command, rule: str, what: str) -> None:
        """Refuse unless the GM entered the command (area effects, gravity)."""
        ...

    def unmark(self, b: Batch, f: Fighter, key: str, rule: str, note: str) -> None:
        """Lift a mark the fighter holds when what it stood for ends."""
        ...

    def forget_marks(
        self, b: Batch, key: str, holds: Callable[[EncounterState, Fighter], object], rule: str, note: str
    ) -> None:
        """Lift `key` from every fighter for whom it no longer `holds`."""
        ...


if TYPE_CHECKING:

    class ApRuleset(Ruleset, ApRules):
        """For the type checker only: a `Ruleset` that also serves `ApRules`, as `ApSquares` does.

        The families hand `self.rs` to the engine's own helpers (`Stepping`, `shift`, `Carried`…),
        which take a `Ruleset`, and call ap-squares' methods on it: a protocol alone is not both.
        """

        def walker(self, state: EncounterState, f: Fighter) -> Stepping | None: ...


class ApPart(Part["ApRuleset"]):
    """One family of ap-squares' rules; the hooks here do nothing until a part overrides them."""

    def new_cycle(self, b: Batch, f: Fighter, round_no: int) -> None:
        """As cycle `round_no` starts, for each fighter in turn, right after its AP came back."""

    def refreshed(self, b: Batch, before: EncounterState, cycle: int, only: str | None, why: str) -> None:
        """A new cycle started or AP came back (for `only`, or everyone), `before` being the board
        just before; neither is a character doing something else."""

    def let_in(self, b: Batch, before: Fighter, cell: XY) -> None:
        """invade: the invader (as it stood waiting, `before`) has been let into `cell`."""

    def kept_out(self, b: Batch, invader: Fighter, cell: XY) -> None:
        """invade: a body-block kept the invader out of `cell`, its AP wasted."""
