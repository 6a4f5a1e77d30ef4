"""The encounter's state: immutable, shared structurally between versions.

Every change makes a new `EncounterState` that reuses everything it did not
touch (the grid, the scenario, untouched fighters). Keeping the state after
every batch therefore costs little, and undo/redo is a cursor move.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): msgspec would
# compile each Struct field's annotation string when a command first builds a decoder
# (tests/cli/test_lazy_imports.py).
from typing import Any

import msgspec
from tabletrail.core.board.corrections import RULES_VERSION
from tabletrail.core.board.geometry import Grid, Pos
from tabletrail.core.board.units import root2_cu
from tabletrail.events.scenario_spec import Scenario


class Fighter(msgspec.Struct, frozen=True, gc=False):
    """One fighter as the log has left it: where, its machines' states, what it spent, its marks."""

    id: str
    name: str
    side: str
    pos: Pos
    size: str
    stats: dict[str, int | float]  # as written in the scenario, in the ruleset's units
    states: dict[str, str]  # machine name -> state ("posture": "prone", …)
    spent: dict[str, int]  # budget name -> amount spent (lengths in centi-units)
    marks: dict[str, Any]  # ruleset facts kept on the fighter
    damage: int = 0
    tags: tuple[str, ...] = ()

    def state(self, machine: str, default: str) -> str:
        return self.states.get(machine, default)

    def used(self, resource: str) -> int:
        return self.spent.get(resource, 0)


class Turn(msgspec.Struct, frozen=True, gc=False):
    order: tuple[str, ...]
    index: int = 0
    round: int = 1
    pass_no: int = 1

    @property
    def active(self) -> str:
        return self.order[self.index] if self.order else ""


class EncounterState(msgspec.Struct, frozen=True, gc=False):
    """The whole board at one point of the log, immutable: the fold of every event before it."""

    scenario: Scenario
    grid: Grid
    settings: dict[str, Any]
    fighters: tuple[Fighter, ...]
    turn: Turn
    links: tuple[tuple[str, str, str], ...] = ()  # (kind, a, b), a < b for symmetric kinds
    dice: int = 0  # seeded dice drawn so far: the dice state lives in the encounter
    marks: dict[str, Any] = {}  # encounter-wide facts (gravity regions, area effects)
    doors: dict[str, str] = {}  # door name ("5,2|6,2") -> open, closed or locked (core/board/walls.py)
    # fighter -> budget name -> the √2 part (centi-units) of what its `spent` holds, where a path
    # was measured exactly (diagonal=euclidean): spent is that exact amount rounded once, and the
    # exact amount is spent - round(root2·√2) + root2·√2 (core/board/units.py). A budget several moves
    # share is held against its exact remainder, never against a sum of roundings. Kept beside the
    # fighters, not on them: the board view (a fighter as it is written) stays what it was.
    roots: dict[str, dict[str, int]] = {}
    # The rules version the encounter's log began under (line 1, EncounterStarted.rules_version; a
    # log that records none began under 0.1): a rule corrected since reads it, so a fight keeps the
    # arithmetic it began with (core/board/corrections.py). A state built without a log: today's rules.
    rules_version: str = RULES_VERSION

    @property
    def ruleset(self) -> str:
        return self.scenario.ruleset

    def fighter(self, fighter_id: str) -> Fighter | None:
        for f in self.fighters:
            if f.id == fighter_id:
                return f
        return None

    def index_of(self, fighter_id: str) -> int:
        for i, f in enumerate(self.fighters):
            if f.id == fighter_id:
                return i
        raise KeyError(fighter_id)

    def with_fighter(self, fighter: Fighter) -> "EncounterState":
        i = self.index_of(fighter.id)
        fighters = self.fighters[:i] + (fighter,) + self.fighters[i + 1 :]
        return msgspec.structs.replace(self, fighters=fighters)

    def at(self, x: int, y: int) -> list[Fighter]:
        return [f for f in self.fighters if f.pos[0] == x and f.pos[1] == y]

    def root2(self, fighter_id: str, resource: str) -> int:
        """The √2 part of what a fighter spent of a budget (0: what `spent` holds is exact)."""
        return self.roots.get(fighter_id, {}).get(resource, 0)

    def used_exact(self, f: Fighter, resource: str) -> tuple[int, int]:
        """What a fighter spent of a budget, exact: (whole, √2 part) in centi-units (core/board/units.py)."""
        root2 = self.root2(f.id, resource)
        return f.used(resource) - root2_cu(root2), root2

    def linked(self, kind: str, fighter_id: str) -> list[str]:
        """The fighters linked to this one by a relation (engaged with, grabbing…)."""
        out = []
        for k, a, b in self.links:
            if k == kind:
                if a == fighter_id:
                    out.append(b)
                elif b == fighter_id:
                    out.append(a)
        return out
