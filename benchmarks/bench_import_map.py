"""How long `tabletrail import-map` takes on the largest map a scenario may hold.

Builds one Universal VTT file in memory: a 200 x 200 cell map (MAX_MAP_CELLS), a grid of
orthogonal rooms, ragged caves of short segments (as Dungeondraft writes them), portals,
and a picture of a given size in bytes (a PNG header and filler: only its header is read,
the rest is decoded from base64 and copied). Prints the conversion's CPU and wall time
(`events/uvtt.convert`, the same process) and the whole verb's wall time in a process of
its own, writing the scenario and the picture. No timing is asserted.

    .venv/bin/python benchmarks/bench_import_map.py [--side 200] [--caves 200] [--points 400]
        [--picture-mb 20]
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import random
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from tabletrail.events.maps.uvtt import convert


def fake_png(width: int, height: int, size: int) -> bytes:
    """A PNG signature and header followed by `size` bytes of filler: what the importer reads of a picture."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    ihdr = struct.pack(">I", 13) + b"IHDR" + header + struct.pack(">I", zlib.crc32(b"IHDR" + header))
    return b"\x89PNG\r\n\x1a\n" + ihdr + random.Random(1).randbytes(size)


def build(side: int, caves: int, points: int, picture_mb: float) -> bytes:
    rng = random.Random(2026)
    lines = []
    for k in range(0, side, 10):  # rooms: walls every 10 cells both ways
        lines.append([{"x": k, "y": 0}, {"x": k, "y": side}])
        lines.append([{"x": 0, "y": k}, {"x": side, "y": k}])
    for _ in range(caves):  # ragged loops of short segments
        cx, cy, r = rng.uniform(10, side - 10), rng.uniform(10, side - 10), rng.uniform(2, 8)
        loop = []
        for i in range(points + 1):
            a = 2 * math.pi * i / points
            wobble = r * (1 + 0.15 * math.sin(7 * a) + rng.uniform(-0.05, 0.05))
            loop.append({"x": round(cx + wobble * math.cos(a), 3), "y": round(cy + wobble * math.sin(a), 3)})
        loop[-1] = loop[0]
        lines.append(loop)
    portals = [
        {
            "position": {"x": k, "y": j + 0.5},
            "bounds": [{"x": k, "y": j}, {"x": k, "y": j + 1}],
            "rotation": math.pi / 2,
            "closed": True,
            "freestanding": False,
        }
        for k in range(10, side, 10)
        for j in range(5, side, 10)
    ]
    ppg = 70
    image = fake_png(side * ppg, side * ppg, int(picture_mb * 1_000_000))
    doc = {
        "format": 0.3,
        "resolution": {
            "map_origin": {"x": 0, "y": 0},
            "map_size": {"x": side, "y": side},
            "pixels_per_grid": ppg,
        },
        "line_of_sight": lines,
        "objects_line_of_sight": [],
        "portals": portals,
        "lights": [],
        "image": base64.b64encode(image).decode("ascii"),
    }
    return json.dumps(doc).encode("utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--side", type=int, default=200, help="cells a side (200 x 200 is MAX_MAP_CELLS)")
    ap.add_argument("--caves", type=int, default=200, help="ragged cave loops")
    ap.add_argument("--points", type=int, default=400, help="points per cave loop")
    ap.add_argument("--picture-mb", type=float, default=20.0, help="the picture's size in MB")
    ap.add_argument("--repeat", type=int, default=3, help="conversions timed in this process (best kept)")
    args = ap.parse_args()
    data = build(args.side, args.caves, args.points, args.picture_mb)
    segments = args.caves * args.points + 2 * len(range(0, args.side, 10))
    print(f"file: {len(data) / 1e6:.1f} MB, {args.side} x {args.side} cells, {segments:,} wall segments")
    best_cpu = best_wall = math.inf
    for _ in range(args.repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        got = convert(data, ruleset="speed-meters", source="bench.dd2vtt", name="bench", picture_stem="bench")
        best_cpu = min(best_cpu, time.process_time() - c0)
        best_wall = min(best_wall, time.perf_counter() - w0)
    r = got.report
    print(
        f"convert: {best_cpu:.2f} s CPU, {best_wall:.2f} s wall (best of {args.repeat}); "
        f"{r.walls:,} wall segments on {r.wall_edges:,} edges, "
        f"{r.diagonal:,} diagonal segments as staircases, "
        f"{r.points_simplified:,} points simplified, {r.doors:,} doors"
    )
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "bench.dd2vtt"
        source.write_bytes(data)
        w0 = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "tabletrail",
                "import-map",
                str(source),
                "--ruleset",
                "speed-meters",
                "-o",
                str(Path(folder) / "bench.toml"),
            ],
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - w0
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            sys.exit(1)
        scenario = (Path(folder) / "bench.toml").stat().st_size
        picture = (Path(folder) / "bench.png").stat().st_size
        print(
            f"tabletrail import-map (own process, writes both files): {wall:.2f} s wall; "
            f"scenario {scenario / 1e3:.0f} kB, picture {picture / 1e6:.1f} MB"
        )


if __name__ == "__main__":
    main()
