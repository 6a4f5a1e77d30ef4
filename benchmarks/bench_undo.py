"""The first undo after an encounter is opened from its snapshot, on long logs (issue 29).

An encounter of --events events (bench_store.py's generator: real commands on the
skirmish scenario, moves, end-turns, undos and redos) is imported into SQLite with a
snapshot every --every events (fold_with_snapshots, as `tabletrail repair` does), the
newest one at the log's end. Each trial copies the database, opens it from that
snapshot and times one `Encounter.execute(Undo())` (decide, append, fold).

Two ways, alternating trial by trial so both see the same load:
- today: the snapshot carries the board before its latest batch (projections/snapshot.py
  `prior`), so the undo folds nothing;
- as before issue 29: the same open with that board dropped from the timeline, so the
  undo folds it from the snapshot before (History.state_at), as every older snapshot did.

Printed per length: the median CPU ms of each, and how many records each undo folded
(counted, not timed: the deterministic figure). Target: <= 5 ms at any length.

Run: .venv/bin/python benchmarks/bench_undo.py [--events 10000 100000] [--every 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tabletrail.events.commands import Undo
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.snapshot import FORMAT
from tabletrail.projections.timeline import Timeline
from tabletrail.service.encounter import Encounter, fold_with_snapshots

sys.path.insert(0, str(Path(__file__).parent))
from bench_store import clock, generate  # noqa: E402


def trial(db: Path, folder: Path, old: bool) -> tuple[float, int]:
    """One first undo on a fresh copy: (CPU ms, records folded to find its board)."""
    copy = folder / "copy.db"
    shutil.copyfile(db, copy)
    enc = Encounter.open(SqliteStore(copy, durable=False), clock=clock)
    if old:  # what a snapshot without `prior` gave: the board is fetched when the undo asks
        target = enc.timeline.undo_target()
        enc.timeline.before._data.pop(target, None)  # type: ignore[attr-defined]
    folded = 0
    real = Timeline.apply

    def counting(self: Timeline, record) -> None:  # noqa: ANN001
        nonlocal folded
        folded += 1
        real(self, record)

    Timeline.apply = counting  # type: ignore[method-assign]
    try:
        t0 = time.process_time()
        enc.execute(Undo(), "undo")
        ms = (time.process_time() - t0) * 1000
    finally:
        Timeline.apply = real  # type: ignore[method-assign]
    enc.store.close()
    return ms, folded - 1  # the undo's own record is folded too


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(
        f"first undo after a snapshot open, SQLite, a snapshot every {args.every} events, "
        f"CPU ms, median of {args.repeat}"
    )
    print(f"{'events':>9} {'before (refold)':>16} {'folded':>7} {'today':>9} {'folded':>7}")
    for events in args.events:
        lines = generate(events)
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            db = folder / "long.db"
            _, snapshots = fold_with_snapshots(MemoryStore(lines), args.every)
            store = SqliteStore(db, durable=False, snapshot_every=args.every)
            store.create(lines)
            store.save_snapshots(FORMAT, snapshots)
            store.close()
            times: dict[bool, list[float]] = {True: [], False: []}
            folded: dict[bool, int] = {}
            for _ in range(args.repeat):
                for old in (True, False):
                    ms, folded[old] = trial(db, folder, old)
                    times[old].append(ms)
        print(
            f"{len(lines):>9,} {statistics.median(times[True]):>13.1f} ms {folded[True]:>7} "
            f"{statistics.median(times[False]):>6.1f} ms {folded[False]:>7}"
        )


if __name__ == "__main__":
    main()
