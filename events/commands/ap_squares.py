"""Commands of the ap-squares ruleset (document 002): what the table asks for beyond `move`.

Walking and crawling use the shared `move` command; these add the occupant's
answer to an invasion, rotating about a pivot, area effects and the reflexive
leap, and the zero-gravity moves. Verbs are spelled out (`grab-hold`, not
`grab`) so they never clash with another ruleset's commands.
"""

from typing import Literal

from tabletrail.events.commands import Cell, Command
from tabletrail.events.plugins import RulesetPlugin

# The eight directions of a trajectory, N then clockwise (map row 0 is north).
Direction = Literal["n", "ne", "e", "se", "s", "sw", "w", "nw"]


class ReactInvasion(Command, frozen=True, tag="react-invasion"):
    """The occupant answers a move that waits to enter its square: parry, block (2 AP) or allow.

    Give by=<the occupant's side> (or by=gm) so the log shows who chose.
    """

    fighter: str  # the occupant
    choice: Literal["parry", "block", "allow"]


class RotateAbout(Command, frozen=True, tag="rotate-about"):
    """Circle a pivot square at the starting distance, clockwise (cw) or counter-clockwise (ccw)."""

    fighter: str
    pivot: Cell
    direction: Literal["cw", "ccw"]
    squares: int  # how many squares to move along the circle


class AreaEffect(Command, frozen=True, tag="area-effect"):
    """The GM announces an area effect: its squares and damage; those caught may react."""

    cells: tuple[Cell, ...]
    damage: int
    unaware: tuple[str, ...] = ()  # characters who do not know it is coming


class AreaHit(Command, frozen=True, tag="area-hit"):
    """The announced area effect lands on everyone still caught in it."""


class ReflexiveLeap(Command, frozen=True, tag="reflexive-leap"):
    """React to an area effect: dive to `to` (Celerity roll), or with no way out halve the damage."""

    fighter: str
    to: Cell | None = None


class GravityOff(Command, frozen=True, tag="gravity-off"):
    """The GM turns gravity off over a rectangle; `grab` lists who spends 4 AP to grab hold at once."""

    corner: Cell
    opposite: Cell
    grab: tuple[str, ...] = ()


class GravityOn(Command, frozen=True, tag="gravity-on"):
    """The GM turns gravity back on over a rectangle."""

    corner: Cell
    opposite: Cell


class PushOff(Command, frozen=True, tag="push-off"):
    """Push off a stable solid object (6 AP): a direction away from its surface and a speed in m per cycle."""

    fighter: str
    direction: Direction
    speed: int


class Brake(Command, frozen=True, tag="brake"):
    """Break 1 m of push-off speed (4 AP)."""

    fighter: str


class TurnDrift(Command, frozen=True, tag="turn-drift"):
    """Twist to turn a drift's direction (6 AP); never its speed."""

    fighter: str
    direction: Direction


class GrabHold(Command, frozen=True, tag="grab-hold"):
    """Stop drifting by grabbing an adjacent stable object (4 AP), to crawl along it."""

    fighter: str


class LetGo(Command, frozen=True, tag="let-go"):
    """Next to a stable object, let go and drift the way one chooses."""

    fighter: str
    direction: Direction


# The ruleset's declaration, named by the entry point 'ap-squares' (pyproject.toml): its rules are
# imported only when a command of it is decided; its rules version is tabletrail's own (RULES_VERSION).
PLUGIN = RulesetPlugin(
    id="ap-squares",
    ruleset="tabletrail.core.rulesets.ap_squares:ApSquares",
    rules_version="",
    title="Action points per cycle, 1 m squares",
)
