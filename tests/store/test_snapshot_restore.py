"""A timeline restored from a snapshot is the one a fold from zero gives, whatever undo did before it.

The snapshot keeps the batches in force, the redo stack and the abandoned batches as packed runs,
restored as a RunStack and a RunSet and never expanded (projections/batch_runs.py). Random games of
moves, turns, undos (deep ones too), redos and the abandons a new command after an undo makes are
played (a seeded game, then drawn actions), a snapshot is taken, the log is opened from it, and
more of the same is played on it and on the log folded from zero: after every command the two
agree on the board, the three lists and what a snapshot of each would keep, and they append the
very same lines.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import msgspec
from hypothesis import event, given, settings
from hypothesis import strategies as st
from support_store import END_TURN, clock, fresh, lines_of, play, timeline_of
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.commands import Redo, Undo
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.batch_runs import RunSet, RunStack
from tabletrail.projections.snapshot import FORMAT, Lazy, LazyMap, LazySet, dumps, loads, restore, take
from tabletrail.projections.timeline import Timeline
from tabletrail.service.encounter import Encounter
from tabletrail.service.lazy_records import LazyRecords
from tabletrail.service.syntax import parse

NEVER = 10**9  # no snapshot of the store's own: the test takes the one it opens from

ACTION = st.tuples(
    st.sampled_from(["move"] * 4 + ["end-turn"] * 2 + ["undo"] * 3 + ["redo"] * 2 + ["undo all", "redo all"]),
    st.integers(0, 24),
)


def act(enc: Encounter, action: tuple[str, int]) -> list[bool]:
    """Carry the action out; whether each command it gave was refused."""
    kind, n = action
    if kind == "move":
        fighter = enc.state.fighter(enc.state.turn.active)
        assert fighter is not None
        x = min(max(fighter.pos[0] + n % 5 - 2, 1), 10)  # inside the walls
        y = min(max(fighter.pos[1] + n // 5 - 2, 1), 6)
        commands = [parse(f"move {fighter.id} {x},{y}")]
    elif kind == "end-turn":
        commands = [END_TURN]
    elif kind in ("undo", "redo"):
        commands = [Undo(by="gm") if kind == "undo" else Redo()] * (n % 4 + 1)
    else:  # as far as it goes (a few dozen at most in these games)
        commands = [Undo(by="gm") if kind == "undo all" else Redo()] * 60
    return [isinstance(enc.execute(command, "test"), Rejection) for command in commands]


def kept_lists(enc: Encounter) -> tuple[bytes, bytes, bytes, int]:
    """What a snapshot taken now would keep of the batch lists (the same bytes from either timeline)."""
    snap = enc.snapshot()
    return snap.applied, snap.undone, snap.abandoned, snap.cursor


def agree(fast: Encounter, slow: Encounter) -> None:
    assert timeline_of(fast) == timeline_of(slow)
    assert kept_lists(fast) == kept_lists(slow)
    assert fast.timeline.undo_target() == slow.timeline.undo_target()
    assert fast.timeline.redo_target() == slow.timeline.redo_target()


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    commands=st.integers(0, 150),
    before=st.lists(ACTION, max_size=20),
    after=st.lists(ACTION, max_size=25),
)
def test_a_timeline_restored_from_a_snapshot_equals_the_fold_from_zero_after_any_undo_redo_abandon(
    seed: int, commands: int, before: list[tuple[str, int]], after: list[tuple[str, int]]
):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fight.db"
        store = SqliteStore(path, durable=False, snapshot_every=NEVER)
        played = fresh(store)
        play(played, commands, seed=seed)  # a game's worth of history: moves, turns, undos, redos, abandons
        for action in before:
            act(played, action)
        version = len(played.records)
        store.save_snapshots(FORMAT, [(version, dumps(played.snapshot()))])
        store.close()
        fast = Encounter.open(SqliteStore(path, durable=False, snapshot_every=NEVER), clock=clock)
        assert isinstance(fast.records, LazyRecords) and fast.records.base == version, "opened from it"
        assert isinstance(fast.timeline.applied, RunStack) and isinstance(fast.timeline.abandoned, RunSet)
        slow = Encounter.open(MemoryStore(lines_of(fast.store)), clock=clock)
        agree(fast, slow)
        t = fast.timeline
        event(f"opened with a redo stack: {bool(t.undone)}, abandoned batches: {bool(t.abandoned)}")
        event(f"batches in force in several runs: {len(RunStack(t.applied).runs()) > 1}")
        for action in after:
            assert act(fast, action) == act(slow, action), action
            agree(fast, slow)
        assert lines_of(fast.store) == lines_of(slow.store)
        fast.store.close()


def test_restoring_never_expands_the_batch_lists():
    """A snapshot saying a billion batches are in force, a million undone and as many abandoned
    restores at once: the lists stay runs, and undo's and redo's ends of them are read in O(1)."""
    enc = fresh(MemoryStore())
    snap = loads(dumps(enc.snapshot()))
    applied, undone = RunStack(), RunStack()
    applied.push_run(1, 10**9)
    undone.push_run(2 * 10**9, 10**9 + 10**6 + 1)  # the redo stack: the latest undone on top
    abandoned = RunSet.of_runs([(10**9 + 1, 10**9 + 10**6)])
    huge = msgspec.structs.replace(
        snap, applied=applied.packed(), undone=undone.packed(), abandoned=abandoned.packed(), prior=None
    )
    lazy = Lazy(*(LazyMap(_nothing, dict, 0) for _ in range(5)), LazySet(_no, list, 0))
    t = restore(loads(dumps(huge)), lazy)
    assert len(t.applied) == 10**9 and t.undo_target() == 10**9
    assert len(t.undone) == 10**9 - 10**6 and t.redo_target() == 10**9 + 10**6 + 1
    assert len(t.abandoned) == 10**6 and 10**9 + 5 in t.abandoned and 10**9 not in t.abandoned
    t.applied.append(t.undone.pop())  # what a redo moves
    assert t.applied[-1] == 10**9 + 10**6 + 1 and t.applied[-2] == 10**9
    assert t.undone[-1] == 10**9 + 10**6 + 2
    t.undone.append(t.applied.pop())  # and an undo
    assert dumps(huge) == dumps(msgspec.structs.replace(huge, **_lists(t)))


def _nothing(batch: int) -> object:
    raise KeyError(batch)


def _no(batch: int) -> bool:
    return False


def _lists(t: Timeline) -> dict[str, bytes]:
    snap = take(t, "", 0)
    return {"applied": snap.applied, "undone": snap.undone, "abandoned": snap.abandoned}
