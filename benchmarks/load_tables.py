"""How many tables one small server holds (issue 29): a convention-sized load test.

N encounters in PostgreSQL, served by a real `tabletrail serve URL [--workers W]`
process. Every table has one GM page and five player pages (three blue, two red,
each with a link of its own) following the live stream (`/api/stream`), each page
its own HTTP connection from this process, reconnecting as a browser does when the
server ends a stream. Every table commits one command every --every seconds (10 by
default) through `POST /api/do` with the token of a player whose fighter is active:
the active fighter steps to a cell beside its start and back on its next turn, then
its side ends the turn. Each table POSTs on a keep-alive connection of its own, as
its player's browser does (through one shared client pool, as before issue 40's
rerun, a slow moment queued every table's POSTs behind one another in this process:
POSTs of 60 s that the server answered within 3 s). Table clocks are spread evenly
over the interval. The pages open evenly over --open-seconds (30, a stream's
length), as a hall of players arrives, so their reconnects are spread too; --herd
opens them all at once, as after a server restart, when every stream then ends and
reconnects in the same second. With --fetch a page has seen a move only once it
holds the new board (`GET /api/state?seen=V` on a keep-alive connection of its own,
as table.js asks for it when told of V), not when the stream told it; it then asks
for the event list too (`GET /api/events?after=H&seen=V`, H the version its list
holds; the newest page, `?limit=200`, the first time), as explain.js does (the
fighter sheet's `/api/actions`, asked only while a fighter is selected, is left
out).

Figures per N: commands/s committed; p50/p99 from a command's POST to the moment
the LAST page of its table was told of it (the version event); p99 of the POST
itself; errors (a refused or failed POST, a stream that failed, a command some
page was never told of); the server's CPU (cores busy over the run) and resident
memory (every process of the server, in total and per table above the server idle
with the tables made but not opened).

What the server waits on is printed too: each worker's probe (app/web/hosted.py,
TABLETRAIL_PROBE) says how late its event loop woke, how many of its threads were
out, how often a thread waited for a database connection and how long each request
took inside it (POST `do`, `state`, `events`); PostgreSQL's CPU over the run and
what its busy backends waited on (pg_stat_activity, sampled every PG_TICK). A p99
far above the server's own request times is time lost outside it: in this load
generator (its loop lag says how much) or on the way.

The knee is the largest N with p99 (every page told) <= --limit-ms (250) and no
error; `--find` steps N up (doubling from --start), then halves the gap once or
twice between the last good and the first bad N.

    .venv/bin/python benchmarks/load_tables.py --tables 50 --seconds 60
    .venv/bin/python benchmarks/load_tables.py --find --seconds 60
    .venv/bin/python benchmarks/load_tables.py --tables 100 --herd   # every page at once

The database is TABLETRAIL_DB (default postgresql://postgres@127.0.0.1/test); all
of it lives in a schema of its own, dropped after each N. Everything listens on
127.0.0.1 only. Every page comes from 127.0.0.1: a server that caps connections
per client address must be told to allow N*14 (pass its setting with --server-env
NAME=VALUE). The last line of a run reads

    tables=N pages=... commands/s=... p50_ms=... p99_ms=... post_p99_ms=... errors=... rss_mb=...
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

import httpx
import psycopg
from tabletrail.cli.serve import default_workers
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.postgres_store import PostgresStore
from tabletrail.service.encounter import Encounter
from tabletrail.web.invites import GM, Invites, encounter_key, keep_for

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "speed-meters-skirmish.toml"
DEFAULT_DATABASE = "postgresql://postgres@127.0.0.1/test"
PLAYERS = ("blue", "blue", "blue", "red", "red")  # five player pages per table, each its own link
CONNECTIONS_A_TABLE = 14  # six stream connections, six pages' fetches and the posts, with one to spare
# The scenario's initiative order, each fighter's side and the cell beside its start it steps to.
TURNS = (("ari", "blue", (1, 1), (1, 2)), ("bo", "blue", (2, 1), (2, 2)),
         ("cyn", "red", (10, 6), (10, 5)), ("dax", "red", (10, 1), (10, 2)))  # fmt: skip
GRACE = 3.0  # seconds the pages keep listening after the last command
CLK_TCK = os.sysconf("SC_CLK_TCK")


def clock() -> str:
    return "2026-12-01T00:00:00+00:00"


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


# --- the server: a real `serve --workers W` process, its CPU and memory read from /proc --------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def family(root: int) -> list[int]:
    """The server process and every process under it (uvicorn's workers)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, ppid in parents.items() if ppid in frontier]
        found += frontier
    return found


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLK_TCK


def postgres_pids() -> list[int]:
    """Every PostgreSQL process this machine shows (its backends serve other users too, if any)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if Path(f"/proc/{entry}/comm").read_text().strip() in ("postgres", "postmaster"):
                    found.append(int(entry))
    return found


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


# --- the tables ------------------------------------------------------------------------------------------


@dataclass
class Table:
    """One encounter under load: its links, the commands it committed and what each page was told."""

    name: str
    gm: str
    players: list[tuple[str, str]]  # (side, token)
    version: int = 0
    turn: int = 0  # index into TURNS of the active fighter
    moved: bool = False
    away: dict[str, bool] = field(default_factory=dict)  # fighter -> standing on its other cell
    commands: list[tuple[float, int, float]] = field(default_factory=list)  # (POST sent, version, took)
    told: list[list[tuple[float, int]]] = field(default_factory=list)  # per page: (arrival, version)

    def next_command(self) -> tuple[str, str]:
        """(the text, the side whose player sends it): step away or back, or end the turn."""
        fid, side, home, other = TURNS[self.turn]
        if self.moved:
            return "end-turn", side
        x, y = home if self.away.get(fid) else other
        return f"move {fid} {x},{y}", side

    def committed(self, text: str) -> None:
        fid = TURNS[self.turn][0]
        if text == "end-turn":
            self.turn, self.moved = (self.turn + 1) % len(TURNS), False
        else:
            self.away[fid], self.moved = not self.away.get(fid), True


@dataclass
class Tally:
    errors: list[str] = field(default_factory=list)
    posts: list[float] = field(default_factory=list)
    reconnects: int = 0
    lags: list[float] = field(default_factory=list)  # this generator's event loop, late by (seconds)

    def error(self, what: str) -> None:
        self.errors.append(what)


def make_tables(database: str, n: int) -> list[Table]:
    scenario = load_scenario(SCENARIO)
    tables = []
    for i in range(n):
        store = PostgresStore(database, encounter=f"t{i:04d}")
        Encounter.create(store, scenario, clock=clock)
        invites = Invites(keep_for(store.name, store), encounter_key(store))
        gm = invites.make(GM, label="gm")[1]
        players = [(side, invites.make(side, label=f"player {k}")[1]) for k, side in enumerate(PLAYERS)]
        version = store.version()
        tables.append(Table(store.encounter, gm, players, version=version))
    PostgresStore(database, encounter="t0000").close()
    return tables


LAG_TICK = 0.05  # seconds between two looks at how late this generator's event loop runs


async def loop_lag(stop: asyncio.Event, lags: list[float]) -> None:
    """How late this process's event loop wakes a sleeper, every LAG_TICK until `stop`: a page is told
    of a move only when its loop reads the stream, so a late loop is delay the server did not cause."""
    while not stop.is_set():
        asked = time.perf_counter()
        await asyncio.sleep(LAG_TICK)
        lags.append(time.perf_counter() - asked - LAG_TICK)


# --- inside the server: its workers' own probe, and what PostgreSQL's backends wait on ---------------------


def probes(directory: Path) -> dict[int, dict]:
    """What each worker's probe wrote last (app/web/hosted.py, TABLETRAIL_PROBE): pid -> figures."""
    found = {}
    for path in directory.glob("probe-*.json"):
        with contextlib.suppress(OSError, ValueError):
            found[int(path.stem.split("-")[1])] = json.loads(path.read_text())
    return found


def inside(before: dict[int, dict], after: dict[int, dict]) -> dict:
    """The workers' figures over the run alone (what each wrote after, less what it had at the start)."""
    lags: list[float] = []
    threads: list[int] = []
    queued: list[int] = []
    taken = waits = read_taken = read_waits = served = missed = 0
    waited = read_waited = 0.0
    limit = size = writers = 0
    took: dict[str, list[float]] = {}
    for pid, now in after.items():
        then = before.get(pid, {})
        for kind, seconds in (now.get("took") or {}).items():
            took.setdefault(kind, []).extend(seconds[len((then.get("took") or {}).get(kind, [])) :])
        skip = len(then.get("lags", []))
        lags += now["lags"][skip:]
        threads += now["threads"][skip:]
        queued += now["queued"][skip:]
        taken += now["pool_taken"] - then.get("pool_taken", 0)
        waits += now["pool_waits"] - then.get("pool_waits", 0)
        waited += now["pool_waited"] - then.get("pool_waited", 0.0)
        read_taken += now.get("read_taken", 0) - then.get("read_taken", 0)
        read_waits += now.get("read_waits", 0) - then.get("read_waits", 0)
        read_waited += now.get("read_waited", 0.0) - then.get("read_waited", 0.0)
        served += now.get("lines_served", 0) - then.get("lines_served", 0)
        missed += now.get("lines_missed", 0) - then.get("lines_missed", 0)
        limit, size = now["thread_limit"], now["pool_size"]
        writers = now.get("pool_writers", size)
    return {
        "workers": len(after), "lags": lags, "threads": threads, "queued": queued, "thread_limit": limit,
        "pool_size": size, "pool_taken": taken, "pool_waits": waits, "pool_waited": waited, "took": took,
        "pool_writers": writers, "read_taken": read_taken, "read_waits": read_waits,
        "read_waited": read_waited, "lines_served": served, "lines_missed": missed,
    }  # fmt: skip


PROBE_WAIT = 2.5  # seconds: a worker's probe (app/web/hosted.py) writes what it saw every PROBE_WRITE
PG_TICK = 0.25  # seconds between two looks at pg_stat_activity


def pg_waits(database: str, stop: asyncio.Event, seen: dict[str, int]) -> None:
    """Count, every PG_TICK until `stop`, what each busy backend of the database is doing or waiting on
    (pg_stat_activity: `wait_event_type:wait_event` or `CPU`, state), this sampler's own left out."""
    dbname = database.split("?")[0].rsplit("/", 1)[-1]
    with psycopg.connect(database.split("?")[0], autocommit=True) as conn:
        while not stop.is_set():
            rows = conn.execute(
                "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU'), state FROM pg_stat_activity"
                " WHERE datname = %s AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
                " AND state <> 'idle'",
                (dbname,),
            ).fetchall()
            seen["looks"] = seen.get("looks", 0) + 1
            for wait, state in rows:
                key = f"{wait} ({state})"
                seen[key] = seen.get(key, 0) + 1
            time.sleep(PG_TICK)


# --- one page's live stream: a raw HTTP/1.1 connection, chunked server-sent events ------------------------


class Board:
    """A page's own keep-alive connection for what table.js asks for when told of a version: the board
    (`GET /api/state?seen=V`), then what changed in the event list it draws beside it
    (`GET /api/events?after=H&seen=V`)."""

    def __init__(self, port: int, table: Table, token: str) -> None:
        self.port, self.base, self.token = port, f"/e/{table.name}/api", token
        self.conn: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self.listed: int | None = None  # the version of the event list the page holds

    async def version(self, told: int) -> int:
        """The version of the board the server answers when the stream told of `told`."""
        return int(json.loads(await self.get(f"state?seen={told}"))["version"])

    async def events(self, seen: int) -> None:
        """The event list, as the page asks for it once it holds the board of version `seen`: the newest
        page first, then only what changed since the version it holds (explain.js)."""
        held = self.listed
        part = f"after={held}" if held is not None else "limit=200"
        await self.get(f"events?{part}&seen={seen}")
        self.listed = seen  # at least that new: a later ask may get a line twice, never miss one

    async def get(self, what: str) -> bytes:
        """One answer's body; a status but 200 is an error."""
        status, body = await self.send("GET", what)
        if status != 200:
            raise ValueError(f"{what} answered {status}: {body[:120]!r}")
        return body

    async def send(
        self, method: str, what: str, body: bytes | None = None, token: str | None = None
    ) -> tuple[int, bytes]:
        """One request on this page's keep-alive connection (a broken one is opened again once): the
        status and the answer's body."""
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = await asyncio.open_connection("127.0.0.1", self.port)
            reader, writer = self.conn
            try:
                sent = body or b""
                extra = f"Content-Type: application/json\r\nContent-Length: {len(sent)}\r\n" if body else ""
                head = (
                    f"{method} {self.base}/{what} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                    f"Authorization: Bearer {token or self.token}\r\nAccept-Encoding: gzip\r\n{extra}\r\n"
                )
                writer.write(
                    head.encode() + sent
                )  # as a browser asks: the event list comes gzipped (the board does not)
                status = await reader.readline()
                if not status:  # the server closed the idle keep-alive connection: open another
                    raise ConnectionResetError("closed while idle")
                length = 0
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    key, _, value = line.partition(b":")
                    if key.strip().lower() == b"content-length":
                        length = int(value)
                return int(status.split()[1]), await reader.readexactly(length)
            except (OSError, asyncio.IncompleteReadError):
                writer.close()
                self.conn = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


async def follow(
    port: int, table: Table, token: str, page: int, stop: asyncio.Event, tally: Tally, fetch: bool
) -> None:
    """Follow the stream as a browser's EventSource does: reconnect (with the last version) when it ends.
    With `fetch`, a page has seen a version once it holds that board (GET /api/state), as table.js does."""
    told = table.told[page]
    board = Board(port, table, token) if fetch else None
    last = -1
    first = True
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError as exc:
            tally.error(f"{table.name} page {page}: connect: {exc}")
            await asyncio.sleep(1)
            continue
        try:
            path = f"/e/{table.name}/api/stream?token={token}&last={last}"
            writer.write(
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode()
            )
            status = (await reader.readline()).decode()
            headers = {}
            while (line := await reader.readline()) not in (b"\r\n", b""):
                key, _, value = line.decode().partition(":")
                headers[key.strip().lower()] = value.strip()
            if " 200 " not in status or "chunked" not in headers.get("transfer-encoding", ""):
                tally.error(f"{table.name} page {page}: stream answered {status.strip()!r}")
                await asyncio.sleep(1)
                continue
            if not first:
                tally.reconnects += 1
            first = False
            buffer = b""
            kind = ""
            while True:
                size = int((await reader.readline()).split(b";")[0], 16)
                if size == 0:
                    break  # the server ended this stream (its 30 s): connect again
                buffer += (await reader.readexactly(size + 2))[:-2]
                *lines, buffer = buffer.split(b"\n")
                for raw in lines:
                    text = raw.decode()
                    if text.startswith("event: "):
                        kind = text[7:]
                    elif text.startswith("data: ") and kind == "version":
                        version = int(text.split(":")[-1].strip(" }"))
                        if board is not None:
                            version = await board.version(version)
                        told.append((time.perf_counter(), version))  # the move is on the page's board
                        last = version
                        if board is not None:
                            await board.events(version)
                    elif text.startswith("data: ") and kind in ("denied", "unavailable"):
                        tally.error(f"{table.name} page {page}: {kind}: {text[6:]}")
        except (OSError, ValueError, asyncio.IncompleteReadError) as exc:
            if not stop.is_set():
                tally.error(f"{table.name} page {page}: stream broke: {exc!r}")
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def play(port: int, table: Table, every: float, start: float, end: float, tally: Tally) -> None:
    """This table's commands: one every `every` seconds from `start` until `end`, each POSTed on the
    table's own keep-alive connection (the acting player's browser), none queued behind another table's."""
    at = start
    browser = Board(port, table, table.gm)
    while at < end:
        await asyncio.sleep(max(0.0, at - time.perf_counter()))
        text, side = table.next_command()
        token = random.choice([t for s, t in table.players if s == side])
        sent = time.perf_counter()
        try:
            body = json.dumps({"version": table.version, "text": text}).encode()
            status, answer = await browser.send("POST", "do", body, token)
        except (OSError, ValueError, asyncio.IncompleteReadError) as exc:
            tally.error(f"{table.name}: POST {text}: {exc!r}")
        else:
            tally.posts.append(time.perf_counter() - sent)
            if status != 200:
                tally.error(f"{table.name}: POST {text}: {status} {answer[:200]!r}")
                if status == 409:
                    table.version = json.loads(answer).get("version", table.version)
            else:
                table.version = json.loads(answer)["version"]
                table.commands.append((sent, table.version, tally.posts[-1]))
                table.committed(text)
        at += every
    if browser.conn is not None:
        browser.conn[1].close()


def delays(table: Table, slow: list[tuple[float, float, float, str]]) -> tuple[list[float], list[float], int]:
    """Per command: the time until its last page was told; per (command, page): until that page was;
    and how many (command, page) pairs were never told. `slow` gets (every page, sent, POST, table)."""
    every, each, missed = [], [], 0
    for sent, version, took in table.commands:
        worst = 0.0
        for told in table.told:
            at = next((t for t, v in told if v >= version and t >= sent), None)
            if at is None:
                missed += 1
                continue
            each.append(at - sent)
            worst = max(worst, at - sent)
        every.append(worst)
        slow.append((worst, sent, took, table.name))
    return every, each, missed


def late_moments(slow: list[tuple[float, float, float, str]], wall: float) -> list[tuple[str, int, float]]:
    """The seconds (UTC wall clock, to line up with PostgreSQL's log and a disk probe) in which commands
    were sent that some page was told of later than the limit: (second, how many, the worst)."""
    moments: dict[int, list[float]] = {}
    for worst, sent, _, _ in slow:
        if worst * 1000 > LIMIT_MS:
            moments.setdefault(int(sent + wall), []).append(worst)
    return [
        (time.strftime("%H:%M:%S", time.gmtime(second)), len(w), max(w))
        for second, w in sorted(moments.items())
    ]


async def open_pages(
    port: int,
    tables: list[Table],
    share: list[tuple[int, int]],
    began: float,
    spread: float,
    stop: asyncio.Event,
    tally: Tally,
    fetch: bool,
) -> list[asyncio.Task[None]]:
    """Follow the pages of `share` ((table, page) pairs), opened on one schedule shared by every process:
    the i-th of all pages at `began + spread * i / all`. A hall of people arrives this way, and each page
    then reconnects on its own clock when the server ends its stream; 0 (--herd): all at once."""
    total = len(tables) * (1 + len(PLAYERS))
    tasks = []
    for ti, page in share:
        table = tables[ti]
        token = ([table.gm] + [t for _, t in table.players])[page]
        await asyncio.sleep(
            max(0.0, began + spread * (ti * (1 + len(PLAYERS)) + page) / total - time.perf_counter())
        )
        tasks.append(asyncio.create_task(follow(port, table, token, page, stop, tally, fetch)))
    return tasks


async def first_versions(tables: list[Table], share: list[tuple[int, int]], tally: Tally) -> None:
    """Wait (up to 120 s) until every page of `share` has been told its first version."""
    deadline = time.perf_counter() + 120
    while any(not tables[ti].told[p] for ti, p in share) and time.perf_counter() < deadline:
        await asyncio.sleep(0.2)
    missing = sum(1 for ti, p in share if not tables[ti].told[p])
    if missing:
        tally.error(f"{missing} of {len(share)} pages never got their first version")


def page_process(
    port: int,
    tables: list[Table],
    share: list[tuple[int, int]],
    began: float,
    spread: float,
    fetch: bool,
    conn: Connection,
) -> None:
    """A process of its own following a share of the pages (--clients): says "opened" once they all have
    their first version, follows them until told to stop, then sends back what each page was told."""

    async def main() -> None:
        tally, stop = Tally(), asyncio.Event()
        for table in tables:
            table.told = [[] for _ in range(1 + len(PLAYERS))]
        tasks = await open_pages(port, tables, share, began, spread, stop, tally, fetch)
        await first_versions(tables, share, tally)
        conn.send("opened")
        lagging = asyncio.create_task(loop_lag(stop, tally.lags))
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)
        stop.set()
        await lagging
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        told = {(ti, p): tables[ti].told[p] for ti, p in share}
        conn.send((told, tally.errors, tally.reconnects, time.process_time(), tally.lags))

    asyncio.run(main())


async def load(
    port: int,
    tables: list[Table],
    seconds: float,
    every: float,
    spread: float,
    tally: Tally,
    pids: list[int],
    fetch: bool = False,
    clients: int = 1,
    probe: Path | None = None,
    database: str = DEFAULT_DATABASE,
) -> dict:
    stop = asyncio.Event()
    for table in tables:
        table.told = [[] for _ in range(1 + len(PLAYERS))]
    every_page_of_all = [(ti, p) for ti in range(len(tables)) for p in range(1 + len(PLAYERS))]
    loop = asyncio.get_running_loop()
    workers: list[tuple[BaseProcess, Connection]] = []
    pages: list[asyncio.Task[None]] = []
    if clients <= 1:
        pages = await open_pages(
            port, tables, every_page_of_all, time.perf_counter(), spread, stop, tally, fetch
        )
        await first_versions(tables, every_page_of_all, tally)
    else:
        spawn = multiprocessing.get_context("spawn")
        began = time.perf_counter() + 3.0  # the processes start first; then the pages open on one schedule
        for k in range(clients):
            ours, theirs = spawn.Pipe()
            share = every_page_of_all[k::clients]
            proc = spawn.Process(
                target=page_process, args=(port, tables, share, began, spread, fetch, theirs)
            )
            proc.start()
            workers.append((proc, ours))
        for _, ours in workers:
            await loop.run_in_executor(None, ours.recv)  # "opened"
    probed = probes(probe) if probe is not None else {}
    waits: dict[str, int] = {}
    sampling = loop.run_in_executor(None, pg_waits, database, stop, waits)
    busy0, wall0 = cpu_seconds(pids), time.perf_counter()
    pg0 = {pid: cpu_seconds([pid]) for pid in postgres_pids()}
    lagging = asyncio.create_task(loop_lag(stop, tally.lags))
    start = time.perf_counter() + 0.5
    end = start + seconds
    players = [
        asyncio.create_task(play(port, t, every, start + every * i / len(tables), end, tally))
        for i, t in enumerate(tables)
    ]
    await asyncio.gather(*players)
    await asyncio.sleep(GRACE)
    wall = time.perf_counter() - wall0
    busy = (cpu_seconds(pids) - busy0) / wall
    pg_busy = sum(cpu_seconds([pid]) - pg0.get(pid, 0.0) for pid in postgres_pids())
    pg_busy /= time.perf_counter() - wall0
    memory = rss_mb(pids)
    if probe is not None:
        await asyncio.sleep(PROBE_WAIT)  # the workers' probes write what they saw every 2 s
    server = inside(probed, probes(probe)) if probe is not None else None
    stop.set()
    await lagging
    await sampling
    for task in pages:
        task.cancel()
    await asyncio.gather(*pages, return_exceptions=True)
    pages_cpu = 0.0
    for proc, ours in workers:
        ours.send("stop")
        told, errors, reconnects, cpu, lags = await loop.run_in_executor(None, ours.recv)
        tally.lags += lags
        for (ti, p), seen in told.items():
            tables[ti].told[p] = seen
        tally.errors += errors
        tally.reconnects += reconnects
        pages_cpu += cpu
        proc.join(timeout=30)
    every_page, each, missed, slow = [], [], 0, []
    for t in tables:
        a, b, m = delays(t, slow)
        every_page += a
        each += b
        missed += m
    if missed:
        tally.error(f"{missed} (command, page) pairs never told")
    return {
        "commands": sum(len(t.commands) for t in tables),
        "every": every_page,
        "each": each,
        "cpu": busy,
        "wall": wall,
        "rss": memory,
        "pages": len(every_page_of_all),
        "pages_cpu": pages_cpu,
        "inside": server,
        "pg_cpu": pg_busy,
        "pg_waits": waits,
        "slowest": [(w, s - start, p, name) for w, s, p, name in sorted(slow, reverse=True)[:4]],
        "late": late_moments(slow, time.time() - time.perf_counter()),
        "window": (start + time.time() - time.perf_counter(), seconds),
    }


def run(args: argparse.Namespace, n: int, env: dict[str, str]) -> dict:
    """One N: a fresh schema, a fresh server, the load, the figures; the schema dropped after."""
    database, seconds, every, workers = args.database, args.seconds, args.every, args.workers
    spread = 0.0 if args.herd else args.open_seconds
    schema = f"tt_load_{uuid.uuid4().hex[:10]}"
    sep = "&" if "?" in database else "?"
    url = f"{database}{sep}schema={schema}"
    tally = Tally()
    server = None
    probe = Path(tempfile.mkdtemp(prefix="tt_probe_"))
    try:
        made = time.perf_counter()
        tables = make_tables(url, n)
        print(f"  {n} tables made in {time.perf_counter() - made:.1f} s (schema {schema})", flush=True)
        port = free_port()
        chosen = ["--workers", str(workers)] if workers is not None else []  # else serve's default
        server = subprocess.Popen(
            [sys.executable, "-m", "tabletrail", "serve", url, *chosen, "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "TABLETRAIL_PROBE": str(probe), **env},
        )
        for _ in range(300):
            try:
                httpx.get(f"http://127.0.0.1:{port}/", headers={"accept": "application/json"}, timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        time.sleep(1.0)  # the workers all up
        pids = family(server.pid)
        idle = rss_mb(pids)
        own0 = time.process_time()
        figures = asyncio.run(
            load(port, tables, seconds, every, spread, tally, pids, args.fetch, args.clients, probe, database)
        )
        figures["client_cpu"] = (time.process_time() - own0 + figures["pages_cpu"]) / (seconds + GRACE)
        figures["idle"] = idle
        figures["workers"] = len(pids) - 1
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            err = server.stderr.read().decode(errors="replace") if server.stderr else ""
            if "Traceback" in err:
                tally.error("server traceback: " + err.strip().splitlines()[-1])
        with psycopg.connect(database.split("?")[0], autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        shutil.rmtree(probe, ignore_errors=True)
    figures["n"] = n
    figures["tally"] = tally
    return figures


def report(f: dict, seconds: float) -> bool:
    tally: Tally = f["tally"]
    n = f["n"]
    every, each = f["every"], f["each"]
    rate = f["commands"] / seconds
    for what in sorted(set(tally.errors))[:5]:
        print(f"  error: {what}")
    print(
        f"  each page told: p50 {pct(each, 50) * 1000:.1f} ms p99 {pct(each, 99) * 1000:.1f} ms; "
        f"server {f['workers'] + 1} processes, CPU {f['cpu']:.2f} cores busy, "
        f"RSS {f['rss']:.0f} MB ({(f['rss'] - f['idle']) * 1024 / max(n, 1):.0f} KB a table above "
        f"{f['idle']:.0f} MB idle); this client {f['client_cpu']:.2f} cores; "
        f"{tally.reconnects} stream reconnects; load {os.getloadavg()[0]:.2f}"
    )
    spent = f["cpu"] * f["wall"] * 1000 / max(f["commands"], 1)
    pg_spent = f.get("pg_cpu", 0.0) * f["wall"] * 1000 / max(f["commands"], 1)
    print(f"  CPU a command: the server {spent:.1f} ms, PostgreSQL {pg_spent:.1f} ms (pages' reads included)")
    lags = tally.lags or [0.0]
    print(
        f"  this load generator's event loop (every process of it) woke late by p50 "
        f"{pct(lags, 50) * 1000:.1f} ms, p99 {pct(lags, 99) * 1000:.1f} ms, max {max(lags) * 1000:.0f} ms: "
        "a page is told only when its loop reads, so that much of the delay is the generator's, "
        "not the server's"
    )
    server = f.get("inside")
    if server and server["lags"]:
        lag, threads, queued = server["lags"], server["threads"], server["queued"]
        taken = max(server["pool_taken"], 1)
        print(
            f"  the server's {server['workers']} workers' event loops woke late by p50 "
            f"{pct(lag, 50) * 1000:.1f} ms, p99 {pct(lag, 99) * 1000:.1f} ms, max {max(lag) * 1000:.0f} ms; "
            f"threads out p99 "
            f"{pct(threads, 99):.0f} of {server['thread_limit']} (requests queued for one in "
            f"{sum(1 for q in queued if q) * 100 / len(queued):.1f}% of looks); database connections "
            f"(pool of {server['pool_size']} a worker, commits hold at most {server['pool_writers']}) taken "
            f"{server['pool_taken']} times, waited for {server['pool_waits']} times "
            f"({server['pool_waits'] * 100 / taken:.1f}%), {server['pool_waited']:.1f} s in all; by reads "
            f"{server['read_taken']} times, waited for {server['read_waits']} times, "
            f"{server['read_waited']:.1f} s in all; moves folded from a NOTIFY's lines "
            f"{server.get('lines_served', 0)} times, read back {server.get('lines_missed', 0)} times"
        )
    if server and server["took"]:
        said = ", ".join(
            f"{kind} p50 {pct(v, 50) * 1000:.1f} p99 {pct(v, 99) * 1000:.1f} max {max(v) * 1000:.0f} ms "
            f"({len(v)})"
            for kind, v in sorted(server["took"].items(), key=lambda kv: -len(kv[1]))[:4]
        )
        print(f"  inside the server, a request took: {said}")
    waits = dict(f.get("pg_waits") or {})
    looks = max(waits.pop("looks", 0), 1)
    busiest = sorted(waits.items(), key=lambda kv: -kv[1])[:6]
    said = ", ".join(f"{what} {n / looks:.2f}" for what, n in busiest) or "none busy"
    print(
        f"  PostgreSQL {f.get('pg_cpu', 0.0):.2f} cores busy (all its processes, anyone's); backends busy at "
        f"a look (mean over {looks} looks): {said}"
    )
    slowest = ", ".join(
        f"{name} at {at:.1f} s: {w * 1000:.0f} ms (POST {p * 1000:.0f} ms)" for w, at, p, name in f["slowest"]
    )
    print(f"  slowest commands (every page told): {slowest}")
    began, length = f["window"]
    late = f["late"]
    said = ", ".join(f"{at} {n} (worst {w * 1000:.0f} ms)" for at, n, w in late[:40]) or "none"
    more = f" and {len(late) - 40} more" if len(late) > 40 else ""
    print(
        f"  timed window {time.strftime('%H:%M:%S', time.gmtime(began))}-"
        f"{time.strftime('%H:%M:%S', time.gmtime(began + length))} UTC; commands over {LIMIT_MS:g} ms "
        f"sent in {len(late)} seconds of it: {said}{more}"
    )
    p99 = pct(every, 99) * 1000
    print(
        f"tables={n} pages={f['pages']} commands/s={rate:.1f} p50_ms={pct(every, 50) * 1000:.1f} "
        f"p99_ms={p99:.1f} post_p99_ms={pct(tally.posts, 99) * 1000:.1f} errors={len(tally.errors)} "
        f"rss_mb={f['rss']:.0f}",
        flush=True,
    )
    return not tally.errors and p99 <= LIMIT_MS and bool(every)


LIMIT_MS = 250.0


def main() -> None:
    global LIMIT_MS
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database", default=os.environ.get("TABLETRAIL_DB", DEFAULT_DATABASE))
    parser.add_argument("--tables", type=int, default=20, help="tables for one run (default 20)")
    parser.add_argument("--seconds", type=float, default=60.0, help="commands are sent for this long")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between one table's commands")
    parser.add_argument(
        "--workers", type=int, default=None, help="the server's workers (default: serve's own default)"
    )
    parser.add_argument(
        "--open-seconds", type=float, default=30.0, help="the pages open evenly over this long (default 30)"
    )
    parser.add_argument("--herd", action="store_true", help="every page opens at once (a server restart)")
    parser.add_argument(
        "--fetch",
        action="store_true",
        help="a page has seen a move once it holds its board (GET /api/state)",
    )
    parser.add_argument(
        "--clients",
        type=int,
        default=1,
        help="follow the pages in this many processes of their own (default 1)",
    )
    parser.add_argument("--find", action="store_true", help="step N up to find the knee")
    parser.add_argument("--start", type=int, default=25, help="--find: the first N (then doubled)")
    parser.add_argument("--max-tables", type=int, default=800, help="--find: never more than this")
    parser.add_argument("--limit-ms", type=float, default=LIMIT_MS, help="the knee's p99 (every page told)")
    parser.add_argument(
        "--server-env", action="append", default=[], metavar="NAME=VALUE",
        help="an environment setting for the server (e.g. a cap of connections per client)",
    )  # fmt: skip
    args = parser.parse_args()
    LIMIT_MS = args.limit_ms
    env = dict(item.split("=", 1) for item in args.server_env)
    # Every page comes from 127.0.0.1, as a venue's phones come from its reverse proxy: lift the
    # per-address cap (app/web/guard.py) unless --server-env sets it. A table holds up to 13 connections
    # (six streams, six pages' fetches, its posts), and one worker may accept every one of them: the cap
    # is per worker, and workers do not share the accepting evenly (8 a table refused 156 commands at 750
    # tables on 2 workers).
    tables = args.max_tables if args.find else args.tables
    env.setdefault("TABLETRAIL_PER_CLIENT", str(CONNECTIONS_A_TABLE * tables + 64))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = CONNECTIONS_A_TABLE * tables + 256
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(need, soft)), hard))
    print(
        f"load_tables: {os.cpu_count()} cores, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
        f"open files {resource.getrlimit(resource.RLIMIT_NOFILE)[0]}, "
        f"{args.workers if args.workers is not None else default_workers()} workers, "
        f"one command a table every {args.every:g} s for {args.seconds:g} s, pages opened "
        + ("all at once" if args.herd else f"over {args.open_seconds:g} s")
        + ("; each page fetches the board when told" if args.fetch else ""),
        flush=True,
    )
    if not args.find:
        report(run(args, args.tables, env), args.seconds)
        return
    good, bad, n = 0, None, args.start
    while n <= args.max_tables:
        print(f"N={n}", flush=True)
        if report(run(args, n, env), args.seconds):
            good, n = n, n * 2
        else:
            bad = n
            break
    for _ in range(2):  # halve the gap twice
        if bad is None or bad - good <= max(5, good // 8):
            break
        n = (good + bad) // 2
        print(f"N={n}", flush=True)
        if report(run(args, n, env), args.seconds):
            good = n
        else:
            bad = n
    more = "" if bad is not None else f" (never failed up to {args.max_tables})"
    print(f"knee: tables={good}{more}; first failing: {bad}", flush=True)


if __name__ == "__main__":
    main()
