"""decide: a command and the current state in, the batch of events or a rejection out."""

from __future__ import annotations

from typing import Any

from tabletrail.core.board.refusal import Refusal, Rejection
from tabletrail.core.board.state import EncounterState
from tabletrail.core.board.walls import say_way_round_with
from tabletrail.core.engine.dice import Dice
from tabletrail.core.engine.registry import RULESETS
from tabletrail.core.engine.ruleset import ENGINE_COMMAND
from tabletrail.events.commands import Command
from tabletrail.events.errors import InputError
from tabletrail.events.limits import check_command
from tabletrail.events.types import Event


def _way_round(state: EncounterState, way: tuple[Any, str, tuple[int, ...], int]) -> str:
    """What a wall's refusal says of the way round it (core/board/walls.py): core/search/way.py's search."""
    from tabletrail.core.search.way import way_round  # the search loads when a wall first stops a step

    return way_round(state, way)


say_way_round_with(_way_round)


def dice_for(state: EncounterState, command: Command) -> Dice:
    """The check inputs of a command under the encounter's `checks` setting."""
    return Dice(command.rolls, table_only=state.settings.get("checks") == "table")


def decide(state: EncounterState, command: Command, dice: Dice | None = None) -> list[Event] | Rejection:
    ruleset = RULESETS[state.ruleset]
    try:
        check_command(command)  # the parser checked a typed command already; this covers built ones
    except InputError as exc:
        return Rejection(rule=ENGINE_COMMAND, reason=str(exc))
    try:
        return ruleset.decide(state, command, dice or dice_for(state, command))
    except Refusal as refusal:
        return Rejection(rule=refusal.rule, reason=refusal.reason)
