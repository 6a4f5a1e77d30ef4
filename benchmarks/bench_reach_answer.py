"""How big and how slow is one `GET /api/reach` on an open N x N map? (issue 28, item 12)

An open speed-meters floor of N x N spaces with one fighter whose Speed covers
the whole map (every space is within its budget): the worst answer a player's
click on a token can ask for. Each size runs in a process of its own, so its
peak resident memory is that request's alone. Printed per size: the answer's
bytes, the request's wall time (the first on the map, which prices every step once, and
the next, which reads the kept prices), the CPU seconds the process spent on each (the
server and the test client share it: on a shared machine the wall time mostly measures the
neighbours), the process's peak RSS, and how many cells and route steps the answer holds
(the routes as the compact tree of steps).

Targets (issue 40): on a 200x200 map the first request <= 0.5 s and the answer <= 3 MB.
The server's start-up import of numpy and scipy (`warm_up`, as `serve` runs it) is paid
before the clock starts. --declare: the speed-meters walker declares
`prices_read_two_cells = ends_read_one_cell = True` for the run (core/search/step_table.py).
The load average is printed before and after.

Run: .venv/bin/python benchmarks/bench_reach_answer.py [--sizes 50 100 200] [--declare]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def one(size: int, declare: bool) -> dict[str, float]:
    """Serve one log with an N x N open map and time a player's reach of its fighter."""
    import tomllib

    from tabletrail.core.search.reach import warm_up

    warm_up()  # as `serve` does at start-up: numpy and scipy are loaded before any request
    if declare:
        from tabletrail.core.rulesets.speed_meters.steps import _Walking

        _Walking.prices_read_two_cells = _Walking.ends_read_one_cell = True  # type: ignore[attr-defined]

    from starlette.testclient import TestClient
    from tabletrail.events.scenario.reader import parse_scenario
    from tabletrail.events.stores.jsonl import JsonlStore
    from tabletrail.service.encounter import Encounter
    from tabletrail.web.invites import Invites, encounter_key, keep_for
    from tabletrail.web.server import create_app

    rows = ", ".join(f'"{"." * size}"' for _ in range(size))
    toml = f"""
[encounter]
name = "Open floor"
ruleset = "speed-meters"
seed = 1
[map]
rows = [{rows}]
[map.legend]
"." = "floor"
[[fighters]]
id = "ari"
side = "blue"
at = [0, 0]
speed = {size * 2}
"""
    folder = Path(tempfile.mkdtemp())
    store = JsonlStore(folder / "open.jsonl", durable=False)
    Encounter.create(store, parse_scenario(tomllib.loads(toml), source="bench"))
    token = Invites(keep_for(folder / "open.jsonl", store), encounter_key(store)).make("blue")[1]
    client = TestClient(create_app(folder / "open.jsonl"), base_url="http://127.0.0.1")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start, cpu = time.perf_counter(), time.process_time()
    answer = client.get("/api/reach?fighter=ari", headers={"Authorization": f"Bearer {token}"})
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert answer.status_code == 200, answer.text
    start = time.perf_counter()  # the same map again: the step prices are kept (core/search/step_table.py)
    again_cpu = time.process_time()
    client.get("/api/reach?fighter=ari", headers={"Authorization": f"Bearer {token}"})
    again, again_cpu = time.perf_counter() - start, time.process_time() - again_cpu
    data = answer.json()
    return {
        "size": size,
        "bytes": len(answer.content),
        "seconds": round(seconds, 3),
        "again": round(again, 3),
        "cpu": round(cpu, 3),
        "again_cpu": round(again_cpu, 3),
        "peak_rss_mb": round(peak / 1024, 1),
        "rss_growth_mb": round((peak - before) / 1024, 1),
        "cells": len(data["cells"]),
        "tree_steps": len(data.get("tree", {}).get("steps", [])),
        "routes_listed": len(data.get("routes") or {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200])
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--declare", action="store_true", help="the walker declares what it reads")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.declare)))
        return
    if args.declare:
        print(
            "the speed-meters walker declares prices_read_two_cells = ends_read_one_cell = True (--declare)"
        )
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (start)")
    head = f"{'N':>5} {'bytes':>12} {'seconds':>8} {'again':>7} {'cpu':>6} {'again':>6}"
    head += f" {'peak MB':>8} {'+MB':>7}"
    print(head + f" {'cells':>7} {'steps':>7} {'routes':>7}")
    for size in args.sizes:
        flags = ["--declare"] if args.declare else []
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(size), *flags], capture_output=True, text=True
        )
        if out.returncode:
            print(f"{size:>5} failed: {out.stderr.strip().splitlines()[-1]}")
            continue
        r = json.loads(out.stdout)
        print(
            f"{r['size']:>5} {r['bytes']:>12,} {r['seconds']:>8} {r['again']:>7} {r['cpu']:>6}"
            f" {r['again_cpu']:>6} {r['peak_rss_mb']:>8}"
            f" {r['rss_growth_mb']:>7}"
            f" {r['cells']:>7} {r['tree_steps']:>7} {r['routes_listed']:>7}"
        )
        if size == 200:
            met = r["seconds"] <= 0.5 and r["bytes"] <= 3_000_000
            print(f"      target 200x200: first <= 0.5 s and <= 3 MB: {'met' if met else 'NOT met'}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (end)")


if __name__ == "__main__":
    main()
