"""An encounter: a log store, the timeline folded from it, and `decide` in between.

This is where a command becomes a batch: decide, wrap each event in a record
(sequence number, batch, actor, time, hash of the previous line), append the
whole batch to the store at once, then fold it into the timeline.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from tabletrail.core.batch import Batch
from tabletrail.core.decide import decide
from tabletrail.core.dice import Dice
from tabletrail.core.refusal import Rejection
from tabletrail.core.rulesets import get as get_ruleset
from tabletrail.events.commands import Command, Redo, Undo
from tabletrail.events.errors import InputError
from tabletrail.events.log import Record, Refused, Store, decode, encode, line_hash, now
from tabletrail.events.scenario import Scenario
from tabletrail.events.types import (
    Abandoned,
    CommandIssued,
    EncounterStarted,
    Event,
    Redone,
    Undone,
)
from tabletrail.projections.board import initial_state
from tabletrail.projections.timeline import Timeline

UNDO_RULE = "tabletrail/undo"


class Encounter:
    def __init__(self, store: Store, clock: Callable[[], str] = now) -> None:
        self.store = store
        self.clock = clock
        self.records: list[Record] = []
        self.timeline = Timeline()
        self.last_hash = ""

    # --- opening and creating --------------------------------------------------

    @classmethod
    def open(cls, store: Store, clock: Callable[[], str] = now, upto: int | None = None) -> Encounter:
        """Read and fold a log; `upto` stops after that sequence number (read-only view)."""
        enc = cls(store, clock)
        expected_prev = ""
        for lineno, line in enumerate(store.read(), start=1):
            if upto is not None and lineno > upto:
                break
            where = f"{store.name}:{lineno}"
            record = decode(line, where)
            if record.seq != lineno:
                raise InputError(f"{where}: seq is {record.seq}, expected {lineno}")
            if record.prev != expected_prev:
                raise InputError(
                    f"{where}: hash chain broken: this line's prev does not match the line before"
                )
            if lineno == 1 and not isinstance(record.event, EncounterStarted):
                raise InputError(f"{where}: a log must start with an encounter-started event")
            expected_prev = line_hash(line)
            enc.records.append(record)
            try:
                enc.timeline.apply(record)
            except (KeyError, ValueError, AssertionError, AttributeError) as exc:
                raise InputError(f"{where}: this event does not fit the board before it ({exc!r})") from None
        if not enc.records:
            raise InputError(f"{store.name}: the log is empty")
        enc.last_hash = expected_prev
        return enc

    @classmethod
    def create(
        cls, store: Store, scenario: Scenario, clock: Callable[[], str] = now, where: str = "scenario"
    ) -> Encounter:
        ruleset = get_ruleset(scenario.ruleset)
        settings = ruleset.resolve_settings(scenario.settings, f"{where}: settings")
        ruleset.validate(scenario, where)
        _check_places(scenario, where)
        started = EncounterStarted(
            scenario=scenario, settings=settings, note=f"{scenario.name} under {ruleset.id}"
        )
        b = Batch(initial_state(started))
        ruleset.begin(b, Dice())
        enc = cls(store, clock)
        lines = enc._records_for([started, *b.events], actor="gm")
        if hasattr(store, "create"):
            store.create(lines)  # type: ignore[union-attr]
        else:
            store.append(lines)
        for line in lines:
            enc._fold(line)
        return enc

    # --- acting --------------------------------------------------------------

    @property
    def state(self):  # noqa: ANN201 - EncounterState
        return self.timeline.board

    def execute(self, command: Command, text: str = "") -> list[Record] | Rejection:
        """Decide and append one command as one batch; a rejection appends nothing."""
        events = self.preview(command)
        if isinstance(events, Rejection):
            note = getattr(self.store, "note_refusal", None)
            if note is not None:
                note(
                    Refused(
                        at=self.clock(),
                        by=command.by,
                        text=text,
                        rule=events.rule,
                        reason=events.reason,
                        after_seq=len(self.records),
                    )
                )
            return events
        if not isinstance(command, Undo | Redo):
            header = CommandIssued(command=command, text=text)
            cut = tuple(self.timeline.undone)
            extra: list[Event] = (
                [
                    Abandoned(
                        batches=cut,
                        rules=(UNDO_RULE,),
                        note="a new command after an undo ends the redo branch",
                    )
                ]
                if cut
                else []
            )
            events = [header, *extra, *events]
        lines = self._records_for(events, actor=command.by)
        self.store.append(lines)
        first = len(self.records)
        for line in lines:
            self._fold(line)
        return self.records[first:]

    def preview(self, command: Command) -> list[Event] | Rejection:
        """What the command would do, without appending anything (the dry run)."""
        if isinstance(command, Undo):
            target = self.timeline.undo_target()
            if target is None:
                return Rejection(UNDO_RULE, "nothing to undo: no command is in force")
            refusal = self._undo_policy(command.by, target, "undo")
            return refusal or [Undone(batch=target, by=command.by, why=command.why, rules=(UNDO_RULE,))]
        if isinstance(command, Redo):
            target = self.timeline.redo_target()
            if target is None:
                return Rejection(UNDO_RULE, "nothing to redo: no undone command since the last new one")
            refusal = self._undo_policy(command.by, target, "redo")
            return refusal or [Redone(batch=target, by=command.by, why=command.why, rules=(UNDO_RULE,))]
        return decide(self.state, command)

    def _undo_policy(self, by: str, batch: int, verb: str) -> Rejection | None:
        """Players undo only their own side's commands; the GM undoes anything.

        With the `undo_seeded` setting at "gm", a batch that drew seeded dice is the
        GM's to undo: undo is no way to re-roll.
        """
        if by == "gm":
            return None
        owner = self.timeline.actors.get(batch, "gm")
        if owner != by:
            return Rejection(
                UNDO_RULE,
                f"batch {batch} was entered by {owner}; only the GM may {verb} "
                f"another side's command (asked by {by})",
            )
        if batch in self.timeline.seeded and self.state.settings.get("undo_seeded") == "gm":
            return Rejection(
                UNDO_RULE,
                f'batch {batch} drew seeded dice; with undo_seeded = "gm" only the GM may {verb} it',
            )
        return None

    # --- records ---------------------------------------------------------------

    def _records_for(self, events: list[Event], actor: str) -> list[bytes]:
        seq = len(self.records)
        batch = (self.records[-1].batch + 1) if self.records else 1
        prev = self.last_hash
        at = self.clock()
        lines = []
        for event in events:
            seq += 1
            line = encode(Record(seq=seq, batch=batch, actor=actor, at=at, prev=prev, event=event))
            prev = line_hash(line)
            lines.append(line)
        return lines

    def _fold(self, line: bytes) -> None:
        record = msgspec.json.decode(line, type=Record)
        self.records.append(record)
        self.timeline.apply(record)
        self.last_hash = line_hash(line)


def _check_places(scenario: Scenario, where: str) -> None:
    """Fighters start on open ground, one to a space unless they share a side's square."""
    from tabletrail.core.geometry import Grid

    grid = Grid(scenario)
    for i, spec in enumerate(scenario.fighters):
        x, y = spec.at[0], spec.at[1]
        if grid.blocked(x, y):
            raise InputError(f"{where}: fighters[{i}].at: {x},{y} is {grid.kind(x, y).terrain}")
