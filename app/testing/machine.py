"""The conformance machine: one encounter played at random, checked after every step.

A ruleset's Hypothesis state machine subclasses `EncounterMachine`, gives it a
scenario (TOML text) and adds the commands and invariants of its own rules (or
`conformance_machine` makes one from a strategy of command texts). What holds
whatever the ruleset, a built-in or a plug-in, lives here, once:

- every command goes through `run`. A refusal must leave the log byte for byte
  as it was, add no record, be noted in the side log of refusals and cite a rule
  and a reason. An accepted command must append exactly one batch after the old
  bytes, numbered on from the last record and headed by its CommandIssued; an
  undo or a redo appends a single Undone or Redone (it decides and rolls nothing);
- end-turn, undo and redo are rules of every machine, and so are undo-then-redo
  and undo-everything-then-redo-everything: undoing everything gives the board
  the encounter started with, and redoing gives back the board the undos took;
- after every step, replaying the log gives the live board, timeline and records,
  and every new line survives a decode/encode round trip and chains to the hash
  of the line before it.
"""

from __future__ import annotations

import tomllib
from typing import Any, ClassVar

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.commands import Command, Redo, Undo
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.record import Record, decode, encode
from tabletrail.events.types import CommandIssued, Redone, Undone
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse
from tabletrail.testing.helpers import CLOCK

# Who types undo and redo: drawn from the machine's own `undo_sides`.
undoers = st.runner().flatmap(lambda machine: st.sampled_from(machine.undo_sides))


class EncounterMachine(RuleBasedStateMachine):
    """One encounter played at random; subclasses name the scenario and add their ruleset's rules.

    Hooks a subclass may override: `new_store` and `reopen` (where the log lives),
    `log_bytes` (what "the log is unchanged" compares) and `ended_turn` (what an
    accepted or refused end-turn owes in its ruleset).
    """

    scenario: ClassVar[str]  # the scenario as TOML text
    refusing_rules: ClassVar[frozenset[str] | None] = None  # if set: every refusal cites one of these
    undo_sides: ClassVar[tuple[str, ...]] = ("gm",)  # who types undo and redo

    def __init__(self) -> None:
        super().__init__()
        parsed = parse_scenario(tomllib.loads(self.scenario), source=type(self).__name__)
        self.enc = Encounter.create(self.new_store(), parsed, clock=lambda: CLOCK)
        self.initial = self.board()
        self.checked_lines = 0  # lines already round-tripped and hash-checked

    # --- hooks ----------------------------------------------------------------------

    def new_store(self) -> Any:
        return MemoryStore()

    def reopen(self) -> Encounter:
        """A second encounter folded from nothing but the log's lines."""
        return Encounter.open(MemoryStore(list(self.enc.store.read())), clock=lambda: CLOCK)

    def log_bytes(self) -> bytes:
        """Everything the store holds, as the bytes a file would hold."""
        return b"".join(line + b"\n" for line in self.enc.store.read())

    def board(self) -> Any:
        """The board as the table sees it: what "the same board" compares."""
        return view(self.enc.state)

    def ended_turn(self, before: str, result: list[Record] | Rejection) -> None:
        """What an end-turn by `before` owes: by default, the active fighter may always end its turn."""
        assert not isinstance(result, Rejection), result

    @property
    def active(self) -> str:
        return self.enc.state.turn.active

    # --- running one command ----------------------------------------------------------

    def run(self, command: Command | str) -> list[Record] | Rejection:
        """Execute a command (typed text or a Command) and check what it owes the log."""
        text = command if isinstance(command, str) else ""
        order = parse(command) if isinstance(command, str) else command
        verb = order.__struct_config__.tag
        before = self.log_bytes()
        count = len(self.enc.records)
        refused = getattr(self.enc.store, "refused")  # noqa: B009  (an optional store feature: every test store has it)
        noted = len(refused())
        result = self.enc.execute(order, text)
        event(f"{verb} {'refused' if isinstance(result, Rejection) else 'accepted'}")
        if isinstance(result, Rejection):
            assert self.log_bytes() == before, f"{order} was refused but the log changed"
            assert len(self.enc.records) == count, f"{order} was refused but added records"
            assert len(refused()) == noted + 1, "the refusal is not in the side log"
            assert result.rule and result.reason, result
            if self.refusing_rules is not None:
                assert result.rule in self.refusing_rules, f"{order}: {result}"
            return result
        assert result, f"{order} was accepted with no events"
        assert self.log_bytes().startswith(before), "appending rewrote earlier bytes"
        assert len({r.batch for r in result}) == 1, "one command must append exactly one batch"
        assert [r.seq for r in result] == list(range(count + 1, count + 1 + len(result)))
        kinds = [type(r.event) for r in result]
        if isinstance(order, Undo):
            assert kinds == [Undone], kinds
        elif isinstance(order, Redo):
            assert kinds == [Redone], "redo must not decide or roll again"
        else:
            header = result[0].event
            assert isinstance(header, CommandIssued), "a command heads its batch"
            assert header.command == order and header.text == text, header
        return result

    def ok(self, command: Command | str) -> bool:
        """Run a command; whether it was accepted."""
        return not isinstance(self.run(command), Rejection)

    # --- rules every ruleset has -----------------------------------------------------

    @rule()
    def end_turn(self) -> None:
        before = self.active
        self.ended_turn(before, self.run("end-turn"))

    @rule(by=undoers)
    def undo(self, by: str) -> None:
        board = self.board()
        if not self.ok(f"undo by={by}"):
            assert self.board() == board, "a refused undo changed the board"

    @rule(by=undoers)
    def redo(self, by: str) -> None:
        board = self.board()
        if not self.ok(f"redo by={by}"):
            assert self.board() == board, "a refused redo changed the board"

    @rule()
    def undo_then_redo(self) -> None:
        board = self.board()
        if not self.ok("undo"):
            assert board == self.initial, "the GM could not undo, so nothing is in force"
            return
        assert self.ok("redo"), "the GM could not redo what it just undid"
        assert self.board() == board, "undo then redo changed the board"

    @rule()
    def undo_everything_then_redo_everything(self) -> None:
        board = self.board()
        redo_stack = list(self.enc.timeline.undone)  # earlier undos stay redoable
        undos = 0
        while self.ok("undo"):
            undos += 1
        assert self.board() == self.initial, f"after {undos} undos the board is not the starting one"
        for _ in range(undos):
            assert self.ok("redo")
        assert self.enc.timeline.undone == redo_stack, "redoing everything lost earlier undos"
        assert self.board() == board, "redoing every undo did not give back the board"

    # --- invariants every ruleset keeps ---------------------------------------------

    @invariant()
    def replay_equals_live(self) -> None:
        again = self.reopen()
        assert view(again.state) == view(self.enc.state), "replaying the log gives another board"
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
            assert encode(record) == line, f"line {n} does not re-encode to its own bytes"
            assert decode(encode(record), f"line {n}") == record
            assert record == self.enc.records[n - 1], f"line {n} is not the record the encounter holds"
            assert record.seq == n and record.prev == prev, f"line {n} breaks the numbering or the hash chain"
            prev = line_hash(line)
        self.checked_lines = len(lines)


def conformance_machine(
    scenario: str, commands: st.SearchStrategy[str], *, name: str = "Conformance"
) -> type[EncounterMachine]:
    """A state machine that plays `commands` (command texts) on `scenario` at random.

    Besides the rules every machine has (end-turn, undo, redo, undo everything then redo
    everything) and its invariants (replay equals live, every line round-trips and chains),
    it plays one drawn command a step: accepted or refused, it must keep them all. Run it
    with `TestMine = conformance_machine(SCENARIO, texts).TestCase`.
    """

    class Machine(EncounterMachine):
        @rule(text=commands)
        def play(self, text: str) -> None:
            self.run(text)

    Machine.scenario = scenario
    Machine.__name__ = Machine.__qualname__ = name
    return Machine
