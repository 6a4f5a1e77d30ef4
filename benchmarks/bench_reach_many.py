"""Reach with many fighters of different Speeds on one 100x100 map: is there a cliff? (issue 29)

The map is bench_reach.py's (mixed terrain, walls, platforms). N fighters stand
on it, each of its own Speed (4 m to 4+N-1 m); the table view asks the reachable area of
each in turn, round after round, as a GM tapping through them would. Kept step
prices live on the map (core/search/step_table.py, KEPT tables at most); a table is keyed
by what a price reads. Before issue 29 the speed-meters key held the mover's Speed,
so N Speeds made N tables and past KEPT every call priced its area afresh; now the
key holds only whether the Speed is 1 (rough's exception), and all of them share one.

Printed, for each N: the median CPU time of one call after the first round (every
fighter's area priced once), with the old key (the ruleset's `table_key` put back as it
was, for this run only) and with today's, the two alternating round by round, and
how many tables the map holds at the end. Both keys give the same cells and costs
(checked for every fighter).

Run: .venv/bin/python benchmarks/bench_reach_many.py [--counts 16 32 64 128] [--rounds 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from tabletrail.core.rulesets.speed_meters.steps import _Walking
from tabletrail.core.search.reach import reachable
from tabletrail.core.search.step_table import KEPT
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.service.encounter import Encounter

sys.path.insert(0, str(Path(__file__).parent))
from bench_reach import scenario  # noqa: E402

TODAY = _Walking.table_key


def old_key(self: _Walking, state, f):  # noqa: ANN001, ANN202 - the key as it was before issue 29
    return None if self.jumps else (state.settings["diagonal"], self.speed)


def board(count: int):  # noqa: ANN201
    """bench_reach's map with `count` fighters of Speeds 4.. on open cells, seeded."""
    data = scenario("every-1")
    rows = data["map"]["rows"]
    rnd = random.Random(29)
    free = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "."]
    spots = rnd.sample(free, count)
    data["fighters"] = [
        {"id": f"f{i}", "side": "blue" if i % 2 else "red", "at": [x, y], "speed": 4 + i}
        for i, (x, y) in enumerate(spots)
    ]
    return Encounter.create(MemoryStore(), parse_scenario(data, "benchmark")).state


def rounds(state, ids: list[str], n: int, times: list[float]) -> dict:  # noqa: ANN001
    """`n` rounds of one reach per fighter; each call's CPU ms appended to `times`."""
    last = {}
    for _ in range(n):
        for fid in ids:
            t0 = time.process_time()
            last[fid] = reachable(state, fid)
            times.append((time.process_time() - t0) * 1000)
    return last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[16, 32, 64, 128])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"100x100 speed-meters map, N fighters of N Speeds, KEPT = {KEPT} tables a map, CPU ms a call")
    head = f"{'N':>5} {'old key (Speed)':>16} {'tables':>7} {'today (Speed is 1)':>19} {'tables':>7}"
    print(f"{head} {'same':>5}")
    for count in args.counts:
        states = {"old": board(count), "new": board(count)}
        ids = [f.id for f in states["new"].fighters]
        times: dict[str, list[float]] = {"old": [], "new": []}
        answers: dict[str, dict] = {}
        for key in ("old", "new"):  # the first round prices every area: not timed
            _Walking.table_key = old_key if key == "old" else TODAY  # type: ignore[method-assign]
            rounds(states[key], ids, 1, [])
        for _ in range(args.rounds):  # the two alternate round by round: both see the same load
            for key in ("old", "new"):
                _Walking.table_key = old_key if key == "old" else TODAY  # type: ignore[method-assign]
                answers[key] = rounds(states[key], ids, 1, times[key])
        _Walking.table_key = TODAY  # type: ignore[method-assign]
        same = all(answers["old"][fid] == answers["new"][fid] for fid in ids)
        print(
            f"{count:>5} {statistics.median(times['old']):>13.2f} ms {len(states['old'].grid.tables):>7} "
            f"{statistics.median(times['new']):>16.2f} ms {len(states['new'].grid.tables):>7} "
            f"{'yes' if same else 'NO':>5}"
        )


if __name__ == "__main__":
    main()
