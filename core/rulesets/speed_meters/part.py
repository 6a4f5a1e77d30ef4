"""speed-meters' part base, and what its parts ask of the ruleset they serve.

Every family of the chapter (walking, falls, modes, climbing, forces, grappling,
swimming) is a `SpeedPart`: a `Part` that reaches the ruleset as `self.rs`, typed
by `SpeedRules`, the questions and moves the families share (occupancy, a
Movement's start, the mode machine, the 3-D Movement, every fall and every
force). The ruleset class in `__init__.py` answers them and lists the parts;
this module sits under both, so no part imports the package that imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from tabletrail.core.rulesets.speed_meters.geometry import JudgeFn
from tabletrail.ruleset_api import XY, Batch, Command, Dice, EncounterState, Fighter, Part, Pos


class SpeedRules(Protocol):
    """What speed-meters' parts (and its step policies) ask of the ruleset: `SpeedMeters` answers it."""

    # --- from the `Ruleset` base -------------------------------------------------------------

    @property
    def unit(self) -> str:
        """The length of one grid cell ("m"), for the words a refusal prints."""

    def rule(self, name: str) -> str:
        """The catalogue id of one of the chapter's rules, cited with what enforces it."""

    def stat(self, f: Fighter, name: str) -> Any:
        """A fighter's stat (Speed in centi-units, Brawn as written)."""

    def fighter(self, state: EncounterState, fighter_id: str) -> Fighter:
        """The fighter named, refused when there is none."""

    def acting(self, state: EncounterState, fighter_id: str) -> Fighter:
        """The fighter named, refused unless it is its turn."""

    def gm_only(self, command: Command, rule: str, what: str) -> None:
        """Refuses unless the GM entered the command (a force, a fall the GM narrates)."""

    def change(self, b: Batch, f: Fighter, machine: str, trigger: str, rule: str, note: str = "") -> str:
        """Moves a state machine of the fighter's (its mode, a grab) and records it."""

    def forget_marks(
        self, b: Batch, key: str, holds: Callable[[EncounterState, Fighter], object], rule: str, note: str
    ) -> None:
        """Lifts a mark from every fighter for whom it no longer holds."""

    # what `part_of_move` (stop: a door on the way) asks of the ruleset, as the engine's doors do

    @property
    def door_resource(self) -> str:
        """What a door that costs is paid in (speed-meters: actions)."""

    @property
    def movement_resource(self) -> str:
        """The budget an ordinary move spends."""

    @property
    def centi_resources(self) -> tuple[str, ...]:
        """The budgets counted in centi-units (lengths)."""

    def door_budget(self, state: EncounterState, f: Fighter) -> int:
        """What is left of `door_resource` for the fighter to pay a door with."""

    def amount_label(self, resource: str, amount: int) -> str:
        """A budget amount in words ("2.5 m", "3 actions")."""

    # --- occupancy: who may stand or pass where ------------------------------------------------

    def not_solid(self, state: EncounterState, to: XY | Pos, *, obstacles: bool) -> None:
        """occupancy: refuses a space in a wall, or in a solid obstacle unless passed over."""

    def above_floor(self, state: EncounterState, to: Pos, rule: str) -> None:
        """Refuses a position inside the ground or an obstacle."""

    def no_enemy(self, state: EncounterState, f: Fighter, pos: Pos) -> tuple[str, ...]:
        """occupancy: refuses an enemy's space; cites occupancy when passing an ally's."""

    def can_end(self, state: EncounterState, f: Fighter, what: str = "the Movement") -> None:
        """occupancy: refuses ending in an occupied space."""

    def landing_space(self, state: EncounterState, fid: str, cell: XY, z: int) -> tuple[XY, str]:
        """Where a body coming down onto `cell` lands, and why, when someone is there."""

    # --- what every Movement shares: its start, its fighter, its mode ---------------------------

    def brawn(self, f: Fighter) -> int:
        """Brawn, added to climbing, grappling and escape rolls."""

    def prone_factor(self, state: EncounterState, f: Fighter) -> int:
        """What a walking step costs a prone fighter, as a multiple of its price standing."""

    def set_mode(self, b: Batch, fid: str, dest: str, rule: str, note: str = "") -> None:
        """Moves the fighter's mode machine to `dest`, dropping what the old mode kept."""

    def settle_mode(self, b: Batch, fid: str, rule: str, note: str = "") -> None:
        """After coming down or appearing: swimming in deep water, else walking."""

    def use_action(
        self, b: Batch, f: Fighter, rule: str, what: str, note: str = "", also: tuple[str, ...] = ()
    ) -> None:
        """Spends one of the turn's actions on `what`; none left refuses."""

    def begin_movement(self, b: Batch, f: Fighter, what: str = "a Movement") -> None:
        """stop: a new Movement, an action with a fresh Speed and the GM's meters."""

    def mover(self, state: EncounterState, fid: str, modes: tuple[str, ...], what: str) -> Fighter:
        """The acting fighter, alive, not held, in a mode this kind of movement starts from."""

    def cells(self, state: EncounterState, f: Fighter, path: tuple[tuple[int, ...], ...]) -> list[XY]:
        """The spaces a command's waypoints lead through, step by step."""

    # --- the 3-D Movements, falls and forces -------------------------------------------------

    def plan(
        self,
        state: EncounterState,
        f: Fighter,
        path: tuple[tuple[int, ...], ...],
        rule: str,
        height: Callable[[int, int, int], int],
        budget: int,
    ) -> tuple[list[Pos], Pos]:
        """A 3-D path along the waypoints, cut where even the cheapest pricing passes `budget`."""

    def through(
        self,
        b: Batch,
        dice: Dice,
        f: Fighter,
        plan: list[Pos],
        judge: JudgeFn,
        *,
        budget: int,
        rule: str,
        what: str,
    ) -> str:
        """Walks a planned 3-D path with a mode's judge; returns why it stopped early, if it did."""

    def drop(self, b: Batch, dice: Dice, fid: str, *, rule: str, bumps: int = 0, note: str = "") -> None:
        """A fall from where the fighter is, whatever made it (the falls part prices it)."""

    def shift(
        self,
        b: Batch,
        dice: Dice,
        fid: str,
        cells: list[XY],
        *,
        kind: str,
        origin: Pos | None,
        named: str,
        rule: str,
        stop_early: bool,
        aware: bool,
        bumps: int,
        meant: int | None = None,
    ) -> list[Pos]:
        """A fighter moved by force, step by step (the forces part moves it); the positions passed."""


class SpeedPart(Part[SpeedRules]):
    """One family of speed-meters' rules, reaching what the families share through `self.rs`."""
