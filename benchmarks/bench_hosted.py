"""Hosted tables on PostgreSQL (issue 17): many encounters, several writers, live fan-out, a long open.

Figures:

- append: --encounters encounters (default 200), --clients client processes
  (default 8) appending real batches through Encounter.execute (a move of the
  active fighter, else an end-turn) concurrently, each client its own share of
  the encounters: batches/s in total and p50/p99 latency of one append, on
  PostgreSQL (one database, one schema) and on SQLite (one file per encounter,
  durable settings), --rounds times in turns, and the median ratios; and the CPU one batch
  costs, the client process's and (PostgreSQL, on this machine) its server
  backend's: with 8 clients on 2 cores the run is CPU-bound, so the ratio of
  throughputs follows the ratio of CPU per batch more than any wait.
- cpu: the CPU one append costs, the client process's plus its server backend's (read from
  /proc/<pid>/stat of `pg_backend_pid()`), against its floor, a bare psycopg INSERT + COMMIT of
  the same bytes as one row (same server, same durability), one client, sides in turns, the
  least of --rounds rounds of --cpu-batches appends: PostgresStore.append alone (target <= 2x
  the floor) and a whole command through Encounter.execute (decide, encode, append, fold, and
  a refused move's row), each split into client and server, with the load average.
- fan-out: --streams live streams (default 50) spread over --servers `tabletrail
  serve URL` processes (default 4) sharing the database; one move posted to one of
  them; the time until every stream has the new version: p50/p99 over
  --moves moves (default 10) x every stream.
- open: an encounter of --events events (default 1,000,000) in PostgreSQL with a
  snapshot every --every events, opened from its newest snapshot (median of 5),
  against folding every line.
- fold: the same --events events in PostgreSQL and in SQLite, no snapshot in
  either, folded in turns (best of 2 each): both times and their ratio on one line.

Everything lives in a schema of its own, dropped at the end (other people may be
using the same server). Run from the repository root:

    .venv/bin/python benchmarks/bench_hosted.py [--database postgresql://postgres@127.0.0.1/test]
        [--encounters 200] [--clients 8] [--batches 20] [--rounds 3] [--streams 50] [--servers 4]
        [--events 1000000] [--cpu-batches 300] [--skip append,cpu,fanout,open,fold]
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import queue
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import psycopg
from bench_store import SCENARIO, batches_of, clock, generate
from tabletrail.events.commands import EndTurn, Move
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.stores.postgres_store import PostgresStore, parse_url
from tabletrail.events.stores.protocol import Store
from tabletrail.events.stores.sqlite_store import SqliteStore
from tabletrail.projections.board import view
from tabletrail.projections.snapshot import FORMAT
from tabletrail.service.encounter import Encounter, fold_with_snapshots
from tabletrail.web.invites import GM, Invites, encounter_key, keep_for

DEFAULT_DATABASE = "postgresql://postgres@127.0.0.1/test"


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def cpu_ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


# --- append: many encounters, many clients ----------------------------------------------------------


def make_store(kind: str, where: str, name: str) -> Store:
    if kind == "postgres":
        return PostgresStore(where, encounter=name)
    return SqliteStore(Path(where) / f"{name}.db")


def client(kind: str, where: str, names: list[str], batches: int, seed: int, go: Any, out: Any) -> None:
    """One client process: opens its encounters, waits for the start, then `batches` appends to each of
    them, round robin; sends back the latencies and when it finished."""
    rng = random.Random(seed)
    tables = [Encounter.open(make_store(kind, where, name), clock=clock) for name in names]
    server = backend(tables[0].store) if kind == "postgres" else None
    go.wait()
    cpu, served = client_cpu(), server_cpu(server)
    latencies = []
    for _ in range(batches):
        for enc in tables:
            f = enc.state.fighter(enc.state.turn.active)
            assert f is not None
            x = min(max(f.pos[0] + rng.randint(-1, 1), 1), 10)
            y = min(max(f.pos[1] + rng.randint(-1, 1), 1), 6)
            start = time.perf_counter()
            result = enc.execute(Move(fighter=f.id, path=((x, y),)), f"move {f.id} {x},{y}")
            if not isinstance(result, list):  # refused (nothing appended): end the turn instead
                start = time.perf_counter()
                enc.execute(EndTurn(), "end-turn")
            latencies.append(time.perf_counter() - start)
    out.put((latencies, time.time(), client_cpu() - cpu, server_cpu(server) - served))


def client_cpu() -> float:
    """CPU seconds this process has used (user + system)."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def backend(store: Store) -> int | None:
    """The process id of the PostgreSQL backend serving this client (one connection per process)."""
    row = store._one("reading", "SELECT pg_backend_pid()", ())  # type: ignore[attr-defined]
    return row[0] if row else None


def server_cpu(pid: int | None) -> float:
    """CPU seconds a backend on this machine has used (0 when the server is elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Appended(NamedTuple):
    rate: float  # batches/s
    p50: float  # seconds
    cpu: float  # CPU seconds a batch, client and server backend


def bench_append(kind: str, where: str, encounters: int, clients: int, batches: int, turn: int) -> Appended:
    """One round of one store: fresh encounters, `clients` processes appending; prints its lines."""
    scenario = load_scenario(SCENARIO)
    names = [f"round{turn}-table-{n:04d}" for n in range(encounters)]
    for name in names:
        Encounter.create(make_store(kind, where, name), scenario, clock=clock)
    spawn = multiprocessing.get_context("spawn")  # a forked child would share (and close) our connection
    out, go = spawn.Queue(), spawn.Barrier(clients + 1)
    procs = [
        spawn.Process(target=client, args=(kind, where, names[c::clients], batches, c, go, out))
        for c in range(clients)
    ]
    for p in procs:
        p.start()
    go.wait()  # every client has opened its encounters: the clock starts now
    start = time.time()
    latencies: list[float] = []
    ends = []
    cpu = served = 0.0
    for _ in procs:
        got, end, used, backend_used = out.get()
        latencies += got
        ends.append(end)
        cpu += used
        served += backend_used
    seconds = max(ends) - start
    for p in procs:
        p.join()
    rate = len(latencies) / seconds
    label = "PostgreSQL (one database)" if kind == "postgres" else "SQLite (one file per encounter)"
    print(
        f"  {label:34s} {rate:8.0f} batches/s  p50 {ms(pct(latencies, 50))}  p99 {ms(pct(latencies, 99))}"
        f"  ({len(latencies)} appends in {seconds:.1f} s)"
    )
    n = len(latencies)
    server_part = f", its server backend {cpu_ms(served / n)}" if kind == "postgres" else ""
    print(f"  {'':34s} CPU per batch: the client {cpu_ms(cpu / n)}{server_part}")
    return Appended(rate, pct(latencies, 50), (cpu + served) / n)


def floor_client(conninfo: str, table: str, rows: int, row: bytes, seed: int, go: Any, out: Any) -> None:
    """One client process of the floor: `rows` bare INSERT + COMMITs of the same bytes, on its own
    connection, timed as `client` times an append."""
    conn = psycopg.connect(conninfo)
    server = conn.info.backend_pid
    go.wait()
    cpu, served = client_cpu(), server_cpu(server)
    latencies = []
    for n in range(rows):
        start = time.perf_counter()
        floor_append(conn, table, seed * 10_000_000 + n, row)
        latencies.append(time.perf_counter() - start)
    out.put((latencies, time.time(), client_cpu() - cpu, server_cpu(server) - served))
    conn.close()


def bench_floor(database: str, clients: int, rows: int, turn: int) -> Appended:
    """The floor with `clients` processes: each `rows` bare INSERT + COMMITs of one batch's bytes."""
    where = parse_url(database)
    table = f'"{where.schema}".{FLOOR_TABLE}_{turn}'
    appended = batch_bytes()
    with psycopg.connect(where.conninfo, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (n BIGINT PRIMARY KEY, line BYTEA NOT NULL)")
    spawn = multiprocessing.get_context("spawn")
    out, go = spawn.Queue(), spawn.Barrier(clients + 1)
    procs = [
        spawn.Process(target=floor_client, args=(where.conninfo, table, rows, appended, c + 1, go, out))
        for c in range(clients)
    ]
    for p in procs:
        p.start()
    go.wait()
    start = time.time()
    latencies: list[float] = []
    ends = []
    cpu = served = 0.0
    for _ in procs:
        got, end, used, backend_used = out.get()
        latencies += got
        ends.append(end)
        cpu += used
        served += backend_used
    seconds = max(ends) - start
    for p in procs:
        p.join()
    rate, n = len(latencies) / seconds, len(latencies)
    print(
        f"  {'floor: bare INSERT + COMMIT':34s} {rate:8.0f} rows/s     p50 {ms(pct(latencies, 50))}  "
        f"p99 {ms(pct(latencies, 99))}  ({n} rows of {len(appended)} bytes in {seconds:.1f} s)"
    )
    print(f"  {'':34s} CPU per row: the client {cpu_ms(cpu / n)}, its server backend {cpu_ms(served / n)}")
    return Appended(rate, pct(latencies, 50), (cpu + served) / n)


def batch_bytes() -> bytes:
    """The bytes of a typical batch as a store keeps it (its lines, newline-joined): the median-sized
    batch of a played log."""
    groups = batches_of(generate(2000), 200)[1:]
    rows = sorted((b"\n".join(g) for g in groups), key=len)
    return rows[len(rows) // 2]


def bench_rounds(database: str, encounters: int, clients: int, batches: int, rounds: int) -> None:
    """PostgreSQL, its floor and SQLite in turns (a neighbour's load then weighs on all), and the median
    ratios: PostgreSQL against SQLite, and against the floor (bare INSERT + COMMIT, as many clients)."""
    ratios: list[tuple[float, float, float, float, float]] = []
    for turn in range(1, rounds + 1):
        print(f" round {turn}:")
        pg = bench_append("postgres", database, encounters, clients, batches, turn)
        floor = bench_floor(database, clients, batches * encounters // clients, turn)
        with tempfile.TemporaryDirectory() as folder:
            lite = bench_append("sqlite", folder, encounters, clients, batches, turn)
        ratios.append(
            (
                pg.rate / lite.rate,
                pg.p50 / lite.p50,
                pg.cpu / lite.cpu,
                pg.rate / floor.rate,
                pg.cpu / floor.cpu,
            )
        )
    rate, p50, cpu, to_floor, cpu_floor = (statistics.median(r[k] for r in ratios) for k in range(5))
    each = " ".join(f"{r[0]:.2f}" for r in ratios)
    print(
        f"  PostgreSQL / SQLite, median of {rounds} rounds: throughput {rate:.2f} (target >= 0.8; "
        f"rounds {each}), p50 {p50:.2f}x, CPU per batch {cpu:.2f}x"
    )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"  PostgreSQL commands / the floor, median of {rounds} rounds: throughput {to_floor:.2f}, "
        f"CPU per batch {cpu_floor:.2f}x (a command decides and folds too; load average {load})"
    )


# --- CPU per append against its floor: a bare INSERT + COMMIT of the same bytes ---------------------------

FLOOR_TABLE = "append_floor"


class Cpu(NamedTuple):
    """CPU seconds of one append: the client process's and its server backend's."""

    client: float
    server: float

    @property
    def total(self) -> float:
        return self.client + self.server

    def __str__(self) -> str:
        return f"{cpu_ms(self.total)} ({cpu_ms(self.client)} client + {cpu_ms(self.server)} server)"


def floor_append(conn: psycopg.Connection, table: str, n: int, row: bytes) -> None:
    """The floor: one row of the batch's bytes, INSERT then COMMIT, as psycopg does it bare."""
    conn.execute(f"INSERT INTO {table} (n, line) VALUES (%s, %s)", (n, row))
    conn.commit()


def per_append(pid: int | None, count: int, run: Callable[[], object]) -> Cpu:
    """CPU per append of `run` (which makes `count` appends): this process's and backend `pid`'s."""
    cpu, served = client_cpu(), server_cpu(pid)
    run()
    return Cpu((client_cpu() - cpu) / count, (server_cpu(pid) - served) / count)


def appends_cpu(database: str, lines: list[bytes], batches: int, rounds: int) -> tuple[Cpu, Cpu, Cpu]:
    """CPU per append, client + its server backend, least of `rounds` rounds each, sides in turns:
    PostgresStore.append of real batches; a whole command through Encounter.execute (decide, encode,
    append, fold, and a refused move's row: what a client pays); and the floor, one INSERT + COMMIT
    of the same bytes as one row. Prints each round; returns (store, command, floor)."""
    groups = batches_of(lines, batches * rounds)
    setup, rest = groups[0], groups[1:]
    name = f"cpu-{uuid.uuid4().hex[:8]}"
    store = PostgresStore(database, encounter=name, private=True)
    store.create(setup)
    version = len(setup)
    store_pid = backend(store)
    table_enc = Encounter.create(
        PostgresStore(database, encounter=f"{name}-played", private=True),
        load_scenario(SCENARIO),
        clock=clock,
    )
    played_pid = backend(table_enc.store)
    rng = random.Random(1)
    where = parse_url(database)
    table = f'"{where.schema}".{FLOOR_TABLE}'
    floor = psycopg.connect(where.conninfo)  # not autocommit: INSERT, then COMMIT
    floor.execute(f"CREATE TABLE IF NOT EXISTS {table} (n BIGINT PRIMARY KEY, line BYTEA NOT NULL)")
    floor.commit()
    floor_pid = floor.info.backend_pid
    size = statistics.mean(sum(map(len, g)) for g in rest)
    print(
        f"  {len(rest)} batches of {statistics.mean(map(len, rest)):.1f} records ({size:.0f} bytes) on "
        f"average, one client, {rounds} rounds of {batches} appends a side"
    )
    ours: list[Cpu] = []
    played: list[Cpu] = []
    bare: list[Cpu] = []
    counter = itertools.count(1)
    for turn in range(rounds):
        part = rest[turn * batches : (turn + 1) * batches]

        def appends(part: list[list[bytes]] = part) -> None:
            nonlocal version
            for group in part:
                store.append(group, expected=version)
                version += len(group)

        ours.append(per_append(store_pid, len(part), appends))
        played.append(
            per_append(played_pid, len(part), lambda part=part: [play_one(table_enc, rng) for _ in part])
        )
        bare.append(
            per_append(
                floor_pid,
                len(part),
                lambda part=part: [floor_append(floor, table, next(counter), b"\n".join(g)) for g in part],
            )
        )
        print(
            f"   round {turn + 1}: PostgresStore.append {cpu_ms(ours[-1].total)}, Encounter.execute "
            f"{cpu_ms(played[-1].total)}, bare INSERT + COMMIT {cpu_ms(bare[-1].total)}: "
            f"{ours[-1].total / bare[-1].total:.2f}x and {played[-1].total / bare[-1].total:.2f}x"
        )
    floor.close()
    store.close()
    table_enc.store.close()
    least = lambda runs: min(runs, key=lambda c: c.total)  # noqa: E731
    return least(ours), least(played), least(bare)


def play_one(enc: Encounter, rng: random.Random) -> None:
    """One command as a client of the append benchmark plays it: a move of the active fighter, else
    an end-turn (a refused move appends nothing but its refusal row)."""
    f = enc.state.fighter(enc.state.turn.active)
    assert f is not None
    x = min(max(f.pos[0] + rng.randint(-1, 1), 1), 10)
    y = min(max(f.pos[1] + rng.randint(-1, 1), 1), 6)
    if not isinstance(enc.execute(Move(fighter=f.id, path=((x, y),)), f"move {f.id} {x},{y}"), list):
        enc.execute(EndTurn(), "end-turn")


def bench_cpu(database: str, batches: int, rounds: int) -> None:
    """CPU per append (client + server backend) against its floor, same durability, same run."""
    lines = generate(20 * batches * rounds)
    ours, played, bare = appends_cpu(database, lines, batches, rounds)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"  CPU per append, client + server backend, least of {rounds} rounds (load average {load}):")
    print(f"    floor, bare INSERT + COMMIT         {bare}")
    print(
        f"    PostgresStore.append                {ours}  {ours.total / bare.total:.2f}x the floor "
        "(target <= 2x)"
    )
    print(f"    a command, Encounter.execute        {played}  {played.total / bare.total:.2f}x the floor")


# --- fan-out: one move, every open page told -------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def follow(base: str, token: str, got: queue.Queue, ready: threading.Barrier, stop: threading.Event) -> None:
    """One open page's live stream: put (arrival time, version) for every version it is told."""
    live = f"{base}/e/fanout/api/stream?seconds=3600&token={token}"
    try:
        with httpx.stream("GET", live, timeout=None) as stream:
            kind = ""
            first = True
            for line in stream.iter_lines():
                if stop.is_set():
                    return
                if line.startswith("event: "):
                    kind = line.removeprefix("event: ")
                elif line.startswith("data: ") and kind == "version":
                    got.put((time.perf_counter(), json.loads(line.removeprefix("data: "))["version"]))
                    if first:
                        first = False
                        ready.wait()
    except httpx.HTTPError:  # the servers stopped at the end of the run
        return


def bench_fanout(database: str, streams: int, servers: int, moves: int) -> None:
    store = PostgresStore(database, encounter="fanout")
    Encounter.create(store, load_scenario(SCENARIO), clock=clock)
    token = Invites(keep_for(store.name, store), encounter_key(store)).make(GM)[1]  # a GM link
    auth = {"Authorization": f"Bearer {token}"}
    ports = [free_port() for _ in range(servers)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tabletrail", "serve", database, "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for port in ports
    ]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for base in bases:
            for _ in range(300):
                try:
                    httpx.get(base + "/", headers={"accept": "application/json"}, timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
        got: queue.Queue = queue.Queue()
        ready = threading.Barrier(streams + 1)
        stop = threading.Event()
        for n in range(streams):
            threading.Thread(
                target=follow, args=(bases[n % servers], token, got, ready, stop), daemon=True
            ).start()
        ready.wait(timeout=120)
        while not got.empty():
            got.get()
        delays: list[float] = []
        worst: list[float] = []
        committed: list[float] = []
        after: list[float] = []  # from the answer to the move (its commit) to each stream
        # One client kept open, as a page's browser keeps its connections: httpx.post() alone makes a new
        # client (and its TLS context) each call, which was most of "the move answered".
        poster = httpx.Client(timeout=30)
        for m in range(moves):
            version = poster.get(bases[0] + "/e/fanout/api/state", headers=auth).json()["version"]
            text = "end-turn"
            start = time.perf_counter()
            body = {"version": version, "text": text}
            answer = poster.post(bases[m % servers] + "/e/fanout/api/do", json=body, headers=auth)
            committed.append(time.perf_counter() - start)
            new = answer.json()["version"]
            arrivals = []
            while len(arrivals) < streams:
                at, v = got.get(timeout=30)
                if v == new:
                    arrivals.append(at - start)
            delays += arrivals
            after += [a - committed[-1] for a in arrivals]
            worst.append(max(arrivals))
            time.sleep(0.2)
        stop.set()
        poster.close()
        print(f"  {streams} streams over {servers} servers, {moves} moves; times from posting the move:")
        print(f"    the move answered (committed)    p50 {ms(pct(committed, 50))}  max {ms(max(committed))}")
        print(f"    each stream told                 p50 {ms(pct(delays, 50))}  p99 {ms(pct(delays, 99))}")
        print(f"    each stream, after the answer    p50 {ms(pct(after, 50))}  p99 {ms(pct(after, 99))}")
        worst_line = f"p50 {ms(statistics.median(worst))}  max {ms(max(worst))}"
        print(f"    every stream told, per move      {worst_line}")
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=20)


# --- open: a million events --------------------------------------------------------------------------------


def bench_open(database: str, lines: list[bytes], every: int) -> None:
    start = time.perf_counter()
    _, snapshots = fold_with_snapshots(MemoryStore(lines), every)
    store = PostgresStore(database, encounter="long", snapshot_every=every)
    store.create(lines)
    store.save_snapshots(FORMAT, snapshots)
    print(f"  written to PostgreSQL with {len(snapshots)} snapshots in {time.perf_counter() - start:.0f} s")
    times = []
    for _ in range(5):
        start = time.perf_counter()
        fast = Encounter.open(PostgresStore(database, encounter="long", private=True))
        times.append(time.perf_counter() - start)
    start = time.perf_counter()
    slow = Encounter.open(PostgresStore(database, encounter="long", private=True), snapshots=False)
    full = time.perf_counter() - start
    same = view(fast.state) == view(slow.state) and fast.timeline.applied == slow.timeline.applied
    print(f"  from the newest snapshot: {statistics.median(times):6.3f} s (median of 5; target < 1 s)")
    print(f"  folding every event:      {full:6.3f} s; the two boards agree: {same}")


# --- fold: the same log folded from PostgreSQL and from SQLite ------------------------------------------


def folded(store: Store) -> tuple[float, Any]:
    """Seconds to open the encounter by folding every line (no snapshot), and its board."""
    start = time.perf_counter()
    enc = Encounter.open(store, snapshots=False)
    return time.perf_counter() - start, view(enc.state)


def bench_fold(database: str, lines: list[bytes], rounds: int = 2) -> None:
    """The same log in both stores, no snapshot in either, folded in turns: the best of `rounds` each."""
    with tempfile.TemporaryDirectory() as folder:
        PostgresStore(database, encounter="fold").create(lines)
        SqliteStore(Path(folder) / "fold.db").create(lines)
        pg: list[float] = []
        lite: list[float] = []
        for _ in range(rounds):
            seconds, pg_board = folded(PostgresStore(database, encounter="fold", private=True))
            pg.append(seconds)
            seconds, lite_board = folded(SqliteStore(Path(folder) / "fold.db"))
            lite.append(seconds)
        print(
            f"  fold of {len(lines):,} events, no snapshot (best of {rounds}): PostgreSQL {min(pg):.2f} s, "
            f"SQLite {min(lite):.2f} s, PostgreSQL / SQLite {min(pg) / min(lite):.2f}; "
            f"the boards agree: {pg_board == lite_board}"
        )


def generated(events: int) -> list[bytes]:
    start = time.perf_counter()
    lines = generate(events)
    print(f"generated {len(lines):,} events in {time.perf_counter() - start:.0f} s")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database", default=os.environ.get("TABLETRAIL_DB", DEFAULT_DATABASE))
    parser.add_argument("--encounters", type=int, default=200)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--batches", type=int, default=20, help="appends per encounter")
    parser.add_argument("--rounds", type=int, default=3, help="append rounds, PostgreSQL then SQLite each")
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--servers", type=int, default=4)
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--cpu-batches", type=int, default=300, help="appends per side and round (cpu)")
    parser.add_argument("--skip", default="", help="comma-separated: append, cpu, fanout, open, fold")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    schema = f"tt_bench_{uuid.uuid4().hex[:10]}"
    sep = "&" if "?" in args.database else "?"
    database = f"{args.database}{sep}schema={schema}"
    print(f"bench_hosted: schema {schema} of {PostgresStore(database, encounter='x').name.split('?')[0]}")
    try:
        if "append" not in skip:
            print(
                f"append: {args.encounters} encounters, {args.clients} clients, {args.batches} batches, "
                f"{args.rounds} rounds of PostgreSQL then SQLite"
            )
            bench_rounds(database, args.encounters, args.clients, args.batches, args.rounds)
        if "cpu" not in skip:
            print("cpu: one append's CPU (client + its server backend) against a bare INSERT + COMMIT")
            bench_cpu(database, args.cpu_batches, args.rounds)
        if "fanout" not in skip:
            print("fan-out: one move, every open page told (NOTIFY on commit, one LISTEN per server)")
            bench_fanout(database, args.streams, args.servers, args.moves)
        lines = generated(args.events) if not {"open", "fold"} <= skip else []
        if "open" not in skip:
            print(f"open: an encounter of {len(lines):,} events, a snapshot every {args.every}")
            bench_open(database, lines, args.every)
        if "fold" not in skip:
            print(f"fold: the same {len(lines):,} events folded from PostgreSQL and from SQLite")
            bench_fold(database, lines)
    finally:
        with psycopg.connect(args.database.split("?")[0], autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


if __name__ == "__main__":
    main()
