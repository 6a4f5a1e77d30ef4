"""Opening a log the fast way (every line decoded on its own, hashed and checked a chunk at a time,
then `Timeline.extend`) gives exactly the timeline the reference fold gives: `Timeline.of` over the
records, one `apply` each, and the plain line-by-line loop. Random seeded games: moves (some refused),
end-turns, undos by the GM and by players, redos, and commands after an undo (which abandon the redo
branch), opened whole and in chunks of a few lines."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support_store import fresh, play
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.record import decode
from tabletrail.projections.timeline import Timeline
from tabletrail.service import encounter
from tabletrail.service.encounter import Encounter


def facts(state: object) -> dict[str, object]:
    """A board's every field but the grid (a map object, equal only to itself)."""
    return {k: getattr(state, k) for k in state.__struct_fields__ if k != "grid"}  # type: ignore[attr-defined]


def same_timeline(a: Timeline, b: Timeline) -> None:
    assert facts(a.board) == facts(b.board)
    assert (a.applied, a.undone, a.abandoned, a.last_seq, a.seeded) == (
        b.applied,
        b.undone,
        b.abandoned,
        b.last_seq,
        b.seeded,
    )
    assert dict(a.commands.items()) == dict(b.commands.items())
    assert dict(a.actors.items()) == dict(b.actors.items())
    assert dict(a.first_seq.items()) == dict(b.first_seq.items())
    for kept in ("before", "after"):
        x, y = getattr(a, kept), getattr(b, kept)
        assert x.keys() == y.keys()
        assert all(facts(x[k]) == facts(y[k]) for k in x)
    assert (a.undo_target(), a.redo_target()) == (b.undo_target(), b.redo_target())


def plain(lines: list[bytes]) -> Encounter:
    """The plain loop alone: each line decoded, checked and folded in turn."""
    enc = Encounter(MemoryStore(lines))
    enc._ingest_each(lines, 0, None)
    return enc


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**16),
    commands=st.integers(1, 120),
    chunk=st.sampled_from([16_384, 3, 7, 50]),
)
def test_the_fast_open_is_the_reference_fold(seed: int, commands: int, chunk: int) -> None:
    live = fresh(MemoryStore())
    play(live, commands, seed=seed)
    lines = list(live.store.lines)  # type: ignore[attr-defined]
    size = encounter._CHUNK
    encounter._CHUNK = chunk
    try:
        fast = Encounter.open(MemoryStore(lines))
    finally:
        encounter._CHUNK = size
    slow = plain(lines)
    reference = Timeline.of(decode(line, f"<memory>:{n}") for n, line in enumerate(lines, 1))
    same_timeline(fast.timeline, reference)
    same_timeline(fast.timeline, slow.timeline)
    same_timeline(fast.timeline, live.timeline)
    assert fast.records == slow.records
    assert (fast.last_hash, fast._batch, fast._size, fast._held, fast._head, fast._ids) == (
        slow.last_hash,
        slow._batch,
        slow._size,
        slow._held,
        slow._head,
        slow._ids,
    )
