"""How long a move refused at a wall takes now that it names what shuts the way round (issue 28, item 5).

Builds a SIDE x SIDE floor map with a wall across it (one closed door in it, or none: then the far
side is walled off) and a fighter with Speed 6 on the near side, and times `decide` of a move
straight through the wall to a cell far beyond it: the refusal with the way round named
(core/search/way.py: first within the budget, then the cheapest way at all, MOST_NODES positions at most),
against the same move on a map where nothing stops it earlier than the budget. No timing is asserted.

    .venv/bin/python benchmarks/bench_way.py [--side 200] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

from tabletrail.core.board.state import EncounterState
from tabletrail.core.decide import decide
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse


def started(raw: dict) -> EncounterState:
    return Encounter.create(MemoryStore(), parse_scenario(raw, source="bench")).state


def scenario(side: int, door: bool) -> dict:
    mid = side // 2
    raw = {
        "encounter": {"name": "way", "ruleset": "speed-meters"},
        "map": {
            "rows": ["." * side] * side,
            "legend": {".": "floor"},
            "walls": [f"0,{mid}-{side - 1},{mid}"] + ([] if door else [f"{side - 1},{mid}-{side},{mid}"]),
        },
        "fighters": [{"id": "m", "side": "blue", "at": [2, mid - 2], "speed": 6}],
    }
    if door:
        raw["map"]["doors"] = [{"at": f"{side - 1},{mid - 1}|{side - 1},{mid}"}]
    return raw


def timed(state, text: str, repeat: int) -> tuple[float, str]:
    best, said = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        result = decide(state, parse(text))
        best = min(best, time.perf_counter() - start)
        said = getattr(result, "reason", "accepted")
    return best, said


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    mid = args.side // 2
    for door in (True, False):
        state = started(scenario(args.side, door))
        took, said = timed(state, f"move m 2,{mid + 2}", args.repeat)
        print(
            f"{args.side} x {args.side}, {'a closed door in the wall' if door else 'walled off'}: "
            f"{took * 1000:.1f} ms (best of {args.repeat}); {said}"
        )
    open_map = scenario(args.side, True)
    open_map["map"] = {**open_map["map"], "walls": [], "doors": []}
    state = started(open_map)
    took, said = timed(state, f"move m 2,{mid + 6}", args.repeat)
    print(f"the same move with no wall (refused for the budget): {took * 1000:.1f} ms; {said}")
    from tabletrail.core.search.reach import reach

    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        reach(state, "m", table=False)  # priced step by step, as the way is: the reference
        best = min(best, time.perf_counter() - start)
    print(f"for scale, the reachable area priced step by step: {best * 1000:.1f} ms")


if __name__ == "__main__":
    main()
