"""The log's promises under random play, legal and not (issue 2, item 11).

A Hypothesis state machine drives one speed-meters encounter with random moves
to random cells (off the map, into walls, onto fighters, up cliffs, past the
budget), end-turn, drop-prone and stand-up (which speed-meters does not have),
moves by a fighter whose turn it is not, undo and redo. After every step:

- replaying the log from its lines gives the live board;
- every record survives an encode/decode round trip, byte for byte;
- a refused command appends nothing (on a file: the file is byte-identical);

and on demand: undoing everything gives the board the encounter started with,
and redo after undo gives back the board the undo took away.

The same machine runs on a MemoryStore and on a JSON Lines file.
"""

from __future__ import annotations

import shutil
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from tabletrail.core.refusal import Rejection
from tabletrail.core.units import to_cu
from tabletrail.encounter import Encounter
from tabletrail.events.commands import Command, DropProne, EndTurn, Move, Redo, StandUp, Undo
from tabletrail.events.log import JsonlStore, MemoryStore, Record, decode, encode, line_hash
from tabletrail.events.scenario import parse_scenario
from tabletrail.events.types import CheckRolled, CommandIssued, Moved, Redone, Undone
from tabletrail.projections.board import view

CLOCK = "2026-11-29T00:00:00+00:00"

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


def scenario():
    return parse_scenario(tomllib.loads(SCENARIO), source="stateful arena")


def log_bytes(store: Any) -> bytes:
    """Everything the store holds, as the bytes a file would hold."""
    if isinstance(store, JsonlStore):
        return store.path.read_bytes()
    return b"".join(line + b"\n" for line in store.lines)


class LogMachine(RuleBasedStateMachine):
    """One encounter played at random; subclasses choose the store."""

    def __init__(self) -> None:
        super().__init__()
        self.enc = Encounter.create(self.new_store(), scenario(), clock=lambda: CLOCK)
        self.initial = view(self.enc.state)
        self.checked_lines = 0  # lines already round-tripped

    def new_store(self) -> Any:
        return MemoryStore()

    def reopen(self) -> Encounter:
        return Encounter.open(MemoryStore(list(self.enc.store.read())), clock=lambda: CLOCK)

    # --- running one command -----------------------------------------------------

    def run(self, command: Command) -> list[Record] | Rejection:
        """Execute and check what every command owes the log, accepted or refused."""
        before = log_bytes(self.enc.store)
        refused_before = len(self.enc.store.refused())
        count = len(self.enc.records)
        result = self.enc.execute(command, "")
        event(f"{type(command).__name__} {'refused' if isinstance(result, Rejection) else 'accepted'}")
        if isinstance(result, Rejection):
            assert log_bytes(self.enc.store) == before, f"{command} was refused but the log changed"
            assert len(self.enc.records) == count
            assert len(self.enc.store.refused()) == refused_before + 1, "the refusal is not in the side log"
            assert result.rule and result.reason
        else:
            assert result, f"{command} was accepted with no events"
            assert log_bytes(self.enc.store).startswith(before), "appending rewrote earlier bytes"
            assert len({r.batch for r in result}) == 1, "one command must append exactly one batch"
            assert [r.seq for r in result] == list(range(count + 1, count + 1 + len(result)))
        return result

    def active(self) -> str:
        return self.enc.state.turn.active

    # --- rules: commands the table might type -----------------------------------

    @rule(offsets=hops, by=st.sampled_from(SIDES))
    def hop_active(self, offsets: tuple[tuple[int, int], ...], by: str) -> None:
        f = self.enc.state.fighter(self.active())
        assert f is not None
        self.move_active(tuple((f.pos[0] + dx, f.pos[1] + dy) for dx, dy in offsets), by)

    @rule(path=paths, by=st.sampled_from(SIDES))
    def move_active(self, path: tuple[tuple[int, int], ...], by: str) -> None:
        fid = self.active()
        f = self.enc.state.fighter(fid)
        assert f is not None
        result = self.run(Move(fighter=fid, path=path, by=by))
        if isinstance(result, Rejection):
            assert result.rule in MOVE_RULES, result
            return
        moved = [r.event for r in result if isinstance(r.event, Moved)]
        assert moved, "an accepted move records where the fighter went"
        now = self.enc.state.fighter(fid)
        assert now is not None
        assert now.pos[:2] == path[-1], "an accepted move ends on its last waypoint"
        assert sum(s.cost for m in moved for s in m.steps) <= to_cu(f.stats["speed"])
        assert not [o.id for o in self.enc.state.at(*now.pos[:2]) if o.id != fid], "ended on a fighter"

    @rule(fid=st.sampled_from(FIGHTERS), path=paths)
    def move_out_of_turn(self, fid: str, path: tuple[tuple[int, int], ...]) -> None:
        if fid == self.active():
            return
        result = self.run(Move(fighter=fid, path=path))
        assert isinstance(result, Rejection) and result.rule == "tabletrail/turn-order", result

    @rule(path=paths)
    def move_nobody(self, path: tuple[tuple[int, int], ...]) -> None:
        result = self.run(Move(fighter="zed", path=path))
        assert isinstance(result, Rejection) and result.rule == "tabletrail/fighter", result

    @rule(posture=st.sampled_from((DropProne, StandUp)))
    def posture(self, posture: type[Command]) -> None:
        result = self.run(posture(fighter=self.active()))  # type: ignore[call-arg]
        assert isinstance(result, Rejection) and result.rule == "tabletrail/command", result

    @rule()
    def end_turn(self) -> None:
        before = self.active()
        result = self.run(EndTurn())
        assert not isinstance(result, Rejection), result
        order = self.enc.state.turn.order
        assert self.active() == order[(order.index(before) + 1) % len(order)]

    @rule(fid=st.sampled_from(FIGHTERS))
    def end_turn_named(self, fid: str) -> None:
        active = self.active()
        result = self.run(EndTurn(fighter=fid))
        assert isinstance(result, Rejection) == (fid != active), result

    @rule(by=st.sampled_from(SIDES))
    def undo(self, by: str) -> None:
        board = view(self.enc.state)
        result = self.run(Undo(by=by))
        if isinstance(result, Rejection):
            assert view(self.enc.state) == board
            return
        assert [type(r.event) for r in result] == [Undone]

    @rule(by=st.sampled_from(SIDES))
    def redo(self, by: str) -> None:
        result = self.run(Redo(by=by))
        if not isinstance(result, Rejection):
            assert [type(r.event) for r in result] == [Redone], "redo must not decide or roll again"

    @rule()
    def undo_then_redo(self) -> None:
        board = view(self.enc.state)
        undone = self.run(Undo())
        if isinstance(undone, Rejection):
            assert board == self.initial, "the GM could not undo, so nothing is in force"
            return
        redone = self.run(Redo())
        assert not isinstance(redone, Rejection), redone
        assert view(self.enc.state) == board

    @precondition(lambda self: len(self.enc.records) > 0)
    @rule()
    def undo_everything_then_redo_everything(self) -> None:
        board = view(self.enc.state)
        redo_stack = list(self.enc.timeline.undone)  # earlier undos stay redoable
        undos = 0
        while not isinstance(self.run(Undo()), Rejection):
            undos += 1
        assert view(self.enc.state) == self.initial
        for _ in range(undos):
            assert not isinstance(self.run(Redo()), Rejection)
        assert self.enc.timeline.undone == redo_stack
        assert view(self.enc.state) == board

    # --- invariants ---------------------------------------------------------------

    @invariant()
    def replay_equals_live(self) -> None:
        again = self.reopen()
        assert view(again.state) == view(self.enc.state)
        assert again.timeline.applied == self.enc.timeline.applied
        assert again.timeline.undone == self.enc.timeline.undone
        assert again.timeline.abandoned == self.enc.timeline.abandoned
        assert again.records == self.enc.records

    @invariant()
    def records_round_trip(self) -> None:
        lines = list(self.enc.store.read())
        prev = line_hash(lines[self.checked_lines - 1]) if self.checked_lines else ""
        for n, line in enumerate(lines[self.checked_lines :], start=self.checked_lines + 1):
            record = decode(line, f"line {n}")
            assert encode(record) == line
            assert decode(encode(record), f"line {n}") == record
            assert record == self.enc.records[n - 1]
            assert record.seq == n and record.prev == prev
            prev = line_hash(line)
        self.checked_lines = len(lines)

    @invariant()
    def commands_head_their_batches(self) -> None:
        last = self.enc.records[-1]
        if not isinstance(last.event, Undone | Redone) and last.batch > 1:
            first = next(r for r in self.enc.records if r.batch == last.batch)
            assert isinstance(first.event, CommandIssued)
        assert not any(isinstance(r.event, CheckRolled) for r in self.enc.records), "no speed-meters check"


class JsonlLogMachine(LogMachine):
    """The same play on a JSON Lines file: the file itself is what is compared."""

    def new_store(self) -> Any:
        self.folder = Path(tempfile.mkdtemp(prefix="tabletrail-stateful-"))
        return JsonlStore(self.folder / "fight.jsonl", durable=False)

    def reopen(self) -> Encounter:
        assert isinstance(self.enc.store, JsonlStore)
        return Encounter.open(JsonlStore(self.enc.store.path, durable=False), clock=lambda: CLOCK)

    def teardown(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


SETTINGS = settings(
    max_examples=60,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

TestLogInMemory = LogMachine.TestCase
TestLogInMemory.settings = SETTINGS
TestLogOnFile = JsonlLogMachine.TestCase
TestLogOnFile.settings = settings(SETTINGS, max_examples=30)
