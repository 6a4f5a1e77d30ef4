"""What the audit takes from outside: plain inputs, so it runs on any store and is tested without
the service that writes the log.

- A log: its records (explain, what-if) or its raw lines (verify), as any store reads them.
- `Decide`: the decision on a history, a command in, its events or a refusal out
  (projections/decider.py `decide_on`, the engine's, unless a caller gives another).
- `Live`: an encounter as it stands, for the dry run: its records, its timeline (the board
  before and after every batch) and a preview of a command. The app's `Encounter` is one;
  so is a `Replay` (projections/decider.py) folded from records alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.state import EncounterState
from tabletrail.events.commands import Command
from tabletrail.events.stores.record import Record
from tabletrail.events.types import Event
from tabletrail.projections.decider import Decide, Replay, decide_on
from tabletrail.projections.timeline import Timeline


class Logged(Protocol):
    """A log verify reads line by line: any store, or a bundle's log, which takes no appends."""

    name: str

    def read(self, start: int = 0) -> Iterator[bytes]: ...


class Live(Protocol):
    """An encounter as it stands: what `dry_run` reads of it."""

    @property
    def records(self) -> Sequence[Record]: ...

    @property
    def timeline(self) -> Timeline: ...

    @property
    def state(self) -> EncounterState: ...

    def preview(self, command: Command) -> list[Event] | Rejection: ...


__all__ = ["Decide", "Live", "Logged", "Replay", "decide_on"]
