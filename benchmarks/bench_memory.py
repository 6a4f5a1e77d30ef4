"""Memory an open encounter holds, per event, on a database store (issue 29).

The log of bench_log.py (every line from executing a real command), imported into
SQLite without snapshots, then opened by folding every line (`snapshots=False`, the
worst case: a snapshot open holds less). Measured with tracemalloc (bytes, not time:
the same on a loaded machine): what the open encounter holds once open, and the peak
while it opens, both per event, and as a multiple of the log's own bytes.

Two ways, same run:
- as before issue 29: every record kept decoded in memory (the trimming turned off);
- today: the latest app/service/encounter.py KEEP records decoded, the older ones read back from
  the database when asked (app/service/lazy_records.py), and what the timeline keeps of their batches
  (command, actor, first seq) packed into bytes (projections/timeline.py `Packed`); the
  timeline still holds the board before and after every batch (states share structure), so
  undo stays O(1) at any depth.
Then the first and last records read back and an undo, to show they still answer.

Target: <= 0.3 KB held per event.

Run: .venv/bin/python benchmarks/bench_memory.py [--events 100000]
"""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
import tempfile
import tracemalloc
from pathlib import Path

from tabletrail.events.commands import Undo
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.snapshot import same_state
from tabletrail.service.encounter import KEEP, Encounter

sys.path.insert(0, str(Path(__file__).parent))
from bench_log import CLOCK, fresh, play  # noqa: E402


def measured(db: Path, trimmed: bool) -> tuple[Encounter, int, int]:
    """Open a copy of the log; (the encounter, bytes it holds, peak bytes while opening)."""
    copy = db.with_name(f"{'today' if trimmed else 'before'}.db")  # each way undoes on its own copy
    shutil.copyfile(db, copy)
    db = copy
    real = Encounter._trim
    if not trimmed:
        Encounter._trim = lambda self: None  # type: ignore[method-assign]
    try:
        gc.collect()
        tracemalloc.start()
        enc = Encounter.open(SqliteStore(db, durable=False), clock=lambda: CLOCK, snapshots=False)
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    finally:
        Encounter._trim = real  # type: ignore[method-assign]
    return enc, held, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    args = parser.parse_args()
    lines = list(play(fresh(), args.events).store.lines)
    n, size = len(lines), sum(map(len, lines))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "long.db"
        store = SqliteStore(db, durable=False, snapshot_every=0)
        store.create(lines)
        store.close()
        print(f"{n:,} events, {size / n:.0f} bytes a line, SQLite, opened folding every line (tracemalloc)")
        answers = []
        ways = (("every record decoded (before)", False), (f"latest {KEEP} decoded (today)", True))
        for label, trimmed in ways:
            enc, held, peak = measured(db, trimmed)
            print(
                f"  {label:<32} held {held / n / 1000:5.2f} KB/event ({held / size:4.2f}x the log), "
                f"peak {peak / n / 1000:5.2f} KB/event ({peak / 1e6:,.0f} MB)"
            )
            answers.append((enc.records[0], enc.records[-1], enc.records[n // 2]))
            enc.execute(Undo(), "undo")
            answers.append(enc.state)
            enc.store.close()
            del enc
        same = answers[0] == answers[2] and same_state(answers[1], answers[3])
        print(f"  same records read back and same board after an undo: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
