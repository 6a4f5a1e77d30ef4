"""tabletrail's public ruleset API: everything a ruleset plug-in imports, from this one module.

A ruleset is a package with two modules (docs/WRITING_A_RULESET.md walks through a whole one):

- its **vocabulary**, light: its commands (`Command` subclasses, cells typed `Cell`) and its
  declaration, `PLUGIN = RulesetPlugin(id=..., ruleset="package.rules:MyRuleset", ...)`, named by
  an entry point in the group `tabletrail.rulesets` of its pyproject.toml. tabletrail imports it
  to decode a log and to parse a command, before any rule is needed;
- its **rules**: a `Ruleset` subclass (id, title, unit, the catalogue: `Rule`, `Setting`, `Stat`)
  composed of `Part`s, one a family of rules, each handling its commands with `@handles(Command)`
  methods and taking part in the hooks (`start_turn`, `walker`, `awaited`…). A handler reads
  `b.state`, refuses with `require(...)`/`Refusal`, and records facts with `b.emit(event)`.

The names are imported when first used (PEP 562): `from tabletrail.ruleset_api import Command,
RulesetPlugin` costs the vocabulary module nothing of the rules. Everything not named here is
tabletrail's own and may change; what is named here keeps its meaning, or is announced first.
Tests: `tabletrail.testing` (the conformance kit every ruleset runs).

The names, by job:

- declaring: `RulesetPlugin`, `Command`, `Cell` (and the engine's shared commands: `Move`,
  `EndTurn`, `DropProne`, `StandUp`)
- the ruleset: `Ruleset`, `Part`, `handles`, `Rule`, `Setting`, `Stat`, `Modifier`; the engine's rule
  ids `ENGINE_TURN`, `ENGINE_FIGHTER`, `ENGINE_COMMAND`
- deciding: `Batch`, `Dice`, `check`, `Refusal`, `require`, `EncounterState`, `Fighter`, the events
  (`Moved`, `Step`, `Placed`, `Spent`, `Refreshed`, `Marked`, `Unmarked`, `BoardMarked`,
  `StateChanged`, `CheckRolled`, `Damaged`)
- movement: `StepPolicy`, `QuietSteps`, `walk`, `flat_step`, `path_cells`, `end_alone`, `Grid`,
  `XY`, `Pos`, `show`, `distance`, `EVERY_1`, `ALTERNATING`, `EUCLIDEAN`
- shared mechanics: `difficult` (difficult terrain), `forced_move` and `away` (a push), `fall`
  (falling, landing prone), prone through `Ruleset.posture_rules` (the engine's POSTURE machine)
  and crawling (`is_prone`, `crawl_factor`, `CRAWL_FACTOR`); exact lengths (`exact_length`,
  `length_of`, `step_length`, `root2_cu`, `rounded`, `sign`, `fmt_exact`)
- numbers: `CU`, `to_cu`, `fmt`, `plural`
- the table view: `Awaited`, `Answer`, `Heading`
- state machines: `Graph`, `register`, `TURN`
- the engine's shared pieces a ruleset may ask: walls and doors on cell edges (`step_blocked`,
  `refuse_step`, `path_blocked`, `reach_blocked`, `sight_walls`, `WALLS`, `DOORS`, `doors_beside`,
  `part_of_move`), sight (`blockers`), the GM's rulings on cells (`forbidden`, `FORBID`, `TEST`,
  `GM_RULING`), geometry (`line`, `step_cost`, `hypot_cu`, `parse_cell`, `NEIGHBOURS`,
  `DIAGONAL_RULES`, `MANHATTAN`, `DIAGONALS`, `rise`, `waypoint`, `landing_height`, `half_down`),
  the scenario (`Scenario`, `SIZES`, `InputError` for a scenario a ruleset refuses)
- the whole event vocabulary as a namespace: `from tabletrail.ruleset_api import events as ev`
  (`ev.Marked`…); each event is also a name here (`Event`, `Linked`, `TurnStarted`, `RulingMade`…)
"""

# ruff: noqa: F401  (the names under TYPE_CHECKING are this module's exports, for type checkers)
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# name -> the module that defines it (imported on first use)
_WHERE = {
    "RulesetPlugin": "tabletrail.events.plugins",
    "Command": "tabletrail.events.commands",
    "Cell": "tabletrail.events.commands",
    "Move": "tabletrail.events.commands",
    "EndTurn": "tabletrail.events.commands",
    "DropProne": "tabletrail.events.commands",
    "StandUp": "tabletrail.events.commands",
    "Ruleset": "tabletrail.core.engine.ruleset",
    "Part": "tabletrail.core.engine.ruleset",
    "handles": "tabletrail.core.engine.ruleset",
    "Rule": "tabletrail.core.engine.ruleset",
    "Setting": "tabletrail.core.engine.ruleset",
    "Stat": "tabletrail.core.engine.ruleset",
    "Modifier": "tabletrail.core.engine.ruleset",
    "ENGINE_TURN": "tabletrail.core.engine.ruleset",
    "ENGINE_FIGHTER": "tabletrail.core.engine.ruleset",
    "ENGINE_COMMAND": "tabletrail.core.engine.ruleset",
    "Batch": "tabletrail.core.fold.batch",
    "Dice": "tabletrail.core.engine.dice",
    "check": "tabletrail.core.engine.dice",
    "Refusal": "tabletrail.core.board.refusal",
    "require": "tabletrail.core.board.refusal",
    "EncounterState": "tabletrail.core.board.state",
    "Fighter": "tabletrail.core.board.state",
    "Moved": "tabletrail.events.types",
    "Step": "tabletrail.events.types",
    "Placed": "tabletrail.events.types",
    "Spent": "tabletrail.events.types",
    "Refreshed": "tabletrail.events.types",
    "Marked": "tabletrail.events.types",
    "Unmarked": "tabletrail.events.types",
    "BoardMarked": "tabletrail.events.types",
    "StateChanged": "tabletrail.events.types",
    "CheckRolled": "tabletrail.events.types",
    "Damaged": "tabletrail.events.types",
    "StepPolicy": "tabletrail.core.engine.movement",
    "QuietSteps": "tabletrail.core.engine.movement",
    "walk": "tabletrail.core.engine.movement",
    "flat_step": "tabletrail.core.engine.movement",
    "path_cells": "tabletrail.core.engine.movement",
    "end_alone": "tabletrail.core.engine.movement",
    "Grid": "tabletrail.core.board.geometry",
    "XY": "tabletrail.core.board.geometry",
    "Pos": "tabletrail.core.board.geometry",
    "show": "tabletrail.core.board.geometry",
    "distance": "tabletrail.core.board.geometry",
    "EVERY_1": "tabletrail.core.board.geometry",
    "ALTERNATING": "tabletrail.core.board.geometry",
    "EUCLIDEAN": "tabletrail.core.board.geometry",
    "difficult": "tabletrail.core.engine.mechanics",
    "forced_move": "tabletrail.core.engine.mechanics",
    "away": "tabletrail.core.engine.mechanics",
    "fall": "tabletrail.core.engine.falling",
    "CU": "tabletrail.core.board.units",
    "to_cu": "tabletrail.core.board.units",
    "fmt": "tabletrail.core.board.units",
    "plural": "tabletrail.core.board.units",
    "Awaited": "tabletrail.core.engine.presentation",
    "Answer": "tabletrail.core.engine.presentation",
    "Heading": "tabletrail.core.engine.presentation",
    "Graph": "tabletrail.core.engine.machines",
    "register": "tabletrail.core.engine.machines",
    "CRAWL_FACTOR": "tabletrail.core.engine.crawling",
    "crawl_factor": "tabletrail.core.engine.crawling",
    "is_prone": "tabletrail.core.engine.crawling",
    "step_length": "tabletrail.core.board.geometry",
    "exact_length": "tabletrail.core.engine.movement",
    "length_of": "tabletrail.core.engine.movement",
    "fmt_exact": "tabletrail.core.board.units",
    "root2_cu": "tabletrail.core.board.units",
    "rounded": "tabletrail.core.board.units",
    "sign": "tabletrail.core.board.units",
    "Event": "tabletrail.events.types",
    "Linked": "tabletrail.events.types",
    "Unlinked": "tabletrail.events.types",
    "TurnStarted": "tabletrail.events.types",
    "TurnEnded": "tabletrail.events.types",
    "RoundStarted": "tabletrail.events.types",
    "PassStarted": "tabletrail.events.types",
    "OrderChanged": "tabletrail.events.types",
    "RulingMade": "tabletrail.events.types",
    "OpenDoor": "tabletrail.events.commands",
    "CloseDoor": "tabletrail.events.commands",
    "GM_RULING": "tabletrail.events.commands.rulings",
    "InputError": "tabletrail.events.errors",
    "Scenario": "tabletrail.events.scenario_spec",
    "SIZES": "tabletrail.events.scenario_spec",
    "FORBID": "tabletrail.core.engine.cell_rulings",
    "TEST": "tabletrail.core.engine.cell_rulings",
    "forbidden": "tabletrail.core.engine.cell_rulings",
    "landing_height": "tabletrail.core.engine.falling",
    "DIAGONAL_RULES": "tabletrail.core.board.geometry",
    "MANHATTAN": "tabletrail.core.board.geometry",
    "NEIGHBOURS": "tabletrail.core.board.geometry",
    "hypot_cu": "tabletrail.core.board.geometry",
    "line": "tabletrail.core.board.geometry",
    "parse_cell": "tabletrail.core.board.geometry",
    "step_cost": "tabletrail.core.board.geometry",
    "TURN": "tabletrail.core.engine.machines",
    "DIAGONALS": "tabletrail.core.engine.movement",
    "rise": "tabletrail.core.engine.movement",
    "waypoint": "tabletrail.core.engine.movement",
    "blockers": "tabletrail.core.board.sight",
    "half_down": "tabletrail.core.board.units",
    "WALLS": "tabletrail.core.board.walls",
    "DOORS": "tabletrail.core.board.walls",
    "path_blocked": "tabletrail.core.board.walls",
    "reach_blocked": "tabletrail.core.board.walls",
    "refuse_step": "tabletrail.core.board.walls",
    "sight_walls": "tabletrail.core.board.walls",
    "step_blocked": "tabletrail.core.board.walls",
    "doors_beside": "tabletrail.core.engine.doors",
    "part_of_move": "tabletrail.core.engine.doors",
}
# `events`, the event vocabulary as a namespace, is this package's submodule (ruleset_api/events.py)
_MODULES = {"events": "tabletrail.ruleset_api.events"}

__all__ = sorted([*_WHERE, *_MODULES])


def __getattr__(name: str) -> Any:
    """A public name, imported from where it is defined the first time it is asked for."""
    if name in _MODULES:
        value: Any = importlib.import_module(_MODULES[name])
        globals()[name] = value
        return value
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"tabletrail.ruleset_api has no {name!r} (it has: {', '.join(__all__)})")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value  # asked once: the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # the same names, for type checkers and editors (`X as X`: exported)
    from tabletrail.core.board.geometry import ALTERNATING as ALTERNATING
    from tabletrail.core.board.geometry import DIAGONAL_RULES as DIAGONAL_RULES
    from tabletrail.core.board.geometry import EUCLIDEAN as EUCLIDEAN
    from tabletrail.core.board.geometry import EVERY_1 as EVERY_1
    from tabletrail.core.board.geometry import MANHATTAN as MANHATTAN
    from tabletrail.core.board.geometry import NEIGHBOURS as NEIGHBOURS
    from tabletrail.core.board.geometry import XY as XY
    from tabletrail.core.board.geometry import Grid as Grid
    from tabletrail.core.board.geometry import Pos as Pos
    from tabletrail.core.board.geometry import distance as distance
    from tabletrail.core.board.geometry import hypot_cu as hypot_cu
    from tabletrail.core.board.geometry import line as line
    from tabletrail.core.board.geometry import parse_cell as parse_cell
    from tabletrail.core.board.geometry import show as show
    from tabletrail.core.board.geometry import step_cost as step_cost
    from tabletrail.core.board.geometry import step_length as step_length
    from tabletrail.core.board.refusal import Refusal as Refusal
    from tabletrail.core.board.refusal import require as require
    from tabletrail.core.board.sight import blockers as blockers
    from tabletrail.core.board.state import EncounterState as EncounterState
    from tabletrail.core.board.state import Fighter as Fighter
    from tabletrail.core.board.units import CU as CU
    from tabletrail.core.board.units import fmt as fmt
    from tabletrail.core.board.units import fmt_exact as fmt_exact
    from tabletrail.core.board.units import half_down as half_down
    from tabletrail.core.board.units import plural as plural
    from tabletrail.core.board.units import root2_cu as root2_cu
    from tabletrail.core.board.units import rounded as rounded
    from tabletrail.core.board.units import sign as sign
    from tabletrail.core.board.units import to_cu as to_cu
    from tabletrail.core.board.walls import WALLS as WALLS
    from tabletrail.core.board.walls import path_blocked as path_blocked
    from tabletrail.core.board.walls import reach_blocked as reach_blocked
    from tabletrail.core.board.walls import refuse_step as refuse_step
    from tabletrail.core.board.walls import sight_walls as sight_walls
    from tabletrail.core.board.walls import step_blocked as step_blocked
    from tabletrail.core.engine.cell_rulings import FORBID as FORBID
    from tabletrail.core.engine.cell_rulings import TEST as TEST
    from tabletrail.core.engine.cell_rulings import forbidden as forbidden
    from tabletrail.core.engine.crawling import CRAWL_FACTOR as CRAWL_FACTOR
    from tabletrail.core.engine.crawling import crawl_factor as crawl_factor
    from tabletrail.core.engine.crawling import is_prone as is_prone
    from tabletrail.core.engine.dice import Dice as Dice
    from tabletrail.core.engine.dice import check as check
    from tabletrail.core.engine.doors import doors_beside as doors_beside
    from tabletrail.core.engine.doors import part_of_move as part_of_move
    from tabletrail.core.engine.falling import fall as fall
    from tabletrail.core.engine.falling import landing_height as landing_height
    from tabletrail.core.engine.machines import TURN as TURN
    from tabletrail.core.engine.machines import Graph as Graph
    from tabletrail.core.engine.machines import register as register
    from tabletrail.core.engine.mechanics import away as away
    from tabletrail.core.engine.mechanics import difficult as difficult
    from tabletrail.core.engine.mechanics import forced_move as forced_move
    from tabletrail.core.engine.movement import DIAGONALS as DIAGONALS
    from tabletrail.core.engine.movement import QuietSteps as QuietSteps
    from tabletrail.core.engine.movement import StepPolicy as StepPolicy
    from tabletrail.core.engine.movement import end_alone as end_alone
    from tabletrail.core.engine.movement import exact_length as exact_length
    from tabletrail.core.engine.movement import flat_step as flat_step
    from tabletrail.core.engine.movement import length_of as length_of
    from tabletrail.core.engine.movement import path_cells as path_cells
    from tabletrail.core.engine.movement import rise as rise
    from tabletrail.core.engine.movement import walk as walk
    from tabletrail.core.engine.movement import waypoint as waypoint
    from tabletrail.core.engine.presentation import Answer as Answer
    from tabletrail.core.engine.presentation import Awaited as Awaited
    from tabletrail.core.engine.presentation import Heading as Heading
    from tabletrail.core.engine.ruleset import ENGINE_COMMAND as ENGINE_COMMAND
    from tabletrail.core.engine.ruleset import ENGINE_FIGHTER as ENGINE_FIGHTER
    from tabletrail.core.engine.ruleset import ENGINE_TURN as ENGINE_TURN
    from tabletrail.core.engine.ruleset import Modifier as Modifier
    from tabletrail.core.engine.ruleset import Part as Part
    from tabletrail.core.engine.ruleset import Rule as Rule
    from tabletrail.core.engine.ruleset import Ruleset as Ruleset
    from tabletrail.core.engine.ruleset import Setting as Setting
    from tabletrail.core.engine.ruleset import Stat as Stat
    from tabletrail.core.engine.ruleset import handles as handles
    from tabletrail.core.fold.batch import Batch as Batch
    from tabletrail.events.commands import Cell as Cell
    from tabletrail.events.commands import CloseDoor as CloseDoor
    from tabletrail.events.commands import Command as Command
    from tabletrail.events.commands import DropProne as DropProne
    from tabletrail.events.commands import EndTurn as EndTurn
    from tabletrail.events.commands import Move as Move
    from tabletrail.events.commands import OpenDoor as OpenDoor
    from tabletrail.events.commands import StandUp as StandUp
    from tabletrail.events.commands.rulings import GM_RULING as GM_RULING
    from tabletrail.events.errors import InputError as InputError
    from tabletrail.events.plugins import RulesetPlugin as RulesetPlugin
    from tabletrail.events.scenario_spec import SIZES as SIZES
    from tabletrail.events.scenario_spec import Scenario as Scenario
    from tabletrail.events.types import BoardMarked as BoardMarked
    from tabletrail.events.types import CheckRolled as CheckRolled
    from tabletrail.events.types import Damaged as Damaged
    from tabletrail.events.types import Event as Event
    from tabletrail.events.types import Linked as Linked
    from tabletrail.events.types import Marked as Marked
    from tabletrail.events.types import Moved as Moved
    from tabletrail.events.types import OrderChanged as OrderChanged
    from tabletrail.events.types import PassStarted as PassStarted
    from tabletrail.events.types import Placed as Placed
    from tabletrail.events.types import Refreshed as Refreshed
    from tabletrail.events.types import RoundStarted as RoundStarted
    from tabletrail.events.types import RulingMade as RulingMade
    from tabletrail.events.types import Spent as Spent
    from tabletrail.events.types import StateChanged as StateChanged
    from tabletrail.events.types import Step as Step
    from tabletrail.events.types import TurnEnded as TurnEnded
    from tabletrail.events.types import TurnStarted as TurnStarted
    from tabletrail.events.types import Unlinked as Unlinked
    from tabletrail.events.types import Unmarked as Unmarked
    from tabletrail.ruleset_api import events as events
