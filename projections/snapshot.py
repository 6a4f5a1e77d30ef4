"""Snapshots: the timeline at one version, kept so a long encounter opens fast.

A snapshot is a cache, never a source of truth: it can always be rebuilt by
folding the log from the start (`tabletrail repair DB` does), and one that does
not match the log (another format, or a line whose hash differs) is ignored.

It holds what the timeline needs to go on from its version: the board in force
(the state without its Grid, which is rebuilt from the scenario), the batches
in force, the redo stack and the abandoned batches, and the last batch numbers.
The three batch lists are kept as runs of consecutive numbers, packed
(projections/batch_runs.py), and restored as such: a `RunStack` and a `RunSet`
the timeline pushes, pops and asks as it would a list and a set, so opening
costs the same at any length of the log, and undo and redo stay O(1). A
snapshot written before them keeps the lists as tuples (`_Tuples`): it is
still read, its lists packed as it is loaded.

It also holds the two boards the first undo or redo after opening would go to:
the board before the latest batch in force, and the board after the batch on top
of the redo stack, each as only the fields that differ from the board in force
(`Delta`: states share structure, so most fields are the very same objects). So
the first undo after a snapshot open finds its state without folding anything
(issue 29); a snapshot written before them has neither, and undo reaches back as
below.

It does not hold the state before and after every earlier batch, nor who entered
each batch and what it asked: undo and redo reach those lazily. An encounter
opened from a snapshot gives the timeline `LazyMap`s and a `LazySet` that fetch
a batch's facts from the store the first time they are asked for: the state
before batch 40 is the board folded from the nearest snapshot at or before it.
So undo and redo work the same across the snapshot point, and only the batches
actually undone cost anything. Asking for the whole collection (iterating it,
its length) folds the log before the snapshot once and fills everything in.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): msgspec would
# compile each Struct field's annotation string when a command first builds a decoder
# (tests/cli/test_lazy_imports.py).
import typing
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, MutableSet
from typing import Any, NamedTuple, TypeVar

import msgspec
from tabletrail.core.board.corrections import RULES_VERSION
from tabletrail.core.board.geometry import Grid
from tabletrail.core.board.state import EncounterState
from tabletrail.events.digest import blake2b
from tabletrail.events.types import SCHEMA_VERSION, CommandIssued
from tabletrail.projections.batch_runs import RunSet, RunStack, check_packed
from tabletrail.projections.timeline import Timeline

FORMAT = 5  # raise when Snapshot or EncounterState changes shape so that older snapshots can't be read:
# they are then ignored (the batch lists' packed form came within 5: `loads` still reads the tuples)
# 2: the stored bytes start with a checksum of the rest (issue 13: a cache is checked before it is trusted)
# 3: the board keeps the doors' states (issue 19)
# 4: the board keeps the √2 part of what each fighter spent (issue 36: exact euclidean lengths)
# 5: the board keeps the rules version its log began under (a fight keeps the arithmetic it began with)
_SUM = 16  # bytes of the blake2b checksum in front of a snapshot

V = TypeVar("V")


def _board_type() -> type:
    """EncounterState's fields but the Grid: what a snapshot stores of the board."""
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for f in msgspec.structs.fields(EncounterState):
        if f.name == "grid":
            continue
        if f.default is not msgspec.NODEFAULT:
            fields.append((f.name, f.type, f.default))
        elif f.default_factory is not msgspec.NODEFAULT:
            fields.append((f.name, f.type, msgspec.field(default_factory=f.default_factory)))
        else:
            fields.append((f.name, f.type))
    return msgspec.defstruct("Board", fields, frozen=True, gc=False, module=__name__)


Board: Any = _board_type()


def _delta_type() -> type:
    """Board's fields, each left out unless given: a board written as what differs from another."""
    fields = [
        (name, typing.Union[ftype, msgspec.UnsetType], msgspec.UNSET)  # noqa: UP007 - a runtime union
        for name, ftype in zip(Board.__struct_fields__, _board_types(), strict=True)
    ]
    return msgspec.defstruct("Delta", fields, frozen=True, gc=False, omit_defaults=True, module=__name__)


def _board_types() -> list[Any]:
    by_name = {f.name: f.type for f in msgspec.structs.fields(EncounterState)}
    return [by_name[name] for name in Board.__struct_fields__]


Delta: Any = _delta_type()


class Snapshot(msgspec.Struct, frozen=True, gc=False):
    format: int
    schema: int  # the event vocabulary the state was folded under
    version: int  # the last record folded
    line_hash: str  # hash of that record's line: a snapshot of another log never fits
    batch: int  # that record's batch
    cursor: int  # the timeline's last command batch
    board: Board
    applied: bytes  # the batches in force, in order: RunStack.packed
    undone: bytes  # the redo stack, last undone last: RunStack.packed
    abandoned: bytes  # the abandoned batches: RunSet.packed
    # The rules version of the tabletrail that took it (core/board/corrections.py); "" before snapshots said.
    # A snapshot is a fold of recorded facts, which no rule re-decides: any version's fits its log.
    rules_version: str = ""
    # The board before the latest batch in force and after the batch redo would bring back, as their
    # differences from `board` (None: no such batch, or a snapshot written before issue 29).
    prior: Delta | None = None
    redo: Delta | None = None


def _tuples_type() -> type:
    """Snapshot as written before the batch lists were packed: runs and the redo stack as tuples."""
    old = {
        "applied": tuple[tuple[int, int], ...],  # runs (first, last) of the batches in force, in order
        "undone": tuple[int, ...],  # the redo stack
        "abandoned": tuple[tuple[int, int], ...],  # runs of the abandoned batches, ascending
    }
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for f in msgspec.structs.fields(Snapshot):
        ftype = old.get(f.name, f.type)
        fields.append((f.name, ftype) if f.default is msgspec.NODEFAULT else (f.name, ftype, f.default))
    return msgspec.defstruct("Tuples", fields, frozen=True, gc=False, module=__name__)


_Tuples: Any = _tuples_type()

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Snapshot)
_tuples_decoder = msgspec.msgpack.Decoder(_Tuples)


def expand(spans: Iterable[tuple[int, int]]) -> list[int]:
    """((1, 3), (5, 6)) -> [1, 2, 3, 5, 6]: the ascending runs a snapshot of the tuples kept."""
    out: list[int] = []
    for a, b in spans:
        out.extend(range(a, b + 1))
    return out


def _packed(old: Any) -> Snapshot:
    """A snapshot of the tuples, its batch lists packed as `take` packs them now (run by run)."""
    applied = RunStack()
    for first, last in old.applied:
        if first > last:  # not a run the tuples' writer made (its runs go up): its numbers one by one
            applied = RunStack(expand(old.applied))
            break
        applied.push_run(first, last)
    lists = {
        "applied": applied.packed(),
        "undone": RunStack(old.undone).packed(),
        "abandoned": RunSet.of_runs(old.abandoned).packed(),
    }
    return Snapshot(**{f: lists.get(f, getattr(old, f)) for f in Snapshot.__struct_fields__})


class _AppliedMemo:
    """The runs of one timeline's `applied` list, which only ever changes near its end.

    A timeline folded from the log keeps a plain list. Snapshots of a long encounter
    come every N events; packing hundreds of thousands of batches each time would cost
    more than the fold between them. The memo keeps the list as last seen and its
    runs: if the list still starts with it, only the new tail is pushed onto them.
    (A timeline restored from a snapshot keeps a RunStack, packed as it stands.)
    """

    def __init__(self) -> None:
        self.seen: list[int] = []
        self.stack = RunStack()

    def __call__(self, numbers: list[int]) -> bytes:
        k = len(self.seen)
        if k and len(numbers) >= k and numbers[:k] == self.seen:
            self.stack.extend(numbers[k:])
        else:
            self.stack = RunStack(numbers)
        self.seen = list(numbers)
        return self.stack.packed()


_memos: weakref.WeakKeyDictionary[Timeline, _AppliedMemo] = weakref.WeakKeyDictionary()


def _packed_applied(timeline: Timeline) -> bytes:
    applied = timeline.applied  # a list when folded, a RunStack when restored
    if isinstance(applied, RunStack):
        return applied.packed()
    assert isinstance(applied, list), type(applied)
    return _memos.setdefault(timeline, _AppliedMemo())(applied)


def _packed_stack(numbers: Iterable[int]) -> bytes:
    """A RunStack as it stands, or a list's numbers made into one (the same runs either way)."""
    return numbers.packed() if isinstance(numbers, RunStack) else RunStack(numbers).packed()


def _packed_set(numbers: Iterable[int]) -> bytes:
    return numbers.packed() if isinstance(numbers, RunSet) else RunSet(numbers).packed()


def board_of(state: EncounterState) -> Any:
    return Board(**{f: getattr(state, f) for f in Board.__struct_fields__})


def state_of(board: Any) -> EncounterState:
    """The full state again: the Grid is rebuilt from the scenario it was made from."""
    values = {f: getattr(board, f) for f in Board.__struct_fields__}
    return EncounterState(grid=Grid.of(board.scenario), **values)


def delta(state: EncounterState | None, base: EncounterState) -> Any:
    """`state` as the fields that are not the very objects `base` holds (None for no state)."""
    if state is None:
        return None
    fields = Board.__struct_fields__
    return Delta(**{f: v for f in fields if (v := getattr(state, f)) is not getattr(base, f)})


def undelta(d: Any, base: EncounterState) -> EncounterState:
    """The board `delta` wrote, on `base`'s Grid (so the step prices kept on it stay shared)."""
    changed = {f: v for f in Board.__struct_fields__ if (v := getattr(d, f)) is not msgspec.UNSET}
    return msgspec.structs.replace(base, **changed) if changed else base


def take(timeline: Timeline, line_hash: str, batch: int) -> Snapshot:
    """The timeline as it stands after its last record (which must end a batch)."""
    board = timeline.board
    prior = timeline.before.get(timeline.applied[-1]) if len(timeline.applied) > 1 else None
    redo = timeline.after.get(timeline.undone[-1]) if timeline.undone else None
    return Snapshot(
        format=FORMAT,
        schema=SCHEMA_VERSION,
        version=timeline.last_seq,
        line_hash=line_hash,
        batch=batch,
        cursor=timeline._batch,
        board=board_of(board),
        applied=_packed_applied(timeline),
        undone=_packed_stack(timeline.undone),
        abandoned=_packed_set(timeline.abandoned),
        rules_version=RULES_VERSION,
        prior=delta(prior, board),
        redo=delta(redo, board),
    )


def dumps(snapshot: Snapshot) -> bytes:
    """The stored form: a checksum of the encoded snapshot, then the snapshot (see `loads`)."""
    body = _encoder.encode(snapshot)
    return blake2b(body, digest_size=_SUM).digest() + body


def loads(data: bytes) -> Snapshot:
    """Decode a stored snapshot; msgspec.DecodeError if it is not one of this format or its bytes changed.

    The snapshot also names the hash of the log line it folds up to, which the
    opener compares with the log: a snapshot edited in place, or one of another
    log, is never trusted (the encounter then folds the log, and says so).
    """
    body = data[_SUM:]
    if len(data) <= _SUM or blake2b(body, digest_size=_SUM).digest() != data[:_SUM]:
        raise msgspec.DecodeError("the snapshot's checksum does not match its bytes (edited or damaged)")
    try:
        snap = _decoder.decode(body)
    except msgspec.ValidationError as packed_error:
        try:  # one written before the batch lists were packed
            snap = _packed(_tuples_decoder.decode(body))
        except msgspec.ValidationError:
            raise packed_error from None
    if snap.format != FORMAT:
        raise msgspec.DecodeError(f"snapshot format {snap.format}, expected {FORMAT}")
    try:
        for packed in (snap.applied, snap.undone, snap.abandoned):
            check_packed(packed)
    except ValueError as exc:
        raise msgspec.DecodeError(str(exc)) from None
    return snap


def restore(snapshot: Snapshot, lazy: "Lazy") -> Timeline:
    """A timeline that goes on from the snapshot as the full fold would."""
    t = Timeline()
    t.state = state_of(snapshot.board)
    # The batch lists as their runs, nothing expanded: the timeline asks them only what it asks a list
    # and a set (projections/batch_runs.py), which RunStack and RunSet answer exactly.
    t.applied = RunStack.unpacked(snapshot.applied)
    t.undone = RunStack.unpacked(snapshot.undone)
    t.abandoned = RunSet.unpacked(snapshot.abandoned)
    t.last_seq = snapshot.version
    t._batch = snapshot.cursor
    t.before, t.after, t.commands, t.actors, t.first_seq = (
        lazy.before,
        lazy.after,
        lazy.commands,
        lazy.actors,
        lazy.first_seq,
    )
    t.seeded = lazy.seeded
    # The first undo or redo's board, kept by the snapshot: nothing to fold for it (issue 29).
    if snapshot.prior is not None and len(t.applied) > 1:
        lazy.before[t.applied[-1]] = undelta(snapshot.prior, t.state)
    if snapshot.redo is not None and t.undone:
        lazy.after[t.undone[-1]] = undelta(snapshot.redo, t.state)
    return t


def same_state(a: EncounterState, b: EncounterState) -> bool:
    """Equal boards: every field equal, the Grids compared by what they hold."""
    if board_of(a) != board_of(b):
        return False
    return all(getattr(a.grid, s) == getattr(b.grid, s) for s in Grid.__slots__)


class LazyMap(MutableMapping[int, V]):
    """A batch -> value map whose entries up to batch `limit` are fetched when first asked for.

    `fetch(batch)` returns the value or raises KeyError; `whole()` returns every
    entry up to `limit` at once, and is called before anything looks at the whole
    map (iteration, length), so those see the same entries a full fold has.
    """

    def __init__(self, fetch: Callable[[int], V], whole: Callable[[], Mapping[int, V]], limit: int) -> None:
        self._data: dict[int, V] = {}
        self._fetch = fetch
        self._whole = whole
        self._limit = limit
        self._full = False

    def __getitem__(self, key: int) -> V:
        try:
            return self._data[key]
        except KeyError:
            if self._full or not isinstance(key, int) or not 0 < key <= self._limit:
                raise
        value = self._fetch(key)
        self._data[key] = value
        return value

    def __setitem__(self, key: int, value: V) -> None:
        self._data[key] = value

    def __delitem__(self, key: int) -> None:
        self.fill()
        del self._data[key]

    def __iter__(self) -> Iterator[int]:
        self.fill()
        return iter(self._data)

    def __len__(self) -> int:
        self.fill()
        return len(self._data)

    def fill(self) -> None:
        if not self._full:
            for key, value in self._whole().items():
                self._data.setdefault(key, value)
            self._full = True

    def __repr__(self) -> str:
        return f"LazyMap({len(self._data)} loaded, full={self._full})"


class LazySet(MutableSet[int]):
    """A set of batches whose membership up to batch `limit` is fetched when first asked about."""

    def __init__(self, fetch: Callable[[int], bool], whole: Callable[[], Iterable[int]], limit: int) -> None:
        self._yes: set[int] = set()
        self._no: set[int] = set()
        self._fetch = fetch
        self._whole = whole
        self._limit = limit
        self._full = False

    def __contains__(self, key: object) -> bool:
        if key in self._yes:
            return True
        if self._full or key in self._no or not isinstance(key, int) or not 0 < key <= self._limit:
            return False
        found = self._fetch(key)
        (self._yes if found else self._no).add(key)
        return found

    def add(self, value: int) -> None:
        self._yes.add(value)
        self._no.discard(value)

    def discard(self, value: int) -> None:
        self.fill()
        self._yes.discard(value)

    def __iter__(self) -> Iterator[int]:
        self.fill()
        return iter(self._yes)

    def __len__(self) -> int:
        self.fill()
        return len(self._yes)

    def fill(self) -> None:
        if not self._full:
            self._yes.update(self._whole())
            self._full = True

    def __repr__(self) -> str:
        return f"LazySet({len(self._yes)} known, full={self._full})"


class Lazy(NamedTuple):
    """The timeline's per-batch collections, fetched on demand (see the module docstring)."""

    before: LazyMap[EncounterState]
    after: LazyMap[EncounterState]
    commands: LazyMap[CommandIssued]
    actors: LazyMap[str]
    first_seq: LazyMap[int]
    seeded: LazySet
