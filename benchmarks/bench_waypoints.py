"""Is a move preview linear in the length of its path? N and 10N cells, same run.

A speed-meters fighter with a huge Speed on a 1000-wide map previews (parse +
decide, nothing logged) one move that zigzags across the map: each waypoint is
the far end of the next row, so k waypoints make a path of ~999k cells (a command
may carry at most MAX_WAYPOINTS waypoints, events/limits.py). Then the reachable
area's `waypoints()` turns the same path back into waypoints. Linear time means
the 10N figure is about 10x the N one; quadratic would be 100x. CPU time.

Run: .venv/bin/python benchmarks/bench_waypoints.py [--rows 10] [--factor 10]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from tabletrail.core.board.geometry import expand
from tabletrail.core.search.reach import waypoints
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse


def zigzag(rows: int, width: int) -> list[tuple[int, int]]:
    """One waypoint a row, alternately at the far right and the far left, each a row further down."""
    return [((width - 1) if i % 2 == 0 else 0, i + 1) for i in range(rows)]


def encounter(rows: int, width: int) -> Encounter:
    lines = ["." * width] * (rows + 1)
    scenario: dict[str, Any] = {
        "encounter": {"name": "waypoints benchmark", "ruleset": "speed-meters"},
        "map": {"rows": lines, "legend": {".": "floor"}},
        "fighters": [{"id": "a", "side": "blue", "at": [0, 0], "speed": 10 * rows * width}],
    }
    return Encounter.create(MemoryStore(), parse_scenario(scenario, "benchmark"))


def preview_seconds(rows: int, width: int) -> tuple[int, float, float]:
    """The path's length in cells, CPU seconds to preview the move, and to turn its cells into waypoints.

    CPU time (time.process_time): on a shared machine wall time mostly measures the neighbours.
    """
    enc = encounter(rows, width)
    wps = zigzag(rows, width)
    cells = expand((0, 0), wps)
    text = "move a " + " ".join(f"{x},{y}" for x, y in wps)
    t0 = time.process_time()
    result = enc.preview(parse(text))
    t1 = time.process_time()
    assert isinstance(result, list), result  # accepted
    waypoints((0, 0), cells)
    t2 = time.process_time()
    return len(cells), t1 - t0, t2 - t1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10, help="waypoints of the short move (one a row)")
    parser.add_argument("--factor", type=int, default=10)
    parser.add_argument("--width", type=int, default=1000)
    args = parser.parse_args()
    n_small, p_small, w_small = preview_seconds(args.rows, args.width)
    n_big, p_big, w_big = preview_seconds(args.rows * args.factor, args.width)
    print(f"a move preview along a zigzag path (speed-meters, {args.width}-wide map; CPU time)")
    print(f"  preview, {args.rows:>4} waypoints, {n_small:>9,} cells   {p_small:8.3f} s")
    print(
        f"  preview, {args.rows * args.factor:>4} waypoints, {n_big:>9,} cells   {p_big:8.3f} s   "
        f"{p_big / p_small:5.1f}x for {n_big / n_small:.0f}x the cells (linear: ~{args.factor}x, "
        f"quadratic: ~{args.factor**2}x)"
    )
    print(f"  waypoints() of the path: {w_small * 1e3:.1f} ms and {w_big * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
