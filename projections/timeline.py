"""The timeline: the board at every point of the log, and the undo/redo cursor.

The state before and after every batch is kept (states share structure, so
this is cheap). Undo moves the cursor to the state before the undone batch;
redo moves it to the state after the redone batch, exactly as its recorded
events left it: no rule runs and no die is rolled again. Both are O(1) in the
length of the log.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import (
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    MutableMapping,
    MutableSequence,
    MutableSet,
    Sequence,
    ValuesView,
)
from operator import attrgetter
from typing import Any, Generic, TypeVar

import msgspec
from msgspec.structs import replace
from tabletrail.core.board.state import EncounterState, Fighter
from tabletrail.core.engine.registry import RULESETS
from tabletrail.core.fold.evolve import APPLY, FIGHTER, initial_state, no_change
from tabletrail.events.stores.record import Record
from tabletrail.events.types import (
    Abandoned,
    CheckRolled,
    CommandIssued,
    EncounterStarted,
    Moved,
    Redone,
    Refreshed,
    Undone,
)


def _with_defaults(started: EncounterStarted) -> EncounterStarted:
    """Settings a later version added take their defaults in logs written before them."""
    ruleset = RULESETS.get(started.scenario.ruleset)
    if ruleset is None:
        return started
    defaults = {s.name: s.default for s in ruleset.all_settings()}
    missing = defaults.keys() - started.settings.keys()
    return replace(started, settings={**defaults, **started.settings}) if missing else started


V = TypeVar("V")


class Packed(dict[int, V], Generic[V]):
    """A batch -> value map whose older entries are packed into bytes (`pack`); the newer stay a dict.

    A long encounter on a database store keeps only its latest records decoded
    (app/service/encounter.py KEEP); what the timeline keeps for each older batch (its
    command, actor, first seq) is packed as msgpack in one blob, found by bisecting
    the packed batch numbers, and decoded when asked for: about a fifth of the bytes.
    It reads as the dict it replaces; the fold writes new batches into the dict part.
    """

    def __init__(self, kind: type[V]) -> None:
        super().__init__()
        self._kind = kind
        self._keys = array("q")  # packed batches, ascending
        self._ends = array("q")  # where each one's bytes end in the blob
        self._blob = bytearray()

    def pack(self, below: int) -> None:
        """Pack the entries of batches before `below` (batches are packed in order, once)."""
        encode = _packer.encode
        for key in sorted(k for k in dict.keys(self) if k < below):
            if self._keys and key <= self._keys[-1]:
                continue  # older than what is packed already: stays in the dict
            self._blob += encode(dict.pop(self, key))
            self._keys.append(key)
            self._ends.append(len(self._blob))

    def _packed(self, key: object) -> int:
        """The index of a packed batch, or -1."""
        if not isinstance(key, int) or not self._keys:
            return -1
        i = bisect_left(self._keys, key)
        return i if i < len(self._keys) and self._keys[i] == key else -1

    def _unpack(self, i: int) -> V:
        start = self._ends[i - 1] if i else 0
        decoder: msgspec.msgpack.Decoder[V] | None = _unpackers.get(self._kind)  # kept by kind: decodes a V
        if decoder is None:
            decoder = _unpackers[self._kind] = msgspec.msgpack.Decoder(self._kind)
        return decoder.decode(memoryview(self._blob)[start : self._ends[i]])

    def __missing__(self, key: int) -> V:
        i = self._packed(key)
        if i < 0:
            raise KeyError(key)
        return self._unpack(i)

    def get(self, key: int, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self._packed(key) >= 0

    def __iter__(self) -> Iterator[int]:
        yield from self._keys
        yield from dict.__iter__(self)

    def __len__(self) -> int:
        return len(self._keys) + dict.__len__(self)

    def keys(self) -> KeysView[int]:  # type: ignore[override]  # a view over both parts, not dict_keys
        return KeysView(self)

    def values(self) -> ValuesView[V]:  # type: ignore[override]  # as keys()
        return ValuesView(self)

    def items(self) -> ItemsView[int, V]:  # type: ignore[override]  # as keys()
        return ItemsView(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, dict):
            return NotImplemented
        return len(self) == len(other) and dict(self.items()) == dict(other.items())

    def __ne__(self, other: object) -> bool:
        same = self.__eq__(other)
        return same if same is NotImplemented else not same

    __hash__ = None

    def __repr__(self) -> str:
        return f"Packed({len(self._keys)} packed, {dict.__len__(self)} held)"


_id_of, _root2 = attrgetter("id"), attrgetter("root2")
_packer = msgspec.msgpack.Encoder()
_unpackers: dict[type, msgspec.msgpack.Decoder[Any]] = {}  # one a kind, made when first needed


class FoldError(Exception):
    """A record `Timeline.extend` could not fold: its index among those given, and why."""

    def __init__(self, index: int, cause: Exception) -> None:
        super().__init__(index, cause)
        self.index, self.cause = index, cause


class Timeline:
    def __init__(self) -> None:
        self.state: EncounterState | None = None
        self.before: MutableMapping[int, EncounterState] = {}
        self.after: MutableMapping[int, EncounterState] = {}
        # lists and a set as folded; runs of batch numbers (projections/batch_runs.py) once restored
        self.applied: MutableSequence[int] = []  # batches in force, oldest first (the setup batch included)
        self.undone: MutableSequence[int] = []  # the redo stack: last undone last
        self.abandoned: MutableSet[int] = set()  # undone batches a later command cut off
        self.commands: MutableMapping[int, CommandIssued] = Packed(CommandIssued)
        self.actors: MutableMapping[int, str] = Packed(str)
        self.seeded: MutableSet[int] = set()  # batches that drew from the seeded dice (lazy once restored)
        self.first_seq: MutableMapping[int, int] = Packed(int)
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
        if kind is EncounterStarted:
            self.state = initial_state(_with_defaults(event))
            self.after[batch] = self.state
            return
        if self.state is None:  # only the start may come first: every other fact reads a board
            raise ValueError(f"{kind.__name__} at seq {record.seq} comes before the encounter started")
        fold = APPLY.get(kind)
        if fold is not None:  # the board's facts; the one below is the log's own
            if kind is CommandIssued:
                self.commands[batch] = event
            elif kind is CheckRolled and event.source == "seeded":
                self.seeded.add(batch)
            self.state = fold(self.state, event)
        elif kind is Abandoned:
            # A new command after an undo cuts off the redo stack: only batches on it can be abandoned.
            stray = set(event.batches).difference(self.undone)
            if stray:
                raise ValueError(f"abandoned batch {min(stray)} is not an undone batch")
            self.abandoned |= set(event.batches)
            self.undone = [b for b in self.undone if b not in event.batches]
        else:
            raise KeyError(kind)
        self.after[batch] = self.state

    def extend(self, records: Sequence[Record], links: Sequence[str] | None = None, seq: int = 0) -> int:
        """`apply` each record in turn, in one loop: replay's hot path; how many records it folded.

        With `links` (the `prev` each record must carry) and `seq` (the first one's), the chain
        and the sequence are checked in this same loop, not in passes of their own: the fold
        stops before the first record that does not carry them, leaving what it folded as
        `apply` would, and returns how many that is (the caller names the record at fault).

        A board fact (most records) is folded right here, and the state after its
        batch written once, when the batch ends; a fact whose fold changes nothing
        (a command, a turn's end) is not folded at all. A fact about one fighter alone
        (core/fold/evolve.py `fighter_alone`, inlined) changes that fighter in a working list of
        the batch's fighters, found by id in a dict; the board is put together from it
        once, when the batch ends or a fact that reads the board comes, instead of a
        new board a fact. Anything else (undo, redo, the start, an abandon) goes through
        `apply`. A record the fold cannot take raises FoldError naming its index.
        """
        fold_of, change_of, commands, seeded, after = (
            APPLY.get,
            FIGHTER.get,
            self.commands,
            self.seeded,
            self.after,
        )
        before, first_seq, actors, applied = self.before, self.first_seq, self.actors, self.applied
        state, current = self.state, self._batch
        folded = False  # `state` holds facts of batch `current` not yet written to `after` (so it is a board)
        working: list[Fighter] | None = None  # `state`'s fighters with facts folded since, not yet in `state`
        where: dict[str, int] | None = None  # fighter id -> index in `state.fighters` (the first one)
        at = -1  # the index of the record at hand
        try:
            for record in records:
                at += 1
                if links is not None and (record.seq != seq + at or record.prev != links[at]):
                    break  # not where the log says it is: folded up to the record before
                event = record.event
                kind = type(event)
                fold = fold_of(kind)
                if fold is None or state is None:  # undo, redo, the start, an abandon: apply's cases
                    if working is not None and state is not None:  # (a working list is of a board)
                        state, working = replace(state, fighters=tuple(working)), None
                    if folded and state is not None:
                        after[current], folded = state, False
                    self.state, self._batch = state, current
                    self.apply(record)
                    state, current, where = self.state, self._batch, None
                    continue
                if record.batch != current:  # a new command's batch begins, as in apply
                    if working is not None:
                        state, working = replace(state, fighters=tuple(working)), None
                    if folded:
                        after[current] = state
                    current = record.batch
                    first_seq[current] = record.seq
                    actors[current] = record.actor
                    applied.append(current)
                    before[current] = state
                folded = True
                if fold is no_change:
                    if kind is CommandIssued:
                        commands[current] = event
                    continue
                change = change_of(kind)
                if change is not None and (  # fighter_alone(state, event), inlined: a call was a tenth
                    (kind is not Moved or (event.steps and not sum(map(_root2, event.steps))))
                    and (kind is not Refreshed or event.fighter not in state.roots)
                ):
                    if where is None:
                        ids = list(map(_id_of, state.fighters))
                        where = dict(zip(reversed(ids), range(len(ids) - 1, -1, -1), strict=True))
                    i = where.get(event.fighter)
                    if i is None:
                        raise KeyError(f"no fighter {event.fighter!r}")
                    if working is None:
                        working = list(state.fighters)
                    working[i] = change(working[i], event)
                    continue
                if working is not None:
                    state, working = replace(state, fighters=tuple(working)), None
                if kind is CheckRolled and event.source == "seeded":
                    seeded.add(current)
                fighters = state.fighters
                state = fold(state, event)
                if state.fighters is not fighters and (
                    len(state.fighters) != len(fighters)
                    or list(map(_id_of, state.fighters)) != list(map(_id_of, fighters))
                ):
                    where = None
            else:
                at = len(records)
        except Exception as exc:
            if working is not None and state is not None:
                state = replace(state, fighters=tuple(working))
            if folded and state is not None:
                after[current] = state
            self.state, self._batch = state, current
            raise FoldError(at, exc) from exc
        if working is not None and state is not None:
            state = replace(state, fighters=tuple(working))
        if folded and state is not None:
            after[current] = state
        self.state, self._batch = state, current
        if at:
            self.last_seq = records[at - 1].seq
        return at

    def pack(self, below: int) -> None:
        """Pack what is kept of the batches before `below` (see `Packed`); undo and redo still O(1)."""
        for kept in (self.commands, self.actors, self.first_seq):
            if isinstance(kept, Packed):  # an encounter opened from a snapshot reads them lazily instead
                kept.pack(below)

    def undo_target(self) -> int | None:
        """The latest batch in force that may be undone (never the setup batch)."""
        return self.applied[-1] if len(self.applied) > 1 else None

    def redo_target(self) -> int | None:
        return self.undone[-1] if self.undone else None
