"""How long does one `tabletrail` command take, as a GM at the table waits for it?

Whole processes, the way a shell runs them: `tabletrail do LOG move …` on a
1,000-event SQLite encounter (a fresh copy of the same encounter each run, so
every run appends the same move to the same log), timed from spawn to exit,
many runs, median. In the same run, and interleaved with it so a loaded machine
weighs on both alike, the floor: `python -c "import msgspec, transitions"`, the
two libraries any command needs.

Targets (issue 15): `do` of a move <= 150 ms, and <= 2x the floor.

Every process runs with its bytecode cached, as an installed tabletrail runs:
the children get PYTHONPYCACHEPREFIX (a temporary folder) and never
PYTHONDONTWRITEBYTECODE, and each command runs once untimed first. Without that,
a shell that sets PYTHONDONTWRITEBYTECODE would time the compiling of ~60
modules on every run, which no GM at a table pays. The encounter is opened the
way `do` opens it, from its newest snapshot; the script prints which.

With --installed, the same measure is taken in a new venv holding a regular install
of this tree (`pip install .`, what a GM's copy is): a development venv's editable
finder adds ~20 ms to every process there, the floor's included.

Run: .venv/bin/python benchmarks/bench_cli.py [--runs 21] [--events 1000] [--installed]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabletrail.events.commands import EndTurn, Move
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.service.encounter import Encounter

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "speed-meters-skirmish.toml"
# The console script pip installs, as a GM types it (python -m tabletrail where there is none).
SCRIPT = Path(sys.executable).with_name("tabletrail")
TABLETRAIL = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "tabletrail"]


def generate(db: Path, events: int, seed: int = 1) -> str:
    """A played encounter of at least `events` events in SQLite; returns a move that is legal next."""
    enc = Encounter.create(SqliteStore(db), load_scenario(SCENARIO))
    rng = random.Random(seed)
    while len(enc.records) < events:
        f = enc.state.fighter(enc.state.turn.active)
        assert f is not None
        if rng.random() < 0.5:
            x = min(max(f.pos[0] + rng.randint(-1, 1), 1), 10)
            y = min(max(f.pos[1] + rng.randint(-1, 1), 1), 6)
            enc.execute(Move(fighter=f.id, path=((x, y),)), f"move {f.id} {x},{y}")
        else:
            enc.execute(EndTurn(), "end-turn")
    for _ in range(len(enc.state.fighters)):  # fresh turns until a fighter can take one step
        enc.execute(EndTurn(), "end-turn")
        f = enc.state.fighter(enc.state.turn.active)
        assert f is not None
        enc.store.close()  # type: ignore[attr-defined]  # checkpoints the WAL: a copy of the file is whole
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)):
            text = f"move {f.id} {f.pos[0] + dx},{f.pos[1] + dy}"
            if _legal(db, text):
                return text
        enc = Encounter.open(SqliteStore(db))
    raise SystemExit("no legal one-step move found")


def _legal(db: Path, text: str) -> bool:
    """Does `do` accept this move on a copy of the log? (Run once, untimed.)"""
    probe = db.with_name("probe.db")
    shutil.copy(db, probe)
    done = subprocess.run([*TABLETRAIL, "do", str(probe), *text.split()], capture_output=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{probe}{suffix}").unlink(missing_ok=True)
    return done.returncode == 0


def child_env(pycache: Path) -> dict[str, str]:
    """The children's environment: bytecode written once and reused, as an install has it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def opened_from(db: Path) -> str:
    """How `do` opens this encounter: from which snapshot, folding how many records after it."""
    enc = Encounter.open(SqliteStore(db))
    base = getattr(enc.records, "base", 0)
    if not base:
        return f"folding all {len(enc.records)} events (no snapshot used)"
    return f"from the snapshot at event {base}, folding the {len(enc.records) - base} events after it"


def timed(argv: list[str], prepare: object = None, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds from spawn to exit, CPU seconds the process used): the wait, and the work.

    The CPU time (user + system, from the children's resource usage) hardly moves when
    other jobs load the machine, so it says what a change saved when the wall time is noisy.
    """
    if callable(prepare):
        prepare()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def run_installed(runs: int, events: int) -> None:
    """This benchmark again, in a fresh venv holding a regular (not editable) install of this tree.

    A development venv (`pip install -e`) imports setuptools' editable finder, with pathlib and
    more, at every interpreter start: ~20 ms that the floor and every command pay alike, and that
    a GM's install does not have.
    """
    with tempfile.TemporaryDirectory(prefix="tabletrail-bench-venv-") as name:
        venv = Path(name) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python = venv / "bin" / "python"
        subprocess.run([str(python), "-m", "pip", "install", "-q", str(ROOT)], check=True)
        print(f"a regular install in {venv}")
        sys.stdout.flush()
        argv = [str(python), str(Path(__file__).resolve()), "--runs", str(runs), "--events", str(events)]
        subprocess.run(argv, check=True, cwd=name)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=21, help="runs of each command (median reported)")
    parser.add_argument("--events", type=int, default=1000, help="length of the encounter")
    parser.add_argument(
        "--installed",
        action="store_true",
        help="measure a regular install (pip install ., as a GM's copy) in a new venv, not this one",
    )
    args = parser.parse_args()
    if args.installed:
        run_installed(args.runs, args.events)
        return
    with tempfile.TemporaryDirectory(prefix="tabletrail-bench-cli-") as name:
        folder = Path(name)
        master, work = folder / "master.db", folder / "work.db"
        move = generate(master, args.events)
        events = len(Encounter.open(SqliteStore(master)).records)
        print(f"encounter: {events} events in SQLite; the command: do LOG {move}")
        print(f"opened {opened_from(master)}")
        env = child_env(folder / "pycache")

        def fresh() -> None:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{work}{suffix}").unlink(missing_ok=True)
            shutil.copy(master, work)

        commands = {
            "floor: python -c 'import msgspec, transitions'": (
                [sys.executable, "-c", "import msgspec, transitions"],
                None,
            ),
            f"do LOG {move}": ([*TABLETRAIL, "do", str(work), *move.split()], fresh),
            "show LOG": ([*TABLETRAIL, "show", str(master)], None),
            "log LOG": ([*TABLETRAIL, "log", str(master)], None),
            "explain LOG 500": ([*TABLETRAIL, "explain", str(master), "500"], None),
        }
        times: dict[str, list[float]] = {k: [] for k in commands}
        cpus: dict[str, list[float]] = {k: [] for k in commands}
        for argv, prepare in commands.values():  # untimed: writes the bytecode every later run reads
            timed(argv, prepare, env)
        for _ in range(args.runs):  # interleaved: load on the machine weighs on every command alike
            for label, (argv, prepare) in commands.items():
                wall, cpu = timed(argv, prepare, env)
                times[label].append(wall)
                cpus[label].append(cpu)
        medians = {k: statistics.median(v) for k, v in times.items()}
        cpu = {k: statistics.median(v) for k, v in cpus.items()}
        floor, cpu_floor = medians[next(iter(commands))], cpu[next(iter(commands))]
        for label, m in medians.items():
            spread = f"{min(times[label]) * 1000:.0f}-{max(times[label]) * 1000:.0f}"
            print(
                f"  {label:52s} median {m * 1000:6.0f} ms  ({spread} ms)  {m / floor:4.2f}x the floor;"
                f"  CPU {cpu[label] * 1000:4.0f} ms, {cpu[label] / cpu_floor:4.2f}x"
            )
        label = f"do LOG {move}"
        do = medians[label]
        print(
            f"do of a move: {do * 1000:.0f} ms (target <= 150 ms), {do / floor:.2f}x the floor "
            f"(target <= 2x), median of {args.runs}; CPU {cpu[label] * 1000:.0f} ms, "
            f"{cpu[label] / cpu_floor:.2f}x the floor's {cpu_floor * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
