"""The timeline: the board at every point of the log, and the undo/redo cursor.

The state before and after every batch is kept (states share structure, so
this is cheap). Undo moves the cursor to the state before the undone batch;
redo moves it to the state after the redone batch, exactly as its recorded
events left it: no rule runs and no die is rolled again. Both are O(1) in the
length of the log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tabletrail.core.evolve import APPLY, initial_state
from tabletrail.core.state import EncounterState
from tabletrail.events.log import Record
from tabletrail.events.types import (
    Abandoned,
    CheckRolled,
    CommandIssued,
    EncounterStarted,
    Redone,
    Undone,
)


def _with_defaults(started: EncounterStarted) -> EncounterStarted:
    """Settings a later version added take their defaults in logs written before them."""
    from msgspec.structs import replace
    from tabletrail.core.rulesets import RULESETS

    ruleset = RULESETS.get(started.scenario.ruleset)
    if ruleset is None:
        return started
    defaults = {s.name: s.default for s in ruleset.all_settings()}
    missing = defaults.keys() - started.settings.keys()
    return replace(started, settings={**defaults, **started.settings}) if missing else started


class FoldError(Exception):
    """A record `Timeline.extend` could not fold: its index among those given, and why."""

    def __init__(self, index: int, cause: Exception) -> None:
        super().__init__(index, cause)
        self.index, self.cause = index, cause


class Timeline:
    def __init__(self) -> None:
        self.state: EncounterState | None = None
        self.before: dict[int, EncounterState] = {}
        self.after: dict[int, EncounterState] = {}
        self.applied: list[int] = []  # batches in force, oldest first (the setup batch included)
        self.undone: list[int] = []  # the redo stack: last undone last
        self.abandoned: set[int] = set()  # undone batches a later command cut off
        self.commands: dict[int, CommandIssued] = {}
        self.actors: dict[int, str] = {}
        self.seeded: set[int] = set()  # batches that drew from the seeded dice
        self.first_seq: dict[int, int] = {}
        self.last_seq = 0
        self._batch = 0

    @classmethod
    def of(cls, records: Iterable[Record]) -> Timeline:
        timeline = cls()
        for record in records:
            timeline.apply(record)
        return timeline

    @property
    def board(self) -> EncounterState:
        assert self.state is not None, "the log is empty"
        return self.state

    def apply(self, record: Record) -> None:
        event = record.event
        self.last_seq = record.seq
        kind = type(event)
        if kind is Undone:
            # Only the latest batch in force may be undone: a stack pop, O(1) at any depth.
            if len(self.applied) < 2 or self.applied[-1] != event.batch:
                raise ValueError(f"undone batch {event.batch} is not the latest batch in force")
            self.undone.append(self.applied.pop())
            self.state = self.before[event.batch]
            return
        if kind is Redone:
            if not self.undone or self.undone[-1] != event.batch:
                raise ValueError(f"redone batch {event.batch} is not the batch undone most recently")
            self.applied.append(self.undone.pop())
            self.state = self.after[event.batch]
            return
        batch = record.batch
        if batch != self._batch:  # a new command's batch begins
            self._batch = batch
            self.first_seq[batch] = record.seq
            self.actors[batch] = record.actor
            self.applied.append(batch)
            if self.state is not None:
                self.before[batch] = self.state
        fold = APPLY.get(kind)
        if fold is not None:  # the board's facts; the two below are the log's own
            if kind is CommandIssued:
                self.commands[batch] = event
            elif kind is CheckRolled and event.source == "seeded":
                self.seeded.add(batch)
            self.state = fold(self.state, event)
        elif kind is EncounterStarted:
            self.state = initial_state(_with_defaults(event))
        elif kind is Abandoned:
            self.abandoned.update(event.batches)
            self.undone = [b for b in self.undone if b not in event.batches]
        else:
            raise KeyError(kind)
        self.after[batch] = self.state  # type: ignore[assignment]

    def extend(self, records: Sequence[Record]) -> None:
        """`apply` each record in turn, in one loop: replay's hot path.

        A fact inside the batch already begun (most records) is folded right here;
        anything else (a batch's first record, undo, redo, the start) goes through
        `apply`. A record the fold cannot take raises FoldError naming its index.
        """
        fold_of, commands, seeded, after = APPLY.get, self.commands, self.seeded, self.after
        before, first_seq, actors, applied = self.before, self.first_seq, self.actors, self.applied
        state, current = self.state, self._batch
        i = 0
        try:
            for i, record in enumerate(records):  # noqa: B007 - i names the record at fault
                event = record.event
                kind = type(event)
                fold = fold_of(kind)
                if fold is None or state is None:  # undo, redo, the start, an abandon: apply's cases
                    self.state, self._batch = state, current
                    self.apply(record)
                    state, current = self.state, self._batch
                    continue
                if record.batch != current:  # a new command's batch begins, as in apply
                    current = record.batch
                    first_seq[current] = record.seq
                    actors[current] = record.actor
                    applied.append(current)
                    before[current] = state
                if kind is CommandIssued:
                    commands[current] = event
                elif kind is CheckRolled and event.source == "seeded":
                    seeded.add(current)
                state = after[current] = fold(state, event)
        except Exception as exc:
            self.state, self._batch = state, current
            raise FoldError(i, exc) from exc
        self.state, self._batch = state, current
        if records:
            self.last_seq = records[-1].seq

    def undo_target(self) -> int | None:
        """The latest batch in force that may be undone (never the setup batch)."""
        return self.applied[-1] if len(self.applied) > 1 else None

    def redo_target(self) -> int | None:
        return self.undone[-1] if self.undone else None
