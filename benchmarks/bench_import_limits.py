"""How long `import-map` takes to refuse a file whose walls are past its limits (issue 28, item 6).

Builds the issue's files in memory: N wall polylines of P points each, zig-zagging across a
100 x 100 map (1,000 x 50 is 2.5 MB and used to snap for about a minute before being refused for
too many walls; 3,000 x 50 ran past two minutes). Prints the wall time of `events/uvtt.convert`
until its refusal, and the refusal. No timing is asserted.

    .venv/bin/python benchmarks/bench_import_limits.py [--walls 1000 3000] [--points 50]
"""

from __future__ import annotations

import argparse
import json
import time

from tabletrail.events.errors import InputError
from tabletrail.events.maps.uvtt import convert


def build(walls: int, points: int, size: int = 100) -> bytes:
    lines = [
        [{"x": (j * 37 + i) % size, "y": (j * 53 + 2 * i) % size} for j in range(points)]
        for i in range(walls)
    ]
    doc = {
        "resolution": {
            "map_origin": {"x": 0, "y": 0},
            "map_size": {"x": size, "y": size},
            "pixels_per_grid": 70,
        },
        "line_of_sight": lines,
    }
    return json.dumps(doc).encode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--walls", type=int, nargs="+", default=[1_000, 3_000])
    ap.add_argument("--points", type=int, default=50)
    args = ap.parse_args()
    for walls in args.walls:
        data = build(walls, args.points)
        start = time.perf_counter()
        try:
            convert(data, ruleset="speed-meters", source="big.dd2vtt", name="big", picture_stem="big")
            said = "converted"
        except InputError as exc:
            said = f"refused: {exc}"
        took = time.perf_counter() - start
        print(f"{walls:,} walls x {args.points} points ({len(data) / 1e6:.1f} MB): {took:.2f} s; {said}")


if __name__ == "__main__":
    main()
