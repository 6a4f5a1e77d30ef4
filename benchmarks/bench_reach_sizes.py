"""Reach on maps of every size, and the first reach on a map (issue 40): each beside its anchor, same run.

For each N, bench_reach.py's map drawn N x N (mixed terrain, walls, platforms, a
dozen fighters near the middle; the mover at the centre with Speed 30, so the budget
is 30 m whatever the map). Printed per size, CPU time (time.process_time):

- first: the first reachable() on the map in this process (the board built untimed,
  numpy and scipy imported before: their import is printed once), against a warm call
  on the same map as its anchor. Target (issue 40): <= 100 ms on any map.
- warm: the median of reachable() once the map's prices are kept, alternating call by
  call with its anchor, scipy's `csgraph.dijkstra` alone (limit = the budget) on a CSR
  graph of the whole map prebuilt from the same policy's prices (a refused step is no
  entry). The warm call names its costs (bench_reach.named: the compiled search's
  answer is arrays named into a dict when first read). Target: warm <= 2x scipy, and
  warm on N x N about what it is on 100 x 100
  (the work bounded by the budget's window, not by the map).

The anchor graph is priced once per pair of legend entries and direction (the
speed-meters walker reads only the two cells of a step, and the map has no walls on
edges), so a 1000 x 1000 map's graph is quick to build; both answers are compared,
cells and costs, after the same end-of-move filter (untimed), and must be equal.

--declare measures what the speed-meters walker's declarations `prices_read_two_cells
= ends_read_one_cell = True` give (core/search/step_table.py: a window's steps priced and its
empty cells judged in bulk); set on the class for that run only, and said on the first line.

Run: .venv/bin/python benchmarks/bench_reach_sizes.py [--sizes 50 100 200 400 1000] [--repeat 15] [--declare]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_reach import MOVER, board, end_filter, named, timed_pair  # noqa: E402
from tabletrail.core.board.geometry import NEIGHBOURS  # noqa: E402
from tabletrail.core.board.refusal import Refusal  # noqa: E402
from tabletrail.core.board.state import EncounterState  # noqa: E402
from tabletrail.core.engine.registry import get as get_ruleset  # noqa: E402
from tabletrail.core.search.reach import reachable  # noqa: E402
from tabletrail.core.search.step_table import Scale  # noqa: E402


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def whole_graph(state: EncounterState) -> Any:
    """Every allowed king's step of the map as a CSR matrix over cells, priced by the ruleset's walker
    once per (from entry, to entry, direction): its prices read only the two cells of a step."""
    import numpy as np
    from scipy.sparse import csr_matrix

    rs = get_ruleset(state.ruleset)
    f = state.fighter(MOVER)
    assert f is not None
    policy = rs.walker(state, f)
    grid = state.grid
    w, h = grid.width, grid.height
    codes = np.frombuffer(bytes(grid.codes), dtype=np.uint8).reshape(h, w).T  # codes[x, y]
    if state.settings.get("diagonal") == "alternating":
        raise SystemExit("the alternating rule's parity has no one-price graph: pick another --diagonal")
    taken = np.zeros((w, h), dtype=bool)  # a step into an occupied cell is priced on its own, live
    for o in state.fighters:
        if o.id != f.id:
            taken[o.pos[0], o.pos[1]] = True
    scale = Scale.of(state)
    rows, cols, costs = [], [], []
    xs, ys = np.meshgrid(np.arange(w), np.arange(h), indexing="ij")
    for dx, dy in NEIGHBOURS:
        tx, ty = xs + dx, ys + dy
        ok = (tx >= 0) & (tx < w) & (ty >= 0) & (ty < h)
        sx, sy, tx, ty = xs[ok], ys[ok], tx[ok], ty[ok]
        pair = codes[sx, sy].astype(np.int64) * 256 + codes[tx, ty]
        busy = taken[tx, ty]
        pair[busy] = -1 - np.flatnonzero(busy)  # each its own group
        price = np.full(pair.size, np.nan)
        groups, first = np.unique(pair, return_index=True)
        for p, i in zip(groups.tolist(), first.tolist(), strict=True):
            a, b = (int(sx[i]), int(sy[i])), (int(tx[i]), int(ty[i]))
            try:
                step = policy.price(state, f, (*a, grid.top[a[1]][a[0]]), b, 0)
            except Refusal:
                continue
            price[pair == p] = scale.key(step)  # exact: √2 kept (step_table.Scale)
        keep = ~np.isnan(price)
        rows.append(sx[keep] * h + sy[keep])
        cols.append(tx[keep] * h + ty[keep])
        costs.append(price[keep])
    n = w * h
    return csr_matrix((np.concatenate(costs), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))


def scipy_search(state: EncounterState, graph: Any) -> Any:
    """scipy's Dijkstra alone from the mover's cell, the budget as its limit."""
    from scipy.sparse.csgraph import dijkstra

    f = state.fighter(MOVER)
    assert f is not None
    budget = Scale.of(state).exact(get_ruleset(state.ruleset).move_budget(state, f), 0)
    return dijkstra(graph, directed=True, indices=f.pos[0] * state.grid.height + f.pos[1], limit=budget)


def as_costs(state: EncounterState, dist: Any) -> dict[tuple[int, int], int]:
    import numpy as np

    h = state.grid.height
    found = np.flatnonzero(np.isfinite(dist))
    return {(int(c) // h, int(c) % h): int(dist[c]) for c in found}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 400, 1000])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--diagonal", default="every-1")
    parser.add_argument("--declare", action="store_true", help="the walker declares what it reads")
    args = parser.parse_args()
    if args.declare:
        from tabletrail.core.rulesets.speed_meters.steps import _Walking

        _Walking.prices_read_two_cells = _Walking.ends_read_one_cell = True  # type: ignore[attr-defined]
        print(
            "the speed-meters walker declares prices_read_two_cells = ends_read_one_cell = True (--declare)"
        )
    print(f"load average {load()} (start)")
    t0 = time.process_time()
    import tabletrail.core.search.reach_arrays  # noqa: F401

    imported = 1000 * (time.process_time() - t0)
    print(f"importing numpy + scipy for the compiled search (once a process): {imported:.0f} ms CPU")
    print(f"speed-meters, diagonal {args.diagonal}, budget 30 m, CPU ms; warm: median of {args.repeat}")
    print(
        f"{'N':>6} {'first':>8} {'warm':>7} {'first/warm':>10} {'scipy':>7} {'warm/scipy':>10} "
        f"{'warm/100^2':>10} {'cells':>6} {'same':>5}"
    )
    base = None
    rows = []
    for n in sorted(args.sizes):
        state = board(args.diagonal, size=n)
        t0 = time.process_time()
        reachable(state, MOVER)
        first = 1000 * (time.process_time() - t0)
        graph = whole_graph(state)
        (warm, ours), (anchor, dist) = timed_pair(
            lambda state=state: named(reachable(state, MOVER)),
            lambda state=state, g=graph: scipy_search(state, g),
            args.repeat,
        )
        theirs = end_filter(state, as_costs(state, dist))
        if n == 100:
            base = warm
        rows.append((n, first, warm, anchor, len(ours), ours == theirs))
    for n, first, warm, anchor, cells, same in rows:
        flat = f"{warm / base:10.2f}" if base else f"{'-':>10}"
        print(
            f"{n:>6} {first:8.1f} {warm:7.2f} {first / warm:10.1f} {anchor:7.2f} {warm / anchor:10.2f} "
            f"{flat} {cells:>6} {'yes' if same else 'NO':>5}"
        )
    worst_first = max(r[1] for r in rows)
    worst_ratio = max(r[2] / r[3] for r in rows)
    print(
        f"targets: first <= 100 ms on any map: {'met' if worst_first <= 100 else 'NOT met'} "
        f"(worst {worst_first:.0f} ms); warm <= 2x scipy: {'met' if worst_ratio <= 2 else 'NOT met'} "
        f"(worst {worst_ratio:.2f}x)"
    )
    print(f"load average {load()} (end)")


if __name__ == "__main__":
    main()
