"""Replay against a well-known event-sourcing library: tabletrail's `Encounter.open` and
eventsourcing's `repository.get`, same number of events, same process, same run.

tabletrail: the log of bench_log.py (every line from executing a real command;
decode + hash-chain check + evolve into the board), opened from memory.
eventsourcing (the `bench` extra pins 9.5.6): one aggregate with as many one-field
events as the log has lines, saved to its in-memory recorder, then
`repository.get(id)` (no snapshots, no aggregate cache) folds them all.

Printed: both rates in events/s (least CPU time of --repeat runs, the two alternating run
by run so both see the same load; each result is kept until timed, then freed untimed,
and the time tabletrail's encounter takes to free is printed on its own line), and
tabletrail's as a multiple of eventsourcing's.
Targets (issue 16): >= 300,000 events/s and >= 10x. Then where tabletrail's time goes,
per event: decoding the lines (`decode_many`), hashing them (`line_hashes`, the chain),
and folding the records into the timeline (`Timeline.extend`), each timed alone; the
rest of `open` is the checks between them (sequence, chain, batches, the map). Last, the
ceiling the log's format sets: decoding and hashing the lines alone, with nothing folded.

Issue 40's row follows in the same run: `Encounter.open` against that floor, from memory and from
a JSONL file (the same lines written to a temporary file: reading and splitting it are the file's
own part, timed on their own too), each ratio with the load average; those are from zero. Then the
same file opened with the sidecar its commands leave (LOG.snapshots, a snapshot every 1000 events):
what a command on a long JSONL log pays, printed beside the from-zero figure, never instead of it.
`--floor-only` measures just that row (no eventsourcing, no child process): the way to take it at
1k and 1M events.

Then the same pair again in a child process under `python -O`, as both run in production:
eventsourcing checks its events with `assert isinstance(...)`, which -O strips (most of its
time per event without it); tabletrail has no assert on this path. Both rates and their
ratio are printed on a line that says -O. Targets (issue 29): >= 350,000 events/s, and
>= 1.5x eventsourcing under -O.

Run: .venv/bin/python benchmarks/bench_vs_eventsourcing.py [--events 100000] [--repeat 5] [--floor-only]
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event
from tabletrail.events.stores.chain import line_hashes
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.record import Record, decode_many
from tabletrail.events.types import Moved
from tabletrail.projections.snapshot import FORMAT
from tabletrail.projections.timeline import Timeline
from tabletrail.service.encounter import Encounter, fold_with_snapshots
from tabletrail.service.lazy_records import LazyRecords

sys.path.insert(0, str(Path(__file__).parent))
from bench_log import CLOCK, fresh, play  # noqa: E402


class Counter(Aggregate):
    """An aggregate whose every event sets one field."""

    def __init__(self) -> None:
        self.value = 0

    @event("Set")
    def set(self, value: int) -> None:
        self.value = value


class Counters(Application):
    is_snapshotting_enabled = False


def best_of(repeat: int, fn) -> float:  # noqa: ANN001
    """The least CPU time of `repeat` calls: on a shared machine wall time mostly measures the others.

    What a call returns is kept until its time is taken, then freed untimed, as in `best_of_pair`:
    a decode ends with its records in hand, a replay with its board (`best_with_free` times both).
    """
    return best_with_free(repeat, fn)[0]


def best_with_free(repeat: int, fn) -> tuple[float, float]:  # noqa: ANN001
    """The least CPU time of `repeat` calls, what is returned kept; and the least of call + freeing it."""
    kept, whole = [], []
    for _ in range(repeat):
        t0 = time.process_time()
        result = fn()
        t1 = time.process_time()
        del result
        kept.append(t1 - t0)
        whole.append(time.process_time() - t0)
    return min(kept), min(whole)


def bare_loop(records: list[Record]) -> int:
    """The least a fold in CPython does for each record: read its event and test its type."""
    moves = 0
    for record in records:
        if type(record.event) is Moved:
            moves += 1
    return moves


def extended(records: list[Record]) -> Timeline:
    """The timeline `Timeline.extend` folds from the records (returned, so its freeing is not timed)."""
    timeline = Timeline()
    timeline.extend(records)
    return timeline


def best_of_pair(repeat: int, a, b) -> tuple[float, float, float]:  # noqa: ANN001
    """`best_of` for two functions whose calls alternate, so both see the same load.

    What each returns is kept until its time is taken, then freed untimed: a replay
    ends with the board in hand. The third figure is the least time `a`'s result took
    to free (tabletrail keeps every record for the audit; eventsourcing keeps none).
    """
    times: tuple[list[float], list[float], list[float]] = ([], [], [])
    for _ in range(repeat):
        for i, fn in enumerate((a, b)):
            t0 = time.process_time()
            result = fn()
            times[i].append(time.process_time() - t0)
            t0 = time.process_time()
            del result
            if i == 0:
                times[2].append(time.process_time() - t0)
    return min(times[0]), min(times[1]), min(times[2])


def replay_pair(events: int, repeat: int) -> tuple[list[bytes], float, float, float]:
    """The log, and the least CPU time of tabletrail's open, eventsourcing's get and freeing ours."""
    lines = list(play(fresh(), events).store.lines)
    n = len(lines)
    app = Counters()  # no aggregate cache by default: every get folds the events
    counter = Counter()  # its creation is event 1
    for i in range(n - 1):
        counter.set(i)
    app.save(counter)
    if app.repository.get(counter.id).version != n:  # not an assert: this runs under -O too
        raise SystemExit("eventsourcing folded another number of events than it was given")
    ours_s, theirs_s, free_s = best_of_pair(
        repeat,
        lambda: Encounter.open(MemoryStore(lines), clock=lambda: CLOCK),
        lambda: app.repository.get(counter.id),
    )
    return lines, ours_s, theirs_s, free_s


def under_optimize(events: int, repeat: int) -> dict[str, float]:
    """The same pair in a child `python -O` (asserts stripped, as a production service runs)."""
    child = [sys.executable, "-O", __file__, "--events", str(events), "--repeat", str(repeat), "--child"]
    out = subprocess.run(child, capture_output=True, text=True, check=True, timeout=1800)
    return json.loads(out.stdout.strip().splitlines()[-1])


def against_floor(lines: list[bytes], repeat: int, ours_s: float | None = None) -> None:
    """Issue 40's row: `Encounter.open` from memory and from a JSONL file, each against the format's
    floor (decode + hash of every line, nothing folded), all in this run, with the load average.

    The floor is `decode_many` (which also makes `decode`'s checks beyond types: the start, doors,
    older lines) plus `line_hashes`. Beside it, the bare floor: msgspec's typed decoder mapped over
    the lines with no check at all, plus the same hashes; the open is given against both. Then where
    the open's time goes, each part timed alone with the collector paused, as the open pauses it.
    """
    n = len(lines)
    bare = msgspec.json.Decoder(Record).decode
    records = decode_many(lines, str)
    gc.disable()  # as Encounter.open decodes and hashes: the cyclic collector paused
    decode_s, decode_free = best_with_free(repeat, lambda: decode_many(lines, str))
    bare_s = best_of(repeat, lambda: list(map(bare, lines)))
    hash_s = best_of(repeat, lambda: line_hashes(lines))
    fold_s = best_of(repeat, lambda: extended(records))
    loop_s = best_of(repeat, lambda: bare_loop(records))
    gc.enable()
    floor, bare_floor = decode_s + hash_s, bare_s + hash_s
    open_free = 0.0
    if ours_s is None:
        ours_s, open_free = best_with_free(
            repeat, lambda: Encounter.open(MemoryStore(lines), clock=lambda: CLOCK)
        )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.jsonl"
        path.write_bytes(b"".join(line + b"\n" for line in lines))
        read_s = best_of(repeat, lambda: JsonlStore(path).committed())
        file_s = best_of(repeat, lambda: Encounter.open(JsonlStore(path), clock=lambda: CLOCK))
        # Then the sidecar the log's commands leave beside it (a snapshot at the first batch end past
        # each multiple of snapshot_every, the newest kept): the same points a full fold takes.
        store = JsonlStore(path)
        _, taken = fold_with_snapshots(MemoryStore(lines), store.snapshot_every)
        store.save_snapshots(FORMAT, taken)
        probe = Encounter.open(JsonlStore(path), clock=lambda: CLOCK)
        snapped = probe.records.base if isinstance(probe.records, LazyRecords) else 0
        del probe
        side_s = best_of(repeat, lambda: Encounter.open(JsonlStore(path), clock=lambda: CLOCK))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())

    def us(seconds: float) -> str:
        return f"{seconds / n * 1e6:.2f} us/event"

    print(f"issue 40, replay against its format's floor, {n:,} events, CPU time, best of {repeat}:")
    print(f"  floor: decode {us(decode_s)} + hash {us(hash_s)} = {us(floor)}")
    print(f"  bare floor: msgspec's decoder alone, no check, {us(bare_s)} + hash = {us(bare_floor)}")
    print(
        f"  Encounter.open from memory   {us(ours_s)} = {ours_s / floor:.2f}x the floor (target <= 1.2x); "
        f"{ours_s / bare_floor:.2f}x the bare floor"
    )
    print(
        f"  Encounter.open from a JSONL file, from zero (no sidecar) {us(file_s)} = {file_s / floor:.2f}x "
        f"(of it reading and splitting the file {us(read_s)})"
    )
    every = JsonlStore(path).snapshot_every
    print(
        f"  Encounter.open from a JSONL file with the sidecar its commands leave (LOG.snapshots, "
        f"snapshot_every {every}: opened from version {snapped:,}, {n - snapped:,} lines folded) "
        f"{us(side_s)} = {side_s / floor:.3f}x the floor, {side_s * 1e3:.1f} ms in all"
    )
    print(
        f"  parts: decode {us(decode_s)}, hash {us(hash_s)}, fold (Timeline.extend) {us(fold_s)}, "
        f"rest (sequence, chain links, batches, map) {us(ours_s - floor - fold_s)}"
    )
    print(
        f"  the least any CPython fold costs: a loop over the records that only tests each one's type "
        f"{us(loop_s)}; the target leaves {us(max(0.0, 0.2 * floor))} for the fold and every check"
    )
    if open_free:
        print(
            f"  with the freeing of what each returns timed too (as this row was before): open "
            f"{us(open_free)} against decode + hash {us(decode_free + hash_s)} = "
            f"{open_free / (decode_free + hash_s):.2f}x"
        )
    print(
        "  all from zero but the sidecar's line: every line decoded, hashed and folded (a MemoryStore keeps "
        "no snapshot)"
    )
    print(f"  load average {load}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # the -O run's own side
    parser.add_argument(
        "--floor-only", action="store_true", help="only issue 40's row: open against decode + hash"
    )
    args = parser.parse_args()
    if args.floor_only:
        against_floor(list(play(fresh(), args.events).store.lines), args.repeat)
        return
    if args.child:
        lines, ours_s, theirs_s, _ = replay_pair(args.events, args.repeat)
        print(
            json.dumps(
                {"events": len(lines), "ours": ours_s, "theirs": theirs_s, "optimize": sys.flags.optimize}
            )
        )
        return

    lines, ours_s, theirs_s, free_s = replay_pair(args.events, args.repeat)
    n = len(lines)
    ours, theirs = n / ours_s, n / theirs_s

    records = decode_many(lines, str)
    gc.disable()  # as Encounter.open folds a log: the cyclic collector paused (app/service/encounter.py)
    parts = {
        "decode (decode_many)": best_of(args.repeat, lambda: decode_many(lines, str)),
        "hash chain (line_hashes)": best_of(args.repeat, lambda: line_hashes(lines)),
        "fold (Timeline.extend)": best_of(args.repeat, lambda: extended(records)),
    }
    gc.enable()

    version = importlib.metadata.version("eventsourcing")
    print(f"replay of {n:,} events, CPU time, best of {args.repeat}, Python {sys.version.split()[0]}")
    print(f"  tabletrail Encounter.open (decode + chain + evolve)   {ours:>10,.0f} events/s")
    print(f"  eventsourcing {version} repository.get, one aggregate  {theirs:>10,.0f} events/s")
    print(f"  tabletrail / eventsourcing                           {ours / theirs:>10.1f}x")
    print(f"  target >= 350,000 events/s: {'met' if ours >= 350_000 else 'NOT met'}")
    opt = under_optimize(args.events, args.repeat)
    o_ours, o_theirs = opt["events"] / opt["ours"], opt["events"] / opt["theirs"]
    print(
        f"  under python -O (a child process, both sides, asserts stripped as in production; "
        f"flags.optimize={opt['optimize']:.0f}):"
    )
    print(f"    -O tabletrail {o_ours:,.0f} events/s, eventsourcing {o_theirs:,.0f} events/s")
    print(
        f"  -O tabletrail / eventsourcing                     {o_ours / o_theirs:>10.1f}x  (target >= 1.5x)"
    )
    print(f"  freeing tabletrail's encounter afterwards (untimed above)  {free_s / n * 1e6:6.2f} us/event")
    print(f"  where its time goes, each part alone, collector paused (of {1e6 / ours:.2f} us an event):")
    for part, seconds in parts.items():
        print(f"    {part:<24} {seconds / n * 1e6:6.2f} us/event")
    # What the log's format costs before any rule is folded: reading the lines and checking their chain.
    floor = parts["decode (decode_many)"] + parts["hash chain (line_hashes)"]
    print(
        f"  decode + hash alone, with nothing folded: {floor / n * 1e6:.2f} us/event, so at most "
        f"{n / floor:,.0f} events/s for any fold of this format (300,000 events/s leaves "
        f"{max(0.0, 1e6 / 300_000 - floor / n * 1e6):.2f} us/event for the fold and the checks)"
    )
    rest = ours_s - sum(parts.values())
    print(
        f"  the rest of open (sequence, chain links, batches, the map; collector on) "
        f"{rest / n * 1e6:.2f} us/event"
    )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"  Encounter.open / (decode + hash), same run: {ours_s / floor:.2f}x (target <= 1.2x; "
        f"{ours_s / n * 1e6:.2f} against {floor / n * 1e6:.2f} us/event; load average {load})"
    )
    against_floor(lines, args.repeat, ours_s)


if __name__ == "__main__":
    main()
