"""A batch in the making: the events of one command, applied as they are emitted.

Rules often need the state their own facts produce (after the first half of a
move, is the fighter now in an enemy's reach?). `Batch` keeps a working state
by folding each emitted event with the board's `evolve`; if a rule refuses
later in the command, the whole batch is dropped and nothing is appended.
"""

from __future__ import annotations

from tabletrail.core.board.state import EncounterState
from tabletrail.core.fold.evolve import evolve
from tabletrail.events.types import Event


class Batch:
    """A command's events in the making: `emit` appends them and applies each to `state` at once,
    so a handler reads the board as its own events so far have left it (`start` is the board before)."""

    def __init__(self, state: EncounterState) -> None:
        self.start = state
        self.state = state
        self.events: list[Event] = []

    def emit(self, *events: Event) -> None:
        for event in events:
            self.events.append(event)
            self.state = evolve(self.state, event)
