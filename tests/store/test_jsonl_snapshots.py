"""A JSON Lines log keeps snapshots beside it (LOG.snapshots), so opening it folds only its tail.

The sidecar is a cache: opened from it, an encounter gives the very board, timeline, records and
audit answers a fold from line 1 gives, undo and redo across the snapshot included; any sidecar
that does not fit the log as it is now (garbage, cut short, an offset off a line boundary, another
log's, a log cut or replaced since, one forged without a keyed log's secret) is no snapshot at all:
the log folds from line 1, correctly and without a word.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support_store import clock, fresh, lines_of, play, timeline_of
from tabletrail.cli import main
from tabletrail.core.board.refusal import Rejection
from tabletrail.events.commands import Redo, Undo
from tabletrail.events.errors import ConflictError
from tabletrail.events.stores import jsonl_snapshots
from tabletrail.events.stores.db_store import DEFAULT_SNAPSHOT_EVERY
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.jsonl_snapshots import KEPT_SNAPSHOTS
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.protocol import keeps_snapshots
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections import audit
from tabletrail.projections.snapshot import FORMAT, dumps, loads
from tabletrail.service.encounter import Encounter
from tabletrail.service.lazy_records import LazyRecords
from tabletrail.service.syntax import parse

EVERY = 25


def long_log(tmp_path: Path, commands: int = 300, seed: int = 5, every: int = EVERY) -> Path:
    """A JSONL log played by commands, as a table leaves it: the sidecar its commands wrote beside it."""
    path = tmp_path / "fight.jsonl"
    play(fresh(JsonlStore(path, durable=False, snapshot_every=every)), commands, seed=seed)
    assert bool(entries(path)) == (every < 10**9)  # (the sidecar keeps the interval even with none)
    return path


def opened(path: Path, **kw: object) -> tuple[Encounter, list[str]]:
    """The encounter a fresh store opens (from its sidecar, if one fits), and what the store was told."""
    told: list[str] = []
    return Encounter.open(JsonlStore(path, warn=told.append), clock=clock, **kw), told  # type: ignore[arg-type]


def from_zero(path: Path, upto: int | None = None) -> Encounter:
    return Encounter.open(JsonlStore(path), clock=clock, upto=upto, snapshots=False)


def same(a: Encounter, b: Encounter) -> None:
    """Everything a reader of the encounter sees: board, cursor, every record, the last hash."""
    assert timeline_of(a) == timeline_of(b)
    assert list(a.records) == list(b.records)
    assert a.last_hash == b.last_hash
    assert a.read_only == b.read_only


def snapshot_version(enc: Encounter) -> int:
    """The version an encounter was opened from (0: folded from line 1)."""
    return enc.records.base if isinstance(enc.records, LazyRecords) else 0


def sealed(path: Path, kept: list[jsonl_snapshots.Kept], key: bytes = b"") -> None:
    """Write a sidecar holding exactly these entries, sealed as the store seals one."""
    side = path.with_name(path.name + ".snapshots")
    side.write_bytes(jsonl_snapshots.sealed(jsonl_snapshots.Sidecar(EVERY, kept), key))


def entries(path: Path) -> list[jsonl_snapshots.Kept]:
    return JsonlStore(path)._kept()


# --- it is used, and it changes nothing -----------------------------------------------------------


def test_a_long_log_opens_from_its_sidecar_to_the_very_encounter_a_fold_from_zero_gives(tmp_path: Path):
    path = long_log(tmp_path)
    enc, told = opened(path)
    whole = from_zero(path)
    newest = max(k.version for k in entries(path))
    assert snapshot_version(enc) == newest > 0, "opened from the newest snapshot"
    same(enc, whole)
    assert told == []
    for seq in (2, newest - 1, newest, len(whole.records)):  # explain reads records before the snapshot
        assert audit.explain(enc.records, seq) == audit.explain(whole.records, seq)
    move = parse(f"move {whole.state.turn.active} 5,5")
    assert audit.dry_run(enc, move) == audit.dry_run(whole, move)


def test_the_tail_is_read_from_the_snapshots_byte_offset_without_the_lines_before_it(tmp_path: Path):
    path = long_log(tmp_path)
    newest = max(entries(path), key=lambda k: k.version)
    data = path.read_bytes()
    assert data[newest.end - 1 : newest.end] == b"\n"
    # Line 3 made unreadable in place (same length): a fold from zero stops there, the tail does not.
    lines = data.split(b"\n")
    lines[2] = b"x" * len(lines[2])
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(Exception, match=r"fight.jsonl:3"):
        from_zero(path)
    store = JsonlStore(path)
    assert store.latest_snapshot(FORMAT) is not None
    _, base, line = store._load(newest.version)
    assert (base, line) == (newest.end, newest.version), (
        "seeked to the snapshot's end, nothing split before it"
    )
    enc = Encounter.open(store, clock=clock)
    assert snapshot_version(enc) == newest.version


def test_undo_and_redo_across_the_snapshot_point_append_what_a_fold_from_zero_appends(tmp_path: Path):
    path = long_log(tmp_path, seed=8)
    copy = tmp_path / "copy.jsonl"
    shutil.copyfile(path, copy)  # no sidecar: the copy folds from zero
    a, _ = opened(path)
    b = from_zero(copy)
    assert snapshot_version(a) > 0 and not isinstance(b.records, LazyRecords)
    for command in [Undo(by="gm")] * 6 + [Redo()] * 3 + [Undo(by="gm")] * 2 + [Redo()] * 4:
        ra, rb = a.execute(command, "x"), b.execute(command, "x")
        assert isinstance(ra, Rejection) == isinstance(rb, Rejection)
        if isinstance(ra, Rejection):
            assert (ra.rule, ra.reason) == (rb.rule, rb.reason)
    same(a, b)
    assert path.read_bytes() == copy.read_bytes()
    same(opened(path)[0], from_zero(copy))


def test_views_up_to_any_version_equal_a_fold_from_zero(tmp_path: Path):
    path = long_log(tmp_path)
    versions = sorted(k.version for k in entries(path))
    assert len(versions) == KEPT_SNAPSHOTS
    total = len(from_zero(path).records)
    for upto in (1, 30, versions[0] - 1, versions[0], versions[0] + 1, versions[1], versions[-1] + 2, total):
        enc, told = opened(path, upto=upto)
        same(enc, from_zero(path, upto=upto))
        expected = max((v for v in versions if v <= upto), default=0)
        assert snapshot_version(enc) == expected, f"upto={upto}"
        assert told == []


def test_only_the_newest_few_are_kept_and_older_views_have_none(tmp_path: Path):
    path = long_log(tmp_path)
    store = JsonlStore(path)
    assert JsonlStore(tmp_path / "other.jsonl").snapshot_every == DEFAULT_SNAPSHOT_EVERY
    kept = [v for v, _ in store.snapshots(FORMAT)]
    assert len(kept) == KEPT_SNAPSHOTS and kept == sorted(kept)
    assert kept[-1] > len(from_zero(path).records) - 2 * EVERY, "the newest one is recent"
    assert store.latest_snapshot(FORMAT, kept[0] - 1) is None
    assert store.latest_snapshot(FORMAT + 1) is None, "another format's snapshots are none"
    assert store.latest_snapshot(FORMAT, kept[1])[0] == kept[1]  # type: ignore[index]
    assert keeps_snapshots(store)


def test_a_store_with_snapshot_every_zero_keeps_none(tmp_path: Path):
    path = tmp_path / "none.jsonl"
    play(fresh(JsonlStore(path, durable=False, snapshot_every=0)), 60)
    assert not path.with_name("none.jsonl.snapshots").exists()


def test_windows_of_lines_equal_slices_of_the_whole_log_whatever_is_known(tmp_path: Path):
    path = long_log(tmp_path, commands=120)
    whole = lines_of(JsonlStore(path))
    n = len(whole)
    for learnt in (False, True):
        store = JsonlStore(path)
        if learnt:
            assert store.latest_snapshot(FORMAT) is not None
        for start, stop in [(0, 1), (0, n), (3, 9), (n - 5, n), (n - 1, n + 4), (n, n + 1), (7, 7), (9, 3)]:
            assert list(store.read(start, stop)) == whole[start:stop], (learnt, start, stop)
        for start in (0, 1, n // 2, n):
            assert list(store.read(start)) == whole[start:]


def test_a_log_whose_newlines_became_crlf_reads_the_same_windows(tmp_path: Path):
    path = long_log(tmp_path, commands=80)
    whole = lines_of(JsonlStore(path))
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes(b"".join(line + b"\r\n" for line in whole))
    store = JsonlStore(crlf)
    assert list(store.read(4, 11)) == whole[4:11]
    assert store.latest_snapshot(FORMAT) is None  # its own sidecar: none; a copied one would not fit


def test_batch_spans_and_command_ids_are_found_as_a_database_finds_them(tmp_path: Path):
    path = tmp_path / "ids.jsonl"
    enc = fresh(JsonlStore(path, durable=False, snapshot_every=10))
    play(enc, 40, seed=2)
    for n in range(12):
        enc.execute(parse("end-turn"), "end-turn", command_id=f"turn-{n}")
    play(enc, 20, seed=3)
    lines = lines_of(enc.store)
    db = SqliteStore(tmp_path / "ids.db", durable=False, snapshot_every=10**9)
    db.create(lines)
    store = JsonlStore(path)
    assert store.latest_snapshot(FORMAT) is not None  # read back from its snapshot where it can
    last = enc.records[-1].batch
    for batch in [*range(1, last + 1), last + 1, 0]:
        assert store.batch_span(batch) == db.batch_span(batch), batch
        assert JsonlStore(path).batch_span(batch) == db.batch_span(batch), batch  # forward, from line 1
    for cid in [f"turn-{n}" for n in range(12)] + ["never", 'a "quoted" id', "turn-1 "]:
        assert store.find_command(cid) == db.find_command(cid), cid
    db.close()


def test_command_ids_are_read_once_then_only_what_was_appended_and_anew_for_another_file(tmp_path: Path):
    path = tmp_path / "ids.jsonl"
    enc = fresh(JsonlStore(path, durable=False, snapshot_every=0))
    one = enc.execute(parse("end-turn"), "end-turn", command_id="one")
    store = JsonlStore(path)
    assert store.find_command("one") == (one[0].seq, one[-1].seq)
    assert store.find_command("two") is None
    two = enc.execute(parse("end-turn"), "end-turn", command_id="two")
    assert store.find_command("two") == (two[0].seq, two[-1].seq), "appended after the ids were read"
    # cut back (same file) before "two": it is gone
    with open(path, "rb+") as fh:
        fh.truncate(len(b"".join(line + b"\n" for line in lines_of(JsonlStore(path))[: two[0].seq - 1])))
    assert store.find_command("two") is None
    # another file moved in, where "one" names another batch
    other = tmp_path / "other.jsonl"
    replaced = fresh(JsonlStore(other, durable=False, snapshot_every=0))
    play(replaced, 5)
    again = replaced.execute(parse("end-turn"), "end-turn", command_id="one")
    os.replace(other, path)
    assert store.find_command("one") == (again[0].seq, again[-1].seq) != (one[0].seq, one[-1].seq)


def test_a_retried_command_id_from_before_the_snapshot_appends_nothing(tmp_path: Path):
    path = tmp_path / "retry.jsonl"
    enc = fresh(JsonlStore(path, durable=False, snapshot_every=10))
    first = enc.execute(parse("end-turn"), "end-turn", command_id="early")
    play(enc, 60, seed=4)
    size = path.stat().st_size
    again, _ = opened(path)
    assert snapshot_version(again) > first[-1].seq, "the id's batch lies before the snapshot"
    assert again.execute(parse("end-turn"), "end-turn", command_id="early") == first
    assert path.stat().st_size == size


# --- a sidecar that does not fit is no snapshot -----------------------------------------------------


def assert_folds_from_zero_quietly(path: Path) -> None:
    enc, told = opened(path)
    assert snapshot_version(enc) == 0, "the sidecar was used"
    same(enc, from_zero(path))
    assert told == []
    assert JsonlStore(path).snapshots(FORMAT) == []


def damage_garbage(path: Path, side: Path) -> None:
    side.write_bytes(os.urandom(3000))


def damage_truncated(path: Path, side: Path) -> None:
    side.write_bytes(side.read_bytes()[:-40])


def damage_empty(path: Path, side: Path) -> None:
    side.write_bytes(b"")


def damage_a_folder(path: Path, side: Path) -> None:
    side.unlink()
    side.mkdir()


def damage_one_byte(path: Path, side: Path) -> None:
    data = bytearray(side.read_bytes())
    data[len(data) // 2] ^= 1
    side.write_bytes(bytes(data))


def damage_offset_off_a_line_boundary(path: Path, side: Path) -> None:
    sealed(path, [msgspec.structs.replace(k, begin=k.begin + 1) for k in entries(path)])


def damage_offset_of_another_line(path: Path, side: Path) -> None:
    """Offsets moved to the line before, a real boundary: its bytes are not the snapshot's line."""
    data = path.read_bytes()
    moved = []
    for k in entries(path):
        begin = data.rfind(b"\n", 0, k.begin - 1) + 1
        moved.append(msgspec.structs.replace(k, begin=begin, end=k.begin))
    sealed(path, moved)


def damage_hash_mismatch(path: Path, side: Path) -> None:
    sealed(path, [msgspec.structs.replace(k, line="0" * 32) for k in entries(path)])


def damage_another_logs_sidecar(path: Path, side: Path) -> None:
    folder = path.parent / "other"
    folder.mkdir()
    other = long_log(folder, seed=11)  # the same scenario and clock: only the commands differ
    shutil.copyfile(other.with_name(other.name + ".snapshots"), side)


def damage_log_cut_by_hand(path: Path, side: Path) -> None:
    """The log cut back before every snapshot at a batch end (as an old backup restored would be)."""
    oldest = min(k.version for k in entries(path))
    records = from_zero(path).records
    cut = max(i for i in range(2, oldest - 5) if records[i].batch != records[i - 1].batch)
    path.write_bytes(b"".join(line + b"\n" for line in lines_of(JsonlStore(path))[:cut]))


def damage_log_cut_and_played_on(path: Path, side: Path) -> None:
    """Cut back before the snapshots, then played on past them: other lines at the same numbers."""
    damage_log_cut_by_hand(path, side)
    enc = Encounter.open(
        JsonlStore(path, durable=False, snapshot_every=0), clock=lambda: "2027-01-01T00:00:00+00:00"
    )
    play(enc, 300, seed=99)
    assert len(enc.records) > max(k.version for k in entries(path))


def damage_log_replaced(path: Path, side: Path) -> None:
    """Another log moved in under the same name; the old sidecar stays beside it."""
    other = path.with_name("new.jsonl")
    play(fresh(JsonlStore(other, durable=False, snapshot_every=0)), 310, seed=6)
    os.replace(other, path)


DAMAGES = [
    damage_garbage,
    damage_truncated,
    damage_empty,
    damage_a_folder,
    damage_one_byte,
    damage_offset_off_a_line_boundary,
    damage_offset_of_another_line,
    damage_hash_mismatch,
    damage_another_logs_sidecar,
    damage_log_cut_by_hand,
    damage_log_cut_and_played_on,
    damage_log_replaced,
]


@pytest.mark.parametrize("damage", DAMAGES, ids=lambda f: f.__name__.removeprefix("damage_"))
def test_a_sidecar_that_does_not_fit_means_a_quiet_fold_from_zero(tmp_path: Path, damage):  # noqa: ANN001
    path = long_log(tmp_path)
    side = path.with_name(path.name + ".snapshots")
    damage(path, side)
    assert_folds_from_zero_quietly(path)
    # and the next command plays on and keeps a snapshot that fits again
    if side.is_dir():
        return
    enc = Encounter.open(JsonlStore(path, durable=False, snapshot_every=EVERY), clock=clock)
    assert not isinstance(enc.execute(parse("end-turn"), "end-turn"), Rejection)
    again, told = opened(path)
    assert snapshot_version(again) == len(again.records) and told == []
    same(again, from_zero(path))


def test_a_snapshot_whose_board_lies_is_caught_by_verify(tmp_path: Path):
    path = long_log(tmp_path)
    good = audit.verify_store(JsonlStore(path))
    assert good["ok"], good
    kept = entries(path)
    newest = kept[-1]
    snap = loads(newest.data)
    other = Encounter.open(MemoryStore(lines_of(JsonlStore(path))[: kept[0].version]), clock=clock)
    lie = msgspec.structs.replace(snap, board=loads(dumps(other.snapshot())).board)
    sealed(path, [*kept[:-1], msgspec.structs.replace(newest, data=dumps(lie))])
    found = audit.verify_store(JsonlStore(path))
    assert not found["ok"] and found["finding"]["kind"] == "snapshot"
    assert found["finding"]["seq"] == newest.version


def test_replay_folds_every_line_whatever_the_sidecar_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """`show` may start from a snapshot; `replay` is the verb that lets the log itself give the board."""
    path = long_log(tmp_path)
    assert main(["replay", str(path), "--json"]) == 0
    truth = capsys.readouterr().out
    kept = entries(path)
    newest = kept[-1]
    other = Encounter.open(MemoryStore(lines_of(JsonlStore(path))[: kept[0].version]), clock=clock)
    lie = msgspec.structs.replace(loads(newest.data), board=loads(dumps(other.snapshot())).board)
    sealed(path, [*kept[:-1], msgspec.structs.replace(newest, data=dumps(lie))])
    assert main(["show", str(path), "--json"]) == 0
    shown = capsys.readouterr().out  # the cache's board: what `verify` exists to catch
    assert main(["replay", str(path), "--json"]) == 0
    assert capsys.readouterr().out == truth != shown


def test_a_keyed_logs_sidecar_is_sealed_with_its_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TABLETRAIL_KEY", "the table's own secret")
    path = long_log(tmp_path, commands=120)
    enc, told = opened(path)
    assert snapshot_version(enc) > 0 and told == []
    sealed(path, entries(path), key=b"")  # resealed by someone without the secret
    assert_folds_from_zero_quietly(path)


# --- repair, appends, the folder ---------------------------------------------------------------------


def test_repair_leaves_no_snapshot_of_the_cut_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = long_log(tmp_path)
    with open(path, "ab") as fh:
        fh.write(b'{"seq": 99999, "torn')
    assert main(["repair", str(path)]) == 0
    assert "cut" in capsys.readouterr().out
    assert entries(path) == [] and JsonlStore(path).snapshot_every == EVERY  # the interval alone stays
    assert_folds_from_zero_quietly(path)


def test_a_temporary_sidecar_a_dead_writer_left_is_swept_and_a_live_writers_is_not(tmp_path: Path):
    path = long_log(tmp_path, commands=40)
    dead = tmp_path / ".fight.jsonl.snapshots.crashed.new"  # as mkstemp names it; the writer died
    live = tmp_path / ".fight.jsonl.snapshots.writing.new"  # another process, mid-write
    other = tmp_path / ".other.jsonl.snapshots.crashed.new"  # another log's: not this store's to sweep
    for left in (dead, live, other):
        left.write_bytes(b"half a sidecar")
    hour_ago = time.time() - 3600
    for left in (dead, other):
        os.utime(left, (hour_ago, hour_ago))
    play(Encounter.open(JsonlStore(path, durable=False, snapshot_every=EVERY), clock=clock), 40, seed=6)
    assert not dead.exists() and live.exists() and other.exists()
    assert entries(path)  # and the sidecar itself was written


def test_a_crash_tail_cut_on_open_keeps_the_snapshots_that_still_fit(tmp_path: Path):
    path = long_log(tmp_path)
    with open(path, "ab") as fh:
        fh.write(b'{"seq": 99999, "torn')
    told: list[str] = []
    enc = Encounter.open(JsonlStore(path, warn=told.append, heal=True), clock=clock)
    assert len(told) == 1 and "a crash left" in told[0]
    assert snapshot_version(enc) == max(k.version for k in entries(path))
    same(enc, from_zero(path))


def test_a_torn_log_opened_committed_shows_its_whole_batches_from_zero(tmp_path: Path):
    path = long_log(tmp_path)
    whole = from_zero(path)
    with open(path, "ab") as fh:
        fh.write(b'{"seq": 99999, "torn')
    enc = Encounter.open(JsonlStore(path), clock=clock, committed=True)
    assert enc.read_only and timeline_of(enc) == timeline_of(whole)


def test_two_stores_appending_to_one_file_still_conflict(tmp_path: Path):
    path = long_log(tmp_path)
    a, _ = opened(path)
    b, _ = opened(path)
    assert snapshot_version(a) > 0 and snapshot_version(b) > 0
    assert not isinstance(a.execute(parse("end-turn"), "end-turn"), Rejection)
    with pytest.raises(ConflictError):
        b.execute(parse("end-turn"), "end-turn")
    assert b.refresh() > 0
    assert not isinstance(b.execute(parse("end-turn"), "end-turn"), Rejection)
    same(opened(path)[0], from_zero(path))


def test_the_sidecar_is_never_listed_as_a_log_of_a_served_folder(tmp_path: Path):
    from tabletrail.web.home import LOG_NAME, Folder

    long_log(tmp_path, commands=60)
    side = tmp_path / "fight.jsonl.snapshots"
    assert side.exists()
    # no temporary file left behind: only the log and what is kept beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fight.jsonl",
        "fight.jsonl.refused",
        "fight.jsonl.snapshots",
        "fight.jsonl.tip",
    ]
    assert Folder(tmp_path, ("127.0.0.1",)).names() == ["fight.jsonl"]
    assert not LOG_NAME.match(side.name)
    assert not LOG_NAME.match(".fight.jsonl.snapshots.abc123.new"), "nor its temporary file"


def test_a_new_log_under_an_old_name_drops_the_old_sidecar(tmp_path: Path):
    path = long_log(tmp_path)
    side = path.with_name(path.name + ".snapshots")
    keep = side.read_bytes()
    path.unlink()
    fresh(JsonlStore(path, durable=False))
    assert not side.exists()
    side.write_bytes(keep)  # put back by hand: still no fit
    assert_folds_from_zero_quietly(path)


def test_export_to_jsonl_writes_a_sidecar_that_fits(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = long_log(tmp_path, commands=500, every=10**9)  # past the default interval
    path.with_name(path.name + ".snapshots").unlink()  # no sidecar of its own: the default interval holds
    assert len(from_zero(path).records) > DEFAULT_SNAPSHOT_EVERY
    target = tmp_path / "copy.jsonl"
    assert main(["export", str(path), str(target)]) == 0
    capsys.readouterr()
    assert target.read_bytes() == path.read_bytes()
    kept = [v for v, _ in JsonlStore(target).snapshots(FORMAT)]
    assert kept, "the copy has snapshots too"
    enc, told = opened(target)
    assert snapshot_version(enc) == kept[-1] and told == []
    same(enc, from_zero(target))


def test_verify_passes_a_log_with_its_sidecar_and_the_cli_reads_it(tmp_path: Path, capsys):  # noqa: ANN001
    path = long_log(tmp_path)
    assert main(["verify", str(path)]) == 0
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr()
    assert "warning" not in out.err


# --- random play ---------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    every=st.integers(3, 7),
    seed=st.integers(0, 10_000),
    commands=st.integers(5, 70),
    reopen=st.integers(3, 40),
)
def test_random_play_opens_to_the_same_board_from_snapshots_and_from_zero(
    tmp_path_factory: pytest.TempPathFactory, every: int, seed: int, commands: int, reopen: int
):
    path = tmp_path_factory.mktemp("random") / "fight.jsonl"
    play(fresh(JsonlStore(path, durable=False, snapshot_every=every)), reopen, seed=seed)
    enc = Encounter.open(
        JsonlStore(path, durable=False, snapshot_every=every), clock=clock
    )  # from its sidecar
    play(enc, commands, seed=seed + 1)
    a, told = opened(path)
    same(a, from_zero(path))
    assert told == []
    for command in (Undo(by="gm"), Undo(by="gm"), Redo(), Undo(by="blue")):  # across the snapshot point
        before = lines_of(JsonlStore(path))
        b = Encounter.open(MemoryStore(before), clock=clock)
        ra, rb = a.execute(command, "u"), b.execute(command, "u")
        assert isinstance(ra, Rejection) == isinstance(rb, Rejection)
        assert lines_of(JsonlStore(path)) == lines_of(b.store), "the same lines appended"
        same(a, b)
