"""The event list a page fetches after every move (issue 40, item 2): the whole list against `?after=V`.

For each log length (bench_log.py's generated speed-meters log, every line a real command's), a
few more moves are played, and after each the server makes, for the GM's link and a player's
(blue), what a page asks for, exactly as `GET /api/events` makes it (api_audit.answer, encoded,
gzipped at level 6):

- whole:   the whole list, as every page fetched it after each move before;
- after=V: what changed since the version the page held (the move's lines, statuses changed);
- newest:  the newest page (`?limit=200`), what a page opened fresh reads first.

Printed: the bytes sent (gzipped, and plain) and the server's CPU ms to make each (median over
the moves), in one run, with the load average. Target: after=V <= 2 KB for one move at any
length, its CPU flat in the log's length. The side's caches (ruled batches, the whys scrubbed)
are warm, as on a serving table: the first answer of a table reads them once.

Run: .venv/bin/python benchmarks/bench_events.py [--events 1000 10000 100000] [--moves 5]
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import msgspec
from tabletrail.events.commands import EndTurn, Move
from tabletrail.service.encounter import Encounter
from tabletrail.web.api.audit import PAGE, WHOLE, Part, answer
from tabletrail.web.invites import GM, Invite

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_log import fresh, must, play  # noqa: E402  (the generator, beside this script)

WHO = [Invite(id=role, role=role, digest="", made=0.0) for role in (GM, "blue")]


def made(who: Invite, enc: Encounter, part: Part) -> tuple[int, int, float]:
    """The gzipped bytes, plain bytes and CPU seconds of one answer, made as api_audit.listed makes it."""
    c0 = time.process_time()
    plain = msgspec.json.encode(answer(who, enc, part))
    zipped = gzip.compress(plain, 6)
    return len(zipped), len(plain), time.process_time() - c0


def one_move(enc: Encounter) -> None:
    """The fighter to act walks 5 m there or back (as bench_log plays)."""
    fighter = enc.state.fighter(enc.state.turn.active)
    assert fighter is not None
    x, y = fighter.pos[0], fighter.pos[1]
    must(enc, Move(fighter=fighter.id, path=((1 if x == 6 else 6, y),)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[1_000, 10_000, 100_000], help="log lengths")
    parser.add_argument("--moves", type=int, default=5, help="moves measured at each length")
    args = parser.parse_args()
    print(f"load  {load()} (1, 5, 15 min) on {os.cpu_count()} cores, at the start")
    print(f"{'events':>8} {'side':>5} {'asked':>8} {'gzipped':>10} {'plain':>12} {'CPU ms':>9}")
    for n in args.events:
        enc = play(fresh(), n)
        must(enc, EndTurn())
        for who in WHO:
            answer(who, enc, WHOLE)  # the side's caches, as a serving table holds them
        figures: dict[tuple[str, str], list[tuple[int, int, float]]] = {}
        for _ in range(args.moves):
            held = len(enc.records)
            one_move(enc)
            for who in WHO:
                for name, part in (
                    ("whole", WHOLE),
                    ("after=V", Part(after=held)),
                    ("newest", Part(limit=PAGE)),
                ):
                    figures.setdefault((who.role, name), []).append(made(who, enc, part))
            must(enc, EndTurn())  # not measured: the next move is the other fighter's
        for (role, name), runs in figures.items():
            gz, plain, cpu = (statistics.median(r[i] for r in runs) for i in range(3))
            sizes = f"{fmt_bytes(gz):>10} {fmt_bytes(plain):>12}"
            print(f"{len(enc.records):>8,} {role:>5} {name:>8} {sizes} {cpu * 1e3:>9.2f}")
    print(f"load  {load()} (1, 5, 15 min) at the end")


def fmt_bytes(size: Any) -> str:
    return f"{size / 1e3:,.1f} KB" if size < 1e6 else f"{size / 1e6:,.2f} MB"


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
