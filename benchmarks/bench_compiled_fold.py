"""Would a compiled fold meet issue 40's replay row? The same source compiled with mypyc, timed
beside the interpreted one, in one run.

The row asks `Encounter.open` from zero for at most 1.2x its format's floor (decoding and hashing
every line). That leaves the fold and every check about a third of a microsecond an event, and
CPython's fold takes several times that. The usual way out for a pure-Python hot path is to compile
that very source with mypyc, as black and mypy ship themselves: no second fold to keep in step with
`evolve`. This script measures what that buys here. It lays the package out under its import names
in a temporary folder (copies of the source files), compiles the fold's two modules there
(projections/timeline.py and core/fold/evolve.py; needs gcc and the Python headers), and times
`Timeline.extend` and `Encounter.open` on the same log lines under `python -O`, in child
processes that alternate between the interpreted and the compiled package.

One change is made to the copy before it is compiled: `Timeline` is marked a non-native class
(`mypyc_attr(native_class=False)`), because the snapshot code keeps a weak reference to a timeline
and mypyc's native classes can't take one. The fold's loop is a method, compiled either way.

Printed: per event, the best of --repeat runs of each (CPU time), the floor (decode + hash), each
open against the floor, and the compiled against the interpreted.

Run: .venv/bin/python benchmarks/bench_compiled_fold.py [--events 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMPILED = ("tabletrail/projections/timeline.py", "tabletrail/core/fold/evolve.py")


def lay_out(into: Path) -> None:
    """Copy every module under its import path (pyproject's package-dir), package data left out."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for name, folder in config["tool"]["setuptools"]["package-dir"].items():
        target = into.joinpath(*name.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for source in sorted((ROOT / folder).glob("*.py")):
            shutil.copy(source, target / source.name)


def non_native_timeline(path: Path) -> None:
    """Mark `Timeline` a non-native class in the copy (see the module's docstring)."""
    text = path.read_text(encoding="utf-8")
    marked = text.replace("\nclass Timeline:", "\n@mypyc_attr(native_class=False)\nclass Timeline:", 1)
    attr = "\nimport msgspec\nfrom mypy_extensions import mypyc_attr\n"
    marked = marked.replace("\nimport msgspec\n", attr, 1)
    if marked.count("mypyc_attr") != 2:
        sys.exit(f"{path}: cannot find `class Timeline:` and `import msgspec` to mark; update this script")
    path.write_text(marked, encoding="utf-8")


def compile_copy(src: Path) -> float:
    """mypyc over the fold's modules in the copy; the wall time it took."""
    non_native_timeline(src / COMPILED[0])
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mypyc", *COMPILED], cwd=src, capture_output=True, text=True, check=False
    )
    if done.returncode:
        sys.exit(f"mypyc failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return time.perf_counter() - began


def child(lines_path: Path, repeat: int) -> None:
    """One side's figures (this process's own package), as one JSON document on stdout."""
    from tabletrail.core.fold import evolve
    from tabletrail.events.stores.chain import line_hashes
    from tabletrail.events.stores.memory import MemoryStore
    from tabletrail.events.stores.record import decode_many
    from tabletrail.projections import timeline
    from tabletrail.service.encounter import Encounter

    lines = lines_path.read_bytes().splitlines()
    records = decode_many(lines, str)

    def best(fn) -> float:  # noqa: ANN001
        times = []
        for _ in range(repeat):
            began = time.process_time()
            kept = fn()
            times.append(time.process_time() - began)
            del kept  # freed untimed
        return min(times)

    def extended() -> object:
        folded = timeline.Timeline()
        folded.extend(records)
        return folded

    gc.disable()  # as Encounter.open folds: the cyclic collector paused
    floor = best(lambda: decode_many(lines, str)) + best(lambda: line_hashes(lines))
    fold = best(extended)
    gc.enable()
    opened = best(lambda: Encounter.open(MemoryStore(lines), clock=lambda: "2026-11-29T00:00:00+00:00"))
    n = len(lines)
    print(
        json.dumps(
            {
                "modules": " + ".join(Path(m.__file__ or "").name for m in (timeline, evolve)),
                "floor": floor / n * 1e6,
                "fold": fold / n * 1e6,
                "open": opened / n * 1e6,
            }
        )
    )


def run_side(lines_path: Path, repeat: int, src: Path | None) -> dict[str, float | str]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)  # ahead of the editable install's finder
    done = subprocess.run(
        [sys.executable, "-O", __file__, "--child", str(lines_path), "--repeat", str(repeat)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        sys.exit(f"a child failed:\n{done.stderr[-3000:]}")
    figures: dict[str, float | str] = json.loads(done.stdout)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3, help="child runs of each side, alternated")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.repeat)
        return
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_log import fresh, play

    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        lines_path = work / "log.jsonl"
        lines = list(play(fresh(), args.events).store.lines)
        lines_path.write_bytes(b"\n".join(lines))
        src = work / "src"
        lay_out(src)
        took = compile_copy(src)
        sides: dict[str, list[dict[str, float | str]]] = {"interpreted": [], "compiled": []}
        for _ in range(args.rounds):
            sides["interpreted"].append(run_side(lines_path, args.repeat, None))
            sides["compiled"].append(run_side(lines_path, args.repeat, src))
    n = len(lines)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"the fold compiled with mypyc ({took:.0f} s to build) against the same source interpreted,")
    print(f"python -O, {n:,} events, CPU time per event, best of {args.rounds} runs x {args.repeat}:")
    best: dict[str, dict[str, float]] = {}
    for side, runs in sides.items():
        modules = {str(run["modules"]) for run in runs}
        best[side] = {key: min(float(run[key]) for run in runs) for key in ("floor", "fold", "open")}
        b = best[side]
        print(
            f"  {side:<11} fold (Timeline.extend) {b['fold']:.2f} us, open {b['open']:.2f} us "
            f"= {b['open'] / b['floor']:.2f}x its floor ({b['floor']:.2f} us)  [{', '.join(sorted(modules))}]"
        )
    i, c = best["interpreted"], best["compiled"]
    print(f"  compiled / interpreted: fold {c['fold'] / i['fold']:.2f}x, open {c['open'] / i['open']:.2f}x")
    print(f"  the row's target: open <= 1.2x the floor; load average {load}")


if __name__ == "__main__":
    main()
