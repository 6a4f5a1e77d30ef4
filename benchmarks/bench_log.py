"""How fast is the log? Replay throughput, undo+redo latency by depth, and decide latency.

The log is generated honestly: every line comes from executing a command on a
speed-meters encounter (Encounter.execute on a MemoryStore), so every record is
real, sequenced and hash-chained. Two fighters on an open 24x5 floor take turns:
four 5-step Movements back and forth, then end-turn; now and then a command is
undone and redone, as at a real table.

Figures (issue 2, item 12; targets: replay >= 100,000 events/s, deep/shallow <= 2):
- replay: Encounter.open over the generated lines (decode + hash check + evolve), events/s;
- undo+redo: one Undo then one Redo through Encounter.execute, median over many,
  on a log ~100 events deep and on the generated one, and their ratio;
- decide: core.decide.decide for a 10-step move, median over many.

Run: .venv/bin/python benchmarks/bench_log.py [--events N] [--shallow N] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time
import tomllib
from collections.abc import Callable

from tabletrail.core.board.refusal import Rejection
from tabletrail.core.decide import decide
from tabletrail.events.commands import Command, EndTurn, Move, Redo, Undo
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter

CLOCK = "2026-11-29T00:00:00+00:00"
WIDTH = 24
SCENARIO = f"""
[encounter]
name = "log benchmark"
ruleset = "speed-meters"
seed = 1

[map]
rows = [
  "{"#" * WIDTH}",
  "#{"." * (WIDTH - 2)}#",
  "#{"." * (WIDTH - 2)}#",
  "#{"." * (WIDTH - 2)}#",
  "{"#" * WIDTH}",
]
[map.legend]
"#" = "wall"
"." = "floor"

[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = 10

[[fighters]]
id = "b"
side = "red"
at = [1, 3]
speed = 10
"""


def fresh() -> Encounter:
    scenario = parse_scenario(tomllib.loads(SCENARIO), source="benchmark scenario")
    return Encounter.create(MemoryStore(), scenario, clock=lambda: CLOCK)


def must(enc: Encounter, command: Command) -> None:
    result = enc.execute(command)
    if isinstance(result, Rejection):
        raise SystemExit(f"the generator's command {command} was refused: {result}")


def play(enc: Encounter, events: int) -> Encounter:
    """Execute turns until the log holds at least `events` lines."""
    turn = 0
    while len(enc.records) < events:
        fid = enc.state.turn.active
        y = 1 if fid == "a" else 3
        for n in range(4):  # four Movements of 5 m each, there and back
            must(enc, Move(fighter=fid, path=((6 if n % 2 == 0 else 1, y),)))
        if turn % 10 == 9:
            must(enc, Undo())
            must(enc, Redo())
        must(enc, EndTurn())
        turn += 1
    return enc


def median_us(fn: Callable[[], None], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def undo_redo(enc: Encounter) -> Callable[[], None]:
    def once() -> None:
        enc.execute(Undo())
        enc.execute(Redo())

    return once


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000, help="length of the generated log")
    parser.add_argument("--shallow", type=int, default=100, help="length of the shallow log")
    parser.add_argument("--repeat", type=int, default=2000, help="timed undo+redo pairs and decides")
    args = parser.parse_args()

    t0 = time.perf_counter()
    live = play(fresh(), args.events)
    lines = list(live.store.lines)
    print(f"generated   {len(lines):>9,} events by executing commands in {time.perf_counter() - t0:.1f} s")

    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        deep = Encounter.open(MemoryStore(lines), clock=lambda: CLOCK)
        runs.append(time.perf_counter() - t0)
    best = min(runs)
    rate = len(lines) / best
    assert view(deep.state) == view(live.state), "replay must reach the live board"
    print(f"replay      {rate:>9,.0f} events/s  (decode + chain check + evolve; best of 3: {best:.2f} s)")

    shallow = play(fresh(), args.shallow)
    depth_s, depth_d = len(shallow.records), len(deep.records)
    us_s = median_us(undo_redo(shallow), args.repeat)
    us_d = median_us(undo_redo(deep), args.repeat)
    ratio = us_d / us_s
    print(f"undo+redo   {us_s:>9.1f} us at depth {depth_s:,} events (median of {args.repeat})")
    print(f"undo+redo   {us_d:>9.1f} us at depth {depth_d:,} events (median of {args.repeat})")
    print(f"ratio       {ratio:>9.2f}  deep/shallow")

    enc = fresh()
    state = enc.state
    ten_steps = Move(fighter="a", path=((11, 1),))
    events = decide(state, ten_steps)
    assert not isinstance(events, Rejection), events
    us_decide = median_us(lambda: decide(state, ten_steps), args.repeat)
    print(f"decide      {us_decide:>9.1f} us for a 10-step move (median of {args.repeat})")

    print()
    print(f"target replay >= 100,000 events/s: {'met' if rate >= 100_000 else 'NOT met'}")
    print(f"target undo+redo deep/shallow <= 2: {'met' if ratio <= 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
