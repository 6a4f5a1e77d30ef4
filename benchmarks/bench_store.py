"""How fast are the durable stores? Append throughput, and the time to open a long encounter.

Figures (issue 8; target: a 1,000,000-event encounter opens in under 1 s with snapshots):

- append, durable settings: batches/s appending real batches (an end-turn or a move,
  3 to 12 records each) with the version check, one batch at a time:
  SQLite in WAL mode with synchronous=FULL, one transaction per batch; JSON Lines
  with a write and an fsync per batch under the file lock. Both through the store
  alone, and end to end through Encounter.execute (decide, encode, append, fold).
- open: the same encounter of --events events in SQLite, opened from its newest
  snapshot (one every --every events) and by folding every line; the JSON Lines
  copy folded for reference; then the first undo after the snapshot open, which
  reaches back before the snapshot lazily.

The log is generated honestly: every line comes from Encounter.execute on a
speed-meters encounter (moves, end-turns, now and then an undo and a redo).

Run: .venv/bin/python benchmarks/bench_store.py [--events 1000000] [--batches 2000] [--every 1000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tabletrail.events.commands import EndTurn, Move, Redo, Undo
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.record import decode
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.board import view
from tabletrail.projections.snapshot import FORMAT
from tabletrail.service.encounter import Encounter, fold_with_snapshots

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "speed-meters-skirmish.toml"


def clock() -> str:
    return "2026-11-29T00:00:00+00:00"


def generate(events: int, seed: int = 1) -> list[bytes]:
    """Lines of a played encounter at least `events` long."""
    enc = Encounter.create(MemoryStore(), load_scenario(SCENARIO), clock=clock)
    rng = random.Random(seed)
    while len(enc.records) < events:
        roll = rng.random()
        f = enc.state.fighter(enc.state.turn.active)
        assert f is not None
        if roll < 0.45:
            x = min(max(f.pos[0] + rng.randint(-1, 1), 1), 10)
            y = min(max(f.pos[1] + rng.randint(-1, 1), 1), 6)
            enc.execute(Move(fighter=f.id, path=((x, y),)), f"move {f.id} {x},{y}")
        elif roll < 0.9:
            enc.execute(EndTurn(), "end-turn")
        else:
            enc.execute(Undo(), "undo")
            enc.execute(Redo(), "redo")
    return list(enc.store.read())


def batches_of(lines: list[bytes], count: int) -> list[list[bytes]]:
    """The first `count` batches after the setup batch, as line groups."""
    out: list[list[bytes]] = []
    current = -1
    for line in lines:
        batch = decode(line, "bench").batch
        if batch != current:
            if len(out) > count:
                break
            out.append([])
            current = batch
        out[-1].append(line)
    return out[: count + 1]


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _rates(rates: list[float]) -> str:
    """Median of three runs, with the range: fsync times swing on a shared disk."""
    return f"{statistics.median(rates):9.0f} batches/s  (runs: {', '.join(f'{r:.0f}' for r in rates)})"


def bench_append(folder: Path, lines: list[bytes], count: int) -> None:
    groups = batches_of(lines, count)
    setup, rest = groups[0], groups[1:]
    print(f"append: {len(rest)} batches of {sum(map(len, rest)) / len(rest):.1f} records on average")
    for name, make in (
        ("sqlite durable (WAL, synchronous=FULL)", lambda p: SqliteStore(p / "a.db")),
        ("jsonl durable (fsync per batch)", lambda p: JsonlStore(p / "a.jsonl")),
        ("sqlite not durable (synchronous=NORMAL)", lambda p: SqliteStore(p / "b.db", durable=False)),
        ("jsonl not durable (no fsync)", lambda p: JsonlStore(p / "b.jsonl", durable=False)),
    ):
        store = make(folder)
        store.create(setup)
        version = len(setup)
        rates = []
        for part in (rest[i * len(rest) // 3 : (i + 1) * len(rest) // 3] for i in range(3)):
            start = time.perf_counter()
            for group in part:
                store.append(group, expected=version)
                version += len(group)
            rates.append(len(part) / (time.perf_counter() - start))
        print(f"  store alone, {name:40s} {_rates(rates)}")
    for name, make in (
        ("sqlite durable", lambda p: SqliteStore(p / "c.db")),
        ("jsonl durable", lambda p: JsonlStore(p / "c.jsonl")),
    ):
        enc = Encounter.create(make(folder), load_scenario(SCENARIO), clock=clock)
        rates = []
        for _ in range(3):
            n = len(rest) // 3
            seconds = timed(lambda enc=enc, n=n: [enc.execute(EndTurn(), "end-turn") for _ in range(n)])
            rates.append(n / seconds)
        print(f"  Encounter.execute end-turn, {name:28s} {_rates(rates)}")


def bench_open(folder: Path, lines: list[bytes], every: int) -> None:
    db, jsonl = folder / "long.db", folder / "long.jsonl"
    seconds = timed(lambda: jsonl.write_bytes(b"".join(line + b"\n" for line in lines)))
    print(f"open: an encounter of {len(lines):,} events ({jsonl.stat().st_size / 1e6:.0f} MB as JSON Lines)")
    start = time.perf_counter()
    _, snapshots = fold_with_snapshots(MemoryStore(lines), every)
    store = SqliteStore(db, durable=False, snapshot_every=every)
    store.create(lines)
    store.save_snapshots(FORMAT, snapshots)
    store.close()
    print(
        f"  imported into SQLite with {len(snapshots)} snapshots (one every {every} events) "
        f"in {time.perf_counter() - start:.1f} s; {db.stat().st_size / 1e6:.0f} MB"
    )
    fast_times = []
    for _ in range(5):
        fast_times.append(timed(lambda: Encounter.open(SqliteStore(db))))
    fast = Encounter.open(SqliteStore(db), clock=clock)
    print(f"  SQLite, from the newest snapshot:  {statistics.median(fast_times):7.3f} s (median of 5)")
    slow: list[Encounter] = []
    seconds = timed(lambda: slow.append(Encounter.open(SqliteStore(db), snapshots=False)))
    print(f"  SQLite, folding every event:       {seconds:7.3f} s")
    agree = view(fast.state) == view(slow[0].state) and fast.timeline.applied == slow[0].timeline.applied
    slow.clear()
    seconds = timed(lambda: Encounter.open(JsonlStore(jsonl)))
    print(f"  JSON Lines, folding every event:   {seconds:7.3f} s")
    print(f"  snapshot open and full fold agree: {'yes' if agree else 'NO'}")
    seconds = timed(lambda: fast.execute(Undo(), "undo"))
    print(f"  first undo after the snapshot open (reaches back lazily): {seconds * 1000:.1f} ms")
    fast.store.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=1_000_000, help="length of the encounter to open")
    parser.add_argument("--batches", type=int, default=2000, help="batches appended per store")
    parser.add_argument("--every", type=int, default=1000, help="events between snapshots")
    args = parser.parse_args()
    start = time.perf_counter()
    lines = generate(max(args.events, 10 * args.batches))
    print(f"generated {len(lines):,} events by playing commands in {time.perf_counter() - start:.1f} s")
    with tempfile.TemporaryDirectory(prefix="tabletrail-bench-", dir=ROOT / "benchmarks") as name:
        folder = Path(name)
        bench_append(folder, lines, args.batches)
        bench_open(folder, lines, args.every)


if __name__ == "__main__":
    main()
