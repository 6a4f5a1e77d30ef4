"""What round-meters' families share, below them all: the ruleset as they see it, and their base.

Every family (walking, passes, actions, sprint, delay, hold) is a `RoundPart`,
whose `self.rs` is typed as `RoundRules`: the methods of `RoundMeters` (and of
the engine's `Ruleset`) the families call, and nothing more. So a part module
never imports the ruleset's package, which imports the parts: the imports run
one way, the package on top, this module and marks.py at the bottom. The
package checks that `RoundMeters` serves `RoundRules` (mypy, `_serves` there).

`Happened` is here too: a value the hold family reads and the walking and
actions families hand to `RoundRules.fire`, so it belongs to none of them.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from tabletrail.ruleset_api import XY, Batch, CheckRolled, Dice, EncounterState, Fighter, Part, show


class Happened(NamedTuple):
    """Something a held trigger may watch for: a fighter entering a cell, starting a move, acting."""

    kind: str  # "enters", "starts-move", "takes-action"
    fighter: str
    cell: XY | None = None
    action: str = ""

    def words(self) -> str:
        if self.kind == "enters" and self.cell is not None:
            return f"{self.fighter} entered {show(self.cell)}"
        if self.kind == "starts-move":
            return f"{self.fighter} started a move"
        return f"{self.fighter} took the action {self.action}"


class RoundRules(Protocol):
    """The ruleset as round-meters' families reach it (`self.rs`): what one family offers the others.

    The first group is the engine's `Ruleset`, the rest `RoundMeters`' own; a family needing more
    of the ruleset names it here first, so this stays the whole of what the families share.
    """

    # --- the engine's Ruleset ----------------------------------------------------------------

    @property
    def unit(self) -> str:
        """One grid cell's length unit ("m"), for the words a priced step says."""
        ...

    def rule(self, name: str) -> str:
        """The full catalogue id of one of the ruleset's rules ("round-meters/hold")."""
        ...

    def stat(self, f: Fighter, name: str) -> Any:
        """A stat of the fighter (movement in centi-units, ap, athletics)."""
        ...

    def fighter(self, state: EncounterState, fighter_id: str) -> Fighter:
        """The fighter of that id, or a refusal naming who there is."""
        ...

    def change(self, b: Batch, f: Fighter, machine: str, trigger: str, rule: str, note: str = "") -> str:
        """Move the fighter's state machine (the TURN machine) by a trigger, recorded."""
        ...

    def unmark(self, b: Batch, f: Fighter, key: str, rule: str, note: str) -> None:
        """Lift a mark of the fighter (a delay, the round's sprints, the diagonal count) if it has it."""
        ...

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """Every family's start-of-turn hook (passes starts a turn)."""
        ...

    def end_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        """Every family's end-of-turn hook (passes ends a turn)."""
        ...

    def start_round(self, b: Batch, round_no: int, dice: Dice) -> None:
        """Every family's new-round hook (passes starts a round)."""
        ...

    def allowed(self, state: EncounterState, f: Fighter, resource: str) -> int | None:
        """round-budget, sprint: the round's Movement with the Sprints' meters, as people are told it."""
        ...

    def spent_counted(self, state: EncounterState, f: Fighter) -> dict[str, int]:
        """round-budget, sprint: what the fighter spent, the meters moved counted as the document does."""
        ...

    # --- RoundMeters: budgets ----------------------------------------------------------------

    def ap(self, f: Fighter) -> int:
        """passes: the fighter's AP each round."""
        ...

    def ap_left(self, f: Fighter) -> int:
        """passes: the fighter's AP left this round."""
        ...

    def meters_left(self, f: Fighter) -> int:
        """round-budget: the Movement left this round, Sprints included, in centi-units."""
        ...

    def penalty(self, f: Fighter) -> int:
        """sprint: the cumulative penalty to the fighter's other tests this round."""
        ...

    def costs(self, state: EncounterState) -> dict[str, int]:
        """passes: the table's actions and their AP (the action_costs setting)."""
        ...

    # --- RoundMeters: naming an action, who acts now -----------------------------------------

    def priced(self, costs: dict[str, int]) -> str:
        """The actions and their AP in words, for a refusal to offer."""
        ...

    def aim(self, state: EncounterState, target: str, rule: str) -> str:
        """An action's target checked: a fighter id, or a cell x,y on the map."""
        ...

    def actor(self, state: EncounterState, fighter_id: str, rule: str, strict: bool | None = None) -> Fighter:
        """The fighter, refused unless it is its turn (when turns are strict)."""
        ...

    def standing(self, state: EncounterState, f: Fighter) -> str:
        """Where the fighter stands in this pass, in words."""
        ...

    def acted(self, state: EncounterState, f: Fighter) -> bool:
        """Did the fighter take an action in its own turn of this pass?"""
        ...

    # --- RoundMeters: what one family offers the others --------------------------------------

    def close_turn(self, b: Batch, fighter_id: str, trigger: str, rule: str, note: str, dice: Dice) -> None:
        """passes: end the fighter's turn by a TURN trigger (finish, delay, hold) and pass it on."""
        ...

    def watching(self, state: EncounterState, what: Happened) -> list[str]:
        """hold: the holders whose trigger this happening meets (a walk pauses there)."""
        ...

    def fire(self, b: Batch, what: Happened, dice: Dice) -> None:
        """hold: resolve now every held action this happening triggers."""
        ...

    def resolve_held(self, b: Batch, dice: Dice, fighter_id: str, held: dict[str, Any], note: str) -> None:
        """hold: take a triggered held action as the action itself (a Sprint with its test)."""
        ...

    def act(
        self,
        b: Batch,
        dice: Dice,
        fighter_id: str,
        kind: str,
        target: str,
        ap: int,
        rule: str,
        note: str,
        *,
        held: bool = False,
    ) -> None:
        """actions: record one action, after the held actions it triggers, and pay its AP."""
        ...

    def test(
        self,
        b: Batch,
        dice: Dice,
        fighter_id: str,
        name: str,
        rule: str,
        target: int,
        *,
        bonus: int = 0,
        bonus_why: str = "",
        penalised: bool = True,
    ) -> CheckRolled:
        """sprint: one test, carrying the sprint penalty in force."""
        ...


class RoundPart(Part[RoundRules]):
    """One family of round-meters' rules: a `Part` that sees its ruleset as `RoundRules`."""
