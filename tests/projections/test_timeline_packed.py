"""What the timeline packs of a long database encounter's older batches reads as the dict it replaces,
and a timeline folded in pieces (any split, even mid-batch) is the one folded record by record."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tabletrail.events.commands import Redo, Undo
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.record import decode_many
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.board import view
from tabletrail.projections.timeline import Packed, Timeline
from tabletrail.service import encounter as encounter_module
from tabletrail.service.encounter import Encounter

ROOT = Path(__file__).resolve().parents[2]
LINES = {p.stem: p.read_bytes().split(b"\n")[:-1] for p in sorted((ROOT / "replays").glob("*.jsonl"))}
KEPT = ("applied", "undone", "abandoned", "commands", "actors", "first_seq", "seeded", "last_seq", "_batch")


def same_timeline(a: Timeline, b: Timeline) -> None:
    for name in KEPT:
        assert getattr(a, name) == getattr(b, name), name
    assert view(a.board) == view(b.board)
    assert a.before.keys() == b.before.keys() and a.after.keys() == b.after.keys()
    for batch in a.after:
        assert view(a.after[batch]) == view(b.after[batch])
    for batch in a.before:
        assert view(a.before[batch]) == view(b.before[batch])


@settings(max_examples=60, deadline=None)
@given(
    entries=st.dictionaries(st.integers(1, 400), st.text(max_size=6), max_size=60),
    cuts=st.lists(st.integers(0, 420), max_size=4),
    later=st.dictionaries(st.integers(1, 500), st.text(max_size=6), max_size=10),
)
def test_a_packed_map_reads_as_the_dict(
    entries: dict[int, str], cuts: list[int], later: dict[int, str]
) -> None:
    packed: Packed[str] = Packed(str)
    plain: dict[int, str] = {}
    for key in sorted(entries):
        packed[key] = plain[key] = entries[key]
    for cut in cuts:
        packed.pack(cut)
    for key, value in later.items():
        if key not in packed:  # the fold only ever adds new batches
            packed[key] = plain[key] = value
    assert packed == plain and plain == packed
    assert not packed != plain  # noqa: SIM202 - its own __ne__
    assert len(packed) == len(plain)
    assert sorted(packed) == sorted(plain)
    assert dict(packed.items()) == plain and sorted(packed.keys()) == sorted(plain.keys())
    for key in range(0, 502):
        assert (key in packed) == (key in plain)
        assert packed.get(key) == plain.get(key)
        if key in plain:
            assert packed[key] == plain[key]
        else:
            with pytest.raises(KeyError):
                packed[key]  # noqa: B018
    assert packed.get("not a batch", "x") == "x"  # type: ignore[call-overload]


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(LINES)), data=st.data())
def test_a_timeline_extended_in_pieces_is_the_one_applied_record_by_record(
    name: str, data: st.DataObject
) -> None:
    records = decode_many(LINES[name], lambda i: f"{name}:{i + 1}")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(records)), max_size=6)))
    pieces = Timeline()
    lo = 0
    for hi in [*cuts, len(records)]:
        pieces.extend(records[lo:hi])
        lo = max(lo, hi)
    same_timeline(pieces, Timeline.of(records))


@pytest.mark.parametrize("name", sorted(LINES))
def test_a_database_encounter_that_packed_its_older_batches_reads_and_undoes_as_one_that_did_not(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(encounter_module, "KEEP", 4)  # keep 4 records decoded: most batches are packed
    lines = LINES[name]
    store = SqliteStore(tmp_path / "long.db", durable=False, snapshot_every=0)
    store.create(lines)
    db = Encounter.open(store, snapshots=False)
    mem = Encounter.open(MemoryStore(lines), snapshots=False)
    assert isinstance(db.timeline.commands, Packed) and db.timeline.commands._keys, "nothing was packed"
    same_timeline(db.timeline, mem.timeline)
    for _ in range(len(mem.timeline.applied)):  # undo down to the setup batch, then redo it all
        if mem.timeline.undo_target() is None:
            break
        assert type(db.execute(Undo(), "undo")) is type(mem.execute(Undo(), "undo"))
        assert view(db.state) == view(mem.state)
    while mem.timeline.redo_target() is not None:
        assert type(db.execute(Redo(), "redo")) is type(mem.execute(Redo(), "redo"))
        assert view(db.state) == view(mem.state)
    same_timeline(db.timeline, mem.timeline)
    store.close()
