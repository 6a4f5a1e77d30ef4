"""Commands of GM rulings, accepted under every ruleset.

A ruling is the GM's word over the rules. It is logged as a `RulingMade` (who,
what kind, why) followed by the facts it causes, all in one batch: undo takes
the ruling back whole, and `verify` re-decides it like any other command. Only
the GM may rule (by=gm, the default), and every ruling must say why (why=...).
"""

from tabletrail.events.command_base import Cell, Command  # the base, not the package: no import circle

GM_RULING = "tabletrail/gm-ruling"  # the engine rule every ruling rests on


class Override(Command, frozen=True, tag="override"):
    """Overrule a refusal: place the fighter where the refused command would have put it.

    It does not re-run the refused command: it sets the one rule aside by placing
    the fighter by hand, and charges `cost` of `resource` if the GM says so.
    """

    fighter: str
    to: Cell
    rule: str  # the rule id the GM sets aside, e.g. speed-meters/movement
    cost: float = 0.0  # what the fighter pays for it, in the ruleset's unit for lengths
    resource: str = "movement"
    attempt: str = ""  # the refused command, in the table's words


class Adjust(Command, frozen=True, tag="adjust"):
    """Give (positive amount) or take (negative) a fighter's remaining movement or another budget."""

    fighter: str
    amount: float  # in the ruleset's unit for movement, a whole count for other budgets
    resource: str = "movement"


class Place(Command, frozen=True, tag="place"):
    """Put a fighter (or an object the scenario lists as one) on a cell by hand."""

    fighter: str
    to: Cell


class RequireTest(Command, frozen=True, tag="require-test"):
    """Crossing these cells takes a test against `target`; failing it ends the move there."""

    cells: tuple[Cell, ...]
    target: int
    rule: str = GM_RULING  # the rule the ruling rests on, e.g. round-meters/difficult


class Forbid(Command, frozen=True, tag="forbid"):
    """These cells can't be crossed or entered until the ruling is lifted.

    except: fighter ids or tags that may cross anyway, e.g. except=climbing-gear,ari
    ("impassable without suitable equipment or abilities").
    """

    example = "forbid 3,2 why='a pit opens'"

    cells: tuple[Cell, ...]
    rule: str = GM_RULING
    exempt: tuple[str, ...] = ()


class Lift(Command, frozen=True, tag="lift"):
    """Lift the forbid and test rulings on these cells."""

    cells: tuple[Cell, ...]


class ChangeSetting(Command, frozen=True, tag="setting"):
    """Change one of the ruleset's settings from here on; like every ruling it must say why."""

    example = "setting checks table why='we roll at the table'"

    name: str
    value: str


class Join(Command, frozen=True, tag="join"):
    """A fighter joins mid-fight: stands on a cell and takes a place in the turn order.

    stats: the ruleset's stats as name:value, e.g. stats=initiative:6,height:1.8 (`tabletrail rules
    RULESET` lists them); after: the fighter the newcomer acts after. None of the four documents says
    where a newcomer enters the order, so by default ("") it acts last, after everyone who already
    holds a place (as round-meters' Delay lets a fighter "act at the end of the current pass").
    """

    fighter: str  # the newcomer's id
    at: Cell
    side: str
    name: str = ""  # the name players read ("": the id)
    size: str = "medium"
    stats: tuple[str, ...] = ()
    after: str = ""


class Leave(Command, frozen=True, tag="leave"):
    """A fighter leaves the fight: off the board and out of the turn order, its holds on others let go."""

    fighter: str
