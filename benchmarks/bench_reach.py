"""How fast is the reachable area? `reachable()` against networkx's Dijkstra, same map, same run.

A 100x100 speed-meters map of mixed terrain (floor, rough sand, walls, 1 m and
2.5 m platforms) with a few allies and enemies on it; the mover has Speed 30,
so the budget is 30 m. networkx gets the same graph: the same ruleset's step
policy prices every king's step of the map once (a refused step is no edge),
then `single_source_dijkstra_path_length` runs with the budget as its cutoff.
Both answers go through the same `can_end` filter and must be equal; networkx's
time is its Dijkstra alone (the filter runs untimed after it: issue 40 item 5, it
once counted in networkx's time and made 5x read as 9-10x).

reachable() reads step prices kept per map (core/search/step_table.py): the first call
on a map prices the steps its Python search meets through the ruleset's policy
and keeps them, then prices the steps that search skipped (steps into cells
already settled), so that every step out of the area is known; from then on
scipy's compiled Dijkstra runs over the kept prices as flat arrays
(core/search/reach_arrays.py; a step into an occupied cell is priced for the fighters
standing there, never kept in the table). So four figures are printed for ours:
the kept-price search (median: what the table view pays on every selection and
drag of the same map), the first call on a fresh map (cold), the second, and
the search that asks the policy for every step (table=False); and, once per
run, importing numpy and scipy (the first call in a process pays it). The ratio
the issue asks about is networkx's Dijkstra alone against the first. Every
diagonal rule is measured unless --diagonal names some. With --walls N the map
also gets N seeded thin walls on cell edges (1 to 6 cells long, issue 19) and a
closed door in every fourth: such a map keeps the Python table search, which asks
core/board/walls.py about every step (the compiled search reads kept prices only).
The timed reachable() names its costs (`named`: a compiled search answers with arrays,
named as a dict when first read). Timings are CPU time (time.process_time): on a
shared machine wall time mostly measures the neighbours. The two searches of the ratio
alternate call by call, so both medians are taken under the same load.

Run: .venv/bin/python benchmarks/bench_reach.py [--repeat N] [--diagonal RULE ...] [--walls N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable, Mapping
from typing import Any

import networkx as nx
from msgspec.structs import replace
from tabletrail.core.board.refusal import Refusal
from tabletrail.core.board.state import EncounterState
from tabletrail.core.board.walls import step_blocked
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.core.search.reach import reach, reachable
from tabletrail.core.search.step_table import Scale
from tabletrail.events.scenario.reader import parse_scenario, wall_edges
from tabletrail.events.scenario_spec import wall_segment
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.service.encounter import Encounter

SIZE = 100
SPEED = 30
MOVER = "runner"


def edges(rnd: random.Random, count: int, size: int = SIZE) -> tuple[list[str], list[dict[str, Any]]]:
    """`count` seeded thin walls along grid lines inside the map, every fourth with a closed door."""
    walls: list[str] = []
    doors: list[dict[str, Any]] = []
    for i in range(count):
        n = rnd.randint(1, 6)
        x, y = rnd.randint(2, size - 9), rnd.randint(2, size - 9)
        if rnd.random() < 0.5:  # vertical, along x between columns x-1 and x
            if i % 4 == 3 and n > 1:  # its first cell's edge is a door, the wall starts below it
                doors.append({"at": f"{x - 1},{y}|{x},{y}", "closed": True})
                y, n = y + 1, n - 1
            walls.append(f"{x},{y}-{x},{y + n}")
        else:
            if i % 4 == 3 and n > 1:
                doors.append({"at": f"{x},{y - 1}|{x},{y}", "closed": True})
                x, n = x + 1, n - 1
            walls.append(f"{x},{y}-{x + n},{y}")
    walled = {e for w in walls for e in wall_edges(wall_segment(w))}
    taken: set[str] = set()
    kept = []
    for d in doors:  # a door on an edge another wall covers, or a second door on one edge: left out
        (ax, ay), (bx, by) = (tuple(map(int, c.split(","))) for c in d["at"].split("|"))
        edge = (ax, ay, 0) if ay == by else (ax, ay, 1)
        if d["at"] not in taken and edge not in walled:
            taken.add(d["at"])
            kept.append(d)
    return walls, kept


def scenario(diagonal: str, seed: int = 9, walls: int = 0, size: int = SIZE) -> dict[str, Any]:
    """The map, drawn by a seeded generator so every run measures the same board (size x size)."""
    rnd = random.Random(seed)
    rows = []
    for y in range(size):
        row = []
        for x in range(size):
            if x in (0, size - 1) or y in (0, size - 1):
                row.append("#")
                continue
            r = rnd.random()
            row.append(
                "#" if r < 0.08 else "~" if r < 0.30 else "^" if r < 0.36 else ":" if r < 0.38 else "."
            )
        rows.append("".join(row))
    mid = size // 2
    rows[mid] = rows[mid][:mid] + "." + rows[mid][mid + 1 :]
    fighters: list[dict[str, Any]] = [{"id": MOVER, "side": "blue", "at": [mid, mid], "speed": SPEED}]
    for i in range(12):
        x, y = rnd.randrange(mid - 25, mid + 25), rnd.randrange(mid - 25, mid + 25)
        if rows[y][x] != "#" and (x, y) != (mid, mid):
            side = "blue" if i % 2 else "red"
            fighters.append({"id": f"f{i}", "side": side, "at": [x, y], "speed": 5})
    thin, doors = edges(random.Random(seed + 1), walls, size)
    extra: dict[str, Any] = {"walls": thin, "doors": doors} if walls else {}
    return {
        "encounter": {"name": "reach benchmark", "ruleset": "speed-meters"},
        "settings": {"diagonal": diagonal},
        "map": {
            **extra,
            "rows": rows,
            "legend": {
                "#": "wall",
                ".": "floor",
                "~": "rough",
                "^": {"terrain": "floor", "ground": 1},
                ":": {"terrain": "floor", "ground": 2.5},
            },
        },
        "fighters": fighters,
    }


def board(diagonal: str, walls: int = 0, size: int = SIZE) -> EncounterState:
    enc = Encounter.create(
        MemoryStore(), parse_scenario(scenario(diagonal, walls=walls, size=size), "benchmark")
    )
    return enc.state


def graph(state: EncounterState) -> nx.DiGraph:
    """Every allowed king's step of the whole map, priced by the ruleset's own policy."""
    rs = get_ruleset(state.ruleset)
    f = state.fighter(MOVER)
    assert f is not None
    policy = rs.walker(state, f)
    assert policy is not None
    g = nx.DiGraph()
    grid = state.grid
    scale = Scale.of(state)
    for y in range(grid.height):
        for x in range(grid.width):
            here = (x, y, grid.top[y][x])
            for to in grid.neighbours(x, y):
                if step_blocked(state, (x, y), to):  # a wall or a closed door on the edge: no edge
                    continue
                try:
                    step = policy.price(state, f, here, to, 0)
                except Refusal:
                    continue
                g.add_edge((x, y), to, weight=scale.key(step))  # exact: √2 kept (step_table.Scale)
    return g


def networkx_search(state: EncounterState, g: nx.DiGraph) -> dict[tuple[int, int], int]:
    """networkx's Dijkstra alone, with the budget as cutoff: the figure the ratio is taken against."""
    rs = get_ruleset(state.ruleset)
    f = state.fighter(MOVER)
    assert f is not None
    cutoff = Scale.of(state).exact(rs.move_budget(state, f), 0)
    return nx.single_source_dijkstra_path_length(g, f.pos[:2], cutoff=cutoff)


def end_filter(state: EncounterState, found: dict[tuple[int, int], int]) -> dict[tuple[int, int], int]:
    """reachable()'s end-of-move filter over networkx's costs (untimed: not networkx's work)."""
    rs = get_ruleset(state.ruleset)
    f = state.fighter(MOVER)
    assert f is not None
    policy = rs.walker(state, f)
    assert policy is not None
    scale = Scale.of(state)
    out = {}
    for (x, y), cost in found.items():
        if (x, y) == f.pos[:2]:
            continue
        moved = state.with_fighter(replace(f, pos=(x, y, state.grid.top[y][x])))
        try:
            policy.can_end(moved, moved.fighter(MOVER))  # type: ignore[arg-type]
        except Refusal:
            continue
        out[(x, y)] = scale.cu(cost)  # the exact length rounded once, as reachable() reports it
    return out


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The median CPU time of `repeat` calls, in milliseconds, and the last result."""
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.process_time()
        result = fn()
        times.append((time.process_time() - t0) * 1000)
    return statistics.median(times), result


def named(costs: Mapping[Any, int]) -> Mapping[Any, int]:
    """The costs with every cell named: the compiled search hands them over as arrays named into a
    dict when first read (core/search/reach_arrays.py `_Costs`); a caller reads them, so a timed
    reachable() pays for it."""
    costs.items()
    return costs


def timed_pair(a: Callable[[], Any], b: Callable[[], Any], repeat: int) -> tuple[tuple[float, Any], ...]:
    """`timed` for two functions whose calls alternate: both medians are taken under the same load."""
    times: tuple[list[float], list[float]] = ([], [])
    results: list[Any] = [None, None]
    for _ in range(repeat):
        for i, fn in enumerate((a, b)):
            t0 = time.process_time()
            results[i] = fn()
            times[i].append((time.process_time() - t0) * 1000)
    return tuple((statistics.median(t), r) for t, r in zip(times, results, strict=True))


class Counting:
    """A step policy that counts the steps it prices (for the report; never timed)."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.unit = policy.unit
        self.priced = 0

    def price(self, *args: Any) -> Any:
        self.priced += 1
        return self.policy.price(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.policy, name)


def steps_priced(state: EncounterState) -> int:
    """How many steps one reachable() call asks the ruleset to price."""
    rs = get_ruleset(state.ruleset)
    counters: list[Counting] = []
    original = rs.walker

    def counting(st: EncounterState, f: Any) -> Any:
        policy = original(st, f)
        # A class of its own per policy type, with the policy's own `eventful`: the search takes the
        # same way (compiled or not) as for the policy itself, on a table of its own (a first call).
        kind = type("Counting", (Counting,), {"eventful": type(policy).eventful})
        counters.append(kind(policy))
        return counters[-1]

    rs.walker = counting  # type: ignore[method-assign]
    try:
        reachable(state, MOVER)
    finally:
        del rs.walker
    return counters[0].priced


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--diagonal", nargs="+", default=["every-1", "alternating", "euclidean", "manhattan"])
    parser.add_argument("--walls", type=int, default=0, help="thin walls on cell edges to add (issue 19)")
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    import_ms, _ = timed(lambda: __import__("tabletrail.core.search.reach_arrays"), 1)
    print(f"importing numpy + scipy for the compiled search (once a process): {import_ms:.0f} ms CPU")
    for diagonal in args.diagonal:
        measure(diagonal, args.repeat, args.walls)
    print(f"\nload average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def measure(diagonal: str, repeat: int, walls: int = 0) -> None:
    """Every figure for one diagonal rule, same run."""
    cold_ms, _ = timed(lambda: reachable(board(diagonal, walls), MOVER), 1)  # includes building the board
    build_board_ms, _ = timed(lambda: board(diagonal, walls), 1)
    cold_ms -= build_board_ms
    state = board(diagonal, walls)
    reachable(state, MOVER)  # every step out of the area is priced and kept now
    second_ms, _ = timed(lambda: reachable(state, MOVER), 1)
    slow_ms, slow = timed(lambda: reach(state, MOVER, table=False).costs, max(1, repeat // 3))
    build_ms, g = timed(lambda: graph(state), 1)
    (ours_ms, ours), (search_ms, found) = timed_pair(
        lambda: named(reachable(state, MOVER)), lambda: networkx_search(state, g), repeat
    )
    theirs = end_filter(state, found)

    print()
    print(
        f"map {SIZE}x{SIZE}, speed-meters, diagonal {diagonal}, budget {SPEED} m, {walls} thin walls "
        f"({len(state.doors)} closed doors; a walled map keeps the table search), "
        f"CPU time, median of {repeat} runs"
    )
    print(
        f"reachable cells: {len(ours)}; the same with kept prices and without: "
        f"{'yes' if ours == slow else 'NO'}"
    )
    if diagonal == "alternating":
        print("networkx's graph cannot carry the alternating parity: its cells are timed, not compared")
    else:
        print(f"same cells and costs as networkx: {'yes' if ours == theirs else 'NO'}")
    print(
        f"steps priced by the ruleset: reachable() {steps_priced(state)} (first call), "
        f"networkx {g.number_of_edges()}"
    )
    print(f"  reachable(), kept prices                        {ours_ms:8.2f} ms")
    print(f"  reachable(), first call on the map (cold)       {cold_ms:8.2f} ms")
    print(f"  reachable(), second call on the map             {second_ms:8.2f} ms")
    print(f"  reach(table=False), every step asks the policy  {slow_ms:8.2f} ms")
    total = build_ms + search_ms
    print(
        f"  networkx, graph priced from the board + Dijkstra {total:8.2f} ms   "
        f"reachable() {total / ours_ms:5.2f}x faster"
    )
    print(
        f"  networkx, Dijkstra alone on the prebuilt graph   {search_ms:8.2f} ms   "
        f"reachable() {search_ms / ours_ms:5.2f}x as fast (target >= 5x)"
    )


if __name__ == "__main__":
    main()
