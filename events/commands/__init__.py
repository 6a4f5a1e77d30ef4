"""Commands: what a person at the table asks for.

A command is a request, not a fact: `decide` turns it into events or a
rejection. Commands are frozen msgspec Structs in one tagged union (`cmd`
field); every ruleset adds its own in the module that holds its plug-in's
declaration (tabletrail's four: a module of this package each), and the CLI
parses any of them from the same generic syntax (see tabletrail.service.syntax).

The union is made when first asked for, after the installed rulesets'
declarations are loaded (events/plugins.py): a plug-in's commands are in it
like the built-ins', and a call that decodes and parses nothing loads none.
"""

from typing import Any, Union

from tabletrail.events import plugins
from tabletrail.events.command_base import Cell, Command, defined

__all__ = ["Cell", "Command", "command_types", "command_union"]


def command_types() -> dict[str, type[Command]]:
    """Every command by its verb (its tag): the engine's and every installed ruleset's."""
    plugins.installed()  # imports each ruleset's declaration, and so defines its commands
    left_out = plugins.shut_out()  # a plug-in whose verbs clash: its commands are not this table's
    found = {tag: cls for tag, cls in defined() if cls.__module__ not in left_out}
    return dict(sorted(found.items()))


def command_union() -> Any:
    return Union[tuple(command_types().values())]  # noqa: UP007 - built at run time


# --- commands every ruleset understands -------------------------------------


class Move(Command, frozen=True, tag="move"):
    """Walk along waypoints; consecutive waypoints are joined by straight lines.

    bumps: speed-meters only: the Bumps of a Skill Feat reaction, if the walk steps off a ledge and falls.
    """

    fighter: str
    path: tuple[Cell, ...]
    bumps: int = 0


class EndTurn(Command, frozen=True, tag="end-turn"):
    """End the turn of the fighter acting (name it to check whose turn the table thinks it is)."""

    example = "end-turn ari"
    fighter: str = ""  # optional check: whose turn the table thinks it is


class DropProne(Command, frozen=True, tag="drop-prone"):
    """Drop prone on purpose, at the cost the ruleset sets (`tabletrail rules RULESET` says it)."""

    fighter: str


class StandUp(Command, frozen=True, tag="stand-up"):
    """Stand up from prone, at the cost the ruleset sets (`tabletrail rules RULESET` says it)."""

    fighter: str


class OpenDoor(Command, frozen=True, tag="open"):
    """Open a door beside the fighter, named by the two cells it stands between (5,2|6,2)."""

    fighter: str
    door: str


class CloseDoor(Command, frozen=True, tag="close"):
    """Close an open door beside the fighter, named by the two cells it stands between (5,2|6,2)."""

    fighter: str
    door: str


class LockDoor(Command, frozen=True, tag="lock"):
    """The GM locks a closed door beside the fighter (by=gm): it stays shut until unlocked."""

    fighter: str
    door: str


class UnlockDoor(Command, frozen=True, tag="unlock"):
    """The GM unlocks a locked door beside the fighter (a key found, a lock picked): it is closed."""

    fighter: str
    door: str


class Undo(Command, frozen=True, tag="undo"):
    """Take back the latest batch still in force. Handled by the encounter, not decide."""


class Redo(Command, frozen=True, tag="redo"):
    """Put back the batch undone most recently, re-applying its recorded events."""


# The GM's rulings: commands every ruleset takes (a ruleset's own come with its plug-in).
from tabletrail.events.commands import rulings  # noqa: E402, F401
