"""What the phone view's GET /api/actions costs to answer: one fighter's buttons (every verb of its
ruleset dry-run by the engine, their places found and tried) and the reactions awaited.

Prints the median CPU time of `actions.answer` per ruleset's shipped scenario, for the fighter whose
turn it is, the GM's link and the fighter's own side's, against the reachable area alone (which the
move button needs and /api/reach already pays) in the same run. Figures, not assertions.

    .venv/bin/python benchmarks/bench_actions.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import time
import tomllib
from functools import partial
from pathlib import Path

from tabletrail.core.search.reach import reach
from tabletrail.events.scenario.reader import parse_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.service.encounter import Encounter
from tabletrail.web import actions

SCENARIOS = Path(__file__).parents[1] / "scenarios"


def cpu(fn: object, repeat: int) -> float:
    """The median CPU seconds of `fn()` over `repeat` calls."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()  # type: ignore[operator]
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    head = f"{'scenario':<34} {'cells':>6} {'verbs':>5} {'gm ms':>7} {'side ms':>8} {'reach ms':>9}"
    print(f"{head} {'ratio':>6}")
    for path in sorted(SCENARIOS.glob("*.toml")):
        scenario = parse_scenario(tomllib.loads(path.read_text()), source=str(path))
        enc = Encounter.create(MemoryStore(), scenario)
        fid = enc.state.turn.active or enc.state.fighters[0].id
        side = enc.state.fighter(fid).side  # type: ignore[union-attr]
        actions.answer(enc, "gm", fid)  # the ruleset's verbs read once, the step prices kept
        verbs = len(actions.answer(enc, side, fid)["actions"])
        gm = cpu(partial(actions.answer, enc, "gm", fid), args.repeat)
        mine = cpu(partial(actions.answer, enc, side, fid), args.repeat)
        area = cpu(partial(reach, enc.state, fid), args.repeat)
        cells = enc.state.grid.width * enc.state.grid.height
        ratio = mine / area if area else float("inf")
        print(
            f"{path.name:<34} {cells:>6} {verbs:>5} {gm * 1000:>7.1f} {mine * 1000:>8.1f} "
            f"{area * 1000:>9.2f} {ratio:>6.1f}"
        )


if __name__ == "__main__":
    main()
