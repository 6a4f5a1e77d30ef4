"""initiative-yards, what every rule of the chapter shares.

The document's marks and numbers, `hostile` (who engages whom), and `Shared`:
this turn's move action (Initiative, what is left of it), the Initiative check
every attempt ends in, and reading the cells a command names. The rules
themselves live in the sibling modules.
"""

from __future__ import annotations

from tabletrail.ruleset_api import CRAWL_FACTOR as CRAWL_FACTOR
from tabletrail.ruleset_api import (
    CU,
    XY,
    Batch,
    Cell,
    CheckRolled,
    Dice,
    EncounterState,
    Fighter,
    Ruleset,
    check,
    half_down,
    path_cells,
    require,
    waypoint,
)

ENGAGED = "engaged"  # the Linked kind of an engaged pair, and the ENGAGEMENT state
OBJECT = "object"  # a fighter entry with this tag is a movable object, not a fighter
ENGAGED_ACTIONS = ("strike", "command", "manifest")  # engaged-actions: all an engaged fighter may do
CLIMBABLE = ("stairs", "ladder")
DRAGGING = "dragging"  # mark: this turn's move action drags someone, so it is halved
SLIP_CHECKED = "slip_checked"  # mark: this move action has had a slippery check (per-move: its one)
STRIKING = "striking"  # mark: the fighter's Strike awaiting the table's outcome
FELL = "fell"  # mark: this move action's rest was lost in a fall (setting fall_rest = lost): the cell
STEP_OFF = "step-off"  # a step's mode: off an edge, falling once over the lower cell (setting step_off)


def hostile(f: Fighter, other: Fighter) -> bool:
    """Enemies engage each other; objects and friends never do."""
    return other.id != f.id and other.side != f.side and OBJECT not in f.tags and OBJECT not in other.tags


class Shared(Ruleset):
    """The questions and mechanics every family of rules asks of the move action and the board."""

    # --- this turn's move action -----------------------------------------------------

    def initiative(self, f: Fighter) -> int:
        initiative: int = self.stat(f, "initiative")  # a length: whole centi-units
        return initiative

    def max_move(self, state: EncounterState, f: Fighter) -> int:
        """This turn's move action at most: Initiative, halved while dragging (drag)."""
        full = self.initiative(f)
        return half_down(full) if DRAGGING in f.marks else full

    def left(self, state: EncounterState, f: Fighter) -> int:
        return max(0, self.max_move(state, f) - f.used("movement"))

    # --- shared mechanics ----------------------------------------------------------

    def initiative_check(self, b: Batch, dice: Dice, f: Fighter, rule: str, note: str) -> CheckRolled:
        """An Initiative check by the house formula (settings check_*), or the table's roll."""
        adds = b.state.settings["check_adds_initiative"]
        return check(
            b,
            dice,
            fighter=f.id,
            name="Initiative",
            rule=rule,
            target=int(b.state.settings["check_target"]),
            modifier=self.initiative(f) // CU if adds else 0,
            note=note,
        )

    def cell(self, state: EncounterState, raw: Cell, rule: str) -> XY:
        return waypoint(state, raw, rule)

    def cells(self, state: EncounterState, f: Fighter, path: tuple[Cell, ...], rule: str) -> list[XY]:
        return path_cells(state, f, path, rule)

    def not_prone(self, f: Fighter, rule: str, what: str) -> None:
        require(
            f.state("posture", "standing") != "prone",
            self.rule(rule),
            f"{f.id} is prone and can only crawl: stand up before {what}",
        )
