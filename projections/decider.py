"""One command decided on an encounter's history, with no store in sight.

The rules' `decide` (core/decide.py) sees one board. A command at the table is
decided on the whole history (the timeline): undo and redo move its cursor
under the undo policy (rule tabletrail/undo), and a new command after an undo
ends the redo branch first. The `Encounter` service (app/service/encounter.py) writes
what is decided here to its store; the audit (projections/audit) re-decides a
log with `Replay`, the same decisions kept in memory, so it needs no service.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from tabletrail.core.board.corrections import RULES_VERSION
from tabletrail.core.board.geometry import Grid
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.board.state import EncounterState
from tabletrail.core.decide import decide
from tabletrail.core.engine.dice import Dice
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.engine.ruleset import UNDO_RULE
from tabletrail.core.fold.batch import Batch
from tabletrail.core.fold.evolve import initial_state
from tabletrail.events import plugins
from tabletrail.events.commands import Command, Redo, Undo
from tabletrail.events.errors import InputError
from tabletrail.events.scenario_spec import Scenario
from tabletrail.events.stores.appending import batch_lines
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.record import Record
from tabletrail.events.types import Abandoned, CommandIssued, EncounterStarted, Event, Redone, Undone
from tabletrail.projections.timeline import Timeline

_NOTHING = {  # why an undo or a redo has no batch to act on
    "undo": "nothing to undo: no command is in force",
    "redo": "nothing to redo: no undone command since the last new one",
}

Decide = Callable[[Timeline, Command], "list[Event] | Rejection"]
"""A decision on a history: the events a command gives, or why it is refused (`decide_on` is the engine's)."""


def decide_on(timeline: Timeline, command: Command) -> list[Event] | Rejection:
    """What the command would do on the history as it stands, appending nothing (the dry run)."""
    if not isinstance(command, Undo | Redo):
        return decide(timeline.board, command)
    undo = isinstance(command, Undo)
    verb, target = ("undo", timeline.undo_target()) if undo else ("redo", timeline.redo_target())
    if target is None:
        return Rejection(UNDO_RULE, _NOTHING[verb])
    refusal = _undo_policy(timeline, command.by, target, verb)
    made = Undone if undo else Redone
    return refusal or [made(batch=target, by=command.by, why=command.why, rules=(UNDO_RULE,))]


def _undo_policy(timeline: Timeline, by: str, batch: int, verb: str) -> Rejection | None:
    """Players undo only their own side's commands; the GM undoes anything.

    With the `undo_seeded` setting at "gm", a batch that drew seeded dice is the
    GM's to undo: undo is no way to re-roll.
    """
    if by == "gm":
        return None
    owner = timeline.actors.get(batch, "gm")
    if owner != by:
        return Rejection(
            UNDO_RULE,
            f"batch {batch} was entered by {owner}; only the GM may {verb} "
            f"another side's command (asked by {by})",
        )
    if batch in timeline.seeded and timeline.board.settings.get("undo_seeded") == "gm":
        return Rejection(
            UNDO_RULE,
            f'batch {batch} drew seeded dice; with undo_seeded = "gm" only the GM may {verb} it',
        )
    return None


def batch_events(timeline: Timeline, command: Command, text: str, decided: list[Event]) -> list[Event]:
    """The events one batch records: a command's header (and, after an undo, the end of the redo
    branch) before what was decided; an undo or redo is its one event."""
    if isinstance(command, Undo | Redo):
        return decided
    header = CommandIssued(command=command, text=text)
    cut = tuple(timeline.undone)
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
    return [header, *extra, *decided]


def started_event(
    scenario: Scenario, where: str = "scenario", rules_version: str = RULES_VERSION
) -> EncounterStarted:
    """The first event of a log: the scenario checked, under its ruleset's settings in force.

    rules_version: today's for a new log; a what-if of an older log begins under that log's own
    (a fight keeps the arithmetic it began with, core/board/corrections.py)."""
    try:
        ruleset = get_ruleset(scenario.ruleset)
    except InputError as exc:
        raise InputError(f"{where}: encounter.ruleset: {exc}") from None
    settings = ruleset.resolve_settings(scenario.settings, f"{where}: settings")
    ruleset.validate(scenario, where)
    check_places(scenario, where)
    provider = plugins.find(ruleset.id)
    return EncounterStarted(
        scenario=scenario,
        settings=settings,
        note=f"{scenario.name} under {ruleset.id}",
        rules_version=rules_version,
        package=provider.package,
        package_version=provider.version,
        ruleset_rules=provider.plugin.rules_version or rules_version,
    )


def setup_events(started: EncounterStarted) -> list[Event]:
    """The setup batch: the encounter started and its first turn begun, as the ruleset begins it."""
    b = Batch(initial_state(started))
    get_ruleset(started.scenario.ruleset).begin(b, Dice())
    return [started, *b.events]


def check_places(scenario: Scenario, where: str) -> None:
    """Fighters start on open ground, on the map, one to a space unless they share a side's square."""
    grid = Grid.of(scenario)
    for i, spec in enumerate(scenario.fighters):
        x, y = spec.at[0], spec.at[1]
        if not grid.inside(x, y):
            raise InputError(
                f"{where}: fighters[{i}].at: {x},{y} is off the {grid.width} x {grid.height} map"
            )
        if grid.blocked(x, y):
            raise InputError(f"{where}: fighters[{i}].at: {x},{y} is {grid.kind(x, y).terrain}")
        earlier = next((j for j in range(i) if tuple(scenario.fighters[j].at[:2]) == (x, y)), None)
        if earlier is not None:
            raise InputError(
                f"{where}: fighters[{i}].at: {x},{y} is where fighters[{earlier}] "
                f"({scenario.fighters[earlier].id}) starts; one fighter to a space"
            )


class Replay:
    """An encounter's history in memory: records folded into a timeline, commands decided on it.

    What the audit needs of an encounter, with no store and no service: `verify`
    feeds it the recorded history batch by batch, `whatif` runs commands on it,
    `dry_run` reads it as it reads an open encounter. `decide` is the decision it
    asks (the engine's `decide_on` unless told otherwise).
    """

    def __init__(self, decide: Decide = decide_on, clock: Callable[[], str] = lambda: "") -> None:
        self.decide = decide
        self.clock = clock
        self.records: list[Record] = []
        self.timeline = Timeline()
        self.last_hash = ""
        self.key = b""  # the chain's key when the log is keyed (events/stores/chain.py chain_key)

    @classmethod
    def start(
        cls,
        scenario: Scenario,
        *,
        decide: Decide = decide_on,
        clock: Callable[[], str] = lambda: "",
        where: str = "scenario",
        rules_version: str = RULES_VERSION,
    ) -> Replay:
        """A new encounter in memory: its setup batch, as `Encounter.create` writes it (begun under
        `rules_version`: another log's, to re-decide that log's commands as it decides them)."""
        replay = cls(decide, clock)
        replay._add(setup_events(started_event(scenario, where, rules_version)), "gm")
        return replay

    @property
    def state(self) -> EncounterState:
        return self.timeline.board

    @property
    def batch(self) -> int:
        """The last record's batch (0 before the first)."""
        return self.records[-1].batch if self.records else 0

    def apply(self, record: Record, line: bytes = b"") -> None:
        """Fold one recorded record (its line, when given, carries the chain on)."""
        self.timeline.apply(record)
        self.records.append(record)
        if line:
            self.last_hash = line_hash(line, self.key)

    def preview(self, command: Command) -> list[Event] | Rejection:
        return self.decide(self.timeline, command)

    def execute(self, command: Command, text: str = "") -> list[Record] | Rejection:
        """Decide a command and fold its batch in memory; a rejection folds nothing."""
        decided = self.preview(command)
        if isinstance(decided, Rejection):
            return decided
        first = len(self.records)
        self._add(batch_events(self.timeline, command, text, decided), command.by)
        return self.records[first:]

    def _add(self, events: list[Event], actor: str) -> None:
        lines = batch_lines(
            events,
            seq=len(self.records),
            batch=self.batch + 1,
            prev=self.last_hash,
            actor=actor,
            at=self.clock(),
            key=self.key,
        )
        for line in lines:  # decoded as a store's reader would see them
            self.apply(msgspec.json.decode(line, type=Record), line)
