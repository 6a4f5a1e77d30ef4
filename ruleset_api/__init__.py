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
    "Ruleset": "tabletrail.core.ruleset",
    "Part": "tabletrail.core.ruleset",
    "handles": "tabletrail.core.ruleset",
    "Rule": "tabletrail.core.ruleset",
    "Setting": "tabletrail.core.ruleset",
    "Stat": "tabletrail.core.ruleset",
    "Modifier": "tabletrail.core.ruleset",
    "ENGINE_TURN": "tabletrail.core.ruleset",
    "ENGINE_FIGHTER": "tabletrail.core.ruleset",
    "ENGINE_COMMAND": "tabletrail.core.ruleset",
    "Batch": "tabletrail.core.batch",
    "Dice": "tabletrail.core.dice",
    "check": "tabletrail.core.dice",
    "Refusal": "tabletrail.core.refusal",
    "require": "tabletrail.core.refusal",
    "EncounterState": "tabletrail.core.state",
    "Fighter": "tabletrail.core.state",
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
    "StepPolicy": "tabletrail.core.movement",
    "QuietSteps": "tabletrail.core.movement",
    "walk": "tabletrail.core.movement",
    "flat_step": "tabletrail.core.movement",
    "path_cells": "tabletrail.core.movement",
    "end_alone": "tabletrail.core.movement",
    "Grid": "tabletrail.core.geometry",
    "XY": "tabletrail.core.geometry",
    "Pos": "tabletrail.core.geometry",
    "show": "tabletrail.core.geometry",
    "distance": "tabletrail.core.geometry",
    "EVERY_1": "tabletrail.core.geometry",
    "ALTERNATING": "tabletrail.core.geometry",
    "EUCLIDEAN": "tabletrail.core.geometry",
    "difficult": "tabletrail.core.mechanics",
    "forced_move": "tabletrail.core.mechanics",
    "away": "tabletrail.core.mechanics",
    "fall": "tabletrail.core.falling",
    "CU": "tabletrail.core.units",
    "to_cu": "tabletrail.core.units",
    "fmt": "tabletrail.core.units",
    "plural": "tabletrail.core.units",
    "Awaited": "tabletrail.core.presentation",
    "Answer": "tabletrail.core.presentation",
    "Heading": "tabletrail.core.presentation",
    "Graph": "tabletrail.core.machines",
    "register": "tabletrail.core.machines",
    "CRAWL_FACTOR": "tabletrail.core.crawling",
    "crawl_factor": "tabletrail.core.crawling",
    "is_prone": "tabletrail.core.crawling",
    "step_length": "tabletrail.core.geometry",
    "exact_length": "tabletrail.core.movement",
    "length_of": "tabletrail.core.movement",
    "fmt_exact": "tabletrail.core.units",
    "root2_cu": "tabletrail.core.units",
    "rounded": "tabletrail.core.units",
    "sign": "tabletrail.core.units",
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
    "Scenario": "tabletrail.events.scenario",
    "SIZES": "tabletrail.events.scenario",
    "FORBID": "tabletrail.core.cell_rulings",
    "TEST": "tabletrail.core.cell_rulings",
    "forbidden": "tabletrail.core.cell_rulings",
    "landing_height": "tabletrail.core.falling",
    "DIAGONAL_RULES": "tabletrail.core.geometry",
    "MANHATTAN": "tabletrail.core.geometry",
    "NEIGHBOURS": "tabletrail.core.geometry",
    "hypot_cu": "tabletrail.core.geometry",
    "line": "tabletrail.core.geometry",
    "parse_cell": "tabletrail.core.geometry",
    "step_cost": "tabletrail.core.geometry",
    "TURN": "tabletrail.core.machines",
    "DIAGONALS": "tabletrail.core.movement",
    "rise": "tabletrail.core.movement",
    "waypoint": "tabletrail.core.movement",
    "blockers": "tabletrail.core.sight",
    "half_down": "tabletrail.core.units",
    "WALLS": "tabletrail.core.walls",
    "DOORS": "tabletrail.core.walls",
    "path_blocked": "tabletrail.core.walls",
    "reach_blocked": "tabletrail.core.walls",
    "refuse_step": "tabletrail.core.walls",
    "sight_walls": "tabletrail.core.walls",
    "step_blocked": "tabletrail.core.walls",
    "doors_beside": "tabletrail.core.doors",
    "part_of_move": "tabletrail.core.doors",
}
# names that are a module of the vocabulary: `from tabletrail.ruleset_api import events as ev`
_MODULES = {"events": "tabletrail.events.types"}

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


if TYPE_CHECKING:  # the same names, for type checkers and editors
    from tabletrail.core.batch import Batch
    from tabletrail.core.cell_rulings import FORBID, TEST, forbidden
    from tabletrail.core.crawling import CRAWL_FACTOR, crawl_factor, is_prone
    from tabletrail.core.dice import Dice, check
    from tabletrail.core.doors import doors_beside, part_of_move
    from tabletrail.core.falling import fall, landing_height
    from tabletrail.core.geometry import (
        ALTERNATING,
        DIAGONAL_RULES,
        EUCLIDEAN,
        EVERY_1,
        MANHATTAN,
        NEIGHBOURS,
        XY,
        Grid,
        Pos,
        distance,
        hypot_cu,
        line,
        parse_cell,
        show,
        step_cost,
        step_length,
    )
    from tabletrail.core.machines import TURN, Graph, register
    from tabletrail.core.mechanics import away, difficult, forced_move
    from tabletrail.core.movement import (
        DIAGONALS,
        QuietSteps,
        StepPolicy,
        end_alone,
        exact_length,
        flat_step,
        length_of,
        path_cells,
        rise,
        walk,
        waypoint,
    )
    from tabletrail.core.presentation import Answer, Awaited, Heading
    from tabletrail.core.refusal import Refusal, require
    from tabletrail.core.ruleset import (
        ENGINE_COMMAND,
        ENGINE_FIGHTER,
        ENGINE_TURN,
        Modifier,
        Part,
        Rule,
        Ruleset,
        Setting,
        Stat,
        handles,
    )
    from tabletrail.core.sight import blockers
    from tabletrail.core.state import EncounterState, Fighter
    from tabletrail.core.units import CU, fmt, fmt_exact, half_down, plural, root2_cu, rounded, sign, to_cu
    from tabletrail.core.walls import (
        WALLS,
        path_blocked,
        reach_blocked,
        refuse_step,
        sight_walls,
        step_blocked,
    )
    from tabletrail.events import types as events
    from tabletrail.events.commands import (
        Cell,
        CloseDoor,
        Command,
        DropProne,
        EndTurn,
        Move,
        OpenDoor,
        StandUp,
    )
    from tabletrail.events.commands.rulings import GM_RULING
    from tabletrail.events.errors import InputError
    from tabletrail.events.plugins import RulesetPlugin
    from tabletrail.events.scenario import SIZES, Scenario
    from tabletrail.events.types import (
        BoardMarked,
        CheckRolled,
        Damaged,
        Event,
        Linked,
        Marked,
        Moved,
        OrderChanged,
        PassStarted,
        Placed,
        Refreshed,
        RoundStarted,
        RulingMade,
        Spent,
        StateChanged,
        Step,
        TurnEnded,
        TurnStarted,
        Unlinked,
        Unmarked,
    )
