"""Commands of the initiative-yards ruleset (document 000).

Walking, crawling and climbing use the shared `move`; dropping prone and standing
up use the shared `drop-prone` and `stand-up`. The commands below are the moves
the document calls attempts (each ends in an Initiative check), dragging, the
non-move action a move may be combined with, and the table's word on a Strike.
"""

from tabletrail.events.commands import Cell, Command
from tabletrail.events.plugins import RulesetPlugin


class PullUp(Command, frozen=True, tag="pull-up"):
    """Jump and pull up onto the ledge in the next cell (initiative-yards/ledge)."""

    fighter: str
    to: Cell


class Vault(Command, frozen=True, tag="vault"):
    """Vault the obstacle ahead, landing on `to`, straight across it (initiative-yards/vault)."""

    fighter: str
    to: Cell


class Leap(Command, frozen=True, tag="leap"):
    """Leap a gap in a straight line, landing on `to` (initiative-yards/leap)."""

    fighter: str
    to: Cell


class Drag(Command, frozen=True, tag="drag"):
    """Move along `path` dragging `target`, then place it on `put` (initiative-yards/drag)."""

    fighter: str
    target: str
    path: tuple[Cell, ...]
    put: Cell


class Act(Command, frozen=True, tag="act"):
    """Take the turn's non-move action, at any point of the move (initiative-yards/combined).

    `action` is a word: strike, command and manifest are the ones an engaged fighter
    may take; any other word (reload, shout, open-door…) is some other action.
    """

    fighter: str
    action: str
    target: str = ""


class Resolve(Command, frozen=True, tag="resolve"):
    """Record a Strike's outcome as the table entered it; ends that pair's engagement.

    `fighter` struck `target`; `outcome` is the table's words ("hit", "miss", …) and
    `damage` what the target took, if anything (initiative-yards/engage-break).
    """

    fighter: str
    target: str
    outcome: str
    damage: int = 0


# The ruleset's declaration, named by the entry point 'initiative-yards' (pyproject.toml): its rules are
# imported only when a command of it is decided; its rules version is tabletrail's own (RULES_VERSION).
PLUGIN = RulesetPlugin(
    id="initiative-yards",
    ruleset="tabletrail.core.rulesets.initiative_yards:InitiativeYards",
    rules_version="",
    title="Initiative yards per move action",
)
