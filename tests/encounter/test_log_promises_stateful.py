"""The log's promises under random play, legal and not (issue 2, item 11).

A Hypothesis state machine drives one speed-meters encounter with random moves
to random cells (off the map, into walls, onto fighters, up cliffs, past the
budget), end-turn, drop-prone and stand-up (each takes an action under speed-meters),
moves by a fighter whose turn it is not, undo and redo. After every step:

- replaying the log from its lines gives the live board;
- every record survives an encode/decode round trip, byte for byte;
- a refused command appends nothing (on a file: the file is byte-identical);

and on demand: undoing everything gives the board the encounter started with,
and redo after undo gives back the board the undo took away.

The same machine runs on a MemoryStore here, and on every durable store in
tests/store/test_contract.py. The checks above (and the end-turn, undo and redo
rules) are the shared harness in support_stateful.py; this file adds the moves and
what speed-meters promises of them, the refusals the engine must give (out of turn,
unknown fighter, a posture verb speed-meters lacks, end-turn naming the wrong
fighter), that the turn passes to the next fighter in the order, that no check is
ever rolled, and players undoing or redoing only their own side's commands.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule
from support_stateful import EncounterMachine
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.units import to_cu
from tabletrail.events.commands import Command, DropProne, EndTurn, Move, StandUp
from tabletrail.events.stores.record import Record
from tabletrail.events.types import CheckRolled, Moved

ROWS = [
    "#########",
    "#....~~.#",
    "#.^..~~.#",
    "#.:.....#",
    "#...#...#",
    "#########",
]
WIDTH, HEIGHT = len(ROWS[0]), len(ROWS)

SCENARIO = f"""
[encounter]
name = "stateful arena"
ruleset = "speed-meters"
seed = 7
initiative = ["a", "r", "b", "s"]

[settings]
actions_per_turn = 2

[map]
rows = {ROWS!r}

[map.legend]
"#" = "wall"
"." = "floor"
"~" = "rough"
"^" = {{ terrain = "floor", ground = 1 }}
":" = {{ terrain = "floor", ground = 2.5 }}

[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = 4

[[fighters]]
id = "b"
side = "blue"
at = [2, 1]
speed = 1

[[fighters]]
id = "r"
side = "red"
at = [7, 4]
speed = 3

[[fighters]]
id = "s"
side = "red"
at = [6, 3]
speed = 2
"""

FIGHTERS = ("a", "b", "r", "s")
SIDES = ("gm", "blue", "red")
MOVE_RULES = {"speed-meters/movement", "speed-meters/occupancy", "speed-meters/stop"}

# Cells one beyond the map on every side, so off-map waypoints come up too.
cells = st.tuples(st.integers(-1, WIDTH), st.integers(-1, HEIGHT))
paths = st.lists(cells, min_size=1, max_size=3).map(tuple)
# Short hops from where the fighter stands: mostly legal, so the log grows.
hops = st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)), min_size=1, max_size=2).map(tuple)


class LogMachine(EncounterMachine):
    """One speed-meters encounter played at random on a MemoryStore.

    The shared harness (support_stateful) runs every command, owns end-turn,
    undo and redo, and checks replay, round trips and the hash chain; here are
    the moves, the refusals this scenario must produce and speed-meters' own checks.
    """

    scenario = SCENARIO
    undo_sides = SIDES  # players may undo only their own side's commands

    def ended_turn(self, before: str, result: list[Record] | Rejection) -> None:
        """speed-meters has one pass: the turn goes to the next fighter in the order."""
        super().ended_turn(before, result)
        order = self.enc.state.turn.order
        assert self.active == order[(order.index(before) + 1) % len(order)]

    # --- rules: commands the table might type -----------------------------------

    @rule(offsets=hops, by=st.sampled_from(SIDES))
    def hop_active(self, offsets: tuple[tuple[int, int], ...], by: str) -> None:
        f = self.enc.state.fighter(self.active)
        assert f is not None
        self.move_active(tuple((f.pos[0] + dx, f.pos[1] + dy) for dx, dy in offsets), by)

    @rule(path=paths, by=st.sampled_from(SIDES))
    def move_active(self, path: tuple[tuple[int, int], ...], by: str) -> None:
        fid = self.active
        f = self.enc.state.fighter(fid)
        assert f is not None
        result = self.run(Move(fighter=fid, path=path, by=by))
        if isinstance(result, Rejection):
            assert result.rule in MOVE_RULES | {"tabletrail/side"}, result
            if result.rule == "tabletrail/side":  # a player side may not move the other side's fighter
                assert by not in ("gm", f.side), result
            return
        assert by in ("gm", f.side), f"{by} moved {fid}, who fights for {f.side}"
        moved = [r.event for r in result if isinstance(r.event, Moved)]
        assert moved, "an accepted move records where the fighter went"
        now = self.enc.state.fighter(fid)
        assert now is not None
        assert now.pos[:2] == path[-1], "an accepted move ends on its last waypoint"
        assert sum(s.cost for m in moved for s in m.steps) <= to_cu(f.stats["speed"])
        assert not [o.id for o in self.enc.state.at(*now.pos[:2]) if o.id != fid], "ended on a fighter"

    @rule(fid=st.sampled_from(FIGHTERS), path=paths)
    def move_out_of_turn(self, fid: str, path: tuple[tuple[int, int], ...]) -> None:
        if fid == self.active:
            return
        result = self.run(Move(fighter=fid, path=path))
        assert isinstance(result, Rejection) and result.rule == "tabletrail/turn-order", result

    @rule(path=paths)
    def move_nobody(self, path: tuple[tuple[int, int], ...]) -> None:
        result = self.run(Move(fighter="zed", path=path))
        assert isinstance(result, Rejection) and result.rule == "tabletrail/fighter", result

    @rule(posture=st.sampled_from((DropProne, StandUp)))
    def posture(self, posture: type[Command]) -> None:
        before = self.enc.state.fighter(self.active).states.get("posture", "standing")  # type: ignore[union-attr]
        result = self.run(posture(fighter=self.active))  # type: ignore[call-arg]
        legal = (before == "standing") == (posture is DropProne)
        if isinstance(result, Rejection):
            # the POSTURE machine refuses the wrong way round; a turn out of actions refuses too
            assert result.rule == "speed-meters/movement", result
            assert not legal or "actions" in result.reason, result
        else:
            assert legal, f"{posture.__name__} accepted while {before}"

    @rule(fid=st.sampled_from(FIGHTERS))
    def end_turn_named(self, fid: str) -> None:
        active = self.active
        result = self.run(EndTurn(fighter=fid))
        assert isinstance(result, Rejection) == (fid != active), result

    # --- invariants ---------------------------------------------------------------

    @invariant()
    def no_checks_rolled(self) -> None:
        assert not any(isinstance(r.event, CheckRolled) for r in self.enc.records), "no speed-meters check"


SETTINGS = settings(
    max_examples=60,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

TestLogInMemory = LogMachine.TestCase
TestLogInMemory.settings = SETTINGS
# The same play on every durable store (JSON Lines, SQLite, PostgreSQL): tests/store/test_contract.py
