"""speed-meters: the movement chapter of document 004 (1 m spaces, Speed per Movement).

Rule ids are the catalogue's `speed-meters/<rule>`; each is cited next to the
code that enforces it.
"""

from __future__ import annotations

from tabletrail.core.batch import Batch
from tabletrail.core.dice import Dice
from tabletrail.core.geometry import EVERY_1, XY, Pos, expand, show
from tabletrail.core.movement import flat_step, rise, walk
from tabletrail.core.refusal import Refusal, require
from tabletrail.core.ruleset import Rule, Ruleset, Setting, Stat, handles
from tabletrail.core.state import EncounterState, Fighter
from tabletrail.core.units import CU, fmt
from tabletrail.events import types as ev
from tabletrail.events.commands import Move
from tabletrail.events.types import Step


class SpeedMeters(Ruleset):
    id = "speed-meters"
    title = "Speed per Movement action, 1 m spaces"
    document = "004_1955ec219bb4ca54.txt"
    unit = "m"
    rules = (
        Rule(
            "movement",
            "a Movement action moves up to Speed meters, horizontally or diagonally, "
            "at most 1 m up by jumping",
            "diagonal rule is a ruleset setting (default: every step costs 1)",
        ),
        Rule(
            "occupancy",
            "pass through allies, never end in an occupied space, never pass enemies or solid obstacles",
        ),
        Rule("stop", "once a Movement stops it can't resume; moving again takes a new action"),
        Rule("rough", "a rough space costs 2 m; a Speed-1 mover ignores this"),
    )
    settings = (
        Setting(
            "diagonal",
            EVERY_1,
            "cost of a diagonal step: every-1, alternating, euclidean, manhattan",
            ("every-1", "alternating", "euclidean", "manhattan"),
            "speed-meters/movement",
        ),
        Setting(
            "actions_per_turn",
            4,
            "actions a fighter has each turn (house default; the document "
            "counts a turn's actions in quarters)",
            (),
            "speed-meters/stop",
        ),
        Setting("check_formula", "1d6", "dice the seeded source rolls for a check (house default)"),
    )
    stats = (
        Stat("speed", "meters per Movement action", length=True),
        Stat("actions", "actions per turn; the actions_per_turn setting when not given", default=0),
    )
    posture_rules = ("", "")

    # --- budgets ---------------------------------------------------------------

    def actions(self, state: EncounterState, f: Fighter) -> int:
        return int(f.stats.get("actions") or state.settings["actions_per_turn"])

    def start_turn(self, b: Batch, fighter_id: str, dice: Dice) -> None:
        b.emit(
            ev.Refreshed(
                fighter=fighter_id,
                resources=("actions", "movement"),
                rules=(self.rule("stop"),),
                note="a new turn brings new actions",
            )
        )

    def walker(self, state: EncounterState, f: Fighter) -> _Walking | None:
        return _Walking(self, self.stat(f, "speed"))

    def move_budget(self, state: EncounterState, f: Fighter) -> int:
        # Each Movement is a fresh Speed, if an action is left to start one.
        return self.stat(f, "speed") if f.used("actions") < self.actions(state, f) else 0

    # --- the Movement action ---------------------------------------------------

    @handles(Move)
    def move(self, b: Batch, cmd: Move, dice: Dice) -> None:
        f = self.acting(b.state, cmd.fighter)
        # stop: each Movement is its own action; a stopped one never resumes.
        left = self.actions(b.state, f) - f.used("actions")
        require(
            left > 0,
            self.rule("stop"),
            f"{f.id} has used all {self.actions(b.state, f)} actions this turn; "
            "a stopped Movement can't resume, and a new one needs an action",
        )
        cells = self.cells(b.state, f, cmd.path)
        speed = self.stat(f, "speed")
        b.emit(
            ev.Spent(
                fighter=f.id,
                resource="actions",
                amount=1,
                rules=(self.rule("stop"),),
                note=f"a Movement action ({left - 1} action(s) left after it)",
            )
        )
        walk(
            b,
            _Walking(self, speed),
            f.id,
            cells,
            budget=speed,
            budget_rule=self.rule("movement"),
            rules=(self.rule("movement"),),
            what="the Movement",
            dice=dice,
        )

    def cells(self, state: EncounterState, f: Fighter, path: tuple[tuple[int, ...], ...]) -> list[XY]:
        waypoints: list[XY] = []
        for wp in path:
            require(
                state.grid.inside(wp[0], wp[1]),
                self.rule("movement"),
                f"{show(wp)} is off the {state.grid.width}x{state.grid.height} map",
            )
            waypoints.append((wp[0], wp[1]))
        cells = expand((f.pos[0], f.pos[1]), waypoints)
        require(bool(cells), self.rule("movement"), f"{f.id} is already at {show(f.pos)}")
        return cells


class _Walking:
    """How a walking fighter's steps are priced under speed-meters."""

    def __init__(self, rs: SpeedMeters, speed: int) -> None:
        self.rs = rs
        self.speed = speed
        self.unit = rs.unit

    def price(self, state: EncounterState, f: Fighter, frm: Pos, to: XY, parity: int) -> Step:
        grid = state.grid
        rs = self.rs
        # occupancy: walls and solid obstacles are never passed.
        if grid.blocked(*to) or grid.has(*to, "solid"):
            raise Refusal(
                rs.rule("occupancy"),
                f"{show(to)} is {grid.kind(*to).terrain}: a solid obstacle blocks the way",
            )
        # occupancy: enemies block, allies may be passed through.
        for other in state.at(*to):
            if other.id != f.id and other.side != f.side:
                raise Refusal(rs.rule("occupancy"), f"{show(to)} is held by {other.id}, an enemy of {f.id}")
        # rough: 2 m a space, unless the mover's Speed is 1.
        rough = grid.has(*to, "rough") and self.speed != CU
        step = flat_step(
            grid, frm, to, parity, diagonal=state.settings["diagonal"], terrain_factor=2 if rough else 1
        )
        # movement: only 1 m up, by jumping.
        up = rise(frm, step.to)
        if up > CU:
            raise Refusal(
                rs.rule("movement"),
                f"{show(to)} is {fmt(up)} m higher than {show(frm)}; "
                "a Movement goes at most 1 m up, by jumping",
            )
        if -up > CU:
            raise Refusal(
                rs.rule("movement"),
                f"{show(to)} is {fmt(-up)} m lower than {show(frm)}: stepping off would be a fall",
            )
        return step

    def eventful(self, state: EncounterState, f: Fighter, step: Step) -> bool:
        return False

    def on_step(self, b: Batch, fighter_id: str, step: Step) -> str:
        return ""

    def can_end(self, state: EncounterState, f: Fighter) -> None:
        # occupancy: never end in an occupied space.
        others = [o.id for o in state.at(f.pos[0], f.pos[1]) if o.id != f.id]
        if others:
            raise Refusal(
                self.rs.rule("occupancy"),
                f"the Movement would end on {show(f.pos)}, occupied by {', '.join(others)}",
            )
