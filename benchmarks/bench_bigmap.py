"""How does a big map cost? `tabletrail new` + `show` on a 1000x1000 map against 100x100, same run.

Each size gets a seeded scenario file of mixed terrain (floor, rough, 1 m
platforms, walls) with two fighters, then the real CLI runs `new` (validate,
write the JSONL log) and `show` (open the log, fold it, draw the board), each
in its own process, as a table would. Printed per size: wall time and CPU time
of new + show, and the largest resident memory of those processes. The 1000x1000
figure is also given as a multiple of the 100x100 one (100x the cells).

Targets (issue 16): new + show of 1000x1000 <= 3 s, and <= 20x the 100x100 figure.

Run: .venv/bin/python benchmarks/bench_bigmap.py [--sizes 100 1000]
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOML = """[encounter]
name = "big map {n}"
ruleset = "speed-meters"

[map]
rows = [
{rows}
]
[map.legend]
"#" = "wall"
"." = "floor"
"~" = "rough"
"^" = {{ terrain = "floor", ground = 1 }}

[[fighters]]
id = "a"
side = "blue"
at = [1, 1]
speed = 6

[[fighters]]
id = "b"
side = "red"
at = [3, 1]
speed = 6
"""


def scenario(n: int, seed: int = 5) -> str:
    rnd = random.Random(seed)
    rows = []
    for y in range(n):
        if y in (0, n - 1):
            rows.append("#" * n)
        elif y == 1:
            rows.append("#" + "." * (n - 2) + "#")
        else:
            rows.append("#" + "".join(rnd.choice("....~~^#") for _ in range(n - 2)) + "#")
    return TOML.format(n=n, rows=",\n".join(f'  "{r}"' for r in rows))


def run(*args: str) -> tuple[float, float, int]:
    """Wall seconds and CPU seconds of one CLI process, and the peak resident memory so far (KiB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tabletrail", *args], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"tabletrail {' '.join(args)} failed: {done.stderr or done.stdout}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    args = parser.parse_args()
    figures: dict[int, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sorted(args.sizes):  # smallest first: peak memory only grows
            toml, log = Path(tmp, f"m{n}.toml"), Path(tmp, f"m{n}.jsonl")
            toml.write_text(scenario(n))
            w_new, c_new, _ = run("new", str(toml), "--log", str(log))
            w_show, c_show, peak = run("show", str(log))
            figures[n] = (w_new + w_show, c_new + c_show)
            print(
                f"{n}x{n}: new {w_new:6.2f} s + show {w_show:6.2f} s = {w_new + w_show:6.2f} s wall "
                f"({c_new + c_show:5.2f} s CPU); peak memory {peak / 1024:6.1f} MiB; log "
                f"{log.stat().st_size / 1e6:.1f} MB"
            )
    small, big = min(figures), max(figures)
    if small != big:
        (ws, cs), (wb, cb) = figures[small], figures[big]
        print(
            f"{big}x{big} / {small}x{small}: {wb / ws:5.1f}x wall, {cb / cs:5.1f}x CPU "
            f"(target <= 20x; {(big // small) ** 2}x the cells); target {big}x{big} <= 3 s: "
            f"{'met' if wb <= 3 else 'NOT met'} by wall time, {'met' if cb <= 3 else 'NOT met'} by CPU time"
        )


if __name__ == "__main__":
    main()
