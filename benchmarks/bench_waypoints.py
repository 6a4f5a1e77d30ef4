"""Is a move preview linear in its number of waypoints? N and 10N waypoints, same run.

A speed-meters fighter with a huge Speed on an open map previews (parse + decide,
nothing logged) one move written as N waypoints, each a king's step from the
last, snaking along the rows. Then the reachable area's `waypoints()` turns the
same N-cell path back into waypoints. Linear time means the 10N figure is about
10x the N one; quadratic would be 100x.

Run: .venv/bin/python benchmarks/bench_waypoints.py [--n 10000] [--factor 10]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from tabletrail.core.reach import waypoints
from tabletrail.encounter import Encounter
from tabletrail.events.log import MemoryStore
from tabletrail.events.scenario import parse_scenario
from tabletrail.syntax import parse


def snake(n: int, width: int) -> list[tuple[int, int]]:
    """n cells, each a king's step from the last, back and forth along the rows."""
    cells, x, y, d = [], 0, 0, 1
    for _ in range(n):
        if 0 <= x + d < width:
            x += d
        else:
            y, d = y + 1, -d
        cells.append((x, y))
    return cells


def encounter(n: int, width: int) -> Encounter:
    rows = ["." * width] * (n // width + 2)
    scenario: dict[str, Any] = {
        "encounter": {"name": "waypoints benchmark", "ruleset": "speed-meters"},
        "map": {"rows": rows, "legend": {".": "floor"}},
        "fighters": [{"id": "a", "side": "blue", "at": [0, 0], "speed": 10 * n}],
    }
    return Encounter.create(MemoryStore(), parse_scenario(scenario, "benchmark"))


def preview_seconds(n: int, width: int) -> tuple[float, float]:
    """CPU seconds to preview a move of n waypoints, and to turn its n cells back into waypoints.

    CPU time (time.process_time): on a shared machine wall time mostly measures the neighbours.
    """
    enc = encounter(n, width)
    cells = snake(n, width)
    text = "move a " + " ".join(f"{x},{y}" for x, y in cells)
    t0 = time.process_time()
    result = enc.preview(parse(text))
    t1 = time.process_time()
    assert isinstance(result, list), result  # accepted
    waypoints((0, 0), cells)
    t2 = time.process_time()
    return t1 - t0, t2 - t1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--factor", type=int, default=10)
    parser.add_argument("--width", type=int, default=300)
    args = parser.parse_args()
    small, big = args.n, args.n * args.factor
    p_small, w_small = preview_seconds(small, args.width)
    p_big, w_big = preview_seconds(big, args.width)
    print(f"a preview with N waypoints (speed-meters, {args.width}-wide map, one king's step each; CPU time)")
    print(f"  preview, N = {small:>7,}   {p_small:8.3f} s")
    print(
        f"  preview, N = {big:>7,}   {p_big:8.3f} s   {p_big / p_small:5.1f}x for {args.factor}x "
        f"the waypoints (linear: ~{args.factor}x, quadratic: ~{args.factor**2}x)"
    )
    print(f"  waypoints() of the path: N = {small:,}: {w_small * 1e3:.1f} ms; {big:,}: {w_big * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
